"""Bottleneck queue samples: the root qdisc's backlog through rtnetlink, read every interval.

`python -m tcpstart.kernel.qstats CONFIG.json` runs in a router's namespace until SIGTERM and
writes its samples as JSON lines (t, packets, bytes, drops). One netlink request per sample
(about 20 us), so no `tc` process per sample; RTM_GETQDISC dumps carry the old `tc_stats`
struct, which has everything needed.
"""

from __future__ import annotations

import json
import signal
import socket
import struct
import sys
import time

from tcpstart.kernel.delayline import die_with_parent

RTM_GETQDISC, NLM_F_REQUEST, NLM_F_DUMP, NLMSG_DONE = 38, 1, 0x300, 3
TCA_STATS = 3
TC_H_ROOT = 0xFFFFFFFF


def root_stats(sock: socket.socket, ifindex: int, seq: int) -> tuple[int, int, int, int, int] | None:
    """(bytes, packets, drops, qlen, backlog) of the root qdisc on `ifindex`."""
    tcmsg = struct.pack("BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
    sock.send(struct.pack("IHHII", 16 + len(tcmsg), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + tcmsg)
    found = None
    while True:
        data = sock.recv(65536)
        off = 0
        while off < len(data):
            length, kind = struct.unpack_from("IH", data, off)
            if kind == NLMSG_DONE:
                return found
            _, index, _, parent, _ = struct.unpack_from("BxxxiIII", data, off + 16)
            if index == ifindex and parent == TC_H_ROOT:
                a = off + 16 + 20
                while a < off + length:
                    alen, atype = struct.unpack_from("HH", data, a)
                    if atype == TCA_STATS:
                        b, pk, dr, _, _, _, ql, bl = struct.unpack_from("QIIIIIII", data, a + 4)
                        found = (b, pk, dr, ql, bl)
                    a += (alen + 3) & ~3
            off += (length + 3) & ~3


def main() -> None:
    die_with_parent()
    cfg = json.loads(open(sys.argv[1]).read())
    stop = False

    def on_signal(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    ifindex = socket.if_nametoindex(cfg["dev"])
    every = cfg["interval"]
    with open(cfg["out"], "w") as out:
        seq = 0
        nxt = time.monotonic()
        while not stop:
            seq += 1
            s = root_stats(sock, ifindex, seq)
            if s is not None:
                out.write(f"[{time.monotonic()},{s[3]},{s[4]},{s[2]}]\n")
            nxt += every
            time.sleep(max(0.0, nxt - time.monotonic()))


if __name__ == "__main__":
    main()
