"""tcpstart's start-up algorithms on the kernel (BPF, bpfcc) against the simulator: four
scenarios per algorithm, the figures the papers' claims are about, and the table
docs/testbed.md shows.

    sudo python -m tcpstart.kernel.startups --runs 3 [ALGORITHM ...]   # prints the markdown table

Each scenario gives the simulator Linux's behaviour where it has a knob for it: MSS 1448,
minimum RTO 200 ms, delayed-ACK timeout 40 ms, 16 quick ACKs, PRR recovery, and the first 10
data segments unpaced (`tcp.unpaced_segments`, as Linux's tcp_update_skb_after_send). Jump Start's
rwnd-limited cases turn window scaling off: the kernel's SYN-ACK window is never scaled (at most
65,535 bytes), and without scaling the simulator's receiver advertises the same.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from statistics import mean
from typing import Any

LINUX_TCP = {"mss": 1448, "rto_min": "200ms", "delack_timeout": "40ms", "quickack": 16, "recovery": "prr",
             "unpaced_segments": 10}


@dataclass(frozen=True)
class Case:
    algorithm: str
    rate: str
    rtt: str
    queue: str
    size: str
    window_scaling: bool = True

    def scenario(self) -> dict[str, Any]:
        return {
            "network": {"rate": self.rate, "rtt": self.rtt, "queue": self.queue},
            "tcp": {**LINUX_TCP, "window_scaling": self.window_scaling},
            "flows": [{"algorithm": self.algorithm, "size": self.size}],
            "trace": {"interval": "1ms"},
        }

    def describe(self) -> str:
        scaling = "" if self.window_scaling else ", no window scaling"
        return f"{self.rate}, {self.rtt}, {self.queue} queue, {self.size}{scaling}"


_PACED = [("10Mbps", "40ms", "1bdp", "500KB"), ("20Mbps", "100ms", "1bdp", "1MB"),
          ("5Mbps", "64ms", "60pkt", "300KB"), ("50Mbps", "20ms", "2bdp", "2MB")]
CASES: dict[str, list[Case]] = {
    "jump-start": [
        Case("jump-start", "10Mbps", "100ms", "1bdp", "60KB"),  # D = the whole transfer
        Case("jump-start", "10Mbps", "40ms", "1bdp", "300KB", window_scaling=False),
        Case("jump-start", "20Mbps", "20ms", "1bdp", "1MB", window_scaling=False),
        Case("jump-start", "5Mbps", "64ms", "60pkt", "43440B"),  # the paper's path, 30 segments
    ],
    **{a: [Case(a, *c) for c in _PACED] for a in ("pacing-only", "swift-start", "modified-swift-start", "ess")},
}


def first_rtt_window(result: Any) -> int:
    """Bytes sent before the first ACK of data arrived: the first round trip's window."""
    import polars as pl

    f = result.flows.filter(pl.col("flow") == 0)
    return int(f.filter(pl.col("delivered") == 0)["inflight"].max())


def second_rtt_window(result: Any) -> int:
    """The most bytes in flight in the round trip after the first ACK of data (one handshake RTT
    long): where the paced start-ups pace their estimate."""
    import polars as pl

    f = result.flows.filter(pl.col("flow") == 0)
    rtt = f.filter(pl.col("srtt").is_not_nan())["srtt"][0]
    start = f.filter(pl.col("delivered") > 0)["t"][0]
    return int(f.filter((pl.col("t") >= start) & (pl.col("t") < start + rtt))["inflight"].max())


def figures(result: Any) -> dict[str, Any]:
    flow = result.raw_summary["flows"][0]
    return {
        "completion": flow["completion_time"],
        "first_rtt_window": first_rtt_window(result),
        "second_rtt_window": second_rtt_window(result),
        "retransmissions": flow["retransmissions"],
        "ss_exit_cwnd": flow["ss_exit_cwnd"],
    }


def compare(case: Case, runs: int) -> dict[str, Any]:
    """The simulator's figures next to each kernel run's."""
    import tcpstart as ts

    kernel = [figures(r) for r in ts.testbed(case.scenario(), runs=runs)]
    sim = figures(ts.run(case.scenario()))
    k_completion = mean(k["completion"] for k in kernel)
    k_window = mean(k["first_rtt_window"] for k in kernel)
    return {
        "case": case,
        "kernel": kernel,
        "sim": sim,
        "completion_diff": sim["completion"] / k_completion - 1,
        "window_diff": sim["first_rtt_window"] / k_window - 1,
        "second_diff": sim["second_rtt_window"] / mean(k["second_rtt_window"] for k in kernel) - 1,
    }


def _row(c: dict[str, Any]) -> str:
    k, s = c["kernel"], c["sim"]

    def span(key: str, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
        vs = [x[key] / scale for x in k if x[key] is not None]
        if not vs:
            return "-"
        return fmt.format(min(vs)) if min(vs) == max(vs) else f"{fmt.format(min(vs))}-{fmt.format(max(vs))}"

    return (f"| {c['case'].algorithm} | {c['case'].describe()} | {span('completion')} | {s['completion']:.3f} "
            f"| {c['completion_diff']:+.1%} | {span('first_rtt_window', 1448, '{:.0f}')} "
            f"| {s['first_rtt_window'] / 1448:.0f} | {c['window_diff']:+.1%} "
            f"| {span('second_rtt_window', 1448, '{:.0f}')} | {s['second_rtt_window'] / 1448:.0f} | {c['second_diff']:+.1%} "
            f"| {span('retransmissions', 1, '{:.0f}')} | {s['retransmissions']} |")


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m tcpstart.kernel.startups")
    p.add_argument("algorithms", nargs="*", default=list(CASES), help="default: all")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    print("| algorithm | scenario | kernel completion (s) | simulator | diff | kernel first-RTT window (seg) "
          "| simulator | diff | kernel second-RTT window (seg) | simulator | diff | kernel retx | simulator retx |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for a in args.algorithms:
        for case in CASES[a]:
            print(_row(compare(case, args.runs)), flush=True)


if __name__ == "__main__":
    main()
