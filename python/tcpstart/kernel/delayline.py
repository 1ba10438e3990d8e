"""The testbed's propagation delay: a TUN device in the receivers' router that holds every packet.

Run inside the router's namespace as `python -m tcpstart.kernel.delayline CONFIG.json`: the
router's policy routing sends every packet arriving from a host or from the bottleneck into the
TUN device; this program writes each one back after its delay, and the router forwards it by
its main table. Used because this kind of kernel may lack netem (`CONFIG_NET_SCH_NETEM`), and so
that each packet's delay can follow the simulator's: the one-way propagation delay of its
direction, twice its host pair's access delay, plus its own serialisation time at the
bottleneck rate (a kernel token bucket lets a packet go at the start of its transmission time,
a simulated link delivers it at the end).

Timing: ppoll(2) with a nanosecond timeout and a timer slack of 1 ns, SCHED_FIFO when allowed
(the research notes measured ppoll's lateness in C: 30 us median under load). Python's
select.poll only has millisecond timeouts, hence ctypes. On SIGTERM/SIGINT it writes its
lateness statistics as JSON to the file named in the config and exits; the TUN device has a
single holder, so the caller waits for this process to end before deleting the device.
"""

from __future__ import annotations

import ctypes
import fcntl
import heapq
import json
import os
import signal
import struct
import sys
import time

TUNSETIFF, IFF_TUN, IFF_NO_PI = 0x400454CA, 0x0001, 0x1000
PR_SET_TIMERSLACK, PR_SET_PDEATHSIG = 29, 1
POLLIN = 0x001

_libc = ctypes.CDLL(None, use_errno=True)


class _PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def die_with_parent() -> None:
    """Asks the kernel to end this process when the testbed run that started it ends."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Delays:
    """Each packet's delay in nanoseconds, from its addresses and length.

    Senders are 10.1.<host>.1, receivers 10.2.<host>.1; a packet from 10.1.x.x goes forward.
    """

    def __init__(self, cfg: dict) -> None:
        self.base = (cfg["forward_delay_ns"], cfg["reverse_delay_ns"])
        self.access = cfg["access_delay_ns"]  # per host pair, one access link
        self.ns_per_byte = (8e9 / cfg["rate_bps"], 8e9 / cfg["reverse_rate_bps"])

    def of(self, pkt: bytes) -> tuple[int, int]:
        """(delay, key): packets of one key (direction and host pair) keep their order."""
        forward = pkt[12] == 10 and pkt[13] == 1
        d = 0 if forward else 1
        host = pkt[14] if forward else pkt[18]
        length = (pkt[2] << 8) | pkt[3]
        access = self.access[host] if host < len(self.access) else 0
        return self.base[d] + 2 * access + int(length * self.ns_per_byte[d]), d * 256 + host


def run(cfg: dict) -> dict:
    fd = open_tun(cfg["tun"])
    delays = Delays(cfg)
    _libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(cfg.get("priority", 50)))
    except OSError:
        pass  # not allowed: still works, with more late packets
    stop = False

    def on_signal(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    ready = open(cfg["ready"], "w")
    ready.write("ready\n")
    ready.close()

    pfd = _PollFd(fd, POLLIN, 0)
    ts = _Timespec()
    pfd_ref, ts_ref = ctypes.byref(pfd), ctypes.byref(ts)
    ppoll = _libc.ppoll
    clock = time.monotonic_ns
    heap: list[tuple[int, int, bytes]] = []
    last_due: dict[int, int] = {}
    seq = 0
    late_total = late_max = forwarded = late_100us = late_1ms = 0
    read, write = os.read, os.write
    while not stop:
        if heap:
            wait = max(0, heap[0][0] - clock())
            ts.tv_sec, ts.tv_nsec = divmod(wait, 1_000_000_000)
        else:
            # Without packets to release, wake up now and then to notice a signal.
            ts.tv_sec, ts.tv_nsec = 0, 200_000_000
        ppoll(pfd_ref, 1, ts_ref, None)
        now = clock()
        while True:
            try:
                pkt = read(fd, 65536)
            except BlockingIOError:
                break
            if len(pkt) < 20 or pkt[0] >> 4 != 4:
                continue  # not IPv4 (the hosts have no IPv6 addresses; router solicitations)
            delay, key = delays.of(pkt)
            due = max(now + delay, last_due.get(key, 0))
            last_due[key] = due
            seq += 1
            heapq.heappush(heap, (due, seq, pkt))
        now = clock()
        while heap and heap[0][0] <= now:
            due, _, pkt = heapq.heappop(heap)
            late = now - due
            late_total += late
            late_max = max(late_max, late)
            late_100us += late > 100_000
            late_1ms += late > 1_000_000
            forwarded += 1
            try:
                write(fd, pkt)
            except OSError:
                pass  # the router refused it (e.g. no route while tearing down): a loss
            now = clock()
    os.close(fd)
    cpu = os.times()
    return {
        "cpu_user_s": cpu.user,
        "cpu_system_s": cpu.system,
        "forwarded": forwarded,
        "mean_late_us": late_total / forwarded / 1e3 if forwarded else 0.0,
        "max_late_us": late_max / 1e3,
        "late_over_100us": late_100us,
        "late_over_1ms": late_1ms,
    }


def main() -> None:
    die_with_parent()
    cfg = json.loads(open(sys.argv[1]).read())
    stats = run(cfg)
    with open(cfg["stats"], "w") as f:
        json.dump(stats, f)


if __name__ == "__main__":
    main()
