"""eHSTCP (Choi, Lee, Cho, "Enhanced Congestion Control Algorithm for High-Speed TCP"), section 3.

Setup of the paper (section 3): ns-2 dumbbell; background traffic "in both directions": web
traffic, 25 small TCP flows whose window stays under 64 segments, 4 long-lived TCP flows;
eHSTCP with N* = 10 and a safety check of 5 x RTTmax. Table 1: two high-speed flows on a
2.5 Gbps bottleneck (utilization, loss ratio, normalized throughput standard deviation).
Table 2: two high-speed flows of 40 ms and 120 or 240 ms RTT on 1 Gbps (throughput ratio).
Figure 1: the bandwidth share of each flow type against the bottleneck speed (20 Mbps to
2.5 Gbps). Everything else (queue, RTT of Table 1, duration, web parameters) is our choice, as
in scenarios/ehstcp-2.5g.toml and ehstcp-1g.toml; ehstcp_queue and ehstcp_setup grade Table 1
again under the alternatives (Table 2 runs 60 s here, not 100 s, to keep
the full mode near ten minutes of two cores).

Steady-state metrics come from two runs of the same scenario and seed, one `duration` long and
one `warmup` long: the simulator is deterministic and nothing it draws depends on the duration,
so the second run is exactly the first one's first `warmup` seconds, and the difference of their
cumulative counters (bytes sent, drops, bytes delivered) is the window [warmup, duration].
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from tcpstart.batch import run_many
from tcpstart.reproduce import ehstcp_backlog, ehstcp_queue, ehstcp_setup
from tcpstart.reproduce.report import (
    Choice,
    Direction,
    Figure,
    Report,
    Table,
    Value,
    direction,
    judge,
    judge_values,
)
from tcpstart.results import Result
from tcpstart.scenario import Dumbbell, Flow, Scenario, Tcp, Trace, Web
from tcpstart.sweep.measure import measure_groups

# Column label in the paper -> registered algorithm.
ALGORITHMS = {"HSTCP": "highspeed", "STCP": "scalable", "BIC": "bic", "eHSTCP": "ehstcp"}
LABELS = list(ALGORITHMS)

# Table 1 (2.5 Gbps).
PAPER_UTILIZATION = {"HSTCP": 0.92, "STCP": 0.99, "BIC": 0.95, "eHSTCP": 0.99}
PAPER_LOSS_PERCENT = {"HSTCP": 0.0197, "STCP": 0.1281, "BIC": 0.0206, "eHSTCP": 0.0065}
PAPER_NORM_STD = {"HSTCP": 0.148, "STCP": 0.149, "BIC": 0.107, "eHSTCP": 0.047}
# Table 2 (1 Gbps): throughput of the 40 ms flow over that of the longer-RTT flow.
PAPER_RATIO = {
    3: {"HSTCP": 42.46, "STCP": 111.45, "BIC": 12.03, "eHSTCP": 3.88},
    6: {"HSTCP": 197.80, "STCP": 341.65, "BIC": 84.65, "eHSTCP": 4.77},
}

# Tolerances of the numeric verdicts, fixed before running: utilizations lie between 0.9 and 1,
# so 5 % separates them; loss ratios, standard deviations and throughput ratios depend on
# details the paper does not give (queue, RTTs of the background, web load), so 25 %.
TOL_UTILIZATION = 0.05
TOL_OTHER = 0.25
# Trend bands (the direction and the magnitude within): utilizations within a factor 1.1 (0.9 to
# 1.0 all lie within 1.1 of each other, so a wider band could not fail), loss ratios, standard
# deviations and throughput ratios within a factor 2.
BAND_UTILIZATION = 1.1
BAND_OTHER = 2.0
# Deterministic runs (no web traffic): a difference below 1 % is no difference.
RESOLUTION = 0.01

MSS = 1460
BASE_RTT = "40ms"
# Drop-tail, each way; the paper gives no buffer size (ehstcp_queue reruns Table 1 with others).
QUEUE = "1bdp"
# Long enough that only congestion control limits the high-speed flows: the 240 ms path at
# 1 Gbps holds 30 MB plus the queue, more than the simulator's 16 MB default.
HS_RCV_BUF = "64MB"
# The paper's 64-segment window cap, as a receive window.
SMALL_RCV_BUF = 64 * MSS
# Samples of the flow trace; the throughput samples of the stability metric are 1 s.
TRACE_INTERVAL = 0.1
STABILITY_BIN = 1.0
# A web page (about 4.6 objects 50 ms apart, then a 500 ms think time) takes well under a
# second at these speeds; 2 pages per second of run keeps every session busy to the end.
PAGES_PER_SECOND = 2
# Background flow types of Figure 1 and the classes that carry them (forward direction).
FLOW_TYPES = {"high-speed": ("hs",), "long-lived": ("long-fwd",), "small": ("small",), "web": ("web",)}


@dataclass(frozen=True)
class Mode:
    duration: float
    warmup: float
    seeds: tuple[int, ...]
    """Seeds of Tables 1 and 2 (and of Figure 1's 2.5 Gbps point, which is Table 1's runs)."""
    figure1_seeds: tuple[int, ...]
    """Seeds of Figure 1's other speeds."""
    table2_duration: float
    table2_warmup: float
    speeds_bps: tuple[float, ...]


# Full mode: 807 s of CPU measured (21 min of wall time on the loaded 2-core machine, about 7 on
# two free cores); quick mode 45 s of CPU. 2.5 Gbps costs about 0.4 s of CPU per simulated second.
FULL = Mode(60, 10, (1, 2, 3), (1,), 60, 10, (20e6, 100e6, 500e6, 1e9, 2.5e9))
QUICK = Mode(8, 3, (1,), (1,), 10, 3, (20e6, 2.5e9))
TABLE1_RATE = 2.5e9


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g}Gbps" if bps >= 1e9 else f"{bps / 1e6:g}Mbps"


def _web(duration: float) -> Web:
    """Jump Start's web defaults (the paper gives no parameters), with sessions that fetch pages
    until the run ends instead of 5 pages each (about 4 s of traffic)."""
    return Web(class_="web", pages=math.ceil(PAGES_PER_SECOND * duration))


def _scenario(
    rate_bps: float,
    algorithm: str,
    seed: int,
    duration: float,
    length: float,
    hs_access_delay: Sequence[Optional[str]] = (None, None),
    background: bool = True,
    queue: str = QUEUE,
) -> Scenario:
    """The paper's network at `rate_bps`, run for `length` seconds; `duration` is the full run's,
    which fixes everything drawn at validation (the web pages) so that shorter runs are its
    prefix. `hs_access_delay` gives each high-speed flow its access delay (its RTT is
    40 ms + 4 x that)."""
    hs_tcp = Tcp(rcv_buf=HS_RCV_BUF)
    high_speed = [
        Flow(algorithm, class_="hs" if d is None else f"hs-{i}", access_delay=d, tcp=hs_tcp)
        for i, d in enumerate(hs_access_delay)
    ]
    others = [
        Flow(class_="small", count=25, interval="100ms", tcp=Tcp(rcv_buf=SMALL_RCV_BUF)),
        Flow(class_="long-fwd", count=4),
        Flow(class_="long-rev", direction="reverse", count=4),
    ]
    return Scenario(
        Dumbbell(rate=_rate(rate_bps), rtt=BASE_RTT, queue=queue),
        high_speed + (others if background else []),
        web=[_web(duration)] if background else [],
        tcp=Tcp(mss=MSS),
        duration=f"{length}s",
        seed=seed,
        trace=Trace(interval=f"{TRACE_INTERVAL * 1000:g}ms"),
    )


def _delivered_at(result: Result, flow: int, times: np.ndarray) -> np.ndarray:
    """Bytes the flow had delivered at each time (its last trace sample at or before it)."""
    trace = result.flows.filter(result.flows["flow"] == flow).sort("t")
    t = trace["t"].to_numpy()
    d = trace["delivered"].to_numpy()
    idx = np.searchsorted(t, times + 1e-9, side="right") - 1
    return np.where(idx >= 0, d[np.clip(idx, 0, None)], 0)


def normalized_std(result: Result, flows: Sequence[int], start: float, end: float, bin_s: float) -> float:
    """The paper's stability metric: "the sample standard deviation normalized by the average
    throughput of high-speed flows". Each high-speed flow's throughput is sampled over
    consecutive `bin_s` intervals of [start, end]; its sample standard deviation (n - 1) is
    divided by its mean; the result is the average over the flows."""
    edges = np.arange(start, end + 1e-9, bin_s)
    covs = []
    for f in flows:
        rates = np.diff(_delivered_at(result, f, edges)) * 8 / bin_s
        covs.append(float(np.std(rates, ddof=1) / np.mean(rates)) if np.mean(rates) > 0 else math.inf)
    return statistics.fmean(covs)


def _window(full: Result, warm: Result, duration: float, warmup: float) -> dict:
    """Bottleneck utilization and loss ratio and each class's forward goodput over
    [warmup, duration], from the cumulative counters of the two runs."""
    lf, lw = (next(link for link in r.raw_summary["links"] if link["name"] == "bottleneck") for r in (full, warm))
    sent_bits = lf["utilization"] * lf["rate_bps"] * duration - lw["utilization"] * lw["rate_bps"] * warmup
    span = duration - warmup
    classes = {
        name: (c["bytes_delivered"] - warm.raw_summary["classes"][name]["bytes_delivered"]) * 8 / span
        for name, c in full.raw_summary["classes"].items()
    }
    return {
        "utilization": sent_bits / (lf["rate_bps"] * span),
        "loss_percent": 100 * (lf["drops"] - lw["drops"]) / max(lf["arrivals"] - lw["arrivals"], 1),
        "utilization_whole_run": lf["utilization"],
        "loss_percent_whole_run": 100 * lf["drop_rate"],
        "goodput_bps": classes,
    }


def _shares(goodput: dict[str, float]) -> dict[str, float]:
    """Percent of the forward goodput each flow type of Figure 1 carries."""
    per_type = {t: sum(v for c, v in goodput.items() if c in classes) for t, classes in FLOW_TYPES.items()}
    total = sum(per_type.values())
    return {t: 100 * v / total for t, v in per_type.items()}


def _mean_spread(xs: Sequence[float]) -> tuple[float, Optional[tuple[float, float]]]:
    return statistics.fmean(xs), (min(xs), max(xs)) if len(xs) > 1 else None


def _seeds(mode: Mode, rate: float) -> tuple[int, ...]:
    return mode.seeds if rate == TABLE1_RATE else mode.figure1_seeds


# Runs per batch of a worker: a result holds every web object's summary (tens of thousands at 2
# pages per session-second), so the results are reduced to their metrics batch by batch; all at
# once the full mode peaked at 3 GB.
BATCH = 4


def _measure_batched(groups: list, measure: Callable[[Any, list[Result]], Any], progress: str) -> dict:
    """`groups` is a list of (key, scenarios); returns {key: measure(key, results of those
    scenarios)}, as measured runs (cached, resumable, on Ray when asked: tcpstart.sweep.measure)."""
    return measure_groups(groups, measure, progress, batch=BATCH)


def _run_shared(mode: Mode, queue: str = QUEUE, speeds: Optional[Sequence[float]] = None) -> dict:
    """Table 1 and Figure 1 use the same network (two 40 ms high-speed flows) at every speed
    (`speeds`, default the mode's); `queue` is the bottleneck buffer."""
    speeds = mode.speeds_bps if speeds is None else speeds
    keys = [(rate, label, seed) for rate in speeds for label in LABELS for seed in _seeds(mode, rate)]

    def measure(key: tuple, results: list[Result]) -> dict:
        full, warm = results
        m = _window(full, warm, mode.duration, mode.warmup)
        m["shares_percent"] = _shares(m["goodput_bps"])
        m["norm_std"] = normalized_std(full, (0, 1), mode.warmup, mode.duration, STABILITY_BIN)
        m["hs_throughput"] = _hs_series(full, mode) if key[0] == TABLE1_RATE and key[2] == mode.seeds[0] else None
        return m

    groups = [
        (
            k,
            [
                _scenario(k[0], ALGORITHMS[k[1]], k[2], mode.duration, length, queue=queue)
                for length in (mode.duration, mode.warmup)
            ],
        )
        for k in keys
    ]
    what = "Table 1 and Figure 1" if queue == QUEUE else f"Table 1, {queue} queue"
    return _measure_batched(groups, measure, f"ehstcp: {what}")


def _hs_series(result: Result, mode: Mode) -> dict:
    edges = np.arange(0, mode.duration + 1e-9, STABILITY_BIN)
    return {
        "t": edges[1:].tolist(),
        "mbps": [(np.diff(_delivered_at(result, f, edges)) * 8 / STABILITY_BIN / 1e6).tolist() for f in (0, 1)],
    }


def _table1(report: Report, shared: dict, mode: Mode) -> None:
    rows = {}
    for label in LABELS:
        runs = [shared[(TABLE1_RATE, label, s)] for s in mode.seeds]
        rows[label] = {
            k: [r[k] for r in runs]
            for k in ("utilization", "loss_percent", "norm_std", "utilization_whole_run", "loss_percent_whole_run")
        }
    report.data["table1"] = rows

    def values(key: str, paper: dict, unit: str = "") -> list[Value]:
        out = []
        for label in LABELS:
            mean, spread = _mean_spread(rows[label][key])
            out.append(Value(label, paper[label], mean, unit, spread))
        return out

    util = values("utilization", PAPER_UTILIZATION)
    loss = values("loss_percent", PAPER_LOSS_PERCENT, "%")
    std = values("norm_std", PAPER_NORM_STD)
    report.add("Table 1", "link utilization at 2.5 Gbps", util, judge_values(util, TOL_UTILIZATION, "utilizations", BAND_UTILIZATION))
    report.add("Table 1", "packet loss ratio at 2.5 Gbps", loss, judge_values(loss, TOL_OTHER, "loss ratios", BAND_OTHER))
    report.add(
        "Table 1",
        "normalized standard deviation of the high-speed flows' throughput",
        std,
        judge_values(std, TOL_OTHER, "standard deviations", BAND_OTHER),
    )

    u = {v.label: v.ours for v in util}
    p = {v.label: v.ours for v in loss}
    s = {v.label: v.ours for v in std}
    report.add(
        "Section 3, Table 1",
        "the link utilization of eHSTCP is comparable to that of STCP (paper: both 0.99)",
        [Value("eHSTCP - STCP utilization", 0.0, u["eHSTCP"] - u["STCP"])],
        judge(
            abs(u["eHSTCP"] - u["STCP"]) <= 0.02,
            abs(u["eHSTCP"] - u["STCP"]) <= 0.05,
            f"eHSTCP {u['eHSTCP']:.3f}, STCP {u['STCP']:.3f} (reproduced within 0.02, in trend within 0.05)",
        ),
    )
    # Lower: the paired (by seed) difference's 95 % CI below 0; otherwise no difference.
    vs_loss = {a: direction(rows["eHSTCP"]["loss_percent"], rows[a]["loss_percent"]) for a in LABELS if a != "eHSTCP"}
    report.add(
        "Section 3, Table 1",
        "eHSTCP has the lowest packet loss ratio of the four",
        [],
        judge(
            all(d is Direction.LOWER for d, _ in vs_loss.values()),
            False,
            ", ".join(f"{a} {p[a]:.4g} %" for a in LABELS)
            + "; eHSTCP against each: "
            + "; ".join(f"{a}: {d.value} ({how})" for a, (d, how) in vs_loss.items()),
        ),
    )
    near = u["eHSTCP"] >= u["HSTCP"] - 0.02
    lower = p["eHSTCP"] < p["HSTCP"] and p["eHSTCP"] <= p["HSTCP"] / 2
    # A conjunction: both halves must hold; in trend only when both are within their bands.
    util_ratio = u["eHSTCP"] / u["HSTCP"]
    loss_ratio = p["eHSTCP"] / p["HSTCP"] if p["HSTCP"] else None
    util_band = Value("", 0.99 / 0.92, util_ratio).within_factor(BAND_UTILIZATION)
    loss_band = loss_ratio is not None and bool(Value("", 0.0065 / 0.0197, loss_ratio).within_factor(BAND_OTHER))
    report.add(
        "Sections 2, 3, Table 1",
        "eHSTCP keeps HSTCP's utilization (or better) with far lower loss (paper: 0.99 vs 0.92, "
        "0.0065 % vs 0.0197 %)",
        [
            Value("eHSTCP / HSTCP utilization", 0.99 / 0.92, u["eHSTCP"] / u["HSTCP"]),
            Value("eHSTCP / HSTCP loss ratio", 0.0065 / 0.0197, p["eHSTCP"] / p["HSTCP"] if p["HSTCP"] else None),
        ],
        judge(
            near and lower,
            bool(util_band) and loss_band,
            f"utilization {u['eHSTCP']:.3f} vs {u['HSTCP']:.3f} (needs at least HSTCP's - 0.02: "
            f"{'holds' if near else 'fails'}), loss {p['eHSTCP']:.4g} % vs {p['HSTCP']:.4g} % (needs at most half: "
            f"{'holds' if lower else 'fails'}). Both halves must hold; in trend when both ratios are within their "
            f"bands (utilization ratio within {BAND_UTILIZATION:g}x of the paper's 1.076: "
            f"{'yes' if util_band else 'no'}; loss ratio within {BAND_OTHER:g}x of 0.33: {'yes' if loss_band else 'no'}). "
            "A low loss at a low utilization is not the paper's claim",
        ),
    )
    most_stable = min(LABELS, key=lambda a: s[a])
    vs_std = {a: direction(rows["eHSTCP"]["norm_std"], rows[a]["norm_std"]) for a in LABELS if a != "eHSTCP"}
    report.add(
        "Section 3, Table 1",
        "eHSTCP shows the best stability (lowest normalized standard deviation)",
        [],
        judge(
            all(d is Direction.LOWER for d, _ in vs_std.values()),
            False,
            f"lowest mean: {most_stable} ({s[most_stable]:.3f}); eHSTCP against each: "
            + "; ".join(f"{a}: {d.value} ({how})" for a, (d, how) in vs_std.items()),
        ),
    )

    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
        for ax, vals, title in zip(
            axes, (util, loss, std), ("link utilization", "packet loss ratio (%)", "normalized std of throughput")
        ):
            _paired_bars(ax, vals)
            ax.set_title(title)
        axes[0].set_ylim(0, 1.05)
        axes[0].legend(fontsize=8, loc="lower right")
        fig.suptitle("Table 1: two high-speed flows, 2.5 Gbps, background traffic")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    report.figures.append(Figure("table1.png", "Table 1: paper vs ours at 2.5 Gbps (bars: seed min-max)", draw))

    series = {label: shared[(TABLE1_RATE, label, mode.seeds[0])]["hs_throughput"] for label in LABELS}
    report.data["table1_hs_throughput_seed1"] = series

    def draw_series(path: Path) -> None:
        fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex=True, sharey=True)
        for ax, label in zip(axes.flat, LABELS):
            for i, mbps in enumerate(series[label]["mbps"]):
                ax.plot(series[label]["t"], mbps, lw=1, label=f"flow {i + 1}")
            ax.axvline(mode.warmup, color="grey", ls=":", lw=0.8)
            ax.set_title(f"{label} ({ALGORITHMS[label]})")
            ax.set_ylabel("throughput (Mbps)")
        for ax in axes[1]:
            ax.set_xlabel("time (s)")
        axes.flat[0].legend(fontsize=8)
        fig.suptitle(f"High-speed flows at 2.5 Gbps, {STABILITY_BIN:g} s samples (seed {mode.seeds[0]}); dotted: end of warm-up")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)

    report.figures.append(Figure("throughput.png", "Throughput of the two high-speed flows at 2.5 Gbps (stability)", draw_series))


def _paired_bars(ax, values: list[Value], log: bool = False) -> None:
    x = np.arange(len(values))
    ax.bar(x - 0.2, [v.paper for v in values], 0.4, label="paper", color="tab:grey")
    ours = [v.ours for v in values]
    err = None
    if all(v.spread for v in values):
        err = [[o - v.spread[0] for o, v in zip(ours, values)], [v.spread[1] - o for o, v in zip(ours, values)]]
    ax.bar(x + 0.2, ours, 0.4, yerr=err, capsize=3, label="tcpstart", color="tab:blue")
    ax.set_xticks(x, [v.label for v in values])
    if log:
        ax.set_yscale("log")


def _table2_ratios(mode: Mode, background: bool, seeds: Sequence[int]) -> dict[tuple[int, str], list[float]]:
    # Flow 2's extra delay sits on its own access links: RTT = 40 ms + 4 x access delay.
    extra = {3: "20ms", 6: "50ms"}
    keys = [(ratio, label, seed) for ratio in PAPER_RATIO for label in LABELS for seed in seeds]
    edges = np.array([mode.table2_warmup, mode.table2_duration])

    def measure(key: tuple, results: list[Result]) -> float:
        short, long_ = (float(np.diff(_delivered_at(results[0], f, edges))[0]) for f in (0, 1))
        return short / long_ if long_ > 0 else math.inf

    groups = [
        (
            k,
            [
                _scenario(
                    1e9, ALGORITHMS[k[1]], k[2], mode.table2_duration, mode.table2_duration, (None, extra[k[0]]), background
                )
            ],
        )
        for k in keys
    ]
    what = "with background" if background else "two flows only"
    measured = _measure_batched(groups, measure, f"ehstcp: Table 2, {what}")
    ratios: dict[tuple[int, str], list[float]] = {}
    for (ratio, label, _), value in measured.items():
        ratios.setdefault((ratio, label), []).append(value)
    return ratios


def _table2(report: Report, mode: Mode) -> None:
    ratios = _table2_ratios(mode, True, mode.seeds)
    report.data["table2"] = {f"rtt_ratio_{k[0]}_{k[1]}": v for k, v in ratios.items()}
    by_ratio = _table2_claims(report, ratios)
    _table2_figure(report, by_ratio)
    # The other reading: "two high speed flows with a different RTT are used", nothing else. With no
    # web traffic nothing is random: one seed.
    alone = _table2_ratios(mode, False, mode.seeds[:1])
    report.data["table2_two_flows_only"] = {f"rtt_ratio_{k[0]}_{k[1]}": v for k, v in alone.items()}
    scratch = Report("scratch", "", "", "", quick=False)
    _table2_claims(scratch, alone)
    main = [c for c in report.claims if c.source in ("Table 2", "Section 3, Table 2")]
    report.tables.append(
        Table(
            "Table 2 under both readings: throughput ratio of the 40 ms flow to the longer-RTT flow, 1 Gbps",
            ["RTT ratio, protocol", "paper", "with background (ours, mean)", "two flows only (ours)"],
            [
                [f"{r}, {label}", PAPER_RATIO[r][label], statistics.fmean(ratios[(r, label)]), alone[(r, label)][0]]
                for r in PAPER_RATIO
                for label in LABELS
            ],
        )
    )
    report.choices.append(
        Choice(
            "Table 2: traffic beside the two high-speed flows",
            "the section's background traffic (web, 25 small, 4 + 4 long-lived flows)",
            "section 3 describes the background once for all its experiments; Table 2's text names only the two "
            "high-speed flows, so both readings are run",
            "two flows only: "
            + "; ".join(
                f"{c.statement.split(' (')[0]}: **{o.verdict.value}** (with background **{c.verdict.value}**)"
                for c, o in zip(main, scratch.claims)
            ),
        )
    )


def _table2_claims(report: Report, ratios: dict[tuple[int, str], list[float]]) -> dict[int, list[Value]]:
    by_ratio = {}
    for ratio, paper in PAPER_RATIO.items():
        vals = []
        for label in LABELS:
            mean, spread = _mean_spread(ratios[(ratio, label)])
            vals.append(Value(label, paper[label], mean, "", spread))
        by_ratio[ratio] = vals
        report.add(
            "Table 2",
            f"throughput ratio of the 40 ms flow to the {40 * ratio} ms flow at 1 Gbps (RTT ratio {ratio})",
            vals,
            judge_values(vals, TOL_OTHER, "throughput ratios", BAND_OTHER),
        )

    def unfairness(v: Value) -> float:
        # A ratio below 1 (the long-RTT flow ahead) is as unfair as its inverse.
        return abs(math.log(v.ours)) if v.ours and math.isfinite(v.ours) else math.inf

    best = {r: min(vals, key=unfairness).label for r, vals in by_ratio.items()}
    beats_hstcp = all(
        unfairness(next(v for v in vals if v.label == "eHSTCP")) < unfairness(next(v for v in vals if v.label == "HSTCP"))
        for vals in by_ratio.values()
    )
    report.add(
        "Section 3, Table 2",
        "eHSTCP outperforms the other high-speed protocols in RTT fairness (ratio closest to 1 at both RTT ratios)",
        [],
        judge(
            all(b == "eHSTCP" for b in best.values()),
            beats_hstcp,
            "fairest: " + ", ".join(f"RTT ratio {r}: {b}" for r, b in best.items())
            + f"; eHSTCP fairer than HSTCP at both: {'yes' if beats_hstcp else 'no'} (in trend: fairer than HSTCP "
            "at both RTT ratios, the paper's eHSTCP being 11-41x fairer)",
        ),
    )
    return by_ratio


def _table2_figure(report: Report, by_ratio: dict[int, list[Value]]) -> None:
    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for ax, (ratio, vals) in zip(axes, by_ratio.items()):
            _paired_bars(ax, vals, log=True)
            ax.axhline(1, color="k", lw=0.6)
            ax.set_title(f"RTT ratio {ratio} (40 ms vs {40 * ratio} ms)")
            ax.set_ylabel("throughput ratio")
        axes[0].legend(fontsize=8)
        fig.suptitle("Table 2: throughput ratio of two high-speed flows, 1 Gbps")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    report.figures.append(Figure("table2.png", "Table 2: throughput ratio, paper vs ours (log scale; bars: seed min-max)", draw))


# Section 2's core claim, for which the paper shows no experiment: eHSTCP measures the forward
# queueing delay apart from the backward one, so congestion on the ACK path does not slow it. One
# high-speed flow, 4 long-lived NewReno flows in the reverse direction (their data shares the
# queue of our ACKs), with and without the correction (`backward_correction`), and without the
# reverse flows as the control. Nothing is random: one run each.
BACKWARD_RATE = 100e6
BACKWARD_VARIANTS = {
    "eHSTCP": ("ehstcp", {}),
    "eHSTCP without correction": ("ehstcp", {"backward_correction": 0.0}),
    "HSTCP": ("highspeed", {}),
}


def _backward_scenario(algorithm: str, params: dict[str, float], reverse: bool, length: float) -> Scenario:
    flows = [Flow(algorithm, class_="hs", params=params, tcp=Tcp(rcv_buf=HS_RCV_BUF))]
    if reverse:
        flows.append(Flow(class_="long-rev", direction="reverse", count=4))
    return Scenario(
        Dumbbell(rate=_rate(BACKWARD_RATE), rtt=BASE_RTT, queue=QUEUE),
        flows,
        tcp=Tcp(mss=MSS),
        duration=f"{length}s",
        trace=Trace(interval=f"{TRACE_INTERVAL * 1000:g}ms"),
    )


def _backward(report: Report, mode: Mode) -> None:
    keys = [(name, reverse) for name in BACKWARD_VARIANTS for reverse in (True, False)]
    results = run_many(
        [_backward_scenario(*BACKWARD_VARIANTS[n], r, mode.duration) for n, r in keys], progress="ehstcp: backward path"
    )
    edges = np.array([mode.warmup, mode.duration])
    mbps = {
        k: float(np.diff(_delivered_at(r, 0, edges))[0]) * 8 / (mode.duration - mode.warmup) / 1e6
        for k, r in zip(keys, results)
    }
    report.data["backward_path_mbps"] = {f"{n}, {'reverse traffic' if r else 'alone'}": v for (n, r), v in mbps.items()}
    report.tables.append(
        Table(
            f"Section 2: forward goodput (Mbps) of one high-speed flow, {_rate(BACKWARD_RATE)}, {BASE_RTT}, over "
            f"[{mode.warmup:g} s, {mode.duration:g} s]",
            ["protocol", "with 4 reverse NewReno flows", "alone"],
            [[n, mbps[(n, True)], mbps[(n, False)]] for n in BACKWARD_VARIANTS],
        )
    )
    corrected, uncorrected = mbps[("eHSTCP", True)], mbps[("eHSTCP without correction", True)]
    # Reverse traffic slows every TCP through its ACKs (lost, compressed, delayed), loss-based HSTCP
    # included; the claim is about eHSTCP's delay signal, so the baseline is HSTCP under the same
    # reverse traffic, not eHSTCP alone.
    hstcp = mbps[("HSTCP", True)]
    against_hstcp = corrected / hstcp
    better = direction(corrected, uncorrected, RESOLUTION)[0] is Direction.HIGHER
    report.add(
        "Section 2",
        "with congestion on the backward path eHSTCP, measuring the forward queueing delay apart, is not slowed by "
        "its delay signal: it beats the same flow without the correction and keeps up with loss-based HSTCP",
        [
            Value("eHSTCP / HSTCP, both with reverse traffic", None, against_hstcp),
            Value("eHSTCP with / without the correction", None, corrected / uncorrected if uncorrected else None),
            Value("eHSTCP with reverse traffic / alone", None, corrected / mbps[("eHSTCP", False)]),
            Value("HSTCP with reverse traffic / alone", None, hstcp / mbps[("HSTCP", False)]),
        ],
        judge(
            better and against_hstcp >= 0.9,
            better and against_hstcp >= 0.8,
            f"{corrected:.1f} Mbps with the correction, {uncorrected:.1f} without ({'higher' if better else 'not higher'} "
            f"by more than {RESOLUTION:.0%}); {against_hstcp:.2f} of HSTCP's {hstcp:.1f} Mbps under the same reverse "
            "traffic (reproduced from 0.9, in trend from 0.8). Reverse traffic slows every protocol through its ACKs "
            "(see the table), which is not what the claim is about; the paper gives no numbers",
        ),
    )


def _figure1(report: Report, shared: dict, mode: Mode) -> None:
    shares = {
        (rate, label): {
            t: statistics.fmean(shared[(rate, label, s)]["shares_percent"][t] for s in _seeds(mode, rate)) for t in FLOW_TYPES
        }
        for rate in mode.speeds_bps
        for label in LABELS
    }
    report.data["figure1_shares_percent"] = {f"{_rate(r)} {label}": v for (r, label), v in shares.items()}
    low, high = min(mode.speeds_bps), max(mode.speeds_bps)

    hs_low = {label: shares[(low, label)]["high-speed"] for label in LABELS}
    spread = max(hs_low.values()) - min(hs_low.values())
    report.add(
        "Figure 1",
        f"at {_rate(low)} all high-speed protocols show similar TCP friendliness (similar high-speed share)",
        [Value(f"high-speed share, {label}", None, v, "%") for label, v in hs_low.items()],
        judge(
            spread <= 5,
            spread <= 10,
            f"high-speed shares differ by {spread:.1f} percentage points (reproduced within 5, in trend within 10)",
        ),
    )

    def background(rate: float, label: str) -> float:
        return 100 - shares[(rate, label)]["high-speed"]

    falls = {}
    for label in LABELS:
        seq = [background(r, label) for r in sorted(mode.speeds_bps)]
        falls[label] = (seq[0] - seq[-1], all(b <= a for a, b in zip(seq, seq[1:])))
    report.add(
        "Figure 1",
        "as the bandwidth increases, the share of the background traffic is substantially reduced",
        [Value(f"change of the background share, {label}, {_rate(low)} -> {_rate(high)}", None, -falls[label][0], "pp") for label in LABELS],
        judge(
            all(drop >= 20 and mono for drop, mono in falls.values()),
            all(drop >= 10 for drop, _ in falls.values()),
            "; ".join(f"{label}: -{d:.1f} pp{'' if m else ' (not monotone)'}" for label, (d, m) in falls.items())
            + " (reproduced: falls by 20+ percentage points and never rises, for every protocol; in trend: falls by "
            "10+ points for every protocol)",
        ),
    )
    e, h = shares[(high, "eHSTCP")]["high-speed"], shares[(high, "HSTCP")]["high-speed"]
    seeds = _seeds(mode, high)
    found, how = direction(
        [shared[(high, "eHSTCP", x)]["shares_percent"]["high-speed"] for x in seeds],
        [shared[(high, "HSTCP", x)]["shares_percent"]["high-speed"] for x in seeds],
    )
    report.add(
        "Figure 1",
        f"at {_rate(high)} eHSTCP flows achieve slightly higher throughput than HSTCP flows",
        [Value("eHSTCP share", None, e, "%"), Value("HSTCP share", None, h, "%")],
        judge(
            found is Direction.HIGHER and e - h <= 10,
            False,
            f"eHSTCP {e:.1f} % vs HSTCP {h:.1f} %: {found.value} ({how}); slightly: by at most 10 percentage points",
        ),
    )

    def draw(path: Path) -> None:
        fig, axes = plt.subplots(1, len(LABELS), figsize=(13, 3.8), sharey=True)
        rates = sorted(mode.speeds_bps)
        x = np.arange(len(rates))
        for ax, label in zip(axes, LABELS):
            bottom = np.zeros(len(rates))
            for t in FLOW_TYPES:
                v = np.array([shares[(r, label)][t] for r in rates])
                ax.bar(x, v, 0.7, bottom=bottom, label=t)
                bottom += v
            ax.set_xticks(x, [_rate(r) for r in rates], rotation=30, fontsize=8)
            ax.set_title(label)
        axes[0].set_ylabel("share of forward goodput (%)")
        axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
        fig.suptitle("Figure 1: bandwidth share by flow type vs bottleneck speed")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    report.figures.append(Figure("figure1.png", "Bandwidth share of each flow type vs bottleneck speed (Figure 1)", draw))


def reproduce(quick: bool) -> Report:
    mode = QUICK if quick else FULL
    report = Report(
        name="ehstcp",
        title="eHSTCP: Enhanced Congestion Control Algorithm for High-Speed TCP",
        citation='Y.-S. Choi, S.-H. Lee, Y.-Z. Cho, "Enhanced Congestion Control Algorithm for High-Speed TCP", '
        "Kyungpook National University, section 3",
        setup=(
            f"Dumbbell with a {BASE_RTT} base RTT and a 1-BDP drop-tail queue each way, MSS {MSS}, SACK, "
            "timestamps, delayed ACKs. Two high-speed flows (`highspeed` = HSTCP, `scalable` = STCP, `bic`, "
            f"`ehstcp` with the paper's N* = 10 and 5 x RTTmax safety check) with a {HS_RCV_BUF} receive "
            "buffer. Background (NewReno): 25 small flows started 100 ms apart with a 64-segment receive "
            "window, 4 long-lived flows each way, web traffic (50 sessions, Jump Start's page and object "
            f"distributions, {PAGES_PER_SECOND} pages per session per second of run so that it lasts the "
            f"whole run). Table 1 and Figure 1: both high-speed flows 40 ms, {mode.duration:g} s, metrics "
            f"over [{mode.warmup:g} s, {mode.duration:g} s]; Figure 1 at "
            f"{', '.join(_rate(r) for r in mode.speeds_bps)} (seeds {', '.join(map(str, mode.figure1_seeds))} "
            f"below {_rate(TABLE1_RATE)}). Table 2: 1 Gbps, second flow 120 or 240 ms "
            f"(its own 20 or 50 ms access links), {mode.table2_duration:g} s, ratio over "
            f"[{mode.table2_warmup:g} s, {mode.table2_duration:g} s]. Seeds: "
            f"{', '.join(map(str, mode.seeds))} (the web traffic is random); ours = mean over seeds, "
            "(min-max) beside it."
        ),
        quick=quick,
    )
    shared = _run_shared(mode)
    _table1(report, shared, mode)
    ehstcp_backlog.run(report, shared, mode)
    ehstcp_queue.run(report, mode)
    ehstcp_setup.run(report, shared, mode)
    _table2(report, mode)
    _figure1(report, shared, mode)
    _backward(report, mode)
    report.out_of_scope(
        "Section 2",
        "measured RTTs at loss are often below RTTmax",
        "a motivation remark with no figure or number; not graded",
    )
    report.notes += [
        "Normalized standard deviation (the paper: \"the sample standard deviation normalized by the average "
        f"throughput of high-speed flows\", as a measure of stability): each high-speed flow's throughput in "
        f"{STABILITY_BIN:g} s intervals after the warm-up; sample standard deviation (n - 1) over mean, per flow; "
        "averaged over the two flows. The paper gives no sampling interval and does not say whether it is "
        "per flow or over the flows' sum.",
        "Utilization and loss ratio are those of the forward bottleneck over the window after the warm-up "
        "(bytes sent / capacity; drops / arrivals, all packets). The whole-run values, start-up included, are "
        "in results.json (`utilization_whole_run`, `loss_percent_whole_run`). The paper does not say whether "
        "it excludes a warm-up.",
        "Not in the paper, chosen here: the RTT of Table 1 and of the background flows (40 ms, Table 2's flow 1), "
        "the queue (1 BDP of the 40 ms path, drop-tail), the durations, the web parameters, the speeds of "
        "Figure 1 other than 20 Mbps and 2.5 Gbps, and where Table 2's extra delay sits (flow 2's access links). "
        "\"In both directions\" is read as 4 long-lived flows each way; the web and small flows go forward.",
        "Figure 1 is not in the text we have (only its caption and discussion), so it is checked against the "
        "three statements about it; our share is of the forward goodput (high-speed, long-lived, small, web).",
        "Background TCP is NewReno with SACK (the paper's ns-2 agent is not named).",
        "Why eHSTCP gets little bandwidth here (diagnosed on Figure 1's 1 Gbps, seed 1 run with a 10 ms trace): "
        "after the start-up overshoot and a timeout it re-entered congestion avoidance at 524 segments; at its "
        "next loss (2.6 s) the latest RTT sample was 155 ms (smoothed RTT 87 ms), so eq. 4 kept RTTmin/eRTT = "
        "0.27 of its window (141 segments), and a timeout in that recovery left ssthresh at 80 segments. From "
        "there its backlog N' stays above N* = 10 because the NewReno background keeps the drop-tail queue full, "
        "so it grows like Reno, one segment per RTT, while each long-lived NewReno flow holds about 1500 "
        "segments. The paper's eHSTCP utilization (0.99) suggests its flows did not end up in this state; it does "
        "not say whether the eRTT of eq. 4 is smoothed (docs/algorithms/ehstcp.md, interpretation 3, takes the "
        "latest sample).",
    ]
    return report
