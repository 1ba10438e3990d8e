"""The benchmark files (python/tcpstart/benchmarks/, also compiled into the native cargo example)
are the benchmarks `tcpstart bench` runs, and they are the scenarios issue 7 describes."""

from __future__ import annotations

from typing import Any

import pytest

from tcpstart import bench
from tcpstart.bench_scenarios import BENCHMARK_DIR, BENCHMARKS, VARIANTS, contention
from tcpstart.scenario import expanded, read_scenario_file

NAMES = ["B1", "B2", "B3", "B3-iw200", "B4"]


def test_every_file_is_a_benchmark_and_every_benchmark_a_file() -> None:
    assert sorted(p.stem for p in BENCHMARK_DIR.glob("*.toml")) == NAMES
    assert list(BENCHMARKS) == ["B1", "B2", "B3", "B4"] and list(VARIANTS) == ["B3-iw200"]
    assert bench.NS3_VARIANTS["B3"] == ["B3-iw200"] and not any(bench.NS3_VARIANTS[b] for b in ("B1", "B2", "B4"))


@pytest.mark.parametrize("name", NAMES)
def test_the_python_benchmark_is_its_file(name: str) -> None:
    b = BENCHMARKS.get(name) or VARIANTS[name]
    file = read_scenario_file(BENCHMARK_DIR / f"{name}.toml")
    meta = file.pop("benchmark")
    assert b.description == meta["description"] and b.duration == file.get("duration")
    assert b.scenario(b.duration) == file
    # --duration replaces the file's (or adds one), and None runs until every flow has finished.
    assert b.scenario("2s") == {**file, "duration": "2s"}
    assert "duration" not in b.scenario(None)
    # Each call is a fresh copy: a caller's change does not reach the next run.
    b.scenario(None)["network"]["rate"] = "1bps"
    assert b.scenario(b.duration) == file


def _resolved(name: str, duration: Any = "default") -> dict[str, Any]:
    b = BENCHMARKS.get(name) or VARIANTS[name]
    return expanded(b.scenario(b.duration if duration == "default" else duration))


def _secs(d: dict[str, int]) -> float:
    return d["secs"] + d["nanos"] / 1e9


@pytest.mark.parametrize(
    ("name", "flows", "rate", "delay", "queue", "duration"),
    [
        # Issue 7: B1 10 flows, 1 Gb/s, 20 ms one-way, 1000-packet queue, 30 s; B2 the same with
        # 50 ms and 1 BDP (1 Gb/s x 2 x (50 + 1 + 1) ms = 13 MB, in 1500-byte packets 8667); B4
        # 100 flows, 10 Gb/s, 50 ms RTT (23 ms + two 1 ms access links each way), 1 BDP
        # (62.5 MB: 41 667 packets), 10 s.
        ("B1", 10, 1e9, 0.020, {"Packets": 1000}, 30),
        ("B2", 10, 1e9, 0.050, {"Packets": 8667}, 30),
        ("B4", 100, 10e9, 0.023, {"Packets": 41667}, 10),
    ],
)
def test_the_bulk_benchmarks_are_the_issues(name, flows, rate, delay, queue, duration) -> None:
    s = _resolved(name)
    net = s["network"]
    assert net["rate_bps"] == rate and _secs(net["delay"]) == delay and net["queue"] == queue
    assert _secs(s["duration"]) == duration and len(s["flows"]) == flows
    for f in s["flows"]:
        assert f["algorithm"] == "newreno" and f["size"] is None and _secs(f["start"]) == 0
        assert f["tcp"]["sack"] and f["tcp"]["delayed_ack"]
        assert f["access_rate_bps"] == 10e9 and _secs(f["access_delay"]) == 0.001
        if name == "B4":
            assert 2 * (_secs(net["delay"]) + 2 * _secs(f["access_delay"])) == pytest.approx(0.050)


def test_b3_is_the_jump_start_contention_setup() -> None:
    s = _resolved("B3")
    # 200 connections of 200 packets over 100 + 100 hosts, a start every 50 ms from alternating
    # sides, on the Jump Start paper's 5 Mbps / 64 ms / 60-packet path; no duration.
    assert s["duration"] is None and len(s["hosts"]) == 100
    assert s["network"]["rate_bps"] == 5e6 and s["network"]["queue"] == {"Packets": 60}
    flows = sorted(s["flows"], key=lambda f: _secs(f["start"]))
    assert [round(_secs(f["start"]), 9) for f in flows] == [round(0.05 * k, 9) for k in range(200)]
    assert [f["direction"] for f in flows] == ["forward", "reverse"] * 100
    assert all(f["algorithm"] == "jump-start" and f["size"] == 200 * 1460 for f in flows)
    assert all(f["tcp"]["initial_window"] == 3 * 1460 and not f["tcp"]["timestamps"] for f in flows)


def test_contention_varies_b3_and_gives_b3_iw200() -> None:
    assert expanded(contention()(None)) == _resolved("B3", None)
    assert expanded(contention("newreno", initial_window=200, initial_ssthresh=200)(None)) == _resolved("B3-iw200")
    small = expanded(contention("newreno", pairs=3, initial_window=10)("2s"))
    assert len(small["hosts"]) == 3 and _secs(small["duration"]) == 2
    assert sorted(round(_secs(f["start"]), 9) for f in small["flows"]) == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25]
    assert all(f["algorithm"] == "newreno" and f["tcp"]["initial_window"] == 10 * 1460 for f in small["flows"])
    # contention() works on a copy: B3 itself is unchanged.
    assert BENCHMARKS["B3"].scenario(None)["network"]["hosts"] == 100

