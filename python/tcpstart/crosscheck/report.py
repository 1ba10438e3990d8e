"""Runs the matrix and writes the validation report (markdown tables and overlay plots)."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Callable, Iterable, Optional

from tcpstart.crosscheck.matrix import ALGORITHMS, MATRIX, MSS, NS3_WIRE, WIRE, Algorithm, Case
from tcpstart.crosscheck.notes import DIFFERENCES, FIXES, KNOBS, NOTES, STALE
from tcpstart.crosscheck.ns3build import ns3_version
from tcpstart.crosscheck.runner import Comparison, compare, horizon, total_cwnd

TOLERANCE = 0.05


def available_algorithms(algos: Iterable[Algorithm]) -> list[Algorithm]:
    """The algorithms tcpstart has registered (others are being written on other branches)."""
    from tcpstart import algorithms

    names = {a["name"] for a in algorithms()}
    return [a for a in algos if a.tcpstart in names]


def run_matrix(
    cases: list[Case], algos: list[Algorithm], progress: Optional[Callable[[Comparison], None]] = None
) -> list[Comparison]:
    cache: dict = {}
    out = []
    for algo in algos:
        for case in cases:
            c = compare(case, algo, cache)
            out.append(c)
            if progress:
                progress(c)
    return out


def classify(c: Comparison) -> str:
    """Which stage of the run the two simulators part at, read from the counters alone.

    Used for cases nobody has traced by hand (NOTES); it says where to look, not why.
    """
    a, b = c.tcpstart, c.ns3
    if b.timeouts > 50 or a.timeouts > 50:
        return "D5 (timeouts in the thousands: the one-segment timeout loop)"
    # The window at the first loss says whether start-up agreed; its time can shift by the
    # detection details (D1) without the start-up differing.
    same_loss = (
        a.first_loss_cwnd is not None
        and b.first_loss_cwnd is not None
        and abs(a.first_loss_cwnd - b.first_loss_cwnd) <= max(0.05 * b.first_loss_cwnd, 2 * MSS)
    )
    if not same_loss:
        return (
            f"start-up differs before the first loss ({_s(a.first_loss_time)} s / {_kb(a.first_loss_cwnd)} KB vs "
            f"{_s(b.first_loss_time)} s / {_kb(b.first_loss_cwnd)} KB){' - D7' if c.algo.tcpstart == 'cubic' else ''}"
        )
    if (a.fast_recoveries, a.timeouts) != (b.fast_recoveries, b.timeouts):
        # ns-3's BIC also grows differently after a loss (D9).
        also = ", D9" if c.algo.tcpstart == "bic" else ""
        return f"same first loss, then loss recovery diverges (recoveries/timeouts differ): D3/D4/D6{also}, not traced"
    return "same first loss and as many recoveries and timeouts; the windows part within recoveries (D2/D3), not traced"


def verdict(c: Comparison) -> str:
    """"ok" within the tolerance, else the named differences that explain it.

    Hand-written notes (traced cases) come first; other cases get the automatic classification,
    marked "auto".
    """
    within = c.worst() <= TOLERANCE
    note = NOTES.get((c.algo.label, c.case.name))
    stale = STALE.get(c.case.name)
    if stale:
        note = f"{stale}. Traced before: {note}" if note else stale if within else f"{stale}; auto: {classify(c)}"
    if within:
        return "ok" + (f" ({note})" if note else "")
    return note or f"auto: {classify(c)}"


def pct(d: Optional[float]) -> str:
    return "-" if d is None else f"{d * 100:+.1f}%"


def _s(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"


def _pair(a, b, fmt: Callable = str) -> str:
    return f"{fmt(a)} / {fmt(b)}"


def _kb(v: Optional[int]) -> str:
    return "-" if v is None else f"{v / 1e3:.1f}"


def algorithm_table(rows: list[Comparison]) -> list[str]:
    lines = [
        "| case | completion s (Δ) | goodput Mbps (Δ) | drops | retx | recoveries / timeouts | first loss s | cwnd at first loss KB | cwnd distance | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        a, b = c.tcpstart, c.ns3
        lines.append(
            f"| {c.case.name} | {_pair(a.completion, b.completion, _s)} ({pct(c.completion_diff)}) "
            f"| {_pair(a.goodput_bps / 1e6, b.goodput_bps / 1e6, lambda v: f'{v:.2f}')} ({pct(c.goodput_diff)}) "
            f"| {a.drops} / {b.drops} | {a.retransmissions} / {b.retransmissions} "
            f"| {a.fast_recoveries}, {a.timeouts} / {b.fast_recoveries}, {b.timeouts} "
            f"| {_pair(a.first_loss_time, b.first_loss_time, _s)} | {_pair(a.first_loss_cwnd, b.first_loss_cwnd, _kb)} "
            f"| {c.cwnd_distance:.3f} | {verdict(c)} |"
        )
    return lines


def plot_algorithm(rows: list[Comparison], path: Path) -> None:
    """One panel per case: the total cwnd of both simulators over the time both cover."""
    import numpy as np
    from matplotlib.figure import Figure

    cols = 4
    nrows = (len(rows) + cols - 1) // cols
    fig = Figure(figsize=(16, 3.2 * nrows), layout="constrained")
    for k, c in enumerate(rows):
        ax = fig.add_subplot(nrows, cols, k + 1)
        end = horizon(c.case, c.tcpstart, c.ns3)
        grid = np.linspace(0, end, 1500)
        for m, label, style in ((c.ns3, "ns-3", dict(color="tab:orange", lw=2.2, alpha=0.6)),
                                (c.tcpstart, "tcpstart", dict(color="tab:blue", lw=0.9))):
            ax.step(grid, total_cwnd(m.curves, grid) / MSS, where="post", label=label, **style)
        ax.set_title(f"{c.case.name}: {c.case.describe()}", fontsize=7.5)
        ax.set_xlabel("time (s)", fontsize=7)
        ax.set_ylabel("cwnd (segments)", fontsize=7)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.text(0.98, 0.96, f"dist {c.cwnd_distance:.2f}", transform=ax.transAxes, ha="right", va="top", fontsize=7)
        if k == 0:
            ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{rows[0].algo.label}: tcpstart {rows[0].algo.tcpstart} {rows[0].algo.params or ''} vs ns-3 {rows[0].algo.ns3}")
    fig.savefig(path, dpi=80)


def slug(label: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in label.lower()).strip("-").replace("--", "-")


def write_report(results: list[Comparison], md_path: Path, img_dir: Path, command: str) -> None:
    img_dir.mkdir(parents=True, exist_ok=True)
    cases = sorted({c.case for c in results}, key=lambda c: c.name)
    algos = list({c.algo.label: c.algo for c in results}.values())
    # Image links relative to the page when the images sit below it (docs/validation/*.png).
    try:
        rel_img = img_dir.resolve().relative_to(md_path.parent.resolve())
    except ValueError:
        rel_img = img_dir.resolve()
    out = [
        "# Cross-check against ns-3",
        "",
        f"tcpstart and ns-3 {ns3_version()} run the same dumbbell scenarios, configured alike, and their "
        "completion times, goodput, drops, retransmissions, first loss and cwnd curves are compared. "
        f"Regenerate this page (and `{rel_img}/*.png`) with:",
        "",
        "```sh",
        "pip install ns3==3.44.post0   # ns-3's shared libraries and headers; a C++ compiler is needed too",
        command,
        "```",
        "",
        "The ns-3 side is one C++ program, `validation/ns3/dumbbell.cc`, compiled against the pip "
        "package on first use (`python -m tcpstart.crosscheck.ns3build`); the driver is "
        "`python/tcpstart/crosscheck/`. The test suite runs a subset (`tests/test_crosscheck.py`).",
        "",
        "## Summary",
        "",
        f"Target: completion time and goodput within {TOLERANCE:.0%} of ns-3. Worst case per algorithm "
        "(largest of the completion and goodput differences, over all cases):",
        "",
        "| algorithm | tcpstart | ns-3 | cases within 5% | worst case | worst Δ | worst Δ without D5 | median cwnd distance |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for algo in algos:
        rows = [c for c in results if c.algo.label == algo.label]
        worst = max(rows, key=lambda c: c.worst())
        within = sum(c.worst() <= TOLERANCE for c in rows)
        dists = sorted(c.cwnd_distance for c in rows)
        # D5 is ns-3 stuck at one segment per timeout: no comparison of the algorithms.
        sane = [c for c in rows if "D5" not in verdict(c)] or rows
        worst_sane = max(sane, key=lambda c: c.worst())
        params = ", ".join(f"{k}={v:g}" for k, v in algo.params.items())
        out.append(
            f"| {algo.label} | `{algo.tcpstart}`{f' ({params})' if params else ''} | `{algo.ns3}` | {within}/{len(rows)} "
            f"| {worst.case.name} | {worst.worst() * 100:.1f}% | {worst_sane.worst() * 100:.1f}% ({worst_sane.case.name}) "
            f"| {dists[len(dists) // 2]:.3f} |"
        )
    out += [
        "",
        "A case outside the tolerance carries either an explanation traced through both runs' "
        f"packet logs, naming the model differences D1-D{len(DIFFERENCES)} below, or - marked *auto* - the stage at "
        "which the two runs part, read from the counters (start-up before the first loss, or loss "
        "recovery after the same first loss); those were not traced one by one.",
        "",
        "## tcpstart bugs the cross-check found (fixed, each with a regression test)",
        "",
        *[f"- {fix}" for fix in FIXES],
        "",
        "## Scenarios",
        "",
        "| case | bottleneck | base RTT | queue | flows | transfer | ACKs |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        flows = f"{c.flows}" + (f", start every {c.stagger:g} s" if c.flows > 1 and c.stagger else "")
        out.append(
            f"| {c.name} | {c.rate_mbps:g} Mbps | {c.rtt_ms:g} ms | {c.queue_bdp:g} BDP = {c.queue_packets} pkt "
            f"| {flows} | {f'{c.size / 1e6:g} MB each' if c.size else f'unlimited, {c.duration:g} s'} "
            f"| {f'delayed (2 segments, {c.delack_timeout_ms:g} ms)' if c.delayed_ack else 'one per segment'} |"
        )
    out += ["", "## Configuration: every knob, both sides", "", "| knob | tcpstart | ns-3 | note |", "|---|---|---|---|"]
    out += [f"| {k} | {t} | {n} | {note} |" for k, t, n, note in KNOBS]
    out += [
        "",
        f"A full data segment is {WIRE} bytes on a tcpstart link and {NS3_WIRE} on an ns-3 point-to-point "
        f"link; ns-3's link rates are multiplied by {NS3_WIRE}/{WIRE} so that both serialise a data "
        "segment in the same time. ACKs differ by the PPP header and by the SACK option layout "
        "(tcpstart pads it with two NOPs as Linux does, ns-3 packs it after the timestamp option); the "
        "reverse path is never the bottleneck here, so those bytes only shift ACK arrival by nanoseconds.",
        "",
        "## Metrics",
        "",
        "- **completion**: from the first SYN until the last flow has its last byte acknowledged.",
        "- **goodput**: all acknowledged bytes x 8 over the completion time (long flows: over the run).",
        "- **drops**, **retx**: packets of the flows dropped anywhere; data segments sent again.",
        "- **recoveries / timeouts**: fast recoveries entered and retransmission timeouts, summed over flows.",
        "- **first loss**: the first congestion response of any flow (fast retransmit or timeout), from "
        "that flow's SYN, and the cwnd just before it.",
        "- **cwnd distance**: the flows' cwnd summed, sampled on 2000 points over the time both runs "
        "cover; mean |tcpstart - ns-3| / mean of both (0 = identical curves, 0.1 = 10% apart on average). "
        "Times where a window is unbounded (ns-3's BBR, D8) are left out of the distance and the plots.",
        "",
        "Cells read `tcpstart / ns-3`; Δ = (tcpstart - ns-3) / ns-3.",
        "",
        "## Model differences",
        "",
    ]
    for code, (title, text) in DIFFERENCES.items():
        out += [f"**{code}. {title}.** {text}", ""]
    out += ["## Results", ""]
    for algo in algos:
        rows = [c for c in results if c.algo.label == algo.label]
        img = img_dir / f"{slug(algo.label)}.png"
        plot_algorithm(rows, img)
        params = ", ".join(f"{k}={v:g}" for k, v in algo.params.items())
        out += [
            f"### {algo.label}: `{algo.tcpstart}`{f' ({params})' if params else ''} vs ns-3 `{algo.ns3}`",
            "",
            *([algo.note + ".", ""] if algo.note else []),
            *algorithm_table(rows),
            "",
            f"![{algo.label} cwnd, tcpstart over ns-3]({rel_img / img.name})",
            "",
        ]
    out += [
        "## Timing ns-3 on the same scenario",
        "",
        "`python -m tcpstart.crosscheck.ns3build` prints the path of the compiled program; "
        "`tcpstart.crosscheck.matrix.ns3_args(case, algorithm)` gives its arguments for a `Case`, and "
        "`--traceInterval=-1` turns the cwnd trace off. Its JSON output has `wall_time_s` (whole "
        "program) and `run_wall_time_s` (`Simulator::Run` only), beside the per-flow results.",
        "",
    ]
    ts_wall = sum(c.tcpstart.wall_time for c in results)
    # Two tcpstart variants checked against one ns-3 algorithm share its run.
    ns_runs = {(c.case.name, c.algo.ns3, tuple(c.algo.ns3_attributes)): c.ns3.wall_time for c in results}
    out += [
        "## Wall time",
        "",
        f"tcpstart {ts_wall:.1f} s for {len(results)} runs; ns-3 {sum(ns_runs.values()):.1f} s for "
        f"{len(ns_runs)} runs (wall clock, {platform.machine()}, varies with machine load).",
        "",
    ]
    md_path.write_text("\n".join(out))


def save_raw(results: list[Comparison], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "crosscheck.json", "w") as f:
        json.dump([c.to_json() for c in results], f)


def load_raw(path: Path) -> list[Comparison]:
    """The comparisons save_raw() wrote, to redo the report without running anything."""
    from tcpstart.crosscheck.runner import Metrics

    with open(path) as f:
        rows = json.load(f)
    return [
        Comparison(Case(**r["case"]), Algorithm(**r["algorithm"]), Metrics(**r["tcpstart"]), Metrics(**r["ns3"]))
        for r in rows
    ]


def select(names: Optional[str], universe: list, key: Callable) -> list:
    if not names:
        return list(universe)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    index = {key(x).lower(): x for x in universe}
    missing = [n for n in wanted if n.lower() not in index]
    if missing:
        raise ValueError(f"unknown {missing[0]!r}; choose from {', '.join(key(x) for x in universe)}")
    return [index[n.lower()] for n in wanted]


def default_cases(quick: bool) -> list[Case]:
    from tcpstart.crosscheck.matrix import QUICK

    return [c for c in MATRIX if not quick or c.name in QUICK]


def default_algorithms(quick: bool) -> list[Algorithm]:
    algos = available_algorithms(ALGORITHMS)
    return algos[:2] if quick else algos
