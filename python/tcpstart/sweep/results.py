"""A campaign's tidy table (a row per run and flow) and its statistics per cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import polars as pl

# The campaign's table: a folder of part files, part-00000.parquet on, each a run of whole cells
# in the design's order, all of one schema. Separate files keep writing it flat in memory (one
# Parquet file written from all the parts held about 0.1 KB per row until it was closed).
TABLE = "results"


def table_parts(folder: Path) -> List[Path]:
    """The part files of the table in the campaign folder `folder`, in the design's order."""
    return sorted((folder / TABLE).glob("part-*.parquet"))


def scan_table(folder: Path) -> pl.LazyFrame:
    """The table of the campaign folder `folder`, read lazily; its rows in the design's order."""
    return pl.scan_parquet(table_parts(folder))


# Columns that describe a run rather than measure it.
RUN_COLUMNS = ("run", "cell", "replication", "seed", "flow", "algorithm")


def _flat(prefix: str, values: Mapping[str, Any], out: Dict[str, Any], skip: str = "") -> None:
    """Numbers, booleans and strings of a summary table, nested tables joined with "_", lists
    left out. Summaries are plain JSON, so a type test by identity does (it is the most
    frequent call of a campaign's bookkeeping)."""
    for k, v in values.items():
        kind = type(v)
        if kind is dict:
            _flat(f"{prefix}{k}_", v, out)
        elif kind is not list and k != skip:
            out[prefix + k] = v


def flow_rows(summary: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """One row per flow of a run: its summary metrics and the bottleneck link's (bottleneck_*)."""
    link: Dict[str, Any] = {}
    for entry in summary["links"]:
        if entry["name"] == "bottleneck":
            _flat("bottleneck_", entry, link, skip="name")
    rows = []
    for f in summary["flows"]:
        row: Dict[str, Any] = {"flow": f["id"]}
        _flat("", f, row, skip="id")
        row.update(link)
        rows.append(row)
    return rows


def tidy(design: pl.DataFrame, measured: pl.DataFrame, provenance: Mapping[str, Any]) -> pl.DataFrame:
    """The campaign's table: for each run of `design` (columns run, cell, replication, seed and
    the axes, in the campaign's order) and each of its flows a row with the axis values, the
    measurements and `provenance`. An axis named like a metric (the top-level `algorithm`)
    leaves its column to the metric."""
    measured = measured.unique("run" if "flow" not in measured.columns else ["run", "flow"], maintain_order=True)
    clash = [c for c in design.columns if c != "run" and c in measured.columns]
    table = (
        design.drop(clash)
        .with_row_index("_order")
        .join(measured, on="run", how="left")
        .sort("_order", "flow")
        .drop("_order")
    )
    return table.with_columns(**{k: pl.lit(v) for k, v in provenance.items()})


def cell_columns(axes: Sequence[str]) -> List[str]:
    """What tells a cell's flows apart in a campaign table: the axes, the flow and its algorithm."""
    return list(dict.fromkeys([*axes, "flow", "algorithm"]))


def metric_columns(table: pl.DataFrame, exclude: Iterable[str] = ()) -> List[str]:
    """The numeric measurement columns of a campaign table."""
    skip = {*RUN_COLUMNS, *exclude, "size", "host", "start"}
    return [c for c, t in table.schema.items() if c not in skip and t.is_numeric() and not t == pl.Boolean]


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t distribution with df degrees of freedom."""
    from scipy.special import stdtrit  # only the statistics need scipy (scipy.stats takes 3x as long to import)

    return float(stdtrit(df, p))


def aggregate(
    table: pl.DataFrame, by: Sequence[str], metrics: Optional[Sequence[str]] = None, level: float = 0.95
) -> pl.DataFrame:
    """Per group of `by` (a cell and flow) and metric: n, mean, std (n - 1 in the denominator),
    and the `level` confidence interval of the mean from Student's t: mean +- t * std / sqrt(n).

    `identical` is true where n > 1 and every replication gave the same value: the interval is
    then zero wide because nothing varied, not because the estimate is exact. Missing values
    (a flow that did not complete has no completion_time) are left out of n.
    """
    chosen = list(metrics) if metrics is not None else metric_columns(table, by)
    missing = next((m for m in [*by, *chosen] if m not in table.columns), None)
    if missing:
        raise ValueError(f"{missing!r} is not a column of the campaign table")
    parts = []
    for m in chosen:
        col = pl.col(m).cast(pl.Float64)
        parts.append(
            table.group_by(by, maintain_order=True).agg(
                metric=pl.lit(m),
                n=col.count(),
                mean=col.mean(),
                std=col.std(),
                identical=(col.count() > 1) & (col.max() == col.min()),
            )
        )
    stats = pl.concat(parts)
    # One t quantile per sample size, not per row.
    sizes = sorted({n for n in stats["n"].to_list() if n > 1})
    t = {n: t_quantile(0.5 + level / 2, n - 1) for n in sizes}
    half = pl.col("n").replace_strict(t, default=None, return_dtype=pl.Float64) * pl.col("std") / pl.col("n").cast(pl.Float64).sqrt()
    return stats.with_columns(ci_low=pl.col("mean") - half, ci_high=pl.col("mean") + half).select(
        *by, "metric", "n", "mean", "std", "ci_low", "ci_high", "identical"
    )


def identical_cells(table: pl.DataFrame) -> tuple[int, int]:
    """(cells whose replications gave every flow the same figures, cells with more than one
    replication). Start times and the bottleneck's figures are left out: a lone flow on a
    deterministic path does the same whenever it starts, but link figures count from time 0."""
    flow_metrics = [c for c in metric_columns(table) if not c.startswith("bottleneck_")]
    per_flow = table.group_by("cell", "flow").agg(
        pl.col("replication").n_unique().alias("_reps"), *(pl.col(c).n_unique() for c in flow_metrics)
    )
    same = pl.max_horizontal(flow_metrics) <= 1 if flow_metrics else pl.lit(True)
    per_cell = per_flow.group_by("cell").agg((pl.col("_reps") > 1).all().alias("replicated"), same.all().alias("same"))
    replicated = per_cell.filter("replicated")
    return replicated.filter("same").height, replicated.height
