"""The tcpstart command on good input: the files it writes and what it prints."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl

from conftest import SCENARIOS

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_run_writes_results(cli, tmp_path: Path) -> None:
    status, out, err = cli("run", SCENARIOS / "dumbbell-newreno.toml", "--out", "res", "--packets", "--pcap", "bottleneck")
    assert status == 0, err
    files = sorted(p.name for p in (tmp_path / "res").iterdir())
    assert files == [
        ".tcpstart-result",
        "bottleneck.pcap",
        "flows.parquet",
        "packets.parquet",
        "queues.parquet",
        "scenario.json",
        "summary.json",
    ]
    summary = json.loads((tmp_path / "res/summary.json").read_text())
    assert summary["flows"][0]["completed"]
    assert pl.read_parquet(tmp_path / "res/packets.parquet").height > 0
    assert "newreno" in out and "res/" in out


def test_run_default_folder_is_named_after_the_scenario(cli, tmp_path: Path) -> None:
    status, out, _ = cli("run", SCENARIOS / "dumbbell-newreno.toml")
    assert status == 0
    assert (tmp_path / "tcpstart-out/dumbbell-newreno/summary.json").exists()
    assert "tcpstart-out/dumbbell-newreno" in out


def test_plot_writes_pngs(cli, tmp_path: Path) -> None:
    for args in (["--packets"], []):  # the sequence plot has two sources
        out_dir = tmp_path / f"res{len(args)}"
        assert cli("run", SCENARIOS / "dumbbell-newreno.toml", "--out", out_dir, *args)[0] == 0
        status, _, err = cli("plot", out_dir)
        assert status == 0, err
        for kind in ("cwnd", "inflight", "rtt", "seq", "queue"):
            assert (out_dir / f"{kind}.png").read_bytes().startswith(PNG_MAGIC)


def test_compare_separate_runs(cli, tmp_path: Path) -> None:
    status, out, err = cli("compare", "--algos", "reno,newreno", "--size", "200KB", "--out", "cmp")
    assert status == 0, err
    table = pl.read_csv(tmp_path / "cmp/compare.csv")
    assert table["algorithm"].to_list() == ["reno", "newreno"]
    assert table["completion_time_s"].is_not_null().all()
    for name in ("reno", "newreno"):
        assert (tmp_path / "cmp" / name / "summary.json").exists()
    for png in ("cwnd.png", "queue.png"):
        assert (tmp_path / "cmp" / png).read_bytes().startswith(PNG_MAGIC)
    assert "reno" in out and "newreno" in out and "cmp/" in out


def test_compare_shared_bottleneck(cli, tmp_path: Path) -> None:
    status, _, err = cli("compare", "--algos", "reno,newreno", "--size", "200KB", "--shared", "--out", "cmp")
    assert status == 0, err
    summary = json.loads((tmp_path / "cmp/summary.json").read_text())
    assert [f["algorithm"] for f in summary["flows"]] == ["reno", "newreno"]
    assert pl.read_csv(tmp_path / "cmp/compare.csv").height == 2


def test_compare_default_folder_is_named_after_the_options(cli, tmp_path: Path) -> None:
    status, out, err = cli("compare", "--algos", "newreno", "--size", "100KB", "--rtt", "50ms")
    assert status == 0, err
    folder = "tcpstart-out/compare-20Mbps-50ms-100KB"
    assert (tmp_path / folder / "compare.csv").exists()
    assert folder in out


def test_algorithms(cli) -> None:
    status, out, _ = cli("algorithms", "--json")
    assert status == 0
    algos = {a["name"]: a for a in json.loads(out)}
    assert {"reno", "newreno"} <= set(algos)
    assert all({"name", "default", "min", "max", "integer", "doc"} <= set(p) for a in algos.values() for p in a["params"])
    status, out, _ = cli("algorithms")
    assert status == 0 and "newreno" in out and "abc" in out
    status, out, _ = cli("algorithms", "newreno")
    assert status == 0 and "RFC 6582" in out


def test_validate_prints_toml_that_runs_as_the_same_scenario(cli, tmp_path: Path) -> None:
    status, out, err = cli("validate", SCENARIOS / "lossy-link.toml")
    assert status == 0, err
    resolved = tomllib.loads(out)
    # User units, every default visible.
    assert resolved["network"]["rate"].endswith("bps") and resolved["network"]["rtt"].endswith("s")
    assert resolved["tcp"]["rto_min"] == "1s" and resolved["tcp"]["rcv_buf"] == "16MB"
    assert {"seed", "algorithm", "trace", "limits"} <= set(resolved)
    (tmp_path / "resolved.toml").write_text(out)
    assert cli("validate", "resolved.toml")[1] == out
    for scenario, folder in [(SCENARIOS / "lossy-link.toml", "a"), ("resolved.toml", "b")]:
        status, _, err = cli("run", scenario, "--out", folder)
        assert status == 0, err
    summaries = [json.loads((tmp_path / f / "summary.json").read_text()) for f in "ab"]
    for s in summaries:
        s.pop("provenance", None)
    assert summaries[0] == summaries[1]
    assert summaries[0]["links"][0]["random_losses"] > 0  # the scenario's random losses happened, alike
    flows = [pl.read_parquet(tmp_path / f / "flows.parquet") for f in "ab"]
    assert flows[0].equals(flows[1])


