"""What the report says in words: the knobs, the named model differences, and which differences
explain which case. The numbers come from the runs; these explanations were written after reading
the runs' traces (ns-3's `--verbose` log of state changes, transmissions and drops, and tcpstart's
packet table) and must be revisited when a result moves.
"""

from __future__ import annotations

# (knob, tcpstart setting, ns-3 setting, note)
KNOBS = [
    ("topology", "dumbbell: per-flow access links, one bottleneck per direction", "the same, built from point-to-point links (`PointToPointHelper`)", "routers R1, R2; global routing"),
    ("bottleneck rate", "`network.rate`", "`DataRate` x 1514/1512", "equal serialisation time of a data segment (PPP header, see below)"),
    ("propagation delay", "`network.rtt` = 2 x bottleneck delay", "channel `Delay` = RTT / 2", "access delay 0 on both sides"),
    ("access links", "10 x rate, at least 1 Gbps; 10 000 packets", "the same rate (x 1514/1512); 10 000 packets", "never a bottleneck"),
    ("bottleneck queue", "drop-tail, `N pkt`, reverse direction the same", "`DropTailQueue<Packet>` `MaxSize = Np` in the device; traffic-control layer's qdisc removed (`TrafficControlHelper::Uninstall`)", "N = round(x BDP / 1512 bytes); the packet being serialised is not counted on either side"),
    ("MSS", "1460", "`TcpSocket::SegmentSize` 1460", "payload bytes per segment"),
    ("MTU", "none (no fragmentation)", "`Mtu` 65000 on every device", "1460 + 40 + 12 would not fit ns-3's default 1500"),
    ("header bytes", "40 IP/TCP + 12 timestamp option + 4 + 8 per SACK block", "2 PPP + 40 IP/TCP + 12 timestamp (10 + padding) + SACK 2 + 8 per block, padded to 4", "a data segment: 1512 vs 1514 bytes"),
    ("initial window", "10 segments", "`InitialCwnd` 10", ""),
    ("initial ssthresh", "infinite", "`InitialSlowStartThreshold` default (0xffff... )", ""),
    ("SACK", "on", "`TcpSocketBase::Sack` true", "tcpstart: RFC 6675 scoreboard; ns-3: RFC 6675 `IsLost` scoreboard"),
    ("timestamps", "on", "`TcpSocketBase::Timestamp` true", "RTT sample on every advancing ACK on both sides"),
    ("window scaling", "on, receive buffer 16 MB", "`WindowScaling` true, `RcvBufSize` 16 MB, `SndBufSize` 64 MB", "the receive window never limits"),
    ("minimum RTO", "200 ms", "`MinRto` 200 ms", "Linux's TCP_RTO_MIN"),
    ("initial RTO", "1 s", "`RttEstimator::InitialEstimation` 1 s", ""),
    ("clock granularity", "1 ms", "`ClockGranularity` 1 ms", "RTO = max(min RTO, SRTT + max(G, 4 RTTVAR))"),
    ("delayed ACK", "every 2 segments, 40 ms timer (200 ms in case N); or off", "`DelAckCount` 2, `DelAckTimeout` 40 ms (200 ms); off = `DelAckCount` 1", "40 ms = Linux's TCP_ATO_MIN, where its delayed-ACK timer starts; see D1"),
    ("duplicate ACK threshold", "3", "`ReTxThreshold` 3 (default)", ""),
    ("limited transmit", "on", "`LimitedTransmit` true", ""),
    ("loss recovery", "RFC 6675 pipe, no PRR", "`TcpPrrRecovery` (ns-3's default, RFC 6937, as Linux)", "D3"),
    ("pacing", "when the algorithm returns a rate", "`TcpSocketState::EnablePacing` only for BBR", "ns-3's TcpBbr requires pacing"),
    ("application", "all data queued at start", "a source that keeps the socket's send buffer full", "no FIN on either side"),
    ("completion", "SYN sent -> ACK of the last byte at the sender", "the same, from the socket's `HighestRxAck` trace", ""),
    ("seed", "1", "`RngSeedManager` run 1", "no random element in these scenarios"),
]

DIFFERENCES = {
    "D1": (
        "Delayed ACKs at the start and at the end of a transfer",
        "ns-3 acknowledges the first data segment at once (after the handshake its receiver's "
        "delayed-ACK counter starts full) and then every second segment; tcpstart delays from the "
        "first segment on. So ns-3's ACK clock runs one segment ahead in slow start (cwnd at the first "
        "loss often 1 segment apart), and the segments pair up differently: with an odd number of "
        "segments tcpstart's last ACK waits for the 200 ms delayed-ACK timer, with an even number "
        "ns-3's does. Linux does neither: it starts in quick-ACK mode (every segment acknowledged "
        "for up to 16 segments) and acknowledges a final short segment when the application reads "
        "it. Neither simulator follows Linux here; ns-3 is closer at the start. The effect is up to "
        "one delayed-ACK timeout (200 ms) on the completion time of a short transfer.",
    ),
    "D2": (
        "ssthresh at a fast retransmit",
        "tcpstart's NewReno halves FlightSize = SND.NXT - SND.UNA (RFC 5681 eq. 4); ns-3 halves "
        "BytesInFlight, its RFC 6675 pipe (SACKed and lost segments excluded), which is smaller when "
        "many segments of the window are already SACKed; Linux halves cwnd (`tcp_reno_ssthresh`). After "
        "a slow-start overshoot ns-3 therefore continues from a slightly smaller window.",
    ),
    "D3": (
        "Sending during fast recovery",
        "tcpstart follows RFC 6675: cwnd = ssthresh at once and a segment goes out whenever pipe < "
        "cwnd, so it is silent until half the window has drained and then sends one segment per "
        "delivered one. ns-3 uses Proportional Rate Reduction (RFC 6937, its default and Linux's): it "
        "keeps sending about one segment for every two delivered from the start of recovery. Both end "
        "recovery at ssthresh; the order of retransmissions and new data differs, so when a burst "
        "within recovery brings the queue to its limit, one side may lose a packet the other does not "
        "(a knife-edge: one packet of queue decides).",
    ),
    "D4": (
        "Retransmission timer during a long recovery",
        "ns-3 restarts the retransmission timer only on the first partial ACK of a recovery (RFC 6582's "
        "\"impatient\" variant, `m_isFirstPartialAck`), with SACK as without. tcpstart, with SACK, "
        "restarts it on every ACK that advances SND.UNA, as RFC 6298 (5.3) and Linux (`tcp_rearm_rto`) "
        "do. A recovery of many losses that lasts longer than one RTO therefore ends in a timeout in "
        "ns-3 only (cwnd to 1 segment, slow start again). tcpstart follows Linux.",
    ),
    "D5": (
        "No window growth on the ACK that ends ns-3's loss state",
        "After a timeout ns-3 grows cwnd on ACKs in its loss state, but not on the ACK that takes it "
        "back to the open state. When only one segment is outstanding, that is the only ACK: cwnd stays "
        "at 1 segment, the single next segment waits for the receiver's 200 ms delayed-ACK timer, "
        "which outlasts the RTO, and the flow times out again - one segment per RTO for the rest of "
        "the run. Linux (and tcpstart) grow cwnd on that ACK (slow start from 1 segment) and leave "
        "this state after one round.",
    ),
}

# (algorithm label, case) -> the differences that explain a result outside the tolerance.
NOTES: dict[tuple[str, str], str] = {}
