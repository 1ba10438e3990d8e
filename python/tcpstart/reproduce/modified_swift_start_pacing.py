"""What pacing the estimated window does at the bottleneck: Figures 6 and 7 of the Modified Swift
Start paper, measured on the runs of its Figures 4 and 5 (T1, link delay 0.0001 s).

Figure 6: "for Modified swift start the sending rate at the first and second RTT from the sender is
equal to the receiving rate at the receiver [...] no buffering in the routers"; "for slow start
there are some idle intervals [...] this time wasting is avoided in modified swift start".
Figure 7: Modified Swift Start's mean RTT rises sooner ("more buffering in the routers").

The paper gives these figures without numbers, so every quantity here is ours, measured from the
packet and cwnd traces, and each claim is graded by a rule stated with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import polars as pl

from tcpstart.reproduce.report import Direction, Report, Value, direction, judge, save_figure
from tcpstart.results import Result

# IP + TCP headers of an unmarked data segment (only the initial window carries the 8-byte mark).
HEADERS = 40


def _first(frame: pl.DataFrame, column: str) -> Optional[float]:
    return None if frame.is_empty() else float(frame[column][0])


def data_sends(result: Result) -> pl.DataFrame:
    """Data segments sent (retransmissions included): time and sequence number."""
    p = result.packets
    assert p is not None
    return p.filter((pl.col("event") == "send") & (pl.col("len") > 0)).select("t", "seq", "len")


def data_arrivals(result: Result) -> pl.DataFrame:
    """Data segments arriving at the receiver, in order of arrival."""
    p = result.packets
    assert p is not None
    return p.filter((pl.col("event") == "arrive") & (pl.col("len") > 0)).select("t", "seq", "len").sort("t")


def second_round(result: Result, mss: int) -> tuple[float, float]:
    """The second RTT: from the first ACK of data until the ACK of the first segment sent after it,
    which "indicates the end of the second RTT" (section 4.1)."""
    p = result.packets
    assert p is not None
    acks = p.filter(pl.col("event") == "ack_arrive")
    start = _first(acks.filter(pl.col("ack") >= mss), "t")
    assert start is not None
    first_seq = int(data_sends(result).filter(pl.col("t") >= start)["seq"][0])
    end = _first(acks.filter(pl.col("ack") > first_seq), "t")
    assert end is not None
    return start, end


@dataclass
class RoundRates:
    """Payload rates of the segments one round sent: at the sender and, for the same segments, at
    the receiver (bytes/s), and the most packets the bottleneck queue held meanwhile."""

    segments: int
    send_rate: float
    receive_rate: float
    peak_queue: int

    @property
    def ratio(self) -> float:
        return self.send_rate / self.receive_rate


def round_rates(result: Result, start: float, end: float) -> RoundRates:
    sent = data_sends(result).filter((pl.col("t") >= start) & (pl.col("t") < end))
    seqs = sent["seq"].unique()
    got = data_arrivals(result).filter(pl.col("seq").is_in(seqs.implode())).unique("seq", keep="first").sort("t")
    n = sent.height
    if n < 2 or got.height != n:
        raise RuntimeError(f"round [{start:.4f}, {end:.4f}) s: {n} segments sent, {got.height} arrived once")
    payload = float(sent["len"][:-1].sum())  # bytes between the first and the last of n segments
    # The round's segments reach the bottleneck within one one-way delay after they leave, so the
    # window of the queue's peak runs to the last one's arrival.
    last = float(got["t"][-1])
    return RoundRates(
        segments=n,
        send_rate=payload / (float(sent["t"][-1]) - float(sent["t"][0])),
        receive_rate=payload / (last - float(got["t"][0])),
        peak_queue=peak_queue(result, start, last),
    )


def peak_queue(result: Result, start: float, end: float) -> int:
    """Most packets the bottleneck queue held in [start, end] (sampled every millisecond)."""
    q = result.queues
    assert q is not None
    held = q.filter((pl.col("link") == "bottleneck") & (pl.col("t") >= start) & (pl.col("t") <= end))["packets"]
    return int(held.max() or 0)  # type: ignore[arg-type]


def idle_time(result: Result, start: float, rate_bps: float) -> float:
    """Seconds the bottleneck sat idle while this one flow had data to send, from the first arrival
    of a segment sent at or after `start` to the last arrival: each arrival gap beyond the arriving
    frame's own transmission time is time the link carried nothing (one flow, no cross traffic)."""
    sent = data_sends(result).filter(pl.col("t") >= start)
    first_seq = int(sent["seq"][0])
    a = data_arrivals(result)
    begin = float(a.filter(pl.col("seq") == first_seq)["t"][0])
    a = a.filter(pl.col("t") >= begin)
    gaps = a["t"].diff().drop_nulls()
    frames = ((a["len"][1:] + HEADERS) * 8 / rate_bps).alias("frame")
    # Frames of 8 more bytes (the marked initial window) are shorter than the gap by 41 ns on T1:
    # below a microsecond is timing noise, not idleness.
    idle = (gaps - frames).clip(lower_bound=0.0)
    return float(idle.filter(idle > 1e-6).sum())


def time_to_steady_rtt(result: Result, fraction: float, steady_from: float) -> Optional[float]:
    """First time the smoothed RTT (the sender's "calculated mean RTT") reaches `fraction` of its
    steady value, the median of the samples from `steady_from` on."""
    f = result.flows.filter(pl.col("srtt").is_not_nan())
    steady = f.filter(pl.col("t") >= steady_from)["srtt"].median()
    if steady is None:
        return None
    return _first(f.filter(pl.col("srtt") >= fraction * float(steady)), "t")  # type: ignore[arg-type]


# Figure 6's "equal" rates: within this fraction (pacing at the measured frame time cannot be
# closer than the echo's whole microseconds, 0.01 % of a T1 frame).
TOL_EQUAL = 0.02
# "Avoided": Modified Swift Start's idle time at most this fraction of slow start's; in trend when
# below half of it.
AVOIDED = 0.10
# Figure 7: the smoothed RTT has "risen" at this fraction of its steady value (median over the
# second half of the transfer).
RISEN = 0.9


def claims(report: Report, ss: Result, mss: Result, rate_bps: float, mss_bytes: int, resolution: float) -> dict:
    """Grades Figures 6 and 7 on one slow-start run and one Modified Swift Start run of the same
    path; returns the numbers (also stored in the report's data)."""
    rounds = {name: second_round(r, mss_bytes) for name, r in (("slow_start", ss), ("mss", mss))}
    rates = {name: round_rates(r, *rounds[name]) for name, r in (("slow_start", ss), ("mss", mss))}
    idle = {name: idle_time(r, rounds[name][0], rate_bps) for name, r in (("slow_start", ss), ("mss", mss))}
    risen = {
        name: time_to_steady_rtt(r, RISEN, float(r.raw_summary["flows"][0]["completion_time"]) / 2)
        for name, r in (("slow_start", ss), ("mss", mss))
    }
    # The first RTT: the initial window's 4 segments, back to back in both algorithms.
    first_peak = peak_queue(mss, 0.0, rounds["mss"][0])
    data = {
        "first_round_peak_queue_packets": first_peak,
        "second_round_s": rounds,
        "send_rate_Bps": {k: v.send_rate for k, v in rates.items()},
        "receive_rate_Bps": {k: v.receive_rate for k, v in rates.items()},
        "second_round_segments": {k: v.segments for k, v in rates.items()},
        "second_round_peak_queue_packets": {k: v.peak_queue for k, v in rates.items()},
        "idle_from_second_round_s": idle,
        "srtt_risen_at_s": risen,
    }
    report.data["figures6_7"] = data

    m, s = rates["mss"], rates["slow_start"]
    report.add(
        "Figure 6",
        "with Modified Swift Start the sending rate in the first and second RTT equals the receiving "
        "rate at the receiver: no buffering in the routers",
        [
            Value("Modified Swift Start, 2nd RTT: sending / receiving rate", 1.0, m.ratio),
            Value("Modified Swift Start, 2nd RTT: peak bottleneck queue", None, m.peak_queue, "packets"),
            Value("1st RTT (initial window, both): peak bottleneck queue", None, first_peak, "packets"),
            Value("slow start, 2nd RTT: sending / receiving rate", None, s.ratio),
            Value("slow start, 2nd RTT: peak bottleneck queue", None, s.peak_queue, "packets"),
        ],
        judge(
            abs(m.ratio - 1) <= TOL_EQUAL,
            False,
            f"the {m.segments} segments Modified Swift Start sends in the second RTT leave at "
            f"{m.send_rate:,.0f} B/s and arrive at {m.receive_rate:,.0f} B/s (ratio {m.ratio:.3f}; equal means "
            f"within {TOL_EQUAL:.0%}); the queue holds at most {m.peak_queue} packets meanwhile, against "
            f"{first_peak} for the initial window's 4 back-to-back segments in the first RTT, which no algorithm "
            f"paces (slow start's {s.segments} segments of the second RTT leave in bursts {s.ratio:.2f}x faster "
            "than they arrive)",
        ),
    )
    i_ss, i_m = idle["slow_start"], idle["mss"]
    frame = (mss_bytes + HEADERS) * 8 / rate_bps
    report.add(
        "Figure 6",
        "slow start leaves the link idle for some intervals; Modified Swift Start avoids this waste",
        [
            Value("slow start: bottleneck idle from the 2nd RTT on", None, i_ss, "s"),
            Value("Modified Swift Start", None, i_m, "s"),
        ],
        judge(
            i_ss > frame and i_m <= AVOIDED * i_ss,
            i_ss > frame and i_m < i_ss / 2,
            f"from the second RTT to the end of the transfer the bottleneck sits idle {i_ss:.3f} s under slow "
            f"start and {i_m:.4f} s under Modified Swift Start ({i_m / i_ss:.1%} of it; avoided means at most "
            f"{AVOIDED:.0%} of slow start's, in trend below half)" if i_ss > 0 else "slow start never idles the link",
        ),
    )
    r_ss, r_m = risen["slow_start"], risen["mss"]
    report.add(
        "Figure 7",
        "Modified Swift Start's calculated mean RTT rises sooner (it sends faster, so the routers buffer more)",
        [
            Value(f"slow start: smoothed RTT at {RISEN:.0%} of its steady value at", None, r_ss, "s"),
            Value("Modified Swift Start", None, r_m, "s"),
        ],
        judge(
            r_ss is not None and r_m is not None and direction(r_m, r_ss, resolution)[0] is Direction.LOWER,
            False,
            f"the smoothed RTT reaches {RISEN:.0%} of its steady value (median over the second half of the "
            f"transfer) at {_secs(r_m)} with Modified Swift Start and {_secs(r_ss)} with slow start (a difference "
            f"counts above {resolution:.0%}; the paper gives no times)",
        ),
    )
    return data


def _secs(x: Optional[float]) -> str:
    return "never" if x is None else f"{x:.3f} s"


def figure6(ss: Result, mss: Result, until: float, title: str) -> Callable[[Path], None]:
    """Sent and received sequence numbers of both (Figure 6), with the bottleneck queue below."""

    def draw(path: Path) -> None:
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True, height_ratios=(3, 1))
        for r, label, color in ((ss, "slow start (newreno)", "tab:blue"), (mss, "Modified Swift Start", "tab:red")):
            s = data_sends(r).filter(pl.col("t") <= until)
            a = data_arrivals(r).filter(pl.col("t") <= until)
            top.plot(s["t"], s["seq"] / 1e3, "o", ms=3, mfc="none", color=color, label=f"{label}: sent")
            top.plot(a["t"], a["seq"] / 1e3, ".", ms=3, color=color, label=f"{label}: received")
            q = r.queues
            assert q is not None
            q = q.filter((pl.col("link") == "bottleneck") & (pl.col("t") <= until))
            bottom.step(q["t"], q["packets"], where="post", color=color, label=label)
        top.set_ylabel("sequence number (kB)")
        top.legend(fontsize=7)
        bottom.set_ylabel("bottleneck queue\n(packets)")
        bottom.set_xlabel("time (s)")
        save_figure(fig, path, title)

    return draw


def figure7(ss: Result, mss: Result, title: str) -> Callable[[Path], None]:
    """The smoothed RTT of both over time (Figure 7)."""

    def draw(path: Path) -> None:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for r, label, color in ((ss, "slow start (newreno)", "tab:blue"), (mss, "Modified Swift Start", "tab:red")):
            f = r.flows.filter(pl.col("srtt").is_not_nan())
            ax.step(f["t"], f["srtt"], where="post", color=color, label=label)
        ax.set_xscale("log")
        ax.set_xlabel("time (s, log)")
        ax.set_ylabel("smoothed RTT (s)")
        ax.legend(fontsize=8)
        save_figure(fig, path, title)

    return draw
