"""Whole-run time of the Python NewReno port against the Rust module (docs/performance.md,
"Python controllers"): `PYTHONPATH=python python3 examples/controllers/bench.py`."""

from __future__ import annotations

import runpy
import statistics
import time
from pathlib import Path
from typing import Any

import tcpstart as ts

PORTS = runpy.run_path(str(Path(__file__).with_name("ports.py")))
ts.register(PORTS["NewReno"])


class Counted(PORTS["NewReno"]):  # type: ignore[misc, valid-type]
    """The port, counting its ACK callbacks (a separate run: counting costs time)."""

    name = "py-newreno-counted"
    acks = 0

    def on_ack(self, ev: Any) -> None:
        Counted.acks += 1
        super().on_ack(ev)


ts.register(Counted)

CASES = {
    "1 flow, 100 Mbps, 20 ms, 20 MB": ({"rate": "100Mbps", "rtt": "20ms", "queue": "1bdp"}, 1, {"size": "20MB"}, None),
    "10 flows, 1 Gb/s, 20 ms, 5 s": ({"rate": "1Gbps", "rtt": "20ms", "queue": "1bdp"}, 10, {}, "5s"),
}


def scenario(algorithm: str, network: dict[str, Any], n: int, flow: dict[str, Any], duration: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"seed": 1, "network": network, "flows": [{"algorithm": algorithm, **flow} for _ in range(n)]}
    if duration:
        d["duration"] = duration
    return d


def seconds(d: dict[str, Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        ts.run(d)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print("| scenario | ACKs | Rust newreno | Python py-newreno | ratio | Python cost per ACK |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, (network, n, flow, duration) in CASES.items():
        Counted.acks = 0
        ts.run(scenario("py-newreno-counted", network, n, flow, duration))
        rust = seconds(scenario("newreno", network, n, flow, duration))
        python = seconds(scenario("py-newreno", network, n, flow, duration))
        per_ack = (python - rust) / Counted.acks * 1e6
        print(f"| {label} | {Counted.acks:,} | {rust:.3f} s | {python:.3f} s | {python / rust:.1f}x | {per_ack:.2f} us |")


if __name__ == "__main__":
    main()
