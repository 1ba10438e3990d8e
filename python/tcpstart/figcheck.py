"""A visual check of figures: tick labels that overprint each other, legends drawn over the data.

Used by the tests on every kind of figure the project draws; usable on any matplotlib Figure.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

# A legend may sit on this share of a curve's points (a corner of a long curve) without hiding it.
LEGEND_COVER = 0.05


def problems(fig: Figure) -> list[str]:
    """What a reader could not read: one line per problem, empty when the figure is clean."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    found: list[str] = []
    for i, ax in enumerate(a for a in fig.axes if a.get_visible()):
        name = ax.get_title() or f"axes {i}"
        found += [f"{name}: {p}" for p in _tick_overlaps(ax, renderer) + _legend_cover(ax, renderer)]
    return found


def _tick_overlaps(ax: Axes, renderer: RendererBase) -> list[str]:
    out = []
    for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        labels = [t for t in axis.get_ticklabels(which="both") if t.get_visible() and t.get_text()]
        boxes = [(t.get_text(), t.get_window_extent(renderer).shrunk(0.98, 0.98)) for t in labels]
        for (a, box_a), (b, box_b) in combinations(boxes, 2):
            if box_a.overlaps(box_b):
                out.append(f"{axis_name} tick labels {a!r} and {b!r} overlap")
                break
    return out


def _legend_cover(ax: Axes, renderer: RendererBase) -> list[str]:
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return []
    box = legend.get_window_extent(renderer)
    out = []
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), dtype=float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if str(line.get_label()).startswith("_") or len(xy) == 0:
            continue
        # The line's own transform: axhline's x is in axes units, a curve's in data units.
        points = line.get_transform().transform(xy)
        visible = _inside(ax.bbox, points)
        covered = visible & _inside(box, points)
        if visible.any() and covered.sum() / visible.sum() > LEGEND_COVER:
            out.append(f"the legend covers {covered.sum() / visible.sum():.0%} of {line.get_label()!r}")
    return out


def _inside(box: Bbox, points: np.ndarray) -> np.ndarray:
    return (points[:, 0] >= box.x0) & (points[:, 0] <= box.x1) & (points[:, 1] >= box.y0) & (points[:, 1] <= box.y1)
