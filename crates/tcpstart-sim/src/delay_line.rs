//! Propagation: the packets on their way along links, in delay lines shared by all links of
//! the same propagation delay.
//!
//! A packet enters a link's propagation when its transmission ends, in event order, and arrives
//! a fixed delay later. For links of equal delay, entering in event order therefore means
//! arriving in event order: each arrival's time is its entry time plus the same delay, and its
//! place among same-time events (its sequence number, reserved on entry) grows with the entry.
//! One FIFO per distinct delay thus holds its packets already sorted, and only its head needs an
//! entry in the event queue ([`crate::event::EventQueue`], the only user of this module). A
//! dumbbell has two or three distinct delays against dozens of links, so the queue holds a few
//! arrival heads instead of one per packet in flight.
//!
//! A link whose delay changes over time (a [schedule](crate::link_schedule)) has a line of its
//! own, on which a packet arrives at its entry time plus the delay in force then, but never
//! before the packet ahead of it: a drop in delay does not reorder the line.

use core::time::Duration;
use std::collections::VecDeque;

use std::sync::Arc;

use tcpstart_cc::Instant;

use crate::link_schedule::Schedule;

/// A packet propagating: when and in which place among same-time events it arrives, and its
/// pool slot (the packet knows its path and hop, hence the link it is crossing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    pub at: Instant,
    pub seq: u64,
    pub slot: u32,
}

/// The delay lines of a network and which one each link uses.
#[derive(Debug, Default)]
pub struct DelayLines {
    lines: Vec<Line>,
    /// By link index.
    line_of: Vec<u32>,
}

/// The packets propagating with one delay, in nanoseconds: the packet path adds it to the time,
/// where a `Duration` (seconds and nanoseconds) is converted at every addition.
#[derive(Clone, Debug)]
struct Line {
    delay: u64,
    /// The delay's schedule, for a link whose delay changes (then the line is its alone).
    varying: Option<Arc<Schedule>>,
    packets: VecDeque<InFlight>,
}

impl DelayLines {
    /// One line per distinct delay among `delays` (by link index).
    pub fn new(delays: impl IntoIterator<Item = Duration>) -> Self {
        let mut distinct: Vec<Duration> = Vec::new();
        let line_of = delays
            .into_iter()
            .map(|d| {
                let line = distinct.iter().position(|&x| x == d).unwrap_or_else(|| {
                    distinct.push(d);
                    distinct.len() - 1
                });
                line as u32
            })
            .collect();
        let lines = distinct
            .iter()
            .map(|d| Line { delay: d.as_nanos() as u64, varying: None, packets: VecDeque::new() })
            .collect();
        DelayLines { lines, line_of }
    }

    /// Gives `link` a line of its own whose delay follows `schedule`.
    pub fn vary(&mut self, link: u32, schedule: Arc<Schedule>) {
        self.line_of[link as usize] = self.lines.len() as u32;
        self.lines.push(Line { delay: schedule.base.delay_ns, varying: Some(schedule), packets: VecDeque::new() });
    }

    /// The line the packets of `link` propagate on.
    pub fn line_of(&self, link: u32) -> u32 {
        self.line_of[link as usize]
    }

    /// Starts the propagation on `line` of the packet in pool slot `slot` at `now`, arriving in
    /// place `seq` among same-time events. Returns its arrival when it is the only packet on the
    /// line, so that its arrival must be put on the event queue.
    pub fn push(&mut self, line: u32, now: Instant, seq: u64, slot: u32) -> Option<InFlight> {
        let line = &mut self.lines[line as usize];
        let at = match &line.varying {
            None => now.0 + line.delay,
            Some(s) => (now.0 + s.delay_at(now.0)).max(line.packets.back().map_or(0, |b| b.at.0)),
        };
        let p = InFlight { at: Instant(at), seq, slot };
        let q = &mut line.packets;
        debug_assert!(q.back().is_none_or(|b| (b.at, b.seq) < (p.at, p.seq)), "a line's arrivals are in event order");
        q.push_back(p);
        (q.len() == 1).then_some(p)
    }

    /// The packet at the head of `line` has arrived: returns it, and the next one, whose arrival
    /// then goes on the event queue.
    pub fn pop(&mut self, line: u32) -> (InFlight, Option<InFlight>) {
        let q = &mut self.lines[line as usize].packets;
        let p = q.pop_front().expect("an arrival was scheduled");
        (p, q.front().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_of_equal_delay_share_a_line() {
        let ms = Duration::from_millis;
        let lines = DelayLines::new([ms(20), ms(1), ms(1), ms(20), ms(5)]);
        assert_eq!((0..5).map(|l| lines.line_of(l)).collect::<Vec<_>>(), vec![0, 1, 1, 0, 2]);
    }

    #[test]
    fn a_shared_line_releases_packets_of_several_links_in_arrival_order() {
        let mut lines = DelayLines::new([Duration::from_millis(1); 2]);
        let p = |at, seq| InFlight { at: Instant(at), seq, slot: seq as u32 };
        // Entered in event order from two links (slots 1 and 3 from one, 2 from the other), to
        // arrive 1 ms later: only the first needs a heap entry.
        assert_eq!(lines.push(0, Instant(10), 1, 1), Some(p(1_000_010, 1)));
        assert_eq!(lines.push(0, Instant(10), 2, 2), None);
        assert_eq!(lines.push(0, Instant(12), 3, 3), None);
        assert_eq!(lines.pop(0), (p(1_000_010, 1), Some(p(1_000_010, 2))));
        assert_eq!(lines.pop(0), (p(1_000_010, 2), Some(p(1_000_012, 3))));
        assert_eq!(lines.pop(0), (p(1_000_012, 3), None));
    }

    #[test]
    fn a_varying_line_follows_its_schedule_without_reordering() {
        use crate::link_schedule::{Change, Level};
        let ms = 1_000_000;
        let level = |d| Level { rate_bps: 1e6, delay_ns: d * ms };
        let schedule =
            Schedule { base: level(30), changes: vec![Change { at_ns: 100 * ms, level: level(10) }], period_ns: None };
        let mut lines = DelayLines::new([Duration::from_millis(30); 2]);
        lines.vary(1, Arc::new(schedule));
        assert_eq!((lines.line_of(0), lines.line_of(1)), (0, 1));
        let p = |at, seq| InFlight { at: Instant(at), seq, slot: seq as u32 };
        // Before the change: 30 ms. After it, 10 ms, but not ahead of the packet sent at 90 ms
        // (due at 120 ms); a later one gets the new delay.
        assert_eq!(lines.push(1, Instant(90 * ms), 1, 1), Some(p(120 * ms, 1)));
        assert_eq!(lines.push(1, Instant(105 * ms), 2, 2), None);
        assert_eq!(lines.push(1, Instant(115 * ms), 3, 3), None);
        assert_eq!(lines.pop(1), (p(120 * ms, 1), Some(p(120 * ms, 2))));
        assert_eq!(lines.pop(1), (p(120 * ms, 2), Some(p(125 * ms, 3))));
        // The other link keeps the fixed line.
        assert_eq!(lines.push(0, Instant(105 * ms), 4, 4), Some(p(135 * ms, 4)));
    }
}
