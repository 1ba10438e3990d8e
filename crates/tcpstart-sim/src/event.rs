//! The event queue: a binary heap ordered by (time, insertion sequence), so events at the same
//! instant run in the order they were scheduled and every run is deterministic.
//!
//! The heap stays small: packets in propagation wait in a FIFO per distinct link delay (see
//! [`crate::delay_line`]), with only each FIFO's head on the heap, so its size grows with the
//! number of busy transmitters and flows rather than with the packets in flight.

use tcpstart_cc::Instant;

/// What happens when an event fires. Small and `Copy`: packets are referred to by their slot
/// in the packet pool, so scheduling never allocates per packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A link finished serialising the packet at its head.
    TransmitDone {
        link: u32,
    },
    /// The packet at the head of a delay line reached the far end of its link.
    Arrive {
        line: u32,
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

/// A heap entry. The time and the sequence number are one 128-bit key (time in the high half), so
/// ordering two entries is a single integer comparison; the event itself never takes part, since
/// sequence numbers are unique.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Packed,
}

/// An event packed into one word: kind in the top 3 bits, a second field (a timer's kind, an
/// ACK-compression element's link) in the next 29, the link, line, flow or source in the low 32.
/// The heap writes and reads it whole; as an enum its fields were stored one by one and read
/// back as words on every insertion, which stalled the store-to-load forwarding (a tenth of B1's
/// samples fell on that store).
#[derive(Clone, Copy, Debug)]
struct Packed(u64);

impl Packed {
    #[inline]
    fn new(ev: Event) -> Self {
        let (kind, second, first): (u64, u32, u32) = match ev {
            Event::TransmitDone { link } => (0, 0, link),
            Event::Arrive { line } => (1, 0, line),
            Event::FlowStart { flow } => (2, 0, flow),
            Event::Timer { flow, timer } => (3, timer as u32, flow),
            Event::UdpSend { source } => (4, 0, source),
            Event::AckRelease { link, flow } => {
                assert!(link < 1 << 29, "link index {link} beyond the event encoding");
                (5, link, flow)
            }
        };
        Packed(kind << 61 | (second as u64) << 32 | first as u64)
    }

    #[inline]
    fn event(self) -> Event {
        let first = self.0 as u32;
        let second = (self.0 >> 32) as u32 & ((1 << 29) - 1);
        match self.0 >> 61 {
            0 => Event::TransmitDone { link: first },
            1 => Event::Arrive { line: first },
            2 => Event::FlowStart { flow: first },
            3 => Event::Timer {
                flow: first,
                timer: match second {
                    0 => TimerKind::Retransmit,
                    1 => TimerKind::DelayedAck,
                    _ => TimerKind::Pacing,
                },
            },
            4 => Event::UdpSend { source: first },
            _ => Event::AckRelease { link: second, flow: first },
        }
    }
}

impl Entry {
    fn at(&self) -> Instant {
        Instant((self.key >> 64) as u64)
    }
}

/// The event queue: two heaps over one order. Packet events (transmissions ending, arrivals) are
/// almost every event but only a third of the entries: the other two thirds are the connections'
/// timers, which rarely fire (every ACK re-arms the retransmission timer without a new entry) and,
/// being far in the future, sat at the bottom of a shared heap, where every removal of the minimum
/// took one of them from the last place to the root and sank it back through every level. Both
/// heaps share the sequence numbers and the smaller of their two minima is taken, so entries
/// leave in exactly the order of a single heap.
#[derive(Default)]
pub struct EventQueue {
    packets: Heap,
    others: Heap,
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
    /// heap later: the packets propagating wait in a FIFO of their delay line and only its head
    /// is on the heap, yet every packet keeps the place it would have had on the heap itself.
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedules `ev` at `at` in the place `seq` taken earlier with [`EventQueue::reserve`].
    pub fn schedule_reserved(&mut self, at: Instant, seq: u64, ev: Event) {
        assert!(at >= self.now, "event {ev:?} scheduled at {at:?}, before now {:?}", self.now);
        let entry = Entry { key: (at.0 as u128) << 64 | seq as u128, ev: Packed::new(ev) };
        match ev {
            Event::TransmitDone { .. } | Event::Arrive { .. } => self.packets.push(entry),
            _ => self.others.push(entry),
        }
    }

    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let entry = if self.others_first()? {
            // Removed at once: the deferral pays off only when the next event is scheduled
            // into the same heap, which a timer rarely does.
            let entry = self.others.take();
            self.others.remove_taken();
            entry
        } else {
            self.packets.take()
        };
        let at = entry.at();
        debug_assert!(at >= self.now);
        self.now = at;
        self.popped += 1;
        Some((at, entry.ev.event()))
    }

    pub fn peek_time(&mut self) -> Option<Instant> {
        let heap = if self.others_first()? { &self.others } else { &self.packets };
        Some(heap.heap[0].at())
    }

    /// Whether the next event is in `others` rather than `packets`; `None` when both are empty.
    fn others_first(&mut self) -> Option<bool> {
        self.packets.remove_taken();
        let others = self.others.heap.first().map_or(u128::MAX, |e| e.key);
        match self.packets.heap.first() {
            Some(p) => Some(others < p.key),
            None => (others != u128::MAX).then_some(true),
        }
    }
}

/// A binary min-heap of entries whose removal of the minimum is deferred: most events schedule
/// another one, often the next minimum (a transmission ending), which then takes the removed
/// minimum's place without any sift. The order in which entries leave is the same as any heap's,
/// since keys are unique.
#[derive(Default)]
struct Heap {
    heap: Vec<Entry>,
    /// `heap[0]` has been handed out by `take` and is still in place.
    top_taken: bool,
}

impl Heap {
    fn push(&mut self, entry: Entry) {
        debug_assert!(!self.top_taken || entry.key > self.heap[0].key, "the queue runs forward");
        if self.top_taken {
            // The entry takes the place of the one handed out only if it is the new minimum, so
            // nothing moves; a later one goes in at the bottom, where most stay, and the taken
            // entry is removed at the next pop. (A new key is never below the taken one: times
            // are never in the past and a reserved place is only used once its predecessor on
            // the same link has left.)
            let children = &self.heap[1..self.heap.len().min(3)];
            if children.iter().all(|c| entry.key < c.key) {
                self.top_taken = false;
                self.heap[0] = entry;
                return;
            }
        }
        self.heap.push(entry);
        self.sift_up(self.heap.len() - 1);
    }

    /// Hands out the minimum of a non-empty heap, leaving it in place until the next `push` or
    /// `remove_taken`.
    fn take(&mut self) -> Entry {
        self.top_taken = true;
        self.heap[0]
    }

    /// Completes the removal of the entry `take` handed out, if nothing took its place.
    fn remove_taken(&mut self) {
        if !std::mem::take(&mut self.top_taken) {
            return;
        }
        let last = self.heap.pop().expect("the taken entry is in the heap");
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.sift_down(0);
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        let heap = &mut self.heap[..=i];
        let entry = heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if heap[parent].key <= entry.key {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = entry;
    }

    fn sift_down(&mut self, mut i: usize) {
        let heap = &mut self.heap[..];
        let entry = heap[i];
        // While both children exist; `child + 1 < len` lets the compiler drop the bounds checks.
        let mut child = 2 * i + 1;
        while child + 1 < heap.len() {
            child += (heap[child + 1].key < heap[child].key) as usize;
            if entry.key <= heap[child].key {
                heap[i] = entry;
                return;
            }
            heap[i] = heap[child];
            i = child;
            child = 2 * i + 1;
        }
        // A last, only child.
        if child < heap.len() && heap[child].key < entry.key {
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = entry;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_back_from_their_packed_word() {
        let events = [
            Event::TransmitDone { link: u32::MAX },
            Event::Arrive { line: 7 },
            Event::FlowStart { flow: 123_456 },
            Event::Timer { flow: 9, timer: TimerKind::Retransmit },
            Event::Timer { flow: u32::MAX, timer: TimerKind::DelayedAck },
            Event::Timer { flow: 0, timer: TimerKind::Pacing },
            Event::UdpSend { source: 3 },
            Event::AckRelease { link: (1 << 29) - 1, flow: u32::MAX },
        ];
        for ev in events {
            assert_eq!(Packed::new(ev).event(), ev);
        }
    }

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
    fn an_event_scheduled_after_a_pop_takes_the_popped_place_in_order() {
        let mut q = EventQueue::default();
        for (t, flow) in [(30, 0), (10, 1), (50, 2), (20, 3), (40, 4)] {
            q.schedule(Instant(t), Event::FlowStart { flow });
        }
        let mut order = Vec::new();
        // Each pop is followed by a schedule (the common case), except the last two.
        for (t, flow) in [(25, 5), (25, 6), (60, 7)] {
            order.push(q.pop().unwrap());
            q.schedule(Instant(t), Event::FlowStart { flow });
        }
        order.extend(std::iter::from_fn(|| q.pop()));
        let flows: Vec<u32> = order
            .iter()
            .map(|(_, ev)| match ev {
                Event::FlowStart { flow } => *flow,
                _ => unreachable!(),
            })
            .collect();
        // By hand: pop 1 (t10), add 5 (t25); pop 3 (t20), add 6 (t25, after 5 among the ties);
        // pop 5, add 7 (t60); then 6, 0 (t30), 4 (t40), 2 (t50), 7.
        assert_eq!(flows, vec![1, 3, 5, 6, 0, 4, 2, 7]);
    }

    #[test]
    #[should_panic(expected = "before now")]
    fn scheduling_in_the_past_is_refused() {
        let mut q = EventQueue::default();
        q.schedule(Instant(10), Event::FlowStart { flow: 0 });
        q.pop();
        q.schedule(Instant(5), Event::FlowStart { flow: 0 });
    }

    #[test]
    fn the_two_heaps_give_the_order_of_one() {
        use rand::Rng;
        // Random packet events and timers, many at the same instant, some put in places reserved
        // earlier (as a link's pipe does), against a plain sorted map of (time, place).
        let mut rng = rand_pcg::Pcg64Mcg::new(5);
        let mut q = EventQueue::default();
        let mut pending = std::collections::BTreeMap::new();
        let mut last = (Instant::ZERO, 0);
        let mut reserved = Vec::new();
        let mut pops = 0;
        for i in 0..50_000u32 {
            let at = Instant(q.now().0 + rng.gen_range(0..4) * 1_000);
            let ev = match rng.gen_range(0..5) {
                0 => Event::TransmitDone { link: i },
                1 => Event::Arrive { line: i },
                2 => Event::Timer { flow: i, timer: TimerKind::Retransmit },
                3 => Event::FlowStart { flow: i },
                _ => Event::AckRelease { link: i, flow: i },
            };
            let seq = q.reserve();
            if rng.gen_bool(0.2) {
                reserved.push((at, seq, ev));
            } else {
                q.schedule_reserved(at, seq, ev);
                pending.insert((at, seq), ev);
            }
            if rng.gen_bool(0.3) {
                // A reserved place is used only while it is still ahead of the queue.
                if let Some((at, seq, ev)) = reserved.pop().filter(|&(at, seq, _)| (at, seq) > last) {
                    q.schedule_reserved(at, seq, ev);
                    pending.insert((at, seq), ev);
                }
            }
            if rng.gen_bool(0.5) || i == 49_999 {
                while let Some(got) = q.pop() {
                    let (key, ev) = pending.pop_first().expect("as many events as scheduled");
                    assert_eq!(got, (key.0, ev), "pop {pops}");
                    last = key;
                    pops += 1;
                    if i < 49_999 {
                        break;
                    }
                }
            }
        }
        assert!(pending.is_empty() && pops > 40_000, "{pops} pops");
    }
}
