"""The applications: the ``uno-env`` command line (``cli.py``) and each command's own module (``*_command.py``,
``play/``, ``replay/``, ``serve/``), which parses its arguments and calls into the room that does the work."""
