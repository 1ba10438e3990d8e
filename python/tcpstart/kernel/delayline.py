"""The testbed's propagation delay: a TUN device in the receivers' router that holds every packet.

Run inside the router's namespace as `python -m tcpstart.kernel.delayline CONFIG.json`: the
router's policy routing sends every packet arriving from a host or from the bottleneck into the
TUN device; this program writes each one back after its delay, and the router forwards it by
its main table. Used because this kind of kernel may lack netem (`CONFIG_NET_SCH_NETEM`), and so
that each packet's delay can follow the simulator's: the one-way propagation delay of its
direction, twice its host pair's access delay, plus its own serialisation time at the
bottleneck rate (a kernel token bucket lets a packet go at the start of its transmission time,
a simulated link delivers it at the end). With `spacing_rate_bps` (forward), it also writes no
two packets of one direction and host pair closer than their serialisation time at that rate,
as a link delivers them: see Delays.spacing and Release.

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
from collections import deque

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
        spacing = cfg.get("spacing_rate_bps")
        self.spacing_ns_per_byte = 8e9 / spacing if spacing else 0.0

    def spacing(self, pkt: bytes, key: int) -> int:
        """The least time after the previous packet of its key that this one may be written: its
        serialisation time at the spacing rate, forward only (0 otherwise). The receiver's TCP
        takes a packet in within the write that forwards it, so the write times are the arrival
        gaps a packet pair's estimate measures. Without it, two packets read in one batch got one
        due time, and a first packet written late came closer to the next than the bottleneck
        sent them: at 50 Mbps (0.24 ms a frame) Modified Swift Start's receiver measured 36-70 us
        in three of five runs (docs/testbed.md, "Packet pairs through the delay line")."""
        if key >= 256 or not self.spacing_ns_per_byte:
            return 0
        return int(((pkt[2] << 8) | pkt[3]) * self.spacing_ns_per_byte)

    def of(self, pkt: bytes) -> tuple[int, int]:
        """(delay, key): packets of one key (direction and host pair) keep their order."""
        forward = pkt[12] == 10 and pkt[13] == 1
        d = 0 if forward else 1
        host = pkt[14] if forward else pkt[18]
        length = (pkt[2] << 8) | pkt[3]
        access = self.access[host] if host < len(self.access) else 0
        return self.base[d] + 2 * access + int(length * self.ns_per_byte[d]), d * 256 + host


class Release:
    """The packets held, and when each goes: its due time (arrival + delay, never before an
    earlier packet of its key) and, with spacing, never sooner than Delays.spacing after the
    previous packet of its key. Times in nanoseconds of the caller's clock.

    Each key's packets wait in their own queue, in order; the heap holds the time its head may
    go. The spacing counts from the time the previous packet was written for the first
    STRICT_PACKETS of a train (a key's packets from one that found the key idle): that is where
    packet pairs are, and a first packet written late must not bring the second closer. Later
    in a train it counts from the time the previous one was allowed to go: from its write, every
    wake-up's latency (30-100 us) would add to the next wait, and the delay line would forward a
    saturated link's packets slower than the link sends them (295 us a frame at 50 Mbps against
    242)."""

    STRICT_PACKETS = 10

    def __init__(self, delays: Delays) -> None:
        self.delays = delays
        self.heap: list[tuple[int, int, int]] = []  # (time its head may go, order, key)
        self.order = 0
        self.queues: dict[int, deque[tuple[int, bytes]]] = {}
        self.last_due: dict[int, int] = {}
        self.next_free: dict[int, int] = {}  # the earliest time the next packet of a key may go
        self.train: dict[int, int] = {}  # packets of a key written since it was last idle

    def add(self, pkt: bytes, now: int) -> None:
        delay, key = self.delays.of(pkt)
        due = max(now + delay, self.last_due.get(key, 0))
        self.last_due[key] = due
        queue = self.queues.setdefault(key, deque())
        queue.append((due, pkt))
        if len(queue) == 1:
            if now >= self.next_free.get(key, 0):
                self.train[key] = 0
            self._schedule(key)

    def _schedule(self, key: int) -> None:
        self.order += 1
        due = self.queues[key][0][0]
        heapq.heappush(self.heap, (max(due, self.next_free.get(key, 0)), self.order, key))

    def next_due(self) -> int | None:
        return self.heap[0][0] if self.heap else None

    def pop(self, now: int) -> tuple[int, bytes] | None:
        """The next packet to write at `now` and the time it was allowed to go, or None."""
        if not self.heap or self.heap[0][0] > now:
            return None
        allowed, _, key = heapq.heappop(self.heap)
        queue = self.queues[key]
        _, pkt = queue.popleft()
        gap = self.delays.spacing(pkt, key)
        if gap:
            strict = self.train[key] < self.STRICT_PACKETS
            self.train[key] += 1
            self.next_free[key] = (now if strict else allowed) + gap
        if queue:
            self._schedule(key)
        return allowed, pkt


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
    release = Release(delays)
    late_total = late_max = forwarded = late_100us = late_1ms = 0
    read, write = os.read, os.write
    while not stop:
        due = release.next_due()
        if due is not None:
            wait = max(0, due - clock())
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
            release.add(pkt, now)
        now = clock()
        while (out := release.pop(now)) is not None:
            due, pkt = out
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
