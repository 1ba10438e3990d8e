"""The Python API: scenario objects, run(), Result, saving and loading."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from matplotlib.figure import Figure

import tcpstart as ts
from conftest import SCENARIOS

SMALL = ts.Scenario(network=ts.Dumbbell(rate="20Mbps", rtt="200ms"), flows=[ts.Flow("newreno", size="1MB")])


def test_to_dict_has_only_the_fields_given() -> None:
    assert SMALL.to_dict() == {
        "network": {"rate": "20Mbps", "rtt": "200ms"},
        "flows": [{"algorithm": "newreno", "size": "1MB"}],
    }
    # The defaults are the core's (no rtt here: delay replaces the default rtt).
    assert ts.Dumbbell(delay="50ms").to_dict() == {"delay": "50ms"}
    assert ts.Scenario(flows=[ts.Flow()]).to_dict() == {"flows": [{}]}


def test_scenario_round_trip() -> None:
    scenario = ts.Scenario(
        network=ts.Dumbbell(rate="100Mbps", rtt="40ms", queue="100pkt", loss=0.001, access_delay="1ms"),
        flows=[
            ts.Flow("reno", size="2MB", params={"abc": 2}, tcp=ts.Tcp(initial_window=4)),
            ts.Flow("newreno", start="1s", count=2),
        ],
        tcp=ts.Tcp(mss=1448, sack=False, rto_min="200ms"),
        duration="10s",
        seed=7,
        trace=ts.Trace(interval="10ms", packets=True, pcap=["bottleneck"]),
    )
    again = ts.Scenario.from_dict(scenario.to_dict())
    assert again == scenario
    assert again.to_dict() == scenario.to_dict()


def test_load_scenario_round_trip() -> None:
    scenario = ts.load_scenario(SCENARIOS / "two-flows-shared.toml")
    assert [f.algorithm for f in scenario.flows] == ["reno", "newreno"]
    assert ts.Scenario.from_dict(scenario.to_dict()) == scenario


def test_load_scenario_errors(tmp_path: Path) -> None:
    with pytest.raises(ts.ScenarioError, match="missing.toml: no such file"):
        ts.load_scenario(tmp_path / "missing.toml")
    with pytest.raises(ts.ScenarioError, match="cannot read"):
        ts.load_scenario(tmp_path)
    (tmp_path / "bad.toml").write_text("seed = 1\n[network\n")
    with pytest.raises(ts.ScenarioError, match=r"bad.toml: invalid TOML.*line 2"):
        ts.load_scenario(tmp_path / "bad.toml")
    (tmp_path / "binary.toml").write_bytes(b"seed = \xff\n")
    with pytest.raises(ts.ScenarioError, match="binary.toml"):
        ts.load_scenario(tmp_path / "binary.toml")
    (tmp_path / "wrong.toml").write_text('[network]\nrate = "20Mbps"\nrtt = "200ms"\n[[flows]]\nsize = "1XB"\n')
    with pytest.raises(ValueError, match=r"wrong.toml: flows\[0\].size: "):
        ts.load_scenario(tmp_path / "wrong.toml")


def test_invalid_scenario_objects_are_reported_by_field() -> None:
    bad = ts.Scenario(network=ts.Dumbbell(rate="-5Mbps"), flows=[ts.Flow(size="1MB")])
    with pytest.raises(ts.ScenarioError, match=r"^network.rate: .*-5Mbps"):
        ts.run(bad)
    with pytest.raises(ts.ScenarioError, match=r"^flows\[0\].params.nope: "):
        ts.run(ts.Scenario(flows=[ts.Flow(size="1MB", params={"nope": 1})]))
    with pytest.raises(ts.ScenarioError, match="^flows: "):
        ts.run(ts.Scenario())
    with pytest.raises(ts.ScenarioError, match="^a scenario must be a Scenario, a dict or the path of a TOML file, got int$"):
        ts.run(42)  # type: ignore[arg-type]


def test_run_accepts_object_dict_and_path() -> None:
    from_object = ts.run(SMALL)
    from_dict = ts.run(SMALL.to_dict())
    from_path = ts.run(SCENARIOS / "dumbbell-newreno.toml")
    from_str = ts.run(str(SCENARIOS / "dumbbell-newreno.toml"))
    for other in (from_dict, from_path, from_str):
        assert other.summary.equals(from_object.summary)


def test_same_seed_same_result() -> None:
    a, b = ts.run(SCENARIOS / "lossy-link.toml"), ts.run(SCENARIOS / "lossy-link.toml")
    assert a.raw_summary == b.raw_summary
    for name in ("summary", "links", "flows", "queues"):
        assert getattr(a, name).equals(getattr(b, name)), name
    traced = ts.Scenario.from_toml(SCENARIOS / "pcap-example.toml")
    a, b = ts.run(traced), ts.run(traced)
    assert a.packets is not None and a.packets.equals(b.packets)
    assert a.pcaps == b.pcaps


def test_seed_changes_random_losses() -> None:
    scenario = ts.load_scenario(SCENARIOS / "lossy-link.toml")
    first = ts.run(scenario)
    scenario.seed = 2
    assert not ts.run(scenario).flows.equals(first.flows)


def test_result_tables() -> None:
    # A queue much smaller than the BDP makes slow start overflow it.
    res = ts.run(ts.Scenario(network=ts.Dumbbell(queue="20pkt"), flows=[ts.Flow(size="1MB")]))
    flow = res.summary.row(0, named=True)
    assert flow["completed"] and flow["size"] == 1_000_000
    assert flow["bytes_acked"] >= 1_000_000
    assert math.isclose(flow["bdp_bytes"], 20e6 / 8 * 0.2, rel_tol=0.01)
    assert "bottleneck" in res.links["name"].to_list()
    assert res.packets is None and res.pcaps == {}
    flows = res.flows
    assert set(flows.columns) >= {"t", "flow", "cwnd", "ssthresh", "inflight", "srtt", "rtt", "pacing_rate", "delivered", "retransmissions", "phase"}
    assert flows["t"].is_sorted()
    # ssthresh starts infinite (null) and is set by the first loss
    assert flows["ssthresh"][0] is None
    assert flows["ssthresh"].drop_nulls().max() < 2**62
    assert flow["drops"] > 0 and flow["ss_exit_time"] is not None
    assert flows["delivered"].max() == flow["bytes_acked"]
    assert set(res.queues.columns) >= {"t", "link", "packets", "bytes"}


def test_summary_has_the_agreed_fields() -> None:
    """The fields the Python side and users rely on; the core may add more."""
    summary = ts.run(SCENARIOS / "two-flows-shared.toml").raw_summary
    flow_fields = {
        "id", "algorithm", "start", "size", "completed", "completion_time", "goodput_bps", "bytes_acked",
        "retransmissions", "timeouts", "drops", "max_cwnd", "ss_exit_time", "ss_exit_cwnd", "bdp_bytes",
        "time_to_bdp", "base_rtt",
    }  # fmt: skip
    link_fields = {
        "name", "rate_bps", "utilization", "drops", "max_queue_packets", "mean_queue_packets", "max_queue_bytes",
        "packets_sent",
    }  # fmt: skip
    assert all(flow_fields <= set(f) for f in summary["flows"])
    assert all(link_fields <= set(link) for link in summary["links"])
    assert {"end_time", "events"} <= set(summary["sim"])
    assert {"packets_created", "delivered", "dropped", "in_network", "ok"} <= set(summary["invariants"])
    assert [f["id"] for f in summary["flows"]] == [0, 1]
    assert {"bottleneck", "bottleneck_rev", "sender0_out", "receiver1_in"} <= {link["name"] for link in summary["links"]}


def test_save_and_load(tmp_path: Path) -> None:
    res = ts.run(ts.load_scenario(SCENARIOS / "pcap-example.toml"))
    res.save(tmp_path / "res")
    back = ts.Result.load(tmp_path / "res")
    assert back.raw_summary == res.raw_summary
    assert back.flows.equals(res.flows) and back.queues.equals(res.queues)
    assert back.packets is not None and back.packets.equals(res.packets)
    assert back.pcaps == res.pcaps
    assert back.scenario == res.scenario


def test_failed_save_leaves_the_old_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = ts.run(SMALL)
    target = tmp_path / "res"
    res.save(target)
    before = sorted(p.name for p in target.iterdir())

    def half_write(self: ts.Result, directory: Path) -> None:
        (directory / "summary.json").write_text("{")
        raise OSError("disk full")

    monkeypatch.setattr(ts.Result, "write_into", half_write)
    with pytest.raises(OSError, match="disk full"):
        res.save(target)
    assert [p.name for p in tmp_path.iterdir()] == ["res"]
    assert sorted(p.name for p in target.iterdir()) == before
    assert ts.Result.load(target).raw_summary["flows"] == res.raw_summary["flows"]


def test_plots() -> None:
    res = ts.run(SMALL)
    for kind in ("cwnd", "inflight", "rtt", "seq", "queue"):
        assert isinstance(res.plot(kind), Figure)
    with pytest.raises(ValueError, match="unknown plot kind"):
        res.plot("pie")


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_example_scenario_runs(path: Path) -> None:
    res = ts.run(path)
    end = res.raw_summary["sim"]["end_time"]
    started = [f for f in res.raw_summary["flows"] if f["start"] is not None]
    # Web objects of pages that had not begun when a timed run ended never start.
    assert started
    for flow in started:
        # A sized flow finishes, unless it began in the last tenth of a timed run.
        if flow["size"] is not None and flow["start"] < 0.9 * end:
            assert flow["completed"], f"{path.name}: flow {flow['id']} did not finish"
        assert flow["bytes_acked"] > 0 or flow["start"] > 0.9 * end


def test_algorithms_registry() -> None:
    names = [a["name"] for a in ts.algorithms()]
    assert "reno" in names and "newreno" in names


def test_exported_names_survive_importing_every_module() -> None:
    # A module named like an export would replace it on import (tcpstart.run was one).
    import importlib
    import pkgutil
    import types

    for m in pkgutil.iter_modules(ts.__path__):
        if m.name != "__main__":
            importlib.import_module(f"tcpstart.{m.name}")
    for name in ts.__all__:
        assert not isinstance(getattr(ts, name), types.ModuleType), name


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.name)
def test_every_committed_scenario_file_is_valid(path: Path) -> None:
    scenario = ts.load_scenario(path)
    assert scenario.flows or scenario.to_dict().get("web") or scenario.to_dict().get("udp")
