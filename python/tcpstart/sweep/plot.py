"""A campaign's metric against one of its axes, a line per algorithm with confidence bands."""

from __future__ import annotations

from typing import List

import polars as pl
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from tcpstart.sweep.spec import split_quantity

STAT_COLUMNS = ("metric", "n", "mean", "std", "ci_low", "ci_high", "identical")


def _numbers(values: List[object], axis: str) -> tuple[List[float], str]:
    """Axis values as numbers in their (common) unit: "20ms" -> 20.0, "ms"."""
    try:
        parsed = [split_quantity(v) for v in values]
    except ValueError:
        raise ValueError(f"{axis}: its values are not numbers, so it cannot be the x axis") from None
    units = {u for _, u in parsed}
    if len(units) > 1:
        raise ValueError(f"{axis}: its values mix units ({', '.join(sorted(units))}); give them in one unit")
    return [x for x, _ in parsed], units.pop()


def metric_against(stats: pl.DataFrame, metric: str, x: str, by: str = "algorithm") -> Figure:
    """Draws the mean of `metric` against the axis `x` from an aggregate() table, one line per
    value of `by` and of any other column that varies, with the confidence interval as a band.

    A line whose replications were all identical says so in its label: its band is zero wide
    for want of randomness, not for precision.
    """
    stats = stats.filter(pl.col("metric") == metric)
    for column in (x, by):
        if column not in stats.columns:
            raise ValueError(f"{column!r} is not a column of the campaign; columns: {', '.join(stats.columns)}")
    xs, unit = _numbers(stats[x].to_list(), x)
    stats = stats.with_columns(_x=pl.Series(xs, dtype=pl.Float64))
    # Lines: `by` first, then every other column that varies apart from it (not, say, the
    # flows[0].algorithm axis beside the algorithm column).
    others = [
        c
        for c in stats.columns
        if c not in (x, by, "_x", *STAT_COLUMNS)
        and stats.group_by(by).agg(pl.col(c).n_unique())[c].max() > 1  # type: ignore[operator]
    ]
    keys = [by, *others]
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for values, line in stats.sort("_x").group_by(keys, maintain_order=True):
        label = ", ".join(str(v) if k == by else f"{k}={v}" for k, v in zip(keys, values))
        if line["identical"].all():
            label += " (replications identical)"
        t = line["_x"].to_numpy()
        ax.plot(t, line["mean"].to_numpy(), marker="o", markersize=3, label=label)
        if line["ci_low"].is_not_null().any():
            ax.fill_between(t, line["ci_low"].to_numpy(), line["ci_high"].to_numpy(), alpha=0.2)
    if min(xs) > 0 and max(xs) >= 100 * min(xs):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(f"{x} ({unit})" if unit else x)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric}: mean and 95 % interval")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return fig
