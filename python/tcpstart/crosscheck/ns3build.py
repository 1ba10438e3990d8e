"""Builds validation/ns3/dumbbell.cc against the ns-3 that `pip install ns3==3.44.post0` ships.

The wheel carries ns-3's headers (`ns3/include`) and shared libraries (`ns3/lib64`); this module
finds them without importing ns-3 (its Python bindings take seconds to load), compiles the program
into a cache folder keyed by the source, the ns-3 version and the compiler flags, and reuses it
while none of them changes. `python -m tcpstart.crosscheck.ns3build` builds and prints the path.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

NS3_VERSION = "3.44"
PIP_HINT = "pip install ns3==3.44.post0"
# Modules the program uses, and those they depend on (the wheel's libraries name them all).
LIBS = ["core", "network", "internet", "point-to-point", "applications", "traffic-control", "stats", "bridge"]
FLAGS = ["-std=c++20", "-O2", "-w"]


class Ns3Unavailable(RuntimeError):
    """ns-3 (or a C++ compiler) is missing; the message says what to install."""


def ns3_root() -> Path:
    """The installed wheel's `ns3` folder (holding include/ and lib64/)."""
    spec = importlib.util.find_spec("ns3")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        root = Path(loc)
        if (root / "include" / "ns3" / "core-module.h").exists():
            return root
    raise Ns3Unavailable(f"ns-3 is not installed in this Python environment; install it with `{PIP_HINT}`")


def ns3_version() -> str:
    try:
        return importlib.metadata.version("ns3")
    except importlib.metadata.PackageNotFoundError:
        raise Ns3Unavailable(f"ns-3 is not installed; install it with `{PIP_HINT}`") from None


def repo_root(start: Path | None = None) -> Path:
    """The tcpstart checkout holding validation/ns3/dumbbell.cc: $TCPSTART_REPO, else the
    current folder or one of its parents."""
    env = os.environ.get("TCPSTART_REPO")
    candidates = [Path(env)] if env else [p for d in [start or Path.cwd()] for p in [d, *d.parents]]
    for c in candidates:
        if (c / "validation" / "ns3" / "dumbbell.cc").exists():
            return c
    raise Ns3Unavailable(
        "validation/ns3/dumbbell.cc not found: run from a tcpstart checkout or set TCPSTART_REPO"
    )


def cache_dir() -> Path:
    base = os.environ.get("TCPSTART_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tcpstart"
    )
    return Path(base) / "ns3"


def compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if not cxx:
        raise Ns3Unavailable("no C++ compiler found (set CXX or install g++)")
    return cxx


def build(verbose: bool = False) -> Path:
    """Path of the compiled dumbbell program, compiling it first if the cache has no current one."""
    root = ns3_root()
    version = ns3_version()
    if not version.startswith(NS3_VERSION):
        raise Ns3Unavailable(f"ns-3 {version} is installed but the cross-check needs {NS3_VERSION}: {PIP_HINT}")
    source = repo_root() / "validation" / "ns3" / "dumbbell.cc"
    cxx = compiler()
    lib = root / "lib64"
    cmd_tail = [
        f"-I{root / 'include'}",
        f"-L{lib}",
        # The wheel's libraries are only referenced through ns-3's TypeId registry at run time;
        # without --no-as-needed the linker would drop the ones no symbol is taken from.
        "-Wl,--no-as-needed",
        *[f"-lns{NS3_VERSION}-{m}" for m in LIBS],
        f"-Wl,-rpath,{lib}",
    ]
    key = hashlib.sha256(
        source.read_bytes() + "\0".join([version, str(root), cxx, *FLAGS, *cmd_tail]).encode()
    ).hexdigest()[:16]
    out = cache_dir() / f"dumbbell-{key}"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".tmp{os.getpid()}")
    cmd = [cxx, *FLAGS, str(source), "-o", str(tmp), *cmd_tail]
    if verbose:
        print(" ".join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling {source} failed:\n{proc.stderr[-4000:]}")
    os.replace(tmp, out)
    return out


def available() -> tuple[bool, str]:
    """(True, "") when the program can be built here, else (False, why not)."""
    try:
        build()
    except Ns3Unavailable as e:
        return False, str(e)
    return True, ""


if __name__ == "__main__":
    try:
        print(build(verbose=True))
    except Ns3Unavailable as e:
        sys.exit(f"ns3build: {e}")
