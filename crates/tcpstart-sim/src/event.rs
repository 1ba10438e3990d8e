//! The event core: the events pending, and the packets propagating along links.
//!
//! Events leave in order of (time, scheduling order), so events at the same instant run in the
//! order they were scheduled and every run is deterministic. A packet that starts propagating
//! takes its place in that order at once, though its arrival is put on the queue later: the
//! packets propagating wait in one FIFO per distinct link delay ([`DelayLines`]), and only each
//! FIFO's head has a queue entry. [`EventQueue`] keeps that protocol to itself: the simulation
//! hands it a packet with [`EventQueue::propagate`] and gets the packet back as a
//! [`Fired::Arrival`] when it reaches the far end.

use std::collections::BinaryHeap;

use core::time::Duration;
use tcpstart_cc::Instant;

use crate::delay_line::DelayLines;
use crate::invariant::Violation;

/// What the simulation schedules. Small and `Copy`: packets are referred to by their slot in
/// the packet pool, so scheduling never allocates per packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A link finished serialising the packet at its head.
    TransmitDone {
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

/// What leaves the queue: a scheduled event, or a packet at the far end of the link it was
/// propagating on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    Event(Event),
    /// The packet in pool slot `slot` has crossed its link.
    Arrival {
        slot: u32,
    },
}

/// The per-connection timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TimerKind {
    Retransmit,
    DelayedAck,
    Pacing,
}

/// A queue entry. The time and the sequence number are one 128-bit key (time in the high half);
/// sequence numbers are unique, so the key alone orders entries and ties never reach the event.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Packed,
}

fn key(at: Instant, seq: u64) -> u128 {
    (at.0 as u128) << 64 | seq as u128
}

/// An entry's event in one word, written and read whole: kind in the top 3 bits, a second field
/// (a timer's kind, an ACK-compression element's link) in the next 29, the link, delay line,
/// flow or source in the low 32. One word, so that an insertion stores it with one write and
/// its later reads as a word find it whole (an enum's fields are stored one by one).
#[derive(Clone, Copy, Debug)]
struct Packed(u64);

/// A queue entry's event unpacked.
#[derive(Debug, PartialEq)]
enum Unpacked {
    Event(Event),
    /// The head of a delay line arrives.
    Head(u32),
}

impl Packed {
    const TRANSMIT_DONE: u64 = 0;
    const HEAD: u64 = 1;

    fn new(ev: Event) -> Self {
        let (kind, second, first): (u64, u32, u32) = match ev {
            Event::TransmitDone { link } => (Self::TRANSMIT_DONE, 0, link),
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

    fn head(line: u32) -> Self {
        Packed(Self::HEAD << 61 | line as u64)
    }

    /// Transmission ends and arrivals: the events of the packets on their way.
    fn is_packet_event(self) -> bool {
        self.kind() <= Self::HEAD
    }

    fn kind(self) -> u64 {
        self.0 >> 61
    }

    fn first(self) -> u32 {
        self.0 as u32
    }

    #[inline]
    fn unpack(self) -> Unpacked {
        let first = self.first();
        let second = || (self.0 >> 32) as u32 & ((1 << 29) - 1);
        Unpacked::Event(match self.kind() {
            Self::TRANSMIT_DONE => Event::TransmitDone { link: first },
            Self::HEAD => return Unpacked::Head(first),
            2 => Event::FlowStart { flow: first },
            3 => Event::Timer {
                flow: first,
                timer: match second() {
                    0 => TimerKind::Retransmit,
                    1 => TimerKind::DelayedAck,
                    _ => TimerKind::Pacing,
                },
            },
            4 => Event::UdpSend { source: first },
            _ => Event::AckRelease { link: second(), flow: first },
        })
    }
}

// Ordered by key, reversed: `BinaryHeap` hands out its greatest entry, which is then the earliest.
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        other.key.cmp(&self.key)
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Entry {}

/// The pending events and the packets propagating.
///
/// Three stores over one order, since keys are unique. The packet events, nearly every event
/// and a handful pending in a dumbbell, go to two small sorted arrays ([`SortedArray`]): the
/// transmission ends, and the delay lines' heads (apart, because a head is due a propagation
/// delay later, after every pending transmission end, and would walk past all of them). The
/// rest (timers, flow starts, UDP sends, ACK releases), and the packet events while an array is
/// full, go to a binary heap. A pop takes the least of the three minima. While the heap holds
/// packet events, new ones go there too, so that a network with hundreds of busy links does not
/// walk a full array at every insertion.
pub struct EventQueue {
    transmissions: SortedArray,
    heads: SortedArray,
    later: BinaryHeap<Entry>,
    /// The smallest key in `later`, u128::MAX when it is empty.
    later_min: u128,
    /// Packet events in `later`.
    packets_later: usize,
    lines: DelayLines,
    next_seq: u64,
    now: Instant,
    popped: u64,
    /// The first event scheduled before now or popped out of time order (a simulator bug).
    went_back: Option<Box<Violation>>,
}

impl EventQueue {
    /// An empty queue for a network whose link `i` has propagation delay `delays[i]`.
    pub fn new(delays: impl IntoIterator<Item = Duration>) -> Self {
        EventQueue {
            transmissions: SortedArray::default(),
            heads: SortedArray::default(),
            later: BinaryHeap::new(),
            later_min: u128::MAX,
            packets_later: 0,
            lines: DelayLines::new(delays),
            next_seq: 0,
            now: Instant::ZERO,
            popped: 0,
            went_back: None,
        }
    }

    /// Gives `link` a delay line of its own whose delay follows `schedule`; before the first
    /// packet is propagated.
    pub fn vary_delay(&mut self, link: u32, schedule: std::sync::Arc<crate::link_schedule::Schedule>) {
        self.lines.vary(link, schedule);
    }

    pub fn now(&self) -> Instant {
        self.now
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// The first time the queue's time went backwards, if it did.
    pub fn take_violation(&mut self) -> Option<Box<Violation>> {
        self.went_back.take()
    }

    /// Schedules `ev` at `at`. A time in the past, a simulator bug, shows in `pop_until`: such an
    /// event is the earliest pending, so it leaves next, before now.
    #[inline]
    pub fn schedule(&mut self, at: Instant, ev: Event) {
        let seq = self.reserve();
        self.insert(Entry { key: key(at, seq), ev: Packed::new(ev) });
    }

    /// Starts the propagation of the packet in pool slot `slot` along `link` at `now`; it comes
    /// back from `pop_until` as [`Fired::Arrival`] one link delay later, in the place among
    /// same-time events it takes now.
    #[inline]
    pub fn propagate(&mut self, link: u32, now: Instant, slot: u32) {
        let seq = self.reserve();
        let line = self.lines.line_of(link);
        if let Some(head) = self.lines.push(line, now, seq, slot) {
            self.insert_head(head.at, head.seq, line);
        }
    }

    /// Removes and returns the next event, if there is one at or before `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Option<Instant>) -> Option<(Instant, Fired)> {
        // An array's sentinel when it holds nothing.
        let (transmission, head) = (self.transmissions.min(), self.heads.min());
        let at = Instant((transmission.key.min(head.key).min(self.later_min) >> 64) as u64);
        // An empty queue gives the time u64::MAX, beyond any limit: no event is scheduled that
        // late (`insert` checks it in debug builds), so one comparison covers both.
        if at > until.unwrap_or(Instant(u64::MAX - 1)) {
            return None;
        }
        // Each array holds one kind of event, so its entries need no unpacking.
        let fired = if transmission.key < head.key.min(self.later_min) {
            self.transmissions.pop();
            Fired::Event(Event::TransmitDone { link: transmission.ev.first() })
        } else if head.key < self.later_min {
            self.heads.pop();
            self.arrive(head.ev.first())
        } else {
            match self.pop_later().unpack() {
                Unpacked::Event(ev) => Fired::Event(ev),
                Unpacked::Head(line) => self.arrive(line),
            }
        };
        // Checked in every build, one comparison an event: it catches an event scheduled in the
        // past and any disorder of the three stores. The event is handled all the same; the run
        // stops at its next watch point (`take_violation`).
        if at < self.now {
            self.popped_out_of_order(at, fired);
        }
        self.now = at;
        self.popped += 1;
        Some((at, fired))
    }

    /// The head of delay line `line` has arrived: its next packet becomes the head.
    #[inline]
    fn arrive(&mut self, line: u32) -> Fired {
        let (arrived, next) = self.lines.pop(line);
        if let Some(next) = next {
            self.insert_head(next.at, next.seq, line);
        }
        Fired::Arrival { slot: arrived.slot }
    }

    /// Takes the next place in the order of same-time events.
    fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Puts a scheduled event (not a delay line's head) in its store.
    #[inline(always)]
    fn insert(&mut self, entry: Entry) {
        // No run gets near: 584 years of simulated time.
        debug_assert!(entry.key >> 64 < u64::MAX as u128, "event {entry:?} scheduled at the end of time");
        let inserted =
            self.packets_later == 0 && entry.ev.kind() == Packed::TRANSMIT_DONE && self.transmissions.insert(entry);
        if !inserted {
            self.push_later(entry);
        }
    }

    /// Puts the head of delay line `line` in its store.
    #[inline(always)]
    fn insert_head(&mut self, at: Instant, seq: u64, line: u32) {
        let entry = Entry { key: key(at, seq), ev: Packed::head(line) };
        if self.packets_later > 0 || !self.heads.insert(entry) {
            self.push_later(entry);
        }
    }

    #[cold]
    #[inline(never)]
    fn popped_out_of_order(&mut self, at: Instant, fired: Fired) {
        let detail = format!("event {fired:?} due at {at:?} came out after time {:?}", self.now);
        self.went_back.get_or_insert_with(|| Violation::new("time order", None, self.now, detail));
    }

    fn push_later(&mut self, entry: Entry) {
        self.packets_later += entry.ev.is_packet_event() as usize;
        self.later.push(entry);
        self.later_min = self.later_min.min(entry.key);
    }

    fn pop_later(&mut self) -> Packed {
        let entry = self.later.pop().expect("the heap holds the smaller key");
        self.packets_later -= entry.ev.is_packet_event() as usize;
        self.later_min = self.later.peek().map_or(u128::MAX, |e| e.key);
        entry.ev
    }
}

/// Up to [`SortedArray::CAPACITY`] entries sorted by decreasing key, so that removing the
/// minimum is a pop, and inserting a new entry a walk from the minimum past the entries due
/// before it: few in a dumbbell, where most transmission ends scheduled are an access link's,
/// due before the bottleneck's pending one. The entries are `slots[1..=len]`, above a sentinel in `slots[0]` with the greatest
/// key: an empty array shows the sentinel as its minimum, and an insertion's walk stops at it.
/// The slot count is a power of two, so an index taken modulo it needs no bounds check.
struct SortedArray {
    slots: Box<[Entry; SortedArray::SLOTS]>,
    len: usize,
}

impl Default for SortedArray {
    fn default() -> Self {
        let sentinel = Entry { key: u128::MAX, ev: Packed(0) };
        SortedArray { slots: Box::new([sentinel; Self::SLOTS]), len: 0 }
    }
}

impl SortedArray {
    const SLOTS: usize = 64;
    const CAPACITY: usize = Self::SLOTS - 1;

    fn slot(i: usize) -> usize {
        i % Self::SLOTS
    }

    /// The entry with the smallest key, or the sentinel (key u128::MAX) when there is none.
    #[inline]
    fn min(&self) -> Entry {
        self.slots[Self::slot(self.len)]
    }

    /// Removes the entry `min` returned; the array must hold one.
    #[inline]
    fn pop(&mut self) {
        debug_assert!(self.len > 0);
        self.len -= 1;
    }

    /// Inserts `entry`, or returns false when the array is full.
    #[inline(always)]
    fn insert(&mut self, entry: Entry) -> bool {
        if self.len == Self::CAPACITY {
            return false;
        }
        self.len += 1;
        let mut i = self.len;
        while self.slots[Self::slot(i - 1)].key < entry.key {
            self.slots[Self::slot(i)] = self.slots[Self::slot(i - 1)];
            i -= 1;
        }
        self.slots[Self::slot(i)] = entry;
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rand::Rng;

    use super::*;

    fn queue(delays_ns: &[u64]) -> EventQueue {
        EventQueue::new(delays_ns.iter().map(|&d| Duration::from_nanos(d)))
    }

    fn drain(q: &mut EventQueue) -> Vec<(Instant, Fired)> {
        std::iter::from_fn(|| q.pop_until(None)).collect()
    }

    #[test]
    fn events_come_back_from_their_packed_word() {
        let events = [
            Event::TransmitDone { link: u32::MAX },
            Event::FlowStart { flow: 123_456 },
            Event::Timer { flow: 9, timer: TimerKind::Retransmit },
            Event::Timer { flow: u32::MAX, timer: TimerKind::DelayedAck },
            Event::Timer { flow: 0, timer: TimerKind::Pacing },
            Event::UdpSend { source: 3 },
            Event::AckRelease { link: (1 << 29) - 1, flow: u32::MAX },
        ];
        for ev in events {
            assert_eq!(Packed::new(ev).unpack(), Unpacked::Event(ev));
        }
        assert_eq!(Packed::head(u32::MAX).unpack(), Unpacked::Head(u32::MAX));
    }

    #[test]
    fn pops_in_time_order_and_fifo_among_ties() {
        let mut q = queue(&[]);
        q.schedule(Instant(20), Event::FlowStart { flow: 0 });
        q.schedule(Instant(10), Event::FlowStart { flow: 1 });
        q.schedule(Instant(10), Event::FlowStart { flow: 2 });
        let flow = |flow| Fired::Event(Event::FlowStart { flow });
        assert_eq!(drain(&mut q), vec![(Instant(10), flow(1)), (Instant(10), flow(2)), (Instant(20), flow(0))]);
        assert_eq!(q.now(), Instant(20));
    }

    #[test]
    fn events_after_the_limit_stay_in_the_queue() {
        let mut q = queue(&[5]);
        q.schedule(Instant(20), Event::TransmitDone { link: 0 });
        q.schedule(Instant(10), Event::Timer { flow: 0, timer: TimerKind::Retransmit });
        q.propagate(0, Instant(10), 7);
        let limit = Some(Instant(15));
        assert_eq!(q.pop_until(limit).map(|(t, _)| t), Some(Instant(10)));
        assert_eq!(q.pop_until(limit), Some((Instant(15), Fired::Arrival { slot: 7 })), "an event at the limit is due");
        assert_eq!(q.pop_until(limit), None);
        assert_eq!(q.now(), Instant(15));
        assert_eq!(q.pop_until(None), Some((Instant(20), Fired::Event(Event::TransmitDone { link: 0 }))));
    }

    #[test]
    fn a_propagating_packet_keeps_its_place_among_ties_from_its_entry() {
        // Links 0 and 1 share a 10 ns line; link 2 has one of 5 ns.
        let mut q = queue(&[10, 10, 5]);
        q.propagate(0, Instant(0), 1);
        q.schedule(Instant(10), Event::FlowStart { flow: 0 });
        q.propagate(1, Instant(0), 2);
        q.propagate(2, Instant(5), 3);
        let arrival = |slot| Fired::Arrival { slot };
        assert_eq!(
            drain(&mut q),
            vec![
                (Instant(10), arrival(1)),
                (Instant(10), Fired::Event(Event::FlowStart { flow: 0 })),
                (Instant(10), arrival(2)),
                (Instant(10), arrival(3)),
            ]
        );
    }

    #[test]
    fn an_event_scheduled_after_a_pop_takes_the_popped_place_in_order() {
        let mut q = queue(&[]);
        for (t, flow) in [(30, 0), (10, 1), (50, 2), (20, 3), (40, 4)] {
            q.schedule(Instant(t), Event::FlowStart { flow });
        }
        let mut order = Vec::new();
        // Each pop is followed by a schedule (the common case), except the last two.
        for (t, flow) in [(25, 5), (25, 6), (60, 7)] {
            order.push(q.pop_until(None).unwrap());
            q.schedule(Instant(t), Event::FlowStart { flow });
        }
        order.extend(drain(&mut q));
        let flows: Vec<u32> = order
            .iter()
            .map(|(_, ev)| match ev {
                Fired::Event(Event::FlowStart { flow }) => *flow,
                _ => unreachable!(),
            })
            .collect();
        // By hand: pop 1 (t10), add 5 (t25); pop 3 (t20), add 6 (t25, after 5 among the ties);
        // pop 5, add 7 (t60); then 6, 0 (t30), 4 (t40), 2 (t50), 7.
        assert_eq!(flows, vec![1, 3, 5, 6, 0, 4, 2, 7]);
    }

    /// Bursts of this many events fill the array.
    const CAPACITY_BURST: u32 = 2 * SortedArray::CAPACITY as u32;

    /// Random transmission ends, timers and propagating packets on `links` links of `delays`
    /// distinct delays, against a sorted map of (time, place). Bursts of `burst` events at most
    /// between pops drive the packet events past the array's capacity and back.
    fn against_a_sorted_map(seed: u128, links: u32, delays: u64, burst: u32) {
        let mut rng = rand_pcg::Pcg64Mcg::new(seed);
        let mut q = EventQueue::new((0..links as u64).map(|l| Duration::from_nanos(1_000 * (1 + l % delays))));
        let mut model = BTreeMap::new();
        let mut seq = 0u64;
        let (mut in_heap_seen, mut pops) = (false, 0);
        for i in 0..20_000u32 {
            for _ in 0..rng.gen_range(0..=burst) {
                let at = Instant(q.now().0 + rng.gen_range(0..4) * 1_000);
                let fired = match rng.gen_range(0..4) {
                    0 => {
                        let link = rng.gen_range(0..links);
                        q.propagate(link, q.now(), i);
                        let arrives = Instant(q.now().0 + 1_000 * (1 + link as u64 % delays));
                        model.insert((arrives, seq), Fired::Arrival { slot: i });
                        seq += 1;
                        continue;
                    }
                    1 => Event::TransmitDone { link: i },
                    2 => Event::Timer { flow: i, timer: TimerKind::Pacing },
                    _ => Event::AckRelease { link: i % 100, flow: i },
                };
                q.schedule(at, fired);
                model.insert((at, seq), Fired::Event(fired));
                seq += 1;
            }
            in_heap_seen |= q.packets_later > 0;
            for _ in 0..rng.gen_range(0..=burst) {
                let Some(got) = q.pop_until(None) else { break };
                let ((at, _), fired) = model.pop_first().expect("as many events as scheduled");
                assert_eq!(got, (at, fired), "pop {pops}");
                pops += 1;
            }
        }
        for got in drain(&mut q) {
            let ((at, _), fired) = model.pop_first().expect("as many events as scheduled");
            assert_eq!(got, (at, fired));
        }
        assert!(model.is_empty() && q.take_violation().is_none());
        assert!(in_heap_seen || burst < CAPACITY_BURST, "the packet events never went to the heap");
    }

    #[test]
    fn few_packet_events_keep_the_order_of_one_queue() {
        against_a_sorted_map(11, 6, 2, 3);
    }

    #[test]
    fn many_packet_events_keep_the_order_of_one_queue() {
        against_a_sorted_map(5, 300, 7, 2 * CAPACITY_BURST);
    }

    #[test]
    fn scheduling_in_the_past_is_a_violation() {
        let mut q = queue(&[]);
        q.schedule(Instant(10), Event::FlowStart { flow: 0 });
        q.pop_until(None);
        assert_eq!(q.take_violation(), None);
        q.schedule(Instant(5), Event::FlowStart { flow: 1 });
        // The event is the earliest pending: it leaves next, before now.
        assert_eq!(q.pop_until(None), Some((Instant(5), Fired::Event(Event::FlowStart { flow: 1 }))));
        let v = q.take_violation().expect("the time went back");
        assert_eq!((v.invariant, v.flow, v.at), ("time order", None, Instant(10)));
        assert_eq!(v.detail, "event Event(FlowStart { flow: 1 }) due at Instant(5) came out after time Instant(10)");
    }

    #[test]
    #[should_panic(expected = "end of time")]
    fn the_time_an_empty_queue_stands_for_is_refused() {
        // `pop_until` reads u64::MAX as "nothing pending", so no event may be due then.
        queue(&[]).schedule(Instant(u64::MAX), Event::FlowStart { flow: 0 });
    }

    #[test]
    fn the_last_possible_time_is_popped() {
        let mut q = queue(&[]);
        q.schedule(Instant(u64::MAX - 1), Event::FlowStart { flow: 0 });
        assert_eq!(q.pop_until(None), Some((Instant(u64::MAX - 1), Fired::Event(Event::FlowStart { flow: 0 }))));
        assert_eq!(q.pop_until(None), None);
    }
}
