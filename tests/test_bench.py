"""`tcpstart bench`: the benchmark figures are measured, complete and plausible."""

from __future__ import annotations

import json
from pathlib import Path


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


def test_bench_runs_b1_in_ns3_beside_us(cli, tmp_path: Path, monkeypatch) -> None:
    import pytest

    from tcpstart.bench_ns3 import ns3_status

    # The ns-3 program's source is in the checkout; the cli fixture runs in an empty folder.
    monkeypatch.setenv("TCPSTART_REPO", str(Path(__file__).resolve().parent.parent))
    ok, why = ns3_status()
    if not ok:
        pytest.skip(why)
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
