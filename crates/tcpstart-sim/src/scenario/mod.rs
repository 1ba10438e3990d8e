//! Scenario description: the one place where user input is parsed, checked and expanded.
//!
//! A scenario goes through three stages, each a module:
//! - parse.rs: JSON text (what TOML files and Python objects become) as the `Raw*` tables,
//!   strict about names and shapes;
//! - resolve.rs: every value checked (units and ranges, ranges.rs) and every default filled in
//!   from the one table of fields and defaults (defaults.rs), giving a [`Resolved`] scenario,
//!   which written.rs writes back in user units;
//! - expand.rs: the resolved workload as the run's flows, pages and sources (`count`,
//!   schedules and web sessions drawn, host pairs handed out).
//!
//! Every error is one line naming the field and the allowed range, so the CLI and the Python
//! API report the same messages.

use std::collections::BTreeMap;

use core::time::Duration;
use serde::Serialize;

use crate::ack_compression::AckCompressionSpec;
use crate::error::ScenarioError;
use crate::packet::Direction;
use crate::queue::{CodelParams, RedParams};
use crate::quick_start::QuickStartSpec;
use crate::traffic::udp::UdpSpec;
use crate::traffic::web::Page;

pub mod defaults;
mod estimate;
mod expand;
mod parse;
mod ranges;
mod resolve;
mod time_varying;
mod written;

pub use estimate::{Estimate, Limits, RawLimits};
pub use parse::{
    parse, with_path, Quantity, RawAckCompression, RawAqm, RawFlow, RawNetwork, RawQuickStart, RawScenario, RawTcp,
    RawTrace, RawUdp, RawWeb,
};
pub use ranges::DEFAULT_TRACE_SAMPLES;
pub use resolve::{FlowEntry, Resolved, Schedule, UdpEntry, WebEntry};
pub use time_varying::RawChange;

/// A drop-tail limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

#[derive(Clone, Debug, Serialize)]
pub struct Network {
    pub rate_bps: f64,
    pub reverse_rate_bps: f64,
    /// One-way propagation delay of each bottleneck direction.
    pub delay: Duration,
    pub queue: Limit,
    pub reverse_queue: Limit,
    pub loss: f64,
    pub reverse_loss: f64,
    pub access_queue: Limit,
    pub aqm: Aqm,
    pub reverse_aqm: Aqm,
    pub ber: f64,
    pub reverse_ber: f64,
    pub router_pps: Option<f64>,
    pub reverse_router_pps: Option<f64>,
    pub ack_compression: Option<AckCompressionSpec>,
    pub reverse_ack_compression: Option<AckCompressionSpec>,
    /// Left out of the resolved scenario when off, so that scenarios without it resolve to the
    /// text they always had (a campaign's store keys runs by that text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_jitter: Option<Duration>,
    pub quick_start: Option<QuickStartSpec>,
    /// Rate and delay changes of both bottleneck directions (the rate of the forward one).
    /// Left out when unset, as `ack_jitter`, and so are the traces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<std::sync::Arc<crate::link_schedule::Schedule>>,
    /// Delivery traces that decide when each bottleneck direction sends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<std::sync::Arc<crate::delivery_trace::DeliveryTrace>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_trace: Option<std::sync::Arc<crate::delivery_trace::DeliveryTrace>>,
}

/// The queue discipline of a link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Aqm {
    #[serde(rename = "droptail")]
    DropTail,
    Red(RedParams),
    Codel(CodelParams),
}

#[derive(Clone, Debug, Serialize)]
pub struct TcpConfig {
    pub mss: u32,
    pub initial_window: u64,
    pub initial_ssthresh: u64,
    pub sack: bool,
    pub timestamps: bool,
    pub window_scaling: bool,
    pub rcv_buf: u64,
    pub delayed_ack: bool,
    pub delack_count: u32,
    pub delack_timeout: Duration,
    pub quickack: u32,
    /// The first `unpaced_segments` data segments (retransmissions included) leave without a
    /// pacing gap after them, as Linux's `tcp_update_skb_after_send` does for 10 ("original
    /// sch_fq does not pace first 10 MSS"). 0 = pace from the first segment.
    pub unpaced_segments: u32,
    pub rto_initial: Duration,
    pub rto_min: Duration,
    pub rto_max: Duration,
    pub clock_granularity: Duration,
    /// The sender reads time in whole ticks (floor), like a jiffies clock: the `now` of every
    /// controller event, RTT samples and the timestamps it writes. Zero means exact.
    pub clock_tick: Duration,
    pub fast_retransmit: bool,
    pub limited_transmit: bool,
    pub dupthresh: u32,
    pub recovery: RecoveryWindow,
    pub rto_restart: RtoRestart,
    pub profile: Profile,
}

/// Whose TCP the endpoints model (`tcp.profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The RFCs' rules with tcpstart's knobs (docs/model.md).
    Rfc,
    /// Linux's (docs/linux-profile.md): its receiver's ACKs and window, ssthresh and PRR from
    /// cwnd, and Linux's defaults for MSS, RTO minimum, delayed-ACK timeout, quick ACKs, PRR.
    Linux,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Rfc, Profile::Linux];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Linux => "linux",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How the sender sets its window during SACK recovery (`tcp.recovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryWindow {
    /// RFC 6675: cwnd = ssthresh at once; send while pipe < cwnd.
    Rfc6675,
    /// RFC 6937 PRR-SSRB, as Linux and ns-3: the reduction spread over the recovery's round trip.
    Prr,
}

/// When an ACK that advances SND.UNA during fast recovery restarts the retransmission timer
/// (`tcp.rto_restart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// RFC 6298 5.3, Linux `tcp_rearm_rto`: every such ACK.
    EveryAck,
    /// RFC 6582's "impatient" variant, ns-3: only the first partial ACK of a recovery.
    FirstPartialAck,
}

impl RecoveryWindow {
    pub const ALL: [RecoveryWindow; 2] = [RecoveryWindow::Rfc6675, RecoveryWindow::Prr];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryWindow::Rfc6675 => "rfc6675",
            RecoveryWindow::Prr => "prr",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl RtoRestart {
    pub const ALL: [RtoRestart; 2] = [RtoRestart::EveryAck, RtoRestart::FirstPartialAck];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            RtoRestart::EveryAck => "every_ack",
            RtoRestart::FirstPartialAck => "first_partial_ack",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSpec {
    pub algorithm: String,
    pub params: BTreeMap<String, f64>,
    /// `None` = unlimited.
    pub size: Option<u64>,
    pub start: Duration,
    pub access_rate_bps: f64,
    pub access_delay: Duration,
    /// Sorted, 1-based data transmission numbers the bottleneck drops.
    pub drop_transmissions: Vec<u64>,
    pub tcp: TcpConfig,
    pub class: String,
    /// Host pair the flow runs between (index into `Scenario::hosts`).
    pub host: u32,
    /// Which way the data goes.
    pub direction: Direction,
    /// The web page this object belongs to; its `start` is then the offset within the page.
    pub page: Option<u32>,
}

impl FlowSpec {
    /// Round-trip propagation delay of this flow's path (both access links, both directions).
    pub fn base_rtt(&self, net: &Network) -> Duration {
        2 * (net.delay + 2 * self.access_delay)
    }

    /// The bandwidth-delay product of this flow's path, whole bytes: what the summary's
    /// `bdp_bytes` reports and `time_to_bdp` waits for.
    pub fn bdp(&self, net: &Network) -> u64 {
        bdp_bytes(net.rate_bps, self.base_rtt(net)) as u64
    }
}

/// The bandwidth-delay product, in bytes, of a bottleneck of `rate_bps` and a base RTT: the one
/// definition behind queue limits given in `bdp` and the flows' BDP.
pub fn bdp_bytes(rate_bps: f64, base_rtt: Duration) -> f64 {
    rate_bps / 8.0 * base_rtt.as_secs_f64()
}

#[derive(Clone, Debug, Serialize)]
pub struct TraceSpec {
    pub interval: Duration,
    pub queue_interval: Duration,
    pub packets: bool,
    pub pcap: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub seed: u64,
    pub duration: Option<Duration>,
    pub network: Network,
    /// Host pairs: a sender-side and a receiver-side host with their own access links.
    pub hosts: Vec<Host>,
    /// One entry per TCP flow: `count` and schedules expanded, then every web object.
    pub flows: Vec<FlowSpec>,
    /// Web pages, whose objects are flows.
    pub pages: Vec<Page>,
    /// One entry per UDP source (`count` expanded).
    pub udp: Vec<UdpSpec>,
    pub trace: TraceSpec,
}

/// The access links of a host pair (all four links have this rate and delay).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Host {
    pub access_rate_bps: f64,
    pub access_delay: Duration,
}

/// Parses, checks and expands a scenario given as JSON text.
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    parse(text)?.validate()
}

/// Parses and resolves a scenario given as JSON text, and writes it back with every default
/// filled in, in user units (written.rs): JSON that `from_json` reads as the same scenario.
pub fn resolved_json(text: &str) -> Result<serde_json::Value, ScenarioError> {
    Ok(parse(text)?.resolve()?.written())
}

impl RawScenario {
    /// Checks every field and expands the scenario into the run's.
    pub fn validate(&self) -> Result<Scenario, ScenarioError> {
        Ok(self.resolve()?.expand())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_defaults_and_a_flows_own_settings() {
        let s = crate::scenario::from_json(
            r#"{"network": {"rate": "10Mbps", "rtt": "100ms"}, "tcp": {"mss": 1000},
                "flows": [{"size": 1000}, {"size": 1000, "tcp": {"rto_min": "200ms", "rcv_buf": "1MB"}}]}"#,
        )
        .unwrap();
        let (plain, own) = (&s.flows[0].tcp, &s.flows[1].tcp);
        // RFC 6298's 1 s initial and minimum RTO, Linux's 200 ms delayed-ACK timeout, 16 MB buffer.
        assert_eq!(plain.mss, 1000);
        assert_eq!(
            (plain.rto_initial, plain.rto_min, plain.rto_max),
            (Duration::from_secs(1), Duration::from_secs(1), Duration::from_secs(60))
        );
        assert_eq!(
            (plain.delack_timeout, plain.clock_granularity, plain.clock_tick),
            (Duration::from_millis(200), Duration::from_millis(1), Duration::ZERO)
        );
        assert_eq!(plain.rcv_buf, 16_000_000);
        assert_eq!((own.mss, own.rto_min, own.rcv_buf), (1000, Duration::from_millis(200), 1_000_000));
        assert_eq!((own.rto_initial, own.rto_max), (plain.rto_initial, plain.rto_max));
    }
}
