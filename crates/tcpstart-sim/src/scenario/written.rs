//! A resolved scenario written back as a scenario, in user units ("20Mbps", "40ms", "16MB"),
//! with every default filled in: what `tcpstart validate` prints. Each value is written so that
//! it reads back as exactly the value resolved (tests/scenario_written.rs runs both), and each
//! TCP table in full, so that nothing depends on what a table inherits.

use core::time::Duration;

use super::ranges::MAX_TIME;
use super::resolve::{Resolved, Schedule};
use super::{
    Aqm, Limit, Network, Quantity, RawAckCompression, RawAqm, RawChange, RawFlow, RawHop, RawNetwork, RawQuickStart,
    RawScenario, RawTcp, RawTrace, RawUdp, RawWeb, TcpConfig,
};
use super::{FlowSpec, RawLimits};
use crate::ack_compression::{AckCompressionMode, AckCompressionSpec};
use crate::units::{parse_bytes, parse_rate};

fn text(s: String) -> Option<Quantity> {
    Some(Quantity::Text(s))
}

/// The shortest of "20Mbps", "1.5Gbps", ... that reads back as exactly `bps`.
fn rate(bps: f64) -> Option<Quantity> {
    let units = [(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps")];
    let exact = (units.iter().filter(|(scale, _)| bps >= *scale))
        .map(|(scale, unit)| format!("{}{unit}", bps / scale))
        .find(|t| parse_rate(t) == Ok(bps));
    text(exact.unwrap_or_else(|| format!("{bps}bps")))
}

/// A whole number of the largest unit that holds it: "0s", "40ms", "1500us", "7ns".
fn time(d: Duration) -> Option<Quantity> {
    let ns = d.as_nanos();
    let units = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")];
    let (scale, unit) = units.into_iter().find(|(scale, _)| ns.is_multiple_of(*scale)).unwrap_or((1, "ns"));
    text(format!("{}{unit}", ns / scale))
}

/// "16MB", "1500B": a whole number of the largest decimal unit that reads back exactly.
fn size(bytes: u64) -> Option<Quantity> {
    let units = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")];
    let exact = units
        .into_iter()
        .filter(|(scale, _)| bytes.is_multiple_of(*scale))
        .map(|(scale, unit)| format!("{}{unit}", bytes / scale))
        .find(|t| parse_bytes(t) == Ok(bytes as f64));
    text(exact.unwrap_or_else(|| format!("{bytes}B")))
}

fn queue(limit: Limit) -> Option<Quantity> {
    match limit {
        // A bare number is packets.
        Limit::Packets(n) => Some(Quantity::Number(n as f64)),
        Limit::Bytes(b) => size(b),
    }
}

/// Whole segments when the value is some (within the field's range for segments), else bytes.
fn segments_or_size(bytes: u64, mss: u32, max_segments: u64) -> Option<Quantity> {
    let segments = bytes / mss as u64;
    match bytes.is_multiple_of(mss as u64) && segments <= max_segments {
        true => Some(Quantity::Number(segments as f64)),
        false => size(bytes),
    }
}

fn tcp(t: &TcpConfig) -> RawTcp {
    RawTcp {
        mss: Some(t.mss),
        initial_window: segments_or_size(t.initial_window, t.mss, 100_000),
        initial_ssthresh: match t.initial_ssthresh {
            u64::MAX => text("inf".into()),
            b => segments_or_size(b, t.mss, 1_000_000_000),
        },
        sack: Some(t.sack),
        timestamps: Some(t.timestamps),
        window_scaling: Some(t.window_scaling),
        rcv_buf: size(t.rcv_buf),
        delayed_ack: Some(t.delayed_ack),
        delack_count: Some(t.delack_count),
        delack_timeout: time(t.delack_timeout),
        quickack: Some(t.quickack),
        unpaced_segments: Some(t.unpaced_segments),
        rto_initial: time(t.rto_initial),
        rto_min: time(t.rto_min),
        rto_max: time(t.rto_max),
        clock_granularity: time(t.clock_granularity),
        clock_tick: time(t.clock_tick),
        fast_retransmit: Some(t.fast_retransmit),
        limited_transmit: Some(t.limited_transmit),
        dupthresh: Some(t.dupthresh),
        recovery: Some(t.recovery.name().into()),
        rto_restart: Some(t.rto_restart.name().into()),
        profile: Some(t.profile.name().into()),
    }
}

fn aqm(a: &Aqm) -> RawAqm {
    match a {
        Aqm::DropTail => RawAqm { kind: Some("droptail".into()), ..RawAqm::default() },
        Aqm::Red(r) => RawAqm {
            kind: Some("red".into()),
            min_th: Some(r.min_th),
            max_th: Some(r.max_th),
            weight: Some(r.weight),
            max_p: Some(r.max_p),
            gentle: Some(r.gentle),
            wait: Some(r.wait),
            mean_packet_size: Some(r.mean_packet_size),
            ..RawAqm::default()
        },
        Aqm::Codel(c) => RawAqm {
            kind: Some("codel".into()),
            target: time(c.target),
            interval: time(c.interval),
            ..RawAqm::default()
        },
    }
}

fn ack_compression(a: &AckCompressionSpec) -> RawAckCompression {
    let mode = match a.mode {
        AckCompressionMode::Release => "release",
        AckCompressionMode::Merge => "merge",
    };
    RawAckCompression { mode: Some(mode.into()), interval: time(a.interval) }
}

/// A round-trip time as `network.rtt` reads it when in its range (the usual way to say it),
/// else the one-way `delay`: `(rtt, delay)`, one of them set.
fn rtt_or_delay(delay: Duration, access_delay: Duration) -> (Option<Quantity>, Option<Quantity>) {
    let rtt = 2 * (delay + 2 * access_delay);
    match rtt >= Duration::from_micros(1) && rtt <= MAX_TIME {
        true => (time(rtt), None),
        false => (None, time(delay)),
    }
}

/// Each change with the rate (unless a trace decides it) and the delay it resolved to.
fn schedule(n: &Network, access_delay: Duration) -> Vec<RawChange> {
    let Some(s) = &n.schedule else { return Vec::new() };
    (s.changes.iter())
        .map(|c| {
            let (rtt, delay) = rtt_or_delay(Duration::from_nanos(c.level.delay_ns), access_delay);
            RawChange {
                at: time(Duration::from_nanos(c.at_ns)),
                rate: if n.trace.is_some() { None } else { rate(c.level.rate_bps) },
                rtt,
                delay,
            }
        })
        .collect()
}

impl Resolved {
    /// The scenario in the shape of its input, every default filled in, as JSON: no nulls (TOML
    /// has none), so that it converts to TOML as it is.
    pub fn written(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.raw()).expect("a scenario serialises");
        drop_nulls(&mut v);
        v
    }

    fn raw(&self) -> RawScenario {
        let n = &self.network;
        let (rtt, delay) = rtt_or_delay(n.delay, self.access.access_delay);
        let network = RawNetwork {
            rate: rate(n.rate_bps),
            reverse_rate: rate(n.reverse_rate_bps),
            rtt,
            delay,
            queue: queue(n.queue),
            reverse_queue: queue(n.reverse_queue),
            loss: Some(n.loss),
            reverse_loss: Some(n.reverse_loss),
            access_rate: rate(self.access.access_rate_bps),
            access_delay: time(self.access.access_delay),
            access_queue: queue(n.access_queue),
            hosts: self.hosts,
            aqm: Some(aqm(&n.aqm)),
            reverse_aqm: Some(aqm(&n.reverse_aqm)),
            ber: Some(n.ber),
            reverse_ber: Some(n.reverse_ber),
            router_pps: n.router_pps,
            reverse_router_pps: n.reverse_router_pps,
            ack_compression: n.ack_compression.as_ref().map(ack_compression),
            reverse_ack_compression: n.reverse_ack_compression.as_ref().map(ack_compression),
            ack_jitter: time(n.ack_jitter.unwrap_or(Duration::ZERO)),
            quick_start: n
                .quick_start
                .map(|q| RawQuickStart { threshold: Some(q.threshold), interval: time(q.interval) }),
            schedule: schedule(n, self.access.access_delay),
            schedule_period: n.schedule.as_ref().and_then(|s| s.period_ns).and_then(|p| time(Duration::from_nanos(p))),
            trace: n.trace.as_ref().map(|t| t.file.clone()),
            reverse_trace: n.reverse_trace.as_ref().map(|t| t.file.clone()),
            hops: (n.hops.iter())
                .map(|h| RawHop {
                    rate: rate(h.rate_bps),
                    reverse_rate: rate(h.reverse_rate_bps),
                    delay: time(h.delay),
                    queue: queue(h.queue),
                    reverse_queue: queue(h.reverse_queue),
                })
                .collect(),
        };
        RawScenario {
            seed: Some(self.seed),
            duration: self.duration.and_then(time),
            network,
            tcp: tcp(&self.tcp),
            algorithm: Some(self.algorithm.clone()),
            flows: self.flows.iter().map(|e| flow(&e.flow, &e.schedule, e.host, e.own_access, e.own_tcp)).collect(),
            udp: (self.udp.iter())
                .map(|e| {
                    let s = &e.spec;
                    RawUdp {
                        rate: rate(s.rate_bps),
                        packet_size: Some(s.packet_size),
                        start: time(s.start),
                        stop: s.stop.and_then(time),
                        on: s.on_off.and_then(|o| time(o.on)),
                        off: s.on_off.and_then(|o| time(o.off)),
                        on_off: s.on_off.map(|o| o.kind.name().into()),
                        direction: Some(s.direction.name().into()),
                        host: e.host,
                        class: Some(s.class.clone()),
                        count: Some(e.count),
                        hops: s.hops.map(hop_list),
                        tick: s.tick.and_then(time),
                    }
                })
                .collect(),
            web: (self.web.iter())
                .map(|w| RawWeb {
                    sessions: Some(w.spec.sessions),
                    session_interval: time(w.spec.session_interval),
                    start: time(w.spec.start),
                    pages: Some(w.spec.pages),
                    page_objects_mean: Some(w.means[0]),
                    page_objects_shape: Some(w.spec.page_objects.shape),
                    page_interval: time(w.spec.page_interval),
                    object_packets_mean: Some(w.means[1]),
                    object_packets_shape: Some(w.spec.object_packets.shape),
                    object_interval: time(w.spec.object_interval),
                    algorithm: Some(w.algorithm.clone()),
                    params: w.params.clone(),
                    tcp: if w.own_tcp { tcp(&w.tcp) } else { RawTcp::default() },
                    direction: Some(w.direction.name().into()),
                    host: w.host,
                    class: Some(w.class.clone()),
                })
                .collect(),
            trace: RawTrace {
                interval: time(self.trace.interval),
                queue_interval: time(self.trace.queue_interval),
                packets: Some(self.trace.packets),
                pcap: self.trace.pcap.clone(),
            },
            limits: RawLimits { memory: size(self.limits.memory), packets: Some(self.limits.packets as f64) },
        }
    }
}

fn flow(f: &FlowSpec, schedule: &Schedule, host: Option<u32>, own_access: bool, own_tcp: bool) -> RawFlow {
    let (start, count, interval, arrivals, starts) = match schedule {
        Schedule::Listed(list) => (None, None, None, None, Some(list.iter().filter_map(|&d| time(d)).collect())),
        Schedule::Drawn { arrivals, start, interval, count } => {
            (time(*start), Some(*count), time(*interval), Some(arrivals.name().into()), None)
        }
    };
    RawFlow {
        algorithm: Some(f.algorithm.clone()),
        params: f.params.clone(),
        size: match f.size {
            Some(b) => size(b),
            None => text("unlimited".into()),
        },
        start,
        count,
        access_rate: if own_access { rate(f.access_rate_bps) } else { None },
        access_delay: if own_access { time(f.access_delay) } else { None },
        drop_transmissions: f.drop_transmissions.clone(),
        tcp: if own_tcp { tcp(&f.tcp) } else { RawTcp::default() },
        class: Some(f.class.clone()),
        direction: Some(f.direction.name().into()),
        host,
        interval,
        arrivals,
        starts,
        hops: f.hops.map(hop_list),
    }
}

fn hop_list([first, last]: [u32; 2]) -> Vec<u32> {
    (first..=last).collect()
}

/// Removes every null (an unset field) from the tables of `v`, and every table left empty.
fn drop_nulls(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.retain(|_, item| !item.is_null());
            map.values_mut().for_each(drop_nulls);
            map.retain(|_, item| !item.as_object().is_some_and(|m| m.is_empty()));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}
