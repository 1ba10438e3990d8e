"""Figures 2 and 3 of the Modified Swift Start paper (section III): slow start alone, a 10 MB
transfer over a 49.5 Mbps bottleneck at several RTTs, to show the two problems the paper sets out
to solve: "as RTT increases the bandwidth utilization decreases and the connection time increases"
and "as the RTT increases the time to reach the maximum transfer rate increases", the first because
the window cannot pass the 65 535-byte receive window.

The figures are images without numbers and the paper names neither the RTTs nor the TCP settings
of this section; we use the network of its Figure 1 and the TCP of its Table 1, with Table 3's link
delays (see the choices in the report).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import polars as pl

from tcpstart.batch import run_many
from tcpstart.reproduce.report import Direction, Report, Value, direction, judge, save_figure
from tcpstart.results import Result
from tcpstart.scenario import Scenario

RATE = 49.5e6  # bps, "bottleneck bandwidth of 49.5 Mbps"
# The maximum transfer rate is reached when the bytes in flight first come this close to their
# largest value in the transfer (one receive window, or the path's BDP if smaller).
FULL = 0.9
# Curves of Figure 3 (throughput over time) drawn for these link delays, where run.
SHOWN = (0.0001, 0.1, 0.4, 0.8)


@dataclass
class Point:
    link_delay: float  # s
    rtt: float  # s, first data segment to its ACK
    completion: float  # s
    utilization: float  # goodput / bottleneck rate
    full_rate_at: Optional[float]  # s, first time FULL of the largest flight is in flight
    window_per_rtt: float  # bytes: steady sending rate x RTT over the middle half of the transfer
    result: Result


def measure(link_delay: float, result: Result, size: int) -> Point:
    f = result.flows
    completion = float(result.raw_summary["flows"][0]["completion_time"])
    top = int(f["inflight"].max())  # type: ignore[arg-type]
    hit = f.filter(pl.col("inflight") >= FULL * top)
    p = result.packets
    assert p is not None
    sends = p.filter((pl.col("event") == "send") & (pl.col("len") > 0))
    first = float(sends["t"][0])
    rtt = float(p.filter((pl.col("event") == "ack_arrive") & (pl.col("ack") > 0))["t"][0]) - first
    lo, hi = 0.25 * size, 0.75 * size
    t_lo = float(sends.filter(pl.col("seq") >= lo)["t"][0])
    t_hi = float(sends.filter(pl.col("seq") >= hi)["t"][0])
    steady_rtt = float(f.filter((pl.col("t") >= t_lo) & (pl.col("t") <= t_hi))["srtt"].drop_nans().mean())  # type: ignore[arg-type]
    return Point(
        link_delay=link_delay,
        rtt=rtt,
        completion=completion,
        utilization=size * 8 / (completion * RATE),
        full_rate_at=None if hit.is_empty() else float(hit["t"][0]),
        window_per_rtt=(hi - lo) / (t_hi - t_lo) * steady_rtt,
        result=result,
    )


def run(delays: Sequence[float], make: Callable[[float], Scenario], size: int) -> list[Point]:
    results = run_many([make(d) for d in delays], progress="modified-swift-start: Figures 2, 3")
    return [measure(d, r, size) for d, r in zip(delays, results)]


def _steps(xs: list[float], want: Direction, resolution: float) -> int:
    """Steps from one RTT to the next that move `want`-wards by more than the resolution."""
    return sum(direction(b, a, resolution)[0] is want for a, b in zip(xs, xs[1:]))


def claims(report: Report, points: list[Point], rwnd: int, resolution: float) -> None:
    n = len(points) - 1
    up = _steps([p.completion for p in points], Direction.HIGHER, resolution)
    down = _steps([p.utilization for p in points], Direction.LOWER, resolution)
    report.data["figures2_3"] = [
        {k: v for k, v in p.__dict__.items() if k != "result"} for p in points
    ]
    # Utilization is size / (time x rate): one measurement per run, graded once for both figures.
    report.add(
        "Figures 2, 3",
        "slow start, 10 MB at 49.5 Mbps: as RTT increases the connection time increases and the bandwidth "
        "utilization decreases",
        [Value(f"RTT {p.rtt:.4f} s: connection time", None, p.completion, "s") for p in points]
        + [Value(f"RTT {p.rtt:.4f} s: utilization", None, p.utilization) for p in points],
        judge(
            up == n and down == n,
            False,
            f"the connection time rises in {up} of {n} steps of RTT and the utilization (10 MB / time / 49.5 "
            f"Mbps, the same measurement inverted) falls in {down} of {n}; a step counts above {resolution:.0%}. "
            f"From {points[0].completion:.2f} s ({points[0].utilization:.1%}) to {points[-1].completion:.1f} s "
            f"({points[-1].utilization:.2%})",
        ),
    )
    times = [p.full_rate_at if p.full_rate_at is not None else float("inf") for p in points]
    later = _steps(times, Direction.HIGHER, resolution)
    rounds = [t / p.rtt for t, p in zip(times, points)]
    report.add(
        "Figure 3",
        "as the RTT increases the time to reach the maximum transfer rate increases",
        [Value(f"RTT {p.rtt:.4f} s", None, t, "s") for p, t in zip(points, times)],
        judge(
            later == n,
            False,
            f"the bytes in flight first reach {FULL:.0%} of their largest value later in {later} of {n} steps "
            f"(a step counts above {resolution:.0%}); in RTTs it stays between {min(rounds):.1f} and "
            f"{max(rounds):.1f}: slow start needs the same number of rounds, each one RTT long",
        ),
    )
    product = [Value(f"RTT {p.rtt:.4f} s: steady rate x RTT", rwnd, p.window_per_rtt, "B") for p in points]
    worst = max(abs(v.difference or 0) for v in product)
    report.check(
        "Section III",
        "the utilization is limited because each RTT slow start cannot send more than min(CWND, RWND), RWND "
        "being at most 65 535 bytes",
        product,
        worst <= 0.05,
        f"the steady sending rate times the smoothed RTT is one receive window within {worst:.1%} at every RTT "
        "(tolerance 5 %): at 49.5 Mbps even the shortest RTT has a BDP far above 65 535 bytes, so the receive "
        "window of Table 1 decides the rate, whatever slow start does",
    )


def figure(points: list[Point], rwnd: int) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
        rtts = [p.rtt for p in points]
        ax = axes[0]
        ax.plot(rtts, [p.completion for p in points], "o-")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("RTT (s, log)")
        ax.set_ylabel("connection time (s, log)")
        ax.set_title("(a) Figure 2: connection time")
        ax = axes[1]
        ax.plot(rtts, [100 * p.utilization for p in points], "o-", label="ours")
        ax.plot(rtts, [100 * min(1.0, rwnd * 8 / (r * RATE)) for r in rtts], "k--", lw=0.8,
                label="65 535 B per RTT")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("RTT (s, log)")
        ax.set_ylabel("utilization of 49.5 Mbps (%, log)")
        ax.set_title("(b) Figure 3: utilization")
        ax.legend(fontsize=8)
        ax = axes[2]
        for p in points:
            if p.link_delay not in SHOWN:
                continue
            f = p.result.flows
            # Two RTTs per bin: a bin that is not a whole number of rounds aliases with them.
            step = 2 * p.rtt
            binned = (
                f.with_columns((pl.col("t") / step).floor().alias("bin"))
                .group_by("bin")
                .agg(pl.col("delivered").max())
                .sort("bin")
            )
            rate = binned["delivered"].diff().fill_null(binned["delivered"][0]) * 8 / step / 1e6
            ax.step(binned["bin"] * step, rate, where="post", label=f"RTT {p.rtt:.3f} s")
        ax.set_xlim(0, 30)
        ax.set_yscale("log")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("delivered rate, 2-RTT bins (Mbps, log)")
        ax.set_title("(c) Figure 3: transmission rate")
        ax.legend(fontsize=8)
        save_figure(fig, path, "Slow start alone, 10 MB over 49.5 Mbps, Table 1's TCP (65 535-byte window)")

    return draw
