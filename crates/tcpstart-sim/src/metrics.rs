//! Aggregates over flows and sources for the summary: per-class goodput, drop rate, completion
//! time quantiles and UDP delivery, and Jain's fairness index.
//!
//! A class is the `class` label of a flow, web workload or UDP source. Per class:
//! - `goodput_bps`: bytes delivered by all its members (TCP bytes acknowledged, UDP payload
//!   delivered) times 8, over the run's end time, so classes add up to what the network carried
//!   for them;
//! - `jain_index`: Jain's index over the own goodputs (each over its active time) of its TCP
//!   flows that started before the run ended;
//! - `drop_rate`: data segments dropped over data segments sent (retransmissions included);
//! - `completion_time`: quantiles of its completed flows' completion times, by linear
//!   interpolation between order statistics (numpy's default), or null if none completed;
//! - `udp`: packets sent, delivered and lost by its UDP sources.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::output::{FlowSummary, UdpSummary};

/// Jain's fairness index `(sum x)^2 / (n sum x^2)`: 1 when all are equal, 1/n when one has all.
/// None (null) for no values; 1 when all are zero (equal shares of nothing).
pub fn jain(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut n, mut sum, mut sq) = (0usize, 0.0, 0.0);
    for x in values {
        n += 1;
        sum += x;
        sq += x * x;
    }
    match n {
        0 => None,
        _ if sq == 0.0 => Some(1.0),
        _ => Some(sum * sum / (n as f64 * sq)),
    }
}

/// The goodput of a flow that opened its connection during the run: flows that never started
/// have no share to be fair about.
pub fn started_goodput(f: &FlowSummary) -> Option<f64> {
    f.started.then_some(f.goodput_bps)
}

/// The `q` quantile (0..=1) of sorted values, interpolating linearly between order statistics.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Summary statistics of a class's completion times, seconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub p10: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

fn distribution(mut v: Vec<f64>) -> Option<Distribution> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    Some(Distribution {
        count: v.len(),
        mean,
        min: v[0],
        p10: quantile(&v, 0.10),
        p25: quantile(&v, 0.25),
        p50: quantile(&v, 0.50),
        p75: quantile(&v, 0.75),
        p90: quantile(&v, 0.90),
        p99: quantile(&v, 0.99),
        max: v[v.len() - 1],
    })
}

/// A class's entry in the summary's `classes`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    pub flows: u64,
    pub completed: u64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub jain_index: Option<f64>,
    pub drop_rate: f64,
    /// Null when none of its flows completed.
    pub completion_time: Option<Distribution>,
    pub udp: ClassUdp,
}

/// What a class's UDP sources sent, delivered and lost, in packets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassUdp {
    pub sources: u64,
    pub sent_packets: u64,
    pub delivered_packets: u64,
    pub lost_packets: u64,
}

#[derive(Default)]
struct Class {
    flows: u64,
    completed: u64,
    bytes: u64,
    goodputs: Vec<f64>,
    completion: Vec<f64>,
    segments_sent: u64,
    data_drops: u64,
    udp_sources: u64,
    udp_sent: u64,
    udp_delivered: u64,
    udp_lost: u64,
}

/// Per-class aggregates of the summary's `flows` and `udp` entries, keyed by class name.
pub fn classes(flows: &[FlowSummary], udp: &[UdpSummary], end_secs: f64) -> BTreeMap<String, ClassSummary> {
    let mut by: BTreeMap<&str, Class> = BTreeMap::new();
    for f in flows {
        let c = by.entry(&f.class).or_default();
        c.flows += 1;
        c.bytes += f.bytes_acked;
        c.segments_sent += f.segments_sent;
        c.data_drops += f.data_drops;
        c.goodputs.extend(started_goodput(f));
        if let Some(t) = f.completion_time {
            c.completed += 1;
            c.completion.push(t);
        }
    }
    for s in udp {
        let c = by.entry(&s.class).or_default();
        c.udp_sources += 1;
        c.bytes += s.delivered_bytes;
        c.udp_sent += s.sent_packets;
        c.udp_delivered += s.delivered_packets;
        c.udp_lost += s.lost_packets;
    }
    by.into_iter()
        .map(|(name, c)| {
            let summary = ClassSummary {
                flows: c.flows,
                completed: c.completed,
                bytes_delivered: c.bytes,
                goodput_bps: if end_secs > 0.0 { c.bytes as f64 * 8.0 / end_secs } else { 0.0 },
                jain_index: jain(c.goodputs.iter().copied()),
                drop_rate: if c.segments_sent > 0 { c.data_drops as f64 / c.segments_sent as f64 } else { 0.0 },
                completion_time: distribution(c.completion),
                udp: ClassUdp {
                    sources: c.udp_sources,
                    sent_packets: c.udp_sent,
                    delivered_packets: c.udp_delivered,
                    lost_packets: c.udp_lost,
                },
            };
            (name.to_string(), summary)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_equal_and_of_monopoly() {
        assert_eq!(jain([5.0, 5.0, 5.0].into_iter()), Some(1.0));
        // One of four gets everything: 1/n.
        assert_eq!(jain([8.0, 0.0, 0.0, 0.0].into_iter()), Some(0.25));
        // (1 + 2 + 3)^2 / (3 * 14) = 36 / 42
        let j = jain([1.0, 2.0, 3.0].into_iter()).unwrap();
        assert!((j - 36.0 / 42.0).abs() < 1e-12);
        assert_eq!(jain(std::iter::empty()), None);
    }

    #[test]
    fn quantiles_interpolate_like_numpy() {
        // numpy.quantile([1, 2, 3, 4], 0.1) = 1.3; 0.5 -> 2.5
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((quantile(&v, 0.1) - 1.3).abs() < 1e-12);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&[7.0], 0.9), 7.0);
    }
}
