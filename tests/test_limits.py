"""Runs are sized before they are spent (issue 17): the core estimates a run from its scenario
and refuses one beyond its limits in one line naming the field, through every entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tcpstart as ts
from tcpstart.reproduce import ehstcp, jump_start

BENCHMARKS = Path(ts.__file__).resolve().parent / "benchmarks"

# Issue 17's scenarios, each with the field its refusal must name.
WEB_1E6 = ts.Scenario(ts.Dumbbell(rate="100Mbps", rtt="40ms"), web=[ts.Web(page_objects_mean=1e6)], duration="10s")
COUNTED = ts.Scenario(ts.Dumbbell(rate="100Mbps", rtt="40ms"), [ts.Flow(count=100_000) for _ in range(10)], duration="1s")
PACKETS_1G = ts.Scenario(ts.Dumbbell(rate="1Gbps", rtt="40ms"), [ts.Flow()], duration="1000s", trace=ts.Trace(packets=True))
FAST_LONG = ts.Scenario(ts.Dumbbell(rate="100Gbps", rtt="40ms"), [ts.Flow()], duration="1000s")
ISSUE = [
    (WEB_1E6, "web[0].page_objects_mean"),
    (COUNTED, "flows[0].count"),
    (PACKETS_1G, "trace.packets"),
    (FAST_LONG, "duration"),
]


@pytest.mark.parametrize("scenario, field", ISSUE, ids=[f for _, f in ISSUE])
def test_issue_scenarios_are_refused_in_one_line_before_anything_is_spent(scenario: ts.Scenario, field: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ts.ScenarioError) as e:
        ts.run(scenario)
    message = str(e.value)
    assert message.startswith(f"{field}: the run would "), message
    assert "\n" not in message and "above the limit" in message and "TCPSTART_LIMITS=" in message
    # The same refusal from validation, and nothing allocated per connection or object first.
    with pytest.raises(ts.ScenarioError) as again:
        scenario.validate()
    assert str(again.value) == message
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("scenario, field", ISSUE, ids=[f for _, f in ISSUE])
def test_estimate_reports_the_refusal_with_the_figures(scenario: ts.Scenario, field: str) -> None:
    e = ts.estimate(scenario)
    assert e["refusal"] is not None and e["refusal"].startswith(f"{field}: ")
    assert e["limits"] == {"memory": 4_000_000_000, "packets": 1_000_000_000}
    assert e["memory_bytes"] > e["limits"]["memory"] or e["packets"] > e["limits"]["packets"]


def test_the_cli_refuses_with_exit_2_and_no_traceback(cli, tmp_path: Path) -> None:
    path = tmp_path / "web.toml"
    path.write_text('duration = "10s"\n[network]\nrate = "100Mbps"\nrtt = "40ms"\n[[web]]\npage_objects_mean = 1e6\n')
    status, out, err = cli("validate", path)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "web[0].page_objects_mean: the run would need about" in err, err


def test_limits_in_the_scenario_raise_them() -> None:
    raised = ts.Scenario(FAST_LONG.network, FAST_LONG.flows, duration="1000s", limits=ts.Limits(packets=2e10))
    e = ts.estimate(raised)
    assert e["refusal"] is None and e["limits"]["packets"] == 20_000_000_000
    raised.validate()
    round_trip = ts.Scenario.from_dict(raised.to_dict())
    assert round_trip.limits == ts.Limits(packets=2e10)
    with pytest.raises(ts.ScenarioError, match=r"^limits\.memory: must be between"):
        ts.estimate(ts.Scenario(FAST_LONG.network, FAST_LONG.flows, duration="1s", limits=ts.Limits(memory="1KB")))


def _validate_in_child(tmp_path: Path, toml: str, env: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "s.toml"
    path.write_text(toml)
    child_env = {**os.environ, "TCPSTART_LIMITS": env}
    return subprocess.run(
        [sys.executable, "-m", "tcpstart", "validate", str(path)], capture_output=True, text=True, env=child_env
    )


def test_the_environment_variable_raises_the_limits_of_every_scenario(tmp_path: Path) -> None:
    toml = 'duration = "1000s"\n[network]\nrate = "100Gbps"\nrtt = "40ms"\n[[flows]]\n'
    assert _validate_in_child(tmp_path, toml, "").returncode == 2
    assert _validate_in_child(tmp_path, toml, "packets=2e10").returncode == 0
    bad = _validate_in_child(tmp_path, toml, "packets=lots")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "TCPSTART_LIMITS: packets" in bad.stderr


def test_the_estimate_is_near_the_run() -> None:
    scn = ts.Scenario(ts.Dumbbell(rate="20Mbps", rtt="100ms"), [ts.Flow(count=3), ts.Flow(size="2MB", direction="reverse")], duration="10s")
    e = ts.estimate(scn)
    assert e["refusal"] is None and e["connections"] == 4 and e["simulated_seconds"] == 10
    links = ts.run(scn).links
    carried = links.filter(links["name"].str.starts_with("bottleneck"))["packets_sent"].sum()
    assert 1 / 1.3 < e["packets"] / carried < 1.3, (e["packets"], carried)
    assert 0 < e["cpu_seconds"] < 1 and 0 < e["memory_bytes"] < 100e6


def test_a_scenario_within_its_limits_is_validated_by_estimate() -> None:
    with pytest.raises(ts.ScenarioError, match=r"^flows\[0\]\.algorithm"):
        ts.estimate(ts.Scenario(ts.Dumbbell(rate="20Mbps", rtt="100ms"), [ts.Flow("warp", size="1MB")]))


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_benchmark_is_within_the_default_limits(path: Path) -> None:
    d = ts.scenario.read_scenario_file(path)
    d.pop("benchmark")
    assert ts.estimate(d)["refusal"] is None


def test_the_heaviest_reproductions_are_within_the_default_limits() -> None:
    full = ehstcp.FULL
    heaviest = [
        ehstcp._scenario(max(full.speeds_bps), "ehstcp", 1, full.duration, full.duration),
        ehstcp._scenario(1e9, "ehstcp", 1, full.table2_duration, full.table2_duration, (None, "50ms")),
        jump_start._web("jump-start", 1),
        jump_start._contention("newreno", 0.05),
    ]
    for scn in heaviest:
        e = ts.estimate(scn)
        assert e["refusal"] is None and e["memory_bytes"] < 2e9, e
