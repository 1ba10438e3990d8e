"""`tcpstart bench`: the simulator's speed and memory on the reference scenarios B1-B5.

Each of B1-B4 runs in a child process of its own (tcpstart.bench_child), so that its peak RSS is
its own: the child reports its high-water mark. B5 measures many small runs through the Python API on
all cores, against the same runs on one core, in the same session.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from tcpstart.batch import default_workers, run_many
from tcpstart.bench_scenarios import BENCHMARKS, VARIANTS
from tcpstart.scenario import ScenarioLike, to_json

__all__ = [
    "BENCHMARKS",
    "NS3_VARIANTS",
    "VARIANTS",
    "many_small_runs",
    "measure_around",
    "measure_in_child",
    "measure_repeated",
    "small_runs",
]

# Run after a benchmark when ns-3 runs beside us: B3's Jump Start has only an approximate ns-3
# counterpart, B3-iw200 is the same configuration in both.
NS3_VARIANTS = {b: [v.name for v in VARIANTS.values() if v.variant_of == b] for b in BENCHMARKS}


def measure_in_child(name: str, duration: Optional[str] = None) -> dict[str, Any]:
    """Runs one benchmark (or variant) in a fresh interpreter, whose peak RSS (about 11 MB of it
    the bare interpreter and the core's library) is part of the figures; `duration` replaces the
    benchmark's own.

    The interpreter starts without its site initialisation (`-S`), with only the directory that
    holds this package on its path: the `.pth` files of an installation import what they please
    (on the reference machine, `certifi` and `importlib.resources`: 3 MB), which is the
    installation's memory, not the simulator's."""
    b = BENCHMARKS.get(name) or VARIANTS[name]
    cmd = [sys.executable, "-S", "-m", "tcpstart.bench_child", to_json(b.scenario(duration or b.duration))]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed with exit status {proc.returncode}")
    return {"benchmark": name, "description": b.description, **json.loads(proc.stdout)}


def measure_repeated(name: str, duration: Optional[str] = None, repeat: int = 3) -> dict[str, Any]:
    """`measure_in_child` `repeat` times: the figures of the run with the median wall time, the
    highest peak RSS of all, and every run's wall time (`wall_s_runs`). A half-second run sees a
    moment of a shared machine (one of B1's runs may take 10 % longer than the next), where
    ns-3's run of a minute or more beside it sees an average; the median of a few runs is the
    moment's typical speed, neither the luckiest nor the unluckiest."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    return _median_run([measure_in_child(name, duration) for _ in range(repeat)])


def measure_around(
    name: str, duration: Optional[str], repeat: int, between: Callable[[], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`repeat` runs of the benchmark before `between()` (ns-3's run of the same scenario) and
    `repeat` after it, summarised as `measure_repeated` does over all of them, and what
    `between()` returned. The speed of this shared machine drifts by 10-30 % over minutes; runs
    on both sides of ns-3's minute-long run see the machine as ns-3 saw it, where runs only
    before it saw a moment that may have passed."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    before = [measure_in_child(name, duration) for _ in range(repeat)]
    other = between()
    after = [measure_in_child(name, duration) for _ in range(repeat)]
    return _median_run(before + after), other


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall time (the slower of the middle two of an even count), with the
    highest peak RSS of all runs and every run's wall time, sorted."""
    runs = sorted(runs, key=lambda r: r["wall_s"])
    median = runs[len(runs) // 2]
    return {
        **median,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "wall_s_runs": [r["wall_s"] for r in runs],
    }


def small_runs(count: int) -> list[ScenarioLike]:
    """B5's scenarios: single-flow 1 MB transfers over 20 Mbps with different seeds and RTTs."""
    return [
        {
            "seed": i + 1,
            "network": {"rate": "20Mbps", "rtt": f"{20 + (i % 50) * 4}ms", "queue": "1bdp"},
            "flows": [{"algorithm": "newreno", "size": "1MB"}],
        }
        for i in range(count)
    ]


def _makespan(scenarios: list[ScenarioLike], workers: int) -> tuple[float, float]:
    """Wall time to run the scenarios and release their results (a sweep's whole cost per run),
    and the simulations' summed time. It starts from a collected heap: a full garbage collection
    owed to an earlier measurement's objects (40 ms in the CLI, which has imported polars and rich)
    would otherwise land in this one."""
    gc.collect()
    t = time.perf_counter()
    results = run_many(scenarios, workers=workers)
    made = time.perf_counter()
    core = sum(r.core_seconds or 0.0 for r in results)
    t_release = time.perf_counter()
    del results
    return made - t + time.perf_counter() - t_release, core


def many_small_runs(count: int = 1000) -> dict[str, Any]:
    """B5: `count` single-flow 1 MB transfers with different seeds and RTTs, on all cores and on one."""
    scenarios = small_runs(count)
    workers = default_workers()
    # A first batch pays for the process's warm-up (page faults as the allocator grows, lazily
    # built tables), which would count against whichever measurement came first; then each
    # setting runs twice, alternating, and the faster of the two counts (the machine is shared).
    _makespan(scenarios[: max(1, count // 10)], workers)
    one_core, core = min(_makespan(scenarios, 1) for _ in range(2))
    all_cores = min(_makespan(scenarios, workers)[0] for _ in range(2))
    return {
        "benchmark": "B5",
        "description": f"{count} single-flow 1 MB transfers, different seeds and RTTs, Python API",
        "runs": count,
        "workers": workers,
        "makespan_one_core_s": one_core,
        "makespan_all_cores_s": all_cores,
        "runs_per_s": count / all_cores,
        "speedup": one_core / all_cores,
        "speedup_over_linear": one_core / all_cores / workers,
        # What a run costs beyond the simulation: scenario conversion and parsing, the summary,
        # the Result and its release (the tables are built only when used, and B5 does not use
        # them), run_many's chunks (with one worker it starts no thread).
        "python_overhead_fraction": (one_core - core) / one_core,
    }
