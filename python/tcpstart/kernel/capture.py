"""pcap files of a kernel run, named like the simulator's links, written by dumpcap or tcpdump.

A simulated run writes `<link>.pcap` for each name in `trace.pcap`; the testbed captures the same
traffic where it passes in the namespaces: `bottleneck` is what leaves r1's token bucket (drops
excluded, as on the simulated link), `sender<i>_out` what host `tx<i>` sends, and so on. Frames
are Ethernet (the veths'), cut after 128 bytes: headers and options, not payload.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from tcpstart.kernel.netns import Network, TestbedError, netns_exec

SNAPLEN = 128
_HOST_LINK = re.compile(r"(sender|receiver)(\d+)_(in|out)")


def tool() -> list[str] | None:
    """The capture command (without interface, filter and file), or None without one."""
    if shutil.which("dumpcap"):
        return ["dumpcap", "-q", "-P", "-s", str(SNAPLEN)]
    if shutil.which("tcpdump"):
        return ["tcpdump", "-q", "-U", "-s", str(SNAPLEN)]
    return None


def where(link: str, net: Network) -> tuple[str, str, str]:
    """(namespace, interface, capture filter) of a simulator link name (one the core accepted)."""
    if link == "bottleneck":
        return net.r1, "bn", "src net 10.1.0.0/16"
    if link == "bottleneck_rev":
        return net.r2, "bn", "src net 10.2.0.0/16"
    m = _HOST_LINK.fullmatch(link)
    assert m is not None, link
    side, i, direction = m[1], int(m[2]), m[3]
    ns, addr = (net.tx(i), f"10.1.{i}.1") if side == "sender" else (net.rx(i), f"10.2.{i}.1")
    return ns, "eth0", f"{'src' if direction == 'out' else 'dst'} host {addr}"


class Captures:
    def __init__(self, links: list[str], net: Network, work: Path) -> None:
        self.files = {link: work / f"{link}.pcap" for link in links}
        self.procs: list[subprocess.Popen] = []
        command = tool()
        if links and command is None:
            raise TestbedError("trace.pcap: the testbed needs dumpcap or tcpdump to write pcap files")
        for link, path in self.files.items():
            ns, iface, bpf = where(link, net)
            args = (["-i", iface, "-f", bpf, "-w", str(path)] if command[0] == "dumpcap"
                    else ["-i", iface, "-w", str(path), bpf])
            self.procs.append(subprocess.Popen(netns_exec(ns, *command, *args), stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL))
        # A capture has begun once its file holds the pcap header.
        deadline = time.monotonic() + 10
        while any(not p.exists() or p.stat().st_size < 24 for p in self.files.values()):
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                raise TestbedError(f"trace.pcap: {command[0]} did not start capturing")
            time.sleep(0.02)

    def stop(self) -> dict[str, bytes]:
        self._drain()
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=10)
        return {link: path.read_bytes() for link, path in self.files.items()}

    def _drain(self, quiet: float = 1.0, limit: float = 5.0) -> None:
        """Waits until no file has grown for `quiet` seconds (at most `limit`): the kernel hands
        captured frames to dumpcap in blocks, when a block fills or its timeout passes, and
        dumpcap stopped by a signal writes only what it has been handed, so stopping as soon as
        the transfer ends loses its last frames."""
        sizes, since, deadline = None, time.monotonic(), time.monotonic() + limit
        while time.monotonic() < deadline:
            now = [p.stat().st_size for p in self.files.values()]
            if now != sizes:
                sizes, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
            time.sleep(0.05)

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
