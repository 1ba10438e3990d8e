"""docs/errors.md, the table of bad inputs and the one line each gets, is made by this test: it
runs every input below (command-line options, TOML fields, Python API calls), checks that each
is answered with one line (exit status 2 on the command line, a ScenarioError naming the field in
Python) and fails when the committed table differs from what the inputs give now.

Regenerate the table after changing a message: TCPSTART_REGEN_DOCS=1 pytest -q tests/test_errors_doc.py
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

import tcpstart as ts

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"

# --- command-line options: `tcpstart ARGS`, in an empty folder --------------------------------

CLI = [
    "compare --rate -5Mbps",
    "compare --rate 0",
    "compare --rate 20",
    "compare --rate 20MB",
    "compare --rate fast",
    "compare --rate ''",
    "compare --rate nan",
    "compare --rate inf",
    "compare --rate 1e999Mbps",
    "compare --rate 1e30bps",
    "compare --rtt 200",
    "compare --rtt -1ms",
    "compare --rtt '200 parsecs'",
    "compare --rtt 1e9s",
    "compare --rtt NaNms",
    "compare --queue 0",
    "compare --queue 0.5pkt",
    "compare --queue -1bdp",
    "compare --queue 20000bdp",
    "compare --queue 10B",
    "compare --queue '3 cups'",
    "compare --size 0",
    "compare --size -1MB",
    "compare --size unlimited",
    "compare --size 1XB",
    "compare --size 1e16B",
    "compare --duration 30",
    "compare --duration 0s",
    "compare --duration inf",
    "compare --size unlimited --duration -5s",
    "compare --algos reno,cubic9",
    "compare --algos ,",
    "compare --seed -1",
    "compare --seed 99999999999999999999999",
    "compare --seed 1.5",
    "compare --out ''",
    "compare --rtt",
    "compare --frobnicate",
    "run nope.toml",
    "run .",
    "validate",
    "plot nowhere",
    "reproduce tcp-vegas",
    "bench B9",
    "bench B5 --runs 0",
    "bench B5 --runs -5",
    "bench B1 --repeat 0",
    "bench B1 --duration xyz",
    "bench B1 --duration -1s",
    "frobnicate",
]

# --- TOML fields: `tcpstart validate s.toml`, s.toml being BASE with one line set -------------

BASE: dict[str, list[str]] = {
    "": ["seed = 1", 'duration = "1s"'],
    "network": ['rate = "20Mbps"', 'rtt = "200ms"'],
    "[flows]": ['size = "100KB"'],
}

TOML = [
    ("", "seed = -1"),
    ("", "seed = 1.5"),
    ("", "seed = 99999999999999999999"),
    ("", "seed = nan"),
    ("", 'seed = "one"'),
    ("", "duration = 30"),
    ("", 'duration = "0s"'),
    ("", 'duration = "2e5s"'),
    ("", "duration = inf"),
    ("", 'algorithm = "warp"'),
    ("", "colour = 'blue'"),
    ("", "flows = 3"),
    ("", "network = [1, 2]"),
    ("network", 'rate = "-5Mbps"'),
    ("network", "rate = nan"),
    ("network", "rate = inf"),
    ("network", "rate = true"),
    ("network", 'rate = "1e3Mbits"'),
    ("network", "rtt = 200"),
    ("network", 'rtt = "1e-9s"'),
    ("network", 'delay = "10ms"'),
    ("network", 'queue = "0pkt"'),
    ("network", "queue = 1.5"),
    ("network", 'queue = "nan bdp"'),
    ("network", 'reverse_queue = "1 cup"'),
    ("network", "loss = 1"),
    ("network", "loss = -0.1"),
    ("network", "loss = nan"),
    ("network", 'loss = "1%"'),
    ("network", "ber = 0.5"),
    ("network", "router_pps = 0"),
    ("network", "router_pps = inf"),
    ("network", 'ack_jitter = "2s"'),
    ("network", "hosts = 0"),
    ("network", "hosts = 5000000000"),
    ("network", 'access_delay = "60ms"'),
    ("network", 'aqm = { kind = "pie" }'),
    ("network", "aqm = { min_th = 5 }"),
    ("network", 'aqm = { kind = "codel", min_th = 5 }'),
    ("network", 'aqm = { kind = "red", max_p = 2 }'),
    ("network", 'aqm = { kind = "red", weight = nan }'),
    ("network", 'aqm = { kind = "red", min_th = 20, max_th = 10 }'),
    ("network", 'aqm = "red"'),
    ("network", 'ack_compression = { mode = "merge" }'),
    ("network", 'ack_compression = { mode = "hold", interval = "1ms" }'),
    ("network", "quick_start = { threshold = 2 }"),
    ("network", 'quick_start = { interval = "0s" }'),
    ("network", 'schedule = [{ at = "2s" }]'),
    ("network", 'schedule = [{ at = "2s", rate = "1Mbps" }, { at = "1s", rate = "2Mbps" }]'),
    ("network", 'schedule_period = "4s"'),
    ("network", "speed = '1Gbps'"),
    ("tcp", "mss = 10"),
    ("tcp", 'mss = "1460"'),
    ("tcp", "mss = 1460.5"),
    ("tcp", "initial_window = 0"),
    ("tcp", "initial_window = 2.5"),
    ("tcp", "initial_window = nan"),
    ("tcp", 'initial_ssthresh = "1B"'),
    ("tcp", "sack = 'yes'"),
    ("tcp", "delack_count = 0"),
    ("tcp", 'delack_timeout = "1s"'),
    ("tcp", 'rto_min = "100s"'),
    ("tcp", 'rto_initial = "0s"'),
    ("tcp", 'clock_tick = "2s"'),
    ("tcp", "dupthresh = 0"),
    ("tcp", 'recovery = "rate-halving"'),
    ("tcp", 'rto_restart = "never"'),
    ("tcp", 'profile = "bsd"'),
    ("tcp", "msss = 1000"),
    ("[flows]", 'algorithm = "cubic9"'),
    ("[flows]", 'size = "1XB"'),
    ("[flows]", "size = -1"),
    ("[flows]", 'size = "1e16B"'),
    ("[flows]", "size = inf"),
    ("[flows]", 'start = "5"'),
    ("[flows]", 'start = "-1s"'),
    ("[flows]", "params = { abc = -1 }"),
    ("[flows]", "params = { abc = nan }"),
    ("[flows]", "params = { nope = 1 }"),
    ("[flows]", "params = { abc = 'two' }"),
    ("[flows]", "count = 0"),
    ("[flows]", "count = 1e3"),
    ("[flows]", "count = 200000"),
    ("[flows]", 'count = 3\narrivals = "poisson"'),
    ("[flows]", 'arrivals = "bursty"'),
    ("[flows]", 'starts = ["1s", 2]'),
    ("[flows]", "starts = []"),
    ("[flows]", 'starts = ["1s"]\ncount = 2'),
    ("[flows]", 'direction = "sideways"'),
    ("[flows]", "host = 0"),
    ("[flows]", "drop_transmissions = [0]"),
    ("[flows]", "drop_transmissions = [-1]"),
    ("[flows]", 'tcp = { mss = 70000 }'),
    ("[flows]", "tcp = 1460"),
    ("[udp]", 'packet_size = 0'),
    ("[udp]", 'rate = "0bps"'),
    ("[udp]", 'rate = "1Mbps"\non = "1s"'),
    ("[udp]", 'rate = "1Mbps"\non = "1s"\noff = "1s"\non_off = "pareto"'),
    ("[udp]", 'rate = "1Mbps"\nstart = "2s"\nstop = "1s"'),
    ("[udp]", 'tick = "0s"'),
    ("[web]", "sessions = 0"),
    ("[web]", "page_objects_shape = 1.0"),
    ("[web]", "object_packets_mean = nan"),
    ("[web]", "page_interval = 5"),
    ("[web]", "sessions = 1000\npages = 10000"),
    ("[web]", "sesions = 3"),
    ("trace", 'interval = "500ns"'),
    ("trace", 'pcap = "bottleneck"'),
    ("trace", 'pcap = ["core"]'),
    ("trace", 'packets = "yes"'),
]

# --- Python API: each expression is evaluated with `import tcpstart as ts` --------------------

PYTHON = [
    'ts.run(ts.Scenario(network=ts.Dumbbell(rate="-5Mbps"), flows=[ts.Flow(size="1MB")]))',
    'ts.run(ts.Scenario(network=ts.Dumbbell(rate=float("nan")), flows=[ts.Flow(size="1MB")]))',
    'ts.run(ts.Scenario(network=ts.Dumbbell(loss=float("inf")), flows=[ts.Flow(size="1MB")]))',
    "ts.run(ts.Scenario())",
    "ts.run(42)",
    'ts.run("nope.toml")',
    'ts.Scenario(flows=[ts.Flow(size="1MB"), {"size": "1MB", "count": "3"}]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB"), {"algorithm": "warp"}]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB", params={"beta": "x"})]).validate()',
    'ts.Scenario(flows=ts.Flow(size="1MB")).validate()',
    'ts.Scenario(flows=[1, 2]).validate()',
    'ts.Scenario(network="20Mbps", flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(seed=2**70, flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(seed=-1, flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(seed="1", flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB", count=2.5)]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB", tcp=ts.Tcp(mss=[1460]))]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB", tcp={"mss": None, "sack": "no"})]).validate()',
    'ts.Scenario(network=ts.Dumbbell(aqm={"kind": "red", "colour": 1}), flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(network=ts.Dumbbell(aqm=ts.Aqm("red", max_p=float("nan"))), flows=[ts.Flow(size="1MB")]).validate()',
    'ts.Scenario(flows=[ts.Flow(size="1MB")], trace=ts.Trace(pcap="bottleneck")).validate()',
    'ts.Scenario(web=[ts.Web(page_objects_mean=float("inf"))]).validate()',
    'ts.Scenario(udp=[ts.Udp(rate="1e3 Mbps", packet_size=-1)], duration="1s").validate()',
    'ts.Scenario.from_dict({"network": {"rate": "20Mbps"}, "flows": [{"size": "1MB"}], "extra": 1})',
    'ts.Scenario.from_dict("network")',
    "ts.run_many([ts.Scenario(flows=[ts.Flow(size='1MB')]), ts.Scenario()])",
]


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def _cli_message(cli: Callable[..., tuple[int, str, str]], args: list[str]) -> str:
    status, _, err = cli(*args)
    assert status == 2, (args, status, err)
    assert "Traceback" not in err
    return _one_line(err)


def _toml_text(section: str, line: str) -> str:
    sections = {k: list(v) for k, v in BASE.items()}
    key = line.split("=")[0].strip()
    sections[section] = [old for old in sections.get(section, []) if old.split("=")[0].strip() != key] + [line]
    parts = []
    for name, lines in sections.items():
        header = f"[{name}]" if name else ""  # "[flows]" becomes [[flows]]
        parts.append("\n".join(([header] if header else []) + lines))
    return "\n".join(parts) + "\n"


def _python_message(code: str) -> str:
    with pytest.raises(ts.ScenarioError) as e:
        eval(code, {"ts": ts})  # noqa: S307 - the table's own inputs
    return f"ScenarioError: {_one_line(str(e.value))}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", "<br>")


def _code(text: str) -> str:
    return "<code>" + _cell(text).replace("`", "&#96;") + "</code>"


def _toml_shown(section: str, line: str) -> str:
    return (f"[{section}] " if section else "") + line.replace("\n", "; ")


def _table(rows: list[tuple[str, str]]) -> list[str]:
    return ["| input | message |", "| --- | --- |", *(f"| {_code(i)} | {_cell(m)} |" for i, m in rows)]


def render(sections: dict[str, list[tuple[str, str]]]) -> str:
    count = sum(len(rows) for rows in sections.values())
    out = [
        "# Bad inputs and their messages",
        "",
        f"Every input below is a mistake; each is answered with the one line shown ({count} inputs).",
        "On the command line the line goes to stderr and the exit status is 2; in Python it is the",
        "message of a `ScenarioError` (a `ValueError`). The table is generated by",
        "`tests/test_errors_doc.py`, which fails when a message changes without it:",
        "",
        "```sh",
        "TCPSTART_REGEN_DOCS=1 pytest -q tests/test_errors_doc.py   # after changing a message",
        "```",
        "",
        "How the inputs are checked, and how the fuzzers look for inputs that escape it, is in",
        "[scenarios.md](scenarios.md#bad-input).",
    ]
    for title, rows in sections.items():
        out += ["", f"## {title}", "", *_table(rows)]
    return "\n".join(out) + "\n"


def collect(cli: Callable[..., tuple[int, str, str]], folder: Path) -> dict[str, list[tuple[str, str]]]:
    cli_rows = [(f"tcpstart {c}", _cli_message(cli, shlex.split(c))) for c in CLI]
    toml_rows = []
    for section, line in TOML:
        (folder / "s.toml").write_text(_toml_text(section, line))
        toml_rows.append((_toml_shown(section, line), _cli_message(cli, ["validate", "s.toml"])))
    python_rows = [(code, _python_message(code)) for code in PYTHON]
    return {
        "Command-line options": cli_rows,
        "Scenario files (`tcpstart validate s.toml`)": toml_rows,
        "Python API": python_rows,
    }


def test_every_bad_input_gets_the_line_docs_errors_md_shows(cli, tmp_path: Path) -> None:
    if not os.environ.get("TCPSTART_ERRORS_DOC_ALONE"):
        # In a process of its own: other test modules register Python controllers at import,
        # which would join the "available: ..." lists the table shows.
        child = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::{test_every_bad_input_gets_the_line_docs_errors_md_shows.__name__}"],
            env={**os.environ, "TCPSTART_ERRORS_DOC_ALONE": "1"}, capture_output=True, text=True,
        )
        assert child.returncode == 0, child.stdout[-3000:]
        return
    text = render(collect(cli, tmp_path))
    assert text.count("\n| <code>") >= 100
    if os.environ.get("TCPSTART_REGEN_DOCS"):
        DOC.write_text(text)
    assert DOC.read_text() == text, "docs/errors.md is stale: TCPSTART_REGEN_DOCS=1 pytest -q tests/test_errors_doc.py"


def test_a_scenario_file_changes_one_line_of_the_base() -> None:
    assert _toml_text("network", 'rate = "1Gbps"') == (
        'seed = 1\nduration = "1s"\n[network]\nrtt = "200ms"\nrate = "1Gbps"\n[[flows]]\nsize = "100KB"\n'
    )
    assert _toml_text("tcp", "mss = 10").endswith('[[flows]]\nsize = "100KB"\n[tcp]\nmss = 10\n')
