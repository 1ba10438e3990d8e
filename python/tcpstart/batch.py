"""Running many scenarios at once, on all cores.

The core releases the GIL while it simulates, so threads run scenarios truly in parallel, and the
results cross into Python as columns: no pickling, no worker processes to start.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Optional, Sequence

from rich.progress import Progress

from tcpstart.results import Result
from tcpstart.simulate import run
from tcpstart.scenario import ScenarioLike


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_many(
    scenarios: Iterable[ScenarioLike],
    workers: Optional[int] = None,
    progress: Optional[str] = None,
) -> list[Result]:
    """Runs every scenario and returns the results in the order given.

    `workers` defaults to the number of usable cores; `progress` is a label for a progress bar
    (none when omitted). An invalid scenario raises its ScenarioError before the rest finish.
    """
    items: Sequence[ScenarioLike] = list(scenarios)
    n = workers or default_workers()
    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(run, s) for s in items]
        if progress is None:
            return [f.result() for f in futures]
        with Progress(transient=True) as bar:
            task = bar.add_task(progress, total=len(futures))
            results = []
            for f in futures:
                results.append(f.result())
                bar.advance(task)
            return results
