"""`tcpstart reproduce ess --quick`: the inputs of every verdict are computed and plausible for
each Table 1 path and algorithm (the verdicts themselves are findings, not checked here)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tcpstart.reproduce import reproduce
from tcpstart.reproduce.ess import ALGORITHMS, PATHS


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("ess")
    reproduce("ess", out, quick=True)
    return json.loads((out / "results.json").read_text()), out


def test_quick_reproduction_computes_every_metric(quick: tuple[dict, Path]) -> None:
    results, tmp_path = quick
    runs = results["data"]["runs"]
    assert len(runs) == len(PATHS) * len(ALGORITHMS)
    for run, path in zip(runs, (p for p in PATHS for _ in ALGORITHMS)):
        where = f"{run['path']} {run['algorithm']}"
        # Every algorithm leaves slow start within the run on these paths.
        assert run["exit_over_best"] is not None and 0.05 < run["exit_over_best"] < 20, where
        # The sender's inflight counts segments dropped but not yet detected, so it may exceed
        # cwnd_best plus the queue (slow start doubles into losses, BBR's STARTUP allows 2.89 x its
        # estimate), but not by an order of magnitude.
        assert 0.3 < run["peak_inflight_over_best"] < 10, where
        # The RTT lies between RTprop and RTprop plus a full 100 x 400-byte queue.
        full_queue_ms = 100 * 400 * 8 / (path.rate_mbps * 1e6) * 1000
        assert path.rtprop * 1000 <= run["peak_rtt_ms"] <= path.rtprop * 1000 + full_queue_ms + 1, where
        assert run["losses"] >= 0 and run["delivered_bytes_at"] > 0, where
    for claim in results["claims"]:
        for v in claim["values"]:
            assert v["ours"] is not None and math.isfinite(v["ours"]), (claim["statement"], v)
    table = results["tables"][0]
    assert len(table["rows"]) == len(PATHS) * len(ALGORITHMS)
    # ESS paced at both ratios on every path (ess_pacing), at the report's queue.
    for ratio in ("2", "1"):
        paced = results["data"][f"ess_paced_{ratio}x"]
        assert [m["path"] for m in paced] == [p.label for p in PATHS]
        assert all(m["losses"] >= 0 and 0.5 < m["exit_over_best"] < 5 for m in paced), paced
    assert any(c["parameter"] == "Pacing of ESS's jump to cwnd_max" for c in results["choices"])
    for name in ("figure5.png", "figure6.png", "figure7.png", "figure8.png", "buffers.png", "report.html"):
        assert (tmp_path / name).stat().st_size > 0


def test_growth_times_respect_slow_starts_doubling(quick: tuple[dict, Path]) -> None:
    results, _ = quick
    for run, path in zip(results["data"]["runs"], (p for p in PATHS for _ in ALGORITHMS)):
        t = run["time_to_best_s"]
        if run["algorithm"] not in ("newreno", "cubic") or t is None:
            continue
        # From the SYN: the handshake, then at best a doubling per round from 10 segments to the
        # BDP in packets (ceil of log2), each round at least one RTprop long.
        rounds = 1 + math.ceil(math.log2(path.bdp_packets / 10))
        assert t >= rounds * path.rtprop * 0.999, (run["path"], run["algorithm"], t, rounds)
    growth = [c for c in results["claims"] if any("time to cwnd_best / ESS's" in v["label"] for v in c["values"])]
    assert len(growth) == 3
    for claim in growth:
        assert all(v["ours"] > 0 for v in claim["values"]), claim["statement"]
