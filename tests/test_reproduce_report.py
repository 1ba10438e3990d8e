"""The reproduction report: grading rules on hand-made numbers, and the files it writes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tcpstart.reproduce.report import (
    Choice,
    Direction,
    Figure,
    Report,
    Table,
    Value,
    Verdict,
    direction,
    judge,
    judge_effect,
    judge_values,
    mean_ci,
    rank_correlation,
    judge_ratio,
    ratio_effect,
)


def test_rank_correlation_of_same_and_reversed_order() -> None:
    assert rank_correlation([1, 2, 3, 4], [10, 20, 35, 90]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert rank_correlation([1, 1, 1], [1, 2, 3]) is None


def test_rank_correlation_averages_ties() -> None:
    # Ranks (0, 1.5, 1.5, 3) against (0, 1, 2, 3): rho = 4.5 / sqrt(4.5 * 5).
    assert rank_correlation([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / (4.5 * 5) ** 0.5)


def test_values_within_tolerance_are_reproduced() -> None:
    values = [Value("a", 100, 104), Value("b", 200, 190)]
    verdict, reason = judge_values(values, 0.05, "windows", band=2)
    assert verdict is Verdict.REPRODUCED
    assert "5.0%" in reason  # the worst difference is named


def test_trend_needs_the_magnitude_within_the_band_not_only_the_order() -> None:
    # Same order as the paper and within a factor 2 everywhere: in trend.
    near = [Value("a", 100, 150), Value("b", 200, 260), Value("c", 300, 400)]
    assert judge_values(near, 0.05, "windows", band=2)[0] is Verdict.TREND
    # Same order (rank correlation 1) but one point 6.5x the paper's: a rank alone does not pass.
    far = [Value("a", 0.03, 0.195), Value("b", 0.2, 0.26), Value("c", 0.3, 0.4)]
    verdict, reason = judge_values(far, 0.05, "gains", band=2)
    assert verdict is Verdict.NOT
    assert "factor 2" in reason


def test_values_against_the_order_are_not_reproduced_even_within_the_band() -> None:
    values = [Value("a", 100, 180), Value("b", 200, 260), Value("c", 300, 160)]
    assert judge_values(values, 0.05, "windows", band=2)[0] is Verdict.NOT


def test_opposite_sign_is_never_within_a_band() -> None:
    assert judge_values([Value("a", 0.5, -0.5)], 0.05, "gain", band=100)[0] is Verdict.NOT


def test_a_band_of_one_or_less_is_refused() -> None:
    with pytest.raises(ValueError, match="band"):
        judge_values([Value("a", 1, 1)], 0.05, "x", band=1)


def test_a_paper_range_is_compared_as_a_range_not_by_its_midpoint() -> None:
    inside = Value("gamma 1", None, 3.4, paper_range=(3.3, 4.6))
    assert inside.difference == 0.0  # the midpoint 3.95 would give -14 %
    assert judge_values([inside], 0.05, "estimates", band=2)[0] is Verdict.REPRODUCED
    below = Value("gamma 8", None, 0.2, paper_range=(0.3, 1.0))
    assert below.difference == pytest.approx((0.2 - 0.3) / 0.3)
    assert judge_values([below], 0.05, "estimates", band=2)[0] is Verdict.TREND
    assert judge_values([Value("x", None, 0.1, paper_range=(0.3, 1.0))], 0.05, "e", band=2)[0] is Verdict.NOT
    open_ended = Value("more than twice", None, 1.9, paper_range=(2.0, None))
    assert open_ended.paper_text() == "≥ 2"
    assert open_ended.within_factor(2) is True
    assert Value("x", None, 0.9, paper_range=(2.0, None)).within_factor(2) is False


def test_effect_more_than_twice_is_not_in_trend_at_109_percent() -> None:
    # "Slow start takes more than twice as long": ratio 1.09 has the sign but a tenth of the effect.
    paper = Value("ratio", None, None, paper_range=(ratio_effect(2.0), None))
    verdict, _ = judge_effect(ratio_effect(1.09), paper, 0.0, band=2, noise=0.0, what="log ratio")
    assert verdict is Verdict.NOT
    assert judge_effect(ratio_effect(1.6), paper, 0.0, band=2, noise=0.0, what="log ratio")[0] is Verdict.TREND
    assert judge_effect(ratio_effect(2.3), paper, 0.0, band=2, noise=0.0, what="log ratio")[0] is Verdict.REPRODUCED


def test_effect_about_twice_is_not_in_trend_at_eight_times() -> None:
    assert judge_effect(ratio_effect(8.6), ratio_effect(2.0), 0.25, band=2, noise=0.0, what="x")[0] is Verdict.NOT
    assert judge_effect(ratio_effect(2.1), ratio_effect(2.0), 0.25, band=2, noise=0.0, what="x")[0] is Verdict.REPRODUCED


def test_effect_inside_the_noise_is_no_difference_whatever_the_sign() -> None:
    verdict, reason = judge_effect(-0.001, -0.02, 0.5, band=3, noise=0.01, what="difference")
    assert verdict is Verdict.NOT
    assert "no difference" in reason


def test_ratio_effect_is_symmetric_in_log() -> None:
    assert ratio_effect(2.0) == pytest.approx(-(ratio_effect(0.5) or 0))
    assert ratio_effect(0.0) is None


def test_deterministic_direction_needs_more_than_the_resolution() -> None:
    assert direction(99.9, 100.0, resolution=0.01)[0] is Direction.SAME  # -0.1 %: no difference
    assert direction(98.0, 100.0, resolution=0.01)[0] is Direction.LOWER
    assert direction(103.0, 100.0, resolution=0.01)[0] is Direction.HIGHER


def test_seeded_direction_needs_a_confidence_interval_that_excludes_zero() -> None:
    # Paired differences +1, -1, +2, -1.5: mean +0.125, CI straddles 0.
    assert direction([11, 9, 12, 8.5], [10, 10, 10, 10])[0] is Direction.SAME
    # Paired differences 1.0, 1.1, 0.9, 1.0: clearly higher.
    assert direction([11, 11.1, 10.9, 11], [10, 10, 10, 10])[0] is Direction.HIGHER
    assert direction([1.0], [2.0])[0] is Direction.SAME  # one seed: no spread, no difference
    with pytest.raises(ValueError):
        direction([1.0, 2.0], [2.0])


def test_mean_ci_uses_student_t() -> None:
    m, lo, hi = mean_ci([1.0, 2.0, 3.0])
    # mean 2, sd 1, t(2 df) = 4.303: half-width 4.303 / sqrt(3) = 2.484.
    assert (m, lo, hi) == pytest.approx((2.0, 2.0 - 2.4843, 2.0 + 2.4843), abs=1e-3)
    assert mean_ci([5.0])[1] == -math.inf


def test_qualitative_judgement() -> None:
    assert judge(True, True, "")[0] is Verdict.REPRODUCED
    assert judge(False, True, "")[0] is Verdict.TREND
    assert judge(False, False, "")[0] is Verdict.NOT


def _demo(quick: bool) -> Report:
    report = Report("demo", "Demo paper", "A. Author, 2020", "a dumbbell", quick=quick)
    report.add("Table 1", "windows match", [Value("w", 10, 11, "pkt")], judge_values([Value("w", 10, 11)], 0.05, "windows", 2))
    report.add("Table 2", "gains match", [Value("g", 1, 1.01, "s")], judge_values([Value("g", 1, 1.01)], 0.05, "gains", 2))
    report.check("Table 3", "the RTT we calibrated is the paper's", [Value("rtt", 0.1, 0.1, "s")], True, "input")
    report.out_of_scope("Figure 3", "trace statistics", "the trace is not public")
    report.choices.append(Choice("queue", "1 BDP", "the paper gives none", "100 packets: 2 verdicts change"))
    return report


def test_tally_counts_only_reproduction_verdicts() -> None:
    t = _demo(False).tally()
    assert t == {
        "reproduced": 1,
        "reproduced in trend only": 1,
        "not reproduced": 0,
        "consistency checks": 1,
        "out of scope": 1,
    }


def test_add_refuses_a_check_as_a_verdict() -> None:
    with pytest.raises(ValueError, match="reproduction verdict"):
        _demo(False).add("x", "y", [], (Verdict.CONSISTENT, ""))


def test_report_writes_inventory_tally_sections_html_json_and_figures(tmp_path: Path) -> None:
    report = _demo(False)
    report.figures.append(Figure("f.png", "a figure", lambda p: p.write_bytes(b"\x89PNG")))
    report.data["rows"] = [1, 2]
    out = report.write(tmp_path / "demo", run_seconds=1.0)
    md = (out / "report.md").read_text()
    assert md.index("## Inventory") < md.index("## Setup")
    assert "**1 reproduced, 1 in trend only, 0 not reproduced** of 2" in md
    assert "| Table 1 | windows match | **reproduced in trend only** |" in md
    assert "| Table 3 | the RTT we calibrated is the paper's | **consistency check: consistent** |" in md
    assert "## Consistency checks (not counted)" in md
    assert "- **Figure 3**: trace statistics. the trace is not public" in md
    assert "| queue | 1 BDP | the paper gives none | 100 packets: 2 verdicts change |" in md
    assert "+10.0%" in md
    assert "<table>" in (out / "report.html").read_text()
    results = json.loads((out / "results.json").read_text())
    assert results["claims"][0]["values"][0]["difference"] == pytest.approx(0.1)
    assert [c["kind"] for c in results["claims"]] == ["reproduction", "reproduction", "check", "out of scope"]
    assert results["tally"]["reproduced"] == 1
    assert results["data"]["rows"] == [1, 2]
    assert (out / "f.png").exists()


def test_quick_mode_is_a_smoke_test_that_shows_no_verdicts(tmp_path: Path) -> None:
    out = _demo(True).write(tmp_path / "demo", run_seconds=1.0)
    md = (out / "report.md").read_text()
    assert "Smoke test" in md
    assert "reproduced in trend only" not in md
    assert "**reproduced**" not in md
    assert "| Table 1 | windows match | **smoke test** |" in md
    assert "**consistency check: consistent**" in md  # checks are not verdicts: still shown
    assert "2 verdicts change" not in md  # the alternatives' outcomes are withheld too
    results = json.loads((out / "results.json").read_text())
    assert results["smoke_test"] is True and results["tally"] is None
    assert results["claims"][0]["verdict"] is None


def test_a_failing_figure_leaves_no_half_written_report(tmp_path: Path) -> None:
    report = Report("demo", "Demo", "-", "-", quick=True)

    def broken(path: Path) -> None:
        raise RuntimeError("plot failed")

    report.figures.append(Figure("f.png", "broken", broken))
    with pytest.raises(RuntimeError):
        report.write(tmp_path / "demo", run_seconds=1.0)
    assert not (tmp_path / "demo").exists()


def test_tables_render_in_markdown_and_json(tmp_path: Path) -> None:
    report = Report("demo", "Demo", "-", "-", quick=True)
    report.tables.append(Table("Per path", ["path", "ratio"], [["10 Mbps", 1.23456], ["20 Mbps", "-"]]))
    out = report.write(tmp_path / "demo", run_seconds=1.0)
    md = (out / "report.md").read_text()
    assert "## Per path" in md
    assert "| path | ratio |\n| --- | ---: |\n| 10 Mbps | 1.235 |\n| 20 Mbps | - |" in md
    assert json.loads((out / "results.json").read_text())["tables"][0]["rows"][1] == ["20 Mbps", "-"]


def test_ratio_claims_bound_the_effect_from_below_and_the_ratio_from_above() -> None:
    # "More than twice": 1.09x has a tenth of the effect; 1.5x more than half of it; 2.3x inside.
    assert judge_ratio(1.09, (2.0, None), 2, 0.0, "ratio")[0] is Verdict.NOT
    assert judge_ratio(1.5, (2.0, None), 2, 0.0, "ratio")[0] is Verdict.TREND
    assert judge_ratio(2.3, (2.0, None), 2, 0.0, "ratio")[0] is Verdict.REPRODUCED
    # "About twice" read as 1.5-3: 8.6x is beyond twice the upper end, 5x within it.
    assert judge_ratio(8.6, (1.5, 3.0), 2, 0.0, "ratio")[0] is Verdict.NOT
    assert judge_ratio(5.0, (1.5, 3.0), 2, 0.0, "ratio")[0] is Verdict.TREND
    assert judge_ratio(0.8, (1.5, 3.0), 2, 0.0, "ratio")[0] is Verdict.NOT  # the other way
    # Inside the noise: no difference.
    verdict, reason = judge_ratio(1.02, (1.5, 3.0), 2, 0.05, "ratio")
    assert verdict is Verdict.NOT and "no difference" in reason
