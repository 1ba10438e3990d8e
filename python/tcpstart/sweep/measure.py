"""Measured runs: groups of scenarios reduced to what an analysis needs, cached like a campaign.

A reproduction needs more of a run than its summary (a trace read at some instant, an estimate
found in the flow's time series) but cannot hold hundreds of full traces at once. It hands
`measure_groups` its runs as groups of scenarios, each with a key of its own and a `measure` that
reduces the group's Results to a value (a number, a dict, a dataclass). Each group is simulated
and measured where it runs (a worker thread, or a Ray task) in batches, and the value is stored,
pickled, in the campaign store (tcpstart.sweep.cache): a group whose value is stored is not
simulated again, an interrupted reproduction resumes where it stopped, and a batch runs on Ray as
a campaign's does.

A value is stored under the hash of the tcpstart version, the measure's identity, the group's
key and the resolved text of each of its scenarios. The measure's identity is its module and
qualified name, the SHA-256 of its module's source file and the values it closes over (their
repr; a function it closes over by its own identity): editing the module that defines a
measure, or handing it other values, measures afresh. What the measure calls in other modules is
covered by the tcpstart version only.

Where values are stored and which backend runs the groups is set for a block by `measuring`
(`tcpstart reproduce --store DIR --backend ray`); outside one, groups run on local threads and
their values are kept in a temporary store for the call only.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import io
import pickle
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple, TypeVar

import orjson
import polars as pl

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, ScenarioLike, scenario_dict, to_json
from tcpstart.sweep import backends
from tcpstart.sweep.cache import Store, resolve

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
Measure = Callable[[K, List[Result]], V]

# Runs per batch, by default: each worker holds a batch's full Results until they are measured,
# so a batch is small (the reproductions' runs have traces of several MB).
BATCH = 16

# A group on its way to a worker: its store key, its reproduction key, its scenarios' JSON texts.
Group = Tuple[str, Any, List[str]]


@dataclass
class Setting:
    """Where `measure_groups` stores its values and runs its groups."""

    store: Optional[Path] = None
    backend: str = "local"
    address: Optional[str] = None
    workers: Optional[int] = None
    rerun: bool = False


_setting = Setting()


@contextlib.contextmanager
def measuring(
    store: Optional[str | Path] = None,
    backend: str = "local",
    address: Optional[str] = None,
    workers: Optional[int] = None,
    rerun: bool = False,
) -> Iterator[None]:
    """Within the block, `measure_groups` keeps its values in `store` (None: a temporary store
    per call) and runs its groups on `backend` ("local" threads or "ray" at `address`);
    `rerun` simulates every group again."""
    global _setting
    if backend not in backends.BACKENDS:
        raise ValueError(f"backend: must be one of {', '.join(backends.BACKENDS)}, got {backend!r}")
    before = _setting
    _setting = Setting(Path(store) if store is not None else None, backend, address, workers, rerun)
    try:
        yield
    finally:
        _setting = before


def _source_digest(module: str) -> str:
    try:
        path = inspect.getsourcefile(sys.modules[module])
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except (KeyError, TypeError, OSError):
        return ""


def identity(fn: Callable[..., Any]) -> str:
    """What a measure's values depend on besides its inputs: its name, its module's source and
    the values it closes over (see the module's description)."""
    fn = inspect.unwrap(fn)
    if isinstance(fn, functools.partial):
        return f"partial({identity(fn.func)}, {_describe(fn.args)}, {_describe(fn.keywords)})"
    module = getattr(fn, "__module__", "") or ""
    cells = [_describe(c.cell_contents) for c in getattr(fn, "__closure__", None) or ()]
    defaults = _describe(getattr(fn, "__defaults__", None))
    return f"{module}.{getattr(fn, '__qualname__', repr(fn))}@{_source_digest(module)}({', '.join(cells)}; {defaults})"


def _describe(value: Any) -> str:
    if callable(value) and hasattr(value, "__code__"):
        return identity(value)
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(_describe(v) for v in value)}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items()) + "}"
    return repr(value)


def group_key(measure_id: str, key: Any, resolved: Sequence[str], version: str = _core.__version__) -> str:
    """The store key of a measured group."""
    text = "\n".join([version, "measure", measure_id, repr(key), *resolved])
    return hashlib.sha256(text.encode()).hexdigest()


def measure_batch(groups: Sequence[Group], measure: Measure[Any, Any]) -> backends.Done:
    """Simulates a batch of groups in one call into the core and makes its pack: a row per
    group with its key (`run`), its scenarios (`scenario`, a JSON list) and its pickled value."""
    texts = [t for _, _, scenarios in groups for t in scenarios]
    stop = backends.stop_flag()
    runs, error = _core.run_all(texts, stop)
    if error is not None:
        raise ScenarioError(error)
    results = iter(Result.from_core(run, scenario=orjson.loads(text)) for run, text in zip(runs, texts))
    rows: Dict[str, List[Any]] = {"run": [], "scenario": [], "measured": []}
    for key, reproduction_key, scenarios in groups:
        if stop is not None and stop.is_set():  # measuring a batch's groups takes seconds too
            raise KeyboardInterrupt
        value = measure(reproduction_key, [next(results) for _ in scenarios])
        rows["run"].append(key)
        rows["scenario"].append("[" + ",".join(scenarios) + "]")
        rows["measured"].append(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    buffer = io.BytesIO()
    pl.DataFrame(rows, schema={"run": pl.String, "scenario": pl.String, "measured": pl.Binary}).write_parquet(buffer)
    return buffer.getvalue(), None


def measure_groups(
    groups: Sequence[Tuple[K, Sequence[ScenarioLike]]], measure: Measure[K, V], label: str, batch: int = BATCH
) -> Dict[K, V]:
    """{key: measure(key, the Results of its scenarios)} for each (key, scenarios) of `groups`,
    in their order, from the store where a group was measured before (see `measuring`). A
    worker simulates whole groups of about `batch` runs at a time (at least one group), and
    holds their Results until they are measured."""
    setting = _setting
    with contextlib.ExitStack() as stack:
        root = setting.store or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tcpstart-measure-")))
        store = Store(root)
        measure_id = identity(measure)
        keys: List[str] = []
        todo: List[Group] = []
        store.index(reread=True)
        queued: set[str] = set()
        for key, scenarios in groups:
            texts = [to_json(scenario_dict(s)[0]) for s in scenarios]
            stored = group_key(measure_id, key, [resolve(t) for t in texts])
            keys.append(stored)
            if (setting.rerun or not store.has(stored)) and stored not in queued:
                queued.add(stored)
                todo.append((stored, key, texts))
        try:
            _run(todo, measure, store, setting, label, batch)
        finally:
            store.save_index()  # after a Ctrl-C too: the next run then reads only newer packs
        values = store.measured(keys)
        return {key: pickle.loads(values[k]) for (key, _), k in zip(groups, keys)}


def _batches(todo: List[Group], runs: int) -> Iterator[List[Group]]:
    """Consecutive groups of about `runs` runs each (a group is never split)."""
    batch: List[Group] = []
    size = 0
    for group in todo:
        if batch and size + len(group[2]) > runs:
            yield batch
            batch, size = [], 0
        batch.append(group)
        size += len(group[2])
    if batch:
        yield batch


def _run(todo: List[Group], measure: Measure[Any, Any], store: Store, setting: Setting, label: str, runs: int) -> None:
    if not todo:
        return
    from rich.progress import Progress

    batches = _batches(todo, runs)
    work = functools.partial(measure_batch, measure=measure)
    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=len(todo))

        def sink(batch: Sequence[Group], done: backends.Done) -> None:
            store.put([g[0] for g in batch], done[0])
            bar.advance(task, len(batch))

        if setting.backend == "ray":
            backends.run_ray(batches, work, sink, setting.address)
        else:
            backends.run_local(batches, work, sink, setting.workers, abandon=True)
