"""`tcpstart sweep SPEC.toml` runs a campaign; `tcpstart sweep plot DIR` draws one of its metrics.

Kept apart from tcpstart/cli.py, which only registers it.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any, List

import polars as pl

EXAMPLE = "e.g. tcpstart sweep examples/sweep-rtt.toml, or tcpstart sweep plot DIR --metric completion_time --x network.rtt"

# Rows of the summary printed after a campaign; the table has them all.
MAX_ROWS = 40


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "sweep",
        help="run a campaign: a base scenario over axes, with replications, cached and resumable",
        description="tcpstart sweep SPEC.toml [options] runs a campaign; "
        "tcpstart sweep plot DIR --metric M --x AXIS draws a metric of one (docs/campaigns.md).",
    )
    p.add_argument("spec", metavar="SPEC.toml|plot", help="a sweep file, or 'plot' followed by a campaign folder")
    p.add_argument("dir", nargs="?", metavar="DIR", help="with plot: the campaign folder")
    p.add_argument("--out", metavar="DIR", help="campaign folder (default: tcpstart-out/sweep-SPEC); with plot: the PNG")
    p.add_argument("--store", metavar="DIR", help="folder of finished runs, may be shared (default: DIR/runs)")
    p.add_argument("--rerun", action="store_true", help="simulate every run again, stored or not")
    p.add_argument("--traces", action="store_true", help="also store each run's time series")
    p.add_argument("--backend", choices=["local", "ray"], default="local", help="where runs are simulated (default: %(default)s)")
    p.add_argument("--address", help="with --backend ray: the cluster's address (default: a local Ray instance)")
    p.add_argument("--workers", type=int, help="local backend: threads (default: one per core)")
    p.add_argument("--metric", action="append", help="metric to summarize or plot (default: the file's metrics, or completion_time)")
    p.add_argument("--x", help="with plot: the axis on the x axis (default: the first axis with numbers)")
    p.add_argument("--by", default="algorithm", help="with plot: one line per value of this column (default: %(default)s)")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    if args.spec == "plot":
        return _plot(args)
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
    print(f"results in {sweep.out / 'results.parquet'}")
    return 0


def _print_summary(stats: pl.DataFrame, cells: List[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    # Columns that repeat another (flows[0].algorithm and algorithm with one flow), or that
    # never change (flow 0 of single-flow runs), say nothing.
    shown: List[str] = []
    for c in cells:
        if stats[c].n_unique() > 1 and not any(stats[c].cast(pl.String).equals(stats[s].cast(pl.String)) for s in shown):
            shown.append(c)
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


def _plot(args: argparse.Namespace) -> int:
    from tcpstart.sweep.plot import metric_against
    from tcpstart.sweep.results import aggregate, cell_columns
    from tcpstart.sweep.spec import split_quantity

    if args.dir is None:
        raise ValueError(f"plot: give the campaign folder; {EXAMPLE}")
    folder = Path(args.dir)
    if not (folder / "sweep.json").is_file() or not (folder / "results.parquet").is_file():
        raise ValueError(f"{folder}: not a finished campaign folder (no sweep.json and results.parquet)")
    axes = [p for key in json.loads((folder / "sweep.json").read_text())["axes"] for p in key.split(",")]
    table = pl.read_parquet(folder / "results.parquet")

    def numeric(axis: str) -> bool:
        try:
            [split_quantity(v) for v in table[axis].unique().to_list()]
            return True
        except ValueError:
            return False

    x = args.x or next((a for a in axes if a in table.columns and numeric(a)), None)
    if x is None:
        raise ValueError("--x: no axis of this campaign has numbers; name the axis to plot against")
    if x not in axes:
        raise ValueError(f"--x: {x!r} is not an axis of this campaign; axes: {', '.join(axes)}")
    metric = (args.metric or ["completion_time"])[0]
    if metric not in table.columns:
        raise ValueError(f"--metric: {metric!r} is not a column of the campaign table")
    fig = metric_against(aggregate(table, cell_columns(axes), [metric]), metric, x, args.by)
    out = Path(args.out or folder / f"{metric}-vs-{x}.png")
    fig.savefig(out, dpi=120)
    print(out)
    return 0
