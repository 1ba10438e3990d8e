"""The package's PEP 517 build backend: maturin's, building the Rust core with the committed
profile-guided-optimization profile (`tcpstart.profdata.gz`) when it fits the toolchain.

PGO lets the compiler lay out and inline the simulator's hot paths by how often they ran on a
training workload (`train.py`); the simulation runs about a sixth faster (docs/performance.md,
"Profile-guided build"). It changes no result: Rust's floating point is not reordered by
optimization, so the same scenario and seed give the same bits with or without it.

The profile is only valid for the rustc that made it (`rustc-vV.txt`): with any other compiler,
or with TCPSTART_PGO=0, the build goes on without it, as a plain maturin build.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import maturin

HERE = Path(__file__).resolve().parent
PROFILE = HERE / "tcpstart.profdata.gz"
TOOLCHAIN = HERE / "rustc-vV.txt"


def _note(text: str) -> None:
    print(f"tcpstart build: {text}", file=sys.stderr)


def _git(*args: str) -> Optional[str]:
    try:
        run = subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def _record_build(pgo: bool) -> None:
    """Hands the commit and the use of PGO to the core (`_core.__build__`), for provenance.

    The core reads TCPSTART_BUILD_INFO at compile time; a new commit rebuilds the Python glue.
    """
    commit = _git("rev-parse", "HEAD")
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    info = {"git_commit": commit, "git_dirty": bool(dirty) if dirty is not None else None, "pgo": pgo}
    os.environ["TCPSTART_BUILD_INFO"] = json.dumps(info, sort_keys=True)


def _use_profile() -> bool:
    """Adds the profile to RUSTFLAGS when it exists and was made by this rustc; True if it did."""
    if os.environ.get("TCPSTART_PGO", "1") == "0":
        _note("TCPSTART_PGO=0: building without the PGO profile")
        return False
    if not PROFILE.exists() or not TOOLCHAIN.exists():
        _note("no PGO profile in this source tree: building without it")
        return False
    try:
        rustc = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        _note(f"cannot ask rustc its version ({e}): building without the PGO profile")
        return False
    if rustc.strip() != TOOLCHAIN.read_text().strip():
        _note("the PGO profile was made with another rustc (pgo/rustc-vV.txt): building without it")
        return False
    # Named by its content: cargo rebuilds when RUSTFLAGS change, not when a file they name does.
    digest = hashlib.sha256(PROFILE.read_bytes()).hexdigest()[:16]
    unpacked = HERE.parent / "target" / "pgo" / f"tcpstart-{digest}.profdata"
    if not unpacked.exists():
        unpacked.parent.mkdir(parents=True, exist_ok=True)
        partial = unpacked.with_suffix(".partial")
        with gzip.open(PROFILE) as src, open(partial, "wb") as dst:
            shutil.copyfileobj(src, dst)
        partial.replace(unpacked)
    flags = os.environ.get("RUSTFLAGS", "")
    os.environ["RUSTFLAGS"] = f"{flags} -Cprofile-use={unpacked}".strip()
    _note(f"building with the PGO profile {PROFILE.name}")
    return True


def _with_profile(hook: Callable[..., str]) -> Callable[..., str]:
    """A wheel-building hook of maturin's that first sets the profile up."""

    def build(
        wheel_directory: str,
        config_settings: Optional[dict[str, Any]] = None,
        metadata_directory: Optional[str] = None,
    ) -> str:
        _record_build(_use_profile())
        return hook(wheel_directory, config_settings, metadata_directory)

    return build


build_wheel = _with_profile(maturin.build_wheel)
build_editable = _with_profile(maturin.build_editable)
build_sdist = maturin.build_sdist
get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_editable = maturin.get_requires_for_build_editable
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = maturin.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = maturin.prepare_metadata_for_build_editable
