//! Packets as the simulator moves them: headers only, no payload bytes.

use serde::Serialize;
use tcpstart_cc::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    Syn,
    SynAck,
    /// A data segment (carries the ACK flag once the handshake is done).
    Data,
    /// A pure acknowledgement from the receiver.
    Ack,
    /// A UDP datagram of a background source (`len` payload bytes).
    Udp,
}

/// Which way a packet travels on its flow's path; for a flow or UDP source as a whole, which way
/// its data goes (forward: from the senders' side of the dumbbell to the receivers' side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Sender to receiver (SYN, data, UDP datagrams).
    #[default]
    Forward,
    /// Receiver to sender (SYN-ACK, ACKs).
    Reverse,
}

impl Direction {
    pub const NAMES: &'static str = "\"forward\" or \"reverse\"";

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "forward" => Some(Direction::Forward),
            "reverse" => Some(Direction::Reverse),
            _ => None,
        }
    }

    pub fn flip(self) -> Self {
        match self {
            Direction::Forward => Direction::Reverse,
            Direction::Reverse => Direction::Forward,
        }
    }
}

/// Up to four SACK blocks (RFC 2018), each [start, end) in data bytes.
pub const MAX_SACK_BLOCKS: usize = 4;

/// TCP/IP header bytes without options.
pub const BASE_HEADER_BYTES: u32 = 40;
/// Timestamp option (10 bytes) padded with two NOPs.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Unique within a run, in creation order.
    pub id: u64,
    pub flow: u32,
    pub kind: PacketKind,
    pub dir: Direction,
    /// Index of the link the packet is on, within its route.
    pub hop: u8,
    /// Data: first byte carried (data bytes count from 0; the SYN is not in this space).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Cumulative acknowledgement: next data byte expected.
    pub ack: u64,
    /// Receive window advertised (bytes, already scaled).
    pub rwnd: u64,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub sack_count: u8,
    /// Timestamp option: the sender's clock value and the echoed one, in nanoseconds of each
    /// end's own clock. `None` when timestamps are off.
    pub ts: Option<(u64, u64)>,
    /// Set on retransmitted data segments.
    pub retransmission: bool,
    /// Sender-side mark read by a receiver hook (see `tcpstart_cc::ReceiverHook`).
    pub mark: u8,
    /// Value echoed by a receiver hook, carried in an option on the ACK.
    pub echo: Option<u64>,
    /// When the packet was created at its source.
    pub created: Instant,
}

impl Packet {
    /// Bytes on the wire: payload, IP and TCP headers, and options.
    pub fn wire_bytes(&self) -> u32 {
        if self.kind == PacketKind::Udp {
            return crate::traffic::udp::UDP_HEADER_BYTES + self.len;
        }
        let mut options = 0;
        if self.ts.is_some() {
            options += TIMESTAMP_OPTION_BYTES;
        }
        if self.sack_count > 0 {
            // kind + length + 8 bytes per block, padded with two NOPs.
            options += 4 + 8 * self.sack_count as u32;
        }
        if matches!(self.kind, PacketKind::Syn | PacketKind::SynAck) {
            // MSS (4), SACK-permitted (2), window scale (3) and padding.
            options += 12;
        }
        if self.mark != 0 {
            // An experimental option (RFC 6994): kind, length, ExID and the 1-byte mark, padded.
            options += 8;
        }
        if self.echo.is_some() {
            // An experimental option (RFC 6994): kind, length, ExID and an 8-byte value.
            options += 12;
        }
        BASE_HEADER_BYTES + options + self.len
    }
}
