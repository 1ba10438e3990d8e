//! Queue disciplines in front of a link: drop-tail, RED (Floyd and Jacobson 1993, as in ns-3's
//! `RedQueueDisc`) and CoDel (RFC 8289), each behind [`QueueDiscipline`]. They share the FIFO
//! storage and its limit ([`Fifo`]) and differ only in what they drop and when.

mod codel;
mod droptail;
mod red;

pub use codel::{CoDel, CodelParams};
pub use droptail::DropTail;
pub use red::{Red, RedParams};

use std::collections::VecDeque;

use tcpstart_cc::Instant;

use crate::scenario::Limit;

/// A packet waiting in a queue: its pool slot, wire size and the time it entered the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub slot: u32,
    pub bytes: u32,
    pub enqueued: Instant,
}

/// What a discipline did with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accepted,
    /// The buffer limit was reached (tail drop).
    Overflow,
    /// An AQM dropped it early, by probability (RED below its hard limit).
    Early,
    /// RED's average queue was above its hard limit (2 max_th when gentle, else max_th).
    Forced,
}

/// Why a queued packet was dropped; counted separately in the link statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    Overflow,
    Early,
    Forced,
}

impl Admission {
    pub fn drop_cause(self) -> Option<DropCause> {
        match self {
            Admission::Accepted => None,
            Admission::Overflow => Some(DropCause::Overflow),
            Admission::Early => Some(DropCause::Early),
            Admission::Forced => Some(DropCause::Forced),
        }
    }
}

pub trait QueueDiscipline: Send {
    /// Offers the packet in pool slot `slot`, `bytes` on the wire, arriving at `now`.
    fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> Admission;
    /// The next packet to transmit at `now`. Packets the discipline drops on the way out (CoDel)
    /// are appended to `dropped`; they count as early drops.
    fn dequeue(&mut self, now: Instant, dropped: &mut Vec<Queued>) -> Option<Queued>;
    /// The packets held.
    fn fifo(&self) -> &Fifo;

    /// Whether a packet offered to an empty queue in front of an idle transmitter needs no
    /// decision: it is accepted and dequeued at once, with no state left behind, so the link may
    /// put it on the transmitter without calling `enqueue` and `dequeue`. Only a plain FIFO says
    /// yes; an AQM must see every arrival.
    fn passes_idle_arrivals(&self) -> bool {
        false
    }

    fn len_packets(&self) -> usize {
        self.fifo().len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo().bytes()
    }
}

/// A link's discipline. Drop-tail, nearly every link of a run, is held as itself, so the packet
/// path calls it directly and inlined; the AQMs sit behind the trait.
pub enum Discipline {
    DropTail(DropTail),
    Other(Box<dyn QueueDiscipline>),
}

impl From<DropTail> for Discipline {
    fn from(q: DropTail) -> Self {
        Discipline::DropTail(q)
    }
}

impl From<Box<dyn QueueDiscipline>> for Discipline {
    fn from(q: Box<dyn QueueDiscipline>) -> Self {
        Discipline::Other(q)
    }
}

impl Discipline {
    fn get(&self) -> &dyn QueueDiscipline {
        match self {
            Discipline::DropTail(q) => q,
            Discipline::Other(q) => q.as_ref(),
        }
    }

    /// See [`QueueDiscipline::enqueue`].
    #[inline]
    pub fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> Admission {
        match self {
            Discipline::DropTail(q) => q.enqueue(now, slot, bytes),
            Discipline::Other(q) => q.enqueue(now, slot, bytes),
        }
    }

    /// See [`QueueDiscipline::dequeue`].
    #[inline]
    pub fn dequeue(&mut self, now: Instant, dropped: &mut Vec<Queued>) -> Option<Queued> {
        match self {
            Discipline::DropTail(q) => q.dequeue(now, dropped),
            Discipline::Other(q) => q.dequeue(now, dropped),
        }
    }

    pub fn passes_idle_arrivals(&self) -> bool {
        self.get().passes_idle_arrivals()
    }

    pub fn len_packets(&self) -> usize {
        self.get().len_packets()
    }

    pub fn len_bytes(&self) -> u64 {
        self.get().len_bytes()
    }
}

/// FIFO storage with a limit in packets or bytes. A packet always fits an empty queue, so a byte
/// limit smaller than one packet with options still lets traffic through one at a time.
#[derive(Debug)]
pub struct Fifo {
    limit: Limit,
    items: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    pub fn new(limit: Limit) -> Self {
        Fifo { limit, items: VecDeque::new(), bytes: 0 }
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Whether the limit leaves room for `pkt`.
    pub fn fits(&self, pkt: &Queued) -> bool {
        self.items.is_empty()
            || match self.limit {
                Limit::Packets(n) => (self.items.len() as u64) < n,
                Limit::Bytes(b) => self.bytes + pkt.bytes as u64 <= b,
            }
    }

    /// Appends `pkt` if it fits.
    pub fn push(&mut self, pkt: Queued) -> Admission {
        if !self.fits(&pkt) {
            return Admission::Overflow;
        }
        self.bytes += pkt.bytes as u64;
        self.items.push_back(pkt);
        Admission::Accepted
    }

    pub fn pop(&mut self) -> Option<Queued> {
        let pkt = self.items.pop_front()?;
        self.bytes -= pkt.bytes as u64;
        Some(pkt)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The occupancy in the limit's own unit: packets, or bytes.
    pub fn occupancy(&self) -> f64 {
        match self.limit {
            Limit::Packets(_) => self.items.len() as f64,
            Limit::Bytes(_) => self.bytes as f64,
        }
    }
}

#[cfg(test)]
pub(crate) fn pkt(slot: u32, bytes: u32, at_ns: u64) -> Queued {
    Queued { slot, bytes, enqueued: Instant(at_ns) }
}
