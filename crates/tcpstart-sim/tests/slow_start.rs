//! Slow start: growth per round trip and the completion time of an uncongested transfer.

mod common;
use serde_json::json;

/// cwnd (segments) sampled half an RTT into each of the first rounds after the handshake.
fn cwnd_per_round(delayed_ack: bool) -> Vec<f64> {
    let rtt = 0.1;
    let out = common::run(json!({
        "duration": "1.2s",
        "network": {"rate": "1Gbps", "rtt": "100ms", "queue": "10000pkt"},
        "tcp": {"delayed_ack": delayed_ack, "initial_window": 10},
        "flows": [{"algorithm": "newreno"}]
    }));
    let series = common::cwnd_series(&out, 0);
    let established = rtt;
    (1..8)
        .map(|k| {
            let t = established + (k as f64 + 0.5) * rtt;
            let (_, c) = series.iter().rev().find(|(ts, _)| *ts <= t).copied().unwrap();
            c as f64 / 1460.0
        })
        .collect()
}

#[test]
fn slow_start_doubles_cwnd_per_rtt_with_an_ack_per_segment() {
    let w = cwnd_per_round(false);
    for pair in w.windows(2) {
        let ratio = pair[1] / pair[0];
        assert!((1.9..=2.1).contains(&ratio), "growth per RTT {ratio} in {w:?}");
    }
}

#[test]
fn slow_start_grows_about_one_and_a_half_per_rtt_with_delayed_acks() {
    let w = cwnd_per_round(true);
    let ratios: Vec<f64> = w.windows(2).map(|p| p[1] / p[0]).collect();
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    assert!((1.4..=1.6).contains(&mean), "mean growth per RTT {mean}, ratios {ratios:?}");
}

/// Serialisation time of `bytes` at `bps`.
fn tx(bytes: f64, bps: f64) -> f64 {
    bytes * 8.0 / bps
}

#[test]
fn uncongested_completion_time_matches_handshake_plus_rounds_plus_serialisation() {
    // 150 segments with IW 10 and one ACK per segment: rounds of 10, 20, 40, 80 segments.
    let (rate, access, prop_rtt, mss) = (100e6, 1e9, 0.1, 1460.0);
    let out = common::run(json!({
        "network": {"rate": "100Mbps", "rtt": "100ms", "access_rate": "1Gbps", "queue": "1000pkt"},
        "tcp": {"delayed_ack": false, "initial_window": 10, "mss": 1460},
        "flows": [{"algorithm": "newreno", "size": 150 * 1460}]
    }));
    let (syn, data, ack) = (40.0 + 12.0 + 12.0, mss + 52.0, 52.0);
    // Each packet crosses the sender's access link, the bottleneck and the receiver's access link.
    let path = |b: f64| tx(b, access) + tx(b, rate) + tx(b, access);
    let handshake = prop_rtt + 2.0 * path(syn);
    // From a segment's departure to its ACK's arrival.
    let round = prop_rtt + path(data) + path(ack);
    let rounds = 4.0;
    // Within the last round the 80 segments leave the bottleneck back to back.
    let analytic = handshake + rounds * round + 79.0 * tx(data, rate);
    let measured = common::flow(&out, 0)["completion_time"].as_f64().unwrap();
    let err = (measured - analytic).abs() / analytic;
    assert!(err < 0.01, "measured {measured:.6} s, analytic {analytic:.6} s, error {:.3}%", err * 100.0);
    assert_eq!(common::flow(&out, 0)["retransmissions"], 0);
}
