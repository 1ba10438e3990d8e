"""`tcpstart reproduce ehstcp`: the stability metric, the warm-up window it relies on, and that the
quick run computes every number its verdicts use."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from tcpstart.reproduce import ehstcp
from tcpstart.simulate import run


@dataclass
class _Trace:
    flows: pl.DataFrame


def test_normalized_std_is_the_sample_std_over_the_mean_per_flow_averaged() -> None:
    # Flow 0 delivers 10, 20, 30 bytes in the three 1 s bins: 80, 160, 240 bit/s, mean 160,
    # sample standard deviation 80, so 0.5. Flow 1 delivers 50 bytes every second: 0.
    # Their average is 0.25. Samples every 0.5 s, as a trace would have them.
    t = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    flow0 = [0, 5, 10, 20, 30, 45, 60]
    flow1 = [0, 25, 50, 75, 100, 125, 150]
    frame = pl.DataFrame({"t": t + t, "flow": [0] * 7 + [1] * 7, "delivered": flow0 + flow1})
    assert ehstcp.normalized_std(_Trace(frame), (0, 1), 0.0, 3.0, 1.0) == pytest.approx(0.25)


def test_a_warmup_run_is_the_prefix_of_the_full_run() -> None:
    """The window metrics subtract a short run's counters from a long run's: this holds only if
    the short run is exactly the long run's beginning (same web pages drawn, same events)."""
    full = run(ehstcp._scenario(20e6, "ehstcp", 7, 4.0, 4.0))
    warm = run(ehstcp._scenario(20e6, "ehstcp", 7, 4.0, 1.5))
    # The last samples of a run are taken at its end; compare well before it. A sample held back
    # by the trace's decimation is written when the flow's next sample comes or when the run
    # ends, so rows are compared in (flow, time) order, not in the order they were written.
    def early(r):
        return r.flows.filter(pl.col("t") < 1.4).sort("flow", "t")

    assert early(warm).equals(early(full))
    assert early(warm).height > 100
    # Counters only grow.
    lf, lw = (r.raw_summary["links"][0] for r in (full, warm))
    assert lf["name"] == lw["name"] == "bottleneck"
    assert lw["arrivals"] < lf["arrivals"] and lw["drops"] <= lf["drops"]


def test_the_buffer_reaches_the_bottleneck_and_only_it_changes() -> None:
    ours = ehstcp._scenario(2.5e9, "ehstcp", 1, 8.0, 8.0)
    other = ehstcp._scenario(2.5e9, "ehstcp", 1, 8.0, 8.0, queue="0.5bdp")
    assert ours.network.queue == ehstcp.QUEUE == "1bdp" and other.network.queue == "0.5bdp"
    assert ours.flows == other.flows and ours.web == other.web


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tcpstart.reproduce import reproduce

    out = tmp_path_factory.mktemp("repro") / "ehstcp"
    reproduce("ehstcp", out, quick=True)
    return out


def test_quick_run_computes_every_table_1_number(quick_report: Path) -> None:
    data = json.loads((quick_report / "results.json").read_text())["data"]
    rows = data["table1"]
    assert set(rows) == set(ehstcp.LABELS)
    for label, row in rows.items():
        for u in row["utilization"] + row["utilization_whole_run"]:
            # Serialisation times are whole nanoseconds (4838 ns for a 1512-byte packet at 2.5 Gb/s
            # instead of 4838.4), so a saturated link can carry 0.01 % more than its nominal rate.
            assert 0.3 < u <= 1.0 + 1e-3, label
        for loss in row["loss_percent"] + row["loss_percent_whole_run"]:
            assert 0 <= loss < 20, label
        for s in row["norm_std"]:
            assert math.isfinite(s) and s >= 0, label
    series = data["table1_hs_throughput_seed1"]["eHSTCP"]
    # Two flows, one sample per second; at 2.5 Gbps neither stays idle.
    assert len(series["mbps"]) == 2 and len(series["mbps"][0]) == ehstcp.QUICK.duration
    assert all(max(m) > 10 for m in series["mbps"])


def test_quick_run_computes_table_2_and_figure_1(quick_report: Path) -> None:
    data = json.loads((quick_report / "results.json").read_text())["data"]
    assert len(data["table2"]) == 2 * len(ehstcp.LABELS)
    for ratios in data["table2"].values():
        assert all(math.isfinite(r) and r > 0 for r in ratios)
    shares = data["figure1_shares_percent"]
    assert len(shares) == len(ehstcp.QUICK.speeds_bps) * len(ehstcp.LABELS)
    for point in shares.values():
        assert sum(point.values()) == pytest.approx(100)
        assert all(v >= 0 for v in point.values())


def test_quick_report_has_a_verdict_per_claim_and_its_figures(quick_report: Path) -> None:
    results = json.loads((quick_report / "results.json").read_text())
    assert results["quick"] is True
    sources = [c["source"] for c in results["claims"]]
    assert sources.count("Table 1") == 3 and sources.count("Table 2") == 2 and sources.count("Figure 1") == 3
    assert "Section 2" in sources  # the backward-path experiment
    data = results["data"]
    # Table 2's other reading ran: two high-speed flows alone, one seed, both RTT ratios.
    assert len(data["table2_two_flows_only"]) == 2 * len(ehstcp.LABELS)
    assert all(len(v) == 1 and v[0] > 0 for v in data["table2_two_flows_only"].values())
    # The backward path: six goodputs, none above the 100 Mbps bottleneck.
    assert len(data["backward_path_mbps"]) == 6
    assert all(0 < v < 100 for v in data["backward_path_mbps"].values())
    for claim in results["claims"]:
        for v in claim["values"]:
            assert v["ours"] is None or math.isfinite(v["ours"]), claim["statement"]
    # Table 1 again under half and twice the buffer: every counted Table 1 claim graded, every
    # protocol's utilization a fraction of the link.
    table1_claims = sum(c["source"].endswith("Table 1") and c["kind"] == "reproduction" for c in results["claims"])
    alternatives = data["table1_queue_sensitivity"]
    assert set(alternatives) == {"0.5bdp", "2bdp"}
    for alt in alternatives.values():
        assert alt["claims"] == table1_claims == 7 and alt["verdicts"] is None  # a smoke test shows none
        assert set(alt["utilization"]) == set(ehstcp.LABELS)
        assert all(0.3 < u <= 1.0 + 1e-3 for u in alt["utilization"].values())
    # Table 1 again under the other base RTTs, run lengths and web loads (first seed only).
    setups = data["table1_setup_sensitivity"]
    assert data["table1_setup_sensitivity_seeds"] == [1] and len(setups) == 6
    for alt in setups.values():
        assert alt["claims"] == 7 and alt["verdicts"] is None
        assert all(0.3 < u <= 1.0 + 1e-3 for u in alt["utilization"].values())
        assert all(0 <= p < 20 for p in alt["loss_percent"].values())
        assert all(math.isfinite(s) and s >= 0 for s in alt["norm_std"].values())
    for fig in ("table1.png", "table2.png", "figure1.png", "throughput.png"):
        assert (quick_report / fig).stat().st_size > 1000
    assert "Table 2" in (quick_report / "report.md").read_text()
