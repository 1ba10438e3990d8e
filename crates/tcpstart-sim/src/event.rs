//! The event queue, ordered by (time, insertion sequence), so events at the same instant run in
//! the order they were scheduled and every run is deterministic.
//!
//! It stays small: packets in propagation wait in a FIFO per distinct link delay (see
//! [`crate::delay_line`]), with only each FIFO's head in the queue, so its size grows with the
//! number of busy transmitters and flows rather than with the packets in flight.

use std::collections::BinaryHeap;

use tcpstart_cc::Instant;

use crate::invariant::Violation;

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

    /// `event` for an entry of the packet array: nearly all are transmission ends now that the
    /// delay lines' heads are mostly kept apart, so that kind is tested first, and the dispatch
    /// can branch on it directly instead of through the jump table.
    #[inline(always)]
    fn packet_event(self) -> Event {
        if self.0 >> 61 == 0 {
            Event::TransmitDone { link: self.0 as u32 }
        } else {
            self.event()
        }
    }

    #[inline]
    fn event(self) -> Event {
        let first = self.0 as u32;
        // Computed only by the kinds that have it: the packet events, nearly all, do not.
        let second = || (self.0 >> 32) as u32 & ((1 << 29) - 1);
        match self.0 >> 61 {
            0 => Event::TransmitDone { link: first },
            1 => Event::Arrive { line: first },
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
        }
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

/// The event queue: two queues over one order. Packet events (transmissions ending, arrivals) are
/// almost every event but only a third of the entries: the other two thirds are the connections'
/// timers, which rarely fire (every ACK re-arms the retransmission timer without a new entry) and,
/// being far in the future, sat at the bottom of a shared heap, where every removal of the minimum
/// took one of them from the last place to the root and sank it back through every level. The
/// packet events have a `PacketArray` of their own, the rest a heap; both share the sequence
/// numbers and the smaller of their two minima is taken, so entries leave in exactly the order of
/// a single queue. When many packet events are pending (hundreds of busy links), they go to a heap
/// of their own beside the other one, until few are left again. The heads of the first delay lines
/// are kept apart from all of these (`Heads`).
pub struct EventQueue {
    packets: PacketArray,
    heads: Heads,
    /// The packet events while many are pending; empty otherwise.
    many: BinaryHeap<Entry>,
    others: BinaryHeap<Entry>,
    /// The smallest key of the two heaps (u128::MAX when both are empty), kept at hand: every pop
    /// compares it, and it changes only when a timer is scheduled or fires, or while the packet
    /// events are in their heap.
    heaps_min: u128,
    /// The smaller of `heaps_min` and the delay lines' first head: the pop compares the packet
    /// array's minimum with it alone, and only an event from outside the array tells the two apart.
    apart_min: u128,
    next_seq: u64,
    now: Instant,
    popped: u64,
    /// The first event scheduled before now or popped out of time order (a simulator bug).
    went_back: Option<Box<Violation>>,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            packets: PacketArray::default(),
            heads: Heads::default(),
            many: BinaryHeap::new(),
            others: BinaryHeap::new(),
            heaps_min: u128::MAX,
            apart_min: u128::MAX,
            next_seq: 0,
            now: Instant::ZERO,
            popped: 0,
            went_back: None,
        }
    }
}

impl EventQueue {
    /// Packet events go back from their heap to the array when this few are left; they go to
    /// the heap when more than the array's capacity are pending.
    const FEW: usize = 16;

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

    /// Schedules `ev` at `at`; times in the past are a simulator bug (see `pop_until`).
    #[inline]
    pub fn schedule(&mut self, at: Instant, ev: Event) {
        let seq = self.reserve();
        self.schedule_reserved(at, seq, ev);
    }

    /// Takes the next place in the order of same-time events, for an event that is put on the
    /// heap later: the packets propagating wait in a FIFO of their delay line and only its head
    /// is on the heap, yet every packet keeps the place it would have had on the heap itself.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedules `ev` at `at` in the place `seq` taken earlier with [`EventQueue::reserve`]. A
    /// time in the past, a simulator bug, is not checked here but where it shows, in `pop_until`:
    /// such an event is the earliest pending, so it is the next to leave, before now. (Checked
    /// here, at each of the several schedules an event, it cost more: B1 3 s +0.9 %.)
    #[inline(always)]
    pub fn schedule_reserved(&mut self, at: Instant, seq: u64, ev: Event) {
        // No run gets near: 584 years of simulated time.
        debug_assert!(at.0 < u64::MAX, "event {ev:?} scheduled at the end of time");
        let entry = Entry { key: (at.0 as u128) << 64 | seq as u128, ev: Packed::new(ev) };
        match ev {
            Event::Arrive { line } if (line as usize) < Heads::LINES => {
                self.heads.set(line, entry.key);
                self.apart_min = self.apart_min.min(entry.key);
            }
            Event::TransmitDone { .. } | Event::Arrive { .. } => {
                if !self.many.is_empty() || !self.packets.insert(entry) {
                    self.push_many(entry);
                }
            }
            _ => {
                self.others.push(entry);
                self.heaps_min = self.heaps_min.min(entry.key);
                self.apart_min = self.apart_min.min(entry.key);
            }
        }
    }

    /// Removes and returns the next event, if there is one at or before `until`. An
    /// [`Event::Arrive`] must be followed by [`EventQueue::next_arrival`] for its line before the
    /// next pop.
    #[inline]
    pub fn pop_until(&mut self, until: Option<Instant>) -> Option<(Instant, Event)> {
        // The array's sentinel when it holds nothing: no test for an empty array.
        let first = self.packets.min();
        let key = first.key.min(self.apart_min);
        let at = Instant((key >> 64) as u64);
        // An empty queue gives the time u64::MAX, beyond any limit: no event is scheduled that
        // late (584 years; `schedule_reserved` checks it in debug builds), so one comparison
        // covers both.
        if at > until.unwrap_or(Instant(u64::MAX - 1)) {
            return None;
        }
        let ev = if first.key < self.apart_min {
            self.packets.pop();
            first.ev.packet_event()
        } else if self.heads.min < self.heaps_min {
            // The head stays until `next_arrival` replaces it, which the caller does first.
            Event::Arrive { line: self.heads.line }
        } else {
            self.pop_heaps().event()
        };
        // Checked in every build, one comparison an event: it catches an event scheduled in the
        // past and any disorder of the array, the heads and the heaps together, the queue's most
        // intricate part. The event is handled all the same; the run stops at its next watch
        // point (`take_violation`).
        if at < self.now {
            self.popped_out_of_order(at, ev);
        }
        self.now = at;
        self.popped += 1;
        Some((at, ev))
    }

    /// After the arrival of the head of delay `line`: schedules the line's next head, `next`
    /// (its arrival time and reserved place), if it has one. For the lines whose heads are kept
    /// apart (`Heads`) this also removes the head that arrived, so it must follow that
    /// arrival's pop before the next pop.
    #[inline(always)]
    pub fn next_arrival(&mut self, line: u32, next: Option<(Instant, u64)>) {
        if (line as usize) < Heads::LINES {
            let key = next.map_or(u128::MAX, |(at, seq)| (at.0 as u128) << 64 | seq as u128);
            self.heads.replace(line, key);
            self.apart_min = self.heads.min.min(self.heaps_min);
        } else if let Some((at, seq)) = next {
            self.schedule_reserved(at, seq, Event::Arrive { line });
        }
    }

    /// Out of line: with the message's arguments formatted inline, every pop stored the event
    /// on the stack before the test.
    #[cold]
    #[inline(never)]
    fn popped_out_of_order(&mut self, at: Instant, ev: Event) {
        let detail = format!("event {ev:?} due at {at:?} came out after time {:?}", self.now);
        self.went_back.get_or_insert_with(|| Violation::new("time order", None, self.now, detail));
    }

    /// The packet array is full: its entries and all later packet events go to their heap.
    #[cold]
    #[inline(never)]
    fn push_many(&mut self, entry: Entry) {
        if self.many.is_empty() {
            self.many.extend(self.packets.drain());
        }
        self.many.push(entry);
        self.heaps_min = self.heaps_min.min(self.many.peek().map_or(u128::MAX, |e| e.key));
        self.apart_min = self.heads.min.min(self.heaps_min);
    }

    /// Pops the smaller of the two heaps' minima.
    #[inline(never)]
    fn pop_heaps(&mut self) -> Packed {
        let key = |heap: &BinaryHeap<Entry>| heap.peek().map_or(u128::MAX, |e| e.key);
        let entry = if key(&self.many) < key(&self.others) {
            let entry = self.many.pop();
            if self.many.len() <= Self::FEW {
                // Ascending in the heap's order is decreasing in key (see `Entry`'s `Ord`).
                self.packets.fill(std::mem::take(&mut self.many).into_sorted_vec());
            }
            entry
        } else {
            self.others.pop()
        };
        self.heaps_min = key(&self.many).min(key(&self.others));
        self.apart_min = self.heads.min.min(self.heaps_min);
        entry.expect("a heap holds the smaller key").ev
    }
}

/// The arrivals at the heads of the first [`Heads::LINES`] delay lines, kept apart from the
/// packet array and compared in the pop instead (the pop takes the least of the array's minimum,
/// the heaps' and these heads'; keys are unique, so the order is that of one queue). A line's head
/// is usually due after every transmission end pending (a propagation delay against a
/// serialisation time), so inserted in the array it walked past all of them; here it costs a
/// comparison with the other lines' heads when the line's next head replaces it. A line has at
/// most one head pending. Each line kept apart costs every arrival of these lines a comparison,
/// so only two are: a dumbbell's delays (bottleneck and access links; B1-B4 have two). The heads
/// of further lines (topologies with many distinct delays) go in the packet array as before.
struct Heads {
    /// By line; u128::MAX when the line has no head pending.
    keys: [u128; Heads::LINES],
    /// The smallest of `keys`, and its line.
    min: u128,
    line: u32,
}

impl Default for Heads {
    fn default() -> Self {
        Heads { keys: [u128::MAX; Self::LINES], min: u128::MAX, line: 0 }
    }
}

impl Heads {
    const LINES: usize = 2;

    /// Schedules the head of `line`, which has none pending, at `key`.
    #[inline]
    fn set(&mut self, line: u32, key: u128) {
        debug_assert!(self.keys[line as usize] == u128::MAX, "line {line} has a head pending");
        self.keys[line as usize] = key;
        if key < self.min {
            self.min = key;
            self.line = line;
        }
    }

    /// Replaces the head of `line` (the earliest, just popped) with `key` (u128::MAX for none).
    #[inline(always)]
    fn replace(&mut self, line: u32, key: u128) {
        debug_assert!(line == self.line && self.keys[line as usize] == self.min, "line {line} was not popped");
        self.keys[line as usize] = key;
        // Kept in locals: written through `self` at every step the loop stored at each one.
        let (mut min, mut at) = (self.keys[0], 0);
        for (i, &key) in self.keys.iter().enumerate().skip(1) {
            if key < min {
                (min, at) = (key, i as u32);
            }
        }
        (self.min, self.line) = (min, at);
    }
}

/// The pending packet events while few are pending, a transmission end per busy link and a head
/// per delay line: a handful in a dumbbell (3-5 in B1), kept sorted by decreasing key, so that
/// removing the minimum is a pop and inserting one a short walk from the end. A binary heap of so
/// few entries spent a fifth of B1's instructions sifting.
///
/// The entries are `slots[1..=len]`, above a sentinel in `slots[0]` with the greatest key: an
/// empty array shows the sentinel as its minimum, and an insertion's walk stops at it, so neither
/// tests for the array's ends. The slot count is a power of two, so an index taken modulo it is
/// in bounds by construction (no bounds checks either).
struct PacketArray {
    slots: Box<[Entry; PacketArray::SLOTS]>,
    len: usize,
}

impl Default for PacketArray {
    fn default() -> Self {
        let sentinel = Entry { key: u128::MAX, ev: Packed(0) };
        PacketArray { slots: Box::new([sentinel; Self::SLOTS]), len: 0 }
    }
}

impl PacketArray {
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
    #[inline]
    fn insert(&mut self, entry: Entry) -> bool {
        if self.len == Self::CAPACITY {
            return false;
        }
        self.len += 1;
        // New events are mostly the next ones due (a transmission ending), near the end: the
        // entries due before it move up one by one (a call to `memmove` cost more).
        let mut i = self.len;
        while self.slots[Self::slot(i - 1)].key < entry.key {
            self.slots[Self::slot(i)] = self.slots[Self::slot(i - 1)];
            i -= 1;
        }
        self.slots[Self::slot(i)] = entry;
        true
    }

    /// Takes out every entry.
    fn drain(&mut self) -> impl Iterator<Item = Entry> + '_ {
        let len = std::mem::take(&mut self.len);
        self.slots[1..=len].iter().copied()
    }

    /// Puts `entries`, sorted by decreasing key, in the empty array.
    fn fill(&mut self, entries: Vec<Entry>) {
        debug_assert!(self.len == 0 && entries.len() <= Self::CAPACITY);
        self.slots[1..=entries.len()].copy_from_slice(&entries);
        self.len = entries.len();
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
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(None)).collect();
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
    fn events_after_the_limit_stay_in_the_queue() {
        let mut q = EventQueue::default();
        q.schedule(Instant(20), Event::TransmitDone { link: 0 });
        q.schedule(Instant(10), Event::Timer { flow: 0, timer: TimerKind::Retransmit });
        q.schedule(Instant(15), Event::Arrive { line: 0 });
        let limit = Some(Instant(15));
        assert_eq!(q.pop_until(limit).map(|(t, _)| t), Some(Instant(10)));
        assert_eq!(q.pop_until(limit).map(|(t, _)| t), Some(Instant(15)), "an event at the limit is due");
        q.next_arrival(0, None);
        assert_eq!(q.pop_until(limit), None);
        assert_eq!(q.now(), Instant(15));
        assert_eq!(q.pop_until(None), Some((Instant(20), Event::TransmitDone { link: 0 })));
    }

    #[test]
    fn reserved_places_keep_their_order_among_ties() {
        let mut q = EventQueue::default();
        let early = q.reserve();
        q.schedule(Instant(10), Event::FlowStart { flow: 1 });
        q.schedule_reserved(Instant(10), early, Event::FlowStart { flow: 0 });
        assert_eq!(q.pop_until(None), Some((Instant(10), Event::FlowStart { flow: 0 })));
        assert_eq!(q.pop_until(None), Some((Instant(10), Event::FlowStart { flow: 1 })));
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
            order.push(q.pop_until(None).unwrap());
            q.schedule(Instant(t), Event::FlowStart { flow });
        }
        order.extend(std::iter::from_fn(|| q.pop_until(None)));
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
    fn the_packet_events_keep_their_order_across_their_array_and_heap() {
        use rand::Rng;
        // Grows past the array's capacity (into the heap), shrinks but not to `FEW` (still the heap), grows,
        // shrinks to `FEW` (back to the array), grows again; a timer now and then beside them.
        let mut rng = rand_pcg::Pcg64Mcg::new(9);
        let mut q = EventQueue::default();
        let mut model = std::collections::BTreeMap::new();
        // Which of the two holds the packet events: the heap from the array's capacity + 1 on,
        // until `FEW` are left.
        let (mut in_heap, mut packets) = (false, 0);
        for (pushes, pops) in [(100, 0), (0, 60), (30, 0), (0, 60), (80, 0), (0, 90)] {
            for i in 0..pushes {
                let at = Instant(q.now().0 + rng.gen_range(0..1 << 20));
                let ev = if i % 7 == 3 { Event::FlowStart { flow: i } } else { Event::TransmitDone { link: i } };
                let seq = q.reserve();
                q.schedule_reserved(at, seq, ev);
                model.insert((at, seq), ev);
                packets += matches!(ev, Event::TransmitDone { .. }) as usize;
                in_heap |= packets > PacketArray::CAPACITY;
                assert_eq!(!q.many.is_empty(), in_heap, "{packets} pending");
            }
            for _ in 0..pops {
                let ((at, _), ev) = model.pop_first().unwrap();
                assert_eq!(q.pop_until(None), Some((at, ev)));
                packets -= matches!(ev, Event::TransmitDone { .. }) as usize;
                in_heap &= packets > EventQueue::FEW;
                assert_eq!(!q.many.is_empty(), in_heap, "{packets} pending");
            }
        }
        assert!(q.pop_until(None).is_none() && model.is_empty());
    }

    #[test]
    fn delay_line_heads_kept_apart_or_not_keep_the_order_of_one_queue() {
        use rand::Rng;
        // Lines below `Heads::LINES` have their heads apart, the others in the packet array; each
        // line has at most one head pending (as a delay line), many events share an instant, and
        // some go in places reserved earlier. Against a sorted map of (time, place).
        let mut rng = rand_pcg::Pcg64Mcg::new(11);
        let mut q = EventQueue::default();
        let mut pending = std::collections::BTreeMap::new();
        let lines = 2 * Heads::LINES as u32;
        let mut busy = vec![false; lines as usize];
        for i in 0..20_000u32 {
            let at = Instant(q.now().0 + rng.gen_range(0..4) * 1_000);
            let line = rng.gen_range(0..lines);
            let ev = match rng.gen_range(0..4) {
                0 | 1 if !busy[line as usize] => Event::Arrive { line },
                0 | 1 => continue,
                2 => Event::TransmitDone { link: i },
                _ => Event::Timer { flow: i, timer: TimerKind::Pacing },
            };
            if let Event::Arrive { line } = ev {
                busy[line as usize] = true;
            }
            let seq = q.reserve();
            q.schedule_reserved(at, seq, ev);
            pending.insert((at, seq), ev);
            while rng.gen_bool(0.5) {
                let Some(got) = q.pop_until(None) else { break };
                let (key, ev) = pending.pop_first().expect("as many events as scheduled");
                assert_eq!(got, (key.0, ev), "event {i}");
                if let Event::Arrive { line } = ev {
                    // The line's next packet, or none: as `Simulation::arrive` does.
                    let next =
                        rng.gen_bool(0.5).then(|| (Instant(q.now().0 + rng.gen_range(0..4) * 1_000), q.reserve()));
                    q.next_arrival(line, next);
                    match next {
                        Some((at, seq)) => {
                            pending.insert((at, seq), ev);
                        }
                        None => busy[line as usize] = false,
                    }
                }
            }
        }
        while let Some(got) = q.pop_until(None) {
            let (key, ev) = pending.pop_first().expect("as many events as scheduled");
            assert_eq!(got, (key.0, ev));
            if let Event::Arrive { line } = ev {
                q.next_arrival(line, None);
            }
        }
        assert!(pending.is_empty());
    }

    #[test]
    fn scheduling_in_the_past_is_a_violation() {
        let mut q = EventQueue::default();
        q.schedule(Instant(10), Event::FlowStart { flow: 0 });
        q.pop_until(None);
        assert_eq!(q.take_violation(), None);
        q.schedule(Instant(5), Event::FlowStart { flow: 1 });
        // The event is the earliest pending: it leaves next, before now.
        assert_eq!(q.pop_until(None), Some((Instant(5), Event::FlowStart { flow: 1 })));
        let v = q.take_violation().expect("the time went back");
        assert_eq!((v.invariant, v.flow, v.at), ("time order", None, Instant(10)));
        assert_eq!(v.detail, "event FlowStart { flow: 1 } due at Instant(5) came out after time Instant(10)");
    }

    #[test]
    #[should_panic(expected = "end of time")]
    fn the_time_an_empty_queue_stands_for_is_refused() {
        // `pop_until` reads u64::MAX as "nothing pending", so no event may be due then.
        EventQueue::default().schedule(Instant(u64::MAX), Event::FlowStart { flow: 0 });
    }

    #[test]
    fn the_last_possible_time_is_popped() {
        let mut q = EventQueue::default();
        q.schedule(Instant(u64::MAX - 1), Event::FlowStart { flow: 0 });
        assert_eq!(q.pop_until(None), Some((Instant(u64::MAX - 1), Event::FlowStart { flow: 0 })));
        assert_eq!(q.pop_until(None), None);
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
                // Lines whose heads go in the packet array, which may hold several of one line.
                1 => Event::Arrive { line: Heads::LINES as u32 + i },
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
                while let Some(got) = q.pop_until(None) {
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
