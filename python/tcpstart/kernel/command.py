"""`tcpstart testbed`: runs a scenario file on the kernel and saves each run like `tcpstart run`.

Kept apart from tcpstart/cli.py, which only registers it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("testbed", help="run a scenario on the Linux kernel between network namespaces (root)")
    p.add_argument("scenario", metavar="SCENARIO.toml", nargs="?")
    p.add_argument("--out", metavar="DIR", help="output folder (default: tcpstart-out/testbed-SCENARIO); runs in DIR/run<i>")
    p.add_argument("--runs", type=int, default=1, help="kernel runs of the scenario (default: %(default)s)")
    p.add_argument("--cleanup", action="store_true", help="remove namespaces and traces left by testbed runs that died")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from tcpstart._files import check_output_folder
    from tcpstart.cli import _summary_table, console
    from tcpstart.kernel import testbed
    from tcpstart.kernel.netns import cleanup

    if args.cleanup:
        removed = cleanup()
        console.print(f"removed {len(removed)} leftover(s)" + "".join(f"\n  {r}" for r in removed))
        if not args.scenario:
            return 0
    if not args.scenario:
        raise ValueError("SCENARIO.toml: give a scenario file (or --cleanup alone)")
    if args.runs < 1:
        raise ValueError(f"--runs: must be at least 1, got {args.runs}")
    out = Path(args.out or f"tcpstart-out/testbed-{Path(args.scenario).stem}")
    for i in range(args.runs):
        check_output_folder(out / f"run{i}")
    results = testbed(args.scenario, runs=args.runs, out=out)
    for i, result in enumerate(results):
        console.print(f"run {i}:")
        console.print(_summary_table(result))
        warning = result.raw_summary["testbed"]["warning"]
        if warning:
            print(f"tcpstart: warning: run {i}: {warning}", file=sys.stderr)
    console.print(f"results in {out}/run0 ... run{args.runs - 1}")
    return 0
