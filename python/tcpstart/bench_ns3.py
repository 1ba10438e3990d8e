"""The B1, B2 and B4 benchmarks run in ns-3 3.44, with the cross-check's program, for the speed
ratio `tcpstart bench --ns3` prints.

The arguments give ns-3 what our scenario has by default: MSS 1460, initial window 10, SACK,
timestamps, window scaling, delayed ACKs (2 segments, 200 ms), minimum and initial RTO 1 s,
16 MB receive buffers, 10 Gb/s / 1 ms access links with 10 000-packet queues, and a cwnd trace
as often as our default trace interval. B3 has no ns-3 counterpart: ns-3 has no Jump Start.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from tcpstart.crosscheck.matrix import NS3_WIRE, WIRE
from tcpstart.crosscheck.ns3build import available, build


@dataclass(frozen=True)
class Ns3Bench:
    flows: int
    rate_bps: float
    delay_s: float
    queue: str
    """ns-3 drop-tail limit: "<n>p" or "<n>B"."""


def _bdp_bytes(rate_bps: float, delay_s: float) -> int:
    # Base RTT = 2 x (bottleneck delay + two 1 ms access links), as in bench_scenarios.
    return round(rate_bps / 8 * 2 * (delay_s + 0.002))


NS3_BENCHMARKS = {
    "B1": Ns3Bench(10, 1e9, 0.020, "1000p"),
    "B2": Ns3Bench(10, 1e9, 0.050, f"{_bdp_bytes(1e9, 0.050)}B"),
    "B4": Ns3Bench(100, 10e9, 0.023, f"{_bdp_bytes(10e9, 0.023)}B"),
}


def _seconds(duration: str) -> float:
    m = re.fullmatch(r"([\d.]+)s", duration)
    if not m:
        raise ValueError(f"--duration: give seconds for ns-3 runs, e.g. 30s, got {duration!r}")
    return float(m[1])


def ns3_args(name: str, duration: str) -> list[str]:
    b = NS3_BENCHMARKS[name]
    seconds = _seconds(duration)
    # ns-3 adds a 2-byte PPP header on the wire: scale rates so a segment takes as long as ours.
    scale = NS3_WIRE / WIRE
    return [
        f"--rate={round(b.rate_bps * scale)}bps",
        f"--delay={b.delay_s * 1000:g}ms",
        f"--accessRate={round(10e9 * scale)}bps",
        "--accessDelay=1ms",
        f"--queue={b.queue}",
        "--accessQueue=10000p",
        f"--flows={b.flows}",
        "--algo=TcpNewReno",
        "--size=0",
        f"--duration={seconds:g}",
        "--mss=1460",
        "--iw=10",
        "--minRto=1s",
        "--initialRto=1s",
        "--clockGranularity=1ms",
        "--delAckCount=2",
        "--delAckTimeout=200ms",
        "--sack=true",
        "--timestamps=true",
        "--windowScaling=true",
        "--rcvBuf=16000000",
        f"--traceInterval={max(0.001, seconds / 10_000):g}",
    ]


def _peak_rss_mb(pid: int, done: threading.Event, peak: list[float]) -> None:
    """Follows VmHWM of a running process. Read from /proc rather than from the parent's
    rusage, which Linux carries over from the forked (Python) parent across exec."""
    status = Path(f"/proc/{pid}/status")
    while not done.is_set():
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak[0] = max(peak[0], int(line.split()[1]) / 1024)
        except OSError:
            return
        done.wait(0.05)


def measure_ns3(name: str, duration: str) -> dict[str, Any]:
    """Runs benchmark `name` in ns-3; returns its wall time, simulation time and peak RSS."""
    binary = build()
    began = time.perf_counter()
    proc = subprocess.Popen([str(binary), *ns3_args(name, duration)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done, peak = threading.Event(), [0.0]
    watcher = threading.Thread(target=_peak_rss_mb, args=(proc.pid, done, peak))
    watcher.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - began
    done.set()
    watcher.join()
    if proc.returncode != 0:
        raise RuntimeError(f"ns-3 run of {name} failed: {err.decode(errors='replace')[-500:]}")
    return {"ns3_wall_s": wall, "ns3_peak_rss_mb": peak[0] or float("nan")}


def ns3_status() -> tuple[bool, str]:
    """Whether ns-3 can be used, and why not."""
    return available()


def has_ns3_counterpart(name: str) -> bool:
    return name in NS3_BENCHMARKS


__all__ = ["NS3_BENCHMARKS", "has_ns3_counterpart", "measure_ns3", "ns3_args", "ns3_status"]
