"""Shared fixtures: every simulation a test makes is checked for packet accounting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tcpstart import _core
from tcpstart.cli import main

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@pytest.fixture(autouse=True)
def invariants_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails any test whose runs lose or invent packets (summary.invariants.ok is false)."""
    real_run_all = _core.run_all

    def checked_run_all(scenarios: list[Any]) -> tuple[list[_core.Run], str | None]:
        runs, error = real_run_all(scenarios)
        for out in runs:
            assert out.invariants_ok, f"packet accounting does not add up: {out.summary()['invariants']}"
        return runs, error

    monkeypatch.setattr(_core, "run_all", checked_run_all)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Runs `tcpstart ARGS...` in-process, in an empty working folder; returns (status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    # A wide console keeps rich from shortening names in tables.
    monkeypatch.setenv("COLUMNS", "200")

    def call(*args: object) -> tuple[int, str, str]:
        status = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return call
