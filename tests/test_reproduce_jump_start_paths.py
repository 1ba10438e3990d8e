"""Jump Start at other bandwidths and RTTs (`tcpstart.reproduce.jump_start_paths`): the measured
durations against what a doubling window and a one-RTT paced burst take, counted by hand."""

from __future__ import annotations

import dataclasses
import math

from tcpstart.reproduce import jump_start_paths as paths
from tcpstart.reproduce.jump_start import TCP


def test_slow_start_needs_log2_of_the_window_in_rtts_to_open_at_10_gbps() -> None:
    opened = paths.opening({"paper": TCP, "iw1": dataclasses.replace(TCP, initial_window=1)})
    rtt = paths.INTRO_RTT
    # From 3 segments, doubling once per RTT: log2(83,333 / 3) = 14.8 rounds, plus at most one for
    # the serialisation of the last rounds' bursts.
    rounds = opened["paper"]["time_from_first_data_s"] / rtt
    assert math.log2(83_333 / 3) <= rounds <= math.log2(83_333 / 3) + 1.0, rounds
    # From 1 segment: log2(3) = 1.6 rounds more (the rounds are whole: 1 or 2).
    extra = (opened["iw1"]["time_from_first_data_s"] - opened["paper"]["time_from_first_data_s"]) / rtt
    assert 0.9 <= extra <= 2.1, extra
    # Slow Start adds one segment per acknowledged segment: when the window first holds 83,333
    # segments, about 83,333 segments (1500 bytes each on the wire) have been acknowledged.
    assert 0.95 * 83_333 * 1500 <= opened["paper"]["bytes_sent"] <= 1.05 * 83_333 * 1500


def test_figure1_on_other_paths_durations_and_scaling() -> None:
    # 5 Mbps / 64 ms and 20 Mbps / 16 ms have the same BDP (26.7 packets); 20 Mbps / 64 ms holds
    # 107 + 60 packets.
    rows = paths.grid(TCP, [5.0, 20.0], [16, 64], [1, 64, 256], 60)
    by = {(r["rate_mbps"], r["rtt_ms"], r["packets"]): r for r in rows}
    for r in rows:
        if r["packets"] == 1:
            assert abs(r["improvement_percent"]) <= 1.0
    big = by[(20.0, 64, 64)]
    rtt = 0.064
    # Jump Start paces 64 packets over the first RTT; the last one's ACK returns one RTT later.
    assert 1.9 <= big["jump_start_s"] / rtt <= 2.2, big
    # Slow Start from 3 packets: 3, 6, 12, 24 (45 sent) and the last 19 in the fifth round.
    assert 4.9 <= big["slow_start_s"] / rtt <= 5.5, big
    assert big["jump_start_drops"] == big["slow_start_drops"] == 0
    # 256 packets paced in one RTT overflow a path that holds 167: more than 256 - 167 are lost.
    assert by[(20.0, 64, 256)]["jump_start_drops"] >= 256 - 167
    agreement = paths.same_bdp_agreement(rows)
    assert agreement["lossless_cases"] >= 2 and agreement["lossless_worst_points"] <= 0.5, agreement
