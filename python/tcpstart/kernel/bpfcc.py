"""tcpstart's algorithms that run on the kernel as BPF `struct_ops` congestion controls: which
ones, their objects, the names each run registers them under, and the one-line reason when this
machine cannot.

Objects are compiled at first use with clang against the running kernel's BTF
(`bpftool btf dump file /sys/kernel/btf/vmlinux format c`) and cached in
`~/.cache/tcpstart/bpf/` (`$XDG_CACHE_HOME`), keyed by a hash of the sources, the kernel's BTF and
the clang version: a changed source, kernel or compiler builds afresh, and nothing prebuilt is
kept in the repository (an object is only as good as the BTF it was built against, and a
binary in git cannot be reviewed). A build takes a few seconds once; later runs reuse it.

Algorithm names are global to the kernel, and registering a taken name fails, so each run
registers its own: `tcpst<pid>_<k>`, written over a placeholder in a private copy of the object.
`tcpstart.kernel.bpfload` holds the registrations (BPF links) for the run's lifetime.
"""

from __future__ import annotations

import ctypes.util
import functools
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tcpstart.kernel import hsresponse
from tcpstart.kernel.netns import TestbedError

SOURCES = Path(__file__).parent / "bpf"
BTF = Path("/sys/kernel/btf/vmlinux")
PLACEHOLDER = b"tcpst@@@@@@@@@@"  # TCPST_NAME in tcpstart_cc.h: TCP_CA_NAME_MAX - 1 bytes
NAME = re.compile(r"^tcpst(\d+)_(\d+)$")
LOADER = "tcpstart.kernel.bpfload"


@dataclass(frozen=True)
class BpfAlgorithm:
    source: str  # in SOURCES
    map_name: str  # the struct_ops variable, as `bpftool struct_ops show` lists it
    params: tuple[str, ...]  # the Rust registration's parameters, in the object's index order
    # A sock_ops program of the object that both ends' sockets need (attached to the run's cgroup).
    sock_ops: str | None = None
    # Array maps the loader fills, computed from the parameters (by name): map name -> values.
    tables: Callable[[dict[str, float]], dict[bytes, list[bytes]]] | None = None
    # Parameter values the BPF version has only, with the reason for the refusal of others.
    fixed: tuple[tuple[str, float, str], ...] = ()
    # Its estimate is the spacing the bottleneck gives back-to-back segments (a packet pair):
    # the testbed's token bucket then spaces every frame (plan.Plan.peak_bytes).
    packet_pair: bool = False


BPF_ALGORITHMS: dict[str, BpfAlgorithm] = {
    "jump-start": BpfAlgorithm("jump_start.bpf.c", "jump_start", ("unpaced_within_iw", "abc")),
    "pacing-only": BpfAlgorithm("pacing_only.bpf.c", "pacing_only", ()),
    "swift-start": BpfAlgorithm("swift_start.bpf.c", "swift_start", ("gamma",), packet_pair=True),
    "ess": BpfAlgorithm("ess.bpf.c", "ess", ("rtt_limit", "abc")),
    "modified-swift-start": BpfAlgorithm("modified_swift_start.bpf.c", "modified_swift_start", (), "mss_sockops",
                                         packet_pair=True),
    "highspeed": BpfAlgorithm(
        "highspeed.bpf.c", "highspeed", ("abc", "table", "low_window", "high_window", "high_p", "high_decrease"),
        tables=hsresponse.tables,
        fixed=(("table", 0.0, "the kernel's BPF HighSpeed computes RFC 3649's formulas (table = 0); Linux's "
                "own table is the kernel's highspeed module, which tcpstart's reading departs from"),)),
}


def _tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


@functools.lru_cache(maxsize=1)
def missing() -> str | None:
    """None when BPF congestion controls can be built and registered here, else one line."""
    if os.geteuid() != 0:
        return "registering a BPF congestion control needs root (CAP_BPF and CAP_NET_ADMIN)"
    if not BTF.exists():
        return "the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)"
    with BTF.open("rb") as f:
        if b"bpf_struct_ops_tcp_congestion_ops" not in f.read():
            return "the kernel has no BPF struct_ops for tcp_congestion_ops (CONFIG_BPF_JIT, kernel 5.6 or later)"
    for tool, package in (("clang", "clang"), ("bpftool", "bpftool")):
        if _tool(tool) is None:
            return f"it needs {tool} to build (apt-get install {package})"
    if not Path("/usr/include/bpf/bpf_helpers.h").exists():
        return "it needs libbpf's headers to build (apt-get install libbpf-dev)"
    if ctypes.util.find_library("bpf") is None:
        return "it needs libbpf to register (apt-get install libbpf1)"
    return None


def cgroup_root() -> Path | None:
    """Where cgroup v2 is mounted (a sock_ops program is attached to a cgroup), or None."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            return Path(fields[1])
    return None


def missing_for(algorithm: str) -> str | None:
    """`missing()`, and for an algorithm with a sock_ops program, cgroup v2."""
    why = missing()
    if why is None and BPF_ALGORITHMS[algorithm].sock_ops and cgroup_root() is None:
        why = "its sock_ops program needs cgroup v2 mounted"
    return why


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tcpstart" / "bpf"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()[:20]


def _run(args: list[str], what: str) -> bytes:
    p = subprocess.run(args, capture_output=True)
    if p.returncode != 0:
        lines = [x for x in p.stderr.decode(errors="replace").splitlines() if "error" in x] or [f"exit status {p.returncode}"]
        raise TestbedError(f"{what}: {lines[0].strip()}")
    return p.stdout


def _atomic_write(path: Path, data: bytes) -> None:
    """Parallel runs may build the same file: each writes its own and renames it in place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def build(algorithm: str) -> Path:
    """The algorithm's object for the running kernel: from the cache, or compiled now."""
    why = missing()
    if why:
        raise TestbedError(f"{algorithm!r} runs on the kernel as BPF: {why}")
    spec = BPF_ALGORITHMS[algorithm]
    clang = _tool("clang")
    assert clang is not None
    btf = BTF.read_bytes()
    source = (SOURCES / spec.source).read_bytes()
    headers = b"".join(h.read_bytes() for h in sorted(SOURCES.glob("*.h")))
    version = _run([clang, "--version"], "clang --version")
    obj = cache_dir() / f"{spec.source.removesuffix('.bpf.c')}-{_digest(source, headers, btf, version)}.o"
    if obj.exists():
        return obj
    header = cache_dir() / f"vmlinux-{_digest(btf)}.h"
    if not header.exists():
        bpftool = _tool("bpftool")
        assert bpftool is not None
        _atomic_write(header, _run([bpftool, "btf", "dump", "file", str(BTF), "format", "c"], "bpftool btf dump"))
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "vmlinux.h").symlink_to(header)
        out = Path(d) / "out.o"
        _run([clang, "-O2", "-g", "-target", "bpf", "-D__TARGET_ARCH_x86", f"-I{d}", f"-I{SOURCES}", "-c",
              str(SOURCES / spec.source), "-o", str(out)], f"compiling {spec.source}")
        _atomic_write(obj, out.read_bytes())
    return obj


def run_name(k: int) -> str:
    """The k-th algorithm this process registers at a time (at most 15 characters: a pid has at
    most 7 digits, and a run at most 99 distinct algorithm settings)."""
    return f"tcpst{os.getpid()}_{k}"


def named_copy(obj: Path, name: str, dest: Path) -> Path:
    """A copy of the object whose struct_ops registers as `name`."""
    data = obj.read_bytes()
    if data.count(PLACEHOLDER) != 1:
        raise TestbedError(f"{obj}: the name placeholder is not there exactly once (a stale cache? delete {cache_dir()})")
    encoded = name.encode()
    assert len(encoded) <= len(PLACEHOLDER), name
    dest.write_bytes(data.replace(PLACEHOLDER, encoded.ljust(len(PLACEHOLDER), b"\0")))
    return dest


def registered() -> list[str]:
    """tcpstart's algorithm names the kernel has registered now."""
    from tcpstart.kernel.plan import available_algorithms

    return sorted(a for a in available_algorithms() if NAME.match(a))


def cleanup(alive: Callable[[int], bool]) -> list[str]:
    """Ends the loaders of runs whose process is gone (a loader normally dies with its run, by
    the parent-death signal, and the kernel unregisters its algorithms as it exits), and removes
    their cgroups."""
    removed = []
    root = cgroup_root()
    for cg in root.glob("tcpst-*") if root else []:
        m = re.match(r"tcpst-(\d+)-", cg.name)
        if m and not alive(int(m[1])):
            for _ in range(50):  # its killed processes may still be exiting
                try:
                    cg.rmdir()
                    removed.append(str(cg))
                    break
                except OSError:
                    time.sleep(0.1)
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if LOADER.encode() not in argv:
            continue
        m = re.search(rb"/tcpst-(\d+)-", b" ".join(argv))
        if m and not alive(int(m[1])):
            try:
                os.kill(int(proc.name), signal.SIGKILL)
                removed.append(f"BPF loader {proc.name}")
            except ProcessLookupError:
                pass
    return removed
