"""Bad input gives one line on stderr naming the culprit, no traceback and no output folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GOOD_NETWORK = '[network]\nrate = "20Mbps"\nrtt = "200ms"\n'
ONE_FLOW = '[[flows]]\nalgorithm = "newreno"\nsize = "100KB"\n'

CASES = {
    "unknown field in file": (
        ["run", "s.toml", "--out", "out"],
        {"s.toml": '[network]\nrate = "20Mbps"\nrtt = "200ms"\ncolour = "blue"\n' + ONE_FLOW},
        ["network", "colour"],
    ),
    "unknown algorithm in file": (
        ["run", "s.toml", "--out", "out"],
        {"s.toml": GOOD_NETWORK + '[[flows]]\nalgorithm = "cubic9"\nsize = "100KB"\n'},
        ["flows[0].algorithm", "s.toml"],
    ),
    "negative rate in file": (
        ["run", "s.toml", "--out", "out"],
        {"s.toml": '[network]\nrate = "-5Mbps"\nrtt = "200ms"\n' + ONE_FLOW},
        ["network.rate"],
    ),
    "invalid TOML": (
        ["run", "s.toml", "--out", "out"],
        {"s.toml": '[network]\nrate = "20Mbps\nrtt = "200ms"\n' + ONE_FLOW},
        ["s.toml", "invalid TOML", "line 2"],
    ),
    "unknown pcap link": (
        ["run", "s.toml", "--out", "out", "--pcap", "nowhere"],
        {"s.toml": GOOD_NETWORK + ONE_FLOW},
        ["trace.pcap[0]", "nowhere"],
    ),
    "missing file": (["run", "nope.toml", "--out", "out"], {}, ["nope.toml", "no such file"]),
    "folder instead of file": (["validate", "sub"], {"sub/x": ""}, ["sub", "cannot read"]),
    "invalid file to validate": (
        ["validate", "s.toml"],
        {"s.toml": GOOD_NETWORK + '[[flows]]\nsize = "100KB"\nstart = "5"\n'},
        ["flows[0].start", "unit"],
    ),
    "unknown algorithm option": (["compare", "--algos", "reno,cubic9", "--out", "out"], {}, ["--algos", "cubic9"]),
    "negative rate option": (["compare", "--rate", "-5Mbps", "--out", "out"], {}, ["--rate", "-5Mbps"]),
    "zero rate option": (["compare", "--rate", "0Mbps", "--out", "out"], {}, ["--rate"]),
    "zero queue option": (["compare", "--queue", "0", "--out", "out"], {}, ["--queue"]),
    "malformed unit option": (["compare", "--rtt", "200 parsecs", "--out", "out"], {}, ["--rtt", "parsecs"]),
    "unlimited without duration": (["compare", "--size", "unlimited", "--out", "out"], {}, ["--duration"]),
    "negative seed": (["compare", "--seed", "-1", "--out", "out"], {}, ["--seed"]),
    "missing option value": (["compare", "--rtt"], {}, ["--rtt"]),
    "plot of a folder without results": (["plot", "empty"], {"empty/readme.txt": ""}, ["empty", "summary.json"]),
    "plot of a damaged folder": (["plot", "res"], {"res/summary.json": "{"}, ["res", "damaged"]),
    "unknown paper to reproduce": (["reproduce", "tcp-vegas", "--out", "out"], {}, ["tcp-vegas", "jump-start"]),
}


def make_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def assert_one_line_error(status: int, err: str, expected: list[str]) -> None:
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tcpstart: error: ")
    for text in expected:
        assert text in lines[0]


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_is_one_clear_line(cli, tmp_path: Path, case) -> None:
    args, files, expected = case
    make_files(tmp_path, files)
    before = listing(tmp_path)
    status, out, err = cli(*args)
    assert_one_line_error(status, err, expected)
    assert listing(tmp_path) == before, "a failed command left files behind"


def test_output_path_that_is_a_file(cli, tmp_path: Path) -> None:
    (tmp_path / "out").write_text("not a folder")
    status, _, err = cli("run", Path(__file__).parent.parent / "scenarios/dumbbell-newreno.toml", "--out", "out")
    assert_one_line_error(status, err, ["out", "not a folder"])
    assert (tmp_path / "out").read_text() == "not a folder"
    assert listing(tmp_path) == ["out"]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["compare", "--rate", "-5Mbps", "--out", "out"], "--rate"),
        (["run", "nope.toml"], "nope.toml"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_real_process_exits_2_without_traceback(tmp_path: Path, args: list[str], expected: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tcpstart", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert_one_line_error(proc.returncode, proc.stderr, [expected])
    assert proc.stdout == ""
    assert listing(tmp_path) == []
