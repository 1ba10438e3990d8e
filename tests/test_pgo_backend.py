"""The build backend applies the committed PGO profile only when it fits the compiler."""

from __future__ import annotations

import gzip
import os
import importlib.util
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("maturin")

BACKEND = Path(__file__).resolve().parent.parent / "pgo" / "maturin_with_profile.py"


@pytest.fixture
def backend(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("maturin_with_profile_under_test", BACKEND)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    profile = tmp_path / "p.profdata.gz"
    profile.write_bytes(gzip.compress(b"profile bytes"))
    monkeypatch.setattr(module, "PROFILE", profile)
    monkeypatch.setattr(module, "TOOLCHAIN", tmp_path / "rustc-vV.txt")
    monkeypatch.setattr(module, "HERE", tmp_path / "pgo")
    monkeypatch.setenv("RUSTFLAGS", "-Cdebuginfo=1")
    monkeypatch.delenv("TCPSTART_PGO", raising=False)
    return module


def this_rustc() -> str:
    return subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout


def test_the_profile_is_used_with_the_rustc_that_made_it(backend, tmp_path, monkeypatch):
    backend.TOOLCHAIN.write_text(this_rustc())
    backend._use_profile()
    flags = os.environ["RUSTFLAGS"].split()
    assert flags[0] == "-Cdebuginfo=1", "the user's flags are kept"
    (use,) = [f for f in flags if f.startswith("-Cprofile-use=")]
    unpacked = Path(use.split("=", 1)[1])
    assert unpacked.read_bytes() == b"profile bytes"
    assert unpacked.parent == tmp_path / "target" / "pgo"


@pytest.mark.parametrize("case", ["other rustc", "switched off", "no profile"])
def test_otherwise_the_build_goes_on_without_it(backend, monkeypatch, capsys, case):
    backend.TOOLCHAIN.write_text(this_rustc())
    if case == "other rustc":
        backend.TOOLCHAIN.write_text(this_rustc().replace("release:", "release: 0.0.0-other"))
    if case == "switched off":
        monkeypatch.setenv("TCPSTART_PGO", "0")
    if case == "no profile":
        backend.PROFILE.unlink()
    backend._use_profile()
    assert os.environ["RUSTFLAGS"] == "-Cdebuginfo=1"
    assert "without" in capsys.readouterr().err
