//! Swift Start in the simulator: the capacity estimate against the NASA report's appendix B,
//! the abort when the receiver's delayed-ACK timer splits a pair, the estimate paced evenly over
//! the second round trip, the BBN original's flaws, and the pacing-only kernel.
//!
//! Reference values: NASA/TM-2004-212938 appendix B (table 6) gives the calculated window
//! `rate x delay / 8 / gamma` (its "delay" is the round trip: 5 Mbit/s x 500 ms = 216 packets of
//! 1448 bytes, as its figure 1 says). A packet pair through our simulator differs from that
//! ideal in two ways we compute here from first principles, not from the code under test:
//! - the pair's spacing is the bottleneck time of two *wire* packets (1460 payload + 40 IP/TCP +
//!   12 timestamp bytes = 1512), while the window counts payload bytes: factor 1460 / 1512;
//! - the RTT runs from sending the first segment to `th_ack_1`, which leaves the receiver when the
//!   second segment has arrived: the base RTT plus two data serialisations at the bottleneck, one
//!   on each access link, and the ACK's serialisations back. On the 0.5 Mbit/s x 100 ms path that
//!   is +48 ms, the "extra approximately 50 ms" of the report that made its estimate 140 %.

mod common;
use common::Run;
use serde_json::{json, Value};

const MSS: f64 = 1460.0;
const DATA_WIRE: f64 = 1460.0 + 40.0 + 12.0;
const ACK_WIRE: f64 = 40.0 + 12.0;
const ACCESS_BPS: f64 = 1e9;

fn tx(bytes: f64, bps: f64) -> f64 {
    bytes * 8.0 / bps
}

fn scenario(algo: &str, rate_mbps: f64, rtt_ms: f64, params: Value, tcp: Value, size: &str) -> Value {
    json!({
        "network": {"rate": format!("{rate_mbps}Mbps"), "rtt": format!("{rtt_ms}ms"), "queue": "2000pkt"},
        "tcp": tcp,
        "trace": {"interval": "0s", "packets": true},
        "flows": [{"algorithm": algo, "size": size, "params": params}]
    })
}

/// (time, cwnd) of the first sample in phase `phase`.
fn first_in_phase(out: &Run, phase: &str) -> Option<(f64, u64)> {
    let f = &out.flows;
    (0..f.t.len()).find(|&i| f.phase[i] == phase).map(|i| (f.t[i], f.cwnd[i]))
}

/// Start and end of the pacing phase: its first sample and the first sample after it (taken
/// once the segment that ended pacing was sent).
fn pacing_interval(out: &Run) -> (f64, f64) {
    let f = &out.flows;
    let start = (0..f.t.len()).find(|&i| f.phase[i] == "pacing").expect("a pacing phase");
    let end = (start..f.t.len()).find(|&i| f.phase[i] != "pacing").expect("pacing ends");
    (f.t[start], f.t[end])
}

/// Departure times of new data segments.
fn sends(out: &Run) -> Vec<(f64, u64)> {
    let p = out.packets.as_ref().unwrap();
    (0..p.t.len()).filter(|&i| p.event[i] == "send").map(|i| (p.t[i], p.seq[i])).collect()
}

/// The window the packet-pair estimate gives on our simulated path, before gamma.
fn predicted_ce(rate_bps: f64, rtt: f64) -> f64 {
    let rtt_measured = rtt
        + 2.0 * tx(DATA_WIRE, ACCESS_BPS)
        + 2.0 * tx(DATA_WIRE, rate_bps)
        + 2.0 * tx(ACK_WIRE, ACCESS_BPS)
        + tx(ACK_WIRE, rate_bps);
    let delta = 2.0 * tx(DATA_WIRE, rate_bps);
    2.0 * MSS * rtt_measured / delta
}

#[test]
fn capacity_estimate_matches_the_nasa_appendix_b_values() {
    // NASA/TM-2004-212938 table 6: rate (Mbit/s), delay (ms), calculated window for gamma 1, 4, 8.
    let table: [(f64, f64, [f64; 3]); 6] = [
        (20.0, 500.0, [1_250_000.0, 312_500.0, 156_250.0]),
        (20.0, 100.0, [250_000.0, 62_500.0, 31_250.0]),
        (5.0, 500.0, [312_500.0, 78_125.0, 39_062.5]),
        (5.0, 100.0, [62_500.0, 15_625.0, 7_812.5]),
        (0.5, 500.0, [31_250.0, 7_812.5, 3_906.25]),
        (0.5, 100.0, [6_250.0, 1_562.5, 781.25]),
    ];
    // The report's runs that used no estimate because it fell below snd_cwnd (five segments of
    // 1448 bytes): 0.5 Mbit/s with gamma 8 at 500 ms, gamma 4 and 8 at 100 ms.
    let paper_unused = [(0.5, 500.0, 8.0), (0.5, 100.0, 4.0), (0.5, 100.0, 8.0)];
    let mut unused = Vec::new();
    for (rate, delay, calculated) in table {
        for (gamma, appendix) in [1.0, 4.0, 8.0].into_iter().zip(calculated) {
            let out = common::run(scenario("swift-start", rate, delay, json!({"gamma": gamma}), json!({}), "300KB"));
            let ce = predicted_ce(rate * 1e6, delay / 1e3);
            // The model's ratio to the appendix: header overhead times the longer measured RTT.
            let ratio_model = ce / (rate * 1e6 / 8.0 * delay / 1e3);
            let expected = ce / gamma;
            match first_in_phase(&out, "pacing") {
                Some((_, w)) => {
                    let err = (w as f64 - expected).abs() / expected;
                    assert!(err < 0.002, "{rate} Mbps {delay} ms gamma {gamma}: window {w}, expected {expected:.0}");
                    let ratio = w as f64 / appendix;
                    assert!((ratio - ratio_model).abs() < 0.003, "ratio {ratio} vs model {ratio_model}");
                    // Within the spread the report measured (94 % .. 143 % of the calculated value).
                    assert!((0.94..1.45).contains(&ratio), "{rate} Mbps {delay} ms gamma {gamma}: {ratio}");
                }
                None => {
                    assert!(expected <= 5.0 * MSS, "{rate} Mbps {delay} ms gamma {gamma}: no pacing but {expected:.0}");
                    unused.push((rate, delay, gamma));
                }
            }
        }
    }
    assert_eq!(unused, paper_unused);
}

#[test]
fn slow_path_estimate_is_inflated_by_the_pair_serialisation_as_in_the_report() {
    // 0.5 Mbit/s x 100 ms, gamma 1: the report measured 139 .. 143.7 % of 6250 bytes (table 3);
    // our headers are a little larger than FreeBSD's 1448 + 52, hence the upper bound 1.45.
    let out = common::run(scenario("swift-start", 0.5, 100.0, json!({"gamma": 1}), json!({}), "100KB"));
    let (_, w) = first_in_phase(&out, "pacing").unwrap();
    let ratio = w as f64 / 6250.0;
    assert!((1.39..1.45).contains(&ratio), "{ratio}");
}

#[test]
fn estimate_is_paced_evenly_over_the_second_round_trip() {
    let out = common::run(scenario("swift-start", 5.0, 500.0, json!({"gamma": 4}), json!({}), "1MB"));
    let (_, window) = first_in_phase(&out, "pacing").unwrap();
    let (start, end) = pacing_interval(&out);
    // Sends released by the pacing timer; the segment that ends pacing waits for the window (the
    // estimate is not a whole number of segments) and leaves with the ACK that frees it, at `end`.
    let paced: Vec<f64> = sends(&out).into_iter().filter(|&(t, _)| t >= start && t < end).map(|(t, _)| t).collect();
    // Three segments went out at th_ack_1 in slow start; pacing fills the rest of the window.
    let expected_count = (window as f64 / MSS).floor() as usize - 3;
    assert_eq!(paced.len(), expected_count);
    // Gap: payload bytes at window / RTT, where RTT is the one measured (first data segment to
    // th_ack_1); the sender spaces paced segments by payload, as Linux does.
    let rtt = 0.5
        + 2.0 * tx(DATA_WIRE, ACCESS_BPS)
        + 2.0 * tx(DATA_WIRE, 5e6)
        + 2.0 * tx(ACK_WIRE, ACCESS_BPS)
        + tx(ACK_WIRE, 5e6);
    let gap = MSS * rtt / window as f64;
    for w in paced.windows(2) {
        assert!(((w[1] - w[0]) - gap).abs() < 1e-6, "gap {} vs {gap}", w[1] - w[0]);
    }
    // The paced departures fill about one round trip (the window at window / RTT, less the three
    // slow-start segments), then slow start.
    let span = paced.last().unwrap() - start + gap;
    assert!((0.9 * rtt..1.05 * rtt).contains(&span), "span {span}");
    let after = (0..out.flows.t.len()).find(|&i| out.flows.t[i] > end).unwrap();
    assert_eq!(out.flows.phase[after], "slow_start");
    assert_eq!(common::flow(&out, 0)["drops"], 0);
}

#[test]
fn delayed_ack_timer_splitting_the_pair_aborts_the_estimate() {
    // Segment 4 is dropped: the receiver's timer acknowledges segment 3 alone 200 ms later, so
    // th_ack_2 covers one segment where th_ack_1 covered two.
    let run = |drops: Value| {
        let mut s = scenario("swift-start", 5.0, 500.0, json!({"gamma": 1}), json!({}), "300KB");
        s["flows"][0]["drop_transmissions"] = drops;
        common::run(s)
    };
    assert!(first_in_phase(&run(json!([])), "pacing").is_some(), "without the drop the estimate is used");
    let out = run(json!([4]));
    assert!(first_in_phase(&out, "pacing").is_none());
    // The split ACK (cumulative ACK of three segments) came before any retransmission: the
    // abort is the timer's doing, not the retransmission's.
    let p = out.packets.as_ref().unwrap();
    let split_ack = (0..p.t.len()).find(|&i| p.event[i] == "ack_arrive" && p.ack[i] == 3 * 1460).map(|i| p.t[i]);
    let retransmit = (0..p.t.len()).find(|&i| p.event[i] == "retransmit").map(|i| p.t[i]);
    assert!(split_ack.unwrap() < retransmit.unwrap(), "{split_ack:?} {retransmit:?}");
}

#[test]
fn bbn_original_uses_the_slow_start_window_and_never_stops_pacing() {
    // NASA report figure 1: with the SYN-ACK as first sample delta is about one RTT, ce_cwnd falls
    // below snd_cwnd, and only the slow-start window is paced (six packets in the second RTT).
    let out = common::run(scenario("swift-start-bbn", 5.0, 500.0, json!({"gamma": 1}), json!({}), "200KB"));
    let f = &out.flows;
    let pacing: Vec<u64> = (0..f.t.len()).filter(|&i| f.phase[i] == "pacing").map(|i| f.cwnd[i]).collect();
    // Premature pacing at th_ack_1 with cwnd = 5 segments, then 6 at th_ack_2.
    assert_eq!(pacing[0], 5 * 1460);
    assert!(pacing.contains(&(6 * 1460)));
    // Pacing never ends: the last sample before the transfer completes is still pacing.
    let last = (0..f.t.len()).rev().find(|&i| f.phase[i] != "done").unwrap();
    assert_eq!(f.phase[last], "pacing");
    // Six new segments in the second round trip, as slow start would send.
    let (th_ack_1, _) = first_in_phase(&out, "pacing").unwrap();
    let second_round: Vec<_> = sends(&out).into_iter().filter(|&(t, _)| t >= th_ack_1 && t < th_ack_1 + 0.5).collect();
    assert_eq!(second_round.len(), 6, "{second_round:?}");
}

#[test]
fn pacing_only_spreads_six_segments_over_the_second_round_trip() {
    let out = common::run(scenario("pacing-only", 5.0, 500.0, json!({}), json!({}), "200KB"));
    let (_, window) = first_in_phase(&out, "pacing").unwrap();
    assert_eq!(window, 6 * 1460);
    let (start, end) = pacing_interval(&out);
    let paced: Vec<f64> = sends(&out).into_iter().filter(|&(t, _)| t >= start && t <= end).map(|(t, _)| t).collect();
    assert_eq!(paced.len(), 6);
    let gaps: Vec<f64> = paced.windows(2).map(|w| w[1] - w[0]).collect();
    for g in &gaps {
        assert!((g - gaps[0]).abs() < 1e-6, "{gaps:?}");
    }
    // Six gaps of RTT/6 (times wire/payload) span about one round trip.
    let span = paced[5] - paced[0] + gaps[0];
    assert!((0.5..0.56).contains(&span), "{span}");
}

/// The NASA report's multi-flow finding: ACK compression on the return path makes the packet
/// pair's ACKs arrive closer together than the bottleneck spaced the data, so delta shrinks and
/// ce_cwnd grows. Here a router on the ACK path releases the ACKs it holds every 10 ms
/// back-to-back (`reverse_ack_compression`), so th_ack_1 and th_ack_2 leave it together.
#[test]
fn ack_compression_inflates_the_capacity_estimate() {
    let estimate = |compression: Value| {
        let mut s = scenario("swift-start", 5.0, 500.0, json!({"gamma": 1}), json!({}), "1MB");
        if !compression.is_null() {
            s["network"]["reverse_ack_compression"] = compression;
        }
        first_in_phase(&common::run(s), "pacing").expect("an estimate was paced").1 as f64
    };
    let plain = estimate(Value::Null);
    let compressed = estimate(json!({"mode": "release", "interval": "10ms"}));
    // Uncompressed: the pair's spacing is two 1512-byte segments at 5 Mbit/s (4.8 ms). Released
    // together, the ACKs are about one ACK serialisation apart on the 1 Gbit/s access link, so
    // delta collapses and the estimate is many times the capacity (about 60x here).
    let expected_plain = predicted_ce(5e6, 0.5);
    assert!((plain - expected_plain).abs() / expected_plain < 0.01, "{plain} vs {expected_plain:.0}");
    eprintln!("estimate: {plain:.0} bytes plain, {compressed:.0} with ACK compression");
    assert!(compressed > 5.0 * plain, "compressed {compressed} vs plain {plain}");
}
