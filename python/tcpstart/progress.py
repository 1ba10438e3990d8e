"""What a long run shows while it goes: a line up front when it will take minutes, and on a
terminal its progress in simulated time with the time left.

The core calls a `RunProgress` every 50 ms of wall time (`_core.run_all`'s `progress`); runs over
within a second show nothing.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Iterator, Optional

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

# Wall seconds a run goes before it shows anything; its speed over them gives the estimate.
QUIET_FOR = 1.0
# A run estimated to take longer than this many wall seconds says so on stderr.
ANNOUNCE_OVER = 60.0


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class RunProgress:
    """The progress callback of runs labelled `label`: called as (index in the batch, simulated
    seconds, simulated end in seconds or None) from the core."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.console = Console(stderr=True)
        self.bar: Optional[Progress] = None
        self.index = -1
        self.started = 0.0
        self.shown = False

    def __call__(self, index: int, now: float, end: Optional[float]) -> None:
        if index != self.index:  # the next run of the batch
            self.index, self.started, self.shown = index, time.monotonic(), False
            self.close()
        elapsed = time.monotonic() - self.started
        if elapsed < QUIET_FOR:
            return
        if not self.shown:
            self.shown = True
            self._announce(elapsed, now, end)
            if self.console.is_terminal:
                self._open(end)
        if self.bar is not None:
            self.bar.update(self.bar.task_ids[0], completed=now)

    def _announce(self, elapsed: float, now: float, end: Optional[float]) -> None:
        if end is None or now <= 0:
            return
        total = elapsed * end / now
        if total > ANNOUNCE_OVER:
            print(
                f"tcpstart: {self.label}: this run will take about {_duration(total)} "
                f"({end:g} s simulated at {now / elapsed:.3g} simulated s per second so far; Ctrl-C stops it)",
                file=sys.stderr,
            )

    def _open(self, end: Optional[float]) -> None:
        simulated = "{task.completed:.1f}" + (f" of {end:g} s" if end is not None else " s") + " simulated"
        self.bar = Progress(
            TextColumn(self.label),
            BarColumn(),
            TextColumn(simulated),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        self.bar.add_task(self.label, total=end)
        self.bar.start()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@contextlib.contextmanager
def watching(label: str) -> Iterator[RunProgress]:
    """A RunProgress for the runs made inside the block; its bar goes when the block ends."""
    progress = RunProgress(label)
    try:
        yield progress
    finally:
        progress.close()
