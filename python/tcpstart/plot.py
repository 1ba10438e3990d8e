"""Plots of a run. Each function returns a matplotlib Figure.

Figures are made with `matplotlib.figure.Figure`, not pyplot, so no GUI backend or global state
is involved: they save with `fig.savefig(...)` anywhere and display in notebooks.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Iterator, Mapping, Optional

import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tcpstart._files import MARKER, add_to_marker, check_own_files
from tcpstart.results import Result

KINDS = ("cwnd", "inflight", "rtt", "seq", "queue")


class InlineFigure(Figure):
    """A Figure that shows itself in a notebook, with or without `%matplotlib inline` first.

    Figures made without pyplot have no backend to display them; IPython asks for `_repr_png_`.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def _axes(title: str, ylabel: str) -> tuple[Figure, Axes]:
    fig = InlineFigure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    return fig, ax


def _per_flow(table: pl.DataFrame, labels: Optional[Mapping[int, str]]) -> Iterator[tuple[str, pl.DataFrame]]:
    for flow in table["flow"].unique().sort():
        label = (labels or {}).get(flow, f"flow {flow}")
        yield label, table.filter(pl.col("flow") == flow)


def _finish(ax: Axes, bdp: Optional[float] = None) -> None:
    if bdp is not None:
        ax.axhline(bdp / 1e3, color="grey", linestyle="--", linewidth=1, label="BDP")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")


def _window(
    flows: pl.DataFrame, column: str, title: str, labels: Optional[Mapping[int, str]], bdp: Optional[float]
) -> Figure:
    fig, ax = _axes(title, f"{column} (KB)")
    for label, part in _per_flow(flows, labels):
        ax.step(part["t"].to_numpy(), part[column].to_numpy() / 1e3, where="post", label=label)
    _finish(ax, bdp)
    return fig


def cwnd(flows: pl.DataFrame, labels: Optional[Mapping[int, str]] = None, bdp: Optional[float] = None) -> Figure:
    """Congestion window of each flow over time, with the path's BDP for reference."""
    return _window(flows, "cwnd", "Congestion window", labels, bdp)


def inflight(flows: pl.DataFrame, labels: Optional[Mapping[int, str]] = None, bdp: Optional[float] = None) -> Figure:
    """Bytes in flight (sent, not yet acknowledged) of each flow over time."""
    return _window(flows, "inflight", "Bytes in flight", labels, bdp)


def rtt(flows: pl.DataFrame, labels: Optional[Mapping[int, str]] = None) -> Figure:
    """Round-trip time samples of each flow; the rise above the base RTT is queueing delay."""
    fig, ax = _axes("Round-trip time", "RTT (ms)")
    for label, part in _per_flow(flows.filter(pl.col("rtt").is_not_nan()), labels):
        ax.plot(part["t"].to_numpy(), part["rtt"].to_numpy() * 1e3, label=label)
    _finish(ax)
    return fig


def seq(
    flows: pl.DataFrame,
    packets: Optional[pl.DataFrame] = None,
    labels: Optional[Mapping[int, str]] = None,
) -> Figure:
    """Sequence numbers sent and acknowledged over time (a time-sequence graph).

    Without a packet trace, the bytes delivered to the receiver stand in for the ACK line.
    """
    if packets is None or packets.is_empty():
        fig, ax = _axes("Bytes delivered", "delivered (MB)")
        for label, part in _per_flow(flows, labels):
            ax.step(part["t"].to_numpy(), part["delivered"].to_numpy() / 1e6, where="post", label=label)
        _finish(ax)
        return fig

    fig, ax = _axes("Time-sequence graph", "sequence number (MB)")
    for label, part in _per_flow(packets, labels):
        sent = part.filter(pl.col("event") == "send")
        # Relative sequence numbers, so that flows with different initial numbers share an axis.
        base = sent["seq"].min() if not sent.is_empty() else 0
        (line,) = ax.plot(sent["t"].to_numpy(), (sent["seq"] - base).to_numpy() / 1e6, ".", markersize=2, label=label)
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


def queue(queues: pl.DataFrame) -> Figure:
    """Packets queued at each link that ever built a queue (the bottleneck is always shown)."""
    fig, ax = _axes("Queue length", "packets queued")
    for link in queues["link"].unique(maintain_order=True):
        part = queues.filter(pl.col("link") == link)
        # One packet is just the one being sent; only links that built a queue are interesting.
        if link == "bottleneck" or part["packets"].max() > 1:
            ax.step(part["t"].to_numpy(), part["packets"].to_numpy(), where="post", label=link)
    _finish(ax)
    return fig


def plot_dir(directory: str | os.PathLike[str]) -> list[Path]:
    """Draws every kind of plot for a saved result folder into it as <kind>.png."""
    d = Path(directory)
    result = Result.load(d)
    check_own_files(d, [d / f"{kind}.png" for kind in KINDS])
    written = []
    for kind in KINDS:
        path = d / f"{kind}.png"
        result.plot(kind).savefig(path, dpi=120)
        written.append(path)
    if (d / MARKER).exists():
        add_to_marker(d, written)
    return written
