//! Packet storage: a slab of reusable slots, so moving a packet through the network never
//! allocates once the slab has grown to the run's peak population.
//!
//! Beside each packet the pool keeps the little that routers read ([`Route`]) in an array of its
//! own. A packet is read whole only by its sender and receiver; on each hop between them the
//! simulator reads its route, 12 bytes in a dense array, instead of touching the 128-byte packet
//! (B1 holds a few thousand packets in flight: more than the first-level cache, and each hop's
//! read of the packet was a miss).

use crate::packet::{Packet, PacketKind};

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

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    routes: Vec<Route>,
    free: Vec<u32>,
}

impl PacketPool {
    /// Stores `pkt` as a packet of `flow` with identification `id`, on the first link of its
    /// path. The two are written into the slot after the packet, not into `pkt` before: the copy
    /// reads the packet in 16-byte pieces, and a piece just written in part stalled the store
    /// forwarding.
    pub fn insert(&mut self, pkt: Packet, flow: u32, id: u16) -> u32 {
        let route = Route { flow, wire_bytes: pkt.wire_bytes(), kind: pkt.kind, hop: 0 };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = pkt;
                slot
            }
            None => {
                self.slots.push(pkt);
                self.routes.push(Route::default());
                (self.slots.len() - 1) as u32
            }
        };
        let p = &mut self.slots[slot as usize];
        p.flow = flow;
        p.id = id;
        self.routes[slot as usize] = route;
        slot
    }

    pub fn get(&self, slot: u32) -> &Packet {
        &self.slots[slot as usize]
    }

    pub fn route(&self, slot: u32) -> &Route {
        &self.routes[slot as usize]
    }

    pub fn route_mut(&mut self, slot: u32) -> &mut Route {
        &mut self.routes[slot as usize]
    }

    /// Frees `slot` and returns its packet.
    pub fn remove(&mut self, slot: u32) -> Packet {
        self.free.push(slot);
        self.slots[slot as usize]
    }

    /// Packets currently stored.
    pub fn live(&self) -> u64 {
        (self.slots.len() - self.free.len()) as u64
    }
}
