//! Drop-tail FIFO with a limit in packets or in bytes.

use std::collections::VecDeque;

use super::{QueueDiscipline, Queued};
use crate::scenario::Limit;

pub struct DropTail {
    limit: Limit,
    items: VecDeque<Queued>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, items: VecDeque::new(), bytes: 0 }
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, pkt: Queued) -> bool {
        let fits = match self.limit {
            Limit::Packets(n) => (self.items.len() as u64) < n,
            Limit::Bytes(b) => self.bytes + pkt.bytes as u64 <= b,
        };
        if fits {
            self.bytes += pkt.bytes as u64;
            self.items.push_back(pkt);
        }
        fits
    }

    fn dequeue(&mut self) -> Option<Queued> {
        let pkt = self.items.pop_front()?;
        self.bytes -= pkt.bytes as u64;
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.items.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(slot: u32, bytes: u32) -> Queued {
        Queued { slot, bytes }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.enqueue(pkt(1, 1500)));
        assert!(q.enqueue(pkt(2, 1500)));
        assert!(!q.enqueue(pkt(3, 40)));
        assert_eq!(q.dequeue(), Some(pkt(1, 1500)));
        assert!(q.enqueue(pkt(4, 40)));
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 1540));
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert!(q.enqueue(pkt(1, 1500)));
        assert!(q.enqueue(pkt(2, 1460)));
        assert!(!q.enqueue(pkt(3, 100)), "3060 bytes would exceed the limit");
        assert!(q.enqueue(pkt(4, 40)));
    }
}
