//! Resolution: every field of a parsed scenario checked once, in the order the scenario is
//! written, and every unset field given its default (defaults.rs). The result, [`Resolved`],
//! is the scenario's workload as described (counts, schedules and web sessions not yet drawn):
//! `validate` shows it (written.rs) and expand.rs turns it into the run's [`Scenario`].

use std::collections::BTreeMap;

use core::time::Duration;

use super::defaults::{self, TimeDefault};
use super::estimate::Limits;
use super::ranges::{
    bytes, default_trace_interval, direction, fraction, in_range, limit, rate, time, time_within, trace_interval,
    MAX_ACK_JITTER, MAX_FLOWS_PER_ENTRY, MAX_TICK, MAX_TIME,
};
use super::{
    chain, time_varying, Aqm, FlowSpec, Host, Network, Profile, Quantity, RawAckCompression, RawAqm, RawFlow,
    RawQuickStart, RawScenario, RawTcp, RawUdp, RawWeb, RecoveryWindow, RtoRestart, TcpConfig, TraceSpec,
};
use crate::ack_compression::{AckCompressionMode, AckCompressionSpec};
use crate::error::ScenarioError;
use crate::packet::Direction;
use crate::queue::{CodelParams, RedParams};
use crate::quick_start::QuickStartSpec;
use crate::traffic::dist::Lomax;
use crate::traffic::schedule::Arrivals;
use crate::traffic::udp::{OnOff, OnOffKind, UdpSpec};
use crate::traffic::web::WebSpec;

/// A scenario with every field checked and every default filled in, before its workload is
/// expanded.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub seed: u64,
    pub duration: Option<Duration>,
    /// The algorithm of entries that name none.
    pub algorithm: String,
    pub network: Network,
    /// Host pairs shared by every entry (`network.hosts`); none: a pair for each flow, web
    /// session and UDP source.
    pub hosts: Option<u32>,
    /// The access links of the host pairs.
    pub access: Host,
    pub tcp: TcpConfig,
    pub flows: Vec<FlowEntry>,
    pub web: Vec<WebEntry>,
    pub udp: Vec<UdpEntry>,
    pub trace: TraceSpec,
    pub limits: Limits,
}

/// One `[[flows]]` entry.
#[derive(Clone, Debug)]
pub struct FlowEntry {
    /// Every flow of the entry but for its start and host pair.
    pub flow: FlowSpec,
    pub schedule: Schedule,
    pub host: Option<u32>,
    /// The entry sets `access_rate` or `access_delay` (then `flow` holds its access links).
    pub own_access: bool,
    /// The entry sets TCP options of its own (else `flow.tcp` is the scenario's).
    pub own_tcp: bool,
}

/// When an entry's flows start.
#[derive(Clone, Debug)]
pub enum Schedule {
    /// `starts`.
    Listed(Vec<Duration>),
    /// `start`, `count`, `interval`, `arrivals`: drawn from the seed when expanded.
    Drawn { arrivals: Arrivals, start: Duration, interval: Duration, count: u32 },
}

impl Schedule {
    pub fn count(&self) -> u32 {
        match self {
            Schedule::Listed(starts) => starts.len() as u32,
            Schedule::Drawn { count, .. } => *count,
        }
    }
}

/// One `[[web]]` entry.
#[derive(Clone, Debug)]
pub struct WebEntry {
    pub spec: WebSpec,
    /// The means `page_objects_mean` and `object_packets_mean` as given (the spec holds scales).
    pub means: [f64; 2],
    pub algorithm: String,
    /// Every parameter of the algorithm, defaults filled in.
    pub params: BTreeMap<String, f64>,
    pub tcp: TcpConfig,
    pub own_tcp: bool,
    pub class: String,
    pub direction: Direction,
    pub host: Option<u32>,
}

/// One `[[udp]]` entry.
#[derive(Clone, Debug)]
pub struct UdpEntry {
    pub spec: UdpSpec,
    pub count: u32,
    pub host: Option<u32>,
}

/// The path `parent.name` of a field, written out only when printed.
#[derive(Clone, Copy)]
struct Field<'a>(&'a str, &'static str);

impl std::fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl RawTcp {
    pub(crate) fn resolve(&self, at: &str) -> Result<TcpConfig, ScenarioError> {
        // Resolved for every flow: the field paths are only written out for an error.
        let f = |name: &'static str| Field(at, name);
        let t = |name: &'static str, q: &Option<Quantity>, default: &TimeDefault, min, max| match q {
            Some(q) => time(&f(name), q, min, max),
            // Checked all the same: the default rto_max is too small for an rto_min above it.
            None => time_within(&f(name), default.value, default.text, min, max),
        };
        let profile = match self.profile.as_deref() {
            None => Profile::Rfc,
            Some(name) => Profile::parse(name).ok_or_else(|| {
                ScenarioError::new(f("profile"), format!("must be \"rfc\" or \"linux\", got {name:?}"))
            })?,
        };
        let linux = profile == Profile::Linux;
        // The defaults marked "with profile" in the table of fields.
        let mss = in_range(
            &f("mss"),
            self.mss.unwrap_or(if linux { defaults::LINUX_MSS } else { defaults::MSS }),
            64,
            65_000,
        )?;
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
            if linux { &defaults::LINUX_RTO_MIN } else { &defaults::RTO_MIN },
            Duration::from_micros(1),
            MAX_TIME,
        )?;
        let rto_max = t("rto_max", &self.rto_max, &defaults::RTO_MAX, rto_min, MAX_TIME)?;
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
                None => defaults::RCV_BUF,
            },
            delayed_ack: self.delayed_ack.unwrap_or(true),
            delack_count: in_range(&f("delack_count"), self.delack_count.unwrap_or(2), 1, 64)?,
            delack_timeout: t(
                "delack_timeout",
                &self.delack_timeout,
                if linux { &defaults::LINUX_DELACK_TIMEOUT } else { &defaults::DELACK_TIMEOUT },
                Duration::from_micros(1),
                Duration::from_millis(500),
            )?,
            quickack: in_range(
                &f("quickack"),
                self.quickack.unwrap_or(if linux { defaults::LINUX_QUICKACK } else { 0 }),
                0,
                100_000,
            )?,
            unpaced_segments: in_range(
                &f("unpaced_segments"),
                self.unpaced_segments.unwrap_or(if linux { defaults::LINUX_UNPACED_SEGMENTS } else { 0 }),
                0,
                100_000,
            )?,
            rto_initial: t(
                "rto_initial",
                &self.rto_initial,
                &defaults::RTO_INITIAL,
                Duration::from_micros(1),
                MAX_TIME,
            )?,
            rto_min,
            rto_max,
            clock_granularity: t(
                "clock_granularity",
                &self.clock_granularity,
                // Linux's RTO is SRTT + max(4 mdev, TCP_RTO_MIN) (`tcp_rtt_estimator` floors
                // rttvar at the minimum RTO): RFC 6298's G in that role.
                if linux { &defaults::LINUX_RTO_MIN } else { &defaults::CLOCK_GRANULARITY },
                Duration::ZERO,
                Duration::from_secs(1),
            )?,
            clock_tick: t(
                "clock_tick",
                &self.clock_tick,
                &defaults::CLOCK_TICK,
                Duration::ZERO,
                Duration::from_secs(1),
            )?,
            fast_retransmit: self.fast_retransmit.unwrap_or(true),
            limited_transmit: self.limited_transmit.unwrap_or(true),
            dupthresh: in_range(&f("dupthresh"), self.dupthresh.unwrap_or(3), 1, 1000)?,
            recovery: match self.recovery.as_deref() {
                None if linux => RecoveryWindow::Prr,
                None => RecoveryWindow::Rfc6675,
                Some(name) => RecoveryWindow::parse(name).ok_or_else(|| {
                    ScenarioError::new(f("recovery"), format!("must be \"rfc6675\" or \"prr\", got {name:?}"))
                })?,
            },
            rto_restart: match self.rto_restart.as_deref() {
                // RFC 6298 with SACK (Linux); RFC 6582's recommendation for NewReno without.
                None if sack || linux => RtoRestart::EveryAck,
                None => RtoRestart::FirstPartialAck,
                Some(name) => RtoRestart::parse(name).ok_or_else(|| {
                    ScenarioError::new(
                        f("rto_restart"),
                        format!("must be \"every_ack\" or \"first_partial_ack\", got {name:?}"),
                    )
                })?,
            },
            profile,
        })
    }
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
    fn resolve(&self, at: &str) -> Result<QuickStartSpec, ScenarioError> {
        let threshold = self.threshold.unwrap_or(defaults::QUICK_START_THRESHOLD);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(ScenarioError::new(
                format!("{at}.threshold"),
                format!("must be a share of the capacity in (0, 1], got {threshold}"),
            ));
        }
        let interval = match &self.interval {
            Some(q) => time(&format!("{at}.interval"), q, Duration::from_millis(1), Duration::from_secs(60))?,
            None => defaults::QUICK_START_INTERVAL,
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

/// Every parameter of `algorithm`, defaults filled in, or the error naming the one at fault.
fn algorithm_params(
    at: &str,
    algorithm: &str,
    params: &BTreeMap<String, f64>,
) -> Result<BTreeMap<String, f64>, ScenarioError> {
    match tcpstart_cc::registry::resolve_params(algorithm, params) {
        Ok(all) => Ok(all.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
        Err(e) => {
            let field = match (e.key == algorithm, at) {
                (true, "algorithm") => at.to_string(),
                (true, _) => format!("{at}.algorithm"),
                (false, _) => format!("{at}.params.{}", e.key),
            };
            Err(ScenarioError::new(field, e.message))
        }
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

/// Checks the host pair an entry at `at` names, and its own access links, against
/// `network.hosts` (`shared`).
fn check_host(at: &str, shared: Option<u32>, host: Option<u32>, own_access: bool) -> Result<(), ScenarioError> {
    let Some(n) = shared else {
        return match host {
            Some(_) => {
                Err(ScenarioError::new(format!("{at}.host"), "needs network.hosts (the number of host pairs to share)"))
            }
            None => Ok(()),
        };
    };
    if own_access {
        return Err(ScenarioError::new(
            format!("{at}.access_rate"),
            "per-flow access links (access_rate, access_delay) need a host pair of their own; \
             with network.hosts set, set network.access_rate and network.access_delay",
        ));
    }
    if let Some(h) = host {
        in_range(&format!("{at}.host"), h, 0, n - 1)?;
    }
    Ok(())
}

impl RawFlow {
    /// When each of the flows this entry stands for starts.
    fn schedule(&self, at: &str) -> Result<Schedule, ScenarioError> {
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
                .collect::<Result<_, _>>()
                .map(Schedule::Listed);
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
        Ok(Schedule::Drawn { arrivals, start, interval, count })
    }
}

impl RawUdp {
    pub(crate) fn resolve(&self, at: &str) -> Result<UdpSpec, ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        let rate_bps = match &self.rate {
            Some(q) => rate(&field("rate"), q, 1e3, 1e13)?,
            None => defaults::UDP_RATE,
        };
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
            hops: None,
            tick: match &self.tick {
                Some(q) => Some(time(&field("tick"), q, Duration::from_micros(1), MAX_TICK)?),
                None => None,
            },
        })
    }
}

impl RawWeb {
    /// The workload's shape, and its two means as given (the spec holds scales).
    pub(crate) fn spec(&self, at: &str) -> Result<(WebSpec, [f64; 2]), ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        let t = |name: &str, q: &Option<Quantity>, default: &str| {
            time(&field(name), q.as_ref().unwrap_or(&Quantity::Text(default.into())), Duration::ZERO, MAX_TIME)
        };
        let mean = |name: &str, v: Option<f64>| in_range(&field(name), v.unwrap_or(4.0), 0.001, 1e6);
        let sessions = in_range(&field("sessions"), self.sessions.unwrap_or(50), 1, 100_000)?;
        let session_interval = t("session_interval", &self.session_interval, "5ms")?;
        let start = t("start", &self.start, "0s")?;
        let pages = in_range(&field("pages"), self.pages.unwrap_or(5), 1, 10_000)?;
        let page_objects_mean = mean("page_objects_mean", self.page_objects_mean)?;
        let page_objects_shape = shape(&field("page_objects_shape"), self.page_objects_shape.unwrap_or(1.5))?;
        let page_interval = t("page_interval", &self.page_interval, "500ms")?;
        let object_packets_mean = mean("object_packets_mean", self.object_packets_mean)?;
        let object_packets_shape = shape(&field("object_packets_shape"), self.object_packets_shape.unwrap_or(1.2))?;
        let spec = WebSpec {
            sessions,
            session_interval,
            start,
            pages,
            page_objects: Lomax::from_mean(page_objects_mean, page_objects_shape),
            page_interval,
            object_packets: Lomax::from_mean(object_packets_mean, object_packets_shape),
            object_interval: t("object_interval", &self.object_interval, "50ms")?,
        };
        if spec.sessions as u64 * spec.pages as u64 > 1_000_000 {
            return Err(ScenarioError::new(
                field("pages"),
                format!("sessions x pages must be at most 1000000, got {} x {}", spec.sessions, spec.pages),
            ));
        }
        Ok((spec, [page_objects_mean, object_packets_mean]))
    }

    fn resolve(
        &self,
        at: &str,
        default_algorithm: &str,
        base: (&RawTcp, &TcpConfig),
        shared_hosts: Option<u32>,
    ) -> Result<WebEntry, ScenarioError> {
        let field = |name: &str| format!("{at}.{name}");
        let (spec, means) = self.spec(at)?;
        let algorithm = self.algorithm.clone().unwrap_or_else(|| default_algorithm.to_string());
        let params = algorithm_params(at, &algorithm, &self.params)?;
        let own_tcp = self.tcp != RawTcp::default();
        let tcp = if own_tcp { self.tcp.over(base.0).resolve(&field("tcp"))? } else { base.1.clone() };
        let entry = WebEntry {
            spec,
            means,
            algorithm,
            params,
            tcp,
            own_tcp,
            class: self.class.clone().unwrap_or_else(|| "web".into()),
            direction: direction(&field("direction"), &self.direction)?,
            host: self.host,
        };
        check_host(at, shared_hosts, self.host, false)?;
        Ok(entry)
    }
}

impl RawScenario {
    pub(crate) fn resolve_duration(&self) -> Result<Option<Duration>, ScenarioError> {
        self.duration.as_ref().map(|q| time("duration", q, Duration::from_nanos(1), MAX_TIME)).transpose()
    }

    /// Checks every field and fills in every default; refuses the scenario when its estimated
    /// size exceeds its limits. Nothing is drawn or expanded.
    pub fn resolve(&self) -> Result<Resolved, ScenarioError> {
        let n = &self.network;
        let rate_bps = match &n.rate {
            Some(q) => rate("network.rate", q, 1e3, 1e13)?,
            None => defaults::RATE,
        };
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
        let delay = match time_varying::bottleneck_delay("network", n.rtt.as_ref(), n.delay.as_ref(), access_delay)? {
            Some(delay) => delay,
            None => (defaults::RTT / 2).checked_sub(2 * access_delay).ok_or_else(|| {
                ScenarioError::new(
                    "network.rtt",
                    format!(
                        "{:?} is shorter than the access links' round trip ({:?})",
                        defaults::RTT,
                        4 * access_delay
                    ),
                )
            })?,
        };
        if self.flows.is_empty() && self.web.is_empty() && self.udp.is_empty() {
            return Err(ScenarioError::new("flows", "at least one flow, web workload or UDP source is required"));
        }
        let tcp = self.tcp.resolve("tcp")?;
        let mtu = tcp.mss as f64 + 40.0;
        let bdp = super::bdp_bytes(rate_bps, 2 * (delay + 2 * access_delay));
        let queue = match &n.queue {
            Some(q) => limit("network.queue", q, bdp, mtu)?,
            None => limit("network.queue", &Quantity::Text("1bdp".into()), bdp, mtu)?,
        };
        let aqm = match &n.aqm {
            Some(a) => a.resolve("network.aqm")?,
            None => Aqm::DropTail,
        };
        let full_data_packet = tcp.mss + 40 + if tcp.timestamps { crate::packet::TIMESTAMP_OPTION_BYTES } else { 0 };
        let base_level = crate::link_schedule::Level { rate_bps, delay_ns: delay.as_nanos() as u64 };
        let varying = time_varying::resolve(n, base_level, access_delay, full_data_packet)?;
        let mut network = Network {
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
                n.access_queue.as_ref().unwrap_or(&Quantity::Number(defaults::ACCESS_QUEUE_PACKETS)),
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
            hops: Vec::new(),
        };
        network.hops = chain::resolve(n, &network, access_delay, mtu)?;

        let seed = self.seed.unwrap_or(1);
        let algorithm = match &self.algorithm {
            Some(a) => {
                algorithm_params("algorithm", a, &BTreeMap::new())?;
                a.clone()
            }
            None => "newreno".to_string(),
        };
        let (size, limits) = self.estimate()?;
        size.within(&limits)?;
        let hosts = n.hosts.map(|h| in_range("network.hosts", h, 1, 10_000)).transpose()?;
        let access = Host { access_rate_bps, access_delay };
        let mut unlimited_entry = None;
        let mut flows = Vec::with_capacity(self.flows.len());
        for (i, raw) in self.flows.iter().enumerate() {
            let at = format!("flows[{i}]");
            let flow_algorithm = raw.algorithm.clone().unwrap_or_else(|| algorithm.clone());
            let params = algorithm_params(&at, &flow_algorithm, &raw.params)?;
            let size = match &raw.size {
                None => None,
                Some(Quantity::Text(t)) if t == "unlimited" || t == "inf" => None,
                Some(q) => Some(bytes(&format!("{at}.size"), q, 1.0, 1e15)?),
            };
            if size.is_none() && unlimited_entry.is_none() {
                unlimited_entry = Some(format!("{at} has no size (unlimited)"));
            }
            let schedule = raw.schedule(&at)?;
            let access_rate_bps = match &raw.access_rate {
                Some(q) => rate(&format!("{at}.access_rate"), q, 1e3, 1e13)?,
                None => access.access_rate_bps,
            };
            let access_delay = match &raw.access_delay {
                Some(q) => time(&format!("{at}.access_delay"), q, Duration::ZERO, MAX_TIME)?,
                None => access.access_delay,
            };
            let mut drop_transmissions = raw.drop_transmissions.clone();
            if drop_transmissions.contains(&0) {
                return Err(ScenarioError::new(
                    format!("{at}.drop_transmissions"),
                    "transmissions are numbered from 1",
                ));
            }
            drop_transmissions.sort_unstable();
            if !drop_transmissions.is_empty() && !network.hops.is_empty() {
                return Err(ScenarioError::new(
                    format!("{at}.drop_transmissions"),
                    "not with network.hops: scripted drops belong to the dumbbell's one bottleneck",
                ));
            }
            let own_tcp = raw.tcp != RawTcp::default();
            let flow = FlowSpec {
                class: raw.class.clone().unwrap_or_else(|| flow_algorithm.clone()),
                algorithm: flow_algorithm,
                params,
                size,
                start: Duration::ZERO,
                access_rate_bps,
                access_delay,
                drop_transmissions,
                // A flow without TCP settings of its own has the scenario's, resolved above.
                tcp: if own_tcp { raw.tcp.over(&self.tcp).resolve(&format!("{at}.tcp"))? } else { tcp.clone() },
                host: 0,
                direction: direction(&format!("{at}.direction"), &raw.direction)?,
                page: None,
                hops: chain::span(&at, &raw.hops, network.hops.len())?,
            };
            let own_access = raw.access_rate.is_some() || raw.access_delay.is_some();
            check_host(&at, hosts, raw.host, own_access)?;
            flows.push(FlowEntry { flow, schedule, host: raw.host, own_access, own_tcp });
        }
        let web = (self.web.iter().enumerate())
            .map(|(i, raw)| raw.resolve(&format!("web[{i}]"), &algorithm, (&self.tcp, &tcp), hosts))
            .collect::<Result<Vec<_>, _>>()?;
        let mut udp = Vec::with_capacity(self.udp.len());
        for (i, raw) in self.udp.iter().enumerate() {
            let at = format!("udp[{i}]");
            let mut spec = raw.resolve(&at)?;
            spec.hops = chain::span(&at, &raw.hops, network.hops.len())?;
            if spec.stop.is_none() && unlimited_entry.is_none() {
                unlimited_entry = Some(format!("{at} has no stop time"));
            }
            let count = in_range(&format!("{at}.count"), raw.count.unwrap_or(1), 1, MAX_FLOWS_PER_ENTRY)?;
            check_host(&at, hosts, raw.host, false)?;
            udp.push(UdpEntry { spec, count, host: raw.host });
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
        if !trace.pcap.is_empty() {
            let pairs = hosts.map_or_else(
                || {
                    let flows: u64 = flows.iter().map(|f| f.schedule.count() as u64).sum();
                    let sessions: u64 = web.iter().map(|w| w.spec.sessions as u64).sum();
                    flows + sessions + udp.iter().map(|u| u.count as u64).sum::<u64>()
                },
                u64::from,
            );
            let links = crate::topology::link_names(network.chain().len(), pairs as usize);
            let hop_names = match network.hops.len() {
                0 => "bottleneck, bottleneck_rev".to_string(),
                n => format!("hop<k>, hop<k>_rev (k = 0..{})", n - 1),
            };
            for (i, name) in trace.pcap.iter().enumerate() {
                if !links.iter().any(|l| l == name) {
                    return Err(ScenarioError::new(
                        format!("trace.pcap[{i}]"),
                        format!("unknown link {name:?}; links are {hop_names}, sender<i>_out, sender<i>_in, receiver<i>_in, receiver<i>_out (i = 0..{}, the host pairs)", pairs - 1),
                    ));
                }
            }
        }
        Ok(Resolved { seed, duration, algorithm, network, hosts, access, tcp, flows, web, udp, trace, limits })
    }
}
