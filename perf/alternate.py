"""Compares builds of tcpstart on one benchmark by running them alternately in one session.

    python3 perf/alternate.py B1 30s 41 base=../tree-a main=. [--json FILE]

Each NAME=TREE is a source tree whose `python/tcpstart` holds its built core (`_core.abi3.so`,
for instance unpacked from the wheel `pip wheel --no-deps .` builds there). Each round runs
every build once, in an order that rotates from round to round, each run a fresh
`python -S -m tcpstart.bench_child` of that tree (what `tcpstart bench` runs). It prints, for
each build against the first, the median over rounds of the per-round ratio of the core's wall
time and of the child's CPU time, with the load average seen: a machine's speed drifts within a
session, and a ratio taken within each round cancels most of that drift, where absolute times
do not (docs/performance.md, "Measuring").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path


def scenario_json(tree: Path, bench: str, duration: str) -> str:
    """The benchmark's scenario as that tree defines it, as JSON text."""
    code = (
        "from tcpstart.bench import BENCHMARKS; from tcpstart.scenario import to_json; "
        f"print(to_json(BENCHMARKS[{bench!r}].scenario({duration!r})))"
    )
    env = {**os.environ, "PYTHONPATH": str(tree / "python")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def run_once(tree: Path, scenario: str) -> tuple[float, float]:
    """The core's wall time and the child's CPU time of one run, in seconds."""
    env = {**os.environ, "PYTHONPATH": str(tree / "python")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-S", "-m", "tcpstart.bench_child", scenario], env=env, capture_output=True, text=True, check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(done.stdout)["wall_s"], cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench", help="B1, B2, B3 or B4")
    parser.add_argument("duration", help="simulated time, e.g. 30s")
    parser.add_argument("rounds", type=int)
    parser.add_argument("builds", nargs="+", metavar="NAME=TREE")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args()
    builds = [(name, Path(tree).resolve()) for name, _, tree in (b.partition("=") for b in args.builds)]
    for name, tree in builds:
        if not any((tree / "python" / "tcpstart").glob("_core*.so")):
            sys.exit(f"alternate: {name}: no built core in {tree / 'python' / 'tcpstart'}")
    scenarios = {name: scenario_json(tree, args.bench, args.duration) for name, tree in builds}
    runs: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name, _ in builds}
    loads = []
    for r in range(args.rounds):
        turn = r % len(builds)
        for name, tree in builds[turn:] + builds[:turn]:
            loads.append(os.getloadavg()[0])
            wall, cpu = run_once(tree, scenarios[name])
            runs[name]["wall"].append(wall)
            runs[name]["cpu"].append(cpu)
    ref = builds[0][0]
    print(f"{args.bench} {args.duration}, {args.rounds} rounds, load average {min(loads):.1f}-{max(loads):.1f}")
    print(f"build\tmedian wall s\tmedian cpu s\twall / {ref} (per-round median)\tcpu / {ref}")
    for name, _ in builds:
        ratio = {k: statistics.median(a / b for a, b in zip(runs[name][k], runs[ref][k])) for k in ("wall", "cpu")}
        print(
            f"{name}\t{statistics.median(runs[name]['wall']):.3f}\t{statistics.median(runs[name]['cpu']):.3f}"
            f"\t{ratio['wall']:.3f}\t{ratio['cpu']:.3f}"
        )
    if args.json:
        args.json.write_text(json.dumps(runs))


if __name__ == "__main__":
    main()
