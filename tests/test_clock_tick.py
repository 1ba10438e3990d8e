"""`Tcp.clock_tick` from Python: the sender's RTT samples become whole ticks; bad values are named."""

from __future__ import annotations

import pytest

import tcpstart as ts


def _scenario(tick: str) -> ts.Scenario:
    return ts.Scenario(
        network=ts.Dumbbell(rate="20Mbps", rtt="100ms"),
        tcp=ts.Tcp(clock_tick=tick),
        flows=[ts.Flow("newreno", size="200KB")],
    )


def test_rtt_samples_are_whole_milliseconds_with_a_1ms_tick() -> None:
    rtt = ts.run(_scenario("1ms")).flows.get_column("rtt").drop_nulls().drop_nans()
    assert rtt.len() > 10
    assert ((rtt * 1000 - (rtt * 1000).round()).abs() < 1e-6).all()
    exact = ts.run(_scenario("0s")).flows.get_column("rtt").drop_nulls().drop_nans()
    assert not ((exact * 1000 - (exact * 1000).round()).abs() < 1e-6).all()


def test_out_of_range_tick_names_the_field() -> None:
    with pytest.raises(ts.ScenarioError, match=r"^tcp.clock_tick: must be between"):
        ts.run(_scenario("2s"))
