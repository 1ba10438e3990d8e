//! CoDel, Controlled Delay (RFC 8289), with the RFC's and Linux's defaults: target 5 ms,
//! interval 100 ms. It drops at the head of the queue, on dequeue:
//!
//! - A packet's sojourn time is the time it spent queued. While sojourn times stay at or above
//!   `target` (and more than one maximum-sized packet is queued) for a whole `interval`, CoDel
//!   enters the dropping state and drops the head packet (RFC 8289 section 5.3 `dodequeue`).
//! - In the dropping state it drops again at `drop_next`, which follows the control law
//!   `drop_next = t + interval / sqrt(count)`, so drops come faster the longer the queue stays
//!   above target. A sojourn below target leaves the dropping state.
//! - On re-entering the dropping state soon (within 16 intervals) after leaving it, `count`
//!   resumes from the drops of the previous episode (`count - lastcount`, section 5.5).
//!
//! The "maximum packet" is the largest packet seen so far, as in Linux's `codel_should_drop`.
//! The queue limit (packets or bytes) still applies: arrivals beyond it are tail-dropped.

use core::time::Duration;

use serde::Serialize;
use tcpstart_cc::Instant;

use super::{Admission, Fifo, QueueDiscipline, Queued};
use crate::scenario::Limit;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelParams {
    pub target: Duration,
    pub interval: Duration,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams { target: Duration::from_millis(5), interval: Duration::from_millis(100) }
    }
}

pub struct CoDel {
    fifo: Fifo,
    p: CodelParams,
    /// When the sojourn time will have been above target for a whole interval.
    first_above: Option<Instant>,
    dropping: bool,
    drop_next: Instant,
    count: u32,
    last_count: u32,
    max_packet: u32,
}

impl CoDel {
    pub fn new(limit: Limit, p: CodelParams) -> Self {
        CoDel {
            fifo: Fifo::new(limit),
            p,
            first_above: None,
            dropping: false,
            drop_next: Instant::ZERO,
            count: 0,
            last_count: 0,
            max_packet: 0,
        }
    }

    fn control_law(&self, t: Instant) -> Instant {
        t + Duration::from_secs_f64(self.p.interval.as_secs_f64() / (self.count as f64).sqrt())
    }

    /// RFC 8289 `dodequeue`: the head packet and whether it may be dropped.
    fn head(&mut self, now: Instant) -> Option<(Queued, bool)> {
        let Some(pkt) = self.fifo.pop() else {
            self.first_above = None;
            return None;
        };
        let sojourn = now - pkt.enqueued;
        if sojourn < self.p.target || self.fifo.bytes() <= self.max_packet as u64 {
            self.first_above = None;
            return Some((pkt, false));
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + self.p.interval);
                Some((pkt, false))
            }
            Some(t) => Some((pkt, now >= t)),
        }
    }
}

impl QueueDiscipline for CoDel {
    fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> Admission {
        self.max_packet = self.max_packet.max(bytes);
        self.fifo.push(Queued { slot, bytes, enqueued: now })
    }

    fn dequeue(&mut self, now: Instant, dropped: &mut Vec<Queued>) -> Option<Queued> {
        let Some((mut pkt, mut ok_to_drop)) = self.head(now) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.push(pkt);
                self.count += 1;
                match self.head(now) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((next, ok)) => (pkt, ok_to_drop) = (next, ok),
                }
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            dropped.push(pkt);
            let next = self.head(now);
            self.dropping = true;
            // Drops of the previous dropping episode, if it ended recently (count only grows
            // between two entries, so this never underflows).
            let delta = self.count - self.last_count;
            let recent = now.0.saturating_sub(self.drop_next.0) < 16 * self.p.interval.as_nanos() as u64;
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = self.control_law(now);
            self.last_count = self.count;
            return next.map(|(p, _)| p);
        }
        Some(pkt)
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A queue fed one 1500-byte packet per `gap` and drained one per `service` (slower), so the
    /// sojourn time grows without bound unless CoDel drops. Returns the drop times.
    fn overload(until_ms: u64) -> (Vec<u64>, CoDel) {
        let mut q = CoDel::new(Limit::Packets(100_000), CodelParams::default());
        let (gap, service) = (MS / 2, MS);
        let (mut next_arrival, mut next_service, mut slot) = (0, 0, 0);
        let mut drops = Vec::new();
        while next_service < until_ms * MS {
            if next_arrival <= next_service {
                q.enqueue(Instant(next_arrival), slot, 1500);
                slot += 1;
                next_arrival += gap;
            } else {
                let mut d = Vec::new();
                q.dequeue(Instant(next_service), &mut d);
                drops.extend(d.iter().map(|_| next_service));
                next_service += service;
            }
        }
        (drops, q)
    }

    #[test]
    fn first_drop_comes_one_interval_after_the_sojourn_time_exceeds_target() {
        let (drops, _) = overload(400);
        // Arrivals at 2/ms, service at 1/ms: the packet dequeued at t waited t/2. Sojourn reaches
        // 5 ms at t = 10 ms, so the first drop is due at 110 ms.
        assert_eq!(drops.first().copied(), Some(110 * MS));
    }

    #[test]
    fn drops_follow_the_control_law() {
        let (drops, _) = overload(600);
        // In the dropping state the k-th drop follows the previous one by interval / sqrt(k)
        // (each drop waits for the next dequeue, 1 ms apart here).
        assert!(drops.len() > 9);
        for (k, pair) in drops.windows(2).enumerate().take(8) {
            let gap = (pair[1] - pair[0]) as f64 / MS as f64;
            let law = 100.0 / ((k + 1) as f64).sqrt();
            assert!((gap - law).abs() < 1.0, "drop {k}: gap {gap} ms, control law {law} ms");
        }
    }

    #[test]
    fn a_short_queue_is_never_dropped_from() {
        let mut q = CoDel::new(Limit::Packets(100), CodelParams::default());
        // Sojourn 50 ms, but only one packet stays queued at a time: below the "maximum packet".
        let mut d = Vec::new();
        for i in 0..100u64 {
            q.enqueue(Instant(i * 50 * MS), i as u32, 1500);
            q.dequeue(Instant((i + 1) * 50 * MS), &mut d);
        }
        assert!(d.is_empty());
    }
}
