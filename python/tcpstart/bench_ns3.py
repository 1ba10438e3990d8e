"""The benchmarks B1-B4 run in ns-3 3.44, with the cross-check's program, for the speed ratio
`tcpstart bench --ns3` prints.

B1, B2 and B4: the arguments give ns-3 what our scenario has by default: MSS 1460, initial window
10, SACK, timestamps, window scaling, delayed ACKs (2 segments, 200 ms), minimum and initial RTO
1 s, 16 MB receive buffers, 10 Gb/s / 1 ms access links with 10 000-packet queues, and a cwnd trace
as often as our default trace interval.

B3 (finite transfers on shared host pairs): the arguments are read from tcpstart's own scenario as
the core resolves it (`transfer_args`): every flow's start, host pair and direction, the links and
the TCP settings. ns-3 has no Jump Start; its counterpart is NewReno with an initial window of the
whole transfer, paced over the handshake's round trip, with ssthresh at that window; unlike
Jump Start it sends at most 64 KB before the first ACK (the SYN-ACK's window is never scaled) and
paces the whole connection (perf/journal.md, "B3 in ns-3"). `B3-iw200` is the configuration
both simulators run alike: NewReno with initial window and ssthresh 200 segments, unpaced.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tcpstart.bench_scenarios import BENCHMARKS, VARIANTS
from tcpstart.crosscheck.matrix import IP_TCP_HEADER, PPP_HEADER, TIMESTAMP_OPTION
from tcpstart.crosscheck.ns3build import available, build
from tcpstart.scenario import expanded
from tcpstart.simulate import algorithms


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


# Finite-transfer benchmarks: their ns-3 arguments come from tcpstart's scenario.
TRANSFERS: dict[str, Callable[[Optional[str]], dict[str, Any]]] = {
    "B3": BENCHMARKS["B3"].scenario,
    "B3-iw200": VARIANTS["B3-iw200"].scenario,
}
# A run of finite transfers without a duration ends when all are done; ns-3 needs a limit.
UNTIL_DONE_S = 10_000.0
# tcpstart retransmits a segment or a SYN as often as it takes; ns-3 gives up after 6 tries.
RETRIES = 30


def _wire_scale(mss: int, timestamps: bool) -> float:
    """ns-3 adds a 2-byte PPP header on the wire: its rates are scaled by this so that a full
    segment takes as long as ours."""
    wire = mss + IP_TCP_HEADER + (TIMESTAMP_OPTION if timestamps else 0)
    return (wire + PPP_HEADER) / wire


def ns3_args(name: str, duration: Optional[str]) -> list[str]:
    if name in TRANSFERS:
        return transfer_args(expanded(TRANSFERS[name](duration)), duration)
    b = NS3_BENCHMARKS[name]
    if duration is None:
        raise ValueError(f"{name} needs a duration")
    seconds = _seconds(duration)
    scale = _wire_scale(1460, timestamps=True)
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


def _secs(d: dict[str, int]) -> float:
    return d["secs"] + d["nanos"] / 1e9


def _limit(q: dict[str, int]) -> str:
    """A resolved queue limit ({"Packets": n} or {"Bytes": n}) as ns-3 writes it."""
    ((kind, n),) = q.items()
    return f"{n}p" if kind == "Packets" else f"{n}B"


def _only(values: list[Any], what: str) -> Any:
    """The one value all flows (or hosts) share: the ns-3 program has one setting for all."""
    if any(v != values[0] for v in values):
        raise ValueError(f"the ns-3 program needs the same {what} for every flow")
    return values[0]


def transfer_args(s: dict[str, Any], duration: Optional[str]) -> list[str]:
    """Arguments of validation/ns3/dumbbell.cc for a resolved tcpstart scenario of finite
    transfers on host pairs (B3): the same links, TCP settings, and each flow's start, host pair
    (round robin) and direction. Jump Start becomes its ns-3 counterpart (module docs)."""
    net, flows, hosts = s["network"], s["flows"], s["hosts"]
    if net["aqm"]["kind"] != "droptail" or net["reverse_aqm"]["kind"] != "droptail" or net["loss"] or net["reverse_loss"]:
        raise ValueError("the ns-3 program has drop-tail queues only and no random loss")
    queue = _only([_limit(net["queue"]), _limit(net["reverse_queue"])], "bottleneck queue in both directions")
    access_rate = _only([h["access_rate_bps"] for h in hosts], "access rate")
    access_delay = _only([_secs(h["access_delay"]) for h in hosts], "access delay")
    if [f["host"] for f in flows] != [i % len(hosts) for i in range(len(flows))]:
        raise ValueError("the ns-3 program shares host pairs round robin only")
    size = _only([f["size"] for f in flows], "size")
    if size is None:
        raise ValueError("the ns-3 program's shared host pairs need finite transfers")
    tcp = _only([f["tcp"] for f in flows], "TCP settings")
    algorithm = _only([f["algorithm"] for f in flows], "algorithm")
    params = _only([f["params"] for f in flows], "algorithm parameters")
    # The core fills in every parameter; the ns-3 counterparts exist for the defaults.
    defaults = next({p["name"]: p["default"] for p in a["params"]} for a in algorithms() if a["name"] == algorithm)
    mss = tcp["mss"]
    if algorithm == "jump-start" and params == defaults:
        # Jump Start's jump sends the whole transfer (the receiver window is larger), paced over
        # the handshake's RTT, then runs NewReno in congestion avoidance from cwnd = ssthresh =
        # what it sent. ns-3: that window as the initial window, ssthresh alike, and pacing at
        # cwnd / RTT (PacingCaRatio 100 %: ns-3 uses the congestion-avoidance ratio once
        # cwnd >= ssthresh / 2; at the handshake its RTT is the SYN's).
        iw = math.ceil(size / mss)
        cc = [
            "--pacing=true",
            "--ns3::TcpSocketState::PaceInitialWindow=true",
            "--ns3::TcpSocketState::PacingCaRatio=100",
            f"--ns3::TcpSocket::InitialSlowStartThreshold={iw * mss}",
        ]
    elif algorithm == "newreno" and params == defaults:
        if tcp["initial_window"] % mss:
            raise ValueError("the ns-3 program's initial window is whole segments")
        iw = tcp["initial_window"] // mss
        ssthresh = tcp["initial_ssthresh"]
        cc = [] if ssthresh >= 2**32 else [f"--ns3::TcpSocket::InitialSlowStartThreshold={ssthresh}"]
    else:
        raise ValueError(f"no ns-3 counterpart for {algorithm} {params}")
    if tcp["clock_tick"] != {"secs": 0, "nanos": 0} or not tcp["fast_retransmit"]:
        raise ValueError("the ns-3 program has no clock tick or fast-retransmit setting")
    scale = _wire_scale(mss, tcp["timestamps"])
    seconds = UNTIL_DONE_S if duration is None else _seconds(duration)
    return [
        f"--rate={round(net['rate_bps'] * scale)}bps",
        f"--reverseRate={round(net['reverse_rate_bps'] * scale)}bps",
        f"--delay={_secs(net['delay']) * 1000:g}ms",
        f"--accessRate={round(access_rate * scale)}bps",
        f"--accessDelay={access_delay * 1000:g}ms",
        f"--queue={queue}",
        f"--accessQueue={_limit(net['access_queue'])}",
        f"--flows={len(flows)}",
        f"--hosts={len(hosts)}",
        "--starts=" + ",".join(f"{_secs(f['start']):.9g}" for f in flows),
        "--reverse=" + ",".join("1" if f["direction"] == "reverse" else "0" for f in flows),
        "--algo=TcpNewReno",
        f"--recovery={'TcpClassicRecovery' if tcp['recovery'] == 'rfc6675' else 'TcpPrrRecovery'}",
        f"--size={size}",
        f"--duration={seconds:g}",
        f"--mss={mss}",
        f"--iw={iw}",
        f"--minRto={_secs(tcp['rto_min']):g}s",
        f"--initialRto={_secs(tcp['rto_initial']):g}s",
        f"--clockGranularity={_secs(tcp['clock_granularity']):g}s",
        f"--delAckCount={tcp['delack_count'] if tcp['delayed_ack'] else 1}",
        f"--delAckTimeout={_secs(tcp['delack_timeout']):g}s",
        f"--sack={str(tcp['sack']).lower()}",
        f"--timestamps={str(tcp['timestamps']).lower()}",
        f"--windowScaling={str(tcp['window_scaling']).lower()}",
        f"--limitedTransmit={str(tcp['limited_transmit']).lower()}",
        f"--rcvBuf={tcp['rcv_buf']}",
        f"--seed={s['seed']}",
        f"--traceInterval={max(0.001, seconds / 10_000) if duration else 0.001:g}",
        # The SYN's first timeout is the initial RTO (ns-3: ConnTimeout, 3 s by default).
        f"--ns3::TcpSocket::ConnTimeout={_secs(tcp['rto_initial']):g}s",
        f"--ns3::TcpSocket::ConnCount={RETRIES}",
        f"--ns3::TcpSocket::DataRetries={RETRIES}",
        f"--ns3::TcpSocketBase::ReTxThreshold={tcp['dupthresh']}",
        *cc,
    ]


def run_ns3(args: list[str]) -> tuple[dict[str, Any], float, float]:
    """Runs the ns-3 program with `args`: its output, wall time and peak RSS (MB, as the program
    reads its own VmHWM before it exits)."""
    binary = build()
    began = time.perf_counter()
    proc = subprocess.run([str(binary), *args], capture_output=True)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        raise RuntimeError(f"ns-3 run failed: {proc.stderr.decode(errors='replace')[-500:]}")
    out = json.loads(proc.stdout)
    peak_kb = out.get("peak_rss_kb", -1)
    return out, wall, peak_kb / 1024 if peak_kb > 0 else float("nan")


def measure_ns3(name: str, duration: Optional[str]) -> dict[str, Any]:
    """Runs benchmark `name` in ns-3; returns its wall time, peak RSS, simulated time and how
    many of its flows completed."""
    out, wall, peak = run_ns3(ns3_args(name, duration))
    return {
        "ns3_wall_s": wall,
        "ns3_peak_rss_mb": peak,
        "ns3_simulated_s": out["end_time"],
        "ns3_flows_completed": sum(f["completed"] for f in out["flows"]),
    }


def ns3_status() -> tuple[bool, str]:
    """Whether ns-3 can be used, and why not."""
    return available()


__all__ = [
    "NS3_BENCHMARKS",
    "TRANSFERS",
    "measure_ns3",
    "ns3_args",
    "ns3_status",
    "run_ns3",
    "transfer_args",
]
