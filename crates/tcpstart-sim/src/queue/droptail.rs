//! Drop-tail FIFO with a limit in packets or in bytes.

use tcpstart_cc::Instant;

use super::{Admission, Fifo, QueueDiscipline, Queued};
use crate::scenario::Limit;

pub struct DropTail {
    fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { fifo: Fifo::new(limit) }
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> Admission {
        self.fifo.push(Queued { slot, bytes, enqueued: now })
    }

    fn dequeue(&mut self, _now: Instant, _dropped: &mut Vec<Queued>) -> Option<Queued> {
        self.fifo.pop()
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    /// An empty FIFO takes any packet (see [`Fifo::fits`]) and hands it straight back.
    fn passes_idle_arrivals(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::pkt;
    use super::*;

    const T: Instant = Instant(0);

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert_eq!(q.enqueue(T, 1, 1500), Admission::Accepted);
        assert_eq!(q.enqueue(T, 2, 1500), Admission::Accepted);
        assert_eq!(q.enqueue(T, 3, 40), Admission::Overflow);
        assert_eq!(q.dequeue(T, &mut Vec::new()), Some(pkt(1, 1500, 0)));
        assert_eq!(q.enqueue(T, 4, 40), Admission::Accepted);
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 1540));
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert_eq!(q.enqueue(T, 1, 1500), Admission::Accepted);
        assert_eq!(q.enqueue(T, 2, 1460), Admission::Accepted);
        assert_eq!(q.enqueue(T, 3, 100), Admission::Overflow, "3060 bytes would exceed the limit");
        assert_eq!(q.enqueue(T, 4, 40), Admission::Accepted);
    }

    #[test]
    fn an_empty_queue_takes_a_packet_larger_than_its_byte_limit() {
        let mut q = DropTail::new(Limit::Bytes(1500));
        assert_eq!(q.enqueue(T, 1, 1512), Admission::Accepted);
        assert_eq!(q.enqueue(T, 2, 40), Admission::Overflow);
    }
}
