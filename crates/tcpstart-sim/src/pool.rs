//! Packet storage: a slab of reusable slots, so moving a packet through the network never
//! allocates once the slab has grown to the run's peak population.

use crate::packet::Packet;

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    pub fn insert(&mut self, pkt: Packet) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = pkt;
                slot
            }
            None => {
                self.slots.push(pkt);
                (self.slots.len() - 1) as u32
            }
        }
    }

    pub fn get(&self, slot: u32) -> &Packet {
        &self.slots[slot as usize]
    }

    pub fn get_mut(&mut self, slot: u32) -> &mut Packet {
        &mut self.slots[slot as usize]
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
