"""Jump Start at other bandwidths and RTTs than the paper's one simulated path (5 Mbps, 64 ms).

The paper simulates one path and names "a variety of network bandwidths, various RTTs" as future
work (sections III-D and V). Its statements about other paths are in the introduction: the
10 Gbps / 100 ms example (over 83,000 segments, over 1.5 s and over 100 MB before Slow Start's
window is open), and the argument that high bandwidth and long delay make Slow Start costly, so
that faster startup "mainly aids medium-sized connections that take normal TCP longer than one
RTT". Footnote 4 and section III-C give the other side: once the transfer is larger than the path
holds, Jump Start's burst overflows the queue and Slow Start wins.

We simulate the introduction's example and Figure 1's single-flow experiment on a grid of rates
and RTTs, and grade those statements on every path of the grid.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import matplotlib.ticker
import polars as pl

from tcpstart.batch import run_many
from tcpstart.reproduce.report import Choice, Figure, Report, Value, judge, judge_values, save_figure
from tcpstart.scenario import Dumbbell, Flow, Scenario, Tcp

PACKET = 1500  # bytes on the wire: the paper's "1500 byte packets"

# The introduction's example path.
INTRO_RATE = 10e9  # bps
INTRO_RTT = 0.1  # s
INTRO_SEGMENTS = INTRO_RATE * INTRO_RTT / (8 * PACKET)  # 83,333: "a cwnd of over 83,000 segments"
INTRO_SIZE = 600_000_000  # bytes: more than Slow Start sends before its window reaches the BDP, even at 1.5x per RTT
INTRO_DURATION_S = 3.5

# Figure 1 repeated on a grid: rates and RTTs a factor 4 apart around the paper's 5 Mbps and
# 64 ms, sizes in powers of two up to past what the largest path holds.
RATES_MBPS = [1.25, 5.0, 20.0, 80.0]
RTTS_MS = [16, 64, 256]
SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
RATES_QUICK = [5.0, 80.0]
RTTS_QUICK = [16, 64]
SIZES_QUICK = [1, 2, 8, 64, 128, 256, 512]
QUEUE_PACKETS = 60  # the paper's bottleneck queue ("a common default")
# Deterministic runs: durations closer than 1 % are "no difference", as in Figure 1.
RESOLUTION = 1.0  # percent


def bdp_packets(rate_mbps: float, rtt_ms: float) -> float:
    return rate_mbps * 1e6 * rtt_ms / 1e3 / (8 * PACKET)


# --- The introduction's 10 Gbps / 100 ms example --------------------------------------------------


def _opening_scenario(tcp: Tcp) -> Scenario:
    # Queue and receive window large enough that neither stops Slow Start before the BDP: the
    # example is about the window's growth alone ("even with Slow Start's exponential growth").
    network = Dumbbell(rate="10Gbps", rtt="100ms", queue=f"{2 * int(INTRO_SEGMENTS)}pkt")
    tcp = dataclasses.replace(tcp, rcv_buf=4 * int(INTRO_SEGMENTS) * (tcp.mss or PACKET))
    return Scenario(network, [Flow("newreno", size=INTRO_SIZE)], tcp=tcp, duration=f"{INTRO_DURATION_S:g}s")


def opening(tcps: dict[str, Tcp]) -> dict[str, dict[str, float]]:
    """Per TCP setting: when Slow Start's window first holds the BDP (83,333 segments), counted from
    the SYN and from the first data segment, and the bytes acknowledged by then."""
    names = list(tcps)
    results = run_many([_opening_scenario(tcps[n]) for n in names], progress="jump-start: 10 Gbps example")
    out = {}
    for name, r in zip(names, results):
        mss = tcps[name].mss or PACKET
        f = r.flows
        hit = f.filter(pl.col("cwnd") >= INTRO_SEGMENTS * mss)
        if hit.is_empty():
            raise RuntimeError(f"10 Gbps example ({name}): the window never reached the BDP in {INTRO_DURATION_S} s")
        t = float(hit["t"][0])
        out[name] = {
            "time_from_syn_s": t,
            # The handshake takes one base RTT (a 40-byte SYN is 32 ns at 10 Gbps).
            "time_from_first_data_s": t - INTRO_RTT,
            # Bytes on the wire: acknowledged payload in 1500-byte packets, the paper's unit.
            "bytes_sent": float(hit["delivered"][0]) / mss * PACKET,
            "rounds": (t - INTRO_RTT) / INTRO_RTT,
        }
    return out


# --- Figure 1 on a grid of paths ------------------------------------------------------------------


def grid(tcp: Tcp, rates: list[float], rtts: list[int], sizes: list[int], queue: Optional[int]) -> list[dict[str, Any]]:
    """One Slow Start and one Jump Start flow per (rate, RTT, size); `queue` in packets, or None
    for one BDP. Durations from the first data segment (one base RTT after the SYN), as Figure 1
    is graded."""
    keys = [(r, t, n) for r in rates for t in rtts for n in sizes]
    scenarios = []
    for r, t, n in keys:
        q = queue if queue is not None else max(1, round(bdp_packets(r, t)))
        network = Dumbbell(rate=f"{r:g}Mbps", rtt=f"{t}ms", queue=f"{q}pkt")
        for algorithm in ("newreno", "jump-start"):
            scenarios.append(Scenario(network, [Flow(algorithm, size=n * (tcp.mss or PACKET))], tcp=tcp, duration="300s"))
    results = run_many(scenarios, progress="jump-start: Figure 1 on other paths")
    rows = []
    for k, (r, t, n) in enumerate(keys):
        ss, js = (x.raw_summary["flows"][0] for x in results[2 * k : 2 * k + 2])
        base = t / 1e3
        q = queue if queue is not None else max(1, round(bdp_packets(r, t)))
        rows.append(
            {
                "rate_mbps": r,
                "rtt_ms": t,
                "bdp_packets": bdp_packets(r, t),
                "queue_packets": q,
                "packets": n,
                "slow_start_s": ss["completion_time"] - base,
                "jump_start_s": js["completion_time"] - base,
                "improvement_percent": 100 * (ss["completion_time"] - js["completion_time"]) / (ss["completion_time"] - base),
                "slow_start_drops": ss["drops"],
                "jump_start_drops": js["drops"],
            }
        )
    return rows


def same_bdp_agreement(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Cases (size on two paths of the same BDP) without loss in either: how many, and the largest
    difference of their improvements (percentage points); cases with loss: how many, and how many
    differ by more than the resolution."""
    groups: dict[tuple[float, int], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((round(r["bdp_packets"], 6), r["packets"]), []).append(r)
    clean, lossy, lossy_differ, worst = 0, 0, 0, 0.0
    for rs in groups.values():
        if len(rs) < 2:
            continue
        spread = max(r["improvement_percent"] for r in rs) - min(r["improvement_percent"] for r in rs)
        if any(r["slow_start_drops"] or r["jump_start_drops"] for r in rs):
            lossy += 1
            lossy_differ += spread > RESOLUTION
        else:
            clean += 1
            worst = max(worst, spread)
    return {"lossless_cases": clean, "lossless_worst_points": worst, "lossy_cases": lossy, "lossy_differ": lossy_differ}


def _paths(rows: list[dict[str, Any]]) -> list[tuple[float, int]]:
    return sorted({(r["rate_mbps"], r["rtt_ms"]) for r in rows})


def _holds(r: dict[str, Any]) -> float:
    """What the path holds in packets: the BDP plus the queue."""
    return float(r["bdp_packets"] + r["queue_packets"])


def medium_gain(rows: list[dict[str, Any]], initial_window: int) -> dict[str, Any]:
    """"Faster startup mainly aids medium-sized connections": on the paths whose BDP exceeds the
    initial window (where Slow Start has a window to grow, the introduction's premise), every
    transfer larger than the initial window that fits what the path holds finishes sooner with
    Jump Start (by more than the resolution) and loses nothing."""
    considered = [r for r in rows if r["bdp_packets"] > initial_window and initial_window < r["packets"] <= _holds(r)]
    failed = [
        r for r in considered if r["improvement_percent"] <= RESOLUTION or r["jump_start_drops"] > 0
    ]
    below = [r for r in rows if r["bdp_packets"] <= initial_window and initial_window < r["packets"] <= _holds(r)]
    return {"considered": considered, "failed": failed, "below_iw": below}


def beyond_capacity(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Footnote 4 on every path: the first power of two larger than what the path holds (at the
    paper's path 128 packets, the footnote's "next power-of-2")."""
    out = []
    for rate, rtt in _paths(rows):
        on_path = sorted((r for r in rows if (r["rate_mbps"], r["rtt_ms"]) == (rate, rtt)), key=lambda r: r["packets"])
        over = [r for r in on_path if r["packets"] > _holds(r)]
        if over:
            out.append(over[0])
    return out


def claims(report: Report, rows: list[dict[str, Any]], opened: dict[str, dict[str, float]], tcp: Tcp) -> None:
    iw = int(tcp.initial_window or 3)  # type: ignore[call-overload]
    base = opened["as in the paper"]
    report.check(
        "Introduction",
        "a 1500-byte-packet connection over 10 Gbps and 100 ms needs a cwnd of over 83,000 segments",
        [Value("BDP in 1500-byte packets", None, INTRO_SEGMENTS, "segments", paper_range=(83_000.0, None))],
        INTRO_SEGMENTS > 83_000,
        f"10 Gbps x 100 ms / (8 x 1500 B) = {INTRO_SEGMENTS:,.0f} segments: the paper's arithmetic, no simulation",
    )
    t = Value("time until Slow Start's window holds the BDP, from the SYN", None, base["time_from_syn_s"], "s",
              paper_range=(1.5, None))
    verdict, rule = judge_values([t], 0.0, "times", 2.0, series=False)
    report.add(
        "Introduction",
        "even with Slow Start's exponential growth such a connection needs over 1.5 s to start fully using the capacity",
        [t, Value("the same from the first data segment", None, base["time_from_first_data_s"], "s")],
        (verdict, f"{rule}; Slow Start (IW {iw}, an ACK per segment) takes {base['rounds']:.1f} RTTs "
                  f"after the handshake to get there; the window counted in 1460-byte segments first reaches 83,333 at "
                  f"{base['time_from_syn_s']:.3f} s"),
    )
    sent = Value("bytes acknowledged when the window first holds the BDP", None, base["bytes_sent"] / 1e6, "MB",
                 paper_range=(100.0, None))
    verdict, rule = judge_values([sent], 0.0, "volumes", 2.0, series=False)
    report.add(
        "Introduction",
        "over 100 MB of data must be transmitted before the cwnd is fully opened",
        [sent],
        (verdict, f"{rule} (counted in 1500-byte packets on the wire)"),
    )

    med = medium_gain(rows, iw)
    paths = _paths(rows)
    report.add(
        "Introduction; Figure 1 at other paths (section V)",
        f"faster startup aids medium-sized connections: on every path whose BDP exceeds the initial window, a "
        f"transfer over the initial window ({iw} packets) that fits what the path holds (BDP + queue) finishes "
        f"sooner with Jump Start, without loss",
        [Value(f"{rate:g} Mbps / {rtt} ms: smallest improvement over sizes {iw + 1}-{_holds(on[0]):.0f} packets "
               f"({len(on)} sizes)", None, min(r["improvement_percent"] for r in on), "%")
         for rate, rtt in paths
         for on in [[r for r in med["considered"] if (r["rate_mbps"], r["rtt_ms"]) == (rate, rtt)]] if on],
        judge(
            bool(med["considered"]) and not med["failed"],
            False,
            f"{len(med['considered']) - len(med['failed'])} of {len(med['considered'])} such (path, size) cases "
            f"gain more than {RESOLUTION:g} % with no Jump Start drop over {len(paths)} paths"
            + (("; fails at " + ", ".join(f"{r['rate_mbps']:g} Mbps / {r['rtt_ms']} ms, {r['packets']} packets "
                                           f"({r['improvement_percent']:+.1f} %, {r['jump_start_drops']} drops)"
                                           for r in med["failed"][:6])) if med["failed"] else "")
            + (f". Paths with a BDP at or below the initial window are left out (the introduction's premise is a "
               f"window to grow); there the {len(med['below_iw'])} cases gain from "
               f"{min(r['improvement_percent'] for r in med['below_iw']):+.1f} to "
               f"{max(r['improvement_percent'] for r in med['below_iw']):+.1f} %: both schemes are limited by the "
               "link's serialisation, not by the window" if med["below_iw"] else ""),
        ),
    )
    over = beyond_capacity(rows)
    wins = [r for r in over if r["improvement_percent"] < -RESOLUTION]
    report.add(
        "Footnote 4 and section III-C at other paths",
        "once the transfer is larger than the path holds (BDP + queue), Jump Start's burst overflows the queue and "
        "Slow Start outperforms Jump Start (footnote 4's 'next power of two' read on each path)",
        [Value(f"{r['rate_mbps']:g} Mbps / {r['rtt_ms']} ms (holds {_holds(r):.0f}), {r['packets']} packets: "
               f"improvement", None, r["improvement_percent"], "%") for r in over],
        judge(
            bool(over) and len(wins) == len(over),
            False,
            f"at the first power of two beyond what the path holds Jump Start drops packets on "
            f"{sum(1 for r in over if r['jump_start_drops'] > 0)} of {len(over)} paths and Slow Start is faster "
            f"(by more than {RESOLUTION:g} %) on {len(wins)} of {len(over)}"
            + ("; Jump Start still wins, despite its drops, where the BDP is "
               + ", ".join(sorted({f"{r['bdp_packets']:.0f}" for r in over if r not in wins}, key=float))
               + " packets: the Slow Start rounds it saves outweigh its recovery" if len(wins) < len(over) else ""),
        ),
    )


def figure(rows: list[dict[str, Any]], opened: dict[str, Any], trace: Optional[pl.DataFrame]) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.8), gridspec_kw={"width_ratios": [1.25, 1]})
        paths = _paths(rows)
        bdps = sorted({round(bdp_packets(*p), 3) for p in paths})
        cmap = plt.get_cmap("viridis")
        styles = {rate: style for rate, style in zip(sorted({p[0] for p in paths}), ("-", "--", "-.", ":"))}
        for rate, rtt in paths:
            on = sorted((r for r in rows if (r["rate_mbps"], r["rtt_ms"]) == (rate, rtt)), key=lambda r: r["packets"])
            color = cmap(bdps.index(round(bdp_packets(rate, rtt), 3)) / max(1, len(bdps) - 1))
            x = [r["packets"] for r in on]
            ratio = [r["slow_start_s"] / r["jump_start_s"] for r in on]
            left.plot(x, ratio, styles[rate], color=color, lw=1.0,
                      label=f"{rate:g} Mbps / {rtt} ms (BDP {bdp_packets(rate, rtt):.0f})")
            for dropped, marker in ((False, "o"), (True, "x")):
                pts = [(a, y) for a, y, r in zip(x, ratio, on) if (r["jump_start_drops"] > 0) == dropped]
                left.plot([a for a, _ in pts], [y for _, y in pts], marker, color=color, ms=4 if marker == "o" else 6)
        left.axhline(1, color="grey", lw=0.8)
        left.set_xscale("log", base=2)
        left.set_yscale("log")
        left.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(SIZES))
        left.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%d"))
        left.yaxis.set_major_locator(matplotlib.ticker.FixedLocator([0.125, 0.25, 0.5, 1, 2, 4, 8]))
        left.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        left.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        left.tick_params(axis="x", labelsize=7)
        left.set_xlabel("transfer size (packets, log)")
        left.set_ylabel("duration ratio Slow Start / Jump Start (log)")
        left.set_title(f"(a) Figure 1 on {len(paths)} paths, {QUEUE_PACKETS}-packet queue\n"
                       "(colour: BDP; o: no Jump Start drop, x: drops)", fontsize=9)
        left.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="path", title_fontsize=7)
        if trace is not None:
            right.plot(trace["t"], trace["cwnd"] / 1460, label="Slow Start's window (IW 3, ACK per segment)")
        right.axhline(INTRO_SEGMENTS, color="k", ls="--", lw=0.8, label=f"BDP {INTRO_SEGMENTS:,.0f} segments")
        right.axvspan(1.5, INTRO_DURATION_S, color="tab:orange", alpha=0.12, label="paper: over 1.5 s")
        right.axvline(opened["as in the paper"]["time_from_syn_s"], color="tab:blue", ls=":", lw=1.0,
                      label=f"ours: {opened['as in the paper']['time_from_syn_s']:.2f} s from the SYN")
        right.set_yscale("log")
        right.set_xlim(0, 2.2)
        right.set_xlabel("time from the SYN (s)")
        right.set_ylabel("congestion window (1460-byte segments, log)")
        right.set_title("(b) the introduction's 10 Gbps / 100 ms example", fontsize=9)
        right.legend(fontsize=7, loc="lower right")
        save_figure(fig, path, "Jump Start at other bandwidths and RTTs")

    return draw


def run(report: Report, tcp: Tcp, quick: bool) -> None:
    rates, rtts, sizes = (RATES_QUICK, RTTS_QUICK, SIZES_QUICK) if quick else (RATES_MBPS, RTTS_MS, SIZES)
    tcps = {
        "as in the paper": tcp,
        "initial window 1": dataclasses.replace(tcp, initial_window=1),
        "delayed ACKs": dataclasses.replace(tcp, delayed_ack=True),
    }
    opened = opening(tcps)
    trace = run_many([_opening_scenario(tcp)])[0].flows.select("t", "cwnd")
    rows = grid(tcp, rates, rtts, sizes, QUEUE_PACKETS)
    report.data["paths"] = rows
    report.data["intro_example"] = opened
    one_bdp = grid(tcp, rates, rtts, sizes, None)
    report.data["paths_one_bdp_queue"] = one_bdp
    twins = same_bdp_agreement(rows)
    report.data["paths_same_bdp"] = twins
    claims(report, rows, opened, tcp)
    iw = int(tcp.initial_window or 3)  # type: ignore[call-overload]
    # (failed, considered) medium-size cases and (Slow Start wins, paths) beyond capacity, per queue.
    summary = {}
    for name, rs in (("60", rows), ("1bdp", one_bdp)):
        med, over = medium_gain(rs, iw), beyond_capacity(rs)
        summary[name] = (len(med["failed"]), len(med["considered"]),
                         sum(1 for r in over if r["improvement_percent"] < -RESOLUTION), len(over))
    (mf, mc, ow, on), (af, ac, aw, an) = summary["60"], summary["1bdp"]
    base = opened["as in the paper"]
    report.choices += [
        Choice(
            "Other paths: rates and RTTs",
            f"{', '.join(f'{r:g}' for r in rates)} Mbps x {', '.join(str(t) for t in rtts)} ms, sizes "
            f"{sizes[0]}-{sizes[-1]} packets in powers of two",
            "the paper names no other path; a factor 4 apart around its 5 Mbps / 64 ms covers BDPs from under the "
            "initial window to 1,700 packets, and sizes up to past what the largest path holds",
            f"without loss the rate and the RTT act only through their product: over {twins['lossless_cases']} sizes "
            f"run on several paths of one BDP the improvements differ by at most {twins['lossless_worst_points']:.2f} "
            f"points; with loss they do not ({twins['lossy_differ']} of {twins['lossy_cases']} such sizes differ by "
            f"more than {RESOLUTION:g} point), as the retransmission timer has a fixed minimum and backs off in "
            "seconds, not in RTTs",
        ),
        Choice(
            "Other paths: bottleneck queue",
            f"{QUEUE_PACKETS} packets on every path",
            "the paper's queue, which it calls a common router default, independent of the path",
            f"one BDP instead: the medium-size claim fails in {af} of {ac} cases (against {mf} of {mc}); beyond what "
            f"the path holds Slow Start wins on {aw} of {an} paths (against {ow} of {on})"
            + ("; the verdicts are the same" if (af == 0) == (mf == 0) and (aw == an) == (ow == on) else "; a verdict changes"),
        ),
        Choice(
            "Introduction's example: Slow Start's growth",
            "IW 3, an ACK per segment (a doubling per RTT), time from the SYN",
            "the paper's simulated TCP; footnote 1 assumes a factor two per RTT",
            "; ".join(
                f"{name}: {v['time_from_syn_s']:.3f} s from the SYN, {v['time_from_first_data_s']:.3f} s from the first "
                f"data segment, {v['bytes_sent'] / 1e6:.0f} MB"
                for name, v in opened.items()
            )
            + (
                "; 'over 1.5 s' changes verdict with where the time starts"
                if (base["time_from_syn_s"] > 1.5) != (base["time_from_first_data_s"] > 1.5)
                else "; 'over 1.5 s' has the same verdict from the SYN and from the first data segment"
            ),
        ),
    ]
    report.figures.append(Figure("paths.png", "Jump Start against Slow Start at other bandwidths and RTTs", figure(rows, opened, trace)))
