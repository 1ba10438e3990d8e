//! ACK compression at a router: an element in front of a link that holds the pure ACKs of each
//! flow for a set interval and then either releases them back-to-back or merges them.
//!
//! The first ACK of a flow that reaches an empty element opens a batch; every ACK of that flow
//! arriving before `interval` has passed joins it. When the interval ends:
//! - `release`: all the batch's ACKs enter the link's queue at once, so they leave it spaced by
//!   their serialisation time only (the compression that reverse-path queueing causes, made
//!   deterministic);
//! - `merge`: only the latest ACK (the highest cumulative acknowledgement, with the newest SACK
//!   blocks) goes on; the others are absorbed. This is the router of the Modified Swift Start
//!   paper (section on ACK compression: "Router that supports acknowledgment compression will
//!   send only one ACK if it receives two consecutive ACK messages of a connection within small
//!   interval"). Merged duplicate ACKs no longer count towards the sender's dupthresh.
//!
//! Data segments, SYNs and SYN-ACKs pass untouched.

use core::time::Duration;

use serde::Serialize;
use tcpstart_cc::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AckCompressionMode {
    Release,
    Merge,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AckCompressionSpec {
    pub mode: AckCompressionMode,
    pub interval: Duration,
}

#[derive(Clone, Debug, Default)]
pub struct AckCompressionStats {
    /// ACKs that entered the element.
    pub held: u64,
    /// ACKs absorbed by merging.
    pub merged: u64,
    /// Batches released.
    pub batches: u64,
}

pub struct AckCompressor {
    spec: AckCompressionSpec,
    /// Held ACK slots per flow, in arrival order; empty when no batch is open.
    batches: Vec<Vec<u32>>,
    holding: u64,
    pub stats: AckCompressionStats,
}

impl AckCompressor {
    pub fn new(spec: AckCompressionSpec) -> Self {
        AckCompressor { spec, batches: Vec::new(), holding: 0, stats: AckCompressionStats::default() }
    }

    pub fn spec(&self) -> AckCompressionSpec {
        self.spec
    }

    /// ACKs waiting in the element.
    pub fn holding(&self) -> u64 {
        self.holding
    }

    /// Holds an ACK of `flow`. Returns when its batch is due if this ACK opened it: the caller
    /// schedules [`AckCompressor::release`] then.
    pub fn hold(&mut self, now: Instant, flow: u32, slot: u32) -> Option<Instant> {
        let i = flow as usize;
        if self.batches.len() <= i {
            self.batches.resize_with(i + 1, Vec::new);
        }
        let batch = &mut self.batches[i];
        batch.push(slot);
        self.holding += 1;
        self.stats.held += 1;
        (batch.len() == 1).then(|| now + self.spec.interval)
    }

    /// Ends the batch of `flow`: the ACKs to forward, in order, go to `forward`, the absorbed ones
    /// to `absorbed`.
    pub fn release(&mut self, flow: u32, forward: &mut Vec<u32>, absorbed: &mut Vec<u32>) {
        let batch = &mut self.batches[flow as usize];
        self.holding -= batch.len() as u64;
        self.stats.batches += 1;
        match self.spec.mode {
            AckCompressionMode::Release => forward.append(batch),
            AckCompressionMode::Merge => {
                let latest = batch.pop().expect("a released batch holds at least one ACK");
                self.stats.merged += batch.len() as u64;
                absorbed.append(batch);
                forward.push(latest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(mode: AckCompressionMode) -> AckCompressor {
        AckCompressor::new(AckCompressionSpec { mode, interval: Duration::from_millis(10) })
    }

    #[test]
    fn the_first_ack_of_a_flow_opens_a_batch_due_one_interval_later() {
        let mut c = element(AckCompressionMode::Release);
        assert_eq!(c.hold(Instant(0), 3, 100), Some(Instant(10_000_000)));
        assert_eq!(c.hold(Instant(5), 3, 101), None);
        assert_eq!(c.hold(Instant(6), 1, 200), Some(Instant(10_000_006)), "flows batch separately");
        assert_eq!(c.holding(), 3);
        let (mut fwd, mut gone) = (Vec::new(), Vec::new());
        c.release(3, &mut fwd, &mut gone);
        assert_eq!((fwd, gone, c.holding()), (vec![100, 101], vec![], 1));
        assert_eq!(c.hold(Instant(20_000_000), 3, 102), Some(Instant(30_000_000)), "a new batch after release");
    }

    #[test]
    fn merging_keeps_only_the_latest_ack() {
        let mut c = element(AckCompressionMode::Merge);
        for slot in [7, 8, 9] {
            c.hold(Instant(0), 0, slot);
        }
        let (mut fwd, mut gone) = (Vec::new(), Vec::new());
        c.release(0, &mut fwd, &mut gone);
        assert_eq!((fwd, gone), (vec![9], vec![7, 8]));
        assert_eq!((c.stats.held, c.stats.merged, c.holding()), (3, 2, 0));
    }
}
