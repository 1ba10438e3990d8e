"""Shared fixtures: every simulation a test makes is checked for packet accounting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpstart import _core
from tcpstart.cli import main

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@pytest.fixture(autouse=True)
def invariants_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails any test whose runs lose or invent packets (summary.invariants.ok is false)."""
    real_run = _core.run

    def checked_run(scenario_json: str) -> dict:
        out = real_run(scenario_json)
        invariants = json.loads(out["summary"])["invariants"]
        assert invariants["ok"], f"packet accounting does not add up: {invariants}"
        return out

    monkeypatch.setattr(_core, "run", checked_run)


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
