"""`tcpstart reproduce modified-swift-start --quick`: the numbers behind the verdicts are computed.

Checks the inputs (present, finite, physically plausible, hand-computed where possible), not the
verdicts, which are findings.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tcpstart.reproduce import modified_swift_start as mss
from tcpstart.reproduce import reproduce

# A data segment on the wire: 1460 payload + 40 IP/TCP + 8 for the First/Second mark option.
WIRE = 1460 + 40 + 8


def test_quick_reproduction_computes_every_number(tmp_path: Path) -> None:
    report = reproduce("modified-swift-start", tmp_path, quick=True)
    folder = tmp_path
    for name in (
        "report.md",
        "report.html",
        "results.json",
        "figure4.png",
        "figure5.png",
        "figure8.png",
        "figure9.png",
        "figure6.png",
        "figure7.png",
        "figure10.png",
        "figures2-3.png",
        "cross-traffic.png",
    ):
        assert (folder / name).stat().st_size > 0, name
    results = json.loads((folder / "results.json").read_text())
    assert results["quick"] is True

    for key, rate, rows in (("table2", 1.544e6, mss.TABLE2), ("table3", 51.84e6, mss.TABLE3)):
        table = results["data"][key]
        assert len(table["rows"]) == len(mss.QUICK_DELAYS)
        fixed = table["paper_fixed_latency_s"]
        assert fixed == pytest.approx({"table2": 0.11281, "table3": 0.07307}[key], abs=1e-6)
        for row in table["rows"]:
            for col in ("rtt", "second_rtt", "gap", "first_cwnd", "second_cwnd", "slow_start_time", "mss_time"):
                assert row[col] is not None and math.isfinite(row[col]), (key, row["link_delay"], col)
            # The pair leaves back to back, so its gap at the receiver is one frame time of the
            # bottleneck (the echo is in whole microseconds; the 5000 packets/s cap is shorter).
            assert row["gap"] == pytest.approx(WIRE * 8 / rate, abs=2e-6)
            # The mapping: first-pair RTT = the paper's fixed latency + 2 x link delay.
            assert row["rtt"] == pytest.approx(fixed + 2 * row["link_delay"], abs=2e-6)
            # cwnd = RTT x MSS / gap (gap echoed in whole microseconds).
            gap_us = math.floor(WIRE * 8 / rate * 1e6) * 1e-6
            assert row["first_cwnd"] == pytest.approx(row["rtt"] * 1460 / gap_us, rel=1e-3)
            assert row["second_cwnd"] > row["first_cwnd"]
            # Nothing beats the bottleneck: 10 MB of payload in unmarked 1500-byte packets.
            floor = mss.SIZE * 1500 / 1460 * 8 / rate
            assert row["slow_start_time"] > floor and row["mss_time"] > floor
            assert abs(row["slow_start_time"] - row["mss_time"]) < 60

    # Above the 1 s initial RTO: our difference and the what-if runs, in RTTs.
    for path in ("T1", "OC1"):
        jump = results["data"]["rto_jump"][path]
        assert jump["link_delays_above"] == [0.5, 0.8]
        for col in ("ours_rtts_above", "ours_rtts_below", "whatif_rfc5681_rtts", "whatif_byte_counting_rtts"):
            assert all(0 < x < 100 for x in jump[col]), (path, col, jump[col])

    fig5 = results["data"]["figure5a"]
    # The receive window limits both: rate x RTT is at most one 65535-byte window (plus a segment).
    assert 0 < fig5["product_B"] <= 65_535 + 1460
    assert 186_000 < fig5["rate_Bps"] < 1.544e6 / 8
    assert {c.source for c in report.claims} >= {"Table 2", "Table 3", "Figure 4", "Figure 5-a", "Figure 5-b"}

    # Figures 6 and 7 (T1, link delay 0.0001 s): the paced round and the idle link.
    fig6 = results["data"]["figures6_7"]
    # No payload rate at the receiver beats T1 carrying 1460 bytes in 1500-byte frames.
    t1_payload = 1.544e6 / 8 * 1460 / 1500
    for algo in ("slow_start", "mss"):
        assert 0 < fig6["receive_rate_Bps"][algo] <= t1_payload * 1.001, algo
        assert fig6["idle_from_second_round_s"][algo] >= 0
        start, end = fig6["second_round_s"][algo]
        assert 0.1 < end - start < 0.3  # one RTT of about 0.113 s, ACK timing included
    assert fig6["second_round_segments"]["slow_start"] == 6
    # The initial window's 4 segments arrive back to back at T1: 3 wait behind the first.
    assert fig6["first_round_peak_queue_packets"] >= 3
    for algo, risen in fig6["srtt_risen_at_s"].items():
        assert risen is not None and 0.1 < risen < 10, algo

    # Figures 2 and 3: slow start alone, 49.5 Mbps, OC1's latency + 2 x link delay.
    points = results["data"]["figures2_3"]
    assert [p["link_delay"] for p in points] == list(mss.QUICK_DELAYS)
    for p in points:
        assert p["rtt"] == pytest.approx(0.07307 + 2 * p["link_delay"], abs=2e-3)
        assert p["completion"] > mss.SIZE * 1500 / 1460 * 8 / 49.5e6
        assert p["utilization"] == pytest.approx(mss.SIZE * 8 / (p["completion"] * 49.5e6))
        # At most one receive window per RTT (65 535 bytes, window scaling off).
        assert 0 < p["window_per_rtt"] <= 65_535 + 1460
        assert p["rtt"] < p["full_rate_at"] < p["completion"]

    # Cross traffic: every algorithm at every load, the quick mode's seeds each.
    cross = results["data"]["cross_traffic"]
    assert len(cross) == 3 * 4
    for key, cell in cross.items():
        assert len(cell["windows"]) == len(cell["times"]) == mss.CROSS_SEEDS[True], key
        assert all(t > 1_000_000 * 8 / 1.544e6 for t in cell["times"]), key
    # Without UDP, gamma 4 divides gamma 1's estimate by four (whole bytes).
    g1 = cross["Swift Start, gamma 1|0.0"]["windows"][0]
    g4 = cross["Swift Start, gamma 4|0.0"]["windows"][0]
    assert g4 == pytest.approx(g1 / 4, abs=1)
