"""One benchmark run with nothing but the core loaded, for `tcpstart bench`'s child processes.

`python -m tcpstart.bench_child SCENARIO_JSON` runs the scenario and prints the run's figures as
JSON, with the process's peak RSS. Importing only the core keeps that figure about the
simulator: not polars, and not even the benchmark files' TOML parser (1.4 MB), since the parent
hands the scenario over as JSON; nor what the installation's `.pth` files import, since the
parent starts this interpreter without its site initialisation (`python -S`).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tcpstart import _core


def measure(scenario_json: str) -> dict[str, Any]:
    """Runs the scenario in this process and returns its figures (without memory)."""
    (out,), _ = _core.run_all([scenario_json])
    s = out.summary()
    bottleneck = next(link for link in s["links"] if link["name"] == "bottleneck")
    wall = out.core_seconds
    return {
        "simulated_s": s["sim"]["end_time"],
        "wall_s": wall,
        "bottleneck_packets": bottleneck["packets_sent"],
        "bottleneck_packets_per_s": bottleneck["packets_sent"] / wall,
        "events_per_s": s["sim"]["events"] / wall,
        "utilization": bottleneck["utilization"],
        "invariants_ok": s["invariants"]["ok"],
    }


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM). Read here rather than from the parent's
    rusage, which Linux carries over from the forked parent's memory across exec."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    figures = measure(sys.argv[1])
    figures["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(figures))
