"""The command line explains itself: version, help with examples, one algorithm, pipes, re-runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SCENARIOS
from tcpstart.cli import build_parser
from tcpstart.simulate import algorithms

COMMANDS = ["compare", "run", "plot", "algorithms", "reproduce", "bench", "benchmark", "validate"]


def test_version_names_the_build(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    assert re.fullmatch(r"tcpstart \d+\.\d+\.\d+ \(.+, (release|debug) build\)\n", capsys.readouterr().out)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_description_and_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = capsys.readouterr().out
    body = text.split("\n\n")
    assert len(body) >= 3, text  # usage, description, options, examples
    assert "examples:\n  tcpstart " + command in text
    # Positional arguments say what they are: no name stands alone without a help text.
    if "positional arguments:" in text:
        section = text.split("positional arguments:")[1].split("\n\n")[0]
        lines = section.strip("\n").splitlines()
        for i, line in enumerate(lines):
            if re.match(r"^  \S+$", line):  # a name alone: its help must follow, indented further
                assert i + 1 < len(lines) and re.match(r"^   +\S", lines[i + 1]), section


def test_one_algorithm_in_full(cli) -> None:
    status, out, _ = cli("algorithms", "jump-start")
    assert status == 0
    assert "unpaced_within_iw" in out and "[0, 1]" in out
    status, out, _ = cli("algorithms", "jump-start", "--json")
    assert json.loads(out)["name"] == "jump-start"


def test_a_mistyped_algorithm_gets_a_suggestion(cli) -> None:
    status, _, err = cli("compare", "--algos", "Cubic", "--out", "x")
    assert status == 2 and 'did you mean "cubic"?' in err
    status, _, err = cli("algorithms", "jumpstart")
    assert status == 2 and 'did you mean "jump-start"?' in err


def test_the_summary_table_is_one_line_per_algorithm(cli) -> None:
    status, out, _ = cli("algorithms")
    assert status == 0
    names = [a["name"] for a in algorithms()]
    starts = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert all(n in starts for n in names)
    # A description may wrap once; the old table took 514 lines at 80 columns.
    assert len(starts) <= 2 * len(names) + 1


def test_run_accepts_the_scenario_json_it_wrote(cli, tmp_path: Path) -> None:
    assert cli("run", SCENARIOS / "lossy-link.toml", "--out", "first")[0] == 0
    status, _, err = cli("run", "first/scenario.json", "--out", "again")
    assert status == 0, err
    first, again = (json.loads((tmp_path / d / "summary.json").read_text()) for d in ("first", "again"))
    assert first["flows"] == again["flows"]


def test_pcap_may_come_before_the_scenario(cli, tmp_path: Path) -> None:
    status, _, err = cli("run", "--pcap", "bottleneck,sender0_out", SCENARIOS / "dumbbell-newreno.toml", "--out", "r")
    assert status == 0, err
    assert (tmp_path / "r/bottleneck.pcap").exists() and (tmp_path / "r/sender0_out.pcap").exists()


def test_a_closed_pipe_ends_quietly() -> None:
    shell = f"{sys.executable} -m tcpstart algorithms --json | head -c 1"
    for _ in range(3):
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True)
        assert done.stderr == "" and done.stdout == "["


def test_compare_says_why_rows_are_identical_and_states_its_footing(cli) -> None:
    status, out, _ = cli("compare", "--algos", "reno,newreno,cubic", "--out", "c")
    assert status == 0
    assert "identical results for reno, newreno: none left slow start and none lost a packet" in out
    assert "footing: newreno, reno grow by one MSS per ACK" in out
    status, out, _ = cli("compare", "--algos", "reno,newreno,cubic", "--params", "abc=2", "--out", "d")
    assert status == 0 and "footing" not in out
