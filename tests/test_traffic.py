"""Traffic from Python: UDP sources, web workloads, reverse flows and per-class results."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS

import tcpstart as ts

MIX = ts.Scenario(
    network=ts.Dumbbell(rate="10Mbps", rtt="40ms", hosts=2),
    flows=[
        ts.Flow(size="200KB", count=3, interval="100ms", arrivals="poisson", class_="bulk"),
        ts.Flow(size="100KB", direction="reverse", host=1, class_="back"),
    ],
    udp=[ts.Udp(rate="1Mbps", on="100ms", off="100ms", on_off="exponential", stop="2s", class_="cbr")],
    web=[ts.Web(sessions=2, pages=2, class_="web")],
    algorithm="newreno",
    seed=3,
)


def test_class_is_written_as_class_and_read_back() -> None:
    d = MIX.to_dict()
    assert d["flows"][0]["class"] == "bulk" and "class_" not in d["flows"][0]
    assert d["udp"][0] == {"rate": "1Mbps", "on": "100ms", "off": "100ms", "on_off": "exponential",
                           "stop": "2s", "class": "cbr"}  # fmt: skip
    again = ts.Scenario.from_dict(d)
    assert again == MIX


def test_explicit_starts_replace_start_and_count() -> None:
    d = ts.Flow(size=1000, starts=["1s", "2s"]).to_dict()
    assert "start" not in d and "count" not in d
    resolved = ts.Scenario(flows=[ts.Flow(size=1000, starts=["1s", "1.5s"])]).validate()
    assert resolved["flows"][0]["starts"] == ["1s", "1500ms"] and "start" not in resolved["flows"][0]


def test_mix_runs_and_reports_per_class() -> None:
    res = ts.run(MIX)
    classes = res.classes
    assert set(classes["class"]) == {"bulk", "back", "cbr", "web"}
    bulk = classes.filter(classes["class"] == "bulk").row(0, named=True)
    assert bulk["flows"] == 3 and bulk["completed"] == 3 and bulk["ct_p50"] > 0
    udp = res.udp.row(0, named=True)
    assert udp["class"] == "cbr" and udp["sent_packets"] == udp["delivered_packets"] + udp["lost_packets"]
    back = res.summary.filter(res.summary["class"] == "back").row(0, named=True)
    assert back["direction"] == "reverse" and back["host"] == 1


def test_a_ticked_source_round_trips_and_sends_in_bursts(tmp_path: Path) -> None:
    sc = ts.Scenario(
        network=ts.Dumbbell(rate="10Mbps", rtt="40ms"),
        udp=[ts.Udp(rate="4Mbps", packet_size=1472, stop="1s", tick="10ms")],
        trace=ts.Trace(packets=True),
    )
    assert sc.to_dict()["udp"][0]["tick"] == "10ms"
    assert sc.validate()["udp"][0]["tick"] == "10ms"
    path = tmp_path / "ticked.toml"
    path.write_text(sc.to_toml())
    assert 'tick = "10ms"' in path.read_text()
    back = ts.Scenario.from_toml(path)  # written with every default filled in
    assert back.udp[0].tick == "10ms" and back.validate() == sc.validate()
    packets = ts.run(sc).packets
    sends = packets.filter(packets["event"] == "send")["t"].to_list()
    # One datagram due every 3 ms (1500 IP bytes at 4 Mbps), sent on the 10 ms ticks: the first
    # alone at 0, then 3 or 4 a tick; those due after 990 ms would leave at the 1 s tick, at stop.
    assert len(sends) == 331
    per_tick: dict[int, int] = {}
    for t in sends:
        assert abs(t * 100 - round(t * 100)) < 1e-6, t
        per_tick[round(t * 100)] = per_tick.get(round(t * 100), 0) + 1
    assert sorted(set(list(per_tick.values())[1:])) == [3, 4]


def test_bad_traffic_fields_name_the_field() -> None:
    with pytest.raises(ts.ScenarioError, match=r"^udp\[0\]\.rate: must be between 1Kbps and 10000Gbps"):
        ts.Scenario(udp=[ts.Udp(rate="0bps")], duration="1s").validate()
    with pytest.raises(ts.ScenarioError, match=r"^udp\[0\]\.tick: must be between 1µs and 1s, got 0s"):
        ts.Scenario(udp=[ts.Udp(tick="0s")], duration="1s").validate()
    with pytest.raises(ts.ScenarioError, match=r"^web\[0\]\.object_packets_shape: must be more than 1"):
        ts.Scenario(web=[ts.Web(object_packets_shape=0.9)]).validate()


@pytest.mark.parametrize(
    "name",
    ["jump-start-single", "jump-start-200", "jump-start-web", "nasa-multiflow", "ehstcp-2.5g", "ehstcp-1g",
     "web-200-hosts"],
)  # fmt: skip
def test_paper_scenarios_are_valid(name: str) -> None:
    resolved = ts.load_scenario(SCENARIOS / f"{name}.toml").validate()
    assert resolved["flows"] or resolved["web"]
