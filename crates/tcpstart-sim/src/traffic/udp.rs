//! UDP sources: constant bit rate, optionally switched on and off.
//!
//! During an "on" period a source sends `packet_size`-byte datagrams back to back at `rate`,
//! where the rate counts whole IP packets (payload + 8 bytes UDP + 20 bytes IPv4 header), the
//! way a link's rate does: a 2 Mbps source fills 2 Mbps of a bottleneck. (iperf's `-b` counts
//! the datagram payload only, about 2 % less for 1470-byte datagrams.)
//!
//! On/off: the first "on" period begins at `start`. Periods alternate, with durations either
//! fixed (`on`, `off`) or drawn from exponential distributions of those means (the ns-2
//! `Application/Traffic/Exponential` model). Each "on" period begins with a packet, so an "on"
//! period shorter than one packet's spacing still sends one. Nothing is sent at or after `stop`.
//!
//! Timing: the spacing above is a datagram's *due* time. A source with a `tick` sends only when
//! its host's clock ticks, at `start`, `start + tick`, ...: at each tick every datagram that has
//! come due since leaves at once, back to back. This is how a sender that sleeps between
//! datagrams on a tick-driven kernel timer behaves (iperf's UDP client catches up on the
//! datagrams a late wake-up owes), and how a dummynet pipe releases what its clock tick allows.
//! The due times, and so the mean rate and the on/off periods, are those of the smooth source;
//! the datagrams of a tick come in bursts of floor(tick / spacing) or one more.

use core::time::Duration;

use rand_pcg::Pcg64Mcg;
use serde::Serialize;
use tcpstart_cc::Instant;

use super::dist::exponential;
use crate::packet::Direction;

/// IPv4 (20) and UDP (8) headers.
pub const UDP_HEADER_BYTES: u32 = 28;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnOffKind {
    Fixed,
    Exponential,
}

impl OnOffKind {
    pub const NAMES: &'static str = "\"fixed\" or \"exponential\"";

    pub const ALL: [OnOffKind; 2] = [OnOffKind::Fixed, OnOffKind::Exponential];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            OnOffKind::Fixed => "fixed",
            OnOffKind::Exponential => "exponential",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s)
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct OnOff {
    pub on: Duration,
    pub off: Duration,
    pub kind: OnOffKind,
}

/// One UDP source as the scenario describes it.
#[derive(Clone, Debug, Serialize)]
pub struct UdpSpec {
    pub class: String,
    /// Sending rate during "on" periods, IP bits per second.
    pub rate_bps: f64,
    /// Datagram payload bytes.
    pub packet_size: u32,
    pub start: Duration,
    pub stop: Option<Duration>,
    pub on_off: Option<OnOff>,
    pub host: u32,
    /// Forward: from the senders' side to the receivers' side.
    pub direction: Direction,
    /// The hops of a parking lot its datagrams cross, first and last; `None`: every hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<[u32; 2]>,
    /// The host clock's tick the source sends on; `None`: each datagram when it is due.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick: Option<Duration>,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct UdpStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub lost_packets: u64,
}

/// A running source: when it sends next, and what became of what it sent.
pub struct UdpSource {
    pub spec: UdpSpec,
    rng: Pcg64Mcg,
    /// End of the current "on" period; `None` for a source that is always on.
    on_end: Option<Instant>,
    /// When the datagram to send next is due (it leaves then, or at the next tick).
    due: Instant,
    gap: Duration,
    pub stats: UdpStats,
}

impl UdpSource {
    pub fn new(spec: UdpSpec, rng: Pcg64Mcg) -> Self {
        let wire_bits = (spec.packet_size + UDP_HEADER_BYTES) as f64 * 8.0;
        let gap = Duration::from_nanos((wire_bits * 1e9 / spec.rate_bps).round().max(1.0) as u64);
        UdpSource { spec, rng, on_end: None, due: Instant::ZERO, gap, stats: UdpStats::default() }
    }

    fn draw(&mut self, mean: Duration) -> Duration {
        match self.spec.on_off.map(|o| o.kind) {
            Some(OnOffKind::Exponential) => Duration::from_secs_f64(exponential(mean.as_secs_f64(), &mut self.rng)),
            _ => mean,
        }
    }

    /// When the datagram due at `self.due` leaves, if before `stop`: at once, or at the first
    /// tick of the source's clock (ticking from `start`) at or after it is due.
    fn release(&self) -> Option<Instant> {
        let at = match self.spec.tick {
            None => self.due,
            Some(tick) => {
                let (start, tick) = ((Instant::ZERO + self.spec.start).0, tick.as_nanos() as u64);
                Instant(start + (self.due.0 - start).div_ceil(tick) * tick)
            }
        };
        match self.spec.stop {
            Some(stop) if at >= Instant::ZERO + stop => None,
            _ => Some(at),
        }
    }

    /// When the first packet goes out.
    pub fn first_send(&mut self) -> Option<Instant> {
        self.due = Instant::ZERO + self.spec.start;
        if let Some(o) = self.spec.on_off {
            let on = self.draw(o.on);
            self.on_end = Some(self.due + on);
        }
        self.release()
    }

    /// Called after a packet was sent; when the next one goes out, if ever.
    pub fn next_send(&mut self) -> Option<Instant> {
        self.due = self.due + self.gap;
        if let (Some(end), Some(o)) = (self.on_end, self.spec.on_off) {
            if self.due >= end {
                let off = self.draw(o.off);
                let on = self.draw(o.on);
                self.due = end + off;
                self.on_end = Some(self.due + on);
            }
        }
        self.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{stream, Stream};

    /// 4 Mbps of 1472-byte datagrams: 1500 IP bytes, 12000 bits, one due every 3 ms.
    fn source(start_ms: u64, stop_ms: Option<u64>, tick_ms: Option<u64>) -> UdpSource {
        let spec = UdpSpec {
            class: "udp".into(),
            rate_bps: 4e6,
            packet_size: 1472,
            start: Duration::from_millis(start_ms),
            stop: stop_ms.map(Duration::from_millis),
            on_off: None,
            host: 0,
            direction: Direction::Forward,
            hops: None,
            tick: tick_ms.map(Duration::from_millis),
        };
        UdpSource::new(spec, stream(1, Stream::Udp(0)))
    }

    /// Every send time in milliseconds, the clock driven by the source itself.
    fn sends_ms(mut src: UdpSource) -> Vec<f64> {
        let mut out = Vec::new();
        let mut next = src.first_send();
        while let Some(at) = next {
            out.push(at.0 as f64 / 1e6);
            next = src.next_send();
        }
        out
    }

    #[test]
    fn without_a_tick_each_datagram_leaves_when_due() {
        assert_eq!(sends_ms(source(0, Some(10), None)), [0.0, 3.0, 6.0, 9.0]);
    }

    #[test]
    fn with_a_tick_the_datagrams_due_since_the_last_tick_leave_together() {
        // Due at 0 | 3 6 9 | 12 15 18 | 21 24 27 30 | 33 ...: each leaves at the first tick at or after it.
        let sends = sends_ms(source(0, Some(41), Some(10)));
        assert_eq!(sends, [0.0, 10.0, 10.0, 10.0, 20.0, 20.0, 20.0, 30.0, 30.0, 30.0, 30.0, 40.0, 40.0, 40.0]);
    }

    #[test]
    fn the_clock_ticks_from_start() {
        let sends = sends_ms(source(1, Some(22), Some(10)));
        assert_eq!(sends, [1.0, 11.0, 11.0, 11.0, 21.0, 21.0, 21.0]);
    }

    #[test]
    fn ticks_keep_the_mean_rate_and_burst_by_floor_or_ceil_of_tick_over_spacing() {
        // One second: due times 0, 3, ..., 999 ms (334); released up to the tick at 1000 ms.
        let sends = sends_ms(source(0, Some(1001), Some(10)));
        assert_eq!(sends.len(), 334);
        let mut bursts = std::collections::BTreeMap::<u64, u32>::new();
        for t in &sends {
            assert_eq!(t % 10.0, 0.0, "a datagram left between ticks, at {t} ms");
            *bursts.entry(*t as u64).or_default() += 1;
        }
        // 10 / 3 = 3.33 datagrams a tick: bursts of 3 and 4 after the first tick's single one.
        assert!(bursts.values().skip(1).all(|&n| n == 3 || n == 4), "{bursts:?}");
        assert_eq!(bursts.len(), 101);
    }

    #[test]
    fn a_datagram_due_before_stop_whose_tick_is_at_or_after_stop_is_not_sent() {
        // Due at 0, 3, 6, 9; the tick at 10 ms is at stop.
        assert_eq!(sends_ms(source(0, Some(10), Some(10))), [0.0]);
    }
}
