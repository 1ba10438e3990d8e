"""Where B5's Python overhead goes: B5's runs on this thread, in batches, each step timed.

    python -m tcpstart.bench_overhead [RUNS]

Prints, per run, the median and mean microseconds of: turning the scenario into the core's
input, the core call around the simulation (reading and checking the scenario, releasing and taking
back the GIL, handing the result over), the simulation itself (`core_seconds`), wrapping the
result in a `Result`, freeing it (steps taken per batch are shown as the batch's time / its
runs), and `run_many`'s own cost per run (its chunks; with one worker it starts no thread),
estimated from a separate pass, then the overhead as B5 counts it: (wall - simulation) / wall.
Optional steps a user may take afterwards (building the summary dict, the flow table) are timed
too but are not part of B5.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable

from tcpstart import _core
from tcpstart.batch import run_many
from tcpstart.bench import small_runs
from tcpstart.results import Result
from tcpstart.scenario import scenario_dict, to_json
from tcpstart.simulate import run_in_turn


def _us(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1e6:7.1f} {statistics.fmean(samples) * 1e6:7.1f}"


def measure(count: int = 1000, chunk: int = 64) -> dict[str, list[float]]:
    """Seconds per run and step, in batches of `chunk` runs as `run_many` hands them out, each
    step taken the way `tcpstart.simulate.run_in_turn` takes it."""
    steps: dict[str, list[float]] = {
        k: []
        for k in ("scenario -> core input", "core call minus simulation", "simulation", "Result", "freeing the Result")
    }
    extra: dict[str, list[float]] = {"summary (on use)": [], "flow table (on use)": []}
    clock: Callable[[], float] = time.perf_counter
    scenarios = small_runs(count)
    for i in range(0, count, chunk):
        batch = scenarios[i : i + chunk]
        t0 = clock()
        given = [scenario_dict(s) for s in batch]
        texts = [to_json(d) for d, _ in given]
        t1 = clock()
        runs, _ = _core.run_all(texts)
        t2 = clock()
        results = [Result.from_core(out, scenario=d) for out, (d, _) in zip(runs, given)]
        t3 = clock()
        core = sum(r.core_seconds or 0.0 for r in results)
        n = len(batch)
        steps["scenario -> core input"] += [(t1 - t0) / n] * n
        steps["core call minus simulation"] += [(t2 - t1 - core) / n] * n
        steps["simulation"] += [r.core_seconds or 0.0 for r in results]
        steps["Result"] += [(t3 - t2) / n] * n
        t4 = clock()
        del results, runs
        steps["freeing the Result"] += [(clock() - t4) / n] * n
    # In a pass of their own: the objects they make would set off Python's garbage collector
    # during the steps above.
    for res in run_in_turn(scenarios):
        t4 = clock()
        res.raw_summary
        t5 = clock()
        res.flows
        t6 = clock()
        extra["summary (on use)"].append(t5 - t4)
        extra["flow table (on use)"].append(t6 - t5)
    return {**steps, **extra}


def main(count: int) -> None:
    steps = measure(count)
    print(f"{count} runs of B5's scenarios on this thread, in batches of 64; microseconds per run")
    print(f"{'step':30} {'median':>7} {'mean':>7}")
    for name, samples in steps.items():
        print(f"{name:30} {_us(samples)}")
    scenarios = small_runs(count)
    t = time.perf_counter()
    results = run_many(scenarios, workers=1)
    core = sum(r.core_seconds or 0.0 for r in results)
    # B5 releases its results inside its timed region, so freeing them is part of its figure.
    del results
    wall = time.perf_counter() - t
    inline = sum(
        sum(steps[k])
        for k in ("scenario -> core input", "core call minus simulation", "Result", "freeing the Result")
    )
    print(f"{'run_many(workers=1), per run':30} {wall / count * 1e6:7.1f} (simulation {core / count * 1e6:.1f})")
    print(f"{'  of it run_many itself':30} {(wall - core - inline) / count * 1e6:7.1f}")
    print(f"B5's overhead, (wall - simulation) / wall: {(wall - core) / wall:.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
