"""Plots of a run. Each function returns a matplotlib Figure.

Figures are made with `matplotlib.figure.Figure`, not pyplot, so no GUI backend or global state
is involved: they save with `fig.savefig(...)` anywhere and display in notebooks.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tcpstart._files import MARKER, add_to_marker, check_own_files
from tcpstart.results import Result
from tcpstart.style import family, style

KINDS = ("cwnd", "inflight", "rtt", "seq", "queue")


class InlineFigure(Figure):
    """A Figure that shows itself in a notebook, with or without `%matplotlib inline` first.

    Figures made without pyplot have no backend to display them; IPython asks for `_repr_png_`.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


# More curves than this in one panel are split into one panel per algorithm family.
MAX_CURVES = 8
# A curve whose peak is this many times the next highest is clipped, so it does not flatten the rest.
CLIP_RATIO = 4.0
# Legends with more entries than this go beside the axes instead of over the data.
LEGEND_INSIDE = 4


def _axes(title: str, ylabel: str, subtitle: Optional[str] = None) -> tuple[Figure, Axes]:
    fig = InlineFigure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    _label(ax, title, ylabel, subtitle)
    return fig, ax


def _label(ax: Axes, title: str, ylabel: str, subtitle: Optional[str]) -> None:
    ax.set_title(f"{title}\n{subtitle}" if subtitle else title, fontsize="medium")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def _per_flow(
    table: pl.DataFrame, labels: Optional[Mapping[int, str]], algorithms: Optional[Mapping[int, str]] = None
) -> Iterator[tuple[str, pl.DataFrame, dict[str, Any]]]:
    """Each flow's rows, with its legend label and its algorithm's style (matplotlib's cycle without one)."""
    for flow in table["flow"].unique().sort():
        label = (labels or {}).get(flow, f"flow {flow}")
        algorithm = (algorithms or {}).get(flow)
        yield label, table.filter(pl.col("flow") == flow), style(algorithm) if algorithm else {}


def _finish(ax: Axes, bdp: Optional[float] = None) -> None:
    if bdp is not None:
        ax.axhline(bdp / 1e3, color="grey", linestyle="--", linewidth=1, label="BDP")
    handles, _ = ax.get_legend_handles_labels()
    if len(handles) > LEGEND_INSIDE:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    elif handles:
        ax.legend(loc="best", fontsize="small")


def _clip(ax: Axes, peaks: dict[str, float], shown: Optional[set[str]] = None) -> None:
    """Clips the y axis above the second highest peak when one curve dwarfs the others, and says so
    (in the panel that holds the clipped curve, when `shown` names the curves of this panel)."""
    ranked = sorted(peaks.values(), reverse=True)
    if len(ranked) < 3 or ranked[1] <= 0 or ranked[0] < CLIP_RATIO * ranked[1]:
        return
    top = 1.3 * ranked[1]
    ax.set_ylim(0, top)
    clipped = [name for name, peak in peaks.items() if peak > top and (shown is None or name in shown)]
    if not clipped:
        return
    ax.text(
        0.99, 0.98, "clipped: " + ", ".join(f"{n} (peak {peaks[n]:,.0f})" for n in clipped),
        transform=ax.transAxes, ha="right", va="top", fontsize="x-small", color="dimgrey",
    )


def _window(
    flows: pl.DataFrame,
    column: str,
    title: str,
    labels: Optional[Mapping[int, str]],
    bdp: Optional[float],
    algorithms: Optional[Mapping[int, str]] = None,
    subtitle: Optional[str] = None,
) -> Figure:
    curves = list(_per_flow(flows, labels, algorithms))
    groups: dict[str, list[tuple[str, pl.DataFrame, dict[str, Any]]]] = {"": curves}
    if len(curves) > MAX_CURVES and algorithms:
        groups = {}
        for flow, curve in zip(flows["flow"].unique().sort(), curves):
            groups.setdefault(family(algorithms.get(flow, "")), []).append(curve)
    if len(groups) == 1:
        fig, ax = _axes(title, f"{column} (KB)", subtitle)
        axes = [ax]
    else:
        # Small multiples: a panel per family, on shared axes so panels compare at a glance.
        cols = 2 if len(groups) > 1 else 1
        rows = -(-len(groups) // cols)
        fig = InlineFigure(figsize=(10, 2.6 * rows + 0.6), layout="constrained")
        grid = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
        axes = list(grid.flat)
        for extra in axes[len(groups):]:
            extra.set_visible(False)
        fig.suptitle(f"{title}\n{subtitle}" if subtitle else title, fontsize="medium")
    peaks: dict[str, float] = {}
    for ax, (name, group) in zip(axes, groups.items()):
        if len(groups) > 1:
            _label(ax, name, f"{column} (KB)", None)
        for label, part, look in group:
            values = part[column].to_numpy() / 1e3
            ax.step(part["t"].to_numpy(), values, where="post", label=label, **look)
            peaks[label] = float(values.max()) if values.size else 0.0
        _finish(ax, bdp)
    for ax, group in zip(axes, groups.values()):
        _clip(ax, peaks, {label for label, _, _ in group})
    return fig


def cwnd(
    flows: pl.DataFrame,
    labels: Optional[Mapping[int, str]] = None,
    bdp: Optional[float] = None,
    algorithms: Optional[Mapping[int, str]] = None,
    subtitle: Optional[str] = None,
) -> Figure:
    """Congestion window of each flow over time, with the path's BDP for reference.

    `algorithms` (flow -> name) gives each curve its algorithm's style (tcpstart.style); more than
    MAX_CURVES curves are drawn as one panel per family. `subtitle` goes under the title.
    """
    return _window(flows, "cwnd", "Congestion window", labels, bdp, algorithms, subtitle)


def inflight(
    flows: pl.DataFrame,
    labels: Optional[Mapping[int, str]] = None,
    bdp: Optional[float] = None,
    algorithms: Optional[Mapping[int, str]] = None,
    subtitle: Optional[str] = None,
) -> Figure:
    """Bytes in flight (sent, not yet acknowledged) of each flow over time."""
    return _window(flows, "inflight", "Bytes in flight", labels, bdp, algorithms, subtitle)


def rtt(
    flows: pl.DataFrame,
    labels: Optional[Mapping[int, str]] = None,
    algorithms: Optional[Mapping[int, str]] = None,
    subtitle: Optional[str] = None,
) -> Figure:
    """Round-trip time samples of each flow; the rise above the base RTT is queueing delay.

    Samples are drawn as points: a line between two samples would invent the RTTs in between.
    """
    fig, ax = _axes("Round-trip time samples", "RTT (ms)", subtitle)
    for label, part, look in _per_flow(flows.filter(pl.col("rtt").is_not_nan()), labels, algorithms):
        look = {"color": look["color"]} if look else {}
        ax.plot(part["t"].to_numpy(), part["rtt"].to_numpy() * 1e3, ".", markersize=3, label=label, **look)
    _finish(ax)
    return fig


def seq(
    flows: pl.DataFrame,
    packets: Optional[pl.DataFrame] = None,
    labels: Optional[Mapping[int, str]] = None,
    algorithms: Optional[Mapping[int, str]] = None,
    subtitle: Optional[str] = None,
) -> Figure:
    """Sequence numbers sent and acknowledged over time (a time-sequence graph).

    Without a packet trace, the bytes delivered to the receiver stand in for the ACK line.
    """
    if packets is None or packets.is_empty():
        fig, ax = _axes("Bytes delivered", "delivered (MB)", subtitle)
        for label, part, look in _per_flow(flows, labels, algorithms):
            ax.step(part["t"].to_numpy(), part["delivered"].to_numpy() / 1e6, where="post", label=label, **look)
        _finish(ax)
        return fig

    fig, ax = _axes("Time-sequence graph", "sequence number (MB)", subtitle)
    for label, part, look in _per_flow(packets, labels, algorithms):
        sent = part.filter(pl.col("event") == "send")
        # Relative sequence numbers, so that flows with different initial numbers share an axis.
        base = sent["seq"].min() if not sent.is_empty() else 0
        color = {"color": look["color"]} if look else {}
        (line,) = ax.plot(sent["t"].to_numpy(), (sent["seq"] - base).to_numpy() / 1e6, ".", markersize=2, label=label, **color)
        again = part.filter(pl.col("event") == "retransmit")
        ax.plot(again["t"].to_numpy(), (again["seq"] - base).to_numpy() / 1e6, "x", color="red", markersize=4)
        lost = part.filter((pl.col("event") == "drop") & (pl.col("len") > 0))
        ax.plot(lost["t"].to_numpy(), (lost["seq"] - base).to_numpy() / 1e6, "v", color="black", markersize=4)
        acks = part.filter(pl.col("event") == "ack_arrive")
        ax.step(acks["t"].to_numpy(), (acks["ack"] - base).to_numpy() / 1e6, where="post", color=line.get_color(), linewidth=0.8)
    ax.plot([], [], "x", color="red", label="retransmission")
    ax.plot([], [], "v", color="black", label="dropped")
    _finish(ax)
    return fig


def queue(
    queues: pl.DataFrame, subtitle: Optional[str] = None, title: str = "Queue length", by_algorithm: bool = False
) -> Figure:
    """Packets queued at each link that ever built a queue (the bottleneck is always shown).

    `by_algorithm`: the `link` column names algorithms (one run's bottleneck each), styled as such.
    """
    fig, ax = _axes(title, "packets queued", subtitle)
    peaks: dict[str, float] = {}
    for link in queues["link"].unique(maintain_order=True):
        part = queues.filter(pl.col("link") == link)
        # One packet is just the one being sent; only links that built a queue are interesting.
        if link == "bottleneck" or by_algorithm or part["packets"].max() > 1:
            look = style(link) if by_algorithm else {}
            ax.step(part["t"].to_numpy(), part["packets"].to_numpy(), where="post", label=link, **look)
            peaks[link] = float(part["packets"].max() or 0)
    _finish(ax)
    _clip(ax, peaks)
    return fig


FORMATS = ("png", "pdf", "svg")


def plot_dir(directory: str | os.PathLike[str], formats: Sequence[str] = ("png",)) -> list[Path]:
    """Draws every kind of plot for a saved result folder into it as <kind>.<format>."""
    d = Path(directory)
    result = Result.load(d)
    paths = [d / f"{kind}.{fmt}" for kind in KINDS for fmt in formats]
    check_own_files(d, paths)
    written = []
    for kind in KINDS:
        fig = result.plot(kind)
        for fmt in formats:
            path = d / f"{kind}.{fmt}"
            fig.savefig(path, dpi=150)
            written.append(path)
    if (d / MARKER).exists():
        add_to_marker(d, written)
    return written
