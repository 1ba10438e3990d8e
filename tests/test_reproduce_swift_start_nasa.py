"""`tcpstart reproduce swift-start-nasa --quick`: every number a verdict rests on is computed and
plausible. The verdicts themselves are findings, not checked here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tcpstart.reproduce import reproduce
from tcpstart.reproduce.swift_start_nasa import PATHS, TABLE4, Net, Outcome, rtt_excess_ms


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("nasa") / "swift-start-nasa"
    reproduce("swift-start-nasa", out, quick=True)
    for png in ("figures1-3.png", "table3.png", "table4.png", "figure5.png", "figure6.png", "figures8-13.png", "figures14-15.png", "figure16.png", "clock.png"):
        assert (out / png).stat().st_size > 1000, png
    return json.loads((out / "results.json").read_text()), (out / "report.md").read_text()


def _claims(results: dict, source: str) -> list[dict]:
    found = [c for c in results["claims"] if c["source"] == source]
    assert found, source
    return found


def test_every_claim_is_graded_and_has_finite_numbers(quick: tuple[dict, str]) -> None:
    results, md = quick
    reproductions = [c for c in results["claims"] if c["kind"] == "reproduction"]
    assert len(reproductions) >= 12
    # A smoke test withholds its verdicts; the out-of-scope items keep their reasons.
    assert all(c["verdict"] is None for c in reproductions)
    assert all(c["reason"] for c in results["claims"] if c["kind"] == "out of scope")
    for c in results["claims"]:
        for v in c["values"]:
            assert v["ours"] is None or math.isfinite(v["ours"]), (c["statement"], v)
    assert "| Table 3 |" in md and "| Figure 16 |" in md


def test_table3_estimates_are_near_the_appendix_values(quick: tuple[dict, str]) -> None:
    results, _ = quick
    table3 = results["data"]["table3"]
    assert len(table3) == len(PATHS)
    for path, row in table3.items():
        # Each percentage is the paced window over appendix B's value; a packet pair through any
        # of these paths lands between half (a 1 ms delta read as 2) and 1.5 times it.
        for pct, count in row["clusters"]:
            assert 50 <= pct <= 150 and count >= 1, (path, pct)
        assert 0 < row["estimates"] <= row["runs"]


def test_table4_counts_bytes_sent_by_the_given_time(quick: tuple[dict, str]) -> None:
    results, _ = quick
    rows = results["data"]["table4"]
    assert len(rows) == 4 * len(TABLE4)
    for row in rows:
        # Never more than the 50 MB file, and at least the initial window of four segments.
        assert 4 * 1448 <= row["ours"] <= 50e6, row


def test_throughputs_are_below_the_bottleneck(quick: tuple[dict, str]) -> None:
    results, _ = quick
    for key in ("figure5_throughput_mbps", "figure6_throughput_mbps"):
        for label, xs in results["data"][key].items():
            rate = float(label.split(" Mbps")[0])
            assert xs and all(0 < x <= rate for x in xs), (label, xs)
    for row in results["data"]["multiflow"]:
        assert 0 < row["throughput_mbps"] < 5, row


def test_multiflow_estimates_and_ack_spacing_are_measured(quick: tuple[dict, str]) -> None:
    results, _ = quick
    ss = [r for r in results["data"]["multiflow"] if r["kernel"].startswith("gamma")]
    assert ss and all("timer_split" in r for r in ss)
    estimates = [r["estimate_mbps"] for r in ss if r["estimate_mbps"] is not None]
    assert estimates and all(0 < e < 100 for e in estimates)
    ratios = [r["ack_compression"] for r in ss if r["ack_compression"] is not None and math.isfinite(r["ack_compression"])]
    assert ratios and all(r > 0 for r in ratios)
    ack = results["data"]["ack_compression"]
    assert ack["runs"] == len(ss) and ack["control_runs"] > 0


def test_competing_flows_and_bursty_udp_are_measured(quick: tuple[dict, str]) -> None:
    results, _ = quick
    competing = results["data"]["competing"]
    for order in ("TCP first", "Swift Start first"):
        # Two flows share 20 Mbps: each below the bottleneck, together at most it.
        tcp, ss = competing[order]["tcp_mbps"], competing[order]["swift_start_mbps"]
        assert 0 < tcp < 20 and 0 < ss < 20, (order, tcp, ss)
        assert competing[order]["estimate_bytes"] > 4 * 1448
    burst = results["data"]["udp_burst_sensitivity"]
    assert set(burst) == {"smooth", "tick_10ms", "tick_1ms"}
    for measures in burst.values():
        assert all(0 <= v <= 1 for k, v in measures.items() if "share" in k or "differing" in k)


def test_clock_tests_read_delta_in_whole_ticks(quick: tuple[dict, str], tmp_path: Path) -> None:
    from tcpstart.reproduce.swift_start_nasa_clock import CLOCKS, RATES

    results, md = quick
    cells = results["data"]["clock_granularity"]
    assert len(cells) == len(RATES) * len(CLOCKS)
    for key, probes in cells.items():
        rate, clock = (float(x.split()[0]) for x in key.split("|"))
        assert len(probes) == 2, key
        for p in probes:
            if p["estimate_mbps"] is None:
                continue
            # gamma 1: the paced rate is 2896 bytes over delta, and delta is a whole number of ticks.
            ticks = 2896 * 8 / (p["estimate_mbps"] * 1e6) / (clock * 1e-3)
            assert ticks == pytest.approx(round(ticks), rel=0.01) and round(ticks) >= 1, (key, p)
            # Never above what two 1448-byte segments in one tick give.
            assert p["estimate_mbps"] <= 2896 * 8 / (clock * 1e-3) / 1e6 * 1.0001, (key, p)
            assert 0 <= p["held"] <= 10 and 0 <= p["largest_burst"] < 20, (key, p)
    assert "clock granularity" in md.lower() or "1 ms clock" in md


def test_the_measured_rtt_is_the_paced_window_over_its_rate() -> None:
    # 5 Mbps x 500 ms, gamma 1: a window of 312 500 bytes paced at 617 588.9 B/s was measured over
    # 506 ms, 6 ms above the path's RTT. A run without an estimate measured nothing.
    path = Net(5, 500)
    done = Outcome(estimate=(312_500, 312_500 / 0.506), throughput=4.0, retransmissions=0, first_loss=math.inf)
    assert rtt_excess_ms(done, path) == pytest.approx(6.0)
    assert rtt_excess_ms(Outcome(None, 4.0, 0, math.inf), path) is None


def test_the_measured_rtt_holds_the_first_segments_serialisation(quick: tuple[dict, str]) -> None:
    results, _ = quick
    excess = results["data"]["rtt_excess_ms"]
    for path in PATHS:
        # The first ACK covers the first segment: its 1500 bytes cross the bottleneck before the
        # receiver sees it, so the RTT read on the 1 ms clock is at least that much, less a tick.
        floor_ms = 1500 * 8 / (path.rate_mbps * 1e6) * 1000 - 1.0
        for ms, count in excess[path.label]:
            assert ms >= floor_ms and count >= 1, (path.label, ms)
