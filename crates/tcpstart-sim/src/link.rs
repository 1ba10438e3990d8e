//! A one-way link: a queue, a transmitter that serialises one packet at a time at the link rate,
//! and a propagation delay. Random loss, when set, drops packets as they leave the transmitter.

use core::time::Duration;
use std::collections::VecDeque;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use tcpstart_cc::Instant;

use crate::queue::{QueueDiscipline, Queued};

/// What became of a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The transmitter was idle: serialisation starts now and ends after this long.
    Transmitting(Duration),
    Queued,
    Dropped,
}

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops: u64,
    pub random_losses: u64,
    pub busy: Duration,
    pub max_queue_packets: usize,
    pub max_queue_bytes: u64,
    /// Integral of the queue length in packets over time (packet-nanoseconds), for the mean.
    queue_area: f64,
    last_change: Instant,
}

impl LinkStats {
    pub fn mean_queue_packets(&self, end: Instant) -> f64 {
        if end.0 == 0 {
            0.0
        } else {
            self.queue_area / end.0 as f64
        }
    }
}

pub struct Link {
    pub name: String,
    pub rate_bps: f64,
    pub delay: Duration,
    loss: f64,
    rng: Pcg64Mcg,
    queue: Box<dyn QueueDiscipline>,
    transmitting: Option<Queued>,
    /// Packets propagating, in order of arrival: (arrival time, event sequence, pool slot).
    /// The delay is the same for all, so arrivals leave in the order they entered.
    propagating: VecDeque<(Instant, u64, u32)>,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(
        name: String,
        rate_bps: f64,
        delay: Duration,
        loss: f64,
        queue: Box<dyn QueueDiscipline>,
        seed: u128,
    ) -> Self {
        Link {
            name,
            rate_bps,
            delay,
            loss,
            rng: Pcg64Mcg::new(seed | 1),
            queue,
            transmitting: None,
            propagating: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    pub fn serialisation(&self, bytes: u32) -> Duration {
        Duration::from_nanos((bytes as f64 * 8.0 * 1e9 / self.rate_bps).round() as u64)
    }

    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    fn account_queue(&mut self, now: Instant) {
        let s = &mut self.stats;
        s.queue_area += self.queue.len_packets() as f64 * (now.0 - s.last_change.0) as f64;
        s.last_change = now;
    }

    fn start(&mut self, pkt: Queued) -> Duration {
        let t = self.serialisation(pkt.bytes);
        self.transmitting = Some(pkt);
        self.stats.busy += t;
        t
    }

    pub fn offer(&mut self, now: Instant, pkt: Queued) -> Offer {
        if self.transmitting.is_none() {
            return Offer::Transmitting(self.start(pkt));
        }
        self.account_queue(now);
        if !self.queue.enqueue(pkt) {
            self.stats.drops += 1;
            return Offer::Dropped;
        }
        let s = &mut self.stats;
        s.max_queue_packets = s.max_queue_packets.max(self.queue.len_packets());
        s.max_queue_bytes = s.max_queue_bytes.max(self.queue.len_bytes());
        Offer::Queued
    }

    /// The packet being serialised has left. Returns it, whether it survived random loss, and the
    /// next packet with its serialisation time, if one was waiting.
    pub fn finish(&mut self, now: Instant) -> (Queued, bool, Option<(Queued, Duration)>) {
        let done = self.transmitting.take().expect("a transmission was in progress");
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += done.bytes as u64;
        let survived = self.loss == 0.0 || self.rng.gen::<f64>() >= self.loss;
        if !survived {
            self.stats.random_losses += 1;
        }
        self.account_queue(now);
        let next = self.queue.dequeue().map(|p| (p, self.start(p)));
        (done, survived, next)
    }

    /// Packets held by the link: queued plus the one on the transmitter.
    pub fn held_packets(&self) -> u64 {
        self.queue.len_packets() as u64 + self.transmitting.is_some() as u64
    }

    /// Starts a packet's propagation, to arrive at `at` in event order `seq`. Returns true when it
    /// is the only packet propagating, so its arrival must be put on the event heap.
    pub fn propagate(&mut self, at: Instant, seq: u64, slot: u32) -> bool {
        debug_assert!(self.propagating.back().is_none_or(|&(t, s, _)| (t, s) < (at, seq)));
        self.propagating.push_back((at, seq, slot));
        self.propagating.len() == 1
    }

    /// The packet at the head of the pipe has arrived: returns its slot, and the arrival time and
    /// event order of the next one, which then goes on the event heap.
    pub fn arrived(&mut self) -> (u32, Option<(Instant, u64)>) {
        let (_, _, slot) = self.propagating.pop_front().expect("an arrival was scheduled");
        (slot, self.propagating.front().map(|&(t, s, _)| (t, s)))
    }
}
