"""`tcpstart reproduce jump-start --quick`: the numbers behind every verdict are computed and
plausible (the verdicts themselves are findings, not checked here)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from tcpstart.reproduce import reproduce


def test_quick_reproduction_computes_every_figure(tmp_path: Path) -> None:
    report = reproduce("jump-start", tmp_path, quick=True)
    results = json.loads((tmp_path / "results.json").read_text())
    assert {c["source"].split(",")[0] for c in results["claims"]} >= {"Figure 1", "Footnote 4", "Figure 2", "Figure 4"}
    for claim in results["claims"]:
        for v in claim["values"]:
            assert v["ours"] is not None and math.isfinite(v["ours"]), (claim["statement"], v)

    # Figure 2: 200 connections of 200 packets on a 5 Mbps bottleneck take at least the transfer
    # time of 200 x 1500 bytes (0.48 s); drop rates are fractions; every interval has both schemes.
    rows = results["data"]["figure2"]
    assert [r["interval_s"] for r in rows] == sorted(r["interval_s"] for r in rows) and len(rows) >= 3
    for r in rows:
        for scheme in ("slow_start", "jump_start"):
            assert r[f"{scheme}_median_duration_s"] > 0.48
            assert 0 <= r[f"{scheme}_drop_rate"] < 1
            assert r[f"{scheme}_incomplete"] == 0

    # Figure 4: several seeds; connections over 3 packets exist; a duration is at least the
    # handshake plus one round trip (2 x 64 ms); fractions are fractions.
    fig4 = results["data"]["figure4"]
    assert len(fig4["seeds"]) >= 2
    for scheme in ("slow_start", "jump_start"):
        pooled = fig4["pooled"][scheme]
        assert pooled["connections"] > 50
        assert 0.128 < pooled["p25_s"] <= pooled["p50_s"]
        assert 0 <= pooled["no_loss_fraction"] <= 1 and 0 <= pooled["drop_rate"] < 1
    # Figure 2: the intervals whose runs are identical to the longest one count as one point.
    assert results["data"]["figure2_uncontended_intervals_s"][-1] == rows[-1]["interval_s"]
    # Section IV-B: per queue discipline, the all-Slow-Start and the mixed runs, durations above the
    # 0.48 s transfer time.
    aqm = results["data"]["aqm"]
    assert {(r["queue"], r["mix"]) for r in aqm} == {(q, m) for q in ("drop-tail", "RED", "CoDel") for m in ("slow_start", "mixed")}
    assert all(r["ss_median_s"] > 0.48 and 0 <= r["drop_rate"] < 1 for r in aqm)
    assert all(r["js_median_s"] > 0.48 for r in aqm if r["mix"] == "mixed")
    for name in ("figure1.png", "figure2.png", "figure4.png", "report.html"):
        assert (tmp_path / name).stat().st_size > 0
    assert report.quick


def test_identical_runs_share_a_signature_and_others_do_not() -> None:
    from tcpstart.reproduce.jump_start import _signature

    row = {
        "interval_s": 1.0,
        "slow_start_median_duration_s": 0.9,
        "jump_start_median_duration_s": 0.8,
        "slow_start_drop_rate": 0.06,
        "jump_start_drop_rate": 0.3,
    }
    assert _signature(row) == _signature({**row, "interval_s": 3.0})
    assert _signature(row) != _signature({**row, "jump_start_median_duration_s": 0.81})
