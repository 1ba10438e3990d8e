"""Modified Swift Start with cross traffic: capacity, not available bandwidth.

Section 2.2 of the paper: with the pair measured at the receiver "the estimated capacity is the
actual capacity without neither over estimation nor under estimation. So it is not needed to use
only a fraction of the capacity like the traditional Swift Start" (whose gamma divides the
estimate). The paper shows no run with other traffic. A packet pair measures the bottleneck's
capacity: when other traffic holds part of the link the pair still leaves it one frame time apart,
so the window is the capacity's, not what is left. We run it: one 1 MB transfer on the T1 path of
Figures 8/9 (link delay 0.1 s) next to on/off UDP holding 0-75 % of the link on average, against
Swift Start with gamma 1 and 4, as a campaign (`tcpstart.Sweep`) with replications.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import polars as pl

from tcpstart.reproduce.report import Choice, Report, Table, Value, judge, judge_values, mean_ci, save_figure
from tcpstart.scenario import Scenario, Udp
from tcpstart.sweep import ReplicationWarning, Sweep

# Mean share of the T1 link the UDP holds.
LOADS = (0.0, 0.25, 0.5, 0.75)
ALGOS: tuple[tuple[str, str, dict[str, float]], ...] = (
    ("Modified Swift Start", "modified-swift-start", {}),
    ("Swift Start, gamma 1", "swift-start", {"gamma": 1.0}),
    ("Swift Start, gamma 4", "swift-start", {"gamma": 4.0}),
)
# On/off UDP with exponential periods: on at twice the mean load, so the queue the pair meets
# changes from run to run; the periods' mean, our choice, with its alternatives.
PERIOD = "100ms"
PERIOD_ALTERNATIVES = ("10ms", "1s")
UDP_PACKET = 1500
START = 2.0  # s: the transfer starts once the UDP has run for a while
# "Measures the capacity": the mean estimate within this fraction of the one without cross traffic.
SAME = 0.10
# "Not needed to use a fraction": the estimate at most this factor above the available bandwidth's
# window (the uncontended window x (1 - load)).
OVER = 1.10
TICKS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)


def udp(load: float, rate_bps: float, period: str) -> list[dict[str, Any]]:
    """On/off UDP holding `load` of the link on average (none at 0)."""
    if load == 0:
        return []
    on_rate = f"{2 * load * rate_bps:.0f}bps"
    return [Udp(rate=on_rate, packet_size=UDP_PACKET, on=period, off=period, on_off="exponential", stop="60s").to_dict()]


def _key(value: Any) -> str:
    """An axis value as the campaign table holds it (lists and tables as their JSON text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


@dataclass
class Cell:
    """One algorithm at one load: the first estimated window of each replication (None where the
    algorithm gave up its estimate) and the connection times."""

    windows: list[Optional[float]]
    times: list[float]

    def estimated(self) -> list[float]:
        return [w for w in self.windows if w is not None]


def run(base: Scenario, rate_bps: float, replications: int, period: str) -> dict[tuple[str, float], Cell]:
    """The campaign: every algorithm at every load, `replications` seeds each (the same seeds for
    every algorithm: common random numbers), in a store that lives for this call."""
    base = dataclasses.replace(base, flows=[dataclasses.replace(base.flows[0], start=f"{START:g}s")], udp=[])
    loads = {_key(udp(load, rate_bps, period)): load for load in LOADS}
    algos = {(a, _key(p)): label for label, a, p in ALGOS}
    with tempfile.TemporaryDirectory(prefix="tcpstart-mss-cross-") as out:
        sweep = Sweep(
            base,
            {
                ("flows[0].algorithm", "flows[0].params"): [(a, p) for _, a, p in ALGOS],
                "udp": [udp(load, rate_bps, period) for load in LOADS],
            },
            replications=replications,
            out=out,
            keep_traces=True,
        )
        with warnings.catch_warnings():
            # Without UDP nothing is random: those cells' replications are identical by design.
            warnings.simplefilter("ignore", ReplicationWarning)
            sweep.run()
        cells: dict[tuple[str, float], Cell] = {}
        for row in sweep.results().iter_rows(named=True):
            label = algos[(row["flows[0].algorithm"], row["flows[0].params"])]
            cell = cells.setdefault((label, loads[row["udp"]]), Cell([], []))
            cell.windows.append(_first_window(sweep.result(row["run"]).flows))
            cell.times.append(row["completion_time"])
    return cells


def _first_window(flows: pl.DataFrame) -> Optional[float]:
    w = flows.filter(pl.col("phase") == "pacing")["cwnd"]
    return None if w.is_empty() else float(w[0])


def _ratio(cell: Cell, reference: float) -> Optional[tuple[float, float, float]]:
    """Mean estimate / reference with its 95 % interval; None without any estimate."""
    xs = [w / reference for w in cell.estimated()]
    if not xs:
        return None
    return mean_ci(xs) if len(xs) > 1 else (xs[0], xs[0], xs[0])


def capacity_window(cells: dict[tuple[str, float], Cell]) -> Optional[float]:
    """The capacity's window: Modified Swift Start's estimate without UDP (RTT x payload rate of the
    link, deterministic), the reference of every ratio here."""
    (alone,) = set(cells[(ALGOS[0][0], 0.0)].estimated()) or {None}
    return alone


def _verdicts(cells: dict[tuple[str, float], Cell]) -> tuple[list[Value], list[Value]]:
    """Values of the two claims for Modified Swift Start: its estimate over its uncontended one
    (capacity), and over the available bandwidth's window (uncontended x (1 - load))."""
    label = ALGOS[0][0]
    alone = capacity_window(cells)
    capacity, available = [], []
    for load in LOADS[1:]:
        cap = _ratio(cells[(label, load)], alone) if alone else None
        avail = _ratio(cells[(label, load)], alone * (1 - load)) if alone else None
        capacity.append(Value(f"UDP {load:.0%}: estimate / estimate without UDP", 1.0,
                              None if cap is None else cap[0], spread=None if cap is None else cap[1:],
                              spread_kind="95 % CI"))
        available.append(Value(f"UDP {load:.0%}: estimate / available bandwidth's window", None,
                               None if avail is None else avail[0], spread=None if avail is None else avail[1:],
                               paper_range=(None, OVER), spread_kind="95 % CI"))
    return capacity, available


def claims(report: Report, base: Scenario, rate_bps: float, replications: int, quick: bool) -> Callable[[Path], None]:
    cells = run(base, rate_bps, replications, PERIOD)
    capacity, available = _verdicts(cells)
    report.data["cross_traffic"] = {
        f"{label}|{load}": {"windows": c.windows, "times": c.times} for (label, load), c in cells.items()
    }
    cap_verdict = judge_values(capacity, SAME, "estimates", 2.0, series=False)
    worst = max((v.ours or 0 for v in available), default=0)
    avail_ok = all(v.ours is not None and v.ours <= OVER for v in available)
    report.add(
        "Section 2.2",
        "measured at the receiver, the pair gives the actual capacity, neither over- nor under-estimated (run "
        "here with cross traffic)",
        capacity,
        (cap_verdict[0], cap_verdict[1] + f" (the window without UDP, {replications} seeds per load)"),
    )
    report.add(
        "Section 2.2",
        "so Modified Swift Start need not use only a fraction of its estimate, as Swift Start does (run here "
        "with cross traffic)",
        available,
        judge(
            avail_ok,
            False,
            f"with cross traffic the estimate stays at the capacity's window, up to {worst:.2f}x the window of "
            f"the bandwidth left over (allowed: {OVER:g}x); the pair's two segments leave the bottleneck one frame "
            "time apart whatever share the UDP holds, so without a fraction the paced round sends at the "
            "capacity. The paper ran no cross traffic: this tests its claim outside the conditions it showed",
        ),
    )
    alternatives = []
    if not quick:
        for period in PERIOD_ALTERNATIVES:
            cap, avail = _verdicts(run(base, rate_bps, replications, period))
            alternatives.append(
                f"periods {period}: capacity claim **{judge_values(cap, SAME, 'estimates', 2.0, series=False)[0].value}**, "
                f"no-fraction claim **{'reproduced' if all(v.ours is not None and v.ours <= OVER for v in avail) else 'not reproduced'}**"
            )
    report.choices.append(
        Choice(
            "Cross traffic for the Section 2.2 runs (the paper shows none)",
            f"one on/off UDP source, exponential on and off periods of mean {PERIOD}, sending {UDP_PACKET}-byte "
            "packets at twice the mean load while on; loads 25, 50, 75 % of T1; the transfer starts at "
            f"{START:g} s; {replications} seeds per cell, the same seeds for every algorithm",
            "bursty traffic lets the pair meet queues of every length; the period sets how often the queue changes "
            "within a round",
            "; ".join(alternatives) if alternatives else "not run in a smoke test",
        )
    )
    rows = []
    alone = capacity_window(cells)
    for label, _, _ in ALGOS:
        for load in LOADS:
            c = cells[(label, load)]
            est = c.estimated()
            ratio = _ratio(c, alone * (1 - load)) if alone else None
            rows.append([
                label, f"{load:.0%}", f"{sum(est) / len(est):,.0f}" if est else "no estimate",
                f"{len(c.windows) - len(est)} of {len(c.windows)}",
                "-" if ratio is None else f"{ratio[0]:.2f} ({ratio[1]:.2f}-{ratio[2]:.2f})",
                f"{sum(c.times) / len(c.times):.2f}",
            ])
    report.tables.append(
        Table(
            f"Section 2.2 with cross traffic: first estimated window, T1, link delay 0.1 s, 1 MB, on/off UDP "
            f"(periods of mean {PERIOD}); mean of {replications} seeds and 95 % interval",
            ["algorithm", "UDP load", "mean window (B)", "runs without an estimate",
             "window / available bandwidth's window (capacity's window x (1 - load))", "connection time (s)"],
            rows,
        )
    )
    return figure(cells)


def figure(cells: dict[tuple[str, float], Cell]) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        fig, ax = plt.subplots(figsize=(6.5, 4))
        alone = capacity_window(cells)
        for (label, _, _), color in zip(ALGOS, ("tab:red", "tab:blue", "tab:green")):
            if alone is None:
                continue
            xs, ys, lo, hi = [], [], [], []
            for load in LOADS:
                r = _ratio(cells[(label, load)], alone)
                if r is not None:
                    xs.append(100 * load)
                    ys.append(r[0])
                    lo.append(r[0] - r[1])
                    hi.append(r[2] - r[0])
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=3, color=color, label=label)
        loads = [100 * x for x in LOADS]
        ax.plot(loads, [1 - x for x in LOADS], "k--", lw=0.8, label="available bandwidth's window")
        ax.set_yscale("log")
        ax.set_yticks(TICKS, [f"{t:g}" for t in TICKS])
        ax.minorticks_off()
        ax.set_xlabel("mean UDP load (% of T1)")
        ax.set_ylabel("first window / capacity's window (log)")
        ax.legend(fontsize=8)
        save_figure(fig, path, "Cross traffic: T1, link delay 0.1 s, 1 MB (mean and 95 % interval)")

    return draw
