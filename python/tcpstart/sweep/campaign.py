"""`ts.Sweep`: a campaign of runs over axes of a base scenario, cached, resumable, tabulated.

    sweep = ts.Sweep(base, axes={"network.rtt": ts.Range("20ms", "600ms", 9, scale="log"),
                                 "flows[0].algorithm": ["jump-start", "cubic", "newreno"]},
                     replications=3, start_jitter="10ms", out="tcpstart-out/rtt")
    sweep.run()                       # simulates only the runs the store lacks
    sweep.results()                   # polars: a row per run and flow
    sweep.summary("completion_time")  # mean, std, 95 % CI per cell
    sweep.plot("completion_time", x="network.rtt").savefig("rtt.png")

The campaign folder `out` holds sweep.json (what was asked), results/ (the tidy table in part
files: a row per run and flow with the axis values, the metrics and provenance) and, unless `store` names
another folder, runs/ (the store of finished runs, see tcpstart.sweep.cache).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

import polars as pl

from tcpstart import _core
from tcpstart._files import replace_folder
from tcpstart._memory import give_back
from tcpstart.results import Result
from tcpstart.scenario import ScenarioError, ScenarioLike, read_scenario_file, scenario_dict, to_json
from tcpstart.sweep import backends
from tcpstart.sweep.cache import Index, Store, resolve, run_key, seeded_keys
from tcpstart.sweep.results import TABLE, aggregate, cell_columns, identical_cells, scan_table, table_parts, tidy
from tcpstart.sweep.spec import Plan, Value, parse_axes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Runs per batch handed to a worker thread or a Ray task, and stored as one pack: large enough
# that the hand-over and the pack's file cost little next to the simulations, small enough that
# an interrupt waits for little.
BATCH = 64

# Runs of the design per part of the campaign's table (whole cells; more only when one cell has
# more): what a campaign holds in memory, besides 12 bytes a run for the keys of its store
# (cache.Index).
CHUNK = 1024

# Beside the table's parts: the digest of the design it was made of (its rows, columns and
# provenance but the date) and its replication check, so that a rerun which simulates nothing
# keeps a table that is already what it would build.
MADE_OF = "made-of.json"

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
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str) if isinstance(value, (list, dict, tuple)) else value


def _conform(parts: Mapping[tuple, Sequence[Path]]) -> None:
    """Rewrites the parts of a table whose columns differ from the union of all parts' columns
    (a column missing, or null where another part has numbers), one part at a time, so that all
    have that one schema, with each column's type the common supertype, in first-seen order.
    `parts` are the part files by their schema (its items), as they were written: a table of
    many parts has one or two schemas, which are all that is held."""
    if len(parts) < 2:
        return
    unified = pl.concat([pl.DataFrame(schema=dict(s)) for s in parts], how="diagonal_relaxed").schema
    for schema, paths in parts.items():
        if list(schema) != list(unified.items()):
            for path in paths:
                pl.concat([pl.DataFrame(schema=unified), pl.read_parquet(path)], how="diagonal_relaxed").write_parquet(path)


def replication_message(identical: int, replicated: int) -> str:
    return (
        f"the replications of {identical} of {replicated} cells are identical, so their intervals are zero wide: "
        "nothing random reached those runs' flows (seeds drive random loss, BER, Poisson arrivals, web sessions, "
        "on/off UDP and network.ack_jitter, which varies even a lone flow; start_jitter changes what flows do only "
        "when several share the path)"
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
        spec = read_scenario_file(path)
        try:
            unknown = next((k for k in spec if k not in ("base", "axes", *SPEC_KEYS)), None)
            if unknown:
                raise ScenarioError(f"{unknown}: not a sweep setting; use base, axes, {', '.join(SPEC_KEYS)}")
            if "base" not in spec or "axes" not in spec:
                raise ScenarioError(f"{'base' if 'base' not in spec else 'axes'}: required")
            base = spec.pop("base")
            if isinstance(base, str):
                base = read_scenario_file(Path(path).parent / base)
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
        """Simulates every run the store lacks (all of them with `rerun`), storing each batch as
        it finishes, then writes the table (results/).

        `backend` is "local" (`workers` threads, default one per core) or "ray" (the cluster at
        `address`, default a local instance). `progress` is called with the number of runs
        done, cached ones included, as they are. Warns (ReplicationWarning) when replications
        repeated each other exactly.

        The design is made as the backend asks for runs and written to disk in parts of whole
        cells; the table is then built part by part from the store: what a campaign holds in
        memory does not grow with its number of runs.
        """
        if backend not in backends.BACKENDS:
            raise ValueError(f"backend: must be one of {', '.join(backends.BACKENDS)}, got {backend!r}")
        started = time.perf_counter()
        advance = progress or (lambda n: None)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "sweep.json").write_text(json.dumps(self.describe(), indent=2, default=str) + "\n")
        jitter = self.plan.jitter_ns()
        provenance = self.provenance()
        columns = ["run", "cell", "replication", "seed", *self.axes()]
        counts = {"runs": 0, "simulated": 0, "cached": 0}
        counting = threading.Lock()
        in_flight: set[str] = set()  # handed to the backend, not stored yet
        # Stored by this call: with rerun, the store's older runs do not count (without, the
        # store's index has them, and this one stays empty).
        stored_now = Index()
        self.store.index(reread=True)  # what is stored now, read before the workers start
        parts = Path(tempfile.mkdtemp(prefix=".parts-", dir=self.out))
        written: List[Path] = []
        # What the table is made of: its columns, provenance but the date, and every design row.
        design_digest = hashlib.sha256(json.dumps([columns, {k: v for k, v in provenance.items() if k != "date"}], default=str).encode())

        def write_part(rows: List[tuple]) -> None:
            path = parts / f"design-{len(written):06d}.pickle"
            path.write_bytes(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
            written.append(path)

        def tasks() -> Iterator[backends.Task]:
            for rows, scenarios in self._design(jitter):
                write_part(rows)
                design_digest.update(repr(rows).encode())
                keys = [row[0] for row in rows]
                # Asked before the store: a run in flight now is then stored or still in flight.
                flying = [key in in_flight for key in keys]
                # Stored by an earlier call (unless all are simulated again), or by this one.
                if rerun:
                    with counting:
                        known = stored_now.contains(keys)
                else:
                    known = self.store.contains(keys, traces=self.keep_traces)
                queued: set[str] = set()  # handed over from this part (a design may hold a run twice)
                for key, scenario, seed, fly, stored in zip(keys, scenarios, (row[3] for row in rows), flying, known):
                    if not (stored or fly or key in queued):
                        queued.add(key)
                        in_flight.add(key)
                        yield key, {**scenario, "seed": seed}
                counts["runs"] += len(keys)
                counts["cached"] += len(keys) - len(queued)
                advance(len(keys) - len(queued))

        def batches() -> Iterator[List[backends.Task]]:
            batch: List[backends.Task] = []
            for task in tasks():
                batch.append(task)
                if len(batch) == BATCH:
                    yield batch
                    batch = []
            if batch:
                yield batch

        def sink(batch: Sequence[backends.Task], done: backends.Done) -> None:
            pack, results = done
            keys = [key for key, _ in batch]
            self.store.put(keys, pack, results)
            with counting:  # sinks run on several threads, beside the design's thread
                if rerun:
                    stored_now.add(keys, 0)
                in_flight.difference_update(keys)
                counts["simulated"] += len(keys)
                every = counts["simulated"] // CHUNK != (counts["simulated"] - len(keys)) // CHUNK
            if every:  # once in CHUNK runs: what their bookkeeping freed would grow with the runs
                give_back()
            advance(len(keys))

        try:
            work = functools.partial(backends.simulate_batch, keep_traces=self.keep_traces)
            if backend == "ray":
                backends.run_ray(batches(), work, sink, address)
            else:
                backends.run_local(batches(), work, sink, workers)
            made = self._table_made_of(design_digest.hexdigest()) if counts["simulated"] == 0 else None
            # A rerun that simulated nothing and whose design the table already holds keeps it.
            identical, replicated = made or self._write_results(written, columns, provenance, design_digest.hexdigest())
        finally:
            shutil.rmtree(parts, ignore_errors=True)
            self.store.save_index()  # after a Ctrl-C too: the next run then reads only newer packs
        if identical:
            warnings.warn(replication_message(identical, replicated), ReplicationWarning, stacklevel=2)
        return RunStats(
            runs=counts["runs"],
            simulated=counts["simulated"],
            cached=counts["cached"],
            seconds=time.perf_counter() - started,
            identical_cells=identical,
            replicated_cells=replicated,
        )

    def _design(self, jitter: int) -> Iterator[tuple[List[tuple], List[Dict[str, Any]]]]:
        """The runs of the design in parts of whole cells, no more than CHUNK runs unless one
        cell has more (so that building the table holds little at once, whatever the
        replications): (rows (key, cell, replication, seed, *axis values), the runs' scenarios,
        whose seed is set when a run is handed over)."""
        rows: List[tuple] = []
        scenarios: List[Dict[str, Any]] = []
        for cell_index, cell, seeds in self.plan.replicated_cells():
            if rows and len(rows) + len(seeds) > CHUNK:
                yield rows, scenarios
                rows, scenarios = [], []
            values = tuple(_scalar(v) for v in cell.values())
            if jitter:  # each run's flows start at times of its own: resolved one by one
                for replication, seed in enumerate(seeds):
                    scenario, resolved = self._resolve(cell_index, cell, lambda: self.plan.scenario(cell, seed, jitter))
                    rows.append((run_key(resolved), cell_index, replication, seed, *values))
                    scenarios.append(scenario)
            else:  # the runs of a cell differ in their seed only: the cell is resolved once
                scenario, unseeded = self._resolve(cell_index, cell, lambda: self.plan.scenario(cell, 0, 0))
                key = seeded_keys(unseeded)
                rows.extend((key(seed), cell_index, replication, seed, *values) for replication, seed in enumerate(seeds))
                scenarios.extend([scenario] * len(seeds))
        if rows:
            yield rows, scenarios

    def _table_made_of(self, digest: str) -> Optional[tuple[int, int]]:
        """(identical, replicated cells) of the table, when it was made of the design `digest`."""
        try:
            made = json.loads((self.out / TABLE / MADE_OF).read_text())
            return (made["identical_cells"], made["replicated_cells"]) if made["design"] == digest and table_parts(self.out) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _write_results(self, design_parts: List[Path], columns: List[str], provenance: Dict[str, Any], digest: str) -> tuple[int, int]:
        """The table (results/): each part of the design joined with its runs' rows from the
        store into a part file, written as it is made and never merged, so that memory stays
        flat in the number of runs. The folder is filled beside the old one and then takes its
        place, so a reader sees one whole table. Returns (cells whose replications were
        identical, cells with replications)."""
        identical = replicated = 0
        folder = Path(tempfile.mkdtemp(prefix=f".{TABLE}-", dir=self.out))
        try:
            tables: Dict[tuple, List[Path]] = {}  # by schema
            for count, part in enumerate(design_parts):
                design = pl.DataFrame(pickle.loads(part.read_bytes()), schema=columns, orient="row", infer_schema_length=None, strict=False)
                table = tidy(design, self.store.rows(design["run"].unique(maintain_order=True).to_list()), provenance)
                same, replicated_here = identical_cells(table)
                identical, replicated = identical + same, replicated + replicated_here
                path = folder / f"part-{count:05d}.parquet"
                table.write_parquet(path)
                tables.setdefault(tuple(table.schema.items()), []).append(path)
                del design, table
                give_back()  # each part's frames, freed
            # A multi-file scan wants one schema, so the parts are made to share theirs.
            _conform(tables)
            made = {"design": digest, "identical_cells": identical, "replicated_cells": replicated}
            (folder / MADE_OF).write_text(json.dumps(made) + "\n")
            folder.chmod(0o755)  # mkdtemp makes it private; results are ordinary files
            replace_folder(folder, self.out / TABLE)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        # The single file of earlier versions would be a stale second table.
        (self.out / "results.parquet").unlink(missing_ok=True)
        return identical, replicated

    def _resolve(self, cell_index: int, cell: Mapping[str, Value], make: Callable[[], Dict[str, Any]]) -> tuple[Dict[str, Any], str]:
        """A scenario dict made by `make` and its resolved text; an invalid one names its cell."""
        try:
            scenario = make()
            return scenario, resolve(to_json(scenario))
        except ScenarioError as e:
            where = ", ".join(f"{p}={v}" for p, v in cell.items())
            raise ScenarioError(f"cell {cell_index} ({where}): {e}") from None

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
        return self.scan_results().collect()

    def scan_results(self) -> pl.LazyFrame:
        """The table of results(), read lazily: for a campaign whose table is large."""
        self.results_path()
        return scan_table(self.out)

    def results_path(self) -> Path:
        """The folder of the table's part files (part-00000.parquet on, in the design's order)."""
        path = self.out / TABLE
        if not table_parts(self.out):
            raise ValueError(f"{path}: no results yet; run the campaign first")
        return path

    def summary(self, metrics: Optional[Sequence[str] | str] = None, level: float = 0.95) -> pl.DataFrame:
        """Mean, standard deviation and `level` confidence interval (Student's t) of each metric
        (default: every numeric one) per cell and flow; see tcpstart.sweep.results.aggregate."""
        chosen = [metrics] if isinstance(metrics, str) else metrics
        by = cell_columns(self.axes())
        if chosen is None:
            return aggregate(self.results(), by, None, level)
        table = self.scan_results()
        present = table.collect_schema().names()
        # Only the columns it needs: a campaign's table may be larger than memory.
        return aggregate(table.select(c for c in dict.fromkeys([*by, *chosen]) if c in present).collect(), by, chosen, level)

    def plot(self, metric: str, x: str, by: str = "algorithm", level: float = 0.95) -> Figure:
        """`metric` against the axis `x`, one line per value of `by` with its confidence band."""
        from tcpstart.sweep.plot import metric_against

        return metric_against(self.summary(metric, level), metric, x, by)

    def result(self, key: str) -> Result:
        """The full Result of a stored run (its key is the table's `run` column); needs keep_traces."""
        return self.store.result(key)
