"""The bar of ``Simulation.run(progress=True)``: tqdm's when tqdm is installed (in Jupyter,
``tqdm.auto`` draws a widget), else one line on stderr that rewrites itself."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


def bar(total: int, what: str):
    """A callable given (steps done, steps asked), with ``close()`` for the end of the run."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return Line(total, what)
    return _Tqdm(tqdm(total=total, desc=what, unit="step"))


class _Tqdm:
    def __init__(self, bar):
        self._bar = bar

    def __call__(self, done: int, total: int) -> None:
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        self._bar.close()


class Line:
    """``what [#####.....] done/total steps, elapsed, left`` on one line of ``stream``
    (stderr), redrawn at most five times a second and at the end."""

    WIDTH = 30

    def __init__(self, total: int, what: str, stream: Optional[TextIO] = None):
        self.total, self.what = total, what
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.drawn = None  # when the line was last drawn
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if done < total and self.drawn is not None and now - self.drawn < 0.2:
            return
        self.drawn = now
        filled = self.WIDTH * done // total if total else self.WIDTH
        elapsed = now - self.start
        left = f", {elapsed * (total - done) / done:.0f} s left" if 0 < done < total else ""
        self.stream.write(
            f"\r{self.what} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
            f"{done}/{total} steps, {elapsed:.0f} s{left}   "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.drawn is not None:
            self.stream.write("\n")
            self.stream.flush()
