"""One look per algorithm, the same in every figure of the project.

Algorithms are grouped in families; a family shares a colour map (blues for the Reno family,
greens for CUBIC, ...) and its members differ in shade and line style, so two dozen curves stay
distinguishable in colour and in black and white. An algorithm outside the table (a user's own)
gets a grey of its own with a line style chosen from its name, the same on every run.
"""

from __future__ import annotations

import zlib
from typing import Any

from matplotlib import colormaps

# Family -> (colour map, members in the order they take shades from dark to light).
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Reno": ("Blues", ("reno", "newreno", "reno+hystartpp", "newreno+hystartpp")),
    "CUBIC": ("Greens", ("cubic", "cubic-nohystart", "cubic+hystartpp")),
    "BBR": ("Greys", ("bbr", "bbr3")),
    "high-speed": ("Purples", ("highspeed", "scalable", "bic", "ehstcp")),
    "start-up": ("Oranges", ("ess", "stopeg", "jump-start")),
    "Swift Start": ("Reds", ("swift-start", "swift-start-bbn", "pacing-only", "modified-swift-start")),
    "SUSS, Careful Resume, Quick-Start": (
        "RdPu",
        ("cubic+suss", "newreno+careful-resume", "newreno+quick-start", "cubic+quick-start"),
    ),
}
LINE_STYLES = ("-", "--", "-.", ":")


def family(algorithm: str) -> str:
    """The family an algorithm belongs to ("other" for one outside the table)."""
    return next((name for name, (_, members) in FAMILIES.items() if algorithm in members), "other")


def style(algorithm: str) -> dict[str, Any]:
    """Keyword arguments for matplotlib's plot/step: color and linestyle."""
    for cmap_name, members in FAMILIES.values():
        if algorithm in members:
            i = members.index(algorithm)
            # Shades from 0.9 (dark) to 0.5, never the near-white end of the map.
            shade = 0.9 - 0.4 * i / max(1, len(members) - 1) if len(members) > 1 else 0.75
            return {"color": colormaps[cmap_name](shade), "linestyle": LINE_STYLES[i % len(LINE_STYLES)]}
    h = zlib.crc32(algorithm.encode())
    return {"color": colormaps["Greys"](0.45 + 0.35 * (h % 7) / 6), "linestyle": LINE_STYLES[h % len(LINE_STYLES)]}
