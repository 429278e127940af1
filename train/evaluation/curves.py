"""Learning curves of a training run: its ``eval.csv`` copied beside a plot of win rate against steps.

    python -m train.evaluation.curves runs/classic docs/results/curves/classic-learning-curve

writes ``docs/results/curves/classic-learning-curve.csv`` (the run's evaluations) and ``.png`` (one line per
opponent and table size, with its 95% interval as a band). A third argument titles the plot
(default: the run directory's name).
"""
from __future__ import annotations

import csv
import os
import shutil
import sys

from train.plots import pyplot


def read_eval(path: str) -> dict[str, list[tuple[int, float, float, float]]]:
    """Rows of an ``eval.csv`` per opponent: (steps, win rate, interval low, interval high)."""
    curves: dict[str, list] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            try:
                curves.setdefault(str(row["opponent"])[:100], []).append(
                    (int(row["timesteps"]), float(row["win_rate"]), float(row["ci95_low"]), float(row["ci95_high"])))
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"{path} line {line}: not an eval.csv row (timesteps, opponent, win_rate, "
                                 "ci95_low, ci95_high)") from None
    return curves


def write_curve(run_dir: str, out_base: str, title: str | None = None) -> tuple[str, str]:
    """Copy ``run_dir/eval.csv`` to ``out_base.csv`` and plot it to ``out_base.png``."""
    plt = pyplot(out_base + ".png")
    if plt is None:
        raise ValueError("drawing a learning curve needs matplotlib: pip install 'uno-env[plots]'")
    source = os.path.join(run_dir, "eval.csv")
    curves = read_eval(source)
    shutil.copyfile(source, out_base + ".csv")
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent, rows in sorted(curves.items()):
        rows.sort()
        x = [r[0] / 1e6 for r in rows]
        line, = ax.plot(x, [r[1] for r in rows], marker="o", label=f"vs {opponent}")
        ax.fill_between(x, [r[2] for r in rows], [r[3] for r in rows], color=line.get_color(), alpha=0.15)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.axhline(0.25, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("decisions learned from (millions)")
    ax.set_ylabel("win rate (seat-rotated, 95% band)")
    ax.set_ylim(0, 1)
    ax.set_title(title or os.path.basename(os.path.normpath(run_dir)))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_base + ".png", dpi=100)
    plt.close(fig)
    return out_base + ".csv", out_base + ".png"


if __name__ == "__main__":  # python -m train.evaluation.curves RUN_DIR OUT_BASE [TITLE]
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python -m train.evaluation.curves RUN_DIR OUT_BASE [TITLE]")
    try:
        print(*write_curve(*sys.argv[1:]))
    except (OSError, ValueError) as exc:
        sys.exit(f"curves: {exc}")
