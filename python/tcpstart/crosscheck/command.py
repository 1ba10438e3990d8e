"""`tcpstart crosscheck`: runs the matrix in tcpstart and ns-3 (or, with --linux, on the kernel) and
writes the validation report.

Kept apart from tcpstart/cli.py (which only registers it) so that the CLI does not import numpy,
matplotlib or the ns-3 build machinery unless this command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Optional

from tcpstart._files import atomic_directory, check_output_folder


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("crosscheck", help="run the scenario matrix in tcpstart and in ns-3 and compare them")
    p.add_argument("--quick", action="store_true", help="a few cases and NewReno/LinuxReno only (what the tests run)")
    p.add_argument("--cases", help="comma-separated case names, e.g. A,B (default: all, or the quick set)")
    p.add_argument("--algos", help="comma-separated algorithm labels, e.g. NewReno,CUBIC (default: all available)")
    p.add_argument("--out", metavar="DIR", default="tcpstart-out/crosscheck",
                   help="raw results and a copy of the report (default: %(default)s)")
    p.add_argument("--from-results", metavar="JSON",
                   help="redo the report from a crosscheck.json of an earlier run instead of running")
    p.add_argument("--docs", metavar="DIR",
                   help="also write validation.md and validation/*.png here (the repository's report: --docs docs)")
    p.add_argument("--linux", action="store_true",
                   help="compare with the Linux kernel (tcpstart testbed, root) instead of ns-3: writes validation-linux.md")
    p.add_argument("--runs", type=int, default=3, help="--linux: kernel runs per scenario (default: %(default)s)")
    p.add_argument("--startups", action="store_true",
                   help="--linux: tcpstart's start-up algorithms as BPF on the kernel against the simulator, "
                        "a section per algorithm (--algos picks them): writes validation-linux-startups.md")
    p.add_argument("--resimulate", action="store_true",
                   help="--linux --from-results: keep the kernel's runs, run tcpstart's side again")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    if args.resimulate and not (args.linux and args.from_results):
        raise ValueError("--resimulate: needs --linux and --from-results (the kernel's runs to keep)")
    if args.startups and not args.linux:
        raise ValueError("--startups: needs --linux (it compares with the kernel)")
    if args.linux and args.startups:
        from tcpstart.crosscheck.startups import run_command as run_startups

        return run_startups(args)
    if args.linux:
        return run_linux(args)
    from tcpstart.crosscheck.matrix import ALGORITHMS, MATRIX
    from tcpstart.crosscheck.ns3build import Ns3Unavailable, build
    from tcpstart.crosscheck.report import (
        available_algorithms,
        default_algorithms,
        default_cases,
        load_raw,
        pct,
        save_raw,
        select,
        verdict,
        write_report,
    )

    cases = select(args.cases, MATRIX, lambda c: c.name) if args.cases else default_cases(args.quick)
    algos = (
        available_algorithms(select(args.algos, ALGORITHMS, lambda a: a.label))
        if args.algos
        else default_algorithms(args.quick)
    )
    if not algos:
        raise ValueError("--algos: none of these algorithms is registered in tcpstart yet")
    try:
        if not args.from_results:
            build()
    except Ns3Unavailable as e:
        print(f"tcpstart: error: {e}", file=sys.stderr)
        return 2

    def progress(c) -> None:
        print(
            f"{c.algo.label:>18} {c.case.name}: completion {pct(c.completion_diff)}, goodput "
            f"{pct(c.goodput_diff)}, cwnd distance {c.cwnd_distance:.3f} -> {verdict(c)}",
            flush=True,
        )

    from tcpstart.crosscheck.report import run_matrix

    out = Path(args.out)
    check_output_folder(out)
    results = load_raw(Path(args.from_results)) if args.from_results else run_matrix(cases, algos, progress)
    command = "tcpstart crosscheck" + (" --quick" if args.quick else "") + (f" --docs {args.docs}" if args.docs else "")
    _publish(out, args.docs, "validation", lambda d: save_raw(results, d),
             lambda md, img: write_report(results, md, img, command))
    return 0


def _publish(out: Path, docs: Optional[str], name: str, save: Callable[[Path], None],
             write: Callable[[Path, Path], None]) -> None:
    """Raw results and the report (NAME.md, NAME/*.png) into `out`, whole or not at all; the
    report also into `docs` when given."""
    with atomic_directory(out) as tmp:
        save(tmp)
        write(tmp / f"{name}.md", tmp / name)
    if docs:
        write(Path(docs) / f"{name}.md", Path(docs) / name)
        print(f"wrote {Path(docs) / f'{name}.md'}")
    print(f"raw results and report in {out}")


def run_linux(args: argparse.Namespace) -> int:
    from tcpstart.crosscheck.linux import MATRIX, QUICK, compare, resimulate, run_case
    from tcpstart.crosscheck.linux_report import load_raw, save_raw, write
    from tcpstart.crosscheck.report import select

    if args.algos:
        raise ValueError("--algos: the Linux cross-check's cases each name their algorithm; choose with --cases")
    if args.runs < 2:
        raise ValueError(f"--runs: at least 2 kernel runs are needed for a spread, got {args.runs}")
    names = args.cases.split(",") if args.cases else (QUICK if args.quick else None)
    cases = select(",".join(names), MATRIX, lambda c: c.name) if names else MATRIX
    out = Path(args.out if args.out != "tcpstart-out/crosscheck" else "tcpstart-out/crosscheck-linux")
    check_output_folder(out)
    if args.from_results:
        results = load_raw(Path(args.from_results))
        if args.cases:
            results = [r for r in results if r["case"]["name"] in names]
        if args.resimulate:
            results = [resimulate(r) for r in results]
            for r in results:
                _case_line(r["case"]["name"], compare(r))
    else:
        from tcpstart.kernel import requirements

        missing = requirements()
        if missing:
            print(f"tcpstart: error: {missing}", file=sys.stderr)
            return 2
        results = []
        for case in cases:
            r = run_case(case, args.runs)
            _case_line(f"{case.name} {case.describe()}", compare(r))
            results.append(r)
    # Saved results carry their own number of kernel runs: the command that makes them again.
    runs = max(len(r["kernel"]) for r in results) if args.from_results and results else args.runs
    command = "tcpstart crosscheck --linux" + (" --quick" if args.quick else "") + (
        f" --runs {runs}" if runs != 3 else "") + (
        f" --from-results {Path(args.from_results).name} --resimulate" if args.resimulate else "") + (
        f" --docs {args.docs}" if args.docs else "")
    _publish(out, args.docs, "validation-linux", lambda d: save_raw(results, d / "crosscheck-linux.json"),
             lambda md, img: write(results, md, img, command))
    return 0


def _case_line(name: str, c: dict) -> None:
    print(f"{name:>4}: completion {c['completion_diff'] * 100:+.1f}% (kernel spread "
          f"{c['completion_spread'] * 100:.1f}%), cwnd distance {c['distance']:.3f} (kernel's own "
          f"{c['self_distance']:.3f})", flush=True)
