"""`tcpstart bench`: the benchmark figures are measured, complete and plausible."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def ns3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skips the test without ns-3. The ns-3 program's source is in the checkout; the cli fixture
    runs in an empty folder."""
    from tcpstart.bench_ns3 import ns3_status

    monkeypatch.setenv("TCPSTART_REPO", str(Path(__file__).resolve().parent.parent))
    ok, why = ns3_status()
    if not ok:
        pytest.skip(why)


def test_bench_measures_a_short_b1_and_b5(cli, tmp_path: Path) -> None:
    status, out, err = cli("bench", "B1", "B5", "--duration", "1s", "--runs", "6", "--json", tmp_path / "b.json")
    assert status == 0, err
    b1, b5 = json.loads((tmp_path / "b.json").read_text())
    assert b1["benchmark"] == "B1" and abs(b1["simulated_s"] - 1.0) < 1e-9
    assert b1["invariants_ok"]
    # 10 flows fill most of 1 Gb/s within 1 s (about 85,000 packets at full rate).
    assert b1["bottleneck_packets"] > 20_000
    assert b1["wall_s"] > 0 and b1["bottleneck_packets_per_s"] == b1["bottleneck_packets"] / b1["wall_s"]
    # A child interpreter plus the simulator: more than a bare process, far less than a gigabyte.
    assert 5 < b1["peak_rss_mb"] < 1000
    assert b5["runs"] == 6 and b5["workers"] >= 1
    assert 0 <= b5["python_overhead_fraction"] < 1
    assert "B1" in out and "runs/s" in out


def test_repeated_runs_report_the_run_of_median_wall_time(cli, tmp_path: Path) -> None:
    status, _, err = cli("bench", "B1", "--duration", "0.2s", "--repeat", "3", "--json", tmp_path / "b.json")
    assert status == 0, err
    (b1,) = json.loads((tmp_path / "b.json").read_text())
    walls = b1["wall_s_runs"]
    assert len(walls) == 3 and walls == sorted(walls)
    assert b1["wall_s"] == walls[1]
    assert b1["bottleneck_packets_per_s"] == b1["bottleneck_packets"] / walls[1]


def test_runs_around_ns3_come_before_and_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from tcpstart import bench

    log: list[str] = []
    walls = iter([0.50, 0.40, 0.70, 0.45])
    rss = iter([12.0, 14.0, 13.0, 12.5])

    def fake_run(name: str, duration: object = None) -> dict[str, object]:
        log.append("ours")
        return {"benchmark": name, "wall_s": next(walls), "peak_rss_mb": next(rss)}

    def fake_ns3() -> dict[str, object]:
        log.append("ns-3")
        return {"ns3_wall_s": 90.0}

    monkeypatch.setattr(bench, "measure_in_child", fake_run)
    ours, theirs = bench.measure_around("B1", None, 2, fake_ns3)
    assert log == ["ours", "ours", "ns-3", "ours", "ours"]
    assert theirs == {"ns3_wall_s": 90.0}
    # Of four runs the slower of the middle two (0.45, 0.50) is the median: never the lucky side.
    assert ours["wall_s"] == 0.50 and ours["wall_s_runs"] == [0.40, 0.45, 0.50, 0.70]
    assert ours["peak_rss_mb"] == 14.0


def test_repeat_below_one_is_a_clear_error_before_any_run(cli, tmp_path: Path) -> None:
    status, out, err = cli("bench", "B1", "--repeat", "0", "--json", tmp_path / "b.json")
    assert status == 2
    assert "--repeat" in err and "at least 1" in err and "0" in err
    assert "B1:" not in out and not (tmp_path / "b.json").exists()


def test_unknown_benchmark_is_a_clear_error(cli) -> None:
    status, _, err = cli("bench", "B9")
    assert status == 2
    assert "B9" in err and "B1" in err


def test_b3_runs_the_jump_start_contention_scenario(cli, tmp_path: Path) -> None:
    status, _, err = cli("bench", "B3", "--duration", "2s", "--json", tmp_path / "b.json")
    assert status == 0, err
    (b3,) = json.loads((tmp_path / "b.json").read_text())
    assert b3["benchmark"] == "B3" and abs(b3["simulated_s"] - 2.0) < 1e-9
    assert b3["invariants_ok"]
    # By 2 s, 20 left-side connections of 200 packets have started (one every 100 ms from 0):
    # the forward bottleneck has carried data, but at most 20 x 200 packets plus retransmissions.
    assert 0 < b3["bottleneck_packets"] < 20 * 200 * 2


def test_results_build_their_tables_only_when_asked(tmp_path: Path) -> None:
    import tcpstart as ts

    res = ts.run({"network": {"rate": "20Mbps", "rtt": "40ms"}, "flows": [{"algorithm": "newreno", "size": "100KB"}]})
    # Nothing is converted until asked for; then each part once, and kept.
    assert res._summary is None and res._tables == {}
    assert res.raw_summary["flows"][0]["completed"] and res.raw_summary is res.raw_summary
    flows = res.flows
    assert flows.height > 0 and res.flows is flows
    assert res._tables == {"flows": flows}
    assert res.packets is None and res.queues.height > 0


def test_bench_runs_b1_in_ns3_beside_us(cli, tmp_path: Path, ns3) -> None:
    status, out, err = cli("bench", "B1", "--duration", "0.5s", "--ns3", "--json", tmp_path / "b.json")
    assert status == 0, err
    (b1,) = json.loads((tmp_path / "b.json").read_text())
    assert b1["ns3_wall_s"] > 0 and b1["ns3_peak_rss_mb"] > 1
    assert b1["ns3_over_tcpstart"] == b1["ns3_wall_s"] / b1["wall_s"]
    assert "ns-3 wall" in out


def test_the_summary_crosses_into_python_as_its_json_would() -> None:
    import tcpstart as ts
    from tcpstart import _core
    from tcpstart.scenario import to_json

    scenario = {
        "duration": "2s",
        "network": {"rate": "20Mbps", "rtt": "40ms"},
        "flows": [{"algorithm": "newreno", "size": "100KB"}, {"algorithm": "cubic", "start": "5s"}],
        "udp": [{"rate": "1Mbps", "stop": "1s"}],
    }
    s = ts.run(scenario).raw_summary
    # Integers stay int and every other number is a float, even a whole one; missing values are
    # None; keys come sorted, as serde_json writes them.
    first, late = s["flows"]
    assert type(first["start"]) is float and first["start"] == 0.0
    assert type(first["bytes_acked"]) is int and type(first["goodput_bps"]) is float
    assert type(first["ss_exit_cwnd"]) in (int, type(None)) and late["completion_time"] is None
    assert late["started"] is False and first["completed"] is True
    reverse = next(link for link in s["links"] if link["name"] == "bottleneck_rev")
    assert type(reverse["utilization"]) is float and type(reverse["sojourn"]["max"]) is float
    assert list(s) == sorted(s) and list(first) == sorted(first)
    assert s["udp"][0]["id"] == 2 and s["invariants"]["ok"] is True
    # Each conversion is a new dict; the columns are handed over once.
    (run,), error = _core.run_all([to_json(scenario)])
    assert error is None and run.summary() == s and run.summary() is not run.summary()
    run.take_flows()
    try:
        run.take_flows()
    except RuntimeError as e:
        assert "already handed over" in str(e)
    else:
        raise AssertionError("a second take_flows() must fail")


def _arg(args: list[str], name: str) -> str:
    (value,) = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return value


def test_b3_in_ns3_is_200_transfers_on_100_pairs_a_start_every_50ms() -> None:
    from tcpstart.bench_ns3 import ns3_args

    for name in ("B3", "B3-iw200"):
        args = ns3_args(name, None)
        # The B3: 200 connections of 200 x 1460 bytes over 100 + 100 hosts, a start every
        # 50 ms from alternating sides, on the Jump Start paper's 5 Mbps / 64 ms / 60-packet path.
        assert _arg(args, "flows") == "200" and _arg(args, "hosts") == "100"
        assert _arg(args, "size") == str(200 * 1460) and _arg(args, "mss") == "1460"
        starts = [float(t) for t in _arg(args, "starts").split(",")]
        reverse = _arg(args, "reverse").split(",")
        order = sorted(range(200), key=lambda i: starts[i])
        assert [round(starts[i], 9) for i in order] == [round(0.05 * k, 9) for k in range(200)]
        assert [reverse[i] for i in order] == ["0", "1"] * 100
        # Flow i runs on pair i mod 100: left connection k and right connection k share pair k.
        assert all(abs(starts[k + 100] - starts[k] - 0.05) < 1e-9 for k in range(100))
        assert reverse[:100] == ["0"] * 100 and reverse[100:] == ["1"] * 100
        assert _arg(args, "delay") == "32ms" and _arg(args, "queue") == "60p"
        # Rates carry ns-3's 2-byte PPP header: 1502 / 1500 of ours (no timestamps in B3).
        assert _arg(args, "rate") == "5006667bps" and _arg(args, "accessRate") == "50066667bps"
        assert _arg(args, "timestamps") == "false" and _arg(args, "sack") == "true"
        assert _arg(args, "delAckCount") == "2" and _arg(args, "recovery") == "TcpClassicRecovery"
        # The initial window is the whole transfer (Jump Start's D) with ssthresh at it.
        assert _arg(args, "iw") == "200"
        assert _arg(args, "ns3::TcpSocket::InitialSlowStartThreshold") == str(200 * 1460)
    paced = ns3_args("B3", None)
    assert _arg(paced, "pacing") == "true" and _arg(paced, "ns3::TcpSocketState::PaceInitialWindow") == "true"
    assert not any(a.startswith("--pacing=") for a in ns3_args("B3-iw200", None))


def test_a_short_b3_counterpart_completes_every_transfer_in_ns3(ns3) -> None:
    from tcpstart.bench_ns3 import run_ns3, transfer_args
    from tcpstart.bench_scenarios import contention
    from tcpstart.scenario import expanded

    # B3 on 3 host pairs: 6 connections from alternating sides, 50 ms apart.
    out, wall, peak = run_ns3(transfer_args(expanded(contention(pairs=3)(None)), None))
    flows = out["flows"]
    assert len(flows) == 6 and all(f["completed"] and f["bytes_acked"] == 200 * 1460 for f in flows)
    assert sorted(round(f["start"], 9) for f in flows) == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25]
    # The first connection starts with a window of all 200 segments (paced at cwnd / RTT); the
    # 5 Mbps bottleneck passes about 27 per 64 ms round trip, so its 60-packet queue overflows.
    assert flows[0]["drops"] > 0 and flows[0]["max_cwnd"] >= 200 * 1460
    assert wall > 0 and peak > 1


def test_bench_runs_b3_and_its_like_for_like_variant_in_ns3(cli, tmp_path: Path, ns3) -> None:
    status, out, err = cli("bench", "B3", "--duration", "2s", "--ns3", "--json", tmp_path / "b.json")
    assert status == 0, err
    b3, iw200 = json.loads((tmp_path / "b.json").read_text())
    assert b3["benchmark"] == "B3" and iw200["benchmark"] == "B3-iw200"
    for r in (b3, iw200):
        assert r["ns3_wall_s"] > 0 and r["ns3_over_tcpstart"] == r["ns3_wall_s"] / r["wall_s"]
        # ns-3 stops at the same simulated time (the short run above covers completion).
        assert abs(r["ns3_simulated_s"] - 2.0) < 1e-9
    assert "B3-iw200" in out and "no ns-3 counterpart" not in out


def test_bench_without_ns3_says_why(cli, monkeypatch) -> None:
    # The cli fixture runs in an empty folder: the ns-3 program's source is not found there.
    monkeypatch.delenv("TCPSTART_REPO", raising=False)
    status, out, err = cli("bench", "B3", "--duration", "0.2s", "--ns3")
    assert status == 0, err
    assert "ns-3 comparison skipped" in out and "ns-3 wall" not in out
