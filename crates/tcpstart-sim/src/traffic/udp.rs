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
    gap: Duration,
    pub stats: UdpStats,
}

impl UdpSource {
    pub fn new(spec: UdpSpec, rng: Pcg64Mcg) -> Self {
        let wire_bits = (spec.packet_size + UDP_HEADER_BYTES) as f64 * 8.0;
        let gap = Duration::from_nanos((wire_bits * 1e9 / spec.rate_bps).round().max(1.0) as u64);
        UdpSource { spec, rng, on_end: None, gap, stats: UdpStats::default() }
    }

    fn draw(&mut self, mean: Duration) -> Duration {
        match self.spec.on_off.map(|o| o.kind) {
            Some(OnOffKind::Exponential) => Duration::from_secs_f64(exponential(mean.as_secs_f64(), &mut self.rng)),
            _ => mean,
        }
    }

    fn before_stop(&self, t: Instant) -> Option<Instant> {
        match self.spec.stop {
            Some(stop) if t >= Instant::ZERO + stop => None,
            _ => Some(t),
        }
    }

    /// When the first packet goes out.
    pub fn first_send(&mut self) -> Option<Instant> {
        let start = Instant::ZERO + self.spec.start;
        if let Some(o) = self.spec.on_off {
            let on = self.draw(o.on);
            self.on_end = Some(start + on);
        }
        self.before_stop(start)
    }

    /// Called after a packet was sent at `now`; when the next one goes out, if ever.
    pub fn next_send(&mut self, now: Instant) -> Option<Instant> {
        let mut next = now + self.gap;
        if let (Some(end), Some(o)) = (self.on_end, self.spec.on_off) {
            if next >= end {
                let off = self.draw(o.off);
                let on = self.draw(o.on);
                next = end + off;
                self.on_end = Some(next + on);
            }
        }
        self.before_stop(next)
    }
}
