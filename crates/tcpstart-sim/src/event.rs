//! The event queue: a binary heap ordered by (time, insertion sequence), so events at the same
//! instant run in the order they were scheduled and every run is deterministic.
//!
//! The heap stays small: packets in propagation wait in their link's FIFO (see
//! [`crate::link::Link::propagate`]), with only each link's head on the heap, so its size grows
//! with the number of links and flows rather than with the packets in flight.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tcpstart_cc::Instant;

/// What happens when an event fires. Small and `Copy`: packets are referred to by their slot
/// in the packet pool, so scheduling never allocates per packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A link finished serialising the packet at its head.
    TransmitDone {
        link: u32,
    },
    /// The packet at the head of a link's propagation pipe reached the far end of the link.
    Arrive {
        link: u32,
    },
    FlowStart {
        flow: u32,
    },
    Timer {
        flow: u32,
        timer: TimerKind,
    },
    /// A UDP source sends its next datagram.
    UdpSend {
        source: u32,
    },
    /// An ACK-compression element in front of `link` releases the batch of `flow`.
    AckRelease {
        link: u32,
        flow: u32,
    },
}

/// The per-connection timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TimerKind {
    Retransmit,
    DelayedAck,
    Pacing,
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Instant, u64, Event)>>,
    next_seq: u64,
    now: Instant,
    popped: u64,
}

impl EventQueue {
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Schedules `ev` at `at`; times in the past are a simulator bug.
    pub fn schedule(&mut self, at: Instant, ev: Event) {
        let seq = self.reserve();
        self.schedule_reserved(at, seq, ev);
    }

    /// Takes the next place in the order of same-time events, for an event that is put on the
    /// heap later: a link keeps the packets it propagates in a FIFO of its own and only its head
    /// is on the heap, yet every packet keeps the place it would have had on the heap itself.
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedules `ev` at `at` in the place `seq` taken earlier with [`EventQueue::reserve`].
    pub fn schedule_reserved(&mut self, at: Instant, seq: u64, ev: Event) {
        assert!(at >= self.now, "event {ev:?} scheduled at {at:?}, before now {:?}", self.now);
        self.heap.push(Reverse((at, seq, ev)));
    }

    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let Reverse((at, _, ev)) = self.heap.pop()?;
        debug_assert!(at >= self.now);
        self.now = at;
        self.popped += 1;
        Some((at, ev))
    }

    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_and_fifo_among_ties() {
        let mut q = EventQueue::default();
        q.schedule(Instant(20), Event::FlowStart { flow: 0 });
        q.schedule(Instant(10), Event::FlowStart { flow: 1 });
        q.schedule(Instant(10), Event::FlowStart { flow: 2 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Instant(10), Event::FlowStart { flow: 1 }),
                (Instant(10), Event::FlowStart { flow: 2 }),
                (Instant(20), Event::FlowStart { flow: 0 }),
            ]
        );
        assert_eq!(q.now(), Instant(20));
    }

    #[test]
    fn reserved_places_keep_their_order_among_ties() {
        let mut q = EventQueue::default();
        let early = q.reserve();
        q.schedule(Instant(10), Event::FlowStart { flow: 1 });
        q.schedule_reserved(Instant(10), early, Event::FlowStart { flow: 0 });
        assert_eq!(q.pop(), Some((Instant(10), Event::FlowStart { flow: 0 })));
        assert_eq!(q.pop(), Some((Instant(10), Event::FlowStart { flow: 1 })));
    }

    #[test]
    #[should_panic(expected = "before now")]
    fn scheduling_in_the_past_is_refused() {
        let mut q = EventQueue::default();
        q.schedule(Instant(10), Event::FlowStart { flow: 0 });
        q.pop();
        q.schedule(Instant(5), Event::FlowStart { flow: 0 });
    }
}
