"""The reproduction report: verdict rules, rank correlation, and the files it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpstart.reproduce.report import Figure, Report, Table, Value, Verdict, judge, judge_values, rank_correlation


def test_rank_correlation_of_same_and_reversed_order() -> None:
    assert rank_correlation([1, 2, 3, 4], [10, 20, 35, 90]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert rank_correlation([1, 1, 1], [1, 2, 3]) is None


def test_rank_correlation_averages_ties() -> None:
    # Ranks (0, 1.5, 1.5, 3) against (0, 1, 2, 3): rho = 4.5 / sqrt(4.5 * 5).
    assert rank_correlation([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / (4.5 * 5) ** 0.5)


def test_values_within_tolerance_are_reproduced() -> None:
    values = [Value("a", 100, 104), Value("b", 200, 190)]
    verdict, reason = judge_values(values, 0.05, "windows")
    assert verdict is Verdict.REPRODUCED
    assert "5.0%" in reason  # the worst difference is named


def test_values_that_follow_the_trend_are_reproduced_in_trend_only() -> None:
    values = [Value("a", 100, 150), Value("b", 200, 260), Value("c", 300, 400)]
    assert judge_values(values, 0.05, "windows")[0] is Verdict.TREND


def test_values_against_the_trend_are_not_reproduced() -> None:
    values = [Value("a", 100, 400), Value("b", 200, 260), Value("c", 300, 150)]
    assert judge_values(values, 0.05, "windows")[0] is Verdict.NOT


def test_difference_is_relative_to_the_paper() -> None:
    assert Value("x", 200, 150).difference == pytest.approx(-0.25)
    assert Value("x", None, 150).difference is None


def test_qualitative_judgement() -> None:
    assert judge(True, True, "")[0] is Verdict.REPRODUCED
    assert judge(False, True, "")[0] is Verdict.TREND
    assert judge(False, False, "")[0] is Verdict.NOT


def test_report_writes_markdown_html_json_and_figures(tmp_path: Path) -> None:
    report = Report("demo", "Demo paper", "A. Author, 2020", "a dumbbell", quick=True)
    report.add("Table 1", "windows match", [Value("w", 10, 11, "pkt")], judge_values([Value("w", 10, 11)], 0.05, "windows"))
    report.figures.append(Figure("f.png", "a figure", lambda p: p.write_bytes(b"\x89PNG")))
    report.data["rows"] = [1, 2]
    out = report.write(tmp_path / "demo", run_seconds=1.0)
    md = (out / "report.md").read_text()
    assert "| Table 1 | windows match | **reproduced in trend only** |" not in md  # one point cannot show a trend
    assert "**not reproduced**" in md
    assert "+10.0%" in md
    assert "<table>" in (out / "report.html").read_text()
    results = json.loads((out / "results.json").read_text())
    assert results["claims"][0]["values"][0]["difference"] == pytest.approx(0.1)
    assert results["data"]["rows"] == [1, 2]
    assert (out / "f.png").exists()


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
