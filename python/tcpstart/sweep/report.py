"""A finished campaign's folder read back, and its report page: `tcpstart sweep plot DIR` and
`tcpstart sweep report DIR` (report.md and report.html: what was run, and per metric a table of
means with intervals per cell and a plot against an axis)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import polars as pl

from tcpstart.sweep.results import TABLE, aggregate, cell_columns, scan_table, table_parts
from tcpstart.sweep.spec import split_quantity

# Cells per metric in a report's table; the campaign's table has them all.
MAX_ROWS = 60

_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{padding:0.2em 0.6em;border-bottom:1px solid #ddd;text-align:right}}img{{max-width:100%}}</style>
</head><body>
{body}
</body></html>
"""


class Campaign:
    """A campaign folder: sweep.json (what was asked) and results/ (the table's parts), read lazily."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not (self.folder / "sweep.json").is_file() or not table_parts(self.folder):
            raise ValueError(f"{self.folder}: not a finished campaign folder (no sweep.json and {TABLE}/part-*.parquet)")
        self.description: Dict[str, Any] = json.loads((self.folder / "sweep.json").read_text())
        self.axes = [p for key in self.description["axes"] for p in key.split(",")]
        self.table = scan_table(self.folder)
        self.columns = self.table.collect_schema().names()

    def summary(self, metrics: Sequence[str]) -> pl.DataFrame:
        """Per cell and flow: n, mean, std and the 95 % interval of each metric."""
        missing = next((m for m in metrics if m not in self.columns), None)
        if missing:
            raise ValueError(f"--metric: {missing!r} is not a column of the campaign table")
        by = [c for c in cell_columns(self.axes) if c in self.columns]
        return aggregate(self.table.select(*dict.fromkeys([*by, *metrics])).collect(), by, list(metrics))

    def x_axis(self, x: Optional[str]) -> Optional[str]:
        """`x` checked, or the first axis whose values are numbers (None if there is none)."""
        if x is not None:
            if x not in self.axes:
                raise ValueError(f"--x: {x!r} is not an axis of this campaign; axes: {', '.join(self.axes)}")
            return x
        for axis in self.axes:
            if axis not in self.columns:
                continue
            try:
                [split_quantity(v) for v in self.table.select(axis).unique().collect()[axis].to_list()]
                return axis
            except ValueError:
                continue
        return None


def shown_columns(stats: pl.DataFrame, cells: Sequence[str]) -> List[str]:
    """The cell columns worth showing: not those that never change (flow 0 of single-flow
    runs) or that repeat another (flows[0].algorithm beside algorithm with one flow)."""
    shown: List[str] = []
    for c in cells:
        if c in stats.columns and stats[c].n_unique() > 1:
            if not any(stats[c].cast(pl.String).equals(stats[s].cast(pl.String)) for s in shown):
                shown.append(c)
    return shown


def _number(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.4g}"


def _table(stats: pl.DataFrame, shown: Sequence[str]) -> List[str]:
    lines = ["| " + " | ".join([*shown, "n", "mean", "95 % interval"]) + " |", "|" + " --- |" * len(shown) + " ---: | ---: | ---: |"]
    for row in stats.head(MAX_ROWS).iter_rows(named=True):
        if row["identical"]:
            interval = "replications identical"
        elif row["ci_low"] is None:
            interval = "-"
        else:
            interval = f"{_number(row['ci_low'])} .. {_number(row['ci_high'])}"
        lines.append("| " + " | ".join([*(str(row[c]) for c in shown), str(row["n"]), _number(row["mean"]), interval]) + " |")
    if stats.height > MAX_ROWS:
        lines.append(f"\n{stats.height - MAX_ROWS} more cells in the campaign's table ({TABLE}/).")
    return lines


def write_report(campaign: Campaign, metrics: Sequence[str], x: Optional[str] = None, by: str = "algorithm") -> Path:
    """Writes report.md, report.html and a plot per metric (when an axis has numbers) into the
    campaign folder; returns the path of report.html."""
    from tcpstart.sweep.plot import metric_against

    d = campaign.description
    stats = campaign.summary(metrics)
    runs = campaign.table.select(pl.col("run").n_unique()).collect().item()
    date = campaign.table.select(pl.col("date").first()).collect().item() if "date" in campaign.columns else "-"
    samples = "" if d.get("samples") is None else f" of {d['samples']} samples"
    lines = [
        f"# Campaign {campaign.folder.name}",
        "",
        f"{runs} distinct runs, {d['replications']} replications per cell, design `{d['design']}`{samples}, "
        f"tcpstart {d['tcpstart']}, table of {date}.",
        "",
        "Axes:",
        "",
        *(f"- `{k}`: {json.dumps(v, default=str)}" for k, v in d["axes"].items()),
    ]
    if d.get("start_jitter"):
        lines.append(f"- start jitter: {d['start_jitter']}")
    identical = stats.filter(pl.col("identical"))
    if identical.height:
        lines += [
            "",
            f"**{identical.height} of {stats.filter(pl.col('n') > 1).height} cell-metric intervals come from identical "
            "replications**: nothing random reached those runs, so their zero width says nothing.",
        ]
    x_axis = campaign.x_axis(x)
    shown = shown_columns(stats, cell_columns(campaign.axes))
    for (metric,), part in stats.group_by("metric", maintain_order=True):
        lines += ["", f"## {metric}", ""]
        if x_axis is not None and by in part.columns:
            image = f"{metric}-vs-{x_axis}.png"
            metric_against(part, str(metric), x_axis, by).savefig(campaign.folder / image, dpi=110)
            lines += [f"![{metric} against {x_axis}]({image})", ""]
        lines += _table(part, shown)
    text = "\n".join(lines) + "\n"
    (campaign.folder / "report.md").write_text(text)
    import markdown

    body = markdown.markdown(text, extensions=["tables"])
    out = campaign.folder / "report.html"
    out.write_text(_HTML.format(title=html.escape(f"Campaign {campaign.folder.name}"), body=body))
    return out
