"""`tcpstart benchmark`: the quick mode end to end, the scores' arithmetic on rows made by hand,
and a characteristic ranking on the GEO preset."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from conftest import SCENARIOS

from tcpstart import benchmark_figures as bf
from tcpstart import startup_benchmark as sb


def test_quick_mode_writes_a_leaderboard_of_its_two_algorithms(cli, tmp_path: Path) -> None:
    status, out, err = cli("benchmark", "--quick", "--scenarios", SCENARIOS, "--out", tmp_path / "b")
    assert status == 0, err
    folder = tmp_path / "b"
    assert {p.name for p in folder.iterdir()} >= {"leaderboard.md", "leaderboard.html", "cells.csv", "runs.csv"}
    runs = list(csv.DictReader(open(folder / "runs.csv")))
    # 2 paths x 2 algorithms x 1 size x 1 replication, alone and against CUBIC.
    assert len(runs) == 8
    assert {r["algorithm"] for r in runs} == {"cubic", "cubic+suss"}
    for r in runs:
        # Nothing finishes faster than the ideal, and harm is a fraction.
        assert float(r["completion_ratio"]) >= 1.0
        if r["competing"] == "True":
            assert 0.0 <= float(r["harm"]) <= 1.0
    board = (folder / "leaderboard.md").read_text()
    assert "tcpstart benchmark" in board and "| cubic+suss |" in board and "<table>" in (folder / "leaderboard.html").read_text()
    assert "8 runs (2 paths x 2 algorithms" in out


def test_a_rerun_with_a_store_simulates_nothing_and_agrees(cli, tmp_path: Path, monkeypatch) -> None:
    first = ("benchmark", "--quick", "--scenarios", SCENARIOS, "--store", tmp_path / "store")
    status, _, err = cli(*first, "--out", tmp_path / "a")
    assert status == 0, err
    from tcpstart.sweep import measure

    def no_simulation(*args, **kwargs):
        raise AssertionError("a rerun simulated")

    monkeypatch.setattr(measure._core, "run_all", no_simulation)
    status, _, err = cli(*first, "--out", tmp_path / "b")
    assert status == 0, err
    for name in ("runs.csv", "cells.csv"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()


def test_bad_options_get_one_line(cli, tmp_path: Path) -> None:
    for args, message in [
        (["--algos", "cubic,nope"], "--algos: unknown algorithm 'nope'; see tcpstart algorithms"),
        (["--paths", "moon"], "--paths: no preset path-moon in"),
        (["--sizes", "lots"], "--sizes: "),
        (["--replications", "0"], "--replications: must be at least 1, got 0"),
    ]:
        status, _, err = cli("benchmark", "--scenarios", SCENARIOS, "--out", tmp_path / "x", *args)
        assert status == 2 and err.startswith(f"tcpstart: error: {message}"), err
        assert err.count("\n") == 1


def test_scores_are_medians_then_geometric_and_arithmetic_means() -> None:
    def row(path: str, rep: int, competing: bool, ratio: float, finished: bool = True, **more: float) -> dict:
        return {
            "path": path, "algorithm": "a", "size": "1MB", "replication": rep, "competing": competing,
            "finished": finished, "completion_ratio": ratio, **more,
        }

    rows = [
        row("p", 0, False, 2.0, loss=0.01, delay_p95_ms=10.0),
        row("p", 1, False, 4.0, loss=0.03, delay_p95_ms=30.0),
        row("p", 2, False, 3.0, loss=0.02, delay_p95_ms=20.0),
        row("p", 0, True, 5.0, harm=0.5),
        row("q", 0, False, 12.0, loss=0.0, delay_p95_ms=0.0),
        # Unfinished: the ratio is the time it had, a lower bound.
        row("q", 0, True, 20.0, finished=False, harm=0.1),
    ]
    cell_rows = sb.cells(rows)
    p = next(c for c in cell_rows if c["path"] == "p")
    assert (p["completion_ratio"], p["loss"], p["delay_p95_ms"], p["shared_harm"]) == (3.0, 0.02, 20.0, 0.5)
    (board,) = sb.leaderboard(cell_rows)
    # sqrt(3 x 12) = 6; sqrt(5 x 20) = 10, the unfinished run counted.
    assert math.isclose(board["completion_ratio"], 6.0)
    assert math.isclose(board["shared_completion_ratio"], 10.0) and board["unfinished"] == 1
    assert math.isclose(board["loss_pct"], 1.0) and math.isclose(board["harm_pct"], 30.0)


def test_on_the_geo_path_jump_start_beats_slow_start_and_costs_the_cubic_flow_more() -> None:
    (geo,) = sb.load_paths(SCENARIOS, ["geo-satellite"])
    assert geo.rate_bps == 50e6 and math.isclose(geo.rtt_s, 0.6)
    rows = sb.run_benchmark([geo], ["newreno", "jump-start"], ["1MB"], 1)
    by = {(r["algorithm"], r["competing"]): r for r in rows}
    # Alone, 1 MB is 160 ms at 50 Mb/s: slow start from 10 segments needs about six RTTs where
    # Jump Start sends the whole transfer in its first.
    assert by[("jump-start", False)]["completion_ratio"] < 0.7 * by[("newreno", False)]["completion_ratio"]
    assert by[("jump-start", True)]["harm"] > by[("newreno", True)]["harm"]


def _lines(fig, suffix: str) -> dict:
    return {line.get_gid(): line for ax in fig.axes for line in ax.get_lines() if (line.get_gid() or "").endswith(suffix)}


def test_figures_draw_what_the_scores_are_computed_from(tmp_path: Path) -> None:
    (geo,) = sb.load_paths(SCENARIOS, ["geo-satellite"])
    series: dict = {}
    rows = sb.run_benchmark([geo], ["newreno", "jump-start"], ["100KB", "1MB"], 2, series=series)
    sb.write_outputs(tmp_path, rows, "tcpstart benchmark (test)", series)
    files = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert files == ["geo-satellite-delay.png", "geo-satellite-harm.png", "geo-satellite-scores.png"]
    assert all((tmp_path / "figures" / f).stat().st_size > 10_000 for f in files)
    board = (tmp_path / "leaderboard.md").read_text()
    assert "](figures/geo-satellite-harm.png)" in board and "figures/geo-satellite-scores.png" in (tmp_path / "leaderboard.html").read_text()
    # Series of replication 0 only, one per algorithm, size and setting.
    assert len(series) == 2 * 2 * 2

    def row(algo: str, size: str, competing: bool, rep: int = 0) -> dict:
        return next(r for r in rows if (r["algorithm"], r["size"], r["competing"], r["replication"]) == (algo, size, competing, rep))

    # The scores figure: every replication's value as a point, the cell's median on the line.
    scores = bf.scores_figure("geo-satellite", rows)
    points, medians = _lines(scores, "/runs"), _lines(scores, "/median")
    for algo in ("newreno", "jump-start"):
        for key, competing, _, scale in bf.SCORES:
            drawn = points[f"{algo}/{key}/{competing}/runs"].get_ydata()
            expected = [scale * row(algo, z, competing, r)[key] for z in ("100KB", "1MB") for r in range(2)]
            assert sorted(drawn) == sorted(expected), (algo, key, competing)
            cells = {(c["algorithm"], c["size"]): c for c in sb.cells(rows)}
            cell_key = ("shared_" if competing else "") + key
            drawn_medians = medians[f"{algo}/{key}/{competing}/median"].get_ydata()
            expected_medians = [scale * cells[(algo, z)][cell_key] for z in ("100KB", "1MB")]
            assert len(drawn_medians) == 2, (algo, key, competing)
            assert all(math.isclose(d, e, rel_tol=1e-12) for d, e in zip(drawn_medians, expected_medians)), (algo, key, competing)
    # Harm: 1 - with / without at the transfer's end, from the drawn curves.
    harm = bf.harm_figure("geo-satellite", series)
    withs, withouts = _lines(harm, "/with"), _lines(harm, "/without")
    for algo in ("newreno", "jump-start"):
        for size in ("100KB", "1MB"):
            line = withs[f"{algo}/{size}/with"]
            t_end, with_end = line.get_xdata()[-1], line.get_ydata()[-1]
            base = withouts[f"{size}/without"]
            without_end = [y for x, y in zip(base.get_xdata(), base.get_ydata()) if x <= t_end + 1e-12][-1]
            assert math.isclose(max(0.0, 1 - with_end / without_end), row(algo, size, True)["harm"], abs_tol=1e-12)
            assert math.isclose(t_end, row(algo, size, True)["completion_s"], rel_tol=0, abs_tol=0.011)
    # Delay: the dotted level is the run's score, over the series of its transfer.
    delay = bf.delay_figure("geo-satellite", rows, series)
    levels, curves = _lines(delay, "/delay_p95_ms"), _lines(delay, "/delay")
    for algo in ("newreno", "jump-start"):
        for size in ("100KB", "1MB"):
            assert levels[f"{algo}/{size}/delay_p95_ms"].get_ydata()[0] == row(algo, size, False)["delay_p95_ms"]
            curve = curves[f"{algo}/{size}/delay"]
            # From the transfer's start to its end, as long as the score's window.
            assert curve.get_xdata()[0] == 0.0
            assert math.isclose(curve.get_xdata()[-1], row(algo, size, False)["completion_s"], abs_tol=1e-9)
    # NewReno's slow start queues 1 MB's last rounds at the bottleneck (Jump Start paces its
    # window over the round trip and queues nothing): the drawn series holds that queue, and the
    # score (the p95 over every packet) lies within the largest delay drawn.
    newreno = curves["newreno/1MB/delay"].get_ydata()
    assert 0 < row("newreno", "1MB", False)["delay_p95_ms"] <= max(newreno)
    assert max(curves["jump-start/1MB/delay"].get_ydata()) == row("jump-start", "1MB", False)["delay_p95_ms"] == 0
