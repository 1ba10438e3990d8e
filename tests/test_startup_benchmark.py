"""`tcpstart benchmark`: the quick mode end to end, the scores' arithmetic on rows made by hand,
and a characteristic ranking on the GEO preset."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from conftest import SCENARIOS

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
