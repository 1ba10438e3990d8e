"""`tcpstart compare --params --seeds`: parameters per algorithm, several seeds, all runs at once."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest


def completion(tmp_path: Path, name: str) -> dict[str, float]:
    table = pl.read_csv(tmp_path / name / "compare.csv")
    return dict(zip(table["algorithm"], table["completion_time_s"]))


def test_params_reach_the_algorithm_they_name(cli, tmp_path: Path) -> None:
    common = ("compare", "--algos", "newreno,cubic", "--size", "300KB", "--rtt", "300ms")
    assert cli(*common, "--out", "plain")[0] == 0
    assert cli(*common, "--params", "newreno.abc=2", "--out", "abc")[0] == 0
    plain, abc = completion(tmp_path, "plain"), completion(tmp_path, "abc")
    # Byte counting with L = 2 grows NewReno's window faster in slow start; CUBIC is untouched.
    assert abc["newreno"] < plain["newreno"]
    assert abc["cubic"] == plain["cubic"]
    # A bare name goes to every compared algorithm that has the parameter (here NewReno only).
    assert cli(*common, "--params", "abc=2", "--out", "bare")[0] == 0
    assert completion(tmp_path, "bare") == abc


def test_seeds_give_a_row_each_and_the_table_their_mean(cli, tmp_path: Path) -> None:
    status, out, err = cli(
        "compare", "--algos", "reno,newreno", "--size", "200KB", "--seed", "5", "--seeds", "3", "--out", "cmp"
    )
    assert status == 0, err
    table = pl.read_csv(tmp_path / "cmp/compare.csv")
    assert table.select("algorithm", "seed").rows() == [
        ("reno", 5), ("reno", 6), ("reno", 7), ("newreno", 5), ("newreno", 6), ("newreno", 7)
    ]
    assert "seeds 5-7 (means)" in out
    assert (tmp_path / "cmp/reno/summary.json").exists()


def test_seeds_that_repeat_each_other_are_named_and_ack_jitter_varies_them(cli, tmp_path: Path) -> None:
    common = ("compare", "--algos", "newreno,cubic", "--size", "300KB", "--seeds", "3")
    status, out, err = cli(*common, "--out", "plain")
    assert status == 0, err
    # Nothing on the default dumbbell is random: the three seeds are one run three times.
    assert pl.read_csv(tmp_path / "plain/compare.csv").group_by("algorithm").agg(pl.col("completion_time_s").n_unique())["completion_time_s"].to_list() == [1, 1]
    assert "the 3 seeds gave identical results for newreno, cubic" in " ".join(out.split())
    status, out, err = cli(*common, "--ack-jitter", "200us", "--out", "jitter")
    assert status == 0, err
    times = pl.read_csv(tmp_path / "jitter/compare.csv").group_by("algorithm").agg(pl.col("completion_time_s").n_unique())
    assert times["completion_time_s"].to_list() == [3, 3]
    assert "identical results" not in out


@pytest.mark.parametrize(
    "options, message",
    [
        (["--params", "foo=1"], "--params: 'foo': none of newreno, cubic has this parameter"),
        (["--params", "cubic.abc=2"], "--params: cubic.abc: unknown parameter of cubic"),
        (["--params", "cubic.beta=x"], "--params: 'cubic.beta=x': give NAME=NUMBER"),
        (["--params", "reno.abc=2"], "--params: 'reno.abc=2': 'reno' is not one of the algorithms compared"),
        (["--seeds", "0"], "--seeds: must be at least 1, got 0"),
        (["--ack-jitter=-3ms"], "--ack-jitter: \"-3ms\" is negative"),
    ],
)
def test_bad_compare_options_get_one_line(cli, options: list[str], message: str) -> None:
    status, _, err = cli("compare", "--algos", "newreno,cubic", "--size", "100KB", *options, "--out", "cmp")
    assert status == 2
    assert err.startswith(f"tcpstart: error: {message}") and err.count("\n") == 1


def test_profile_chooses_whose_tcp_the_endpoints_model(cli, tmp_path: Path) -> None:
    # The RFC model is the default; --profile linux gives Linux's (here its 200 ms minimum RTO
    # and MSS 1448 show in the saved scenario, and the completion time moves).
    common = ("compare", "--algos", "cubic", "--size", "300KB", "--rtt", "100ms")
    assert cli(*common, "--out", "rfc")[0] == 0
    assert cli(*common, "--profile", "linux", "--out", "linux")[0] == 0
    assert completion(tmp_path, "rfc") != completion(tmp_path, "linux")
    saved = (tmp_path / "linux" / "cubic" / "scenario.json").read_text()
    assert '"profile": "linux"' in saved and '"profile": "linux"' not in (tmp_path / "rfc" / "cubic" / "scenario.json").read_text()
