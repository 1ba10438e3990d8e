"""Shared fixtures. Every simulation a test makes is checked for packet accounting by the core
itself, which raises InvariantError when it does not add up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcpstart.cli import main

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


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
