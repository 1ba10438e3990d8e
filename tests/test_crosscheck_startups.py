"""The start-up algorithms' kernel comparison (`tcpstart crosscheck --linux --startups`): its
report from saved kernel runs and its refusals (no root needed)."""

from __future__ import annotations

import json

from tcpstart.crosscheck.startups_notes import NOTES


def kernel_run(completion: float, first_window_segments: int) -> dict:
    return {"completion": completion, "first_rtt_window": first_window_segments * 1448,
            "second_rtt_window": 40 * 1448, "retransmissions": 0, "ss_exit_cwnd": None}


def test_report_from_saved_kernel_runs_judges_each_scenario(cli, tmp_path):
    # Jump Start's first scenario (10 Mbps, 100 ms, 60 KB): the kernel took 0.280 s with a first
    # window of 41 segments (docs/validation-linux-startups.md). The second run set is 2x slower.
    near = [kernel_run(0.280, 41), kernel_run(0.281, 41)]
    far = [kernel_run(0.560, 41), kernel_run(0.562, 41)]
    raw = {"runs": 2, "kernel": "6.x", "cases": [
        {"algorithm": "jump-start", "index": 0, "kernel": near, "load": [1.0, 2.0]},
        {"algorithm": "jump-start", "index": 3, "kernel": far, "load": [1.5, 3.0]},
    ]}
    path = tmp_path / "startups.json"
    path.write_text(json.dumps(raw))
    status, out, err = cli("crosscheck", "--linux", "--startups", "--from-results", path, "--out", tmp_path / "x",
                           "--docs", tmp_path / "d")
    assert status == 0, err
    md = (tmp_path / "d" / "validation-linux-startups.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| 10Mbps, 100ms") or line.startswith("| 5Mbps, 64ms")]
    assert rows[0].endswith("| yes |") and rows[1].endswith("| no |")
    # The path's BDP: 10 Mbit/s x 100 ms = 125,000 bytes, 86 segments of 1448; runs saved without
    # the second-RTT cwnd show none.
    assert "| - | 41 | 86 |" in rows[0]
    assert "| [jump-start](#jump-start) | 1/2 |" in md
    assert "1.0 to 3.0" in md  # the load range
    miss = next(line for line in md.splitlines() if line.startswith("- **5Mbps, 64ms"))
    assert NOTES.get(("jump-start", 3), "not traced yet") in miss
    assert json.loads((tmp_path / "x" / "startups.json").read_text()) == raw


def test_startups_needs_linux_and_is_chosen_by_algorithm(cli, tmp_path):
    for args, word in ((["--startups"], "--startups"), (["--linux", "--startups", "--cases", "L1"], "--cases"),
                       (["--linux", "--startups", "--algos", "cubic"], "--algos")):
        status, out, err = cli("crosscheck", *args, "--out", tmp_path / "x")
        assert status == 2 and word in err and len(err.strip().splitlines()) == 1, err
