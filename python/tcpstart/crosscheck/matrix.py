"""The cross-check matrix: which scenarios, which algorithms, and how each side is configured.

One `Case` describes a dumbbell scenario once; `tcpstart_scenario` and `ns3_args` turn it into
the two simulators' inputs with every knob set alike (docs/validation.md lists them):

- MSS 1460 payload bytes, initial window 10 segments, SACK, timestamps and window scaling on;
- minimum RTO 200 ms (Linux's TCP_RTO_MIN), initial RTO 1 s, clock granularity 1 ms;
- delayed ACKs every 2 segments with a 40 ms timeout (Linux's TCP_ATO_MIN, where a Linux
  receiver's delayed-ACK timer starts), or an ACK per segment; one case uses 200 ms. The first
  data segment is acknowledged at once on both sides (tcpstart `quickack = 1`: ns-3's
  `ProcessSynRcvd` presets its delayed-ACK counter to `DelAckCount` when the handshake ends);
- receive buffer 16 MB (never the limit), limited transmit on, 3 duplicate ACKs;
- bottleneck and access queues drop-tail in packets, the same count on both sides;
- header bytes: tcpstart puts 40 bytes of IP/TCP header + 12 of timestamp option on the wire;
  ns-3 the same plus 2 bytes of PPP header on point-to-point links. ns-3's link rates are scaled
  by (wire + 2) / wire so that a data segment takes the same serialisation time on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

MSS = 1460
IP_TCP_HEADER = 40
TIMESTAMP_OPTION = 12
PPP_HEADER = 2
# A full data segment on a tcpstart link, and on an ns-3 point-to-point link.
WIRE = MSS + IP_TCP_HEADER + TIMESTAMP_OPTION
NS3_WIRE = WIRE + PPP_HEADER
INITIAL_WINDOW = 10
RTO_MIN_MS = 200
RCV_BUF = 16_000_000
ACCESS_QUEUE_PKTS = 10_000


@dataclass(frozen=True)
class Case:
    """One dumbbell scenario: `size` bytes per flow, or None for flows that run for `duration`."""

    name: str
    rate_mbps: float
    rtt_ms: float
    queue_bdp: float
    flows: int = 1
    size: Optional[int] = None
    duration: float = 30.0
    delayed_ack: bool = True
    delack_timeout_ms: float = 40
    # Flow i starts at i * stagger seconds (simultaneous starts would make the result depend on
    # each simulator's tie-breaking between equal-time events).
    stagger: float = 0.0

    @property
    def bdp_bytes(self) -> float:
        return self.rate_mbps * 1e6 / 8 * self.rtt_ms / 1e3

    @property
    def queue_packets(self) -> int:
        """Queue limit in full data segments (as they are counted on the wire)."""
        return max(1, round(self.queue_bdp * self.bdp_bytes / WIRE))

    def describe(self) -> str:
        what = f"{self.size / 1e6:g} MB" if self.size else f"long {self.duration:g} s"
        flows = f"{self.flows} flows" + (f" (+{self.stagger:g} s each)" if self.stagger else "") if self.flows > 1 else "1 flow"
        ack = f"delack {self.delack_timeout_ms:g} ms" if self.delayed_ack else "ack/seg"
        return (
            f"{self.rate_mbps:g} Mbps, {self.rtt_ms:g} ms, {self.queue_bdp:g} BDP ({self.queue_packets} pkt), "
            f"{flows}, {what}, {ack}"
        )


@dataclass(frozen=True)
class Algorithm:
    """A tcpstart algorithm (with parameters) and the ns-3 TcpCongestionOps it is checked against."""

    label: str
    tcpstart: str
    ns3: str
    params: dict[str, float] = field(default_factory=dict)
    # ns-3's TcpBbr needs socket pacing switched on; tcpstart paces whenever the algorithm asks.
    pacing: bool = False
    # ns-3 attributes set to the Linux value where ns-3's default differs (--ns3::Type::Attr=v).
    ns3_attributes: tuple[str, ...] = ()
    note: str = ""


ALGORITHMS = [
    Algorithm("NewReno", "newreno", "TcpNewReno", {"abc": 1}, note="RFC 5681 per-ACK growth: one MSS per ACK in slow start, MSS²/cwnd per ACK in CA"),
    Algorithm("LinuxReno", "newreno", "TcpLinuxReno", {"abc": 0}, note="Linux byte counting: every acked segment counts in slow start, +1 MSS per cwnd of acked segments in CA"),
    Algorithm("LinuxReno (abc=2)", "newreno", "TcpLinuxReno", {"abc": 2}, note="RFC 3465 L=2 against ns-3 TcpLinuxReno: identical unless an ACK covers more than 2 segments"),
    Algorithm(
        "CUBIC",
        "cubic",
        "TcpCubic",
        ns3_attributes=("TcpCubic::HyStartDelayMax=16ms",),
        note="ns-3's HyStartDelayMax is set to Linux's 16 ms (HYSTART_DELAY_MAX; ns-3's default is 1 s). "
        "ns-3 clamps delay_min itself where Linux clamps delay_min / 8, so the delay-increase thresholds "
        "agree for base RTTs of 128 ms and more; ns-3's other HyStart differences are D7",
    ),
    Algorithm(
        "BBR",
        "bbr",
        "TcpBbr",
        {"tso_segs_goal": 1},
        pacing=True,
        ns3_attributes=("TcpSocketState::PaceInitialWindow=true",),
        note="tcpstart's `tso_segs_goal` is set to ns-3's send quantum of 1 segment (ns-3 has no TSO; "
        "tcpstart's default follows a Linux host with GSO: 1 ms of data at the pacing rate, which adds "
        "3 x 23 segments to the cwnd budget at 276 Mbit/s); ns-3 paces the initial window as Linux and "
        "tcpstart do (`PaceInitialWindow`; ns-3's default sends it as one burst)",
    ),
    Algorithm("HighSpeed", "highspeed", "TcpHighSpeed"),
    Algorithm(
        "Scalable",
        "scalable",
        "TcpScalable",
        ns3_attributes=("TcpScalable::AIFactor=100",),
        note="ns-3's AIFactor is set to current Linux's TCP_SCALABLE_AI_CNT = 100 (ns-3's default 50 is "
        "older kernels' value, from when the hook ran once per ACK); its ssthresh from BytesInFlight is D2",
    ),
    Algorithm(
        "BIC",
        "bic",
        "TcpBic",
        ns3_attributes=("TcpBic::SmoothPart=20",),
        note="ns-3's SmoothPart is set to Linux's smooth_part = 20 (ns-3's default 5); ns-3's other BIC "
        "differences are D9",
    ),
]

MATRIX = [
    Case("A", 1, 100, 1.0, size=500_000),
    Case("B", 5, 40, 0.5, size=2_000_000, delayed_ack=False),
    Case("C", 10, 10, 2.0, size=5_000_000),
    Case("D", 10, 200, 1.0, duration=30),
    Case("E", 20, 100, 0.25, size=10_000_000, delayed_ack=False),
    Case("F", 20, 500, 1.0, size=5_000_000),
    Case("G", 50, 40, 0.1, duration=20, delayed_ack=False),
    Case("H", 100, 20, 1.0, size=20_000_000),
    Case("I", 20, 300, 0.5, duration=30),
    Case("J", 10, 100, 1.0, flows=2, size=5_000_000, stagger=0.5),
    Case("K", 20, 50, 2.0, flows=4, duration=30, delayed_ack=False, stagger=1.0),
    Case("L", 50, 200, 0.5, flows=3, duration=30, stagger=2.0),
    Case("M", 5, 300, 0.2, flows=2, size=2_000_000, delayed_ack=False, stagger=1.0),
    # H again with the 200 ms delayed-ACK timeout (ns-3's and RFC 1122's maximum), to show D1.
    Case("N", 100, 20, 1.0, size=20_000_000, delack_timeout_ms=200),
]

# A few seconds of CPU: what the test suite runs on every change. Not H: with RFC 6675 recovery on
# both sides one packet of queue decides whether LinuxReno's retransmission is lost there (D3).
QUICK = ["B", "C", "K"]


def tcpstart_scenario(case: Case, algo: Algorithm, trace_interval: str = "1ms") -> dict[str, Any]:
    """The case as a tcpstart scenario dict (the TOML shape)."""
    tcp: dict[str, Any] = {
        "mss": MSS,
        "initial_window": INITIAL_WINDOW,
        "sack": True,
        "timestamps": True,
        "window_scaling": True,
        "rcv_buf": RCV_BUF,
        "rto_min": f"{RTO_MIN_MS}ms",
        "rto_initial": "1s",
        "clock_granularity": "1ms",
        "delayed_ack": case.delayed_ack,
        "delack_count": 2,
        "delack_timeout": f"{case.delack_timeout_ms}ms",
        # ns-3 acknowledges the first data segment at once, then every second one (D1).
        "quickack": 1,
        "limited_transmit": True,
        "dupthresh": 3,
        # RFC 6675 recovery without PRR on both sides (ns-3: TcpClassicRecovery, D3); each side
        # keeps its own timer rule: Linux's here, ns-3's first-partial-ACK rule there (D4).
        "recovery": "rfc6675",
        "rto_restart": "every_ack",
    }
    flows = [
        {"algorithm": algo.tcpstart, "params": dict(algo.params), "start": f"{i * case.stagger}s"}
        | ({"size": case.size} if case.size else {})
        for i in range(case.flows)
    ]
    return {
        "seed": 1,
        "duration": f"{case.duration}s" if not case.size else "600s",
        "network": {
            "rate": f"{case.rate_mbps}Mbps",
            "rtt": f"{case.rtt_ms}ms",
            "queue": f"{case.queue_packets}pkt",
            "access_queue": f"{ACCESS_QUEUE_PKTS}pkt",
        },
        "tcp": tcp,
        "flows": flows,
        "trace": {"interval": trace_interval},
    }


def access_rate_bps(case: Case) -> float:
    """tcpstart's default access rate: ten times the bottleneck, at least 1 Gbps."""
    return max(10 * case.rate_mbps * 1e6, 1e9)


def ns3_args(case: Case, algo: Algorithm, trace_interval: float = 0.001) -> list[str]:
    """Command-line arguments of validation/ns3/dumbbell.cc for the same case."""
    scale = NS3_WIRE / WIRE
    return [
        f"--rate={round(case.rate_mbps * 1e6 * scale)}bps",
        f"--delay={case.rtt_ms / 2}ms",
        f"--accessRate={round(access_rate_bps(case) * scale)}bps",
        "--accessDelay=0ms",
        f"--queue={case.queue_packets}p",
        f"--accessQueue={ACCESS_QUEUE_PKTS}p",
        f"--flows={case.flows}",
        f"--algo={algo.ns3}",
        f"--size={case.size or 0}",
        f"--duration={case.duration if not case.size else 600}",
        f"--stagger={case.stagger}",
        f"--mss={MSS}",
        f"--iw={INITIAL_WINDOW}",
        f"--minRto={RTO_MIN_MS}ms",
        "--initialRto=1s",
        "--clockGranularity=1ms",
        f"--delAckCount={2 if case.delayed_ack else 1}",
        f"--delAckTimeout={case.delack_timeout_ms}ms",
        "--sack=true",
        "--timestamps=true",
        "--windowScaling=true",
        "--limitedTransmit=true",
        "--recovery=TcpClassicRecovery",
        f"--pacing={'true' if algo.pacing else 'false'}",
        f"--rcvBuf={RCV_BUF}",
        "--seed=1",
        f"--traceInterval={trace_interval}",
        *[f"--ns3::{a}" for a in algo.ns3_attributes],
    ]
