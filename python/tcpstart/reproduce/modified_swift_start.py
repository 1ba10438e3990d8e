"""Modified Swift Start (the receiver measures the packet pair), section 4 of the paper in
`shared/papers/modified-swift-start.txt` (OPNET, one FTP transfer of 10 MB).

The paper's network (section 4.1, Figure 1): sender and receiver on 100 Mbps Ethernet to two Cisco
3640 routers (5000 packets/s, 265 MB of memory) joined by a point-to-point bottleneck whose rate
(T1 = 1.544 Mbps, OC1 = 51.84 Mbps) and delay ("link delay") are varied. TCP settings: Table 1.
Slow start is `newreno` with the same settings; Modified Swift Start is `modified-swift-start`.

Table 2 (T1) and Table 3 (OC1) give per link delay the first pair's RTT, the first and second
estimated windows and the connection-time difference (slow start minus Modified Swift Start).
Figures 4/5 (RTT 0.11674 s) and 8/9 (0.32836 s) show cwnd and the sent sequence number.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import polars as pl

from tcpstart.batch import run_many
from tcpstart.reproduce import modified_swift_start_cross as cross
from tcpstart.reproduce import modified_swift_start_pacing as pacing
from tcpstart.reproduce import modified_swift_start_rtt as rtt_sweep
from tcpstart.reproduce.report import (
    Choice,
    Direction,
    Figure,
    Report,
    Value,
    Table as ReportTable,
    direction,
    judge,
    judge_values,
    rank_correlation,
    save_figure,
)
from tcpstart.results import Result
from tcpstart.scenario import AckCompression, Dumbbell, Flow, Scenario, Tcp, Trace

MSS = 1460
SIZE = 10_000_000  # "a 10 MB file": OPNET's MB is 10^6 bytes (ours too)
ALGOS = ("newreno", "modified-swift-start")
T1 = 1.544e6
OC1 = 51.84e6  # the paper prints "518400000 bps" but computes D with 51 840 000 (OC-1)
# Window scaling off: the advertised window is the 100 000-byte buffer capped at 65 535 bytes.
MAX_RWND = 65_535

# Table 1, as far as the simulator has the settings. Timestamps are not listed (OPNET's default is
# off) and Karn's algorithm is on, which is what `timestamps=False` gives. Fast retransmit and fast
# recovery are disabled: with fast retransmit off neither runs.
TCP = Tcp(
    mss=MSS,
    initial_window=4,
    rcv_buf=100_000,
    window_scaling=False,
    sack=False,
    timestamps=False,
    delayed_ack=True,
    delack_count=2,
    delack_timeout="200ms",
    fast_retransmit=False,
    rto_initial="1s",
    rto_min="500ms",
    rto_max="64s",
)


@dataclass(frozen=True)
class Row:
    """One row of Table 2 or 3, typed in from the paper (columns right to left there)."""

    link_delay: float  # s
    rtt: float  # s, the first pair's RTT
    first_cwnd: float  # bytes
    second_cwnd: float  # bytes
    time_diff: float  # s, slow start minus Modified Swift Start


TABLE2 = [
    Row(0.0001, 0.11674, 21929, 24849, 0.0326),
    Row(0.0005, 0.11381, 21379, 24300, 0.0236),
    Row(0.001, 0.11481, 21567, 24488, 0.0362),
    Row(0.005, 0.12281, 23070, 25991, 0.0893),
    Row(0.01, 0.13281, 24948, 27869, 0.0902),
    Row(0.05, 0.21281, 39977, 42898, 0.3697),
    Row(0.1, 0.31281, 58762, 61683, 0.8290),
    Row(0.2, 0.51281, 96333, 99254, 0.2451),
    Row(0.3, 0.71281, 133903, 136824, 1.0378),
    Row(0.4, 0.91281, 171474, 174395, 1.8887),
    Row(0.5, 1.11281, 209045, 211966, 26.0561),
    Row(0.6, 1.31336, 246719, 249638, 30.8050),
    Row(0.7, 1.51281, 284186, 287107, 35.9797),
    Row(0.8, 1.71281, 321757, 324678, 40.9113),
]

# Table 3. The paper's seventh row says link delay 0.01 (a repeat of the fifth); its RTT, 0.27307 s,
# is that of 0.1 s (RTT = 0.07307 + 2 x delay in every other row), so we run 0.1 s.
TABLE3 = [
    Row(0.0001, 0.07327, 462128, 539251, 0.281211),
    Row(0.0005, 0.07407, 467174, 545091, 0.282627),
    Row(0.001, 0.07507, 473481, 552391, 0.229694),
    Row(0.005, 0.08307, 523939, 610791, 0.317579),
    Row(0.01, 0.09307, 587011, 683791, 0.284387),
    Row(0.05, 0.17307, 1091587, 1267791, 0.522022),
    Row(0.1, 0.27307, 1722307, 1997791, 0.873903),
    Row(0.2, 0.47307, 2983747, 3457791, 1.42374),
    Row(0.3, 0.67307, 4245187, 4917791, 2.024241),
    Row(0.4, 0.87307, 5506627, 6377791, 3.478777),
    Row(0.5, 1.07307, 6768067, 7837791, 26.86863),
    Row(0.6, 1.27307, 8029507, 9297791, 31.85851),
    Row(0.7, 1.47307, 9290947, 10757791, 36.81996),
    Row(0.8, 1.67307, 10552387, 12217791, 41.82369),
]

QUICK_DELAYS = (0.0001, 0.01, 0.1, 0.5, 0.8)

# Section 4.1, Figure 4: the pair gap OPNET measured on T1, and the paper's formula for it.
PAPER_T1_GAP = 0.007772
PAPER_T1_GAP_FORMULA = (1460 + 20 + 7) * 8 / 1_544_000
# Figure 4 text: the second pair's RTT at link delay 0.0001 s.
PAPER_T1_SECOND_RTT = 0.13228
# Figure 5-a: the constant transmission rate and the RTT the paper multiplies it with.
PAPER_FIG5_RATE = 187_848.0
PAPER_FIG5_RTT = 0.343

# Tolerances (relative), see the notes in `reproduce`.
TOL_RTT = 0.01
TOL_CWND = 0.02
TOL_DIFF = 0.25
# Trend band of the connection-time differences: the direction and within a factor 2 of the paper's.
BAND_DIFF = 2.0
# A deterministic run: differences below 1 % of the value are "no difference".
RESOLUTION = 0.01
RTO_INITIAL = 1.0  # s, Table 1


def fixed_latency(rows: list[Row]) -> float:
    """The part of the paper's first-pair RTT that is not link delay: RTT - 2 x delay, whose
    median over a table's rows is 0.11281 s on T1 and 0.07307 s on OC1."""
    return statistics.median(r.rtt - 2 * r.link_delay for r in rows)


def scenario(
    rate_bps: float,
    link_delay: float,
    access_delay: float,
    algorithm: str,
    size: int = SIZE,
    tcp: Tcp = TCP,
    params: Optional[dict[str, float]] = None,
) -> Scenario:
    return Scenario(
        network=Dumbbell(
            rate=f"{rate_bps:.0f}bps",
            delay=f"{round(link_delay * 1e9)}ns",
            access_rate="100Mbps",
            access_delay=f"{round(access_delay * 1e9)}ns",
            # The routers' 265 MB of memory: no queue overflows in a one-flow transfer.
            queue="265MB",
            router_pps=5000,
        ),
        flows=[Flow(algorithm, size=size, params=params or {})],
        tcp=tcp,
        trace=Trace(interval="0s", packets=True),
    )


@dataclass
class Run:
    """What one transfer gives: pair timings from the packet trace, estimates from the cwnd trace."""

    result: Result
    completion: float
    rtt1: Optional[float]  # first pair: send of its First to the ACK covering it
    rtt2: Optional[float]
    gap: Optional[float]  # arrival gap of the first pair at the receiver
    windows: list[int]  # pacing-phase windows, in order, without repeats


def _first(frame: pl.DataFrame, column: str) -> Optional[float]:
    return None if frame.is_empty() else float(frame[column][0])


def analyse(result: Result) -> Run:
    p = result.packets
    assert p is not None
    data = p.filter(pl.col("len") > 0)

    def sent(seq: int) -> Optional[float]:
        return _first(data.filter((pl.col("event") == "send") & (pl.col("seq") == seq)), "t")

    def arrived(seq: int) -> Optional[float]:
        return _first(data.filter((pl.col("event") == "arrive") & (pl.col("seq") == seq)), "t")

    def acked(una: int) -> Optional[float]:
        return _first(p.filter((pl.col("event") == "ack_arrive") & (pl.col("ack") >= una)), "t")

    def diff(a: Optional[float], b: Optional[float]) -> Optional[float]:
        return None if a is None or b is None else a - b

    f = result.flows
    windows = f.filter(pl.col("phase") == "pacing")["cwnd"].to_list()
    windows = [w for i, w in enumerate(windows) if i == 0 or w != windows[i - 1]]
    return Run(
        result=result,
        completion=float(result.raw_summary["flows"][0]["completion_time"]),
        rtt1=diff(acked(2 * MSS), sent(0)),
        rtt2=diff(acked(4 * MSS), sent(2 * MSS)),
        gap=diff(arrived(MSS), arrived(0)),
        windows=windows,
    )


def _sends(run: Run) -> pl.DataFrame:
    """Data segments sent (retransmissions included), as the paper's sent-sequence plots."""
    return pacing.data_sends(run.result).select("t", "seq")


def second_round_segments(run: Run) -> int:
    """Segments sent in the second RTT (`pacing.second_round`)."""
    start, end = pacing.second_round(run.result, MSS)
    return _sends(run).filter((pl.col("t") >= start) & (pl.col("t") < end)).height


def about(n: float, target: float) -> bool:
    """The paper's "about": within 10 % (at least one segment)."""
    return abs(n - target) <= max(1.0, 0.1 * target)


def steady_state(run: Run) -> tuple[float, float]:
    """Sending rate (bytes/s) and mean RTT sample between 25 % and 75 % of the transfer, the
    straight part of Figure 5-a."""
    s = _sends(run)
    lo, hi = 0.25 * SIZE, 0.75 * SIZE
    t_lo = float(s.filter(pl.col("seq") >= lo)["t"][0])
    t_hi = float(s.filter(pl.col("seq") >= hi)["t"][0])
    rate = (hi - lo) / (t_hi - t_lo)
    f = run.result.flows
    rtt = f.filter((pl.col("t") >= t_lo) & (pl.col("t") <= t_hi))["rtt"].drop_nulls().drop_nans().mean()
    return rate, float(rtt)  # type: ignore[arg-type]


def time_to_full_window(run: Run) -> Optional[float]:
    """First time the bytes in flight reach 90 % of the receive window (the constant rate of
    Figure 5-a is the receive window per RTT)."""
    f = run.result.flows
    hit = f.filter(pl.col("inflight") >= 0.9 * MAX_RWND)
    return None if hit.is_empty() else float(hit["t"][0])


@dataclass
class Table:
    name: str  # "Table 2"
    path: str  # "T1"
    rate: float
    rows: list[Row]
    access_delay: float  # s, per access link: the paper's fixed latency beyond our own
    zero_rtt: float  # our first-pair RTT with no propagation delay at all
    runs: dict[tuple[float, str], Run]


def run_table(name: str, path: str, rate: float, rows: list[Row], calibrate: bool = True) -> Table:
    # Our own first-pair RTT with no propagation (serialisation and the router cap only).
    zero = analyse(run_many([scenario(rate, 0.0, 0.0, "modified-swift-start", size=8 * MSS)])[0])
    assert zero.rtt1 is not None
    extra = fixed_latency(rows) - zero.rtt1
    if extra < 0:
        raise RuntimeError(f"{path}: our zero-delay RTT {zero.rtt1:.5f} s exceeds the paper's fixed latency")
    # The paper's RTT less 2 x link delay is the same on every row: latency that is not on the
    # bottleneck link. We put it on the four access links so the bottleneck delay is the paper's
    # (without `calibrate`, the sensitivity run: no access delay at all).
    access = extra / 4 if calibrate else 0.0
    scns = [scenario(rate, r.link_delay, access, a) for r in rows for a in ALGOS]
    results = run_many(scns, progress=f"modified-swift-start: {name} ({path})")
    runs = {(r.link_delay, a): analyse(res) for (r, a), res in zip([(r, a) for r in rows for a in ALGOS], results)}
    return Table(name, path, rate, rows, access, zero.rtt1, runs)


def _ours(t: Table, r: Row) -> dict[str, Optional[float]]:
    ss, mss = t.runs[(r.link_delay, "newreno")], t.runs[(r.link_delay, "modified-swift-start")]
    return {
        "link_delay": r.link_delay,
        "rtt": mss.rtt1,
        "second_rtt": mss.rtt2,
        "gap": mss.gap,
        "first_cwnd": float(mss.windows[0]) if mss.windows else None,
        "second_cwnd": float(mss.windows[1]) if len(mss.windows) > 1 else None,
        "slow_start_time": ss.completion,
        "mss_time": mss.completion,
        "time_diff": ss.completion - mss.completion,
    }


def _table_claims(report: Report, t: Table) -> list[dict[str, Optional[float]]]:
    ours = [_ours(t, r) for r in t.rows]
    report.data[t.name.lower().replace(" ", "")] = {
        "path": t.path,
        "paper_fixed_latency_s": fixed_latency(t.rows),
        "our_zero_delay_rtt_s": t.zero_rtt,
        "access_delay_s": t.access_delay,
        "rows": [{**o, "paper": r.__dict__} for r, o in zip(t.rows, ours)],
    }

    def values(col: str, unit: str) -> list[Value]:
        return [Value(f"link delay {r.link_delay:g} s", getattr(r, col), o[col], unit) for r, o in zip(t.rows, ours)]

    fixed = fixed_latency(t.rows)
    off = [r for r in t.rows if abs(r.rtt - fixed - 2 * r.link_delay) > 0.001 * r.rtt]
    departures = (
        ""
        if not off
        else (
            f"; the paper's RTT departs from its own RTT = {fixed:.5f} s + 2 x delay at "
            + ", ".join(f"{r.link_delay:g} s ({(r.rtt - fixed - 2 * r.link_delay) / r.rtt:+.1%})" for r in off)
        )
    )
    columns = (
        ("rtt", "RTT of the first pair", "s", TOL_RTT, "RTT", departures),
        ("first_cwnd", "first estimated CWND", "B", TOL_CWND, "first window", departures),
        ("second_cwnd", "second estimated CWND", "B", TOL_CWND, "second window", departures),
        (
            "time_diff",
            "connection time of slow start minus Modified Swift Start (10 MB)",
            "s",
            TOL_DIFF,
            "time difference",
            "",
        ),
    )
    for col, statement, unit, tolerance, what, extra in columns:
        v = values(col, unit)
        verdict, reason = judge_values(v, tolerance, what, BAND_DIFF)
        if col == "time_diff":
            report.add(t.name, f"{t.path}: {statement} per link delay", v, (verdict, reason + _largest(v) + extra))
        else:
            # The RTT is calibrated from the paper's own RTT column (access delays, see the notes)
            # and every window is RTT x MSS / frame time: these compare inputs and formulas.
            why = _CHECK_WHY[col]
            report.check(
                t.name, f"{t.path}: {statement} per link delay", v, verdict.value == "reproduced", f"{why} {reason}{_largest(v)}{extra}"
            )
    return ours


_CHECK_WHY = {
    "rtt": "Our RTT is set from the paper's RTT column (access delay = the paper's fixed latency less our "
    "zero-delay RTT), so this checks the calibration, not a result.",
    "first_cwnd": "The window is RTT x MSS / pair gap, the RTT calibrated and the gap one frame time of the "
    "bottleneck: this checks the formula and the framing, not an independent outcome.",
    "second_cwnd": "The second window is the second pair's RTT x MSS / gap, again a formula of the calibrated "
    "RTT and the frame time.",
}


def _largest(values: list[Value]) -> str:
    diffs = [v for v in values if v.difference is not None]
    if not diffs:
        return ""
    worst = max(diffs, key=lambda v: abs(v.difference or 0))
    return f"; largest at {worst.label}"


def _gain_grows_with_rtt(
    report: Report, t: Table, ours: list[dict[str, Optional[float]]], source: str, statement: str
) -> None:
    rtts = [o["rtt"] or math.nan for o in ours]
    gains = [o["time_diff"] or math.nan for o in ours]
    rho = rank_correlation(rtts, gains)
    paper_rho = rank_correlation([r.rtt for r in t.rows], [r.time_diff for r in t.rows])
    # Each step must rise by more than the resolution of a deterministic run; a rank alone is not
    # enough, and the magnitudes are judged by the per-delay claim.
    steps = sum(direction(b, a, RESOLUTION)[0] is Direction.HIGHER for a, b in zip(gains, gains[1:]))
    report.add(
        source,
        statement,
        [Value(f"gain at RTT {o['rtt']:.4f} s", r.time_diff, o["time_diff"], "s") for r, o in zip(t.rows, ours)],
        judge(
            steps == len(gains) - 1,
            False,
            f"our gain rises by more than {RESOLUTION:.0%} in {steps} of {len(gains) - 1} steps (rank correlation "
            f"with RTT {_rho(rho)}; the paper's own column: {_rho(paper_rho)}, it falls at 0.2 s). The "
            "magnitudes are judged in the per-delay claim of the same table",
        ),
    )


def _secs(x: Optional[float]) -> str:
    return "never" if x is None else f"{x:.3f} s"


def _jump_claim(report: Report, t: Table, ours: list[dict[str, Optional[float]]]) -> None:
    """The paper's differences jump tenfold where the RTT passes the 1 s initial RTO; ours, and a
    what-if run of slow start ending early, measured in RTTs."""
    above = [(r, o) for r, o in zip(t.rows, ours) if r.rtt > RTO_INITIAL]
    below = [(r, o) for r, o in zip(t.rows, ours) if r.rtt <= RTO_INITIAL and r.link_delay >= 0.1]
    if not above or not below:
        return
    rtts = {r.link_delay: o["rtt"] or math.nan for r, o in above + below}

    def in_rtts(r: Row, seconds: Optional[float]) -> float:
        return (seconds if seconds is not None else math.nan) / rtts[r.link_delay]

    # What-if, not the paper's setting: slow start that ends at 2 segments, as after a spurious
    # timeout of the initial window (ssthresh = FlightSize / 2), then congestion avoidance per
    # RFC 5681 (+1/2 segment per RTT with delayed ACKs) or with byte counting (+1 per RTT).
    early = dataclasses.replace(TCP, initial_ssthresh=2)
    whatifs = [
        scenario(t.rate, r.link_delay, t.access_delay, "newreno", tcp=early, params=params)
        for r, _ in above
        for params in ({}, {"abc": 2})
    ]
    results = run_many(whatifs, progress=f"modified-swift-start: {t.name} what-if")
    lost = [
        [in_rtts(r, res.raw_summary["flows"][0]["completion_time"] - (o["mss_time"] or math.nan)) for res in pair]
        for (r, o), pair in zip(above, zip(results[::2], results[1::2]))
    ]
    ours_above = [in_rtts(r, o["time_diff"]) for r, o in above]
    ours_below = [in_rtts(r, o["time_diff"]) for r, o in below]
    paper_above = [r.time_diff / r.rtt for r, _ in above]
    paper_below = [r.time_diff / r.rtt for r, _ in below]
    report.data.setdefault("rto_jump", {})[t.path] = {
        "link_delays_above": [r.link_delay for r, _ in above],
        "ours_rtts_above": ours_above,
        "ours_rtts_below": ours_below,
        "whatif_rfc5681_rtts": [x[0] for x in lost],
        "whatif_byte_counting_rtts": [x[1] for x in lost],
    }

    def span(xs: list[float]) -> str:
        lo, hi = f"{min(xs):.1f}", f"{max(xs):.1f}"
        return lo if lo == hi else f"{lo}-{hi}"

    report.add(
        t.name,
        f"{t.path}: once the RTT exceeds the 1 s initial RTO (link delay 0.5 s on) the difference jumps "
        f"to {min(r.time_diff for r, _ in above):.0f}-{max(r.time_diff for r, _ in above):.0f} s",
        [
            Value(f"difference in RTTs, link delay {r.link_delay:g} s", r.time_diff / r.rtt, x, "RTT")
            for (r, _), x in zip(above, ours_above)
        ],
        judge(
            min(ours_above) > 3 * max(ours_below),
            False,
            f"ours are {span(ours_above)} RTTs above the initial RTO and {span(ours_below)} below it "
            f"(link delays {span([r.link_delay for r, _ in below])} s); the paper's go from "
            f"{span(paper_below)} to {span(paper_above)} RTTs. "
            "What-if, not the paper's setting: slow start ending at 2 segments, as after a spurious timeout "
            f"of the initial window, loses {span([x[0] for x in lost])} RTTs against Modified Swift Start "
            f"with RFC 5681 congestion avoidance and {span([x[1] for x in lost])} with byte counting, the "
            "paper's order of magnitude (see the notes)",
        ),
    )


def _rho(x: Optional[float]) -> str:
    return "undefined" if x is None else f"{x:.2f}"


def _figure_claims(report: Report, t1: Table) -> None:
    fig4_ss, fig4 = t1.runs[(0.0001, "newreno")], t1.runs[(0.0001, "modified-swift-start")]
    assert fig4.gap is not None and fig4.rtt1 is not None and fig4.rtt2 is not None

    # Section 4.1: the pair gap, which with the first pair's RTT makes the window.
    report.check(
        "Section 4.1",
        "the receiver measures the pair gap as the frame time on the bottleneck: 7.772 ms in "
        "OPNET, (1460 + 20 + 7) x 8 / 1 544 000 = 7.705 ms by the formula",
        [
            Value("gap vs OPNET's", PAPER_T1_GAP, fig4.gap, "s"),
            Value("gap vs the paper's formula", PAPER_T1_GAP_FORMULA, fig4.gap, "s"),
        ],
        judge_values(
            [Value("", PAPER_T1_GAP, fig4.gap), Value("", PAPER_T1_GAP_FORMULA, fig4.gap)],
            TOL_CWND,
            "pair gap",
            BAND_DIFF,
        )[0].value
        == "reproduced",
        "The gap is one frame time of the bottleneck, fixed by the link rate and the frame size: "
        f"a check of our framing against the paper's (tolerance {TOL_CWND:.0%}).",
    )
    # Figure 4: the second pair waited behind the first; its RTT is two frame times longer.
    report.check(
        "Figure 4",
        "the second window is computed from the second pair, whose RTT is longer (0.13228 s "
        "against 0.11674 s) because it was buffered behind the first",
        [
            Value("second pair RTT - first pair RTT", PAPER_T1_SECOND_RTT - 0.11674, fig4.rtt2 - fig4.rtt1, "s"),
            Value("second CWND - first CWND", 24849 - 21929, _window_step(fig4), "B"),
        ],
        judge_values(
            [
                Value("", PAPER_T1_SECOND_RTT - 0.11674, fig4.rtt2 - fig4.rtt1),
                Value("", 24849 - 21929, _window_step(fig4)),
            ],
            TOL_CWND,
            "increase",
            BAND_DIFF,
        )[0].value
        == "reproduced",
        "The second pair waits two frame times behind the first, so its RTT and window grow by "
        "two frame times' worth: fixed by the link and the formula, a check.",
    )
    # Figure 5: segments sent in the second RTT.
    _second_round_claim(
        report,
        "Figure 5-b",
        "in the second RTT slow start sends 6 segments, Modified Swift Start about 14 (its window paced over the RTT)",
        (fig4_ss, fig4),
        14,
    )
    # Figure 5-a: both end at a constant rate of one receive window per RTT.
    rate, rtt = steady_state(fig4_ss)
    report.data["figure5a"] = {"rate_Bps": rate, "rtt_s": rtt, "product_B": rate * rtt}
    product = [
        Value("rate x RTT", PAPER_FIG5_RATE * PAPER_FIG5_RTT, rate * rtt, "B"),
        Value("max RWND", MAX_RWND, rate * rtt, "B"),
    ]
    report.check(
        "Figure 5-a",
        "both reach a constant rate, 187 848 bytes/s; rate x RTT = 187 848 x 0.343 = 64 431, about the max RWND",
        [Value("rate", PAPER_FIG5_RATE, rate, "B/s"), Value("RTT", PAPER_FIG5_RTT, rtt, "s"), *product],
        judge_values(product, 0.05, "rate x RTT", BAND_DIFF)[0].value == "reproduced",
        "187 848 B/s is the T1 payload rate (1.544e6 / 8 x 1460 / 1500 = 187 853 B/s) and the "
        "product the receive window: fixed by the link and Table 1, whatever the algorithm (tolerance 5 %).",
    )
    t_ss, t_mss = time_to_full_window(fig4_ss), time_to_full_window(fig4)
    report.data["figure5a"].update({"slow_start_full_window_s": t_ss, "mss_full_window_s": t_mss})
    report.add(
        "Figure 5-a",
        "Modified Swift Start reaches the constant rate faster than slow start",
        [
            Value("slow start: 90 % of RWND in flight at", None, t_ss, "s"),
            Value("Modified Swift Start", None, t_mss, "s"),
        ],
        judge(
            t_ss is not None
            and t_mss is not None
            and direction(t_mss, t_ss, RESOLUTION)[0] is Direction.LOWER,
            False,
            f"90 % of the receive window in flight at {_secs(t_mss)} against {_secs(t_ss)} for slow start "
            f"(a difference counts above {RESOLUTION:.0%}; the paper gives no times)",
        ),
    )
    pacing.claims(report, fig4_ss.result, fig4.result, T1, MSS, RESOLUTION)
    # Figures 8 and 9 against 4 and 5 ("as RTT increases the difference increases") are the Table 2
    # rows at link delays 0.1 s and 0.0001 s: judged once, in the Table 2 claim.


# Section 2.3 experiment: link delay 0.1 s on T1 (Figures 8, 9), a 1 MB transfer.
COMPRESSION_DELAY = 0.1
COMPRESSION_SIZE = 1_000_000
COMPRESSION_INTERVAL = "10ms"
# Estimates within this fraction of the uncompressed one are "unaffected"; beyond this factor "wrong".
UNAFFECTED = 0.10
WRONG = 2.0
COMPRESSION_ALGOS: tuple[tuple[str, dict[str, float]], ...] = (("swift-start", {"gamma": 1.0}), ("modified-swift-start", {}))
COMPRESSED = [(c, d) for c in ("release", "merge") for d in (True, False)]
COMPRESSION_ALTERNATIVES = ("1ms", "50ms")
# Seeds per cell of the cross-traffic campaign, by quick mode.
CROSS_SEEDS = {False: 10, True: 2}


def _compression_runs(access_delay: float, interval: str) -> dict[tuple[str, bool, str], Run]:
    keys, scns = [], []
    for cname in ("none", "release", "merge"):
        for dack in (True, False):
            for algo, params in COMPRESSION_ALGOS:
                s = scenario(
                    T1,
                    COMPRESSION_DELAY,
                    access_delay,
                    algo,
                    size=COMPRESSION_SIZE,
                    tcp=dataclasses.replace(TCP, delayed_ack=dack),
                    params=params,
                )
                s.network.reverse_ack_compression = None if cname == "none" else AckCompression(cname, interval)
                keys.append((cname, dack, algo))
                scns.append(s)
    results = run_many(scns, progress=f"modified-swift-start: ACK compression {interval}")
    return {k: analyse(r) for k, r in zip(keys, results)}


def _first_window(runs: dict[tuple[str, bool, str], Run], k: tuple[str, bool, str]) -> Optional[float]:
    w = runs[k].windows
    return float(w[0]) if w else None


def _compression_ratios(runs: dict[tuple[str, bool, str], Run], algo: str) -> list[Optional[float]]:
    """Each compressed condition's first window over the uncompressed one with the same ACK policy."""
    out = []
    for c, d in COMPRESSED:
        x, b = _first_window(runs, (c, d, algo)), _first_window(runs, ("none", d, algo))
        out.append(None if x is None or b is None else x / b)
    return out


def _compression_holds(runs: dict[tuple[str, bool, str], Run]) -> tuple[bool, list[str]]:
    mss_ok = all(r is not None and abs(r - 1) <= UNAFFECTED for r in _compression_ratios(runs, "modified-swift-start"))
    wrong = [
        f"{c}/{'DACK' if d else 'no DACK'}"
        for (c, d), r in zip(COMPRESSED, _compression_ratios(runs, "swift-start"))
        if r is None or r > WRONG or r < 1 / WRONG
    ]
    return mss_ok, wrong


def _ack_compression(report: Report, access_delay: float) -> None:
    """Section 2.3, the paper's motivation: delayed ACKs and ACK compression on the return path make
    the sender-side packet pair (Swift Start) mis-measure the gap; the receiver-side pair (Modified
    Swift Start) is immune. The paper runs no experiment for it; we run it on the T1 path of
    Figures 8/9 with Table 1's TCP, Swift Start with gamma 1 (no safety divisor, as Modified Swift
    Start has none)."""
    runs = _compression_runs(access_delay, COMPRESSION_INTERVAL)
    first = functools.partial(_first_window, runs)
    algos = COMPRESSION_ALGOS
    rows = []
    for cname in ("none", "release", "merge"):
        for dack in (True, False):
            rows.append([f"{cname}, delayed ACKs {'on' if dack else 'off'}"]
                        + [first((cname, dack, a)) or "no estimate" for a, _ in algos]
                        + [runs[(cname, dack, a)].completion for a, _ in algos])
    report.tables.append(
        ReportTable(
            f"Section 2.3: first estimated window (bytes) and 1 MB connection time (s), T1, link delay "
            f"{COMPRESSION_DELAY:g} s, ACK compression interval {COMPRESSION_INTERVAL}",
            ["return path", "Swift Start (gamma 1) window", "Modified Swift Start window",
             "Swift Start time", "Modified Swift Start time"],
            rows,
        )
    )
    report.data["ack_compression"] = {
        f"{c}|dack={d}|{a}": {"window": first((c, d, a)), "time": r.completion} for (c, d, a), r in runs.items()
    }

    mss_ratios = _compression_ratios(runs, "modified-swift-start")
    ss_ratios = _compression_ratios(runs, "swift-start")
    mss_ok, ss_wrong = _compression_holds(runs)
    compressed = COMPRESSED
    others = {}
    for interval in COMPRESSION_ALTERNATIVES:
        ok, wrong = _compression_holds(_compression_runs(access_delay, interval))
        others[interval] = "holds" if ok and wrong else f"fails ({'MSS affected' if not ok else 'Swift Start right'})"
    report.choices.append(
        Choice(
            "ACK compression interval (Section 2.3 experiment)",
            COMPRESSION_INTERVAL,
            "the paper describes the merging router but gives no interval; 10 ms is a few T1 frame times",
            "; ".join(f"{k}: claim {v}" for k, v in others.items())
            + f"; {COMPRESSION_INTERVAL}: claim {'holds' if mss_ok and ss_wrong else 'fails'}",
        )
    )
    report.add(
        "Section 2.3",
        "ACK compression on the return path makes Swift Start's sender-side estimate wrong; Modified "
        "Swift Start, measuring at the receiver, is unaffected",
        [Value(f"{name}, {c}, delayed ACKs {'on' if d else 'off'}: estimate / uncompressed", None, r)
         for name, rs in (("Swift Start", ss_ratios), ("Modified Swift Start", mss_ratios))
         for (c, d), r in zip(compressed, rs)],
        judge(
            mss_ok and bool(ss_wrong),
            False,
            f"Modified Swift Start's estimate stays within {UNAFFECTED:.0%} of its uncompressed one in every "
            f"condition: {'yes' if mss_ok else 'no'}; Swift Start's is off by more than a factor {WRONG:g} (or "
            f"absent) in {len(ss_wrong)} of {len(compressed)} ({', '.join(ss_wrong) or 'none'}). The 65 535-byte "
            "receive window caps what either sends, so the connection times (table below) barely differ; "
            "the paper gives no numbers for this experiment. The verdict depends on the compression interval, "
            "which the paper does not give: "
            + "; ".join(f"{k}: claim {v}" for k, v in others.items()),
        ),
    )
    on, off = first(("none", True, "swift-start")), first(("none", False, "swift-start"))
    dack = None if on is None or off is None else on / off
    report.add(
        "Section 2.3",
        "delayed ACKs make Swift Start's estimate wrong (no ACK compression)",
        [Value("Swift Start estimate, delayed ACKs on / off", None, dack)],
        judge(
            dack is not None and (dack > WRONG or dack < 1 / WRONG),
            False,
            f"with delayed ACKs Swift Start's estimate is {_x(dack)} of the one without; a factor above "
            f"{WRONG:g} either way would count as wrong",
        ),
    )


def _x(r: Optional[float]) -> str:
    return "none" if r is None else f"{r:.3g}x"


def _calibration_sensitivity(report: Report, t2_rows: list[Row], t3_rows: list[Row]) -> None:
    """The time-difference verdicts again with no access delay: our RTT is then only propagation
    and serialisation, 2 x link delay + our zero-delay RTT, below the paper's by its fixed latency."""
    grades = []
    for name, path, rate, rows in (("Table 2", "T1", T1, t2_rows), ("Table 3", "OC1", OC1, t3_rows)):
        t = run_table(name, path, rate, rows, calibrate=False)
        ours = [_ours(t, r) for r in rows]
        v = [Value(f"link delay {r.link_delay:g} s", r.time_diff, o["time_diff"], "s") for r, o in zip(rows, ours)]
        main = next(c for c in report.claims if c.source == name and "connection time" in c.statement)
        alt = judge_values(v, TOL_DIFF, "time difference", BAND_DIFF)[0]
        grades.append(f"{path}: **{alt.value}** (calibrated: **{main.verdict.value}**)")
    report.choices.append(
        Choice(
            "Latency that is not link delay (the paper's RTT - 2 x link delay: 0.11281 s on T1, 0.07307 s on OC1)",
            "propagation delay on the four access links, sized from the paper's RTT column",
            "the paper's RTT has it and does not say where it comes from; a single lossless flow does not "
            "care where on the path a delay sits, only how long it is",
            "no access delay (our RTT 2 x link delay + serialisation only), connection-time differences per "
            "link delay: " + "; ".join(grades),
        )
    )
    report.choices.append(
        Choice(
            "Router queues and the 5000 packets/s cap",
            "265 MB per bottleneck direction; the cap per bottleneck direction, access links uncapped",
            "the paper gives the routers' memory and forwarding rate, not how they are shared",
            "not rerun: nothing is dropped with any queue above the 65 535-byte window, and the cap never binds "
            "(a 1500-byte frame takes 7.8 ms on T1 and 231 us on OC1, both above 1/5000 s)",
        )
    )


def _slow_start_vs_rtt(report: Report, delays: list[float], access_delay: float, quick: bool) -> list:
    """Figures 2 and 3 on Figure 1's network with a 49.5 Mbps bottleneck at Table 3's link delays,
    with OC1's access delays (the nearest rate); the sensitivity run puts no delay on the access links."""

    def runs(access: float) -> list:
        return rtt_sweep.run(delays, lambda d: scenario(rtt_sweep.RATE, d, access, "newreno"), SIZE)

    points = runs(access_delay)
    rtt_sweep.claims(report, points, MAX_RWND, RESOLUTION)
    graded = [c for c in report.claims if c.source in ("Figures 2, 3", "Figure 3")]
    if quick:
        alternative = "not run in a smoke test"
    else:
        probe = Report(name="", title="", citation="", setup="", quick=False)
        bare = runs(0.0)
        rtt_sweep.claims(probe, bare, MAX_RWND, RESOLUTION)
        alternative = f"RTT {bare[0].rtt:.4f}-{bare[-1].rtt:.3f} s: " + ", ".join(
            f"{c.source} **{c.verdict.value}** ({c.reason.split(';')[0]})" for c in probe.claims if c.verdict.counted
        )
    report.choices.append(
        Choice(
            "RTTs and TCP of Figures 2 and 3 (49.5 Mbps, 10 MB)",
            "Table 3's link delays (RTT 0.073-1.673 s) on Figure 1's network with OC1's access delays "
            f"({access_delay * 1e3:.3f} ms per link), Table 1's TCP (65 535-byte window)",
            "the figures are images: the paper names neither their RTTs nor their TCP settings; Table 1 is the "
            "paper's only TCP, and its window limit is the problem section III describes",
            f"no access delay ({alternative}); calibrated: "
            + ", ".join(f"{c.source} **{c.verdict.value}**" for c in graded),
        )
    )
    return points


def _not_run(report: Report) -> None:
    for source, statement, reason in (
        ("Section 4", "single and multiple flows compared (\"then we compare between them using single flow and "
         "multiple flow\")", "the paper shows no multi-flow result to compare with; Modified Swift Start with "
         "cross traffic is run under Section 2.2"),
    ):
        report.out_of_scope(source, statement, reason)


def _window_step(run: Run) -> Optional[float]:
    return float(run.windows[1] - run.windows[0]) if len(run.windows) > 1 else None


def _second_round_claim(report: Report, source: str, statement: str, runs: tuple[Run, Run], paper_mss: int) -> None:
    """Segments sent in the second RTT by slow start (the paper: 6) and Modified Swift Start."""
    n_ss, n_mss = (second_round_segments(r) for r in runs)
    report.add(
        source,
        statement,
        [Value("slow start, segments", 6, n_ss), Value("Modified Swift Start, segments", paper_mss, n_mss)],
        judge(
            n_ss == 6 and about(n_mss, paper_mss),
            n_ss == 6 and paper_mss / BAND_DIFF <= n_mss <= paper_mss * BAND_DIFF,
            f'slow start sends {n_ss}, Modified Swift Start {n_mss} ("about": within 10 %, at least one segment; '
            f"in trend: within a factor {BAND_DIFF:g})",
        ),
    )


def _cwnd_figure(
    run_ss: Run, run_mss: Run, rtt_label: str, paper: tuple[float, float], until: float, path_name: str = "T1"
) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for run, label, color in (
            (run_ss, "slow start (newreno)", "tab:blue"),
            (run_mss, "Modified Swift Start", "tab:red"),
        ):
            f = run.result.flows.filter(pl.col("t") <= until)
            ax.step(f["t"], f["cwnd"], where="post", label=label, color=color)
        ax.axhline(paper[0], color="grey", ls=":", lw=1, label=f"paper: first {paper[0]:.0f} / second {paper[1]:.0f} B")
        ax.axhline(paper[1], color="grey", ls=":", lw=1)
        ax.axhline(MAX_RWND, color="black", ls="--", lw=0.8, label="max RWND 65 535 B")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("congestion window (bytes)")
        ax.legend(fontsize=8)
        save_figure(fig, path, f"Congestion window, {path_name}, first-pair RTT {rtt_label}")

    return draw


def _seq_figure(run_ss: Run, run_mss: Run, rtt_label: str, zoom: float) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for ax, until, title in ((axes[0], None, "(a) whole transfer"), (axes[1], zoom, f"(b) first {zoom:g} s")):
            for run, label, color in (
                (run_ss, "slow start (newreno)", "tab:blue"),
                (run_mss, "Modified Swift Start", "tab:red"),
            ):
                s = _sends(run)
                if until is not None:
                    s = s.filter(pl.col("t") <= until)
                ax.plot(s["t"], s["seq"] / 1e6, ".", ms=2 if until is None else 4, label=label, color=color)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("sent sequence number (MB)")
            ax.set_title(title)
            ax.legend(fontsize=8)
        save_figure(fig, path, f"Sent segment sequence number, T1, first-pair RTT {rtt_label}")

    return draw


def _table_figure(t: Table, ours: list[dict[str, Optional[float]]]) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        d = [r.link_delay for r in t.rows]
        ax = axes[0]
        ax.plot(d, [r.first_cwnd for r in t.rows], "o", mfc="none", color="tab:blue", label="paper, first")
        ax.plot(d, [o["first_cwnd"] for o in ours], "x", color="tab:blue", label="ours, first")
        ax.plot(d, [r.second_cwnd for r in t.rows], "s", mfc="none", color="tab:red", label="paper, second")
        ax.plot(d, [o["second_cwnd"] for o in ours], "+", color="tab:red", label="ours, second")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("link delay (s)")
        ax.set_ylabel("estimated CWND (bytes)")
        ax.legend(fontsize=8)
        ax = axes[1]
        ax.plot(d, [r.time_diff for r in t.rows], "o-", mfc="none", label="paper")
        ax.plot(d, [o["time_diff"] for o in ours], "x-", label="ours")
        ax.set_xscale("log")
        # The differences span 0.02-42 s: on a linear axis a factor 5 at the short delays is invisible.
        every = [r.time_diff for r in t.rows] + [o["time_diff"] or 0 for o in ours]
        ax.set_yscale("log" if min(every) > 0 else "symlog", **({} if min(every) > 0 else {"linthresh": 0.01}))
        ax.set_xlabel("link delay (s)")
        ax.set_ylabel("slow start - Modified Swift Start (s)")
        ax.legend(fontsize=8)
        save_figure(fig, path, f"{t.name}: {t.path} path, 10 MB transfer")

    return draw


def reproduce(quick: bool) -> Report:
    report = Report(
        name="modified-swift-start",
        title="Modified Swift Start (receiver-side packet pair, OPNET)",
        citation=(
            '"Modified Swift Start" paper (`shared/papers/modified-swift-start.txt`): sections 2.2-2.3 '
            "(the receiver-side pair and its motivation), section III (Figures 2, 3) and section 4 (Tables 2 "
            "and 3, Figures 4-11 and the text around them)"
        ),
        setup=(
            "One 10 MB transfer (`size = 10 MB`) from sender to receiver: 100 Mbps access links, "
            "a bottleneck of 1.544 Mbps (T1, Table 2) or 51.84 Mbps (OC1, Table 3) whose one-way "
            "delay is the paper's link delay, routers capped at 5000 packets/s (`router_pps`), "
            "265 MB buffers. TCP (Table 1): MSS 1460, receive buffer 100 000 bytes with window "
            "scaling off (65 535-byte window), initial window 4 segments, delayed ACKs every 2 "
            "segments or 0.2 s, fast retransmit and fast recovery off, SACK and timestamps off "
            "(Karn's rule), RTO initial 1 s / min 0.5 s / max 64 s. Slow start is `newreno`, "
            "Modified Swift Start `modified-swift-start`, same settings. The paper's RTT includes "
            "latency that is not link delay (RTT - 2 x link delay is constant, see the notes); "
            "we add it as propagation delay on the access links, so our first-pair RTT is "
            "the paper's fixed latency + 2 x link delay. The setting has no randomness (no "
            "loss, no cross traffic): one run per point. "
            + (
                "Quick mode: link delays " + ", ".join(f"{d:g}" for d in QUICK_DELAYS) + " s only."
                if quick
                else "All 14 link delays of each table."
            )
        ),
        quick=quick,
    )
    t2_rows = [r for r in TABLE2 if not quick or r.link_delay in QUICK_DELAYS]
    t3_rows = [r for r in TABLE3 if not quick or r.link_delay in QUICK_DELAYS]
    t1 = run_table("Table 2", "T1", T1, t2_rows)
    oc1 = run_table("Table 3", "OC1", OC1, t3_rows)

    ours2 = _table_claims(report, t1)
    _gain_grows_with_rtt(
        report,
        t1,
        ours2,
        # Figures 8 and 9 redraw Figures 4 and 5 at a link delay of 0.1 s to make this point.
        "Table 2; Figures 4, 5 against 8, 9",
        "T1: as RTT increases the time difference increases: the larger the RTT the better Modified Swift Start",
    )
    ours3 = _table_claims(report, oc1)
    faster = sum(
        direction(o["slow_start_time"] or 0, o["mss_time"] or 0, RESOLUTION)[0] is Direction.HIGHER for o in ours3
    )
    report.add(
        "Table 3",
        "OC1: Modified Swift Start finishes before slow start at every link delay",
        [
            Value(f"gain at link delay {o['link_delay']:g} s", r.time_diff, o["time_diff"], "s")
            for r, o in zip(oc1.rows, ours3)
        ],
        judge(
            faster == len(ours3),
            False,
            f"Modified Swift Start is faster by more than {RESOLUTION:.0%} of slow start's time in {faster} of "
            f"{len(ours3)} rows",
        ),
    )
    _gain_grows_with_rtt(report, oc1, ours3, "Table 3", "OC1: the gain grows with the RTT")
    _jump_claim(report, t1, ours2)
    _jump_claim(report, oc1, ours3)
    _figure_claims(report, t1)
    w10 = oc1.runs[(0.0001, "modified-swift-start")].windows
    v10 = [
        Value("first window", 462128, float(w10[0]) if w10 else None, "B"),
        Value("second window", 539251, float(w10[1]) if len(w10) > 1 else None, "B"),
    ]
    report.check(
        "Figure 10",
        "on OC1 (RTT 0.07327 s) Modified Swift Start estimates windows of 462 128 and 539 251 bytes",
        v10,
        judge_values(v10, TOL_CWND, "window", BAND_DIFF)[0].value == "reproduced",
        "The same two windows as Table 3's first row (RTT x MSS / gap, a formula of the calibrated RTT; the "
        "second one carries the paper's 200 us OC1 gap, see the notes), drawn in figure10.png.",
    )
    n11 = [second_round_segments(oc1.runs[(0.0001, a)]) for a in ALGOS]
    report.check(
        "Figure 11",
        "on OC1 (RTT 0.07327 s) slow start sends 6 segments in the second RTT, Modified Swift Start "
        "about 44, the maximum receive window",
        [Value("slow start, segments", 6, n11[0]), Value("Modified Swift Start, segments", 44, n11[1])],
        n11[0] == 6 and about(n11[1], 44),
        "44 segments is the 65 535-byte receive window (Table 1), which caps the OC1 estimate (about 320 "
        "segments): a check of the receive window, not of the estimate.",
    )
    points = _slow_start_vs_rtt(report, [r.link_delay for r in t3_rows], oc1.access_delay, quick)
    _ack_compression(report, t1.access_delay)
    cross_figure = cross.claims(
        report,
        scenario(T1, COMPRESSION_DELAY, t1.access_delay, "modified-swift-start", size=COMPRESSION_SIZE),
        T1,
        CROSS_SEEDS[quick],
        quick,
    )
    _calibration_sensitivity(report, t2_rows, t3_rows)
    _not_run(report)

    r4 = (t1.runs[(0.0001, "newreno")], t1.runs[(0.0001, "modified-swift-start")])
    r8 = (t1.runs[(0.1, "newreno")], t1.runs[(0.1, "modified-swift-start")])
    r10 = (oc1.runs[(0.0001, "newreno")], oc1.runs[(0.0001, "modified-swift-start")])
    report.figures += [
        Figure(
            "figures2-3.png",
            "Figures 2 and 3: slow start alone, 10 MB over 49.5 Mbps: connection time, utilization and the "
            "delivered rate over time against the RTT",
            rtt_sweep.figure(points, MAX_RWND),
        ),
        Figure(
            "figure4.png",
            "Figure 4: cwnd of slow start and Modified Swift Start, T1, link delay 0.0001 s (paper: RTT 0.11674 s)",
            _cwnd_figure(*r4, f"{r4[1].rtt1:.5f} s", (21929, 24849), 3.0),
        ),
        Figure(
            "figure5.png",
            "Figure 5: sent sequence number, T1, link delay 0.0001 s",
            _seq_figure(*r4, f"{r4[1].rtt1:.5f} s", 1.5),
        ),
        Figure(
            "figure6.png",
            "Figure 6: sent (circles) and received (dots) sequence numbers and the bottleneck queue, T1, link "
            "delay 0.0001 s, first 1.5 s",
            pacing.figure6(r4[0].result, r4[1].result, 1.5, f"Sent and received sequence, T1, first-pair RTT {r4[1].rtt1:.5f} s"),
        ),
        Figure(
            "figure7.png",
            "Figure 7: the sender's smoothed RTT (its calculated mean RTT), T1, link delay 0.0001 s",
            pacing.figure7(r4[0].result, r4[1].result, f"Smoothed RTT, T1, first-pair RTT {r4[1].rtt1:.5f} s"),
        ),
        Figure(
            "figure8.png",
            "Figure 8: cwnd, T1, link delay 0.1 s (paper: RTT 0.31281 s first pair, 0.32836 s second)",
            _cwnd_figure(*r8, f"{r8[1].rtt1:.5f} s", (58762, 61683), 6.0),
        ),
        Figure(
            "figure9.png",
            "Figure 9: sent sequence number, T1, link delay 0.1 s",
            _seq_figure(*r8, f"{r8[1].rtt1:.5f} s", 4.0),
        ),
        Figure(
            "figure10.png",
            "Figure 10: cwnd of slow start and Modified Swift Start, OC1, link delay 0.0001 s (paper: RTT 0.07327 s)",
            _cwnd_figure(*r10, f"{r10[1].rtt1:.5f} s", (462128, 539251), 3.0, "OC1"),
        ),
        Figure(
            "cross-traffic.png",
            "Section 2.2 with cross traffic: each algorithm's first window over its window without UDP, against "
            "the mean UDP load (T1, link delay 0.1 s; the dashed line is the bandwidth left over)",
            cross_figure,
        ),
        Figure(
            "table2.png",
            "Table 2 as a plot: estimated windows and connection-time difference per link delay, T1",
            _table_figure(t1, ours2),
        ),
        Figure(
            "table3.png",
            "Table 3 as a plot: estimated windows and connection-time difference per link delay, OC1",
            _table_figure(oc1, ours3),
        ),
    ]
    report.notes += _notes(t1, oc1)
    return report


def _notes(t1: Table, oc1: Table) -> list[str]:
    return [
        # Path mapping.
        f"**Link delay and RTT.** In both tables the paper's first-pair RTT is a constant plus twice "
        f"the link delay (T1: median of RTT - 2 x delay = {fixed_latency(TABLE2):.5f} s; OC1: "
        f"{fixed_latency(TABLE3):.5f} s), so the link delay is the bottleneck's one-way delay, counted "
        f"once each way, and the constant is latency the paper does not locate (serialisation explains "
        f"only part of it: ours, with no propagation at all, is {t1.zero_rtt:.5f} s on T1 and "
        f"{oc1.zero_rtt:.5f} s on OC1). We keep the bottleneck delay equal to the paper's link delay "
        f"and put the rest on the four 100 Mbps access links ({t1.access_delay * 1e3:.3f} ms each on "
        f"T1, {oc1.access_delay * 1e3:.3f} ms on OC1), computed from the paper's own RTT column and "
        f"our zero-delay run, not fitted to any output. Our RTT column therefore matches the paper's "
        f"wherever the paper follows its own relation; it differs at 0.0001 s on T1 (paper 0.11674 s "
        f"where its relation gives 0.11301 s) and slightly at 0.6 s (1.31336 s vs 1.31281 s). Those "
        f"rows are inconsistencies in the paper, which its windows inherit (21 929 = 0.11674 x 1460 / "
        f"0.007772).",
        "**Figures 4/5 are the 0.0001 s row**, whose paper RTT is the anomalous 0.11674 s; we run the "
        "row as mapped (0.113 s), so our first window there is about 4 % under the paper's for the "
        "RTT alone. The pair-gap claim compares the part that does not depend on the RTT. "
        "Figures 8/9 are captioned 0.32836 s, the second pair's RTT at link delay 0.1 s "
        "(first pair 0.31281 s); we run link delay 0.1 s.",
        # Typos.
        '**Typos in the paper.** The OC1 rate is printed "518400000 bps"; OC-1 is 51.84 Mbps and the '
        "paper's own gap formula uses 51 840 000, so we use 51.84 Mbps. Table 3's title says "
        '"Bandwidth T1" (it is OC1). Table 3\'s seventh row repeats link delay 0.01; its RTT '
        "(0.27307 s) is that of 0.1 s, so we run 0.1 s. Section 4.1 says the window paced in the "
        "second RTT is 20 722 bytes (about 14 segments) while Figure 4 and Table 2 give 21 929.",
        # Framing.
        "**Segment size on the wire.** Our segment is 1460 + 40 (IP/TCP) + 8 (the First/Second mark "
        "option) = 1508 bytes, so the T1 pair gap is 7.813 ms where the paper's formula counts "
        "1460 + 20 + 7 = 1487 bytes (7.705 ms) and OPNET measured 7.772 ms. Every window is "
        "RTT x MSS / gap, so ours are about 0.5 % under OPNET's for the same RTT. The window "
        f"tolerance, {TOL_CWND:.0%}, covers this framing difference (up to 1.4 % against the "
        "paper's formula), not RTT differences.",
        f"**Tolerances.** RTT {TOL_RTT:.0%}: with the mapping above only the paper's own departures "
        "from its relation remain. Windows 2 %: framing, above. Connection-time difference "
        f"{TOL_DIFF:.0%}: it is a difference of two transfers of 12-280 s; the framing changes both "
        "equally, but how the start-up ends (pacing stop, delayed-ACK timer, the RTO timer at RTTs "
        "near 1 s) moves it by fractions of an RTT, which at the short RTTs is most of the value.",
        # Second CWND on OC1.
        "**The paper's OC1 second windows.** On T1 the second window is the first plus 2 MSS in every "
        "row (the second pair's RTT is two frame times longer, the gap the same), and so is ours on "
        "both paths. The paper's OC1 second windows are instead about 1460 x (RTT + 0.0006 s) / "
        "0.0002 s: a pair gap of 200 us, which is the routers' 1/5000 s forwarding time and shorter "
        "than an OC1 frame time (1487 x 8 / 51.84e6 = 229.5 us). A FIFO bottleneck cannot deliver two "
        "frames closer than one frame time, so this looks like an OPNET router-model artefact we do "
        "not model; our OC1 second windows differ from the paper's by about 14 % for this reason.",
        # Connection times.
        "**Connection-time differences.** Ours grow steadily with the RTT, by about 3 RTTs (3.6 to "
        "3.7 at link delay 0.1 s; on T1 only about 1 RTT at the shortest delays, where T1 itself "
        "limits the rate): Modified Swift Start reaches the receive window that much earlier, and both "
        "then run at the same rate (one receive window per RTT, or the T1 rate). On OC1 the paper's "
        "differences are also about 3 RTTs up to 0.3 s, and ours agree with them there (0.05, 0.2 and "
        "0.3 s within 0.5 %). On T1 the paper's values scatter (0.2451 s at 0.2 s link delay, between "
        "0.829 s and 1.038 s) and are a fifth to a third of ours up to 0.001 s and about half at "
        "0.005-0.01 s; the paper does not describe OPNET's pacing, which decides these fractions of an RTT.",
        # Large delays.
        "**RTT above the 1 s initial RTO.** From link delay 0.5 s on the RTT exceeds the initial RTO "
        "of 1 s and the SYN is retransmitted in both algorithms. Our sender then follows RFC 6298 "
        "section 5.7 (data starts with a 3 s RTO) and Karn's rule, so no data segment times out "
        "spuriously. The paper's differences jump from 0.5-4 RTTs to 23-25 RTTs exactly there, in both "
        "tables, and stay at that number of RTTs: the signature of a fixed number of rounds lost by "
        "slow start, not of the start-up. A hypothesis the paper cannot confirm: OPNET restarts the "
        "data with a 1 s RTO, the initial window times out spuriously, ssthresh drops to 2 segments "
        "and slow start becomes congestion avoidance up to the 44-segment receive window, while "
        "Modified Swift Start recovers because the echo of its pair arrives a moment later and sets the "
        "window. Our what-if run (slow start ending at 2 segments, in the claim's reason) loses the "
        "same order of RTTs (about 19 to 40, by congestion-avoidance rule). We do not model that timer "
        "behaviour, and our Modified Swift Start gives up its estimate after a retransmission.",
        # Unspecified.
        "**Not specified by the paper, our choices.** Queue sizes (265 MB of router memory: we give "
        "each bottleneck direction a 265 MB buffer, so nothing is dropped); how the 5000 packets/s "
        "cap is shared between a router's interfaces (here each bottleneck direction has its own, "
        "access links uncapped; it binds nowhere in these runs: a 1500-byte frame takes 7.8 ms on T1 "
        "and 231 us on OC1, both above 1/5000 s, and ACKs come one per two segments); access-link "
        "delays (none beyond the latency above); the SYN exchange (ours: 40-byte "
        "SYN and SYN-ACK with 12 bytes of options; connection time runs from the SYN to the ACK of "
        'the last byte, no FIN); OPNET\'s "Receive Buffer Usage Threshold 0" (the application reads '
        "at once: the window never closes for lack of reads); timestamps (off, the table lists "
        "none); clock granularity of the RTO (1 ms). Slow start increases cwnd by one MSS per ACK "
        "(RFC 5681, `abc = 1`), as the paper's 4 -> 6 segments in the second RTT implies.",
        "**Figures 2 and 3** (slow start alone at 49.5 Mbps) have no numbers; we grade their text. The "
        "utilization is 10 MB over the connection time and 49.5 Mbps, the same measurement as the time, so the "
        "two are one verdict. \"The maximum transfer rate\" is reached when the bytes in flight first come "
        f"within {rtt_sweep.FULL:.0%} of their largest value in the transfer (one receive window here). A step "
        f"from one RTT to the next counts when it moves by more than {RESOLUTION:.0%} (deterministic runs).",
        "**Figure 6** says the sending rate \"at the first and second RTT\" equals the receiving rate. The "
        "first RTT is the initial window's 4 segments, sent back to back by both algorithms (no pacing is "
        "possible before an estimate), so we measure the second RTT, the paced one: the payload rate between "
        "the first and the last segment sent in it, at the sender and, for the same segments, at the receiver. "
        "Its \"idle intervals\" are measured at the receiver: each gap between two arrivals beyond the "
        "arriving frame's transmission time on the bottleneck is time the link carried nothing (one flow, "
        "nothing else on the link), summed from the second RTT to the end of the transfer.",
        "**Figure 7**'s \"calculated mean RTT\" is the sender's smoothed RTT (RFC 6298, gain 0.125 as in "
        f"Table 1). \"Rises sooner\" is read as reaching {pacing.RISEN:.0%} of its steady value (the median "
        "over the second half of the transfer, where the 65 535-byte window keeps about 30 packets queued) "
        "earlier.",
        "**Cross traffic (Section 2.2).** The paper claims the receiver-side pair measures \"the actual "
        "capacity\" and so needs no fraction of it, and shows no run with other traffic. We test both halves "
        "with on/off UDP on the bottleneck: the first half (the estimate is the capacity's window) is graded "
        f"within {cross.SAME:.0%} of the window without UDP; the second (no fraction needed) asks that the "
        f"estimate stay within {cross.OVER:g}x of the window of the bandwidth the UDP leaves over, which is what "
        "a fraction would be for. Swift Start's gamma 1 and 4 are run beside it on the same seeds. At high load "
        "the estimate rises above the capacity's window: the pair's gap stays one frame time, but its RTT "
        "includes the queue the UDP built.",
        "**Modified Swift Start details** (docs/algorithms/modified-swift-start.md): the window is "
        "paced over one RTT at window / RTT; pacing ends with the first ACK of a paced segment; the "
        "receiver echoes the gap in whole microseconds; an estimate is used only above the current "
        "window. With windows far above the 65 535-byte receive window (all of OC1) the receive "
        "window, not the estimate, limits what is sent.",
    ]
