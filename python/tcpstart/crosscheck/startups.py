"""`tcpstart crosscheck --linux --startups`: tcpstart's start-up algorithms as BPF congestion
controls on the kernel against the simulator, a section per algorithm (the cases and figures are
tcpstart.kernel.startups'; the notes on each miss, startups_notes.py).

The raw results hold only the kernel's runs: the simulator's side is deterministic and takes
seconds, so every report runs it again with the tcpstart it is written by.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any, Callable, Optional

COMPLETION_TOLERANCE = 0.05  # relative to the kernel runs' mean completion time
WINDOW_TOLERANCE = 0.10  # relative to their mean first-RTT window
TARGET = 3  # scenarios of 4 within both, per algorithm
NAME = "validation-linux-startups"
TITLES = {
    "jump-start": "Jump Start",
    "pacing-only": "Pacing-only",
    "swift-start": "Swift Start",
    "modified-swift-start": "Modified Swift Start",
    "ess": "Enhanced Slow-Start (ESS)",
    "highspeed": "HighSpeed TCP",
}


def selected(algos: Optional[str]) -> list[str]:
    from tcpstart.kernel.startups import CASES

    if not algos:
        return list(CASES)
    names = algos.split(",")
    unknown = [a for a in names if a not in CASES]
    if unknown:
        raise ValueError(f"--algos: {unknown[0]!r} has no kernel comparison; one of {', '.join(CASES)}")
    return names


def run(algorithms: list[str], runs: int, quick: bool, progress: Callable[[dict, dict], None]) -> dict[str, Any]:
    """The kernel's runs of each algorithm's scenarios (the first only, `quick`)."""
    from tcpstart.kernel.startups import CASES, compare_runs, kernel_runs, simulate

    cases = []
    for a in algorithms:
        for i, case in enumerate(CASES[a][:1] if quick else CASES[a]):
            load = [os.getloadavg()[0]]
            kernel = kernel_runs(case, runs)
            load.append(os.getloadavg()[0])
            raw = {"algorithm": a, "index": i, "kernel": kernel, "load": load}
            progress(raw, compare_runs(kernel, simulate(case)))
            cases.append(raw)
    return {"runs": runs, "kernel": platform.release(), "cases": cases}


def within(c: dict[str, Any]) -> bool:
    return abs(c["completion_diff"]) <= COMPLETION_TOLERANCE and abs(c["window_diff"]) <= WINDOW_TOLERANCE


def _span(kernel: list[dict[str, Any]], key: str, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    """The kernel runs' range of a figure ("-" where none has it: runs saved before it existed)."""
    vs = [k[key] / scale for k in kernel if k.get(key) is not None]
    if not vs:
        return "-"
    lo, hi = fmt.format(min(vs)), fmt.format(max(vs))
    return lo if lo == hi else f"{lo}-{hi}"


def _row(case: Any, kernel: list[dict[str, Any]], sim: dict[str, Any], c: dict[str, Any]) -> str:
    mss = 1448
    return (f"| {case.describe()} | {_span(kernel, 'completion')} | {sim['completion']:.3f} "
            f"| {c['completion_diff']:+.1%} | {c['fastest_diff']:+.1%} "
            f"| {_span(kernel, 'first_rtt_window', mss, '{:.0f}')} | {sim['first_rtt_window'] / mss:.0f} "
            f"| {c['window_diff']:+.1%} | {_span(kernel, 'second_rtt_window', mss, '{:.0f}')} "
            f"| {sim['second_rtt_window'] / mss:.0f} | {c['second_diff']:+.1%} "
            f"| {_span(kernel, 'second_rtt_cwnd', mss, '{:.0f}')} | {sim['second_rtt_cwnd'] / mss:.0f} "
            f"| {case.bdp_segments():.0f} "
            f"| {_span(kernel, 'retransmissions', 1, '{:.0f}')} | {sim['retransmissions']} "
            f"| {'yes' if within(c) else 'no'} |")


HEADER = ("| scenario | kernel completion (s) | simulator | diff (mean) | diff (fastest) "
          "| kernel first-RTT window (seg) | simulator | diff | kernel second-RTT window (seg) | simulator | diff "
          "| kernel second-RTT cwnd (seg) | simulator | path BDP (seg) "
          "| kernel retx | simulator retx | within |\n" + "|---" * 17 + "|")


def write(raw: dict[str, Any], md: Path, command: str) -> None:
    from tcpstart.crosscheck.startups_notes import INTRO, NOTES
    from tcpstart.kernel.startups import CASES, compare_runs, simulate

    loads = [x for r in raw["cases"] for x in r["load"]]
    algorithms = list(dict.fromkeys(r["algorithm"] for r in raw["cases"]))
    out = [
        "# Start-up algorithms: BPF on the kernel against the simulator",
        "",
        f"Each scenario runs {raw['runs']} times on the real kernel ({raw['kernel']}) through `tcpstart testbed`, "
        "with tcpstart's BPF version of the algorithm (docs/testbed.md, \"Start-up algorithms as BPF congestion "
        "controls\"), and once in tcpstart with the Linux profile (`tcp.profile = \"linux\"`, "
        "docs/linux-profile.md). Regenerate with:",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Machine load while the kernel ran (1-minute load average, before and after each scenario): "
        f"{min(loads):.1f} to {max(loads):.1f} on {os.cpu_count()} cores shared with other work.",
        "",
        f"Target (per algorithm): completion time within {COMPLETION_TOLERANCE:.0%} of the kernel runs' mean and "
        f"the first-RTT window within {WINDOW_TOLERANCE:.0%} on at least {TARGET} of its 4 scenarios; every miss "
        "explained. The first-RTT window is what the sender sent before the first ACK of data arrived, the "
        "second-RTT window the most bytes in flight in the round trip after it (where the paced start-ups pace "
        "their estimate), the second-RTT cwnd the largest window in that round trip (Swift Start's and Modified "
        "Swift Start's packet-pair estimate, which the receiver's window may keep from being sent; Swift Start "
        "divides its estimate by gamma, 4 by default), next to the path's bandwidth-delay product (rate x base RTT). "
        "\"diff (fastest)\" compares with the fastest kernel run, the least disturbed by the shared machine "
        "(what the CI tests assert).",
        "",
        *INTRO,
        "",
        "## Summary",
        "",
        "| algorithm | within targets, Linux profile | RFC model with Linux's knob values | met |",
        "|---|---|---|---|",
    ]
    sections: list[str] = []
    for a in algorithms:
        rows, hits, rfc_hits = [], 0, 0
        misses = []
        for r in (r for r in raw["cases"] if r["algorithm"] == a):
            case = CASES[a][r["index"]]
            sim = simulate(case)
            c = compare_runs(r["kernel"], sim)
            hits += within(c)
            rfc_hits += within(compare_runs(r["kernel"], simulate(case, "rfc")))
            rows.append(_row(case, r["kernel"], sim, c))
            if not within(c):
                note = NOTES.get((a, r["index"]), "not traced yet")
                misses.append(f"- **{case.describe()}** ({c['completion_diff']:+.1%}): {note}")
        n = len(rows)
        out.append(f"| [{a}](#{a}) | {hits}/{n} | {rfc_hits}/{n} | {'yes' if hits >= min(TARGET, n) else 'no'} |")
        sections += [f"## {a}", "", f"{TITLES.get(a, a)}: within targets in {hits} of {n} scenarios.", "",
                     HEADER, *rows, ""]
        if misses:
            sections += ["Misses:", "", *misses, ""]
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text("\n".join(out + [""] + sections))


def run_command(args: argparse.Namespace) -> int:
    """`tcpstart crosscheck --linux --startups`."""
    from tcpstart._files import check_output_folder
    from tcpstart.crosscheck.command import _publish
    from tcpstart.kernel.startups import CASES

    if args.cases:
        raise ValueError("--cases: the start-up section is chosen by algorithm; use --algos (e.g. --algos jump-start,ess)")
    if args.runs < 2:
        raise ValueError(f"--runs: at least 2 kernel runs are needed for a spread, got {args.runs}")
    algorithms = selected(args.algos)
    out = Path(args.out if args.out != "tcpstart-out/crosscheck" else "tcpstart-out/crosscheck-linux-startups")
    check_output_folder(out)
    if args.from_results:
        raw = json.loads(Path(args.from_results).read_text())
        raw["cases"] = [r for r in raw["cases"] if r["algorithm"] in algorithms]
    else:
        from tcpstart.kernel import bpfcc, requirements

        missing = requirements() or bpfcc.missing()
        if missing:
            print(f"tcpstart: error: {missing}", file=sys.stderr)
            return 2

        def progress(r: dict, c: dict) -> None:
            case = CASES[r["algorithm"]][r["index"]]
            print(f"{r['algorithm']:>20} {case.describe()}: completion {c['completion_diff']:+.1%} "
                  f"(fastest run {c['fastest_diff']:+.1%}), first-RTT window {c['window_diff']:+.1%}", flush=True)

        raw = run(algorithms, args.runs, args.quick, progress)
    command = "tcpstart crosscheck --linux --startups" + (f" --algos {args.algos}" if args.algos else "") + (
        " --quick" if args.quick else "") + (f" --runs {args.runs}" if args.runs != 3 else "") + (
        f" --from-results {Path(args.from_results).name}" if args.from_results else "") + (
        f" --docs {args.docs}" if args.docs else "")
    def save(folder: Path) -> None:
        (folder / "startups.json").write_text(json.dumps(raw, indent=1))

    _publish(out, args.docs, NAME, save, lambda md, _img: write(raw, md, command))
    return 0

