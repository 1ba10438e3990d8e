"""Time-varying bottlenecks from Python: trace files named relative to their scenario file, and
schedules through the Scenario objects."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcpstart as ts
from tcpstart.scenario import read_scenario_file

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def test_a_trace_file_is_found_relative_to_its_scenario_wherever_tcpstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    d = read_scenario_file(SCENARIOS / "path-cellular-trace.toml")
    assert d["network"]["trace"] == str(SCENARIOS / "traces" / "cellular-driving.trace")
    # A shorter transfer than the file's, through the objects and back to a dict.
    scenario = ts.Scenario.from_dict(d)
    scenario.flows[0].size = "200KB"
    res = ts.run(scenario)
    assert res.raw_summary["flows"][0]["completed"]


def test_a_trace_missing_from_a_scenario_file_is_named_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[network]\nrate = "10Mbps"\nrtt = "40ms"\ntrace = "none.trace"\n[[flows]]\n')
    with pytest.raises(ts.ScenarioError) as e:
        ts.load_scenario(path)
    assert str(e.value) == f'{path}: network.trace: cannot read "{tmp_path / "none.trace"}": no such file'


def test_a_schedule_survives_the_scenario_objects_and_slows_the_transfer() -> None:
    def completion(schedule: list[dict[str, str]] | None) -> float:
        net = ts.Dumbbell(rate="20Mbps", rtt="40ms", schedule=schedule)
        res = ts.run(ts.Scenario(network=net, flows=[ts.Flow(algorithm="cubic", size="5MB")]))
        return res.raw_summary["flows"][0]["completion_time"]

    fixed = completion(None)
    # From 0.5 s the rate is a quarter: the rest of the transfer takes about four times as long.
    stepped = completion([{"at": "0.5s", "rate": "5Mbps"}])
    assert fixed < 2.5 and stepped > 1.8 * fixed, (fixed, stepped)


def test_the_leo_preset_steps_its_rtt_at_the_handover() -> None:
    res = ts.run(SCENARIOS / "path-leo-satellite.toml")
    rtt = res.flows.filter(res.flows["rtt"].is_not_nan())
    before = rtt.filter(rtt["t"] < 15.0)["rtt"]
    after = rtt.filter(rtt["t"] > 15.1)["rtt"]
    # 30 ms before the handover at 15 s (plus at most the 375 KB queue at 100 Mb/s, 30 ms);
    # 40 ms after it, however empty the queue.
    assert len(before) > 10 and len(after) > 10
    assert 0.030 <= before.min() and before.max() < 0.030 + 0.031
    assert after.min() >= 0.040
