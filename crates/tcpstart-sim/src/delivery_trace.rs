//! A trace-driven link in the mahimahi packet-delivery format (Netravali et al., "Mahimahi",
//! USENIX ATC 2015; its `LinkQueue`): a text file with one line per delivery opportunity, the
//! whole number of milliseconds after the start at which the link may deliver one MTU-sized
//! packet. Several lines with the same time are several opportunities at once. The trace loops:
//! after its last line's time it starts again from there.
//!
//! As in mahimahi, an opportunity carries up to one MTU of the queue's bytes: several small
//! packets (ACKs) share one, a packet larger than what is left of one continues in the next, and
//! the bytes of an opportunity that finds the queue empty are lost. A packet that arrives at an
//! idle link cannot use an opportunity at the very instant it arrives (mahimahi burns the
//! opportunities due before it queues an arrival); one that waited in the queue uses what the
//! packet before it left of the same opportunity.

use serde::Serialize;

const MS: u64 = 1_000_000;

/// A parsed trace: opportunity times within one cycle and the cycle's length.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeliveryTrace {
    /// Where it was read from, for the resolved scenario.
    pub file: String,
    /// Non-decreasing, in ns.
    #[serde(skip)]
    pub times_ns: Vec<u64>,
    /// The last line's time, in ns (never 0).
    pub period_ns: u64,
    /// Bytes one opportunity carries.
    pub mtu: u32,
}

impl DeliveryTrace {
    /// Reads the lines of a trace; an error names the line and what is wrong with it. Blank
    /// lines and surrounding spaces are ignored.
    pub fn parse(file: &str, text: &str, mtu: u32) -> Result<DeliveryTrace, String> {
        let mut times_ns = Vec::new();
        let mut last = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let ms: u64 = line.parse().ok().filter(|&ms| ms <= 100_000_000).ok_or_else(|| {
                format!("line {}: expected whole milliseconds from 0 to 100000000, got {line:?}", i + 1)
            })?;
            if ms < last {
                return Err(format!("line {}: times must not decrease, got {ms} after {last}", i + 1));
            }
            last = ms;
            times_ns.push(ms * MS);
        }
        match times_ns.last() {
            None => Err("holds no delivery opportunity (one line per opportunity, in ms)".into()),
            Some(0) => Err("its last time must be above 0 ms: the trace repeats with that period".into()),
            Some(&period_ns) => Ok(DeliveryTrace { file: file.to_string(), times_ns, period_ns, mtu }),
        }
    }

    /// Bytes the opportunities due by `end` (ns) can carry.
    pub fn bytes_until(&self, end: u64) -> u64 {
        let cycles = end / self.period_ns;
        let within = self.times_ns.partition_point(|&t| t <= end % self.period_ns);
        (cycles * self.times_ns.len() as u64 + within as u64) * self.mtu as u64
    }

    /// Mean rate over one cycle, in bits per second.
    pub fn mean_rate_bps(&self) -> f64 {
        self.times_ns.len() as f64 * self.mtu as f64 * 8.0 * 1e9 / self.period_ns as f64
    }
}

/// A link's place in its trace.
#[derive(Clone, Debug)]
pub struct TraceCursor {
    trace: std::sync::Arc<DeliveryTrace>,
    /// Start of the current cycle (ns).
    cycle_start: u64,
    /// The next unused opportunity of the current cycle.
    next: usize,
    /// Bytes left of the latest opportunity used, at time `left_at`.
    left: u32,
    left_at: u64,
}

impl TraceCursor {
    pub fn new(trace: std::sync::Arc<DeliveryTrace>) -> Self {
        TraceCursor { trace, cycle_start: 0, next: 0, left: 0, left_at: 0 }
    }

    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    fn next_time(&self) -> u64 {
        self.cycle_start + self.trace.times_ns[self.next]
    }

    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.trace.times_ns.len() {
            self.next = 0;
            self.cycle_start += self.trace.period_ns;
        }
    }

    /// Skips the opportunities due at or before `now`: they found the link idle.
    fn skip_to(&mut self, now: u64) {
        let period = self.trace.period_ns;
        if now >= self.cycle_start + period {
            // Whole cycles at once, then a search within one: an idle link skips many.
            self.cycle_start += (now - self.cycle_start) / period * period;
            self.next = 0;
        }
        let phase = now - self.cycle_start;
        self.next = self.next.max(self.trace.times_ns.partition_point(|&t| t <= phase));
        if self.next == self.trace.times_ns.len() {
            self.next = 0;
            self.cycle_start += period;
        }
    }

    /// When a packet of `bytes` that goes onto the transmitter at `now` has been delivered.
    /// `waited`: it was queued behind the packet sent before (which finished at `now`), so it
    /// may use what that packet left of their opportunity.
    pub fn transmission_end(&mut self, now: u64, bytes: u32, waited: bool) -> u64 {
        let mut remaining = bytes;
        if waited && self.left_at == now {
            let used = self.left.min(remaining);
            self.left -= used;
            remaining -= used;
            if remaining == 0 {
                return now;
            }
        } else {
            self.skip_to(now);
        }
        loop {
            let at = self.next_time();
            self.advance();
            let used = self.trace.mtu.min(remaining);
            remaining -= used;
            if remaining == 0 {
                self.left = self.trace.mtu - used;
                self.left_at = at;
                return at;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn cursor(text: &str) -> TraceCursor {
        TraceCursor::new(Arc::new(DeliveryTrace::parse("t", text, 1500).unwrap()))
    }

    #[test]
    fn packets_leave_at_the_opportunities_and_the_trace_loops() {
        // Opportunities at 2, 2, 5 ms; period 5 ms.
        let mut c = cursor("2\n2\n5\n");
        assert_eq!(c.transmission_end(0, 1500, false), 2 * MS);
        assert_eq!(c.transmission_end(2 * MS, 1500, true), 2 * MS);
        assert_eq!(c.transmission_end(2 * MS, 1500, true), 5 * MS);
        // The next cycle: 7, 7, 10 ms.
        assert_eq!(c.transmission_end(5 * MS, 1500, true), 7 * MS);
        // An arrival at an idle link skips what is due by then, cycles included: 33 ms is in the
        // cycle from 30 ms, whose opportunities are 32, 32, 35.
        assert_eq!(c.transmission_end(33 * MS, 1500, false), 35 * MS);
        assert_eq!(c.transmission_end(35 * MS, 1500, true), 37 * MS);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_large_ones_span_two() {
        let mut c = cursor("1\n2\n3\n4\n");
        // Three 500-byte packets queued together use one opportunity.
        assert_eq!(c.transmission_end(0, 500, false), MS);
        assert_eq!(c.transmission_end(MS, 500, true), MS);
        assert_eq!(c.transmission_end(MS, 500, true), MS);
        // 2000 bytes: the whole of 2 ms and 500 of 3 ms; the rest of 3 ms is lost to an arrival
        // at an idle link at 3.5 ms, which takes 4 ms.
        assert_eq!(c.transmission_end(MS, 2000, true), 3 * MS);
        assert_eq!(c.transmission_end(3 * MS + MS / 2, 100, false), 4 * MS);
        // An arrival exactly at an opportunity's time does not get it (mahimahi burns it first).
        let mut c = cursor("1\n2\n");
        assert_eq!(c.transmission_end(MS, 100, false), 2 * MS);
    }

    #[test]
    fn bad_traces_are_refused_with_their_line() {
        let err = |text| DeliveryTrace::parse("t", text, 1500).unwrap_err();
        assert_eq!(err("1\n2\nx\n"), "line 3: expected whole milliseconds from 0 to 100000000, got \"x\"");
        assert_eq!(err("5\n3\n"), "line 2: times must not decrease, got 3 after 5");
        assert_eq!(err(""), "holds no delivery opportunity (one line per opportunity, in ms)");
        assert!(err("0\n0\n").starts_with("its last time must be above 0 ms"));
        assert_eq!(err("-1\n"), "line 1: expected whole milliseconds from 0 to 100000000, got \"-1\"");
        let t = DeliveryTrace::parse("t", "1\n2\n3\n4\n\n", 1500).unwrap();
        // Four 1500-byte packets per 4 ms: 12 Mbps.
        assert_eq!(t.mean_rate_bps(), 12e6);
        // By 9 ms: two cycles of four, and the opportunity at 1 ms of the third (at 9 ms).
        assert_eq!(t.bytes_until(9 * MS), 9 * 1500);
    }
}
