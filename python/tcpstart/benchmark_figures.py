"""The figures behind `tcpstart benchmark`'s scores, one set per path (docs/benchmark.md,
"Figures").

- `<path>-scores.png`: every replication's value of each score, by transfer size, one colour per
  algorithm, with the median through them: a cell of the leaderboard is that median.
- `<path>-delay.png`: alone on the path, the bottleneck's queueing delay while the transfer ran
  (the queue series, on its 10 ms grid), and dotted, the run's delay score: the 95th percentile
  over every packet.
- `<path>-harm.png`: against CUBIC, the CUBIC flow's bytes delivered since the transfer started,
  without the transfer (a wide grey band) and with it (one curve per algorithm, ending with the transfer):
  harm is 1 - with / without at that end.

The time series are replication 0's; each line carries a `gid` naming what it draws, so tests
can read the data back from the figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from matplotlib.figure import Figure

from tcpstart.style import style

# The scores figure's panels: (row key, competing runs or alone, axis label, scale).
SCORES = (
    ("completion_ratio", False, "completion / ideal, alone", 1.0),
    ("completion_ratio", True, "completion / ideal, vs CUBIC", 1.0),
    ("loss", False, "loss, alone (%)", 100.0),
    ("delay_p95_ms", False, "delay added, p95, alone (ms)", 1.0),
    ("harm", True, "harm to CUBIC (%)", 100.0),
)

Key = tuple[str, str, str, bool]


def _order(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def scores_figure(path: str, rows: list[dict[str, Any]]) -> Figure:
    """Every replication's scores on `path` (the runs' rows), by size, and their medians."""
    rows = [r for r in rows if r["path"] == path]
    sizes, algos = _order([r["size"] for r in rows]), _order([r["algorithm"] for r in rows])
    fig = Figure(figsize=(4 * len(SCORES), 3.8), layout="constrained")
    for k, (key, competing, label, scale) in enumerate(SCORES):
        ax = fig.add_subplot(1, len(SCORES), k + 1)
        for i, algo in enumerate(algos):
            st = style(algo)
            # Algorithms side by side within a size, so their points do not hide each other.
            dx = 0.5 * (i - (len(algos) - 1) / 2) / max(1, len(algos))
            xs, ys, mx, my = [], [], [], []
            for j, size in enumerate(sizes):
                vals = sorted(scale * r[key] for r in rows if (r["algorithm"], r["size"], r["competing"]) == (algo, size, competing))
                xs += [j + dx] * len(vals)
                ys += vals
                if vals:
                    n = len(vals)
                    mx.append(j + dx)
                    my.append(vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2)
            ax.plot(xs, ys, "o", color=st["color"], alpha=0.6, markersize=4, gid=f"{algo}/{key}/{competing}/runs")
            ax.plot(mx, my, color=st["color"], linestyle=st["linestyle"], label=algo, gid=f"{algo}/{key}/{competing}/median")
        ax.set_xticks(range(len(sizes)), sizes)
        ax.set_xlabel("transfer size")
        ax.set_ylabel(label)
        if key == "completion_ratio":
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize="small")
    fig.suptitle(f"{path}: each score's replications (points) and the cell's median (line)", fontsize="medium")
    return fig


def _panels(title: str, sizes: list[str]) -> tuple[Figure, list[Any]]:
    fig = Figure(figsize=(4 * len(sizes), 3.8), layout="constrained")
    axes = [fig.add_subplot(1, len(sizes), j + 1) for j in range(len(sizes))]
    for ax, size in zip(axes, sizes):
        ax.set_title(size, fontsize="medium")
        ax.set_xlabel("time since the transfer started (s)")
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize="medium")
    return fig, axes


def _row(rows: list[dict[str, Any]], path: str, algo: str, size: str, competing: bool) -> dict[str, Any]:
    return next(r for r in rows if (r["path"], r["algorithm"], r["size"], r["competing"], r["replication"]) == (path, algo, size, competing, 0))


def delay_figure(path: str, rows: list[dict[str, Any]], series: dict[Key, dict[str, Any]]) -> Figure:
    """Alone on `path`: the bottleneck's queueing delay during each transfer, and its score."""
    keys = [k for k in series if k[0] == path and not k[3]]
    sizes, algos = _order([k[2] for k in keys]), _order([k[1] for k in keys])
    fig, axes = _panels(f"{path}, alone: bottleneck queueing delay (dotted: the run's p95 over every packet)", sizes)
    for ax, size in zip(axes, sizes):
        for algo in algos:
            if (path, algo, size, False) not in series:
                continue
            t, ms = series[(path, algo, size, False)]["delay"]
            st = style(algo)
            t0 = t[0] if t else 0.0
            ax.step([x - t0 for x in t], ms, where="post", label=algo, gid=f"{algo}/{size}/delay", **st)
            ax.axhline(_row(rows, path, algo, size, False)["delay_p95_ms"], color=st["color"], linestyle=":", linewidth=1, gid=f"{algo}/{size}/delay_p95_ms")
        ax.set_ylabel("queueing delay (ms)")
    axes[0].legend(fontsize="small")
    return fig


def harm_figure(path: str, series: dict[Key, dict[str, Any]]) -> Figure:
    """Against CUBIC on `path`: the CUBIC flow's bytes delivered since each transfer started,
    without the transfer and with it."""
    keys = [k for k in series if k[0] == path and k[3]]
    sizes, algos = _order([k[2] for k in keys]), _order([k[1] for k in keys])
    fig, axes = _panels(f"{path}, against CUBIC: the CUBIC flow's delivery without the transfer (wide grey) and with it", sizes)
    for ax, size in zip(axes, sizes):
        here = [series[(path, a, size, True)] for a in algos if (path, a, size, True) in series]
        # Every algorithm's baseline is the same run cut at its transfer's end: the longest holds all.
        t, d = max((s["without"] for s in here), key=lambda w: w[0][-1])
        # A wide grey band under the curves: no algorithm's style is that (BBR's is near black).
        ax.plot([x - t[0] for x in t], [v / 1e6 for v in d], color="0.55", linewidth=6, alpha=0.45, zorder=1, label="CUBIC alone", gid=f"{size}/without")
        for algo in algos:
            if (path, algo, size, True) not in series:
                continue
            t, d = series[(path, algo, size, True)]["with"]
            ax.plot([x - t[0] for x in t], [v / 1e6 for v in d], label=f"with {algo}", marker="|", markevery=[len(t) - 1], gid=f"{algo}/{size}/with", **style(algo))
        ax.set_ylabel("CUBIC's bytes delivered (MB)")
    axes[0].legend(fontsize="small")
    return fig


def write_figures(folder: Path, rows: list[dict[str, Any]], series: Optional[dict[Key, dict[str, Any]]]) -> dict[str, dict[str, Path]]:
    """The three figures of every path into `folder` as PNG; by path, each figure's file."""
    folder.mkdir(parents=True, exist_ok=True)
    series = series or {}
    written: dict[str, dict[str, Path]] = {}
    for path in _order([r["path"] for r in rows]):
        figures = {"scores": scores_figure(path, rows)}
        if any(k[0] == path and not k[3] for k in series):
            figures["delay"] = delay_figure(path, rows, series)
        if any(k[0] == path and k[3] for k in series):
            figures["harm"] = harm_figure(path, series)
        written[path] = {}
        for kind, fig in figures.items():
            out = folder / f"{path}-{kind}.png"
            fig.savefig(out, dpi=90)
            written[path][kind] = out
    return written
