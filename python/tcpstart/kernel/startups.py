"""tcpstart's start-up algorithms on the kernel (BPF, bpfcc) against the simulator: four
scenarios per algorithm and the figures the papers' claims are about. `tcpstart crosscheck --linux
--startups` runs them and writes the report (tcpstart.crosscheck.startups).

The simulator runs tcpstart's Linux profile (`tcp.profile = "linux"`, docs/linux-profile.md: MSS
1448, minimum RTO 200 ms, Linux's receiver ACKs and window, PRR, RACK-TLP, the first 10 data
segments unpaced, paced bursts of a millisecond); `profile = "rfc"` gives the RFC model with
Linux's knob values (LINUX_KNOBS), the comparison's setting before the profile existed. The
kernel ignores both (model knobs). Jump Start's rwnd-limited cases turn window scaling off: the
kernel's SYN-ACK window is never scaled (at most 65,535 bytes), and without scaling the
simulator's receiver advertises the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean
from typing import Any

# The RFC model given Linux's values where it has a knob for them.
LINUX_KNOBS = {"mss": 1448, "rto_min": "200ms", "delack_timeout": "40ms", "quickack": 16, "recovery": "prr",
               "unpaced_segments": 10}
PROFILES = ("linux", "rfc")


@dataclass(frozen=True)
class Case:
    algorithm: str
    rate: str
    rtt: str
    queue: str
    size: str
    window_scaling: bool = True

    def scenario(self, profile: str = "linux") -> dict[str, Any]:
        tcp = {"profile": "linux"} if profile == "linux" else {"profile": "rfc", **LINUX_KNOBS}
        return {
            "network": {"rate": self.rate, "rtt": self.rtt, "queue": self.queue},
            "tcp": {**tcp, "window_scaling": self.window_scaling},
            "flows": [{"algorithm": self.algorithm, "size": self.size}],
            "trace": {"interval": "1ms"},
        }

    def bdp_segments(self) -> float:
        """The path's bandwidth-delay product in segments of 1448 bytes (the estimate's target)."""
        from tcpstart.scenario import expanded

        net = expanded(self.scenario())["network"]
        return net["rate_bps"] / 8 * 2 * (net["delay"]["secs"] + net["delay"]["nanos"] / 1e9) / 1448

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
    # Losses, so that congestion avoidance runs above Low_Window (38 segments).
    "highspeed": [Case("highspeed", *c) for c in (("50Mbps", "20ms", "1bdp", "4MB"), ("20Mbps", "100ms", "0.5bdp", "4MB"),
                                                  ("100Mbps", "10ms", "2bdp", "8MB"), ("10Mbps", "50ms", "1bdp", "2MB"))],
}


def first_rtt_window(result: Any) -> int:
    """Bytes sent before the first ACK of data arrived: the first round trip's window."""
    import polars as pl

    f = result.flows.filter(pl.col("flow") == 0)
    return int(f.filter(pl.col("delivered") == 0)["inflight"].max())


def _second_rtt(result: Any, column: str) -> int:
    """The largest `column` in the round trip after the first ACK of data (one handshake RTT long)."""
    import polars as pl

    f = result.flows.filter(pl.col("flow") == 0)
    rtt = f.filter(pl.col("srtt").is_not_nan())["srtt"][0]
    start = f.filter(pl.col("delivered") > 0)["t"][0]
    return int(f.filter((pl.col("t") >= start) & (pl.col("t") < start + rtt))[column].max())


def second_rtt_window(result: Any) -> int:
    """The most bytes in flight in the second round trip: where the paced start-ups pace their
    estimate (as far as the receiver's window lets them)."""
    return _second_rtt(result, "inflight")


def second_rtt_cwnd(result: Any) -> int:
    """The largest cwnd in the second round trip: Swift Start's and Modified Swift Start's
    packet-pair estimate, which the receiver's window may keep from being sent."""
    return _second_rtt(result, "cwnd")


def figures(result: Any) -> dict[str, Any]:
    flow = result.raw_summary["flows"][0]
    return {
        "completion": flow["completion_time"],
        "first_rtt_window": first_rtt_window(result),
        "second_rtt_window": second_rtt_window(result),
        "second_rtt_cwnd": second_rtt_cwnd(result),
        "retransmissions": flow["retransmissions"],
        "ss_exit_cwnd": flow["ss_exit_cwnd"],
    }


def kernel_runs(case: Case, runs: int) -> list[dict[str, Any]]:
    """Each kernel run's figures (the testbed ignores the simulator's profile)."""
    import tcpstart as ts

    return [figures(r) for r in ts.testbed(case.scenario(), runs=runs)]


def simulate(case: Case, profile: str = "linux") -> dict[str, Any]:
    import tcpstart as ts

    return figures(ts.run(case.scenario(profile)))


def compare_runs(kernel: list[dict[str, Any]], sim: dict[str, Any]) -> dict[str, Any]:
    """The simulator's differences from the kernel runs' mean (the issue's targets) and from the
    fastest run (the least disturbed by a loaded machine: tests/kernel_spread.py)."""
    k_completion = mean(k["completion"] for k in kernel)
    return {
        "completion_diff": sim["completion"] / k_completion - 1,
        "fastest_diff": sim["completion"] / min(k["completion"] for k in kernel) - 1,
        "window_diff": sim["first_rtt_window"] / mean(k["first_rtt_window"] for k in kernel) - 1,
        "second_diff": sim["second_rtt_window"] / mean(k["second_rtt_window"] for k in kernel) - 1,
    }


def compare(case: Case, runs: int, profile: str = "linux") -> dict[str, Any]:
    """The simulator's figures next to each kernel run's."""
    kernel = kernel_runs(case, runs)
    sim = simulate(case, profile)
    return {"case": case, "kernel": kernel, "sim": sim, **compare_runs(kernel, sim)}
