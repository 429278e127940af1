"""Progress of long jobs (training, tournaments): a tqdm bar on a terminal, plain lines otherwise.

When standard output is not a terminal (piped to a file or ``tee``, as on clusters) a bar is either
invisible or a wall of carriage returns, so a line like
``train: 151,552/300,000 steps (50.5%) 1,020 samples/s, eta 2m28s`` is printed every ``interval``
seconds instead, and once more at the end.

The rate, and the time left from it, is that of roughly the last ``RATE_HORIZON`` seconds
(``RateMeter``), so it settles instead of swinging with each training iteration or evaluation pause.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time

from train.arg_types import non_negative_float

DEFAULT_INTERVAL = 30.0
"""Seconds between progress lines when output is not a terminal."""


RATE_HORIZON = 120.0
"""Seconds of work the shown rate (and the time left) mostly reflects."""


def add_progress_arguments(parser) -> None:
    """Add ``--no-progress`` and ``--progress-interval SECONDS`` to a command's parser."""
    parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    parser.add_argument("--progress-interval", type=non_negative_float, default=DEFAULT_INTERVAL, metavar="SECONDS",
                        help="seconds between progress lines when the output is not a terminal "
                        "(default: %(default)s)")


def format_duration(seconds: float) -> str:
    """``2m28s``, ``1h05m``, ``12s``."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _has_tqdm() -> bool:
    """Whether tqdm (the bar drawn on a terminal; in the train extra) is installed; without it, progress is lines."""
    import importlib.util

    return importlib.util.find_spec("tqdm") is not None


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class RateMeter:
    """A work rate that settles: the work done over roughly the last ``horizon`` seconds, per second.

    Work and time are both summed with weights that decay exponentially with age, so a job that counts
    its work in bursts (a training iteration at a time, then a pause to evaluate) shows an even rate,
    yet the rate still follows a machine that gets busier. Within the first ``horizon`` seconds it is
    close to the mean since the start.
    """

    def __init__(self, horizon: float = RATE_HORIZON):
        self.horizon = horizon
        self.work = self.seconds = 0.0

    def add(self, work: float, seconds: float) -> None:
        """``work`` more done in ``seconds`` more."""
        seconds = max(float(seconds), 0.0)
        keep = math.exp(-seconds / self.horizon)
        self.work = self.work * keep + max(float(work), 0.0)
        self.seconds = self.seconds * keep + seconds

    @property
    def rate(self) -> float:
        """Work per second (0.0 before any time has passed)."""
        return self.work / self.seconds if self.seconds > 0 else 0.0


def _smoothed_bar(meter: RateMeter, **kwargs):
    """A tqdm bar whose rate, and so its time left, is ``meter``'s (tqdm's own follows each burst)."""
    from tqdm import tqdm

    class SmoothedBar(tqdm):
        @property
        def format_dict(self):
            shown = super().format_dict
            if meter.rate > 0:
                shown["rate"] = meter.rate
            return shown

    return SmoothedBar(**kwargs)


class Progress:
    """A count towards ``total``: a tqdm bar when ``stream`` is a terminal, periodic lines when it is not.

    ``initial`` is work already done (a resumed job): it counts towards the total but not the rate.
    The shown count never exceeds the total.
    """

    def __init__(self, label: str, total: int, unit: str, rate_unit: str | None = None, initial: int = 0,
                 enabled: bool = True, interval: float = DEFAULT_INTERVAL, stream=None, clock=time.monotonic):
        self.label, self.total, self.unit = label, max(int(total), 0), unit
        self.rate_unit = rate_unit or f"{unit}/s"
        self.stream = stream if stream is not None else sys.stdout
        self.interval = interval
        self.clock = clock
        self.initial = self.count = min(int(initial), self.total)
        self.start = self.last = self.measured = clock()
        self.meter = RateMeter()
        self.closed = False
        self.bar = None
        self.lines = enabled and (not _isatty(self.stream) or not _has_tqdm())
        if enabled and not self.lines:
            self.bar = _smoothed_bar(self.meter, total=self.total, initial=self.count, desc=label, dynamic_ncols=True,
                                     unit=unit[:-1] if unit.endswith("s") else unit, smoothing=0)

    def update(self, n: int = 1) -> None:
        """Count ``n`` more."""
        self.set(self.count + n)

    def set(self, count: int) -> None:
        """Set the count (clamped to the total)."""
        count = min(int(count), self.total)
        now = self.clock()
        self.meter.add(count - self.count, now - self.measured)
        self.measured = now
        if self.bar is not None and count > self.bar.n:
            self.bar.update(count - self.bar.n)
        self.count = count
        if self.lines:
            if now - self.last >= self.interval:
                self.last = now
                self.report(now)

    def report(self, now: float | None = None, final: bool = False) -> None:
        """Print one progress line: the recent rate and the time left at it, or at the end the mean rate."""
        now = self.clock() if now is None else now
        elapsed = now - self.start
        rate = self.meter.rate
        if final:
            rate = (self.count - self.initial) / elapsed if elapsed > 0 else 0.0
        pct = 100.0 * self.count / self.total if self.total else 100.0
        line = (f"{self.label}: {self.count:,}/{self.total:,} {self.unit} ({pct:.1f}%) "
                f"{rate:,.{1 if rate < 10 else 0}f} {self.rate_unit}, ")
        if final:
            line += f"{'done in' if self.count >= self.total else 'stopped after'} {format_duration(elapsed)}"
        elif rate > 0:
            line += f"eta {format_duration((self.total - self.count) / rate)}"
        else:
            line += "eta unknown"
        print(line, file=self.stream, flush=True)

    def close(self) -> None:
        """Close the bar, or print the last line."""
        if self.closed:
            return
        self.closed = True
        if self.bar is not None:
            self.bar.close()
        elif self.lines:
            self.report(final=True)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class StopRequest:
    """While entered (in the main thread): the first Ctrl-C sets ``requested``, a second raises KeyboardInterrupt.

    Inside ``shielded()`` the second Ctrl-C waits for the end of the block, so that a message to a
    worker process is never cut in half; with ``finishing=True`` (the run is already stopping) it is
    not raised at all.
    """

    def __init__(self):
        self.requested = False
        self.previous = None
        self.shields = 0
        self.deferred = False

    def _handle(self, signum, frame) -> None:
        if self.requested:
            if not self.shields:
                raise KeyboardInterrupt
            self.deferred = True
            with contextlib.suppress(OSError):
                os.write(2, b"\ntrain: stopping as soon as the update process has answered (a few seconds at most)\n")
            return
        self.requested = True
        # os.write, not print: a signal handler may run in the middle of another write to the same stream
        with contextlib.suppress(OSError):
            os.write(2, b"\ntrain: stopping after this step to save a checkpoint and the policy "
                        b"(Ctrl-C again to stop at once)\n")

    def __enter__(self) -> "StopRequest":
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None

    @contextlib.contextmanager
    def shielded(self, finishing: bool = False):
        """Hold a second Ctrl-C until the block ends (then raise it, unless ``finishing``)."""
        self.shields += 1
        try:
            yield
        finally:
            self.shields -= 1
        if self.deferred and not self.shields:
            self.deferred = False
            if not finishing:
                raise KeyboardInterrupt
