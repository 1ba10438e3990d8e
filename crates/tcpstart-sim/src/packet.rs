//! Packets as the simulator moves them: headers only, no payload bytes.

use serde::Serialize;

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

impl PacketKind {
    /// Which way a packet of this kind travels: SYNs, data and UDP datagrams from the flow's
    /// sender, SYN-ACKs and ACKs back.
    pub fn dir(self) -> Direction {
        match self {
            PacketKind::Syn | PacketKind::Data | PacketKind::Udp => Direction::Forward,
            PacketKind::SynAck | PacketKind::Ack => Direction::Reverse,
        }
    }
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

    pub const ALL: [Direction; 2] = [Direction::Forward, Direction::Reverse];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Reverse => "reverse",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s)
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

/// Bits of `Packet::options`: which optional header fields are present.
const OPT_TIMESTAMPS: u8 = 1;
const OPT_ECHO: u8 = 2;
const OPT_QUICK_START: u8 = 4;

/// A packet's headers, at most 128 bytes (every packet is copied into the pool and out of the
/// senders' output; a test holds the size). Hence the optional fields are plain values with a
/// presence bit in `options`, the direction follows from the kind, and the identifier keeps only
/// the 16 bits an IP header has room for.
///
/// `repr(C)`, every field but the SACK blocks first, in the order of the pool's 64-byte record
/// of a packet (`pool::Stored`); the blocks, which few packets carry, the pool keeps apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Packet {
    /// Data: first byte carried (data bytes count from 0; the SYN is not in this space).
    pub seq: u64,
    /// Cumulative acknowledgement: next data byte expected.
    pub ack: u64,
    /// Receive window advertised (bytes, already scaled).
    pub rwnd: u64,
    // The optional fields are visible to the crate only so that `..Packet::default()` works in
    // it; they are read and written through `ts`, `set_ts`, `echo` and `set_echo`, which keep
    // them and their bits in `options` together.
    /// Timestamp option, valid when `options` has `OPT_TIMESTAMPS`: see [`Packet::ts`].
    pub(crate) tsval: u64,
    pub(crate) tsecr: u64,
    /// Receiver-hook value, valid when `options` has `OPT_ECHO`: see [`Packet::echo`].
    pub(crate) echo: u64,
    pub flow: u32,
    /// Payload bytes.
    pub len: u32,
    /// The packet's number in creation order (unique within a run) modulo 2^16: the IP
    /// identification field of a capture, its only reader.
    pub id: u16,
    pub kind: PacketKind,
    /// Blocks in use at the start of `sack`; the others are zero.
    pub sack_count: u8,
    /// Set on retransmitted data segments.
    pub retransmission: bool,
    /// Sender-side mark read by a receiver hook (see `tcpstart_cc::ReceiverHook`).
    pub mark: u8,
    pub(crate) options: u8,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
}

impl Packet {
    /// Timestamp option: the sender's clock value and the echoed one, in nanoseconds of each
    /// end's own clock. `None` when timestamps are off.
    pub fn ts(&self) -> Option<(u64, u64)> {
        (self.options & OPT_TIMESTAMPS != 0).then_some((self.tsval, self.tsecr))
    }

    pub fn set_ts(&mut self, ts: Option<(u64, u64)>) {
        (self.tsval, self.tsecr) = ts.unwrap_or_default();
        self.options = self.options & !OPT_TIMESTAMPS | if ts.is_some() { OPT_TIMESTAMPS } else { 0 };
    }

    /// `self` with the timestamp option set to `ts`.
    pub fn with_ts(mut self, ts: Option<(u64, u64)>) -> Self {
        self.set_ts(ts);
        self
    }

    /// Value echoed by a receiver hook, carried in an option on the ACK.
    pub fn echo(&self) -> Option<u64> {
        (self.options & OPT_ECHO != 0).then_some(self.echo)
    }

    pub fn set_echo(&mut self, echo: Option<u64>) {
        self.echo = echo.unwrap_or_default();
        self.options = self.options & !OPT_ECHO | if echo.is_some() { OPT_ECHO } else { 0 };
    }

    /// Rate code of a Quick-Start option (RFC 4782): the Request on a SYN, the Response on a
    /// SYN-ACK (`tcpstart_cc::quick_start::rate_of_code` gives its rate). It shares its storage
    /// with the echo value, which only ACKs carry.
    pub fn quick_start(&self) -> Option<u8> {
        (self.options & OPT_QUICK_START != 0).then_some(self.echo as u8)
    }

    pub fn set_quick_start(&mut self, code: Option<u8>) {
        debug_assert!(self.echo().is_none(), "a handshake packet carries no echo value");
        self.echo = code.map_or(0, u64::from);
        self.options = self.options & !OPT_QUICK_START | if code.is_some() { OPT_QUICK_START } else { 0 };
    }

    /// Which way the packet travels (see [`PacketKind::dir`]).
    pub fn dir(&self) -> Direction {
        self.kind.dir()
    }

    /// Bytes on the wire: payload, IP and TCP headers, and options.
    pub fn wire_bytes(&self) -> u32 {
        if self.kind == PacketKind::Udp {
            return crate::traffic::udp::UDP_HEADER_BYTES + self.len;
        }
        let mut options = 0;
        if self.options & OPT_TIMESTAMPS != 0 {
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
        if self.options & OPT_ECHO != 0 {
            // An experimental option (RFC 6994): kind, length, ExID and an 8-byte value.
            options += 12;
        }
        if self.options & OPT_QUICK_START != 0 {
            // The 8-byte Quick-Start IP option on a SYN, the 8-byte TCP Response on a SYN-ACK.
            options += 8;
        }
        BASE_HEADER_BYTES + options + self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_128_bytes() {
        // A new field has to find room in the padding (see the type's documentation).
        assert_eq!(std::mem::size_of::<Packet>(), 128);
    }

    #[test]
    fn optional_fields_are_set_and_cleared_independently() {
        let mut p = Packet::default();
        assert_eq!((p.ts(), p.echo()), (None, None));
        // Zero is a valid value for both: presence is not read from the values.
        p.set_ts(Some((0, 0)));
        assert_eq!((p.ts(), p.echo()), (Some((0, 0)), None));
        p.set_echo(Some(u64::MAX));
        assert_eq!((p.ts(), p.echo()), (Some((0, 0)), Some(u64::MAX)));
        p.set_ts(Some((7, 3)));
        p.set_ts(None);
        assert_eq!((p.ts(), p.echo()), (None, Some(u64::MAX)));
        let p = p.with_ts(Some((5, 6)));
        assert_eq!((p.ts(), p.echo()), (Some((5, 6)), Some(u64::MAX)));
    }

    #[test]
    fn wire_bytes_count_each_option() {
        let data = Packet { kind: PacketKind::Data, len: 1448, ..Packet::default() };
        assert_eq!(data.wire_bytes(), 40 + 1448);
        // Timestamps: 10 bytes and two NOPs.
        assert_eq!(data.with_ts(Some((1, 2))).wire_bytes(), 40 + 12 + 1448);
        let mut ack = Packet { kind: PacketKind::Ack, sack_count: 3, ..Packet::default() }.with_ts(Some((1, 2)));
        // SACK: kind, length and two NOPs, 8 bytes a block; the echo option 12.
        assert_eq!(ack.wire_bytes(), 40 + 12 + 4 + 3 * 8);
        ack.set_echo(Some(0));
        assert_eq!(ack.wire_bytes(), 40 + 12 + 4 + 3 * 8 + 12);
        // Quick-Start: 8 bytes; its rate code read back.
        let mut syn = Packet { kind: PacketKind::Syn, ..Packet::default() };
        syn.set_quick_start(Some(0));
        assert_eq!((syn.wire_bytes(), syn.quick_start(), syn.echo()), (40 + 12 + 8, Some(0), None));
        syn.set_quick_start(Some(15));
        assert_eq!(syn.quick_start(), Some(15));
        // MSS, SACK-permitted and window scale on the handshake.
        assert_eq!(Packet { kind: PacketKind::SynAck, ..Packet::default() }.wire_bytes(), 40 + 12);
    }

    #[test]
    fn direction_follows_from_the_kind() {
        let dir = |kind| Packet { kind, ..Packet::default() }.dir();
        assert_eq!(
            [PacketKind::Syn, PacketKind::Data, PacketKind::Udp].map(dir),
            [Direction::Forward; 3],
            "what a sender or UDP source sends"
        );
        assert_eq!([PacketKind::SynAck, PacketKind::Ack].map(dir), [Direction::Reverse; 2], "what a receiver sends");
    }
}
