"""Where a campaign's runs are simulated: threads on this machine, or a Ray cluster.

A backend takes batches of (key, scenario) and hands every finished batch, as the bytes of its
pack (see tcpstart.sweep.cache), to a sink (which stores it) as soon as it is done, so that
nothing waits in memory for the end of the campaign and an interrupt loses no finished batch.
The work per run outside the core (the summary, its JSON text, the table rows) is done where the
run was simulated: on Ray, by the workers, in parallel. Both backends run the same core on the
same scenarios, so their results are the same bit for bit.
"""

from __future__ import annotations

import threading
from concurrent.futures import wait
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from tcpstart import _core
from tcpstart.batch import _helper_threads, default_workers
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, to_json
from tcpstart.sweep.cache import make_pack

Task = Tuple[str, Dict[str, Any]]
"""A run to simulate: its store key and its scenario dict."""
Done = Tuple[bytes, Optional[List[Result]]]
"""A finished batch: its pack's bytes and, when time series are kept, its Results."""
Sink = Callable[[Sequence[Task], Done], None]

BACKENDS = ("local", "ray")


def simulate_batch(tasks: Sequence[Task], keep_traces: bool) -> Done:
    """Simulates a batch in one call into the core (on this thread, without the GIL) and makes
    its pack."""
    texts = [to_json(scenario) for _, scenario in tasks]
    runs, error = _core.run_all(texts)
    if error is not None:
        raise ScenarioError(error)
    pack = make_pack([key for key, _ in tasks], texts, [run.summary() for run in runs])
    results = [Result.from_core(run, scenario=s) for run, (_, s) in zip(runs, tasks)] if keep_traces else None
    return pack, results


def run_local(batches: Iterator[List[Task]], sink: Sink, keep_traces: bool, workers: Optional[int] = None) -> None:
    """Simulates on `workers` threads (default: one per usable core).

    The calling thread only waits: a Ctrl-C reaches it there, and the workers then finish and
    store the batch each has in hand before the KeyboardInterrupt goes on.
    """
    lock = threading.Lock()
    stop = threading.Event()
    errors: List[BaseException] = []

    def work() -> None:
        while not stop.is_set():
            try:
                with lock:  # the batches are made lazily by a generator, which one thread may run at a time
                    batch = next(batches, None)
                if batch is None:
                    return
                sink(batch, simulate_batch(batch, keep_traces))
            except BaseException as e:  # an invalid scenario, a full disk: the others stop too
                errors.append(e)
                stop.set()
                return

    n = workers or default_workers()
    pool = _helper_threads(n)
    futures = [pool.submit(work) for _ in range(n)]
    try:
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        stop.set()
        wait(futures)
        raise
    if errors:
        raise errors[0]


def run_ray(batches: Iterator[List[Task]], sink: Sink, keep_traces: bool, address: Optional[str] = None) -> None:
    """Simulates each batch as one Ray task, on the cluster at `address` (default: a local Ray
    instance, started if none runs). tcpstart must be installed wherever the tasks run.

    At most two batches per CPU of the cluster are in flight, so the driver holds little, and
    each finished batch is stored as it arrives.
    """
    try:
        import ray
    except ImportError:
        raise ValueError("backend ray: ray is not installed (pip install 'tcpstart[ray]')") from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="warning")
    simulate = ray.remote(num_cpus=1)(simulate_batch)
    limit = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: Dict[Any, List[Task]] = {}

    def store_finished(count: int, timeout: Optional[float] = None) -> None:
        ready, _ = ray.wait(list(pending), num_returns=count, timeout=timeout)
        for ref in ready:
            sink(pending.pop(ref), ray.get(ref))

    try:
        for batch in batches:
            if len(pending) >= limit:
                store_finished(1)
            pending[simulate.remote(batch, keep_traces)] = batch
        while pending:
            store_finished(1)
    except KeyboardInterrupt:
        # Keep what has finished, drop the rest.
        if pending:
            store_finished(len(pending), timeout=0)
        for ref in pending:
            ray.cancel(ref)
        raise
