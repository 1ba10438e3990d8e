"""ESS paced as ns-3 paces a socket (`pacing_ss_ratio`, `tcpstart.reproduce.ess_pacing`): the
parameter reaches ESS's flow only, paces it, and spreads the jump that overflows the report's
100-packet queue."""

from __future__ import annotations

import math

from tcpstart.reproduce import ess, ess_pacing
from tcpstart.simulate import run

# 10 Mbps, 102 ms: a BDP of 319 packets, the path where the unpaced jump overflows most.
LONG = ess.Net(10, 50)
DURATION = ess.START_UP_RTPROP * LONG.rtprop + 0.2


def test_only_the_ess_flow_is_paced_and_nothing_else_changes() -> None:
    ours = ess._scenario(LONG, "ess", DURATION)
    paced = ess_pacing.scenario(LONG, DURATION, 2.0)
    assert [f.params for f in paced.flows] == [{"pacing_ss_ratio": 2.0}]
    assert [f.algorithm for f in paced.flows] == ["ess"]
    assert paced.network == ours.network and paced.tcp == ours.tcp and paced.duration == ours.duration


def test_pacing_spreads_the_jump_that_overflows_the_100_packet_queue() -> None:
    unpaced = ess._metrics(LONG, run(ess._scenario(LONG, "ess", DURATION)))
    results = {r: run(ess_pacing.scenario(LONG, DURATION, r)) for r in (2.0, 1.0)}
    metrics = {r: ess._metrics(LONG, res) for r, res in results.items()}
    # The unpaced jump to about the BDP (319 packets) leaves at the access rate into 100 packets.
    assert unpaced["losses"] > 50, unpaced
    # Paced at 2x the window's rate the queue takes about half the jump, still more than 100
    # packets; at 1x it fills far less: each ratio loses less than the one above it.
    assert metrics[1.0]["losses"] < metrics[2.0]["losses"] < unpaced["losses"], (metrics, unpaced)
    for res in results.values():
        rates = res.flows["pacing_rate"].drop_nans().drop_nulls()
        assert rates.len() > 0 and all(math.isfinite(x) and x > 0 for x in rates)
    assert unpaced["exit_over_best"] is not None
