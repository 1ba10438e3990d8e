"""Where a campaign's runs are simulated: threads on this machine, or a Ray cluster.

A backend takes batches of tasks, has a work function make each finished batch into the bytes
of its pack (see tcpstart.sweep.cache), and hands them to a sink (which stores them) as soon as
the batch is done, so that nothing waits in memory for the end of the campaign and an interrupt
loses no finished batch. The work per run outside the core (the summary, its JSON text, the
table rows, a reproduction's measurements) is done where the run was simulated: on Ray, by the
workers, in parallel. Both backends run the same core on the same scenarios, so their results
are the same bit for bit.

Algorithms registered from Python (`ts.register`) live in the driver's process; the Ray backend
ships their classes with the work (cloudpickle; by value when they come from a user's own
module, which a worker may not have) and registers them in each worker before its first batch.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import pickle
import sys
import sysconfig
import threading
from concurrent.futures import wait
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar

from tcpstart import _core
from tcpstart.batch import _helper_threads, default_workers
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, to_json
from tcpstart.sweep.cache import make_pack

Task = Tuple[str, Dict[str, Any]]
"""A run to simulate: its store key and its scenario dict."""
Done = Tuple[bytes, Optional[List[Result]]]
"""A finished batch: its pack's bytes and, when time series are kept, its Results."""
T = TypeVar("T")
Work = Callable[[Sequence[T]], Done]
"""What is done with a batch where it runs: simulate it and make its pack."""
Sink = Callable[[Sequence[T], Done], None]

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


# The core's stop flag of the batches under way in a `run_local(..., abandon=True)`, which a
# Ctrl-C sets; None otherwise.
_stop_now: Optional[_core.Stop] = None


def stop_flag() -> Optional[_core.Stop]:
    """The flag a batch's call into the core watches (None outside an abandoning run_local, and
    on Ray workers)."""
    return _stop_now


def run_local(
    batches: Iterator[List[T]], work: Work[T], sink: Sink[T], workers: Optional[int] = None, abandon: bool = False
) -> None:
    """Simulates on `workers` threads (default: one per usable core).

    The calling thread only waits: a Ctrl-C reaches it there, and the workers then finish and
    store the batch each has in hand before the KeyboardInterrupt goes on; with `abandon` (for
    batches that run for minutes, whose work calls the core with `stop_flag()`), the batches in
    hand are stopped instead and not stored.
    """
    global _stop_now
    if abandon:
        _stop_now = _core.Stop()
    try:
        _run_local(batches, work, sink, workers, _stop_now)
    finally:
        _stop_now = None


def _run_local(
    batches: Iterator[List[T]], work: Work[T], sink: Sink[T], workers: Optional[int], abandon: Optional[_core.Stop]
) -> None:
    lock = threading.Lock()
    stop = threading.Event()
    errors: List[BaseException] = []

    def worker() -> None:
        while not stop.is_set():
            try:
                with lock:  # the batches are made lazily by a generator, which one thread may run at a time
                    batch = next(batches, None)
                if batch is None:
                    return
                done = work(batch)
                if abandon is not None and abandon.is_set():
                    return  # abandoned while it ran
                sink(batch, done)
            except BaseException as e:  # an invalid scenario, a full disk: the others stop too
                errors.append(e)
                stop.set()
                return

    n = workers or default_workers()
    pool = _helper_threads(n)
    futures = [pool.submit(worker) for _ in range(n)]
    try:
        # Waits in short slices: the kernel may deliver a Ctrl-C to a worker thread, and Python
        # raises KeyboardInterrupt on this thread only once it wakes.
        while wait(futures, timeout=0.1).not_done:
            pass
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        stop.set()
        if abandon is None:
            wait(futures)
        else:  # abandoned: the workers stop at their next look at the flag and store nothing
            abandon.set()
        raise
    if errors:
        raise errors[0]


def run_ray(batches: Iterator[List[T]], work: Work[T], sink: Sink[T], address: Optional[str] = None) -> None:
    """Runs `work` on each batch as one Ray task, on the cluster at `address` (default: a local
    Ray instance, started if none runs). tcpstart must be installed wherever the tasks run; the
    algorithms registered from Python in this process go with the tasks.

    At most two batches per CPU of the cluster are in flight, so the driver holds little, and
    each finished batch is stored as it arrives.
    """
    try:
        import ray
    except ImportError:
        raise ValueError("backend ray: ray is not installed (pip install 'tcpstart[ray]')") from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="warning")
    remote = ray.remote(num_cpus=1)(_in_worker)
    # The work and the driver's Python algorithms, stored once in the object store and unpacked
    # once per worker process.
    shipped = ray.put(ship(work))
    limit = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: Dict[Any, List[T]] = {}

    def store_finished(count: int, timeout: Optional[float] = None) -> None:
        ready, _ = ray.wait(list(pending), num_returns=count, timeout=timeout)
        for ref in ready:
            sink(pending.pop(ref), ray.get(ref))

    try:
        for batch in batches:
            if len(pending) >= limit:
                store_finished(1)
            pending[remote.remote(shipped, batch)] = batch
        while pending:
            store_finished(1)
    except KeyboardInterrupt:
        # Keep what has finished, drop the rest.
        if pending:
            store_finished(len(pending), timeout=0)
        for ref in pending:
            ray.cancel(ref)
        raise


def _user_modules(obj: Any, seen: Optional[set[int]] = None) -> set[str]:
    """The modules of the functions and classes `obj` is made of (through partials, closures,
    a controller's receiver) that a worker may not be able to import: not tcpstart's, not
    installed (site-packages) and not the standard library. `__main__` is left out, as
    cloudpickle sends what it defines by value anyway."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return set()
    seen.add(id(obj))
    found: set[str] = set()
    if isinstance(obj, functools.partial):
        for part in (obj.func, *obj.args, *obj.keywords.values()):
            found |= _user_modules(part, seen)
    elif isinstance(obj, (list, tuple)):
        for part in obj:
            found |= _user_modules(part, seen)
    elif inspect.isfunction(obj) or inspect.isclass(obj):
        found.add(obj.__module__)
        for cell in getattr(obj, "__closure__", None) or ():
            found |= _user_modules(cell.cell_contents, seen)
        found |= _user_modules(getattr(obj, "receiver", None), seen)
    installed = [Path(p) for p in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), sysconfig.get_path("stdlib")}]

    def local(name: str) -> bool:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if name == "__main__" or name == "tcpstart" or name.startswith("tcpstart.") or file is None:
            return False
        return not any(Path(file).resolve().is_relative_to(p.resolve()) for p in installed)

    return {name for name in found if local(name)}


def ship(work: Work[Any]) -> bytes:
    """`work` and the classes of the algorithms registered from Python in this process, pickled
    with Ray's cloudpickle, the functions and classes of a user's own modules (a script, a test
    file) by value, so that a worker without those modules can rebuild them."""
    from ray import cloudpickle

    from tcpstart.controllers import registered

    classes = list(registered().values())
    modules = [sys.modules[m] for m in _user_modules([work, *classes])]
    for module in modules:
        cloudpickle.register_pickle_by_value(module)
    try:
        return bytes(cloudpickle.dumps((classes, work)))
    finally:
        for module in modules:
            cloudpickle.unregister_pickle_by_value(module)


# What this worker process has unpacked, by digest of the shipped bytes: a campaign's work is
# unpacked, and its algorithms registered (a registration is kept for the life of the process),
# once per process.
_unpacked: Dict[str, Work[Any]] = {}


def unpack(blob: bytes) -> Work[Any]:
    """The work of `ship`'s bytes, with their algorithms registered in this process."""
    digest = hashlib.sha256(blob).hexdigest()
    work = _unpacked.get(digest)
    if work is None:
        from tcpstart.controllers import register

        classes, work = pickle.loads(blob)
        for cls in classes:
            register(cls)
        _unpacked[digest] = work
    return work


def _in_worker(shipped: bytes, batch: Sequence[T]) -> Done:
    """A Ray task: the driver's Python algorithms registered, then the batch's work."""
    return unpack(shipped)(batch)
