"""Running many scenarios at once, on all cores.

The core releases the GIL while it simulates, so threads run scenarios truly in parallel, and the
results cross into Python as columns: no pickling, no worker processes to start.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Callable, Iterable, Optional, Sequence

from rich.progress import Progress

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.simulate import run_in_turn
from tcpstart.scenario import ScenarioError, ScenarioLike, scenario_dict, validate


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
    (none when omitted). An invalid scenario raises its ScenarioError (the first invalid one in
    the order given); the workers then take no further scenarios. Ctrl-C stops every worker
    within milliseconds and raises KeyboardInterrupt; a run that breaks an invariant raises
    InvariantError.
    """
    items: Sequence[ScenarioLike] = list(scenarios)
    n = workers or default_workers()
    # Runs go to the workers in chunks: a small run takes about a millisecond, and handing each
    # one to a thread on its own (a wake-up and a GIL hand-over per run) cost a third of that on a
    # busy machine. Four chunks per worker still balance uneven runs.
    size = max(1, min(64, len(items) // (4 * n)))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    if progress is None:
        return _run_chunks(chunks, n, lambda k: None)
    with Progress(transient=True) as bar:
        task = bar.add_task(progress, total=len(items))
        return _run_chunks(chunks, n, lambda k: bar.advance(task, k))


# Helper threads kept from call to call. glibc gives every thread but the main one a malloc arena
# of its own; with threads started per call, a helper's share of the results page-faulted in
# again on every call (12 700 faults and 8 % more time for B5 on two workers), with threads kept,
# it does not (perf/journal.md, "Worker threads and the allocator").
_helpers: Optional[tuple[int, ThreadPoolExecutor]] = None
_helpers_lock = threading.Lock()


def _helper_threads(count: int) -> ThreadPoolExecutor:
    global _helpers
    with _helpers_lock:
        if _helpers is None or _helpers[0] < count:
            if _helpers is not None:
                _helpers[1].shutdown(wait=False)
            _helpers = (count, ThreadPoolExecutor(max_workers=count, thread_name_prefix="tcpstart"))
        return _helpers[1]


def _run_chunks(chunks: list[Sequence[ScenarioLike]], workers: int, advance: Callable[[int], None]) -> list[Result]:
    """Runs the chunks on `workers` threads, the calling thread being one of them instead of
    waiting for the others: with one worker no other thread takes part. The first failure (an
    invalid scenario, Ctrl-C on the calling thread) sets a flag that stops the runs under way on
    every thread within milliseconds."""
    done: list[list[Result]] = [[] for _ in chunks]
    failed: dict[int, BaseException] = {}
    stop = _core.Stop()
    # A range iterator hands out each index once, whichever thread asks (next() holds the GIL).
    pending = iter(range(len(chunks)))

    def work() -> None:
        for i in pending:
            if stop.is_set():
                return
            try:
                done[i] = run_in_turn(chunks[i], stop)
            except BaseException as e:  # an invalid scenario or an interrupt: the others stop too
                # A run stopped by the flag raises KeyboardInterrupt: not a failure of its own.
                if not stop.is_set():
                    failed[i] = e
                    stop.set()
                return
            advance(len(chunks[i]))

    helpers = min(workers, len(chunks)) - 1
    pool = _helper_threads(helpers) if helpers > 0 else None
    others = [pool.submit(work) for _ in range(helpers)] if pool else []
    try:
        work()
        for f in others:
            f.result()
    except BaseException:  # interrupted while waiting: the helpers stop, and are waited for
        stop.set()
        wait(others)
        raise
    if failed:
        first = min(failed)
        # Chunks are taken in order, but one taken before the failed one may have been stopped
        # by the flag before it reached an invalid scenario of its own: the first invalid
        # scenario in the order given is looked for in those.
        for i in range(first):
            if len(done[i]) < len(chunks[i]):
                for s in chunks[i]:
                    d, path = scenario_dict(s)
                    try:
                        validate(d)
                    except ScenarioError as e:
                        raise ScenarioError(f"{path}: {e}" if path else str(e)) from None
        raise failed[first]
    return [r for chunk in done for r in chunk]
