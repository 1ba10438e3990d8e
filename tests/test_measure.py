"""Measured runs (tcpstart.sweep.measure): the reproductions' batching, cached like a campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tcpstart as ts
from tcpstart.sweep import measure as measured
from tcpstart.sweep.measure import identity, measure_groups, measuring

# Groups measured so far by `completion_times` (a global, not a closure: the measure's identity
# includes the values it closes over).
CALLS: list[Any] = []


def _scenario(rtt: str, seed: int = 1) -> ts.Scenario:
    return ts.Scenario(network=ts.Dumbbell(rate="10Mbps", rtt=rtt, loss=0.02), flows=[ts.Flow(size="200KB")], seed=seed)


def _figures(result: ts.Result) -> tuple[float, int]:
    flow = result.raw_summary["flows"][0]
    return flow["completion_time"], flow["retransmissions"]


def completion_times(key: Any, results: list[ts.Result]) -> list[tuple[float, int]]:
    CALLS.append(key)
    return [_figures(r) for r in results]


GROUPS = [((rtt,), [_scenario(rtt, 1), _scenario(rtt, 2)]) for rtt in ("20ms", "40ms", "80ms")]


def _expected() -> dict[Any, list[tuple[float, int]]]:
    return {key: [_figures(ts.run(s)) for s in scenarios] for key, scenarios in GROUPS}


def test_groups_are_measured_in_their_order_as_separate_runs_would_be() -> None:
    got = measure_groups(GROUPS, completion_times, "test", batch=3)
    assert list(got) == [key for key, _ in GROUPS]
    assert got == _expected()
    # Random loss: the two seeds of a group differ, so a mix-up of results would show.
    assert all(a != b for a, b in got.values())


def test_a_store_keeps_the_values_and_rerun_measures_again(tmp_path: Path) -> None:
    CALLS.clear()
    with measuring(store=tmp_path):
        first = measure_groups(GROUPS, completion_times, "test")
        assert len(CALLS) == 3
        again = measure_groups(GROUPS[:2] + [((("160ms",)), [_scenario("160ms")])], completion_times, "test")
        assert len(CALLS) == 4 and CALLS[-1] == ("160ms",)  # only the new group was simulated
        assert again[("20ms",)] == first[("20ms",)]
    with measuring(store=tmp_path, rerun=True):
        assert measure_groups(GROUPS, completion_times, "test") == first
        assert len(CALLS) == 7


def test_a_measure_closing_over_other_values_is_measured_afresh(tmp_path: Path) -> None:
    def scaled(factor: float):
        return lambda key, results: factor * results[0].raw_summary["flows"][0]["completion_time"]

    assert identity(scaled(1.0)) != identity(scaled(2.0))
    assert identity(scaled(1.0)) == identity(scaled(1.0))
    with measuring(store=tmp_path):
        one = measure_groups(GROUPS, scaled(1.0), "test")
        two = measure_groups(GROUPS, scaled(2.0), "test")
    assert all(two[k] == 2 * one[k] for k in one)


def test_an_invalid_scenario_is_named_in_one_line() -> None:
    bad = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", rtt="-5ms"), flows=[ts.Flow(size="60KB")])
    with pytest.raises(ts.ScenarioError, match=r"network\.rtt"):
        measure_groups([("bad", [bad])], completion_times, "test")


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="backend: must be one of local, ray"):
        with measuring(backend="spark"):
            pass


def test_ray_measures_what_the_local_backend_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'tcpstart[ray]')")
    monkeypatch.setattr(measured, "BATCH", 2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    try:
        with measuring(store=tmp_path / "ray", backend="ray"):
            remote = measure_groups(GROUPS, completion_times, "test", batch=2)
    finally:
        ray.shutdown()
    assert remote == _expected()
    assert len(list((tmp_path / "ray" / "packs").glob("*.parquet"))) == 3  # a pack per task
