"""What every part of reading a policy file shares: its one error and the bounds it is read within."""
from __future__ import annotations

#: Largest ``<name>.json`` read, in bytes (the shipped ones are about 2 KB).
MAX_METADATA_BYTES = 1 << 20
#: Most sizes in ``layers``: the input, the hidden layers and the output (so at most 15 weight layers).
MAX_LAYERS = 16
#: Largest size of one layer, input and output included (the shipped observations are 357 to 1,402 wide).
MAX_LAYER_SIZE = 65_536
#: Most weights and biases of one policy, all layers together: 2**24 = 16,777,216, 64 MiB as float32
#: (a shipped policy holds about 250,000). Checked from the metadata and every array's ``.npy``
#: header before any array data is inflated, so a small compressed file cannot expand past it.
MAX_WEIGHT_ELEMENTS = 1 << 24
#: Most players a policy's ``num_players`` and each of its ``table_sizes`` may name, and most table sizes.
MAX_TABLE_SIZE = 100
#: Largest ``.npy`` header read (numpy's own limit; the headers numpy writes are 128 bytes).
MAX_NPY_HEADER_BYTES = 10_000
#: Largest zip central directory read (a policy's few members take about 50 bytes each).
MAX_DIRECTORY_BYTES = 1 << 16
#: Most members a policy's ``.npz`` may hold: a weight and a bias array per layer.
MAX_MEMBERS = 2 * (MAX_LAYERS - 1)


class PolicyFileError(ValueError):
    """A policy file that cannot be read, or does not fit the game it is used in."""
