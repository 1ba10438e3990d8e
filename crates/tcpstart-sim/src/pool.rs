//! Packet storage: a slab of reusable slots, so moving a packet through the network never
//! allocates once the slab has grown to the run's peak population.
//!
//! Beside each packet the pool keeps the little that routers read ([`Route`]) in an array of its
//! own. A packet is read whole only by its sender and receiver; on each hop between them the
//! simulator reads its route, 12 bytes in a dense array, instead of touching the packet (a run
//! holds thousands of packets in flight, more than the first-level cache, so a hop that read the
//! packet would miss it).
//!
//! The packet itself is kept in one cache line (`Stored`: a [`Packet`] without its SACK blocks,
//! 64 bytes where a `Packet` takes 128). Only ACKs carry SACK blocks, and only while the receiver
//! holds data out of order; those blocks wait in a side slab of their own, touched only for such
//! packets. The pool's working set is halved, which pays where the packets in flight outgrow the
//! second-level cache (B2, B4). [`PacketPool::get`], [`PacketPool::read`] and
//! [`PacketPool::remove`] give back the whole `Packet`, equal to the one stored.

use crate::packet::{Packet, PacketKind, MAX_SACK_BLOCKS};

/// What the network needs of a packet on its way: its flow (hence its path), its kind (hence
/// its direction, and whether ACK compression applies), the link it is on, and its size on the
/// wire, computed once.
#[derive(Clone, Copy, Debug, Default)]
pub struct Route {
    pub flow: u32,
    pub wire_bytes: u32,
    pub kind: PacketKind,
    /// Index of the link the packet is on, within its path.
    pub hop: u8,
}

type SackBlocks = [(u64, u64); MAX_SACK_BLOCKS];

/// A stored packet: the fields of [`Packet`] before its SACK blocks, in the same order.
/// Aligned to a cache line so that reading one is one line, not two.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Stored {
    seq: u64,
    ack: u64,
    rwnd: u64,
    tsval: u64,
    tsecr: u64,
    echo: u64,
    flow: u32,
    len: u32,
    id: u16,
    kind: PacketKind,
    sack_count: u8,
    retransmission: bool,
    mark: u8,
    options: u8,
}

impl Stored {
    /// `p` as a packet of `flow` with identification `id`.
    fn new(p: &Packet, flow: u32, id: u16) -> Self {
        Stored {
            seq: p.seq,
            ack: p.ack,
            rwnd: p.rwnd,
            tsval: p.tsval,
            tsecr: p.tsecr,
            echo: p.echo,
            flow,
            len: p.len,
            id,
            kind: p.kind,
            sack_count: p.sack_count,
            retransmission: p.retransmission,
            mark: p.mark,
            options: p.options,
        }
    }

    fn packet(&self, sack: SackBlocks) -> Packet {
        Packet {
            seq: self.seq,
            ack: self.ack,
            rwnd: self.rwnd,
            tsval: self.tsval,
            tsecr: self.tsecr,
            echo: self.echo,
            flow: self.flow,
            len: self.len,
            id: self.id,
            kind: self.kind,
            sack_count: self.sack_count,
            retransmission: self.retransmission,
            mark: self.mark,
            options: self.options,
            sack,
        }
    }
}

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Stored>,
    routes: Vec<Route>,
    free: Vec<u32>,
    /// The SACK blocks of the stored packets that carry some, in a slab of their own.
    sacks: Vec<SackBlocks>,
    free_sacks: Vec<u32>,
    /// Per slot: where in `sacks` its packet's blocks are, if it has some (`sack_count > 0`).
    sack_of: Vec<u32>,
}

impl PacketPool {
    /// Stores `pkt` as a packet of `flow` with identification `id`, on the first link of its
    /// path.
    pub fn insert(&mut self, pkt: Packet, flow: u32, id: u16) -> u32 {
        // A packet read back without blocks has zeros in their place.
        debug_assert!(pkt.sack_count > 0 || pkt.sack == SackBlocks::default(), "SACK blocks beyond the count");
        let route = Route { flow, wire_bytes: pkt.wire_bytes(), kind: pkt.kind, hop: 0 };
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(Stored::default());
                self.routes.push(Route::default());
                self.sack_of.push(0);
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[slot as usize] = Stored::new(&pkt, flow, id);
        self.routes[slot as usize] = route;
        if pkt.sack_count > 0 {
            let idx = self.free_sacks.pop().unwrap_or_else(|| {
                self.sacks.push(SackBlocks::default());
                (self.sacks.len() - 1) as u32
            });
            self.sacks[idx as usize] = pkt.sack;
            self.sack_of[slot as usize] = idx;
        }
        slot
    }

    /// A copy of the packet in `slot`, which stays stored, for the traces and captures (kept
    /// out of line: they are off the packet path).
    #[inline(never)]
    pub fn get(&self, slot: u32) -> Packet {
        self.read(slot)
    }

    /// The packet in `slot`, which stays stored. Inlined always, so that a caller that reads
    /// some fields of the result loads only those.
    #[inline(always)]
    pub fn read(&self, slot: u32) -> Packet {
        let stored = &self.slots[slot as usize];
        let mut pkt = stored.packet(SackBlocks::default());
        if stored.sack_count > 0 {
            pkt.sack = self.sacks[self.sack_of[slot as usize] as usize];
        }
        pkt
    }

    /// Rewrites the Quick-Start option of the handshake packet in `slot` (a router's decision).
    pub fn set_quick_start(&mut self, slot: u32, code: Option<u8>) {
        let stored = &mut self.slots[slot as usize];
        let mut pkt = stored.packet(SackBlocks::default());
        pkt.set_quick_start(code);
        *stored = Stored::new(&pkt, stored.flow, stored.id);
    }

    pub fn route(&self, slot: u32) -> &Route {
        &self.routes[slot as usize]
    }

    pub fn route_mut(&mut self, slot: u32) -> &mut Route {
        &mut self.routes[slot as usize]
    }

    /// Frees `slot` and returns its packet.
    #[inline(always)]
    pub fn remove(&mut self, slot: u32) -> Packet {
        let pkt = self.read(slot);
        self.free(slot);
        pkt
    }

    /// Frees `slot` without reading its packet.
    #[inline(always)]
    pub fn free(&mut self, slot: u32) {
        if self.slots[slot as usize].sack_count > 0 {
            self.free_sacks.push(self.sack_of[slot as usize]);
        }
        self.free.push(slot);
    }

    /// Packets currently stored.
    pub fn live(&self) -> u64 {
        (self.slots.len() - self.free.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack_with_blocks(n: u8) -> Packet {
        let mut p = Packet { kind: PacketKind::Ack, ack: 1 << 40, rwnd: 1 << 33, sack_count: n, ..Packet::default() };
        for i in 0..n as usize {
            p.sack[i] = (1000 * i as u64 + 7, 1000 * i as u64 + 500);
        }
        p.with_ts(Some((u64::MAX, 3)))
    }

    #[test]
    fn a_stored_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Stored>(), 64);
        assert_eq!(std::mem::align_of::<Stored>(), 64);
    }

    #[test]
    fn packets_with_and_without_blocks_are_read_back_whole() {
        let mut pool = PacketPool::default();
        let mut data = Packet {
            kind: PacketKind::Data,
            seq: 5 << 32,
            len: 1448,
            retransmission: true,
            mark: 9,
            ..Packet::default()
        };
        data.set_echo(Some(42));
        let packets = [data, ack_with_blocks(3), ack_with_blocks(0), ack_with_blocks(4)];
        let slots: Vec<u32> =
            packets.iter().enumerate().map(|(i, p)| pool.insert(*p, 100 + i as u32, 7 * i as u16)).collect();
        assert_eq!(pool.live(), 4);
        for (i, (p, &slot)) in packets.iter().zip(&slots).enumerate() {
            // The pool sets the flow and id it is given.
            let expected = Packet { flow: 100 + i as u32, id: 7 * i as u16, ..*p };
            assert_eq!(pool.get(slot), expected, "packet {i}");
            assert_eq!(pool.route(slot).flow, 100 + i as u32);
        }
        assert_eq!(pool.remove(slots[1]), Packet { flow: 101, id: 7, ..packets[1] });
        pool.free(slots[3]);
        assert_eq!(pool.live(), 2);
        // The slots and blocks freed are taken again: nothing of their earlier packets is read
        // back, neither into a packet without blocks nor into one with fewer.
        let (none, two) = (ack_with_blocks(0), ack_with_blocks(2));
        let (a, b) = (pool.insert(none, 1, 1), pool.insert(two, 2, 2));
        assert_eq!([a, b], [slots[3], slots[1]], "slots reused");
        assert_eq!(pool.get(a), Packet { flow: 1, id: 1, ..none });
        assert_eq!(pool.get(b), Packet { flow: 2, id: 2, ..two });
        assert_eq!(pool.get(b).sack[2..], [(0, 0); 2]);
        assert_eq!(pool.live(), 4);
    }
}
