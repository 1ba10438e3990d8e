//! Packet captures of simulated links, as classic pcap files for Wireshark/tshark.
//!
//! Each [`Packet`] becomes one record: a real IPv4 header and a TCP header with options,
//! timestamped in nanoseconds (`LINKTYPE_RAW`, so there is no link-layer header). Only headers
//! are stored: the record's captured length is the header bytes and its original length is the
//! full IP packet, as with a capture taken with a small snap length.
//!
//! What the simulator's abstract packets map to:
//! - Flow `f`: sender 10.1.x.y, port `10000 + f % 50000`; receiver 10.2.x.y, port 5001, where
//!   x.y is `f` as a 16-bit number (flows 65536 apart share addresses). Reverse packets swap
//!   source and destination.
//! - Sequence space: the sender's SYN has ISN 0, so data byte `n` is TCP sequence `n + 1`; the
//!   receiver's SYN-ACK has ISN [`RECEIVER_ISN`]. Only the sender sends data and only the receiver
//!   acknowledges it: the sender's segments always acknowledge `RECEIVER_ISN + 1` (their `ack` is
//!   ignored), the receiver's always have sequence number `RECEIVER_ISN + 1` (their `seq` is
//!   ignored), and SACK blocks are in the sender's space. The IP identification is `id` mod 2^16.
//! - SYN and SYN-ACK carry MSS [`MSS`], SACK-permitted and window scale [`WINDOW_SHIFT`], so the
//!   window field of later segments is `rwnd >> WINDOW_SHIFT` (that of the SYNs is unscaled);
//!   both saturate at 65535.
//! - Timestamp options carry the clocks in 1 ms ticks (`ns / 1_000_000`, wrapping at 2^32).
//! - `echo` is an RFC 6994 experimental option (kind 253, ExID 0x5453, 8-byte value); a segment
//!   `mark` is another (kind 253, ExID 0x544d, 1-byte value, padded with three NOPs).
//! - A UDP datagram of source id `f` (ids follow the TCP flows) is a UDP header from 10.1.x.y
//!   port `10000 + f % 50000` to 10.2.x.y port 5001 (10.1 is the sending end, also for a source
//!   on the receivers' side), with the checksum of `len` zero payload bytes.
//!
//! Simplified: no payload bytes, no FIN, no PSH. Options are laid out exactly as
//! [`Packet::wire_bytes`] counts them, so the IP total length equals `wire_bytes()`, except that
//! SACK blocks which do not fit in TCP's 40 option bytes are left out (the last ones first) and
//! the IP length shrinks accordingly. The TCP checksum is the one the segment would have with a
//! payload of `len` zero bytes.

use std::time::Duration;

use etherparse::{IpNumber, Ipv4Header, TcpHeader, UdpHeader};
use pcap_file::pcap::{PcapHeader, PcapPacket};
use pcap_file::{DataLink, Endianness, TsResolution};
use tcpstart_cc::Instant;

use crate::packet::{Direction, Packet, PacketKind};

/// Initial sequence number of the receiver (the sender's is 0).
pub const RECEIVER_ISN: u32 = 1_000_000_000;
/// Window-scale shift announced by both ends.
pub const WINDOW_SHIFT: u8 = 7;
/// Maximum segment size announced by both ends.
pub const MSS: u16 = 1460;
const RECEIVER_PORT: u16 = 5001;
const TTL: u8 = 64;
const MAX_OPTION_BYTES: usize = 40;
const NOP: u8 = 1;
/// RFC 6994 experimental option kind and the 16-bit experiment identifier used for `echo`.
const EXPERIMENTAL_KIND: u8 = 253;
const ECHO_EXID: u16 = 0x5453;
const MARK_EXID: u16 = 0x544d;
/// Zero payload for the TCP checksum (a one's-complement sum only sees its length).
static ZEROS: [u8; u16::MAX as usize] = [0; u16::MAX as usize];

/// Writes a pcap file into memory, one record per [`PcapWriter::record`] call, in call order.
pub struct PcapWriter {
    writer: pcap_file::pcap::PcapWriter<Vec<u8>>,
}

impl PcapWriter {
    pub fn new() -> Self {
        let header = PcapHeader {
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let writer =
            pcap_file::pcap::PcapWriter::with_header(Vec::new(), header).expect("writing to a Vec cannot fail");
        PcapWriter { writer }
    }

    /// Records `pkt` as seen at time `t` on a link.
    ///
    /// Panics if the segment does not fit in an IPv4 packet or `t` is beyond 2^32 seconds.
    pub fn record(&mut self, t: Instant, pkt: &Packet) {
        let [x, y] = (pkt.flow as u16).to_be_bytes();
        let sender = Endpoint { addr: [10, 1, x, y], port: 10000 + (pkt.flow % 50000) as u16, isn: 0 };
        let receiver = Endpoint { addr: [10, 2, x, y], port: RECEIVER_PORT, isn: RECEIVER_ISN };
        if pkt.kind == PacketKind::Udp {
            // A UDP source's packets all travel forward on its path (its direction picks the path).
            let ip =
                Ipv4Header::new(UdpHeader::LEN_U16 + pkt.len as u16, TTL, IpNumber::UDP, sender.addr, receiver.addr)
                    .expect("UDP payload validated to fit in IPv4");
            let udp = UdpHeader::with_ipv4_checksum(sender.port, receiver.port, &ip, &ZEROS[..pkt.len as usize])
                .expect("UDP payload validated to fit in IPv4");
            return self.write(t, pkt, ip, &udp.to_bytes());
        }
        // Only the sender carries data and only the receiver acknowledges it.
        let (local, peer, data_seq, data_ack) = match pkt.dir() {
            Direction::Forward => (sender, receiver, pkt.seq, 0),
            Direction::Reverse => (receiver, sender, 0, pkt.ack),
        };

        let syn = matches!(pkt.kind, PacketKind::Syn | PacketKind::SynAck);
        let window = if syn { pkt.rwnd } else { pkt.rwnd >> WINDOW_SHIFT };
        let seq = if syn { local.isn } else { local.seq(data_seq) };
        let mut tcp = TcpHeader::new(local.port, peer.port, seq, window.min(65535) as u16);
        tcp.syn = syn;
        tcp.ack = pkt.kind != PacketKind::Syn;
        if tcp.ack {
            tcp.acknowledgment_number = peer.seq(data_ack);
        }

        let mut options = Vec::with_capacity(MAX_OPTION_BYTES);
        if syn {
            let [hi, lo] = MSS.to_be_bytes();
            options.extend_from_slice(&[2, 4, hi, lo, NOP, NOP, 4, 2, NOP, 3, 3, WINDOW_SHIFT]);
        }
        if let Some((val, ecr)) = pkt.ts() {
            options.extend_from_slice(&[NOP, NOP, 8, 10]);
            options.extend_from_slice(&((val / 1_000_000) as u32).to_be_bytes());
            options.extend_from_slice(&((ecr / 1_000_000) as u32).to_be_bytes());
        }
        if pkt.mark != 0 {
            options.extend_from_slice(&[EXPERIMENTAL_KIND, 5]);
            options.extend_from_slice(&MARK_EXID.to_be_bytes());
            options.extend_from_slice(&[pkt.mark, NOP, NOP, NOP]);
        }
        if let Some(echo) = pkt.echo() {
            options.extend_from_slice(&[EXPERIMENTAL_KIND, 12]);
            options.extend_from_slice(&ECHO_EXID.to_be_bytes());
            options.extend_from_slice(&echo.to_be_bytes());
        }
        let room = (MAX_OPTION_BYTES - options.len()).saturating_sub(4) / 8;
        let blocks = &pkt.sack[..(pkt.sack_count as usize).min(room)];
        if !blocks.is_empty() {
            options.extend_from_slice(&[NOP, NOP, 5, 2 + 8 * blocks.len() as u8]);
            for &(start, end) in blocks {
                options.extend_from_slice(&peer.seq(start).to_be_bytes());
                options.extend_from_slice(&peer.seq(end).to_be_bytes());
            }
        }
        tcp.set_options_raw(&options).expect("at most 40 option bytes, a multiple of 4");

        let ip = u16::try_from(tcp.header_len() + pkt.len as usize)
            .ok()
            .and_then(|tcp_len| Ipv4Header::new(tcp_len, TTL, IpNumber::TCP, local.addr, peer.addr).ok());
        let ip = ip.expect("segment too large for IPv4");
        tcp.checksum =
            tcp.calc_checksum_ipv4(&ip, &ZEROS[..pkt.len as usize]).expect("length checked by Ipv4Header::new");
        self.write(t, pkt, ip, &tcp.to_bytes());
    }

    /// Writes one record: the IP header (identification from the packet id) and the transport
    /// header; the IP identification does not enter the transport checksums.
    fn write(&mut self, t: Instant, pkt: &Packet, mut ip: Ipv4Header, transport: &[u8]) {
        ip.identification = pkt.id;
        ip.header_checksum = ip.calc_header_checksum();
        let mut data = Vec::with_capacity(ip.header_len() + transport.len());
        data.extend_from_slice(&ip.to_bytes());
        data.extend_from_slice(transport);
        let record = PcapPacket::new(Duration::from_nanos(t.as_nanos()), ip.total_len.into(), &data);
        self.writer.write_packet(&record).expect("timestamp beyond 2^32 seconds");
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.writer.into_writer()
    }
}

/// One end of a flow's connection.
struct Endpoint {
    addr: [u8; 4],
    port: u16,
    /// Initial sequence number: the SYN's; data byte `n` is `isn + 1 + n`.
    isn: u32,
}

impl Endpoint {
    /// TCP sequence number of this end's data byte `n` (wrapping, as TCP does).
    fn seq(&self, n: u64) -> u32 {
        self.isn.wrapping_add(1).wrapping_add(n as u32)
    }
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MAX_SACK_BLOCKS;
    use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice};
    use pcap_file::pcap::PcapReader;

    const MS: u64 = 1_000_000;

    struct Record {
        time: Duration,
        orig_len: u32,
        ip: Ipv4Header,
        tcp: TcpHeader,
    }

    fn parse(bytes: Vec<u8>) -> Vec<Record> {
        let mut reader = PcapReader::new(&bytes[..]).unwrap();
        let header = reader.header();
        assert_eq!(header.datalink, DataLink::RAW);
        assert_eq!(header.ts_resolution, TsResolution::NanoSecond);
        let mut records = Vec::new();
        while let Some(pkt) = reader.next_packet() {
            let pkt = pkt.unwrap();
            let ip = Ipv4HeaderSlice::from_slice(&pkt.data).unwrap();
            let tcp = TcpHeaderSlice::from_slice(&pkt.data[ip.slice().len()..]).unwrap();
            // Headers only: nothing after the TCP header.
            assert_eq!(pkt.data.len(), ip.slice().len() + tcp.slice().len());
            assert_eq!(pkt.orig_len, u32::from(ip.total_len()));
            let ip = ip.to_header();
            assert_eq!(ip.header_checksum, ip.calc_header_checksum());
            records.push(Record { time: pkt.timestamp, orig_len: pkt.orig_len, ip, tcp: tcp.to_header() });
        }
        records
    }

    /// (kind, data) for each option other than NOP.
    fn options(tcp: &TcpHeader) -> Vec<(u8, Vec<u8>)> {
        let mut bytes = tcp.options.as_slice();
        let mut out = Vec::new();
        while let [kind, rest @ ..] = bytes {
            match kind {
                0 => break,
                1 => bytes = rest,
                _ => {
                    let len = rest[0] as usize;
                    out.push((*kind, rest[1..len - 1].to_vec()));
                    bytes = &rest[len - 1..];
                }
            }
        }
        out
    }

    fn words(data: &[u8]) -> Vec<u32> {
        data.chunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect()
    }

    fn packet(kind: PacketKind) -> Packet {
        Packet { flow: 0x0102, kind, rwnd: 1 << 20, ..Packet::default() }
    }

    #[test]
    fn handshake_data_and_sack() {
        let syn = packet(PacketKind::Syn).with_ts(Some((3 * MS, 0)));
        let synack = packet(PacketKind::SynAck).with_ts(Some((5 * MS + 1, 3 * MS)));
        let data = Packet { seq: 1000, len: 1000, ..packet(PacketKind::Data) }.with_ts(Some((4 * MS, 5 * MS)));
        let mut ack = Packet { ack: 1000, ..packet(PacketKind::Ack) }.with_ts(Some((6 * MS, 4 * MS)));
        ack.set_echo(Some(7));
        ack.sack[0] = (2000, 3000);
        ack.sack_count = 1;
        let sent = [syn, synack, data, ack];
        let mut w = PcapWriter::new();
        for (i, p) in sent.iter().enumerate() {
            w.record(Instant(1_000_000_000 + i as u64 * 1500), p);
        }
        let recs = parse(w.into_bytes());
        assert_eq!(recs.len(), 4);
        for (i, (r, p)) in recs.iter().zip(&sent).enumerate() {
            assert_eq!(r.time, Duration::new(1, i as u32 * 1500));
            assert_eq!(r.orig_len, p.wire_bytes());
            assert_eq!(r.ip.protocol, IpNumber::TCP);
        }
        let [syn, synack, data, ack] = [&recs[0], &recs[1], &recs[2], &recs[3]];

        assert_eq!((syn.ip.source, syn.ip.destination), ([10, 1, 1, 2], [10, 2, 1, 2]));
        assert_eq!((syn.tcp.source_port, syn.tcp.destination_port), (10258, 5001));
        assert_eq!((syn.tcp.syn, syn.tcp.ack, syn.tcp.sequence_number), (true, false, 0));
        assert_eq!(syn.tcp.window_size, 65535);
        assert_eq!(
            options(&syn.tcp),
            vec![
                (2, 1460u16.to_be_bytes().to_vec()),
                (4, vec![]),
                (3, vec![WINDOW_SHIFT]),
                (8, vec![0, 0, 0, 3, 0, 0, 0, 0])
            ]
        );

        assert_eq!((synack.ip.source, synack.ip.destination), ([10, 2, 1, 2], [10, 1, 1, 2]));
        assert_eq!((synack.tcp.source_port, synack.tcp.destination_port), (5001, 10258));
        assert_eq!((synack.tcp.syn, synack.tcp.ack), (true, true));
        assert_eq!((synack.tcp.sequence_number, synack.tcp.acknowledgment_number), (RECEIVER_ISN, 1));
        assert_eq!(options(&synack.tcp)[3], (8, vec![0, 0, 0, 5, 0, 0, 0, 3]));

        assert_eq!((data.tcp.syn, data.tcp.ack), (false, true));
        assert_eq!((data.tcp.sequence_number, data.tcp.acknowledgment_number), (1001, RECEIVER_ISN + 1));
        assert_eq!(data.ip.total_len, 20 + 32 + 1000);
        assert_eq!(data.tcp.window_size, 8192);
        assert_eq!(options(&data.tcp), vec![(8, vec![0, 0, 0, 4, 0, 0, 0, 5])]);

        assert_eq!((ack.tcp.sequence_number, ack.tcp.acknowledgment_number), (RECEIVER_ISN + 1, 1001));
        let opts = options(&ack.tcp);
        assert_eq!(opts[0], (8, vec![0, 0, 0, 6, 0, 0, 0, 4]));
        assert_eq!(opts[1], (EXPERIMENTAL_KIND, [&[0x54, 0x53][..], &7u64.to_be_bytes()].concat()));
        assert_eq!((opts[2].0, words(&opts[2].1)), (5, vec![2001, 3001]));
    }

    #[test]
    fn segment_mark_is_an_experimental_option() {
        let data = Packet { seq: 0, len: 1000, mark: 2, ..packet(PacketKind::Data) }.with_ts(Some((0, 0)));
        let mut w = PcapWriter::new();
        w.record(Instant(0), &data);
        let recs = parse(w.into_bytes());
        assert_eq!(recs[0].orig_len, data.wire_bytes());
        assert_eq!(recs[0].ip.total_len as u32, 20 + 20 + 12 + 8 + 1000);
        assert_eq!(options(&recs[0].tcp)[1], (EXPERIMENTAL_KIND, vec![0x54, 0x4d, 2]));
    }

    #[test]
    fn sack_blocks_that_do_not_fit_are_dropped() {
        let mut ack = Packet { ack: 100, ..packet(PacketKind::Ack) }.with_ts(Some((0, 0)));
        ack.set_echo(Some(1));
        for i in 0..MAX_SACK_BLOCKS {
            ack.sack[i] = (1000 * (i as u64 + 1), 1000 * (i as u64 + 1) + 500);
        }
        ack.sack_count = MAX_SACK_BLOCKS as u8;
        let mut no_echo = ack;
        no_echo.set_echo(None);
        let mut w = PcapWriter::new();
        w.record(Instant(0), &ack);
        w.record(Instant(0), &no_echo);
        let recs = parse(w.into_bytes());
        let sack = |r: &Record| options(&r.tcp).into_iter().find(|o| o.0 == 5).map(|o| words(&o.1)).unwrap();
        // Timestamps (12) + echo (12) leave room for one block; timestamps alone for three.
        assert_eq!(recs[0].tcp.options.as_slice().len(), 36);
        assert_eq!(sack(&recs[0]), vec![1001, 1501]);
        assert_eq!(recs[1].tcp.options.as_slice().len(), 40);
        assert_eq!(sack(&recs[1]), vec![1001, 1501, 2001, 2501, 3001, 3501]);
        assert_eq!(recs[1].orig_len, 60 + 20);
    }

    #[test]
    fn sequence_numbers_and_timestamps_wrap() {
        let data = Packet { seq: u32::MAX as u64, len: 100, ..packet(PacketKind::Data) }
            .with_ts(Some(((u32::MAX as u64 + 2) * MS, 0)));
        let ack = Packet { ack: (1 << 32) + 5, rwnd: u64::MAX, ..packet(PacketKind::Ack) };
        let mut w = PcapWriter::new();
        w.record(Instant(0), &data);
        w.record(Instant(0), &ack);
        let recs = parse(w.into_bytes());
        assert_eq!(recs[0].tcp.sequence_number, 0);
        assert_eq!(options(&recs[0].tcp), vec![(8, vec![0, 0, 0, 1, 0, 0, 0, 0])]);
        assert_eq!(recs[1].tcp.acknowledgment_number, 6);
        assert_eq!(recs[1].tcp.window_size, 65535);
        assert!(recs[1].tcp.options.as_slice().is_empty());
    }
}

#[cfg(test)]
mod udp_tests {
    use etherparse::{Ipv4HeaderSlice, UdpHeaderSlice};
    use pcap_file::pcap::PcapReader;

    use super::*;

    #[test]
    fn a_udp_datagram_is_a_udp_header_of_its_wire_size() {
        let pkt = Packet { flow: 3, kind: PacketKind::Udp, len: 1470, id: 9, ..Packet::default() };
        let mut w = PcapWriter::new();
        w.record(Instant(5), &pkt);
        let bytes = w.into_bytes();
        let mut reader = PcapReader::new(&bytes[..]).unwrap();
        let rec = reader.next_packet().unwrap().unwrap();
        let ip = Ipv4HeaderSlice::from_slice(&rec.data).unwrap();
        assert_eq!(ip.protocol(), IpNumber::UDP);
        // 20 + 8 + 1470: the size the links serialised.
        assert_eq!(ip.total_len() as u32, pkt.wire_bytes());
        assert_eq!(ip.total_len(), 1498);
        assert_eq!(ip.identification(), 9);
        let udp = UdpHeaderSlice::from_slice(&rec.data[ip.slice().len()..]).unwrap();
        assert_eq!((udp.source_port(), udp.destination_port(), udp.length()), (10003, 5001, 1478));
        assert_eq!(ip.source(), [10, 1, 0, 3]);
    }
}
