"""Registers the run's BPF congestion controls and holds them for as long as it lives.

`python -m tcpstart.kernel.bpfload CONFIG.json` (started by the runner, in the initial network
namespace: algorithm names are global to the kernel) opens each object with libbpf, writes the
algorithm's parameters, the flows' sizes and any tables computed from the parameters (HighSpeed's
response function) into its maps, and registers its `struct_ops` through
a BPF link (`BPF_F_LINK`). A link lives as long as its file descriptor: when this process exits,
however it exits (SIGTERM from the runner, the parent-death signal, SIGKILL), the kernel
unregisters the algorithm. A registration without a link (bpftool's `struct_ops register`)
would outlive a killed run.

libbpf is called through ctypes (libbpf.so.1, the same library bpftool uses), so nothing but the
BPF object itself is compiled. libbpf's own messages (the verifier's log on a refusal) go to
stderr, which the runner keeps and quotes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import struct
import sys
from pathlib import Path

from tcpstart.kernel.bpfcc import BPF_ALGORITHMS
from tcpstart.kernel.delayline import die_with_parent

BPF_MAP_TYPE_STRUCT_OPS = 26
BPF_F_LINK = 1 << 13
BPF_STRUCT_OPS = 44  # enum bpf_attach_type
PARAMS_MAP, FLOWS_MAP = b"tcpst_params", b"tcpst_flow_bytes"
PARAM_SCALE = 1000  # tcpstart_cc.h: parameters are written in thousandths


def libbpf() -> ctypes.CDLL:
    lib = ctypes.CDLL(ctypes.util.find_library("bpf") or "libbpf.so.1", use_errno=True)
    p, c, i, u = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint
    for name, res, args in (
        ("bpf_object__open_file", p, [c, p]),
        ("bpf_object__next_map", p, [p, p]),
        ("bpf_object__find_map_by_name", p, [p, c]),
        ("bpf_object__load", i, [p]),
        ("bpf_map__type", i, [p]),
        ("bpf_map__map_flags", u, [p]),
        ("bpf_map__set_map_flags", i, [p, u]),
        ("bpf_map__fd", i, [p]),
        ("bpf_map__attach_struct_ops", p, [p]),
        ("bpf_link__disconnect", None, [p]),
        ("bpf_link__destroy", i, [p]),
        ("bpf_link_create", i, [i, i, i, p]),
        ("bpf_map_update_elem", i, [i, p, p, ctypes.c_ulonglong]),
        ("bpf_map_update_batch", i, [i, p, p, ctypes.POINTER(ctypes.c_uint32), p]),
        ("bpf_object__find_program_by_name", p, [p, c]),
        ("bpf_program__attach_cgroup", p, [p, i]),
        ("libbpf_get_error", ctypes.c_long, [p]),
    ):
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


class LoadError(OSError):
    """A step libbpf or the kernel refused; one line."""


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise LoadError(f"{what}: {os.strerror(ctypes.get_errno()) or 'failed'}")


def _update(lib: ctypes.CDLL, obj: int, name: bytes, key: bytes, value: bytes) -> None:
    m = lib.bpf_object__find_map_by_name(obj, name)
    _check(bool(m), f"map {name.decode()} missing")
    k, v = ctypes.create_string_buffer(key, len(key)), ctypes.create_string_buffer(value, len(value))
    _check(lib.bpf_map_update_elem(lib.bpf_map__fd(m), k, v, 0) == 0, f"writing map {name.decode()}")


def _fill(lib: ctypes.CDLL, obj: int, name: bytes, values: list[bytes]) -> None:
    """An array map's rows 0.. in one call."""
    m = lib.bpf_object__find_map_by_name(obj, name)
    _check(bool(m), f"map {name.decode()} missing")
    keys = (ctypes.c_uint32 * len(values))(*range(len(values)))
    rows = ctypes.create_string_buffer(b"".join(values))
    count = ctypes.c_uint32(len(values))
    _check(lib.bpf_map_update_batch(lib.bpf_map__fd(m), keys, rows, ctypes.byref(count), None) == 0,
           f"writing map {name.decode()}")


def register(lib: ctypes.CDLL, path: str, params: list[float], sizes: dict[int, int], sock_ops: str | None = None,
             cgroup: str | None = None, tables: dict[bytes, list[bytes]] | None = None) -> list[int]:
    """Loads the object, fills its maps, attaches its sock_ops program to the cgroup and registers
    its struct_ops maps; returns the link fds and pointers (kept open for the process's life)."""
    obj = lib.bpf_object__open_file(path.encode(), None)
    _check(bool(obj) and lib.libbpf_get_error(obj) == 0, f"opening {path}")
    struct_ops = []
    m = lib.bpf_object__next_map(obj, None)
    while m:
        if lib.bpf_map__type(m) == BPF_MAP_TYPE_STRUCT_OPS:
            lib.bpf_map__set_map_flags(m, lib.bpf_map__map_flags(m) | BPF_F_LINK)
            struct_ops.append(m)
        m = lib.bpf_object__next_map(obj, m)
    _check(lib.bpf_object__load(obj) == 0, "loading into the kernel (libbpf's log above)")
    for i, value in enumerate(params):
        _update(lib, obj, PARAMS_MAP, struct.pack("I", i), struct.pack("Q", round(value * PARAM_SCALE)))
    for port, size in sizes.items():
        _update(lib, obj, FLOWS_MAP, struct.pack("I", int(port)), struct.pack("Q", int(size)))
    for name, values in (tables or {}).items():
        _fill(lib, obj, name, values)
    links = []
    if sock_ops:
        prog = lib.bpf_object__find_program_by_name(obj, sock_ops.encode())
        _check(bool(prog), f"program {sock_ops} missing")
        cg = os.open(cgroup, os.O_RDONLY | os.O_DIRECTORY)
        link = lib.bpf_program__attach_cgroup(prog, cg)
        _check(bool(link) and lib.libbpf_get_error(link) == 0, f"attaching {sock_ops} to {cgroup}")
        links += [cg, link]
    for m in struct_ops:
        # libbpf 1.1 fills the kernel's value in attach_struct_ops (the map update); with
        # BPF_F_LINK that only prepares it, and the link registers it.
        fake = lib.bpf_map__attach_struct_ops(m)
        _check(bool(fake) and lib.libbpf_get_error(fake) == 0, "preparing the struct_ops map")
        lib.bpf_link__disconnect(fake)
        lib.bpf_link__destroy(fake)
        fd = lib.bpf_link_create(lib.bpf_map__fd(m), 0, BPF_STRUCT_OPS, None)
        _check(fd >= 0, "registering through a BPF link")
        links.append(fd)
    return links


def main() -> None:
    die_with_parent()
    cfg = json.loads(Path(sys.argv[1]).read_text())
    # SIGTERM (the runner, the parent-death signal) and SIGINT end the process at once: its link
    # descriptors close, and the kernel unregisters every algorithm.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    lib = libbpf()
    try:
        for a in cfg["algorithms"]:
            spec = BPF_ALGORITHMS[a["algorithm"]]
            tables = spec.tables(dict(zip(spec.params, a["params"]))) if spec.tables else None
            register(lib, a["object"], a["params"], {int(k): v for k, v in a["sizes"].items()}, a.get("sock_ops"),
                     cfg.get("cgroup"), tables)
    except LoadError as e:
        print(f"bpf: {e}", file=sys.stderr)
        sys.exit(1)
    Path(cfg["ready"]).touch()
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
