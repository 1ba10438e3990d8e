"""eHSTCP's Table 1 under other base RTTs, run lengths and web loads
(`tcpstart.reproduce.ehstcp_setup`): each alternative changes only its own parameter, and the
verdicts it gives come from runs that differ."""

from __future__ import annotations

import dataclasses

from tcpstart.reproduce import ehstcp, ehstcp_setup
from tcpstart.simulate import run

MODE = ehstcp.QUICK


def _hs(sc):
    return [f for f in sc.flows if f.class_ == "hs"]


def test_each_alternative_changes_only_its_parameter() -> None:
    ours = ehstcp._scenario(ehstcp.TABLE1_RATE, "ehstcp", 1, MODE.duration, MODE.duration)
    default = ehstcp_setup.scenario(MODE, ehstcp_setup.Variant(), "ehstcp", 1, MODE.duration)
    assert default == ours

    rtt = ehstcp_setup.scenario(MODE, ehstcp_setup.BASE_RTT["120ms"], "ehstcp", 1, MODE.duration)
    assert rtt.network.rtt == "120ms" and rtt.network.queue == "1bdp" and rtt.web == ours.web
    # Only the two high-speed flows get the larger receive buffer.
    assert [f.tcp.rcv_buf for f in _hs(rtt)] == ["160MB", "160MB"]
    assert [f for f in rtt.flows if f.class_ != "hs"] == [f for f in ours.flows if f.class_ != "hs"]

    none = ehstcp_setup.scenario(MODE, ehstcp_setup.WEB_LOAD["no web traffic"], "ehstcp", 1, MODE.duration)
    assert none.web == [] and none.flows == ours.flows and none.network == ours.network
    more = ehstcp_setup.scenario(MODE, ehstcp_setup.WEB_LOAD["2x the web sessions (100)"], "ehstcp", 1, MODE.duration)
    assert [w.sessions for w in more.web] == [100] and [w.pages for w in more.web] == [w.pages for w in ours.web]


def test_run_length_scales_the_graded_window_after_the_warmup() -> None:
    half, twice = ehstcp_setup.RUN_LENGTH.values()
    # Quick mode: 8 s runs graded after 3 s -> windows of 2.5 s and 10 s.
    assert ehstcp_setup.duration(MODE, half) == 5.5 and ehstcp_setup.duration(MODE, twice) == 13.0
    assert ehstcp_setup.duration(ehstcp.FULL, half) == 35.0 and ehstcp_setup.duration(ehstcp.FULL, twice) == 110.0
    # The sweep runs the first seed only, with the mode's lengths.
    swept = ehstcp_setup.sweep_mode(ehstcp.FULL)
    assert swept.seeds == (1,) and (swept.duration, swept.warmup) == (ehstcp.FULL.duration, ehstcp.FULL.warmup)
    sc = ehstcp_setup.scenario(MODE, twice, "highspeed", 2, MODE.warmup)
    # The warm-up run is drawn for the 13 s run (its web pages), and lasts the warm-up.
    assert sc.duration == f"{MODE.warmup}s"
    assert [w.pages for w in sc.web] == [ehstcp._web(13.0).pages]


def test_without_web_traffic_the_web_class_carries_nothing() -> None:
    # 20 Mbps, where the web is a third of the goodput: the alternative really removes it.
    variant = ehstcp_setup.WEB_LOAD["no web traffic"]
    sc = ehstcp_setup.scenario(MODE, variant, "ehstcp", 1, 3.0)
    sc = dataclasses.replace(sc, network=dataclasses.replace(sc.network, rate="20Mbps"))
    base = ehstcp._scenario(20e6, "ehstcp", 1, MODE.duration, 3.0)
    classes = run(sc).raw_summary["classes"]
    assert "web" not in classes or classes["web"]["bytes_delivered"] == 0
    assert run(base).raw_summary["classes"]["web"]["bytes_delivered"] > 0
