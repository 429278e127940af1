"""Figures are optional: matplotlib comes with the ``plots`` extra (and ``train``, ``dev``), not the plain install.

Every figure the commands write goes through ``pyplot()``; without matplotlib the command still writes its
tables and says which figure it left out and what to install.
"""
from __future__ import annotations

import sys

from train import atomic

INSTALL_HINT = "pip install 'uno-env[plots]'"


def pyplot(figure: str):
    """matplotlib's pyplot on the file-only Agg backend, or None (with a note on stderr naming ``figure``)."""
    try:
        import matplotlib
    except ImportError:
        print(f"note: {figure} not drawn: matplotlib is not installed ({INSTALL_HINT})", file=sys.stderr)
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(plt, fig, path: str) -> str:
    """Write ``fig`` to ``path`` as a PNG (atomically: a reader never sees half a file), close it; the path."""
    fig.tight_layout()
    with atomic.atomic_open(path, "wb", encoding=None) as fh:
        fig.savefig(fh, format="png", dpi=100)
    plt.close(fig)
    return path
