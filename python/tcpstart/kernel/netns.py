"""The testbed's network: namespaces, veth links, routes, the bottleneck qdiscs, and their removal.

Topology for N host pairs (the simulator's dumbbell):

    tx<i> (10.1.<i>.1) --veth-- r1 --veth "bn" (10.0.0.1 - 10.0.0.2)-- r2 --veth-- rx<i> (10.2.<i>.1)

Each router holds a delay line, a TUN device `dl`: policy routing (table 100) sends every packet
that arrives over `bn` into it, and the packets the delay line writes back are routed by the main
table. The forward bottleneck is a token bucket (TBF) with a pfifo/bfifo child on r1's `bn`, the
reverse one the same on r2's `bn`. So r2's delay line carries the data after the forward
bottleneck and r1's the ACKs after the reverse one: neither sees more than its bottleneck's rate
(a sender's start-up bursts leave at the veth's rate, more than a Python program can forward),
and the two directions run on two cores.

Every namespace of a run is named `tcpst-<pid>-<run>-<role>`, so that `cleanup()` can tell the
leftovers of a run whose process is gone from a run in progress.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "tcpst-"
TRACEFS = Path("/sys/kernel/tracing")
_NAME = re.compile(rf"^{PREFIX}(\d+)-")


class TestbedError(OSError):
    """A testbed step the machine refused (a command that failed); the message is one line."""


def sh(*args: str, input: str | None = None) -> str:
    """Runs a command; a failure becomes a TestbedError naming the command and its error."""
    p = subprocess.run(args, input=input, capture_output=True, text=True)
    if p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        raise TestbedError(f"{' '.join(args)}: {err[0] if err else f'exit status {p.returncode}'}")
    return p.stdout


def ip_batch(ns: str, commands: list[str]) -> None:
    """Many `ip` commands in one namespace and one process (`ip -n NS -batch`)."""
    if commands:
        sh("ip", "-n", ns, "-batch", "-", input="\n".join(commands) + "\n")


def netns_exec(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *args]


@dataclass
class Links:
    """What the topology needs from the scenario, already mapped to the kernel's units."""

    hosts: int
    mtu: int
    forward_rate_bps: float  # what the token bucket is given (Ethernet header included)
    reverse_rate_bps: float
    forward_queue: tuple[str, int]  # ("pfifo", packets) or ("bfifo", bytes)
    reverse_queue: tuple[str, int]
    burst_bytes: int
    # The forward bucket's second bucket (TBF's peak rate) of this many bytes, 0 for none.
    peak_bytes: int
    peak_rate_bps: float
    # Per host pair: options of the hosts' default routes ("initcwnd 10 rto_min 200ms") and
    # their namespaces' TCP sysctls.
    tx_route: list[str] = field(default_factory=list)
    rx_route: list[str] = field(default_factory=list)
    tx_sysctls: list[dict[str, str]] = field(default_factory=list)
    rx_sysctls: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Network:
    """The namespaces of one run; `down()` removes them (it is safe to call twice)."""

    tag: str
    hosts: int
    created: list[str] = field(default_factory=list)

    @property
    def r1(self) -> str:
        return f"{self.tag}-r1"

    @property
    def r2(self) -> str:
        return f"{self.tag}-r2"

    def tx(self, i: int) -> str:
        return f"{self.tag}-tx{i}"

    def rx(self, i: int) -> str:
        return f"{self.tag}-rx{i}"

    def all(self) -> list[str]:
        return [self.r1, self.r2, *(self.tx(i) for i in range(self.hosts)), *(self.rx(i) for i in range(self.hosts))]

    def up(self, links: Links) -> None:
        for ns in self.all():
            sh("ip", "netns", "add", ns)
            self.created.append(ns)
        # Two passes, each one `ip` process per namespace: a veth is made from one side, and its
        # far end can be configured only after that.
        make: dict[str, list[str]] = {ns: ["link set lo up"] for ns in self.all()}
        conf: dict[str, list[str]] = {ns: [] for ns in self.all()}
        veths = [(self.r1, "bn", self.r2, "bn", "10.0.0.1/30", "10.0.0.2/30")]
        for i in range(links.hosts):
            veths.append((self.tx(i), "eth0", self.r1, f"h{i}", f"10.1.{i}.1/24", f"10.1.{i}.254/24"))
            veths.append((self.rx(i), "eth0", self.r2, f"h{i}", f"10.2.{i}.1/24", f"10.2.{i}.254/24"))
        for a, ia, b, ib, addr_a, addr_b in veths:
            make[a].append(f"link add {ia} type veth peer name {ib} netns {b}")
            for ns, dev, addr in ((a, ia, addr_a), (b, ib, addr_b)):
                # One segment per packet: no TSO/GSO trains for the qdisc to see (ethtool-free).
                conf[ns].append(f"link set {dev} mtu {links.mtu} gso_max_segs 1 gso_max_size {links.mtu}")
                conf[ns].append(f"addr add {addr} dev {dev}")
                conf[ns].append(f"link set {dev} up")
        for i in range(links.hosts):
            conf[self.tx(i)].append(f"route add default via 10.1.{i}.254 {links.tx_route[i]}".strip())
            conf[self.rx(i)].append(f"route add default via 10.2.{i}.254 {links.rx_route[i]}".strip())
        conf[self.r1].append("route add 10.2.0.0/16 via 10.0.0.2")
        conf[self.r2].append("route add 10.1.0.0/16 via 10.0.0.1")
        for r in (self.r1, self.r2):
            conf[r] += ["tuntap add dev dl mode tun", f"link set dl mtu {links.mtu} up"]
            conf[r] += ["route add default dev dl table 100", "rule add iif bn lookup 100 pref 100"]
        for ns, cmds in [*make.items(), *conf.items()]:
            ip_batch(ns, cmds)
        for r in (self.r1, self.r2):
            sh(*netns_exec(r, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                           "net.ipv4.conf.default.rp_filter=0"))
        for i in range(links.hosts):
            for ns, sysctls in ((self.tx(i), links.tx_sysctls[i]), (self.rx(i), links.rx_sysctls[i])):
                if sysctls:
                    sh(*netns_exec(ns, "sysctl", "-qw", *(f"{k}={v}" for k, v in sysctls.items())))
        # The per-interface rp_filter is the max of "all" and its own: every one goes to 0.
        for r in (self.r1, self.r2):
            sh(*netns_exec(r, "sh", "-c", "for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done"))
        peak = (("peakrate", f"{round(links.peak_rate_bps)}bit", "mtu", str(links.peak_bytes))
                if links.peak_bytes else ())
        self._bottleneck(self.r1, links.forward_rate_bps, links.forward_queue, links.burst_bytes, peak)
        self._bottleneck(self.r2, links.reverse_rate_bps, links.reverse_queue, links.burst_bytes)

    @staticmethod
    def _bottleneck(ns: str, rate_bps: float, queue: tuple[str, int], burst: int, peak: tuple[str, ...] = ()) -> None:
        # The token bucket's own byte limit is set high: the child fifo is the queue.
        tc = netns_exec(ns, "tc", "qdisc")
        sh(*tc, "add", "dev", "bn", "root", "handle", "1:", "tbf", "rate", f"{round(rate_bps)}bit",
           "burst", str(burst), *peak, "limit", str(64 << 20))
        kind, limit = queue
        sh(*tc, "replace", "dev", "bn", "parent", "1:1", "handle", "10:", kind, "limit", str(limit))

    def down(self) -> None:
        remove_namespaces(self.created)
        self.created = []


def pids_in(ns: str) -> list[int]:
    p = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(x) for x in p.stdout.split()] if p.returncode == 0 else []


def remove_namespaces(names: list[str]) -> None:
    """Ends every process left in the namespaces, then deletes them (veths and TUN go with them)."""
    for ns in names:
        for pid in pids_in(ns):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for ns in names:
        for _ in range(50):
            p = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
            if p.returncode == 0 or "No such file" in p.stderr:
                break
            time.sleep(0.1)  # a process still exiting holds the namespace busy


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ours() -> list[str]:
    """Every namespace named like a testbed run's."""
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in p.stdout.splitlines() if line.startswith(PREFIX)]


def cleanup() -> list[str]:
    """Removes the namespaces, trace instances and BPF loaders of testbed runs whose process has
    ended."""
    from tcpstart.kernel import bpfcc

    dead = [ns for ns in ours() if (m := _NAME.match(ns)) and not alive(int(m[1]))]
    remove_namespaces(dead)  # first: a cgroup can go only once the processes in it have
    loaders = bpfcc.cleanup(alive)
    instances = TRACEFS / "instances"
    removed = list(dead)
    if instances.is_dir():
        for inst in instances.iterdir():
            m = _NAME.match(inst.name + "-")
            if m and not alive(int(m[1])):
                try:
                    inst.rmdir()
                    removed.append(str(inst))
                except OSError:
                    pass
    return removed + loaders
