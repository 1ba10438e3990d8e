"""`ts.Sweep`: a campaign of runs over axes of a base scenario, cached, resumable, tabulated.

    sweep = ts.Sweep(base, axes={"network.rtt": ts.Range("20ms", "600ms", 9, scale="log"),
                                 "flows[0].algorithm": ["jump-start", "cubic", "newreno"]},
                     replications=3, start_jitter="10ms", out="tcpstart-out/rtt")
    sweep.run()                       # simulates only the runs the store lacks
    sweep.results()                   # polars: a row per run and flow
    sweep.summary("completion_time")  # mean, std, 95 % CI per cell
    sweep.plot("completion_time", x="network.rtt").savefig("rtt.png")

The campaign folder `out` holds sweep.json (what was asked), design.parquet (every run: key,
cell, replication, seed, axis values), measurements.parquet (each run's flow rows, by key),
results.parquet (the tidy table: the two joined, with provenance) and, unless `store` names
another folder, runs/ (the store of finished runs, see tcpstart.sweep.cache).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

import polars as pl

from tcpstart import _core
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, ScenarioLike, read_toml, scenario_dict
from tcpstart.sweep import backends
from tcpstart.sweep.cache import Store, canonical, resolve, run_key
from tcpstart.sweep.results import Measurements, aggregate, cell_columns, identical_cells, tidy
from tcpstart.sweep.spec import Plan, Value, parse_axes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Runs per batch handed to a worker thread or a Ray task: large enough that the hand-over costs
# little next to the simulations, small enough that an interrupt waits for little.
BATCH = 32

# The keys a sweep file may have besides `base` and `axes`.
SPEC_KEYS = ("replications", "design", "samples", "seed", "paired", "start_jitter", "keep_traces", "metrics")


class ReplicationWarning(UserWarning):
    """Replications of a cell that repeated each other exactly: their interval says nothing."""


@dataclass
class RunStats:
    """What a call of Sweep.run did."""

    runs: int
    simulated: int
    cached: int
    seconds: float
    identical_cells: int
    replicated_cells: int


def _git_commit() -> Optional[str]:
    """The commit of the tcpstart source in use, when it is a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _scalar(value: Value) -> Value:
    """An axis value as a table cell: lists and tables become their JSON text."""
    return canonical(value) if isinstance(value, (list, dict, tuple)) else value


def _write_parquet(table: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    table.write_parquet(tmp)
    os.replace(tmp, path)


def replication_message(identical: int, replicated: int) -> str:
    return (
        f"the replications of {identical} of {replicated} cells are identical, so their intervals are zero wide: "
        "nothing random reached those runs' flows (seeds drive random loss, BER, Poisson arrivals, web sessions "
        "and on/off UDP; start_jitter changes what flows do only when several share the path)"
    )


class Sweep:
    """A campaign: every cell of a design over `axes` of the `base` scenario, each run
    `replications` times with its own seed (paired across the `paired` axes, by default the
    algorithm and its parameters: common random numbers)."""

    def __init__(
        self,
        base: ScenarioLike,
        axes: Mapping[Any, Any],
        *,
        replications: int = 1,
        design: str = "grid",
        samples: Optional[int] = None,
        seed: Optional[int] = None,
        paired: Optional[Sequence[str]] = None,
        start_jitter: Optional[Value] = None,
        out: str | os.PathLike[str] = "tcpstart-out/sweep",
        store: Optional[str | os.PathLike[str]] = None,
        keep_traces: bool = False,
    ) -> None:
        """`base` is a Scenario, a scenario dict or a TOML path; `seed` (default: the base's)
        seeds the design and every replication's seed; `start_jitter` delays each flow's start
        by a uniform draw in [0, start_jitter) from the replication's seed; `store` is the folder
        of finished runs (default `out`/runs; campaigns may share one); `keep_traces` also
        stores each run's time series."""
        given, path = scenario_dict(base)
        if path:
            given = json.loads(json.dumps(given, default=str))  # TOML dates are strings to the core
        base_seed = given.get("seed", 1)
        self.plan = Plan(
            base={k: v for k, v in given.items() if k != "seed"},
            axes=parse_axes(axes),
            replications=replications,
            design=design,
            samples=samples,
            seed=base_seed if seed is None else seed,
            paired=list(paired) if paired is not None else None,
            start_jitter=start_jitter,
        )
        self.out = Path(out)
        self.store = Store(store if store is not None else self.out / "runs")
        self.keep_traces = keep_traces
        self.metrics: List[str] = ["completion_time"]
        """What `tcpstart sweep` prints (a sweep file's `metrics`)."""

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], **overrides: Any) -> Sweep:
        """A sweep file: the keys of Sweep's arguments, `base` (a scenario table or the path of a
        scenario file, relative to the sweep file) and `[axes]`."""
        spec = read_toml(path)
        try:
            unknown = next((k for k in spec if k not in ("base", "axes", *SPEC_KEYS)), None)
            if unknown:
                raise ScenarioError(f"{unknown}: not a sweep setting; use base, axes, {', '.join(SPEC_KEYS)}")
            if "base" not in spec or "axes" not in spec:
                raise ScenarioError(f"{'base' if 'base' not in spec else 'axes'}: required")
            base = spec.pop("base")
            if isinstance(base, str):
                base = read_toml(Path(path).parent / base)
            metrics = spec.pop("metrics", None)
            sweep = cls(base, spec.pop("axes"), **{**spec, **overrides})
        except (ScenarioError, TypeError, ValueError) as e:
            raise ScenarioError(f"{path}: {e}") from None
        if metrics:
            sweep.metrics = list(metrics)
        return sweep

    def axes(self) -> List[str]:
        """The axis paths, which are also the axis columns of the tables."""
        return self.plan.axis_paths()

    def run(
        self,
        backend: str = "local",
        workers: Optional[int] = None,
        address: Optional[str] = None,
        rerun: bool = False,
        progress: Optional[Callable[[int], None]] = None,
    ) -> RunStats:
        """Simulates every run the store lacks (all of them with `rerun`), storing each as it
        finishes, then writes design.parquet and results.parquet.

        `backend` is "local" (`workers` threads, default one per core) or "ray" (the cluster at
        `address`, default a local instance). `progress` is called with the number of runs
        done, cached ones included, as they are. Warns (ReplicationWarning) when replications
        repeated each other exactly.
        """
        if backend not in backends.BACKENDS:
            raise ValueError(f"backend: must be one of {', '.join(backends.BACKENDS)}, got {backend!r}")
        started = time.perf_counter()
        advance = progress or (lambda n: None)
        self.out.mkdir(parents=True, exist_ok=True)
        description = self.describe()
        memo, last_measured = self._last_run(description)
        (self.out / "sweep.json").write_text(json.dumps(description, indent=2, default=str) + "\n")
        jitter = self.plan.jitter_ns()
        design: List[tuple] = []
        counts = {"simulated": 0, "cached": 0}
        counting = threading.Lock()
        queued: set[str] = set()
        reused: set[str] = set()
        measured = Measurements()

        def tasks() -> Iterator[backends.Task]:
            for cell_index, replication, seed, cell in self.plan.runs():
                values = tuple(_scalar(v) for v in cell.values())
                key = memo.get((seed, *values))
                scenario = None
                if key is None:
                    scenario, key = self._resolve(cell_index, cell, seed, jitter)
                design.append((key, cell_index, replication, seed, *values))
                if key in queued or (not rerun and self.store.has(key, traces=self.keep_traces)):
                    if key not in queued:
                        reused.add(key)
                    counts["cached"] += 1
                    advance(1)
                    continue
                queued.add(key)
                yield key, scenario or self._resolve(cell_index, cell, seed, jitter)[0]

        def batches() -> Iterator[List[backends.Task]]:
            batch: List[backends.Task] = []
            for task in tasks():
                batch.append(task)
                if len(batch) == BATCH:
                    yield batch
                    batch = []
            if batch:
                yield batch

        def sink(task: backends.Task, done: backends.Done) -> None:
            key, summary, result = done
            self.store.put(key, task[1], summary, result)
            measured.add(key, summary)
            with counting:  # sinks run on several threads; += is not atomic
                counts["simulated"] += 1
            advance(1)

        if backend == "ray":
            backends.run_ray(batches(), sink, self.keep_traces, address)
        else:
            backends.run_local(batches(), sink, self.keep_traces, workers)

        # The reused runs' rows: from the last run's measurements where they are, else from the store.
        if last_measured is not None and reused:
            known = last_measured.filter(pl.col("run").is_in(list(reused)))
            measured.add_frame(known)
            reused -= set(known["run"].to_list())
        for key in reused:
            measured.add(key, self.store.summary(key))
        columns = ["run", "cell", "replication", "seed", *self.axes()]
        design_table = pl.DataFrame(design, schema=columns, orient="row", infer_schema_length=None, strict=False)
        measurements = measured.frame()
        table = tidy(design_table, measurements, self.provenance())
        _write_parquet(design_table, self.out / "design.parquet")
        _write_parquet(measurements, self.out / "measurements.parquet")
        _write_parquet(table, self.out / "results.parquet")
        identical, replicated = identical_cells(table)
        if identical:
            warnings.warn(replication_message(identical, replicated), ReplicationWarning, stacklevel=2)
        return RunStats(
            runs=len(design),
            simulated=counts["simulated"],
            cached=counts["cached"],
            seconds=time.perf_counter() - started,
            identical_cells=identical,
            replicated_cells=replicated,
        )

    def _resolve(self, cell_index: int, cell: Mapping[str, Value], seed: int, jitter: int) -> tuple[Dict[str, Any], str]:
        """A run's scenario dict and store key; an invalid one names its cell."""
        try:
            scenario = self.plan.scenario(cell, seed, jitter)
            return scenario, run_key(resolve(scenario))
        except ScenarioError as e:
            where = ", ".join(f"{p}={v}" for p, v in cell.items())
            raise ScenarioError(f"cell {cell_index} ({where}): {e}") from None

    def _last_run(self, description: Dict[str, Any]) -> tuple[Dict[tuple, str], Optional[pl.DataFrame]]:
        """What the last run in this folder left that still holds: the keys of its runs by (seed,
        axis values) when the base scenario, jitter, axes and version are the same (so that a
        rerun need not rebuild and resolve every scenario), and its measurements when the
        version is the same."""
        try:
            last = json.loads((self.out / "sweep.json").read_text())
            design = pl.read_parquet(self.out / "design.parquet")
            measured: Optional[pl.DataFrame] = pl.read_parquet(self.out / "measurements.parquet")
        except (OSError, ValueError, pl.exceptions.PolarsError):
            return {}, None
        if last.get("tcpstart") != _core.__version__:
            return {}, None
        same = all(last.get(k) == description[k] for k in ("base", "start_jitter")) and design.columns == [
            "run", "cell", "replication", "seed", *self.axes()
        ]
        if not same:
            return {}, measured
        identity = zip(*(design[c].to_list() for c in ["seed", *self.axes()]))
        return dict(zip(identity, design["run"].to_list())), measured

    def describe(self) -> Dict[str, Any]:
        """What the campaign was asked to do (sweep.json)."""
        p = self.plan
        return {
            "tcpstart": _core.__version__,
            "base": p.base,
            "axes": {",".join(a.paths): (a.points if isinstance(a.points, list) else vars(a.points)) for a in p.axes},
            "replications": p.replications,
            "design": p.design,
            "samples": p.samples,
            "seed": p.seed,
            "paired": p.paired_paths(),
            "start_jitter": p.start_jitter,
            "keep_traces": self.keep_traces,
            "store": str(self.store.root),
        }

    @staticmethod
    def provenance() -> Dict[str, Any]:
        """The columns that say where and with what a table was made."""
        return {
            "tcpstart_version": _core.__version__,
            "git_commit": _git_commit(),
            "host": socket.gethostname(),
            "python": sys.version.split()[0],
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }

    def results(self) -> pl.DataFrame:
        """The tidy table of the last run(): a row per run and flow, with the axis values
        (columns named by path), every summary metric (bottleneck_* for the bottleneck link),
        the seed, the run's key (`run`, the hash of its resolved scenario) and provenance."""
        path = self.out / "results.parquet"
        if not path.is_file():
            raise ValueError(f"{path}: no results yet; run the campaign first")
        return pl.read_parquet(path)

    def summary(self, metrics: Optional[Sequence[str] | str] = None, level: float = 0.95) -> pl.DataFrame:
        """Mean, standard deviation and `level` confidence interval (Student's t) of each metric
        (default: every numeric one) per cell and flow; see tcpstart.sweep.results.aggregate."""
        chosen = [metrics] if isinstance(metrics, str) else metrics
        return aggregate(self.results(), cell_columns(self.axes()), chosen, level)

    def plot(self, metric: str, x: str, by: str = "algorithm", level: float = 0.95) -> Figure:
        """`metric` against the axis `x`, one line per value of `by` with its confidence band."""
        from tcpstart.sweep.plot import metric_against

        return metric_against(self.summary(metric, level), metric, x, by)

    def result(self, key: str) -> Result:
        """The full Result of a stored run (its key is the table's `run` column); needs keep_traces."""
        return self.store.result(key)
