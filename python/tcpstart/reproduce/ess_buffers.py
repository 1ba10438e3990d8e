"""The ESS reproduction's buffer sweep drawn: the paper gives no bottleneck buffer, and ESS (unpaced
in the paper) raises its window to about the BDP in one step, so whether that burst fits the
buffer decides its losses and, through them, most verdicts. `ess._queue_sensitivity` runs every
claim at each buffer; this module draws the outcome per path and counts the verdicts per buffer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import matplotlib.ticker

from tcpstart.reproduce.report import save_figure


def buffer_bdp(queue: str, bdp_packets: float) -> float:
    """A queue setting ("0.5bdp", "100pkt") in BDPs of the path."""
    if queue.endswith("bdp"):
        return float(queue[: -len("bdp")])
    if queue.endswith("pkt"):
        return float(queue[: -len("pkt")]) / bdp_packets
    raise ValueError(f"queue {queue!r}: expected NUMBERbdp or NUMBERpkt")


def lossless_from(runs: dict[str, list[dict[str, Any]]], bdp: dict[str, float]) -> dict[str, float]:
    """Per path: the smallest buffer (in BDPs) of the sweep from which ESS loses nothing at it and
    at every larger buffer (inf: it loses even at the largest)."""
    out = {}
    for path, packets in bdp.items():
        points = sorted(
            (buffer_bdp(q, packets), next(m["losses"] for m in rs if m["path"] == path and m["algorithm"] == "ess"))
            for q, rs in runs.items()
        )
        smallest = float("inf")
        for size, losses in reversed(points):
            if losses:
                break
            smallest = size
        out[path] = smallest
    return out


def figure(
    runs: dict[str, list[dict[str, Any]]], bdp: dict[str, float], reproduced: dict[str, int], counted: int
) -> Callable[[Path], None]:
    """`runs`: per queue setting the rows of `ess._runs`; `bdp`: per path label its BDP in packets;
    `reproduced`: per queue setting the number of claims reproduced (of `counted`)."""

    def draw(path: Path) -> None:
        fig, (left, mid, right) = plt.subplots(1, 3, figsize=(15, 4.4))
        cmap = plt.get_cmap("viridis")
        for k, (label, packets) in enumerate(bdp.items()):
            color = cmap(k / max(1, len(bdp) - 1))
            points = sorted(
                (buffer_bdp(q, packets), next(m for m in rs if m["path"] == label and m["algorithm"] == "ess"))
                for q, rs in runs.items()
            )
            x = [p for p, _ in points]
            left.plot(x, [m["losses"] for _, m in points], "o-", color=color, ms=3, lw=1,
                      label=f"{label} (BDP {packets:.0f} pkt)")
            mid.plot(x, [m["exit_over_best"] for _, m in points], "o-", color=color, ms=3, lw=1)
        for ax in (left, mid):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator([0.25, 0.5, 1, 2, 4, 8, 16, 32]))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.set_xlabel("bottleneck buffer (BDPs of the path, log)")
            ax.axvline(1, color="grey", lw=0.8, ls=":")
        left.set_ylabel("ESS segments retransmitted in the first 30 RTprop")
        left.set_title("(a) ESS's losses", fontsize=10)
        left.legend(fontsize=7)
        mid.axhline(1, color="k", ls="--", lw=0.8)
        mid.set_ylabel("ESS exit window / cwnd_best (packets)")
        mid.set_title("(b) where ESS leaves slow start", fontsize=10)
        names = list(reproduced)
        right.bar(range(len(names)), [reproduced[n] for n in names], color="tab:blue")
        right.set_xticks(range(len(names)), names, rotation=30, fontsize=8)
        right.set_ylim(0, counted)
        right.set_ylabel(f"claims reproduced (of {counted})")
        right.set_title("(c) verdicts per buffer setting", fontsize=10)
        save_figure(fig, path, "ESS against the bottleneck buffer (the paper gives none; 100pkt is our choice)")

    return draw
