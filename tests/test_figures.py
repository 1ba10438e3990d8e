"""Figures a reader can use: one style per algorithm, clipping, small multiples, no overprinting."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from matplotlib.figure import Figure

import tcpstart as ts
from conftest import SCENARIOS
from tcpstart import style
from tcpstart.cli import compare_figures
from tcpstart.figcheck import problems
from tcpstart.plot import KINDS


def _names() -> list[str]:
    """The built-in algorithms: a fresh process, since other tests register Python controllers."""
    code = "import json, tcpstart; print(json.dumps([a['name'] for a in tcpstart.algorithms()]))"
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_every_algorithm_has_its_own_look() -> None:
    looks = {(style.style(n)["color"], style.style(n)["linestyle"]) for n in _names()}
    assert len(looks) == len(_names())
    assert all(style.family(n) != "other" for n in _names()), "an algorithm without a family"
    assert style.style("my-own-cc") == style.style("my-own-cc")  # stable for unknown names


@pytest.mark.parametrize("scenario", ["two-flows-shared.toml", "lossy-link.toml", "pcap-example.toml"])
def test_result_figures_are_readable(scenario: str) -> None:
    res = ts.run(SCENARIOS / scenario)
    for kind in KINDS:
        assert problems(res.plot(kind)) == [], kind


@pytest.mark.parametrize("shared", [False, True])
def test_compare_figures_are_readable(shared: bool) -> None:
    net = ts.Dumbbell(rate="20Mbps", rtt="200ms", queue="1bdp")
    if shared:
        results = {"shared": ts.run(ts.Scenario(net, [ts.Flow(n) for n in _names()], duration="10s"))}
    else:
        results = {n: ts.run(ts.Scenario(net, [ts.Flow(n, size="1MB")])) for n in _names()}
    for fig in compare_figures(results, shared):
        assert problems(fig) == []


def test_many_curves_become_small_multiples_and_a_dwarfing_curve_is_clipped() -> None:
    names = _names()
    scn = ts.Scenario(
        network=ts.Dumbbell(rate="20Mbps", rtt="200ms", queue="1bdp"),
        flows=[ts.Flow(n) for n in names],
        duration="5s",
    )
    fig = ts.run(scn).plot("cwnd")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(style.FAMILIES)
    assert problems(fig) == []
    # Jump Start's first window (the receive window) dwarfs the rest: the axes stop below it.
    jump = next(ax for ax in panels if ax.get_title() == "start-up")
    assert any("clipped: " in t.get_text() and "jump-start" in t.get_text() for t in jump.texts)


def test_rtt_samples_are_points_not_lines() -> None:
    fig = ts.run(SCENARIOS / "two-flows-shared.toml").plot("rtt")
    for line in fig.axes[0].get_lines():
        assert line.get_linestyle() == "None" and line.get_marker() == "."


def test_the_check_finds_overprinted_ticks_and_a_legend_on_the_data() -> None:
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot(np.linspace(0.2, 3, 50), np.linspace(0, 1, 50), label="data")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter("{x:.1f}")  # every minor tick labelled: they run into each other
    assert any("tick labels" in p for p in problems(fig))
    fig = Figure(figsize=(4, 3))
    ax = fig.add_subplot()
    ax.plot(np.full(100, 0.5), np.linspace(0, 1, 100), label="a vertical curve under the legend")
    ax.set_xlim(0, 1)
    ax.legend(loc="center")
    assert any("the legend covers" in p for p in problems(fig))
