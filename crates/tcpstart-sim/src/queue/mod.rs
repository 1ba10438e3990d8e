//! Queue disciplines in front of a link. Drop-tail is the only one so far; RED and CoDel plug in
//! behind the same trait.

mod droptail;

pub use droptail::DropTail;

/// A packet waiting in a queue: its pool slot and wire size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub slot: u32,
    pub bytes: u32,
}

pub trait QueueDiscipline: Send {
    /// Offers a packet; returns false if it was dropped instead.
    fn enqueue(&mut self, pkt: Queued) -> bool;
    fn dequeue(&mut self) -> Option<Queued>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
}
