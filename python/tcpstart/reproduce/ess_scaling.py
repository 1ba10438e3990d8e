"""ESS section 4.1's summary: "ESS has the best performance compared to the other four algorithms
in three aspects: the speed of congestion window growth, slow-start exit time selection and the
size of data transferred per unit time, and all the advantages increase with the increase of
network bandwidth and RTT."

Graded on the two series the paper varies: Figure 5 (10 Mbps, RTprop 12 to 102 ms) and Figure 6
(RTprop 22 ms, 5 to 50 Mbps). ESS's advantage in each aspect is taken over the best of the other
graded algorithms on the path, so "increases" means ESS pulls away from the whole field.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from tcpstart.reproduce.report import Report, Value, judge

# Per (path, algorithm): the start-up metrics of `ess._metrics`.
Metrics = dict[tuple[Any, str], dict[str, Any]]


def _growth(metrics: Metrics, path: Any, others: Sequence[str]) -> float:
    """The next fastest algorithm's time from the SYN to cwnd_best over ESS's (above 1: ESS faster)."""
    def t(a: str) -> float:
        x = metrics[(path, a)]["time_to_best_s"]
        return math.inf if x is None else x

    return min(t(a) for a in others) / t("ess")


def _exit(metrics: Metrics, path: Any, others: Sequence[str]) -> float:
    """How much closer to cwnd_best ESS leaves slow start than the closest other, in cwnd_best
    (|exit / cwnd_best - 1| of the closest other minus ESS's; above 0: ESS closer)."""
    def err(a: str) -> float:
        x = metrics[(path, a)]["exit_over_best"]
        return math.inf if x is None else abs(x - 1)

    return min(err(a) for a in others) - err("ess")


def _delivered(metrics: Metrics, path: Any, others: Sequence[str]) -> float:
    """ESS's data delivered in the start-up span over the most any other delivered (above 1: ESS more)."""
    return metrics[(path, "ess")]["delivered_bytes_at"] / max(metrics[(path, a)]["delivered_bytes_at"] for a in others)


# (aspect, how a step must rise: "ratio" relative, "difference" absolute, the advantage).
ASPECTS: list[tuple[str, str, Callable[[Metrics, Any, Sequence[str]], float]]] = [
    ("speed of window growth (next fastest's time to cwnd_best / ESS's)", "ratio", _growth),
    ("slow-start exit selection (closest other's |exit / cwnd_best - 1| minus ESS's)", "difference", _exit),
    ("data transferred in the start-up span (ESS / the most of the others)", "ratio", _delivered),
]


def rises(xs: Sequence[float], kind: str, resolution: float) -> list[bool]:
    """Per step of a series: does the advantage rise by more than the resolution (relative for a
    ratio, absolute for a difference)?"""
    if kind == "ratio":
        return [b > a * (1 + resolution) for a, b in zip(xs, xs[1:])]
    return [b > a + resolution for a, b in zip(xs, xs[1:])]


def claims(
    report: Report,
    metrics: Metrics,
    series: dict[str, list[Any]],
    others: Sequence[str],
    label: Callable[[Any], str],
    resolution: float,
) -> None:
    """One claim per aspect: the advantage rises at every step of every series (the paper's
    "increase with bandwidth and RTT"), and is an advantage (ESS ahead) at the end of each."""
    for aspect, kind, advantage in ASPECTS:
        values, parts, holds = [], [], True
        for name, paths in series.items():
            xs = [advantage(metrics, p, others) for p in paths]
            steps = rises(xs, kind, resolution)
            ahead = xs[-1] > (1 if kind == "ratio" else 0)
            holds = holds and all(steps) and ahead
            values += [Value(f"{name}, {label(p)}", None, None if math.isinf(x) else x) for p, x in zip(paths, xs)]
            parts.append(
                f"{name}: " + " -> ".join("never" if math.isinf(x) else f"{x:.2f}" for x in xs)
                + f" (rises in {sum(steps)} of {len(steps)} steps; ESS {'ahead' if ahead else 'not ahead'} at the largest)"
            )
        step = f"{resolution:.0%} relative" if kind == "ratio" else f"{resolution:g} cwnd_best"
        report.add(
            "Section 4.1 summary",
            f"ESS's advantage in {aspect.split(' (')[0]} increases with bandwidth and with RTT",
            values,
            judge(
                holds,
                False,
                f"{aspect}: " + "; ".join(parts) + f". Reproduced when it rises by more than {step} at every step of "
                "both series and ESS is ahead at the largest",
            ),
        )
