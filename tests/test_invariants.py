"""A run that breaks an invariant fails every entry point (issue 17, point 4).

The core's checks and the violations they report are tested in Rust (crates/tcpstart-sim:
`sim::tests`, `event::tests`, `tcp::sender::tests`); here the core is made to report one, as it
raises it, and each entry point must fail with it: an exception in Python, one line and exit
status 3 on the command line, and no result folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tcpstart as ts
from tcpstart import _core

from conftest import SCENARIOS

BROKEN = "invariant 'window' broken at 0.123456789 s in flow 0: cubic set cwnd to 0 B, below one segment (1460 B)"


@pytest.fixture(autouse=True)
def broken_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run breaks an invariant."""

    def run_all(scenarios: list[Any], *args: Any) -> Any:
        raise _core.InvariantError(BROKEN)

    monkeypatch.setattr(_core, "run_all", run_all)


def test_the_error_is_the_cores() -> None:
    assert ts.InvariantError is _core.InvariantError
    assert issubclass(ts.InvariantError, RuntimeError) and not issubclass(ts.InvariantError, ValueError)


def test_ts_run_raises_it() -> None:
    with pytest.raises(ts.InvariantError, match="invariant 'window' broken at 0.123456789 s in flow 0"):
        ts.run(SCENARIOS / "dumbbell-newreno.toml")


@pytest.mark.parametrize("workers", [1, 2])
def test_run_many_raises_it(workers: int) -> None:
    with pytest.raises(ts.InvariantError, match="in flow 0"):
        ts.run_many([SCENARIOS / "dumbbell-newreno.toml"] * 8, workers=workers)


@pytest.mark.parametrize(
    "args",
    [
        ["run", SCENARIOS / "dumbbell-newreno.toml", "--out", "out"],
        ["compare", "--algos", "reno,cubic", "--out", "out"],
        ["reproduce", "jump-start", "--quick", "--out", "out"],
    ],
    ids=["run", "compare", "reproduce"],
)
def test_the_command_line_fails_with_one_line_and_status_3(cli: Any, tmp_path: Path, args: list[Any]) -> None:
    status, out, err = cli(*args)
    assert status == 3
    assert err == f"tcpstart: error: {BROKEN}\n"
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == []
