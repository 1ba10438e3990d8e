"""`tcpstart sweep SPEC.toml` runs a campaign; `tcpstart sweep plot DIR` draws one of its metrics.

Kept apart from tcpstart/cli.py, which only registers it.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any, List

import polars as pl

EXAMPLE = (
    "e.g. tcpstart sweep examples/sweep-rtt.toml, tcpstart sweep plot DIR --metric completion_time --x network.rtt, "
    "or tcpstart sweep report DIR"
)

# Rows of the summary printed after a campaign; the table has them all.
MAX_ROWS = 40


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "sweep",
        help="run a campaign: a base scenario over axes, with replications, cached and resumable",
        description="tcpstart sweep SPEC.toml [options] runs a campaign; "
        "tcpstart sweep plot DIR --metric M --x AXIS draws a metric of one; "
        "tcpstart sweep report DIR writes its report page (docs/campaigns.md).",
    )
    p.add_argument("spec", metavar="SPEC.toml|plot|report", help="a sweep file, or 'plot' or 'report' followed by a campaign folder")
    p.add_argument("dir", nargs="?", metavar="DIR", help="with plot or report: the campaign folder")
    p.add_argument("--out", metavar="DIR", help="campaign folder (default: tcpstart-out/sweep-SPEC); with plot: the PNG")
    p.add_argument("--store", metavar="DIR", help="folder of finished runs, may be shared (default: DIR/runs)")
    p.add_argument("--rerun", action="store_true", help="simulate every run again, stored or not")
    p.add_argument("--traces", action="store_true", help="also store each run's time series")
    p.add_argument("--backend", choices=["local", "ray"], default="local", help="where runs are simulated (default: %(default)s)")
    p.add_argument("--address", help="with --backend ray: the cluster's address (default: a local Ray instance)")
    p.add_argument("--workers", type=int, help="local backend: threads (default: one per core)")
    p.add_argument(
        "--metric",
        action="append",
        help="metric to summarize, plot or report (default: the file's metrics, or completion_time; report: and goodput_bps)",
    )
    p.add_argument("--x", help="with plot or report: the axis on the x axis (default: the first axis with numbers)")
    p.add_argument("--by", default="algorithm", help="with plot or report: one line per value of this column (default: %(default)s)")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    if args.spec == "plot":
        return _plot(args)
    if args.spec == "report":
        return _report(args)
    if args.dir is not None:
        raise ValueError(f"unexpected argument {args.dir!r}; {EXAMPLE}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers: must be at least 1, got {args.workers}")
    from rich.progress import Progress

    from tcpstart.sweep.campaign import ReplicationWarning, Sweep, replication_message
    from tcpstart.sweep.results import cell_columns

    overrides: dict[str, Any] = {"out": args.out or f"tcpstart-out/sweep-{Path(args.spec).stem}"}
    if args.store:
        overrides["store"] = args.store
    if args.traces:
        overrides["keep_traces"] = True
    sweep = Sweep.from_toml(args.spec, **overrides)
    cells = sweep.plan.cell_count()
    total = cells * sweep.plan.replications
    print(f"{total} runs: {cells} cells x {sweep.plan.replications} replications, in {sweep.out}/")
    try:
        with Progress(transient=True, disable=not sys.stdout.isatty()) as bar, warnings.catch_warnings():
            warnings.simplefilter("ignore", ReplicationWarning)  # said below, in the CLI's words
            task = bar.add_task("sweep", total=total)
            stats = sweep.run(
                backend=args.backend,
                workers=args.workers,
                address=args.address,
                rerun=args.rerun,
                progress=lambda n: bar.advance(task, n),
            )
    except KeyboardInterrupt:
        print("interrupted: every finished run is stored; run the same command again to resume", file=sys.stderr)
        raise
    print(f"{stats.simulated} simulated, {stats.cached} from the store, in {stats.seconds:.2f} s")
    if stats.identical_cells:
        print(f"tcpstart: warning: {replication_message(stats.identical_cells, stats.replicated_cells)}", file=sys.stderr)
    metrics = args.metric or sweep.metrics
    _print_summary(sweep.summary(metrics), cell_columns(sweep.axes()))
    print(f"results in {sweep.results_path()}")
    return 0


def _print_summary(stats: pl.DataFrame, cells: List[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    from tcpstart.sweep.report import shown_columns

    shown = shown_columns(stats, cells)
    console = Console(soft_wrap=True)
    for (metric,), part in stats.group_by("metric", maintain_order=True):
        table = Table(*shown, "n", "mean", "95 % CI", title=str(metric), box=None, pad_edge=False, header_style="bold underline")
        for row in part.head(MAX_ROWS).iter_rows(named=True):
            ci = "-" if row["ci_low"] is None else f"{row['ci_low']:.4g} .. {row['ci_high']:.4g}"
            mean = "-" if row["mean"] is None else f"{row['mean']:.4g}"
            table.add_row(*(str(row[c]) for c in shown), str(row["n"]), mean, ci + (" identical" if row["identical"] else ""))
        console.print(table)
        if part.height > MAX_ROWS:
            print(f"... {part.height - MAX_ROWS} more rows in the table")


def _campaign(args: argparse.Namespace) -> Any:
    from tcpstart.sweep.report import Campaign

    if args.dir is None:
        raise ValueError(f"{args.spec}: give the campaign folder; {EXAMPLE}")
    return Campaign(args.dir)


def _plot(args: argparse.Namespace) -> int:
    from tcpstart.sweep.plot import metric_against

    campaign = _campaign(args)
    x = campaign.x_axis(args.x)
    if x is None:
        raise ValueError("--x: no axis of this campaign has numbers; name the axis to plot against")
    metric = (args.metric or ["completion_time"])[0]
    fig = metric_against(campaign.summary([metric]), metric, x, args.by)
    out = Path(args.out or campaign.folder / f"{metric}-vs-{x}.png")
    fig.savefig(out, dpi=120)
    print(out)
    return 0


def _report(args: argparse.Namespace) -> int:
    from tcpstart.sweep.report import write_report

    if args.out:
        raise ValueError("--out: a report is written into the campaign folder")
    print(write_report(_campaign(args), args.metric or ["completion_time", "goodput_bps"], args.x, args.by))
    return 0
