"""eHSTCP's Table 1 again with the backlog N' of eq. 3 filtered per RTT.

N' decides, on every ACK, between HighSpeed's increase (N' < N*) and Reno's, and ends the safety
check; the paper gives its formula, not how often or from which samples it is computed. Our
default reads every ACK's own sample (docs/algorithms/ehstcp.md, interpretation 12): at 2.5 Gbps
0.2 ms of transient queueing is already N* = 10 segments, so one delayed ACK or burst tips the
flow into Reno's growth. The alternative (`backlog_filter = 1`) is Vegas's practice: once per RTT,
from the round's sample with the least forward queueing. Table 1's claims are graded again with
eHSTCP's runs under that reading; the other protocols' runs are the report's own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tcpstart.reproduce import ehstcp
from tcpstart.reproduce.report import Choice, Figure, Report, Verdict, save_figure
from tcpstart.results import Result
from tcpstart.scenario import Scenario

FILTERED = {"backlog_filter": 1.0}


def table1_scenario(seed: int, mode: Any, length: float, params: dict[str, float]) -> Scenario:
    """Table 1's scenario with `params` for the two eHSTCP flows (the background is NewReno)."""
    sc = ehstcp._scenario(ehstcp.TABLE1_RATE, "ehstcp", seed, mode.duration, length)
    flows = [dataclasses.replace(f, params={**f.params, **params}) if f.algorithm == "ehstcp" else f for f in sc.flows]
    return dataclasses.replace(sc, flows=flows)


def _phase_share(result: Result, warmup: float) -> dict[str, float]:
    """Share of the two high-speed flows' trace samples after the warm-up in each mode."""
    trace = result.flows.filter((result.flows["flow"] <= 1) & (result.flows["t"] >= warmup))
    phases = trace["phase"].value_counts()
    return {str(p): int(n) / max(trace.height, 1) for p, n in zip(phases["phase"], phases["count"])}


def measure(mode: Any) -> tuple[dict[int, dict[str, Any]], dict[int, dict[str, float]]]:
    """Per Table 1 seed: with the filter, the metrics Table 1 grades and the modes' shares; without
    it (the report's runs again, for their traces), the modes' shares. Measured in batches like
    Table 1's own runs (each result carries every web object)."""

    def reduce(key: tuple[str, int], results: list[Result]) -> dict[str, Any]:
        if key[0] == "per ACK":
            return _phase_share(results[0], mode.warmup)
        full, warm = results
        m = ehstcp._window(full, warm, mode.duration, mode.warmup)
        m["norm_std"] = ehstcp.normalized_std(full, (0, 1), mode.warmup, mode.duration, ehstcp.STABILITY_BIN)
        m["phase_share"] = _phase_share(full, mode.warmup)
        # Table 1's throughput figure draws the first seed's series (drawn in the scratch report only).
        m["hs_throughput"] = ehstcp._hs_series(full, mode) if key[1] == mode.seeds[0] else None
        return m

    groups = [
        (("per RTT", s), [table1_scenario(s, mode, length, FILTERED) for length in (mode.duration, mode.warmup)])
        for s in mode.seeds
    ] + [(("per ACK", s), [table1_scenario(s, mode, mode.duration, {})]) for s in mode.seeds]
    out = ehstcp._measure_batched(groups, reduce, "ehstcp: Table 1, backlog per RTT and per ACK")
    return {s: out[("per RTT", s)] for s in mode.seeds}, {s: out[("per ACK", s)] for s in mode.seeds}


def run(report: Report, shared: dict, mode: Any) -> None:
    filtered, raw_phases = measure(mode)
    report.data["table1_backlog_per_rtt"] = {
        str(s): {k: v for k, v in m.items() if k != "goodput_bps"} for s, m in filtered.items()
    }
    # Table 1's claims graded again, eHSTCP's runs replaced by the filtered ones.
    swapped = dict(shared)
    for seed, m in filtered.items():
        swapped[(ehstcp.TABLE1_RATE, "eHSTCP", seed)] = m
    scratch = Report("scratch", "", "", "", quick=mode is ehstcp.QUICK)
    ehstcp._table1(scratch, swapped, mode)
    ours = {(c.source, c.statement): c.verdict for c in report.claims if c.source.endswith("Table 1")}
    changed = [
        f"'{c.statement}': {ours[(c.source, c.statement)].value} -> {c.verdict.value}"
        for c in scratch.claims
        if (c.source, c.statement) in ours and c.verdict is not ours[(c.source, c.statement)]
    ]
    tally = [c.verdict for c in scratch.claims if c.verdict.counted]
    util = {s: m["utilization"] for s, m in filtered.items()}
    raw = {s: shared[(ehstcp.TABLE1_RATE, "eHSTCP", s)]["utilization"] for s in mode.seeds}
    hstcp = {s: shared[(ehstcp.TABLE1_RATE, "HSTCP", s)]["utilization"] for s in mode.seeds}
    reno_share = [m["phase_share"].get("reno_increase", 0.0) for m in filtered.values()]
    raw_reno = [p.get("reno_increase", 0.0) for p in raw_phases.values()]

    def mean(xs: dict[int, float]) -> float:
        return sum(xs.values()) / len(xs)

    report.choices.append(
        Choice(
            "Backlog N' of eq. 3: raw per-ACK samples or a per-RTT minimum",
            "per ACK, raw samples (`backlog_filter = 0`; docs/algorithms/ehstcp.md, interpretation 12)",
            "the paper gives the formula, not the sampling; it uses the delay 'as a binary feedback signal' and "
            "names no filter",
            f"per RTT, the round's least forward queueing (`backlog_filter = 1`, Vegas practice): eHSTCP's Table 1 "
            f"utilization {mean(util):.3f} (seeds {', '.join(f'{x:.3f}' for x in util.values())}) instead of "
            f"{mean(raw):.3f}, against HSTCP's {mean(hstcp):.3f} and the paper's 0.99; loss "
            f"{sum(m['loss_percent'] for m in filtered.values()) / len(filtered):.4f} %; after the warm-up the flows "
            f"spend {min(reno_share):.0%}-{max(reno_share):.0%} of the trace in Reno's increase (per ACK: "
            f"{min(raw_reno):.0%}-{max(raw_reno):.0%}). Table 1's claims "
            f"under this reading: {tally.count(Verdict.REPRODUCED)} reproduced / {tally.count(Verdict.TREND)} trend / "
            f"{tally.count(Verdict.NOT)} not; "
            + ("verdicts that change: " + "; ".join(changed) if changed else "no verdict changes"),
        )
    )
    report.figures.append(
        Figure("backlog.png", "eHSTCP's Table 1 with the backlog read per ACK and per RTT", figure(mode.seeds, hstcp, raw, util, {s: m["phase_share"] for s, m in filtered.items()}, raw_phases))
    )


def figure(
    seeds: tuple[int, ...],
    hstcp: dict[int, float],
    raw: dict[int, float],
    util: dict[int, float],
    phases: dict[int, dict[str, float]],
    raw_phases: dict[int, dict[str, float]],
) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
        width = 0.27
        for j, (label, xs) in enumerate((("HSTCP", hstcp), ("eHSTCP, N' per ACK", raw), ("eHSTCP, N' per RTT", util))):
            left.bar([i + (j - 1) * width for i in range(len(seeds))], [xs[s] for s in seeds], width, label=label)
        left.axhline(0.99, color="tab:green", ls="--", lw=1, label="paper: eHSTCP 0.99")
        left.axhline(0.92, color="tab:blue", ls=":", lw=1, label="paper: HSTCP 0.92")
        left.set_xticks(range(len(seeds)), [f"seed {s}" for s in seeds])
        left.set_ylim(0.5, 1.02)
        left.set_ylabel("bottleneck utilization after the warm-up")
        left.set_title("(a) Table 1's utilization, 2.5 Gbps", fontsize=10)
        left.legend(fontsize=7, loc="lower right")
        modes = ("hstcp_increase", "reno_increase", "safety_check", "recovery")
        colors = ("tab:green", "tab:red", "tab:orange", "tab:grey")
        columns = [(f"s{s}\nper ACK", raw_phases[s]) for s in seeds] + [(f"s{s}\nper RTT", phases[s]) for s in seeds]
        bottom = [0.0] * len(columns)
        for name, color in zip(modes, colors):
            share = [100 * c.get(name, 0.0) for _, c in columns]
            right.bar(range(len(columns)), share, 0.6, bottom=bottom, label=name, color=color)
            bottom = [b + x for b, x in zip(bottom, share)]
        right.set_xticks(range(len(columns)), [label for label, _ in columns], fontsize=8)
        right.set_ylabel("share of trace samples after the warm-up (%)")
        right.set_ylim(0, 100)
        right.set_title("(b) eHSTCP's mode, both flows (s = seed)", fontsize=10)
        right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        save_figure(fig, path, "eHSTCP with the backlog of eq. 3 filtered per RTT")

    return draw
