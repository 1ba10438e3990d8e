"""The reference benchmarks B1-B4, and running one of them with nothing but the core loaded.

`python -m tcpstart.bench_scenarios B1 [DURATION]` prints the run's figures as JSON, with the
process's peak RSS. Importing only the core keeps that figure about the simulator, not polars.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tcpstart import _core


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    scenario: Callable[[str], dict[str, Any]]
    """The scenario, given the simulated duration."""
    duration: str
    """The issue's simulated duration."""


def _bulk(flows: int, rate: str, delay: str, queue: str) -> Callable[[str], dict[str, Any]]:
    def scenario(duration: str) -> dict[str, Any]:
        return {
            "duration": duration,
            "network": {"rate": rate, "delay": delay, "queue": queue, "access_rate": "10Gbps", "access_delay": "1ms"},
            "tcp": {"sack": True, "delayed_ack": True},
            "flows": [{"algorithm": "newreno", "count": flows}],
        }

    return scenario


BENCHMARKS = {
    b.name: b
    for b in [
        Benchmark("B1", "10 NewReno flows, 1 Gb/s, 20 ms one-way, 1000-packet queue", _bulk(10, "1Gbps", "20ms", "1000pkt"), "30s"),
        Benchmark("B2", "10 NewReno flows, 1 Gb/s, 50 ms one-way, 1 BDP queue", _bulk(10, "1Gbps", "50ms", "1bdp"), "30s"),
        # 50 ms base RTT: 2 x (23 ms + two 1 ms access links).
        Benchmark("B4", "100 NewReno flows, 10 Gb/s, 50 ms RTT, 1 BDP queue", _bulk(100, "10Gbps", "23ms", "1bdp"), "10s"),
    ]
}


def measure_one(name: str, duration: Optional[str] = None) -> dict[str, Any]:
    """Runs one benchmark in this process and returns its figures (without memory)."""
    bench = BENCHMARKS[name]
    out = _core.run(json.dumps(bench.scenario(duration or bench.duration)))
    s = json.loads(out["summary"])
    bottleneck = next(link for link in s["links"] if link["name"] == "bottleneck")
    wall = out["core_seconds"]
    return {
        "benchmark": name,
        "description": bench.description,
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
    figures = measure_one(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    figures["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(figures))
