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


def _use_profile() -> None:
    """Adds the profile to RUSTFLAGS when it exists and was made by this rustc."""
    if os.environ.get("TCPSTART_PGO", "1") == "0":
        _note("TCPSTART_PGO=0: building without the PGO profile")
        return
    if not PROFILE.exists() or not TOOLCHAIN.exists():
        _note("no PGO profile in this source tree: building without it")
        return
    try:
        rustc = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        _note(f"cannot ask rustc its version ({e}): building without the PGO profile")
        return
    if rustc.strip() != TOOLCHAIN.read_text().strip():
        _note("the PGO profile was made with another rustc (pgo/rustc-vV.txt): building without it")
        return
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


def _with_profile(hook: Callable[..., str]) -> Callable[..., str]:
    """A wheel-building hook of maturin's that first sets the profile up."""

    def build(
        wheel_directory: str,
        config_settings: Optional[dict[str, Any]] = None,
        metadata_directory: Optional[str] = None,
    ) -> str:
        _use_profile()
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
