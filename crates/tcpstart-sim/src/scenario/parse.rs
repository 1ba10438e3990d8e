//! Parsing: a scenario's JSON text as the `Raw*` tables, exactly as written (every field an
//! `Option`, nothing checked but the shape). Unknown fields are errors, and an error names the
//! path of the field at fault.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::estimate::RawLimits;
use super::time_varying::RawChange;
use crate::error::ScenarioError;

/// A value written either as a number or as a string with a unit.
#[derive(Clone, Debug, PartialEq)]
pub enum Quantity {
    Number(f64),
    Text(String),
}

/// A whole number as an integer (`queue = 167`, not `167.0`), which reads back as the same f64.
impl Serialize for Quantity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Quantity::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => s.serialize_i64(*n as i64),
            Quantity::Number(n) => s.serialize_f64(*n),
            Quantity::Text(t) => s.serialize_str(t),
        }
    }
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
    pub(crate) fn text(&self) -> String {
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
    #[serde(default)]
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
    /// A parking lot: the hops of a chain of routers, in order (`[[network.hops]]`); the
    /// dumbbell's one bottleneck when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hops: Vec<RawHop>,
}

/// One `[[network.hops]]` entry: what it does not give is the dumbbell's bottleneck's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawHop {
    pub rate: Option<Quantity>,
    /// `rate` when the hop gives one, else `network.reverse_rate`.
    pub reverse_rate: Option<Quantity>,
    /// One-way propagation delay of each direction.
    pub delay: Option<Quantity>,
    pub queue: Option<Quantity>,
    /// `queue` when the hop gives one, else `network.reverse_queue`.
    pub reverse_queue: Option<Quantity>,
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
    /// The parking lot's hops the flow crosses: consecutive indices, in order; every hop when unset.
    pub hops: Option<Vec<u32>>,
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
    /// As `flows[i].hops`.
    pub hops: Option<Vec<u32>>,
    /// The sender's clock tick: datagrams leave only on its ticks.
    pub tick: Option<Quantity>,
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

impl RawTcp {
    /// Fields set here win over `base`.
    pub(crate) fn over(&self, base: &RawTcp) -> RawTcp {
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
        Err(_) => {
            let e = serde_path_to_error::deserialize::<_, RawScenario>(&mut serde_json::Deserializer::from_str(text))
                .unwrap_err();
            match non_finite_at(text, e.inner().line(), e.inner().column()) {
                // Python's json writes NaN and infinities as these words, which JSON lacks.
                Some(word) => {
                    let field = field_path(&e);
                    let message = match super::defaults::range_of(&field) {
                        Some(range) => format!("must be a finite value ({range}), got {word}"),
                        None => format!("must be a finite number, got {word}"),
                    };
                    Err(ScenarioError::new(field, message))
                }
                None => Err(path_error(&e)),
            }
        }
    }
}

/// The word `NaN`, `Infinity` or `-Infinity` that serde_json stopped at, at 1-based `line` and
/// `column` (the column of the word's last character read).
fn non_finite_at(text: &str, line: usize, column: usize) -> Option<&'static str> {
    let line = text.lines().nth(line.checked_sub(1)?)?;
    let before = line.get(..column.min(line.len()))?;
    let word = before.rsplit(|c: char| !(c.is_ascii_alphabetic() || c == '-')).next()?;
    let rest = line.get(before.len() - word.len()..)?;
    ["-Infinity", "Infinity", "NaN"].into_iter().find(|w| rest.starts_with(w))
}

/// Reads a scenario again that failed to read, for the error with the path of the field at fault.
pub fn with_path<'de, D: serde::Deserializer<'de>>(de: D) -> Result<RawScenario, ScenarioError> {
    serde_path_to_error::deserialize(de).map_err(|e| path_error(&e))
}

fn field_path<E>(e: &serde_path_to_error::Error<E>) -> String {
    let field = crate::error::one_line(&e.path().to_string());
    if field == "." {
        String::new()
    } else {
        field
    }
}

fn path_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> ScenarioError {
    let field = field_path(e);
    let message = crate::error::one_line(&e.inner().to_string());
    // serde_json appends " at line L column C", which means nothing to a TOML or Python user.
    let message = message.split(" at line ").next().unwrap_or(&message);
    let parent = if field.is_empty() { String::new() } else { format!("{field}.") };
    match message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
        Some(name) => ScenarioError::new(format!("{parent}{name}"), "is required"),
        None => ScenarioError::new(field, crate::error::in_user_terms(message)),
    }
}
