//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", 1993), following ns-3's `RedQueueDisc` (src/traffic-control/model/
//! red-queue-disc.cc, itself a port of ns-2's red.cc) with its defaults: min_th 5, max_th 15
//! packets, queue weight 0.002, max_p 1/50 (`LInterm` 50), gentle on, "wait" on, mean packet
//! size 500 bytes, hard drops above the limit. ECN marking and the adaptive variants are left out.
//!
//! On each arrival, with `q` the current occupancy (before the arrival):
//! 1. average: `avg = avg (1 - w)^(m + 1) + w q`, where `m` is the number of mean-sized packets
//!    the link could have sent while the queue was idle (0 unless it was idle);
//! 2. if `avg >= min_th` and `q > 1`:
//!    - `avg >= 2 max_th` (gentle; `max_th` otherwise): forced drop;
//!    - the first arrival above `min_th` only resets the counter;
//!    - else drop early with `p_a` derived from
//!      `p_b = max_p (avg - min_th) / (max_th - min_th)` (between the thresholds) or
//!      `p_b = max_p + (1 - max_p) (avg - max_th) / max_th` (gentle region), spread out by the
//!      count of arrivals since the last drop: with "wait", `p_a = 0` while `count p_b < 1`,
//!      `p_b / (2 - count p_b)` while it is below 2, then 1 (so drops come every 1/p_b to
//!      2/p_b arrivals); without it `p_a = p_b / (1 - count p_b)`;
//! 3. otherwise the counter is dormant until `avg` crosses `min_th` again.
//!
//! In byte mode (a byte limit) the occupancy is in bytes, the thresholds given in packets are
//! multiplied by the mean packet size, the counter counts mean-sized packets and `p_a` scales with
//! the arriving packet's size (ns-3's byte mode; ns-3 takes the thresholds in bytes directly).
//! Random draws come from the link's own seeded stream.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;
use tcpstart_cc::Instant;

use super::{Admission, Fifo, QueueDiscipline, Queued};
use crate::scenario::Limit;

/// RED parameters; thresholds in packets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    /// EWMA weight of the instantaneous queue (ns-3 `QW`).
    pub weight: f64,
    /// Drop probability at `max_th` (ns-3 `1 / LInterm`).
    pub max_p: f64,
    pub gentle: bool,
    pub wait: bool,
    /// Packet size used for idle-time decay and byte mode (ns-3 `MeanPktSize`).
    pub mean_packet_size: u32,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            weight: 0.002,
            max_p: 1.0 / 50.0,
            gentle: true,
            wait: true,
            mean_packet_size: 500,
        }
    }
}

pub struct Red {
    fifo: Fifo,
    p: RedParams,
    /// Thresholds in the limit's unit (packets or bytes).
    min_th: f64,
    max_th: f64,
    /// Mean-sized packets per second the link sends (ns-3 `m_ptc`).
    packets_per_sec: f64,
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// The average was above `min_th` at the previous arrival (ns-3 `m_old`).
    above_min: bool,
    idle_since: Option<Instant>,
    rng: Pcg64Mcg,
}

impl Red {
    pub fn new(limit: Limit, p: RedParams, rate_bps: f64, seed: u128) -> Self {
        let scale = match limit {
            Limit::Packets(_) => 1.0,
            Limit::Bytes(_) => p.mean_packet_size as f64,
        };
        Red {
            fifo: Fifo::new(limit),
            p,
            min_th: p.min_th * scale,
            max_th: p.max_th * scale,
            packets_per_sec: rate_bps / (8.0 * p.mean_packet_size as f64),
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            above_min: false,
            // ns-3 starts idle at time zero.
            idle_since: Some(Instant::ZERO),
            rng: Pcg64Mcg::new(seed | 1),
        }
    }

    /// The current average queue, in the limit's unit.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The drop probability `p_b` for the current average, before the count spreads it out.
    fn base_probability(&self) -> f64 {
        let (min, max, max_p) = (self.min_th, self.max_th, self.p.max_p);
        let p = if self.avg >= max {
            if self.p.gentle {
                // From max_p at max_th to 1 at 2 max_th.
                (1.0 - max_p) / max * self.avg + 2.0 * max_p - 1.0
            } else {
                1.0
            }
        } else {
            let span = if max > min { max - min } else { 1.0 };
            (self.avg - min) / span * max_p
        };
        p.min(1.0)
    }

    /// ns-3 `ModifyP`: spreads drops evenly by the count of arrivals since the last one.
    fn spread(&self, p: f64, bytes: u32) -> f64 {
        let byte_mode = matches!(self.fifo.limit(), Limit::Bytes(_));
        let count =
            if byte_mode { (self.count_bytes / self.p.mean_packet_size as u64) as f64 } else { self.count as f64 };
        let mut p = if self.p.wait {
            match count * p {
                x if x < 1.0 => 0.0,
                x if x < 2.0 => p / (2.0 - x),
                _ => 1.0,
            }
        } else if count * p < 1.0 {
            p / (1.0 - count * p)
        } else {
            1.0
        };
        if byte_mode && p < 1.0 {
            p = p * bytes as f64 / self.p.mean_packet_size as f64;
        }
        p.min(1.0)
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> Admission {
        let queued = self.fifo.occupancy();
        // Arrivals the link could have served while idle each decay the average once.
        let idle_arrivals =
            self.idle_since.take().map_or(0.0, |since| (self.packets_per_sec * (now - since).as_secs_f64()).floor());
        self.avg = self.avg * (1.0 - self.p.weight).powf(idle_arrivals + 1.0) + self.p.weight * queued;
        self.count += 1;
        self.count_bytes += bytes as u64;

        if self.avg >= self.min_th && queued > 1.0 {
            let hard = if self.p.gentle { 2.0 * self.max_th } else { self.max_th };
            if self.avg >= hard {
                return Admission::Forced;
            }
            if !self.above_min {
                self.count = 1;
                self.count_bytes = bytes as u64;
                self.above_min = true;
            } else {
                let p = self.spread(self.base_probability(), bytes);
                if self.rng.gen::<f64>() <= p {
                    self.count = 0;
                    self.count_bytes = 0;
                    return Admission::Early;
                }
            }
        } else {
            self.above_min = false;
        }
        self.fifo.push(Queued { slot, bytes, enqueued: now })
    }

    fn dequeue(&mut self, now: Instant, _dropped: &mut Vec<Queued>) -> Option<Queued> {
        let pkt = self.fifo.pop();
        if pkt.is_none() {
            self.idle_since = Some(now);
        }
        pkt
    }

    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::super::pkt;
    use super::*;

    const MS: u64 = 1_000_000;

    fn red(p: RedParams) -> Red {
        Red::new(Limit::Packets(1000), p, 12e6, 7)
    }

    #[test]
    fn the_average_follows_the_ewma_of_the_queue_seen_by_arrivals() {
        let mut q = red(RedParams { weight: 0.1, min_th: 100.0, max_th: 200.0, ..RedParams::default() });
        // First arrival at t = 0: idle since 0 for no time, so one decay step of an empty queue.
        let mut expected = 0.0;
        for i in 0..20u32 {
            assert_eq!(q.enqueue(Instant(0), i, 500), Admission::Accepted);
            // The arrival sees i packets queued before it.
            expected = 0.9 * expected + 0.1 * i as f64;
            assert!((q.average() - expected).abs() < 1e-12, "arrival {i}: {} vs {expected}", q.average());
        }
    }

    #[test]
    fn an_idle_period_decays_the_average_by_the_packets_the_link_could_have_sent() {
        let mut q = red(RedParams { weight: 0.1, min_th: 100.0, max_th: 200.0, ..RedParams::default() });
        for i in 0..10 {
            q.enqueue(Instant(0), i, 500);
        }
        while q.dequeue(Instant(MS), &mut Vec::new()).is_some() {}
        assert!(q.dequeue(Instant(MS), &mut Vec::new()).is_none(), "the queue went idle at 1 ms");
        let before = q.average();
        // 12 Mb/s in 500-byte packets is 3000 packets/s: 2 ms idle = 6 packet times, plus the arrival.
        q.enqueue(Instant(3 * MS), 99, 500);
        let expected = before * 0.9f64.powi(7);
        assert!((q.average() - expected).abs() < 1e-12, "{} vs {expected}", q.average());
    }

    #[test]
    fn forced_drop_above_twice_max_th_when_gentle_and_above_max_th_otherwise() {
        for (gentle, hard) in [(true, 30.0), (false, 15.0)] {
            let mut q = red(RedParams { weight: 1.0, gentle, ..RedParams::default() });
            // With weight 1 the average is the queue seen by the arrival.
            let mut seen = Vec::new();
            for i in 0..40 {
                seen.push((q.len_packets(), q.enqueue(Instant(0), i, 500)));
            }
            let first_forced = seen.iter().find(|(_, a)| *a == Admission::Forced).map(|(n, _)| *n as f64);
            assert_eq!(first_forced, Some(hard), "gentle = {gentle}");
        }
    }

    /// Expected arrivals between early drops when the average stays fixed with drop probability
    /// `pb`: X >= k+1 iff none of the arrivals counted 1..=k dropped (Floyd and Jacobson,
    /// section 7, with the "wait" variant of ns-2).
    fn expected_spacing(pb: f64, wait: bool) -> f64 {
        let pa = |count: f64| {
            let x = count * pb;
            if wait {
                if x < 1.0 {
                    0.0
                } else if x < 2.0 {
                    pb / (2.0 - x)
                } else {
                    1.0
                }
            } else if x < 1.0 {
                pb / (1.0 - x)
            } else {
                1.0
            }
        };
        let (mut survive, mut mean) = (1.0, 0.0);
        for k in 1..100_000 {
            mean += survive;
            survive *= 1.0 - pa(k as f64);
            if survive < 1e-15 {
                break;
            }
        }
        mean
    }

    #[test]
    fn early_drop_fraction_matches_the_red_formula_at_each_average() {
        // Hold the instantaneous queue at `n`; with weight 1 the average equals n.
        for wait in [true, false] {
            for (n, pb) in [(7usize, 0.1 * 2.0 / 10.0), (10, 0.1 * 5.0 / 10.0), (20, 0.1 + 0.9 * 5.0 / 15.0)] {
                let p = RedParams { weight: 1.0, max_p: 0.1, wait, ..RedParams::default() };
                let mut q = red(p);
                for i in 0..n as u32 {
                    q.fifo.push(pkt(i, 500, 0));
                }
                let arrivals = 200_000;
                let mut early = 0;
                for i in 0..arrivals {
                    match q.enqueue(Instant(0), i, 500) {
                        Admission::Accepted => {
                            q.dequeue(Instant(0), &mut Vec::new());
                        }
                        Admission::Early => early += 1,
                        other => panic!("unexpected {other:?}"),
                    }
                }
                let measured = early as f64 / arrivals as f64;
                let expected = 1.0 / expected_spacing(pb, wait);
                assert!(
                    (measured / expected - 1.0).abs() < 0.05,
                    "wait {wait}, queue {n}: measured {measured:.4}, expected {expected:.4}"
                );
            }
        }
    }

    #[test]
    fn nothing_is_dropped_below_min_th() {
        let mut q = red(RedParams { weight: 1.0, ..RedParams::default() });
        for i in 0..5 {
            assert_eq!(q.enqueue(Instant(0), i, 500), Admission::Accepted);
        }
        assert_eq!(q.count, 5);
    }

    #[test]
    fn byte_mode_scales_thresholds_by_the_mean_packet_size() {
        let p = RedParams { weight: 1.0, gentle: false, ..RedParams::default() };
        let mut q = Red::new(Limit::Bytes(1_000_000), p, 12e6, 7);
        // max_th = 15 packets of 500 bytes = 7500 bytes; below it max_p = 1/50 cannot reach a
        // drop within the few arrivals (count p_b < 1), so the first drop is the forced one at
        // the first occupancy of at least 7500 bytes.
        let mut first_drop = None;
        for i in 0..100 {
            let queued = q.len_bytes();
            let a = q.enqueue(Instant(0), i, 1000);
            if a != Admission::Accepted {
                first_drop = Some((queued, a));
                break;
            }
        }
        assert_eq!(first_drop, Some((8000, Admission::Forced)));
    }
}
