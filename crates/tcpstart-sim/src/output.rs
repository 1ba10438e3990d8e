//! What a run hands back: the summary metrics, the time series, and packet captures.
//!
//! The summary is typed: a run holds a few Vecs rather than a tree of small maps and strings,
//! so a sweep of many short runs pays little to release them. It becomes JSON (a
//! `serde_json::Value`, whose maps sort their keys) only when asked for; the field types below
//! fix the JSON number types (integers stay integers, floats stay floats, `None` is null).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use tcpstart_cc::Instant;

use crate::ack_compression::AckCompressionMode;
use crate::invariant::Violation;
use crate::metrics::ClassSummary;
use crate::packet::Direction;
use crate::quick_start::QuickStartStats;
use crate::sim::Simulation;
use crate::trace::{FlowTrace, PacketTrace, QueueTrace};

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn secs(t: Option<Instant>) -> Option<f64> {
    t.map(|t| t.as_secs_f64())
}

/// Conservation and sanity checks over a finished run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Invariants {
    pub packets_created: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// ACKs absorbed by ACK compression (merge mode).
    pub merged: u64,
    /// Packets in links at the end, counted link by link.
    pub in_network: u64,
    /// Packets still stored in the pool (must equal `in_network`).
    pub in_pool: u64,
    /// Windows below one segment or non-finite pacing rates seen after controller calls.
    pub invalid_windows: u64,
    pub ok: bool,
}

/// The summary of a run; `to_value` gives its JSON (summary.json, `Run.summary()`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub flows: Vec<FlowSummary>,
    pub udp: Vec<UdpSummary>,
    pub classes: BTreeMap<String, ClassSummary>,
    /// Over the flows that started; null if none did.
    pub jain_index: Option<f64>,
    /// By link index, which the traces' `link` columns hold.
    pub links: Vec<LinkSummary>,
    pub sim: SimSummary,
    pub invariants: Invariants,
}

impl Summary {
    /// The summary as JSON, keys sorted.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a summary has string keys only")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSummary {
    pub id: usize,
    pub algorithm: String,
    pub class: String,
    pub direction: Direction,
    pub host: u32,
    /// Null for a web object that never began.
    pub start: Option<f64>,
    pub started: bool,
    pub size: Option<u64>,
    pub completed: bool,
    pub completion_time: Option<f64>,
    pub goodput_bps: f64,
    pub bytes_acked: u64,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub fast_recoveries: u64,
    pub timeouts: u64,
    pub drops: u64,
    pub data_drops: u64,
    pub drop_rate: f64,
    pub max_cwnd: u64,
    pub ss_exit_time: Option<f64>,
    pub ss_exit_cwnd: Option<u64>,
    pub bdp_bytes: u64,
    pub time_to_bdp: Option<f64>,
    pub base_rtt: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    pub rate_bps: f64,
    pub utilization: f64,
    pub arrivals: u64,
    pub packets_sent: u64,
    pub drops: u64,
    pub overflow_drops: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub random_losses: u64,
    pub bit_errors: u64,
    pub drop_rate: f64,
    pub max_queue_packets: usize,
    pub max_queue_bytes: u64,
    pub mean_queue_packets: f64,
    pub sojourn: SojournSummary,
    pub ack_compression: Option<AckCompressionSummary>,
    /// Quick-Start Requests the link's router decided; left out for a link without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quick_start: Option<QuickStartStats>,
}

/// Queueing delay at a link, seconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SojournSummary {
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AckCompressionSummary {
    pub mode: AckCompressionMode,
    pub interval: f64,
    pub acks_held: u64,
    pub acks_merged: u64,
    pub batches: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UdpSummary {
    pub id: usize,
    pub class: String,
    pub direction: Direction,
    pub host: u32,
    pub rate_bps: f64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub lost_packets: u64,
    pub loss_rate: f64,
    pub goodput_bps: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimSummary {
    pub end_time: f64,
    pub events: u64,
    pub seed: u64,
}

pub struct RunOutput {
    pub summary: Summary,
    pub invariants: Invariants,
    pub flows: FlowTrace,
    pub queues: QueueTrace,
    pub packets: Option<PacketTrace>,
    /// Complete pcap files, by link name.
    pub pcaps: Vec<(String, Vec<u8>)>,
}

pub fn invariants(sim: &Simulation) -> Invariants {
    let c = sim.counters;
    let in_network = sim.packets_in_network();
    let invalid_windows = (0..sim.scenario.flows.len()).map(|i| sim.sender(i).stats.invalid_windows).sum();
    Invariants {
        packets_created: c.created,
        delivered: c.delivered,
        dropped: c.dropped,
        merged: c.merged,
        in_network,
        in_pool: sim.pool_live(),
        invalid_windows,
        ok: c.created == c.delivered + c.dropped + c.merged + in_network
            && in_network == sim.pool_live()
            && invalid_windows == 0,
    }
}

/// The violation of a run whose `invariants` do not hold: packets were lost or invented (the
/// window checks have stopped the run already if they failed).
pub fn conservation_violation(sim: &Simulation, inv: &Invariants) -> Box<Violation> {
    let detail = format!(
        "{} packets created, {} delivered + {} dropped + {} merged + {} in links; the pool holds {}",
        inv.packets_created, inv.delivered, inv.dropped, inv.merged, inv.in_network, inv.in_pool
    );
    Violation::new("packet conservation", None, sim.end_time(), detail)
}

pub fn summary(sim: &Simulation, inv: &Invariants) -> Summary {
    let s = &sim.scenario;
    let end = sim.end_time();
    let flows: Vec<FlowSummary> = s
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let snd = sim.sender(i);
            let st = &snd.stats;
            let m = snd.milestones();
            let base_rtt = f.base_rtt(&s.network);
            let bdp = f.bdp(&s.network);
            let began = st.syn_at.unwrap_or(Instant::ZERO + f.start);
            let completion = st.done_at.map(|d| d - began);
            let active = completion.unwrap_or_else(|| end - began).as_secs_f64();
            let goodput = if active > 0.0 { snd.bytes_acked() as f64 * 8.0 / active } else { 0.0 };
            let since_syn = |t: Option<Instant>| t.map(|t| Instant::ZERO + (t - began));
            // A web object's `start` is its offset within its page; report when it really began.
            let start = match f.page {
                Some(_) => secs(st.syn_at),
                None => Some(f.start.as_secs_f64()),
            };
            let data_drops = sim.flow_data_drops(i);
            FlowSummary {
                id: i,
                algorithm: f.algorithm.clone(),
                class: f.class.clone(),
                direction: f.direction,
                host: f.host,
                start,
                started: st.syn_at.is_some(),
                size: f.size,
                completed: st.done_at.is_some(),
                completion_time: completion.map(|d| d.as_secs_f64()),
                goodput_bps: goodput,
                bytes_acked: snd.bytes_acked(),
                segments_sent: st.segments_sent,
                retransmissions: st.retransmissions,
                fast_recoveries: st.fast_recoveries,
                timeouts: st.timeouts,
                drops: sim.flow_drops(i),
                data_drops,
                drop_rate: ratio(data_drops, st.segments_sent),
                max_cwnd: m.max_cwnd,
                ss_exit_time: secs(since_syn(m.slow_start_exit.map(|e| e.0))),
                ss_exit_cwnd: m.slow_start_exit.map(|e| e.1),
                bdp_bytes: bdp,
                time_to_bdp: secs(since_syn(m.reached_bdp_at)),
                base_rtt: base_rtt.as_secs_f64(),
            }
        })
        .collect();
    let links: Vec<LinkSummary> = sim
        .links
        .iter()
        .map(|l| {
            let st = &l.stats;
            let capacity_bits = l.capacity_bits(end);
            let sojourn = &st.sojourn;
            LinkSummary {
                name: l.name.clone(),
                rate_bps: l.rate_bps,
                utilization: if capacity_bits > 0.0 { st.bytes_sent as f64 * 8.0 / capacity_bits } else { 0.0 },
                arrivals: st.arrivals,
                packets_sent: st.packets_sent,
                drops: st.drops,
                overflow_drops: st.overflow_drops,
                early_drops: st.early_drops,
                forced_drops: st.forced_drops,
                random_losses: st.random_losses,
                bit_errors: st.bit_errors,
                drop_rate: st.drop_rate(),
                max_queue_packets: st.max_queue_packets,
                max_queue_bytes: st.max_queue_bytes,
                mean_queue_packets: st.mean_queue_packets(end),
                sojourn: SojournSummary {
                    mean: sojourn.mean().as_secs_f64(),
                    p50: sojourn.quantile(0.5).as_secs_f64(),
                    p95: sojourn.quantile(0.95).as_secs_f64(),
                    p99: sojourn.quantile(0.99).as_secs_f64(),
                    max: sojourn.max.as_secs_f64(),
                },
                ack_compression: l.compressor.as_ref().map(|c| AckCompressionSummary {
                    mode: c.spec().mode,
                    interval: c.spec().interval.as_secs_f64(),
                    acks_held: c.stats.held,
                    acks_merged: c.stats.merged,
                    batches: c.stats.batches,
                }),
                quick_start: l.quick_start.as_ref().map(|q| q.stats.clone()),
            }
        })
        .collect();
    let udp: Vec<UdpSummary> = sim
        .udp
        .iter()
        .enumerate()
        .map(|(j, u)| {
            let st = &u.stats;
            let from = u.spec.start.as_secs_f64();
            let until = u.spec.stop.map_or(end.as_secs_f64(), |s| s.as_secs_f64().min(end.as_secs_f64()));
            UdpSummary {
                id: s.flows.len() + j,
                class: u.spec.class.clone(),
                direction: u.spec.direction,
                host: u.spec.host,
                rate_bps: u.spec.rate_bps,
                sent_packets: st.sent_packets,
                sent_bytes: st.sent_bytes,
                delivered_packets: st.delivered_packets,
                delivered_bytes: st.delivered_bytes,
                lost_packets: st.lost_packets,
                loss_rate: ratio(st.lost_packets, st.sent_packets),
                goodput_bps: if until > from { st.delivered_bytes as f64 * 8.0 / (until - from) } else { 0.0 },
            }
        })
        .collect();
    let classes = crate::metrics::classes(&flows, &udp, end.as_secs_f64());
    let jain_index = crate::metrics::jain(flows.iter().filter_map(crate::metrics::started_goodput));
    Summary {
        flows,
        udp,
        classes,
        jain_index,
        links,
        sim: SimSummary { end_time: end.as_secs_f64(), events: sim.events_processed(), seed: s.seed },
        invariants: inv.clone(),
    }
}
