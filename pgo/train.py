"""The training workload of the PGO profile (`make pgo-profile`): what the simulator does most,
run through the installed package as users run it (scenarios
handed to the core as JSON text, as `run_many` does). The benchmarks B1-B4 (shortened), every
scenario file in `scenarios/`, and a start-up comparison of every registered algorithm, so each
controller's code is in the profile too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcpstart import _core
from tcpstart.bench_scenarios import BENCHMARKS
from tcpstart.scenario import read_scenario_file, to_json
from tcpstart.simulate import algorithms

ROOT = Path(__file__).resolve().parent.parent


def workload() -> list[dict[str, Any]]:
    runs = [
        BENCHMARKS["B1"].scenario("5s"),
        BENCHMARKS["B2"].scenario("3s"),
        BENCHMARKS["B3"].scenario(None),
        BENCHMARKS["B4"].scenario("1s"),
    ]
    runs += [read_scenario_file(f) for f in sorted((ROOT / "scenarios").glob("*.toml"))]
    runs += [
        {
            "duration": "5s",
            "network": {"rate": "100Mbps", "rtt": "100ms", "queue": "1bdp"},
            "flows": [{"algorithm": a["name"], "size": "5MB"}],
        }
        for a in algorithms()
    ]
    return runs


def main() -> None:
    runs, error = _core.run_all([to_json(s) for s in workload()])
    if error:
        raise SystemExit(f"pgo training: a scenario is not valid: {error}")
    for r in runs:
        r.summary()
    print(f"pgo training: {len(runs)} runs")


if __name__ == "__main__":
    main()
