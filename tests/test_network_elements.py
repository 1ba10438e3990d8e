"""Network elements from Python: dataclasses, TOML round trip, errors and summary fields."""

from __future__ import annotations

import pytest
from conftest import SCENARIOS

import tcpstart as ts


def scenario(**network: object) -> ts.Scenario:
    return ts.Scenario(
        network=ts.Dumbbell(rate="10Mbps", rtt="50ms", queue="100pkt", **network),  # type: ignore[arg-type]
        flows=[ts.Flow("newreno", size="300KB")],
        tcp=ts.Tcp(quickack=16),
    )


def test_elements_reach_the_core_and_resolve_with_defaults() -> None:
    s = scenario(
        aqm=ts.Aqm("red", max_p=0.1),
        reverse_ack_compression=ts.AckCompression("merge", "5ms"),
        ber=1e-7,
        router_pps=5000,
    )
    net = s.validate()["network"]
    assert net["aqm"] == {"kind": "red", "min_th": 5.0, "max_th": 15.0, "weight": 0.002, "max_p": 0.1,
                          "gentle": True, "wait": True, "mean_packet_size": 500}  # fmt: skip
    # Written as given: reverse_router_pps and reverse_aqm default to the forward ones.
    assert net["reverse_aqm"] == net["aqm"]
    assert net["reverse_router_pps"] == 5000
    assert net["reverse_ack_compression"]["mode"] == "merge"


def test_a_quick_start_router_decides_the_requests_it_sees() -> None:
    s = scenario(quick_start=ts.QuickStart(threshold=0.5))
    assert s.validate()["network"]["quick_start"] == {"threshold": 0.5, "interval": "1s"}
    s.flows = [ts.Flow("newreno+quick-start", size="300KB")]
    links = {link["name"]: link for link in ts.run(s).raw_summary["links"]}
    # 5 Mbit/s to spare on an idle 10 Mbit/s link: the request is reduced to 2.56 Mbit/s.
    assert links["bottleneck"]["quick_start"] == {"requests": 1, "approved": 0, "reduced": 1, "refused": 0}
    assert "quick_start" not in links["bottleneck_rev"]


def test_summary_reports_drop_causes_sojourn_and_ack_compression() -> None:
    res = ts.run(scenario(aqm=ts.Aqm("codel"), reverse_ack_compression=ts.AckCompression("release", "5ms")))
    links = {link["name"]: link for link in res.raw_summary["links"]}
    b = links["bottleneck"]
    assert b["drops"] == b["overflow_drops"] + b["early_drops"] + b["forced_drops"]
    assert set(b["sojourn"]) == {"mean", "p50", "p95", "p99", "max"}
    assert links["bottleneck_rev"]["ack_compression"]["acks_held"] > 0
    assert b["ack_compression"] is None
    assert res.links.height == len(links)
    sojourn = res.queues.filter(link="bottleneck")["sojourn"].drop_nans()
    assert sojourn.len() > 0 and sojourn.max() <= b["sojourn"]["max"]


def test_toml_tables_become_dataclasses() -> None:
    s = ts.load_scenario(SCENARIOS / "red-codel-ack-merge.toml")
    assert s.network.aqm == ts.Aqm("red")
    assert s.network.reverse_ack_compression == ts.AckCompression("merge", "10ms")
    assert s.to_dict()["network"]["aqm"] == {"kind": "red"}


@pytest.mark.parametrize(
    ("network", "message"),
    [
        ({"aqm": ts.Aqm("pie")}, "network.aqm.kind: must be droptail, red or codel"),
        ({"aqm": ts.Aqm("codel", min_th=3)}, 'network.aqm.min_th: applies to kind = "red" only'),
        ({"reverse_ack_compression": ts.AckCompression("squash", "1ms")}, "network.reverse_ack_compression.mode"),
        ({"ber": 0.5}, "network.ber: must be a bit-error rate between 0 and 0.01"),
    ],
)
def test_bad_elements_name_the_field(network: dict[str, object], message: str) -> None:
    with pytest.raises(ts.ScenarioError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ts.run(scenario(**network))
