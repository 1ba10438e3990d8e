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
    scenario: Callable[[Optional[str]], dict[str, Any]]
    """The scenario, given the simulated duration (None: until every flow has finished)."""
    duration: Optional[str]
    """The issue's simulated duration; None for a benchmark of finite transfers."""


def _bulk(flows: int, rate: str, delay: str, queue: str) -> Callable[[Optional[str]], dict[str, Any]]:
    def scenario(duration: Optional[str]) -> dict[str, Any]:
        return {
            "duration": duration,
            "network": {"rate": rate, "delay": delay, "queue": queue, "access_rate": "10Gbps", "access_delay": "1ms"},
            "tcp": {"sack": True, "delayed_ack": True},
            "flows": [{"algorithm": "newreno", "count": flows}],
        }

    return scenario


def contention(
    algorithm: str = "jump-start", pairs: int = 100, **tcp: Any
) -> Callable[[Optional[str]], dict[str, Any]]:
    """scenarios/jump-start-200.toml with a connection start every 50 ms: 2 x `pairs` connections
    of 200 packets from alternating sides of a 5 Mbps, 64 ms RTT bottleneck with a 60-packet
    queue, `pairs` host pairs on 50 Mbps access links (left connection k forward on pair k from
    k x 100 ms, right connection k reverse on pair k from 50 ms + k x 100 ms). `tcp` adds to (or
    replaces) the TCP settings."""

    def scenario(duration: Optional[str]) -> dict[str, Any]:
        side = {"algorithm": algorithm, "size": 200 * 1460, "count": pairs, "interval": "100ms"}
        s: dict[str, Any] = {
            "seed": 1,
            "network": {"rate": "5Mbps", "rtt": "64ms", "queue": "60pkt", "hosts": pairs, "access_rate": "50Mbps"},
            "tcp": {"mss": 1460, "initial_window": 3, "rcv_buf": 14_600_000, "timestamps": False, **tcp},
            "flows": [
                {**side, "class": "left"},
                {**side, "class": "right", "direction": "reverse", "start": "50ms"},
            ],
        }
        if duration is not None:
            s["duration"] = duration
        return s

    return scenario


BENCHMARKS = {
    b.name: b
    for b in [
        Benchmark("B1", "10 NewReno flows, 1 Gb/s, 20 ms one-way, 1000-packet queue", _bulk(10, "1Gbps", "20ms", "1000pkt"), "30s"),
        Benchmark("B2", "10 NewReno flows, 1 Gb/s, 50 ms one-way, 1 BDP queue", _bulk(10, "1Gbps", "50ms", "1bdp"), "30s"),
        Benchmark(
            "B3",
            "Jump Start contention: 200 x 200-packet connections, 100+100 hosts, a start every 50 ms",
            contention(),
            None,
        ),
        # 50 ms base RTT: 2 x (23 ms + two 1 ms access links).
        Benchmark("B4", "100 NewReno flows, 10 Gb/s, 50 ms RTT, 1 BDP queue", _bulk(100, "10Gbps", "23ms", "1bdp"), "10s"),
    ]
}


# B3's ns-3 counterpart replaces Jump Start with an initial window of the whole transfer; the
# same configuration without pacing is one both simulators run as it is (bench_ns3.py).
B3_IW200 = Benchmark(
    "B3-iw200",
    "B3 with NewReno, initial window and ssthresh 200 segments (no Jump Start, no pacing)",
    contention("newreno", initial_window=200, initial_ssthresh=200),
    None,
)
VARIANTS = {B3_IW200.name: B3_IW200}


def measure_one(name: str, duration: Optional[str] = None) -> dict[str, Any]:
    """Runs one benchmark (or variant) in this process and returns its figures (without memory)."""
    bench = BENCHMARKS.get(name) or VARIANTS[name]
    (out,), _ = _core.run_all([json.dumps(bench.scenario(duration or bench.duration))])
    s = out.summary()
    bottleneck = next(link for link in s["links"] if link["name"] == "bottleneck")
    wall = out.core_seconds
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
