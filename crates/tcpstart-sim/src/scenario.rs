//! Scenario description: the one place where user input is parsed and validated.
//!
//! TOML files and Python objects both arrive here as JSON-shaped data. Parsing is strict (unknown
//! fields are errors) and every range check names the field and the allowed range, so the CLI and
//! the Python API report the same one-line messages.

use std::collections::BTreeMap;
use std::fmt::Display;

use core::time::Duration;
use serde::{Deserialize, Serialize};

use crate::ack_compression::{AckCompressionMode, AckCompressionSpec};
use crate::error::ScenarioError;
use crate::packet::Direction;
use crate::queue::{CodelParams, RedParams};
use crate::quick_start::QuickStartSpec;
use crate::traffic::dist::Lomax;
use crate::traffic::schedule::{start_times, Arrivals};
use crate::traffic::udp::{OnOff, OnOffKind, UdpSpec};
use crate::traffic::web::{generate, Page, WebSpec};
use crate::traffic::{stream, Stream};
use crate::units::{parse_bytes, parse_queue, parse_rate, parse_time, QueueLimit};

mod estimate;
mod time_varying;
pub use estimate::{Estimate, Limits, RawLimits};
pub use time_varying::RawChange;

/// A value written either as a number or as a string with a unit.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Quantity {
    Number(f64),
    Text(String),
}

/// By hand rather than `#[serde(untagged)]`, which buffers the value and builds an error message
/// for every variant that does not match: a tenth of the time of parsing a small scenario.
impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NumberOrText;
        impl serde::de::Visitor<'_> for NumberOrText {
            type Value = Quantity;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a string with a unit")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Quantity, E> {
                Ok(Quantity::Number(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity::Number(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity::Text(v.to_owned()))
            }
        }
        d.deserialize_any(NumberOrText)
    }
}

impl Quantity {
    fn text(&self) -> String {
        match self {
            Quantity::Number(n) => n.to_string(),
            Quantity::Text(t) => t.clone(),
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    pub seed: Option<u64>,
    /// Simulated time limit; required when a flow is unlimited.
    pub duration: Option<Quantity>,
    pub network: RawNetwork,
    #[serde(default)]
    pub tcp: RawTcp,
    /// Algorithm of every TCP flow and web object that names none; "newreno" when unset.
    pub algorithm: Option<String>,
    #[serde(default)]
    pub flows: Vec<RawFlow>,
    #[serde(default)]
    pub udp: Vec<RawUdp>,
    #[serde(default)]
    pub web: Vec<RawWeb>,
    #[serde(default)]
    pub trace: RawTrace,
    /// What the run may use: it is refused before it starts if its estimate exceeds these.
    #[serde(default)]
    pub limits: RawLimits,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawNetwork {
    pub rate: Option<Quantity>,
    pub reverse_rate: Option<Quantity>,
    /// Base round-trip time of the path (propagation only); alternative to `delay`.
    pub rtt: Option<Quantity>,
    /// One-way propagation delay of the bottleneck link; alternative to `rtt`.
    pub delay: Option<Quantity>,
    pub queue: Option<Quantity>,
    pub reverse_queue: Option<Quantity>,
    pub loss: Option<f64>,
    pub reverse_loss: Option<f64>,
    pub access_rate: Option<Quantity>,
    pub access_delay: Option<Quantity>,
    pub access_queue: Option<Quantity>,
    /// Number of host pairs sharing the dumbbell; when unset, every TCP flow, web session and
    /// UDP source gets a pair of its own.
    pub hosts: Option<u32>,
    /// Queue discipline of the bottleneck; `reverse_aqm` defaults to the same.
    pub aqm: Option<RawAqm>,
    pub reverse_aqm: Option<RawAqm>,
    /// Bit-error rate of each bottleneck direction.
    pub ber: Option<f64>,
    pub reverse_ber: Option<f64>,
    /// Forwarding rate cap (packets per second) of the router feeding each bottleneck direction;
    /// `reverse_router_pps` defaults to the same.
    pub router_pps: Option<f64>,
    pub reverse_router_pps: Option<f64>,
    /// ACK compression at the router feeding each bottleneck direction. The ACKs of the normal
    /// (left-to-right) flows travel on `bottleneck_rev`, so `reverse_ack_compression` acts on them.
    pub ack_compression: Option<RawAckCompression>,
    pub reverse_ack_compression: Option<RawAckCompression>,
    /// Receiver hosts' processing jitter: the longest extra time a packet a receiver sends (the
    /// ACKs of the flows) waits in the host, drawn per packet; off when unset or zero.
    pub ack_jitter: Option<Quantity>,
    /// A Quick-Start router (RFC 4782) deciding the requests of the SYNs that cross the
    /// bottleneck (the data direction of the normal flows).
    pub quick_start: Option<RawQuickStart>,
    /// Changes of the bottleneck's rate and delay over time (`[[network.schedule]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<RawChange>,
    /// The schedule repeats with this period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_period: Option<Quantity>,
    /// A mahimahi delivery trace file for each bottleneck direction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_trace: Option<String>,
}

/// A queue discipline: `kind` is droptail, red or codel; the other fields belong to one kind.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawAqm {
    pub kind: Option<String>,
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    pub weight: Option<f64>,
    pub max_p: Option<f64>,
    pub gentle: Option<bool>,
    pub wait: Option<bool>,
    pub mean_packet_size: Option<u32>,
    pub target: Option<Quantity>,
    pub interval: Option<Quantity>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawAckCompression {
    /// "release" (back-to-back) or "merge" (keep the latest ACK).
    pub mode: Option<String>,
    pub interval: Option<Quantity>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawQuickStart {
    /// Share of the bottleneck's capacity that load and approved rates may take together.
    pub threshold: Option<f64>,
    /// How far back the router measures its load, and how long an approval counts.
    pub interval: Option<Quantity>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawTcp {
    pub mss: Option<u32>,
    pub initial_window: Option<Quantity>,
    pub initial_ssthresh: Option<Quantity>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub window_scaling: Option<bool>,
    pub rcv_buf: Option<Quantity>,
    pub delayed_ack: Option<bool>,
    pub delack_count: Option<u32>,
    pub delack_timeout: Option<Quantity>,
    /// ACKs sent at once, one per segment, when data starts (Linux quick-ACK mode); 0 = off.
    pub quickack: Option<u32>,
    /// Data segments a connection sends before a controller's pacing rate spaces them (Linux: 10).
    pub unpaced_segments: Option<u32>,
    pub rto_initial: Option<Quantity>,
    pub rto_min: Option<Quantity>,
    pub rto_max: Option<Quantity>,
    pub clock_granularity: Option<Quantity>,
    /// Tick of the sender's clock (jiffies); 0 = exact.
    pub clock_tick: Option<Quantity>,
    pub fast_retransmit: Option<bool>,
    pub limited_transmit: Option<bool>,
    pub dupthresh: Option<u32>,
    /// Window during SACK recovery: "rfc6675" (cwnd = ssthresh at once) or "prr" (RFC 6937).
    pub recovery: Option<String>,
    /// Retransmission timer during recovery: "every_ack" or "first_partial_ack".
    pub rto_restart: Option<String>,
    /// Whose TCP the endpoints model where the RFCs leave a choice: "rfc" or "linux".
    pub profile: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlow {
    pub algorithm: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Bytes to transfer; omitted or "unlimited" for a bulk flow that never ends.
    pub size: Option<Quantity>,
    pub start: Option<Quantity>,
    /// Number of identical flows this entry stands for (each gets its own host pair).
    pub count: Option<u32>,
    pub access_rate: Option<Quantity>,
    pub access_delay: Option<Quantity>,
    /// Data transmissions of this flow (1-based, counting retransmissions) that the bottleneck
    /// drops: a scripted loss pattern for studying recovery.
    #[serde(default)]
    pub drop_transmissions: Vec<u64>,
    #[serde(default)]
    pub tcp: RawTcp,
    /// Label the summary groups flows by; the algorithm's name when unset.
    pub class: Option<String>,
    /// "forward" (data from the senders' side) or "reverse" (from the receivers' side).
    pub direction: Option<String>,
    /// Host pair (0-based) when `network.hosts` is set; round robin when unset.
    pub host: Option<u32>,
    /// Spacing of the `count` flows' starts (mean spacing for Poisson arrivals).
    pub interval: Option<Quantity>,
    /// "periodic" or "poisson".
    pub arrivals: Option<String>,
    /// Explicit start times, one flow each (instead of start/count/interval/arrivals).
    pub starts: Option<Vec<Quantity>>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawUdp {
    pub rate: Option<Quantity>,
    /// Datagram payload bytes.
    pub packet_size: Option<u32>,
    pub start: Option<Quantity>,
    pub stop: Option<Quantity>,
    pub on: Option<Quantity>,
    pub off: Option<Quantity>,
    /// "fixed" or "exponential" on/off durations.
    pub on_off: Option<String>,
    pub direction: Option<String>,
    pub host: Option<u32>,
    pub class: Option<String>,
    pub count: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawWeb {
    pub sessions: Option<u32>,
    pub session_interval: Option<Quantity>,
    pub start: Option<Quantity>,
    pub pages: Option<u32>,
    pub page_objects_mean: Option<f64>,
    pub page_objects_shape: Option<f64>,
    pub page_interval: Option<Quantity>,
    pub object_packets_mean: Option<f64>,
    pub object_packets_shape: Option<f64>,
    pub object_interval: Option<Quantity>,
    pub algorithm: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    #[serde(default)]
    pub tcp: RawTcp,
    pub direction: Option<String>,
    pub host: Option<u32>,
    pub class: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    /// Minimum spacing of per-flow samples (a phase change is always recorded).
    pub interval: Option<Quantity>,
    pub queue_interval: Option<Quantity>,
    pub packets: Option<bool>,
    /// Links whose packets are written to a pcap file.
    #[serde(default)]
    pub pcap: Vec<String>,
}

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
}

/// Samples per flow and per link that the default trace interval allows over a run's duration.
pub const DEFAULT_TRACE_SAMPLES: u32 = 10_000;

/// 1 ms, or a tenth of a thousandth of the duration when that is longer: a run's time series then
/// hold at most about [`DEFAULT_TRACE_SAMPLES`] rows per flow and link however long it runs, so
/// memory does not grow with simulated time. Runs without a duration end with their transfers.
fn default_trace_interval(duration: Option<Duration>) -> Duration {
    let by_duration = duration.map_or(Duration::ZERO, |d| d / DEFAULT_TRACE_SAMPLES);
    by_duration.max(Duration::from_millis(1))
}

/// A time-series grid step: 0 (a row at every change) or at least 1 us, below which the grid
/// would hold more rows than any run can use.
fn trace_interval(field: &str, q: &Option<Quantity>, default: Duration) -> Result<Duration, ScenarioError> {
    let Some(q) = q else { return Ok(default) };
    let d = time(field, q, Duration::ZERO, MAX_TIME)?;
    if !d.is_zero() && d < Duration::from_micros(1) {
        return Err(ScenarioError::new(
            field,
            format!("must be 0s (a row at every change) or at least 1us, got {}", q.text()),
        ));
    }
    Ok(d)
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

/// Parses and validates a scenario given as JSON text.
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    parse(text)?.validate()
}

/// Parses a scenario given as JSON text, without checking its values.
pub fn parse(text: &str) -> Result<RawScenario, ScenarioError> {
    // serde reads a struct from a list of its fields in order too; a whole scenario never is one.
    if text.trim_start().starts_with('[') {
        return Err(ScenarioError::new("", "a scenario must be a table, got a list"));
    }
    // Tracking the field path costs an allocation per key; only an error needs it, so a scenario
    // that does not parse is parsed a second time, with the path.
    match serde_json::from_str::<RawScenario>(text) {
        Ok(raw) => Ok(raw),
        Err(_) => with_path(&mut serde_json::Deserializer::from_str(text)),
    }
}

/// Reads a scenario again that failed to read, for the error with the path of the field at fault.
pub fn with_path<'de, D: serde::Deserializer<'de>>(de: D) -> Result<RawScenario, ScenarioError> {
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = crate::error::one_line(&e.path().to_string());
        let message = crate::error::one_line(&e.inner().to_string());
        // serde_json appends " at line L column C", which means nothing to a TOML or Python user.
        let message = message.split(" at line ").next().unwrap_or(&message);
        let parent = if field == "." { String::new() } else { format!("{field}.") };
        match message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
            Some(name) => ScenarioError::new(format!("{parent}{name}"), "is required"),
            None => ScenarioError::new(parent.trim_end_matches('.'), crate::error::in_user_terms(message)),
        }
    })
}

fn rate(field: &(impl Display + ?Sized), q: &Quantity, min: f64, max: f64) -> Result<f64, ScenarioError> {
    let v = match q {
        Quantity::Number(n) => *n,
        Quantity::Text(t) => parse_rate(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(
            field,
            format!("must be between {} and {}, got {}", fmt_rate(min), fmt_rate(max), q.text()),
        ));
    }
    Ok(v)
}

fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{}Gbps", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{}Mbps", bps / 1e6)
    } else if bps >= 1e3 {
        format!("{}Kbps", bps / 1e3)
    } else {
        format!("{bps}bps")
    }
}

/// The longest receiver processing jitter: longer would be an outage, not jitter.
const MAX_ACK_JITTER: Duration = Duration::from_secs(1);

fn time(
    field: &(impl Display + ?Sized),
    q: &Quantity,
    min: Duration,
    max: Duration,
) -> Result<Duration, ScenarioError> {
    let d = match q {
        Quantity::Number(n) if !n.is_finite() => {
            return Err(ScenarioError::new(
                field,
                format!("must be a time with a unit between {min:?} and {max:?}, got {}", q.text()),
            ))
        }
        Quantity::Number(_) => {
            return Err(ScenarioError::new(field, format!("give a unit, e.g. \"{}ms\" or \"{}s\"", q.text(), q.text())))
        }
        Quantity::Text(t) => parse_time(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    time_within(field, d, &q.text(), min, max)
}

/// `d`, written `given`, if it lies in [min, max].
fn time_within(
    field: &(impl Display + ?Sized),
    d: Duration,
    given: &str,
    min: Duration,
    max: Duration,
) -> Result<Duration, ScenarioError> {
    if d < min || d > max {
        return Err(ScenarioError::new(field, format!("must be between {min:?} and {max:?}, got {given}")));
    }
    Ok(d)
}

/// A built-in time default, with the text an error shows for it. Held as a value: parsing each
/// default from its text for the scenario and for every flow was a tenth of the core call's cost
/// around a small run (docs/performance.md, "Thirteenth round: B5's overhead after the faster
/// core").
struct TimeDefault {
    value: Duration,
    text: &'static str,
}

const RTO_INITIAL: TimeDefault = TimeDefault { value: Duration::from_secs(1), text: "1s" };
const RTO_MIN: TimeDefault = TimeDefault { value: Duration::from_secs(1), text: "1s" };
const RTO_MAX: TimeDefault = TimeDefault { value: Duration::from_secs(60), text: "60s" };
const LINUX_RTO_MIN: TimeDefault = TimeDefault { value: Duration::from_millis(200), text: "200ms" };
const LINUX_DELACK_TIMEOUT: TimeDefault = TimeDefault { value: Duration::from_millis(40), text: "40ms" };
const DELACK_TIMEOUT: TimeDefault = TimeDefault { value: Duration::from_millis(200), text: "200ms" };
const CLOCK_GRANULARITY: TimeDefault = TimeDefault { value: Duration::from_millis(1), text: "1ms" };
const CLOCK_TICK: TimeDefault = TimeDefault { value: Duration::ZERO, text: "0s" };
/// 16 MB.
const RCV_BUF: u64 = 16_000_000;

fn bytes(field: &(impl Display + ?Sized), q: &Quantity, min: f64, max: f64) -> Result<u64, ScenarioError> {
    let v = match q {
        Quantity::Number(n) => *n,
        Quantity::Text(t) => parse_bytes(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(field, format!("must be between {min} and {max} bytes, got {}", q.text())));
    }
    Ok(v.round() as u64)
}

fn fraction(field: &str, v: f64) -> Result<f64, ScenarioError> {
    if !(0.0..1.0).contains(&v) {
        return Err(ScenarioError::new(field, format!("must be a probability in [0, 1), got {v}")));
    }
    Ok(v)
}

fn in_range<T: PartialOrd + Display + Copy>(
    field: &(impl Display + ?Sized),
    v: T,
    min: T,
    max: T,
) -> Result<T, ScenarioError> {
    // Written so that NaN, which compares false with everything, is outside every range.
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(field, format!("must be between {min} and {max}, got {v}")));
    }
    Ok(v)
}

const MAX_TIME: Duration = Duration::from_secs(100_000);
/// Flows one `[[flows]]` entry (`count` or `starts`) or `[[udp]]` entry stands for.
const MAX_FLOWS_PER_ENTRY: u32 = 100_000;
/// The default `tcp.mss`.
const MSS: u32 = 1460;
/// The default `tcp.mss` of the Linux profile: a 1500-byte MTU less 52 bytes of IP and TCP
/// headers with the timestamp option.
const LINUX_MSS: u32 = 1448;

/// The path `parent.name` of a field, written out only when printed.
#[derive(Clone, Copy)]
struct Field<'a>(&'a str, &'static str);

impl Display for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl RawTcp {
    /// Fields set here win over `base`.
    fn over(&self, base: &RawTcp) -> RawTcp {
        macro_rules! pick {
            ($($f:ident),*) => { RawTcp { $($f: self.$f.clone().or_else(|| base.$f.clone())),* } };
        }
        pick!(
            mss,
            initial_window,
            initial_ssthresh,
            sack,
            timestamps,
            window_scaling,
            rcv_buf,
            delayed_ack,
            delack_count,
            delack_timeout,
            quickack,
            unpaced_segments,
            rto_initial,
            rto_min,
            rto_max,
            clock_granularity,
            clock_tick,
            fast_retransmit,
            limited_transmit,
            dupthresh,
            recovery,
            rto_restart,
            profile
        )
    }

    pub(crate) fn resolve(&self, at: &str) -> Result<TcpConfig, ScenarioError> {
        // Resolved for every flow: the field paths are only written out for an error.
        let f = |name: &'static str| Field(at, name);
        let t = |name: &'static str, q: &Option<Quantity>, default: &TimeDefault, min, max| match q {
            Some(q) => time(&f(name), q, min, max),
            // Checked all the same: the default rto_max is too small for an rto_min above it.
            None => time_within(&f(name), default.value, default.text, min, max),
        };
        let profile = match self.profile.as_deref() {
            None | Some("rfc") => Profile::Rfc,
            Some("linux") => Profile::Linux,
            Some(other) => {
                return Err(ScenarioError::new(f("profile"), format!("must be \"rfc\" or \"linux\", got {other:?}")))
            }
        };
        let linux = profile == Profile::Linux;
        // Linux's defaults: MSS of a 1500-byte MTU with timestamps, TCP_RTO_MIN (as the RTO's
        // floor and its variance term's), TCP_ATO_MIN, TCP_MAX_QUICKACKS, PRR.
        let mss = in_range(&f("mss"), self.mss.unwrap_or(if linux { LINUX_MSS } else { MSS }), 64, 65_000)?;
        let initial_window = match &self.initial_window {
            None => 10 * mss as u64,
            Some(Quantity::Number(n)) => {
                let segs = in_range(&f("initial_window"), *n, 1.0, 100_000.0)?;
                if segs.fract() != 0.0 {
                    return Err(ScenarioError::new(
                        f("initial_window"),
                        format!("a number of segments must be whole, got {n}"),
                    ));
                }
                segs as u64 * mss as u64
            }
            Some(q) => bytes(&f("initial_window"), q, mss as f64, 1e10)?,
        };
        let initial_ssthresh = match &self.initial_ssthresh {
            None => u64::MAX,
            Some(Quantity::Text(s)) if s == "inf" || s == "infinite" => u64::MAX,
            Some(Quantity::Number(n)) => in_range(&f("initial_ssthresh"), *n, 2.0, 1e9)? as u64 * mss as u64,
            Some(q) => bytes(&f("initial_ssthresh"), q, 2.0 * mss as f64, 1e15)?,
        };
        let rto_min = t(
            "rto_min",
            &self.rto_min,
            if linux { &LINUX_RTO_MIN } else { &RTO_MIN },
            Duration::from_micros(1),
            MAX_TIME,
        )?;
        let rto_max = t("rto_max", &self.rto_max, &RTO_MAX, rto_min, MAX_TIME)?;
        let sack = self.sack.unwrap_or(true);
        Ok(TcpConfig {
            mss,
            initial_window,
            initial_ssthresh,
            sack,
            timestamps: self.timestamps.unwrap_or(true),
            window_scaling: self.window_scaling.unwrap_or(true),
            rcv_buf: match &self.rcv_buf {
                Some(q) => bytes(&f("rcv_buf"), q, mss as f64, 1e12)?,
                // Within the range whatever the MSS: it is at most 65 000 bytes.
                None => RCV_BUF,
            },
            delayed_ack: self.delayed_ack.unwrap_or(true),
            delack_count: in_range(&f("delack_count"), self.delack_count.unwrap_or(2), 1, 64)?,
            delack_timeout: t(
                "delack_timeout",
                &self.delack_timeout,
                if linux { &LINUX_DELACK_TIMEOUT } else { &DELACK_TIMEOUT },
                Duration::from_micros(1),
                Duration::from_millis(500),
            )?,
            quickack: in_range(&f("quickack"), self.quickack.unwrap_or(if linux { 16 } else { 0 }), 0, 100_000)?,
            unpaced_segments: in_range(
                &f("unpaced_segments"),
                self.unpaced_segments.unwrap_or(if linux { 10 } else { 0 }),
                0,
                100_000,
            )?,
            rto_initial: t("rto_initial", &self.rto_initial, &RTO_INITIAL, Duration::from_micros(1), MAX_TIME)?,
            rto_min,
            rto_max,
            clock_granularity: t(
                "clock_granularity",
                &self.clock_granularity,
                // Linux's RTO is SRTT + max(4 mdev, TCP_RTO_MIN) (`tcp_rtt_estimator` floors
                // rttvar at the minimum RTO): RFC 6298's G in that role.
                if linux { &LINUX_RTO_MIN } else { &CLOCK_GRANULARITY },
                Duration::ZERO,
                Duration::from_secs(1),
            )?,
            clock_tick: t("clock_tick", &self.clock_tick, &CLOCK_TICK, Duration::ZERO, Duration::from_secs(1))?,
            fast_retransmit: self.fast_retransmit.unwrap_or(true),
            limited_transmit: self.limited_transmit.unwrap_or(true),
            dupthresh: in_range(&f("dupthresh"), self.dupthresh.unwrap_or(3), 1, 1000)?,
            recovery: match self.recovery.as_deref() {
                None if linux => RecoveryWindow::Prr,
                None | Some("rfc6675") => RecoveryWindow::Rfc6675,
                Some("prr") => RecoveryWindow::Prr,
                Some(other) => {
                    return Err(ScenarioError::new(
                        f("recovery"),
                        format!("must be \"rfc6675\" or \"prr\", got {other:?}"),
                    ))
                }
            },
            rto_restart: match self.rto_restart.as_deref() {
                Some("every_ack") => RtoRestart::EveryAck,
                Some("first_partial_ack") => RtoRestart::FirstPartialAck,
                // RFC 6298 with SACK (Linux); RFC 6582's recommendation for NewReno without.
                None if sack || linux => RtoRestart::EveryAck,
                None => RtoRestart::FirstPartialAck,
                Some(other) => {
                    return Err(ScenarioError::new(
                        f("rto_restart"),
                        format!("must be \"every_ack\" or \"first_partial_ack\", got {other:?}"),
                    ))
                }
            },
            profile,
        })
    }
}

fn limit(field: &str, q: &Quantity, bdp_bytes: f64, mtu: f64) -> Result<Limit, ScenarioError> {
    let parsed = match q {
        Quantity::Number(n) => QueueLimit::Packets(*n),
        Quantity::Text(t) => parse_queue(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    let out = match parsed {
        QueueLimit::Packets(p) if p >= 1.0 && p.fract() == 0.0 && p <= 1e9 => Limit::Packets(p as u64),
        QueueLimit::Packets(p) => {
            return Err(ScenarioError::new(
                field,
                format!("must hold a whole number of packets between 1 and 1e9, got {p}"),
            ))
        }
        QueueLimit::Bytes(b) if b >= mtu && b <= 1e13 => Limit::Bytes(b as u64),
        QueueLimit::Bytes(b) => {
            return Err(ScenarioError::new(
                field,
                format!("must hold at least one packet ({mtu} bytes), got {b} bytes"),
            ))
        }
        QueueLimit::Bdp(x) if x > 0.0 && x <= 1e4 => Limit::Packets(((x * bdp_bytes / mtu).round() as u64).max(1)),
        QueueLimit::Bdp(x) => {
            return Err(ScenarioError::new(field, format!("must be more than 0 and at most 1e4 BDP, got {x}")))
        }
    };
    Ok(out)
}

const AQM_KINDS: &str = "droptail, red or codel";
const RED_FIELDS: [&str; 7] = ["min_th", "max_th", "weight", "max_p", "gentle", "wait", "mean_packet_size"];
const CODEL_FIELDS: [&str; 2] = ["target", "interval"];

impl RawAqm {
    /// The names of the fields that were given, in declaration order.
    fn given(&self) -> Vec<&'static str> {
        let set = [
            ("min_th", self.min_th.is_some()),
            ("max_th", self.max_th.is_some()),
            ("weight", self.weight.is_some()),
            ("max_p", self.max_p.is_some()),
            ("gentle", self.gentle.is_some()),
            ("wait", self.wait.is_some()),
            ("mean_packet_size", self.mean_packet_size.is_some()),
            ("target", self.target.is_some()),
            ("interval", self.interval.is_some()),
        ];
        set.into_iter().filter(|(_, given)| *given).map(|(name, _)| name).collect()
    }

    fn resolve(&self, at: &str) -> Result<Aqm, ScenarioError> {
        let f = |name: &str| format!("{at}.{name}");
        let kind =
            self.kind.as_deref().ok_or_else(|| ScenarioError::new(f("kind"), format!("is required: {AQM_KINDS}")))?;
        let own: &[&str] = match kind {
            "droptail" => &[],
            "red" => &RED_FIELDS,
            "codel" => &CODEL_FIELDS,
            other => return Err(ScenarioError::new(f("kind"), format!("must be {AQM_KINDS}, got {other:?}"))),
        };
        if let Some(stray) = self.given().into_iter().find(|g| !own.contains(g)) {
            let owner = if RED_FIELDS.contains(&stray) { "red" } else { "codel" };
            return Err(ScenarioError::new(f(stray), format!("applies to kind = \"{owner}\" only, not {kind:?}")));
        }
        Ok(match kind {
            "red" => {
                let d = RedParams::default();
                let min_th = in_range(&f("min_th"), self.min_th.unwrap_or(d.min_th), 0.0, 1e9)?;
                let max_th = self.max_th.unwrap_or(d.max_th.max(min_th));
                if !(max_th >= min_th && max_th > 0.0 && max_th <= 1e9) {
                    return Err(ScenarioError::new(
                        f("max_th"),
                        format!(
                            "must be more than 0, at least min_th ({min_th}) and at most 1e9 packets, got {max_th}"
                        ),
                    ));
                }
                let weight = self.weight.unwrap_or(d.weight);
                if !(weight > 0.0 && weight <= 1.0) {
                    return Err(ScenarioError::new(f("weight"), format!("must be in (0, 1], got {weight}")));
                }
                let max_p = self.max_p.unwrap_or(d.max_p);
                if !(max_p > 0.0 && max_p <= 1.0) {
                    return Err(ScenarioError::new(
                        f("max_p"),
                        format!("must be a probability in (0, 1], got {max_p}"),
                    ));
                }
                Aqm::Red(RedParams {
                    min_th,
                    max_th,
                    weight,
                    max_p,
                    gentle: self.gentle.unwrap_or(d.gentle),
                    wait: self.wait.unwrap_or(d.wait),
                    mean_packet_size: in_range(
                        &f("mean_packet_size"),
                        self.mean_packet_size.unwrap_or(d.mean_packet_size),
                        1,
                        65_535,
                    )?,
                })
            }
            "codel" => {
                let d = CodelParams::default();
                let t = |name: &str, q: &Option<Quantity>, default: Duration| match q {
                    Some(q) => time(&f(name), q, Duration::from_micros(1), Duration::from_secs(100)),
                    None => Ok(default),
                };
                Aqm::Codel(CodelParams {
                    target: t("target", &self.target, d.target)?,
                    interval: t("interval", &self.interval, d.interval)?,
                })
            }
            _ => Aqm::DropTail,
        })
    }
}

impl RawAckCompression {
    fn resolve(&self, at: &str) -> Result<AckCompressionSpec, ScenarioError> {
        let f = |name: &str| format!("{at}.{name}");
        let mode = match self.mode.as_deref() {
            Some("release") => AckCompressionMode::Release,
            Some("merge") => AckCompressionMode::Merge,
            Some(other) => {
                return Err(ScenarioError::new(f("mode"), format!("must be release or merge, got {other:?}")))
            }
            None => return Err(ScenarioError::new(f("mode"), "is required: release or merge")),
        };
        let interval =
            self.interval.as_ref().ok_or_else(|| ScenarioError::new(f("interval"), "is required, e.g. \"10ms\""))?;
        Ok(AckCompressionSpec {
            mode,
            interval: time(&f("interval"), interval, Duration::from_nanos(1), Duration::from_secs(10))?,
        })
    }
}

impl RawQuickStart {
    /// Defaults: a router that lets offered load and approvals fill 80 % of the link, judged
    /// over the last second.
    const THRESHOLD: f64 = 0.8;
    const INTERVAL: Duration = Duration::from_secs(1);

    fn resolve(&self, at: &str) -> Result<QuickStartSpec, ScenarioError> {
        let threshold = self.threshold.unwrap_or(Self::THRESHOLD);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(ScenarioError::new(
                format!("{at}.threshold"),
                format!("must be a share of the capacity in (0, 1], got {threshold}"),
            ));
        }
        let interval = match &self.interval {
            Some(q) => time(&format!("{at}.interval"), q, Duration::from_millis(1), Duration::from_secs(60))?,
            None => Self::INTERVAL,
        };
        Ok(QuickStartSpec { threshold, interval })
    }
}

fn bit_error_rate(field: &str, v: Option<f64>) -> Result<f64, ScenarioError> {
    let v = v.unwrap_or(0.0);
    if !(0.0..=0.01).contains(&v) {
        return Err(ScenarioError::new(field, format!("must be a bit-error rate between 0 and 0.01, got {v}")));
    }
    Ok(v)
}

fn packets_per_second(field: &str, v: Option<f64>) -> Result<Option<f64>, ScenarioError> {
    match v {
        Some(pps) if !(1.0..=1e9).contains(&pps) => {
            Err(ScenarioError::new(field, format!("must be between 1 and 1e9 packets per second, got {pps}")))
        }
        other => Ok(other),
    }
}

impl RawScenario {
    fn resolve_duration(&self) -> Result<Option<Duration>, ScenarioError> {
        self.duration.as_ref().map(|q| time("duration", q, Duration::from_nanos(1), MAX_TIME)).transpose()
    }

    /// The estimated size of this scenario's run and the limits it is held to, from the
    /// scenario as written: nothing is expanded, so a scenario far too large is sized at once.
    pub fn estimate(&self) -> Result<(Estimate, Limits), ScenarioError> {
        Ok((Estimate::of(self), self.limits()?))
    }

    /// Checks every field and resolves the scenario; refuses it, before expanding its traffic,
    /// when its estimated size exceeds its limits.
    pub fn validate(&self) -> Result<Scenario, ScenarioError> {
        let n = &self.network;
        let rate_bps = rate(
            "network.rate",
            n.rate.as_ref().ok_or_else(|| ScenarioError::new("network.rate", "is required, e.g. \"20Mbps\""))?,
            1e3,
            1e13,
        )?;
        let reverse_rate_bps = match &n.reverse_rate {
            Some(q) => rate("network.reverse_rate", q, 1e3, 1e13)?,
            None => rate_bps,
        };
        let access_rate_bps = match &n.access_rate {
            Some(q) => rate("network.access_rate", q, 1e3, 1e13)?,
            None => (10.0 * rate_bps).max(1e9),
        };
        let access_delay = match &n.access_delay {
            Some(q) => time("network.access_delay", q, Duration::ZERO, MAX_TIME)?,
            None => Duration::ZERO,
        };
        let delay = time_varying::bottleneck_delay("network", n.rtt.as_ref(), n.delay.as_ref(), access_delay)?
            .ok_or_else(|| ScenarioError::new("network.rtt", "is required (or network.delay), e.g. \"200ms\""))?;
        if self.flows.is_empty() && self.web.is_empty() && self.udp.is_empty() {
            return Err(ScenarioError::new("flows", "at least one flow, web workload or UDP source is required"));
        }
        let base_tcp = self.tcp.resolve("tcp")?;
        let mtu = base_tcp.mss as f64 + 40.0;
        let base_rtt = 2.0 * (delay + 2 * access_delay).as_secs_f64();
        let bdp = rate_bps / 8.0 * base_rtt;
        let default_queue = Quantity::Text("1bdp".into());
        let queue = limit("network.queue", n.queue.as_ref().unwrap_or(&default_queue), bdp, mtu)?;
        let aqm = match &n.aqm {
            Some(a) => a.resolve("network.aqm")?,
            None => Aqm::DropTail,
        };
        let full_data_packet = mtu as u32 + if base_tcp.timestamps { crate::packet::TIMESTAMP_OPTION_BYTES } else { 0 };
        let base_level = crate::link_schedule::Level { rate_bps, delay_ns: delay.as_nanos() as u64 };
        let varying = time_varying::resolve(n, base_level, access_delay, full_data_packet)?;
        let network = Network {
            rate_bps,
            reverse_rate_bps,
            delay,
            queue,
            reverse_queue: match &n.reverse_queue {
                Some(q) => limit("network.reverse_queue", q, bdp, mtu)?,
                None => queue,
            },
            loss: fraction("network.loss", n.loss.unwrap_or(0.0))?,
            reverse_loss: fraction("network.reverse_loss", n.reverse_loss.unwrap_or(0.0))?,
            access_queue: limit(
                "network.access_queue",
                n.access_queue.as_ref().unwrap_or(&Quantity::Number(10_000.0)),
                bdp,
                mtu,
            )?,
            aqm,
            reverse_aqm: match &n.reverse_aqm {
                Some(a) => a.resolve("network.reverse_aqm")?,
                None => aqm,
            },
            ber: bit_error_rate("network.ber", n.ber)?,
            reverse_ber: bit_error_rate("network.reverse_ber", n.reverse_ber)?,
            router_pps: packets_per_second("network.router_pps", n.router_pps)?,
            reverse_router_pps: packets_per_second(
                "network.reverse_router_pps",
                n.reverse_router_pps.or(n.router_pps),
            )?,
            ack_compression: n.ack_compression.as_ref().map(|a| a.resolve("network.ack_compression")).transpose()?,
            reverse_ack_compression: n
                .reverse_ack_compression
                .as_ref()
                .map(|a| a.resolve("network.reverse_ack_compression"))
                .transpose()?,
            ack_jitter: match &n.ack_jitter {
                Some(q) => {
                    Some(time("network.ack_jitter", q, Duration::ZERO, MAX_ACK_JITTER)?).filter(|d| !d.is_zero())
                }
                None => None,
            },
            quick_start: n.quick_start.as_ref().map(|q| q.resolve("network.quick_start")).transpose()?,
            schedule: varying.schedule,
            trace: varying.trace,
            reverse_trace: varying.reverse_trace,
        };

        let seed = self.seed.unwrap_or(1);
        let default_algorithm = match &self.algorithm {
            Some(a) => {
                check_algorithm("algorithm", a, &BTreeMap::new())?;
                a.clone()
            }
            None => "newreno".to_string(),
        };
        let (size, limits) = self.estimate()?;
        size.within(&limits)?;
        let mut hosts = HostPlan::new(n.hosts, Host { access_rate_bps, access_delay })?;
        let mut flows = Vec::new();
        let mut unlimited_entry = None;
        for (i, raw) in self.flows.iter().enumerate() {
            let at = format!("flows[{i}]");
            let algorithm = raw.algorithm.clone().unwrap_or_else(|| default_algorithm.clone());
            check_algorithm(&at, &algorithm, &raw.params)?;
            let size = match &raw.size {
                None => None,
                Some(Quantity::Text(t)) if t == "unlimited" || t == "inf" => None,
                Some(q) => Some(bytes(&format!("{at}.size"), q, 1.0, 1e15)?),
            };
            if size.is_none() && unlimited_entry.is_none() {
                unlimited_entry = Some(format!("{at} has no size (unlimited)"));
            }
            let starts = raw.start_times(&at, seed, i)?;
            let access = Host {
                access_rate_bps: match &raw.access_rate {
                    Some(q) => rate(&format!("{at}.access_rate"), q, 1e3, 1e13)?,
                    None => access_rate_bps,
                },
                access_delay: match &raw.access_delay {
                    Some(q) => time(&format!("{at}.access_delay"), q, Duration::ZERO, MAX_TIME)?,
                    None => access_delay,
                },
            };
            let own_access = raw.access_rate.is_some() || raw.access_delay.is_some();
            let spec = FlowSpec {
                class: raw.class.clone().unwrap_or_else(|| algorithm.clone()),
                algorithm,
                params: raw.params.clone(),
                size,
                start: Duration::ZERO,
                access_rate_bps: access.access_rate_bps,
                access_delay: access.access_delay,
                drop_transmissions: {
                    let mut d = raw.drop_transmissions.clone();
                    if d.contains(&0) {
                        return Err(ScenarioError::new(
                            format!("{at}.drop_transmissions"),
                            "transmissions are numbered from 1",
                        ));
                    }
                    d.sort_unstable();
                    d
                },
                // A flow without TCP settings of its own has the scenario's, resolved above.
                tcp: if raw.tcp == RawTcp::default() {
                    base_tcp.clone()
                } else {
                    raw.tcp.over(&self.tcp).resolve(&format!("{at}.tcp"))?
                },
                host: 0,
                direction: direction(&format!("{at}.direction"), &raw.direction)?,
                page: None,
            };
            for start in starts {
                let (host, access) = hosts.assign(&at, raw.host, own_access.then_some(access))?;
                flows.push(FlowSpec {
                    start,
                    host,
                    access_rate_bps: access.access_rate_bps,
                    access_delay: access.access_delay,
                    ..spec.clone()
                });
            }
        }
        let mut pages = Vec::new();
        for (i, raw) in self.web.iter().enumerate() {
            raw.expand(
                &format!("web[{i}]"),
                i,
                seed,
                &default_algorithm,
                &self.tcp,
                &mut hosts,
                &mut flows,
                &mut pages,
            )?;
        }
        let mut udp = Vec::new();
        for (i, raw) in self.udp.iter().enumerate() {
            let at = format!("udp[{i}]");
            let spec = raw.resolve(&at)?;
            if spec.stop.is_none() && unlimited_entry.is_none() {
                unlimited_entry = Some(format!("{at} has no stop time"));
            }
            for _ in 0..in_range(&format!("{at}.count"), raw.count.unwrap_or(1), 1, MAX_FLOWS_PER_ENTRY)? {
                let (host, _) = hosts.assign(&at, raw.host, None)?;
                udp.push(UdpSpec { host, ..spec.clone() });
            }
        }

        let duration = self.resolve_duration()?;
        if duration.is_none() {
            if let Some(why) = unlimited_entry {
                return Err(ScenarioError::new("duration", format!("is required because {why}")));
            }
        }

        let tr = &self.trace;
        let default_interval = default_trace_interval(duration);
        let trace = TraceSpec {
            interval: trace_interval("trace.interval", &tr.interval, default_interval)?,
            queue_interval: trace_interval("trace.queue_interval", &tr.queue_interval, default_interval)?,
            packets: tr.packets.unwrap_or(false),
            pcap: tr.pcap.clone(),
        };
        let hosts = hosts.hosts;
        let scenario = Scenario { seed, duration, network, hosts, flows, pages, udp, trace };
        for (i, name) in scenario.trace.pcap.iter().enumerate() {
            if !crate::topology::link_names(scenario.hosts.len()).iter().any(|l| l == name) {
                return Err(ScenarioError::new(
                    format!("trace.pcap[{i}]"),
                    format!("unknown link {name:?}; links are bottleneck, bottleneck_rev, sender<i>_out, sender<i>_in, receiver<i>_in, receiver<i>_out (i = 0..{}, the host pairs)", scenario.hosts.len() - 1),
                ));
            }
        }
        Ok(scenario)
    }
}

// Traffic: algorithms, directions, host pairs, start schedules, UDP sources and web workloads.

fn check_algorithm(at: &str, algorithm: &str, params: &BTreeMap<String, f64>) -> Result<(), ScenarioError> {
    tcpstart_cc::registry::resolve_params(algorithm, params).map(|_| ()).map_err(|e| {
        let field = match (e.key == algorithm, at) {
            (true, "algorithm") => at.to_string(),
            (true, _) => format!("{at}.algorithm"),
            (false, _) => format!("{at}.params.{}", e.key),
        };
        ScenarioError::new(field, e.message)
    })
}

fn direction(field: &str, raw: &Option<String>) -> Result<Direction, ScenarioError> {
    match raw.as_deref() {
        None => Ok(Direction::Forward),
        Some(d) => Direction::parse(d)
            .ok_or_else(|| ScenarioError::new(field, format!("must be {}, got {d:?}", Direction::NAMES))),
    }
}

fn shape(field: &str, v: f64) -> Result<f64, ScenarioError> {
    if !(v > 1.0 && v <= 100.0) {
        return Err(ScenarioError::new(
            field,
            format!("must be more than 1 (the mean is infinite otherwise) and at most 100, got {v}"),
        ));
    }
    Ok(v)
}

/// Hands out host pairs. Without `network.hosts` every caller gets a pair of its own (with its
/// own access links); with it, callers share `hosts` pairs, chosen by `host` or round robin.
struct HostPlan {
    shared: Option<u32>,
    next: u32,
    default: Host,
    hosts: Vec<Host>,
}

impl HostPlan {
    fn new(shared: Option<u32>, default: Host) -> Result<Self, ScenarioError> {
        let shared = shared.map(|n| in_range("network.hosts", n, 1, 10_000)).transpose()?;
        let hosts = vec![default; shared.unwrap_or(0) as usize];
        Ok(HostPlan { shared, next: 0, default, hosts })
    }

    /// A host pair for an entry at `at`: `host` if given, and access links `own` if the entry
    /// sets its own (only possible when it gets a pair of its own).
    fn assign(&mut self, at: &str, host: Option<u32>, own: Option<Host>) -> Result<(u32, Host), ScenarioError> {
        let Some(n) = self.shared else {
            if host.is_some() {
                return Err(ScenarioError::new(
                    format!("{at}.host"),
                    "needs network.hosts (the number of host pairs to share)",
                ));
            }
            let h = own.unwrap_or(self.default);
            self.hosts.push(h);
            return Ok((self.hosts.len() as u32 - 1, h));
        };
        if own.is_some() {
            return Err(ScenarioError::new(
                format!("{at}.access_rate"),
                "per-flow access links (access_rate, access_delay) need a host pair of their own; \
                 with network.hosts set, set network.access_rate and network.access_delay",
            ));
        }
        let h = match host {
            Some(h) => in_range(&format!("{at}.host"), h, 0, n - 1)?,
            None => {
                let h = self.next;
                self.next = (self.next + 1) % n;
                h
            }
        };
        Ok((h, self.hosts[h as usize]))
    }
}

impl RawFlow {
    /// When each of the flows this entry stands for starts.
    fn start_times(&self, at: &str, seed: u64, index: usize) -> Result<Vec<Duration>, ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        if let Some(list) = &self.starts {
            let clash = [
                ("start", self.start.is_some()),
                ("count", self.count.is_some()),
                ("interval", self.interval.is_some()),
                ("arrivals", self.arrivals.is_some()),
            ];
            if let Some((name, _)) = clash.iter().find(|(_, set)| *set) {
                return Err(ScenarioError::new(field("starts"), format!("give either starts or {name}, not both")));
            }
            if list.is_empty() || list.len() > MAX_FLOWS_PER_ENTRY as usize {
                return Err(ScenarioError::new(field("starts"), "must list between 1 and 100000 start times"));
            }
            return list
                .iter()
                .enumerate()
                .map(|(k, q)| time(&format!("{at}.starts[{k}]"), q, Duration::ZERO, MAX_TIME))
                .collect();
        }
        let start = match &self.start {
            Some(q) => time(&field("start"), q, Duration::ZERO, MAX_TIME)?,
            None => Duration::ZERO,
        };
        let count = in_range(&field("count"), self.count.unwrap_or(1), 1, MAX_FLOWS_PER_ENTRY)?;
        let interval = match &self.interval {
            Some(q) => time(&field("interval"), q, Duration::ZERO, MAX_TIME)?,
            None => Duration::ZERO,
        };
        let arrivals = match self.arrivals.as_deref() {
            None => Arrivals::Periodic,
            Some(a) => Arrivals::parse(a).ok_or_else(|| {
                ScenarioError::new(field("arrivals"), format!("must be {}, got {a:?}", Arrivals::NAMES))
            })?,
        };
        if arrivals == Arrivals::Poisson && interval.is_zero() {
            return Err(ScenarioError::new(field("interval"), "Poisson arrivals need a mean interval above 0"));
        }
        Ok(start_times(arrivals, start, interval, count, &mut stream(seed, Stream::FlowStarts(index))))
    }
}

impl RawUdp {
    fn resolve(&self, at: &str) -> Result<UdpSpec, ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        let rate_bps = rate(
            &field("rate"),
            self.rate.as_ref().ok_or_else(|| ScenarioError::new(field("rate"), "is required, e.g. \"2Mbps\""))?,
            1e3,
            1e13,
        )?;
        let start = match &self.start {
            Some(q) => time(&field("start"), q, Duration::ZERO, MAX_TIME)?,
            None => Duration::ZERO,
        };
        let stop = match &self.stop {
            Some(q) => Some(time(&field("stop"), q, start + Duration::from_nanos(1), MAX_TIME)?),
            None => None,
        };
        let period = |name: &str, q: &Quantity| time(&field(name), q, Duration::from_micros(1), MAX_TIME);
        let on_off = match (&self.on, &self.off) {
            (Some(on), Some(off)) => Some(OnOff {
                on: period("on", on)?,
                off: period("off", off)?,
                kind: match self.on_off.as_deref() {
                    None => OnOffKind::Fixed,
                    Some(k) => OnOffKind::parse(k).ok_or_else(|| {
                        ScenarioError::new(field("on_off"), format!("must be {}, got {k:?}", OnOffKind::NAMES))
                    })?,
                },
            }),
            (None, None) if self.on_off.is_some() => {
                return Err(ScenarioError::new(field("on_off"), "needs the mean durations on and off"))
            }
            (None, None) => None,
            (Some(_), None) => return Err(ScenarioError::new(field("off"), "is required when on is given")),
            (None, Some(_)) => return Err(ScenarioError::new(field("on"), "is required when off is given")),
        };
        Ok(UdpSpec {
            class: self.class.clone().unwrap_or_else(|| "udp".into()),
            rate_bps,
            // 65507: the largest UDP payload in an IPv4 packet.
            packet_size: in_range(&field("packet_size"), self.packet_size.unwrap_or(1470), 1, 65_507)?,
            start,
            stop,
            on_off,
            host: 0,
            direction: direction(&field("direction"), &self.direction)?,
        })
    }
}

impl RawWeb {
    fn spec(&self, at: &str) -> Result<WebSpec, ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        let t = |name: &str, q: &Option<Quantity>, default: &str| {
            time(&field(name), q.as_ref().unwrap_or(&Quantity::Text(default.into())), Duration::ZERO, MAX_TIME)
        };
        let mean = |name: &str, v: Option<f64>| in_range(&field(name), v.unwrap_or(4.0), 0.001, 1e6);
        let spec = WebSpec {
            sessions: in_range(&field("sessions"), self.sessions.unwrap_or(50), 1, 100_000)?,
            session_interval: t("session_interval", &self.session_interval, "5ms")?,
            start: t("start", &self.start, "0s")?,
            pages: in_range(&field("pages"), self.pages.unwrap_or(5), 1, 10_000)?,
            page_objects: Lomax::from_mean(
                mean("page_objects_mean", self.page_objects_mean)?,
                shape(&field("page_objects_shape"), self.page_objects_shape.unwrap_or(1.5))?,
            ),
            page_interval: t("page_interval", &self.page_interval, "500ms")?,
            object_packets: Lomax::from_mean(
                mean("object_packets_mean", self.object_packets_mean)?,
                shape(&field("object_packets_shape"), self.object_packets_shape.unwrap_or(1.2))?,
            ),
            object_interval: t("object_interval", &self.object_interval, "50ms")?,
        };
        if spec.sessions as u64 * spec.pages as u64 > 1_000_000 {
            return Err(ScenarioError::new(
                field("pages"),
                format!("sessions x pages must be at most 1000000, got {} x {}", spec.sessions, spec.pages),
            ));
        }
        Ok(spec)
    }

    /// Draws the workload and appends one flow per object and one page per page.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        at: &str,
        index: usize,
        seed: u64,
        default_algorithm: &str,
        base_tcp: &RawTcp,
        hosts: &mut HostPlan,
        flows: &mut Vec<FlowSpec>,
        pages: &mut Vec<Page>,
    ) -> Result<(), ScenarioError> {
        let spec = self.spec(at)?;
        let algorithm = self.algorithm.clone().unwrap_or_else(|| default_algorithm.to_string());
        check_algorithm(at, &algorithm, &self.params)?;
        let tcp = self.tcp.over(base_tcp).resolve(&format!("{at}.tcp"))?;
        let class = self.class.clone().unwrap_or_else(|| "web".into());
        let dir = direction(&format!("{at}.direction"), &self.direction)?;
        for session in generate(&spec, &mut stream(seed, Stream::Web(index))) {
            let (host, access) = hosts.assign(at, self.host, None)?;
            let first_page = pages.len();
            for (k, page) in session.pages.iter().enumerate() {
                let idx = pages.len() as u32;
                if k > 0 {
                    pages[idx as usize - 1].next = Some((idx, page.gap_before));
                }
                pages.push(Page {
                    first_flow: flows.len() as u32,
                    objects: page.objects.len() as u32,
                    start: (pages.len() == first_page).then_some(session.start),
                    next: None,
                });
                flows.extend(page.objects.iter().map(|o| FlowSpec {
                    algorithm: algorithm.clone(),
                    params: self.params.clone(),
                    size: Some(o.packets.saturating_mul(tcp.mss as u64)),
                    start: o.offset,
                    access_rate_bps: access.access_rate_bps,
                    access_delay: access.access_delay,
                    drop_transmissions: Vec::new(),
                    tcp: tcp.clone(),
                    class: class.clone(),
                    host,
                    direction: dir,
                    page: Some(idx),
                }));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_trace_interval_keeps_the_sample_count_bounded() {
        assert_eq!(default_trace_interval(None), Duration::from_millis(1));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(5))), Duration::from_millis(1));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(30))), Duration::from_millis(3));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(300))), Duration::from_millis(30));
    }

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
