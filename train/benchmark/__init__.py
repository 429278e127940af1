"""Benchmarks: the speed measurements (``throughput.py``, ``learning.py``, ``parts.py``, ``search.py``), the task
suite and the sample-budget protocol, the exploitability measure; their commands are in ``train/app/``."""
