//! Jump Start on the paper's path (section III.A: 5 Mbps, 64 ms RTT, drop-tail, 1500-byte packets,
//! SACK, slow start with an initial window of 3): the whole jump leaves within the first round
//! trip, evenly spaced; a loss in the jump leaves cwnd = (D - R) / 2; a timeout still collapses the
//! window to one segment; and the transfer-size effects of the paper's Figure 1.

mod common;
use serde_json::{json, Value};

const MSS: u64 = 1460;

fn path(flow: Value, queue: &str, tcp: Value) -> common::Run {
    let mut t = json!({"initial_window": 3, "sack": true});
    t.as_object_mut().unwrap().extend(tcp.as_object().unwrap().clone());
    common::run(json!({
        "network": {"rate": "5Mbps", "rtt": "64ms", "queue": queue},
        "tcp": t,
        "flows": [flow],
        "trace": {"packets": true}
    }))
}

/// Times of one kind of packet-trace event (data segments only for "send": the SYN is one too).
fn events(out: &common::Run, kind: &str) -> Vec<f64> {
    let p = out.packets.as_ref().unwrap();
    (0..p.t.len()).filter(|&i| p.event[i] == kind && (kind != "send" || p.len[i] > 0)).map(|i| p.t[i]).collect()
}

fn stat(out: &common::Run, key: &str) -> u64 {
    common::flow(out, 0)[key].as_u64().unwrap()
}

#[test]
fn all_d_segments_leave_within_the_first_rtt_evenly_spaced() {
    let d = 100;
    let out = path(json!({"algorithm": "jump-start", "size": d * MSS}), "1000pkt", json!({}));
    let sends = events(&out, "send");
    assert_eq!(sends.len(), d as usize, "no retransmissions, every segment sent once");
    // The flow starts at 0, so the first data segment leaves exactly one handshake RTT in.
    let handshake_rtt = sends[0];
    let expected_gap = handshake_rtt / d as f64;
    for (i, pair) in sends.windows(2).enumerate() {
        let gap = pair[1] - pair[0];
        assert!((gap - expected_gap).abs() < 2e-9, "gap {i}: {gap} s, expected {expected_gap} s");
    }
    let first_ack = events(&out, "ack_arrive")[0];
    assert!(sends[d as usize - 1] < first_ack, "the last jump segment left after the first ACK");
    assert!(sends[d as usize - 1] - sends[0] < handshake_rtt);
}

#[test]
fn with_linuxs_unpaced_start_the_first_ten_segments_leave_together_then_the_rest_paced() {
    // tcp.unpaced_segments = 10: Linux's tcp_update_skb_after_send adds no pacing gap after the
    // first 10 data segments of a connection; the gap after the 10th and every later one is
    // payload / rate, as without the knob.
    let d = 100;
    let out = path(json!({"algorithm": "jump-start", "size": d * MSS}), "1000pkt", json!({"unpaced_segments": 10}));
    let sends = events(&out, "send");
    assert_eq!(sends.len(), d as usize);
    let gap = sends[0] / d as f64;
    for (i, pair) in sends.windows(2).enumerate() {
        let expected = if i < 9 { 0.0 } else { gap };
        assert!((pair[1] - pair[0] - expected).abs() < 2e-9, "gap after segment {}: {} s", i + 1, pair[1] - pair[0]);
    }
}

#[test]
fn loss_in_the_jump_leaves_half_of_the_jump_minus_the_retransmissions() {
    // D = 100 segments (the receiver window), 8 of them dropped: cwnd = (100 - 8) / 2 = 46 segments.
    let drops = [20, 24, 28, 32, 36, 40, 44, 48];
    let out = path(
        json!({"algorithm": "jump-start", "size": 300 * MSS, "drop_transmissions": drops}),
        "1000pkt",
        json!({"rcv_buf": 100 * MSS}),
    );
    assert_eq!((stat(&out, "fast_recoveries"), stat(&out, "retransmissions"), stat(&out, "timeouts")), (1, 8, 0));
    let f = &out.flows;
    let recovery_end = (1..f.t.len()).find(|&i| f.phase[i - 1] == "recovery" && f.phase[i] != "recovery").unwrap();
    assert_eq!(f.cwnd[recovery_end], 46 * MSS, "cwnd after the jump's recovery");
    assert_eq!(f.ssthresh[recovery_end], 46 * MSS);
    // NewReno alone would have kept half the flight size at detection, which is larger.
    let detection = (0..f.t.len()).find(|&i| f.phase[i] == "recovery").unwrap();
    assert!(f.cwnd[detection] > 46 * MSS, "halved at detection: {}", f.cwnd[detection]);
}

#[test]
fn a_timeout_collapses_the_window_to_one_segment() {
    // The last segment of the jump is lost: no duplicate ACK can follow it, only the timer.
    let out = path(
        json!({"algorithm": "jump-start", "size": 50 * MSS, "drop_transmissions": [50]}),
        "1000pkt",
        json!({"rto_min": "200ms"}),
    );
    assert_eq!(stat(&out, "timeouts"), 1);
    let f = &out.flows;
    let retransmit = events(&out, "retransmit")[0];
    let at_timeout = (0..f.t.len()).find(|&i| f.t[i] >= retransmit).unwrap();
    assert_eq!(f.cwnd[at_timeout], MSS);
    assert!(f.cwnd[..at_timeout].iter().any(|&c| c >= 50 * MSS), "the jump's window came first");
}

/// Durations of one transfer without drops: from the SYN, and from the first data segment (ns-2's
/// one-way TCP, which the paper ran, has no handshake, so its durations start there). `tcp` says
/// how the receiver acknowledges.
fn completion(algorithm: &str, packets: u64, params: Value, tcp: Value) -> (f64, f64) {
    let out = path(json!({"algorithm": algorithm, "size": packets * MSS, "params": params}), "60pkt", tcp);
    assert_eq!(stat(&out, "retransmissions"), 0, "the paper's Figure 1 runs had no drops");
    let from_syn = common::flow(&out, 0)["completion_time"].as_f64().unwrap();
    (from_syn, from_syn - events(&out, "send")[0])
}

/// The paper's receiver (ns-2's Agent/TCPSink) acknowledges every segment.
fn ns2_sink() -> Value {
    json!({"delayed_ack": false})
}

#[test]
fn figure_1_jump_start_wins_above_two_packets_and_loses_at_two() {
    // Section III.B: two packets are faster with slow start (Jump Start paces them); larger
    // transfers finish 10-40+% sooner with Jump Start, measured as the paper measures: an ACK per
    // segment, durations from the first data segment.
    let run = |algorithm: &str, packets: u64, params: Value| completion(algorithm, packets, params, ns2_sink());
    let two = (run("jump-start", 2, json!({})), run("newreno", 2, json!({})));
    assert!(two.0 .1 > two.1 .1, "2 packets: jump start {:?} s, slow start {:?} s", two.0, two.1);
    for packets in [8, 16, 30] {
        let ((_, js), (_, ss)) = (run("jump-start", packets, json!({})), run("newreno", packets, json!({})));
        let gain = 1.0 - js / ss;
        eprintln!("{packets} packets: jump start {js:.4} s, slow start {ss:.4} s, gain {:.0}%", gain * 100.0);
        assert!(gain >= 0.10, "{packets} packets: jump start {js} s, slow start {ss} s ({:.0}%)", gain * 100.0);
    }
    // Footnote 3: without pacing within the standard initial window the two-packet case ties.
    let unpaced = run("jump-start", 2, json!({"unpaced_within_iw": 1}));
    assert!((unpaced.0 - two.1 .0).abs() < 1e-9, "{unpaced:?} vs {:?}", two.1);
}

#[test]
fn delayed_acks_slow_slow_start_and_widen_jump_starts_lead() {
    // Not the paper's receiver: acknowledging every other segment, slow start grows 1.5x per RTT
    // instead of 2x, so even counted from the SYN (the handshake RTT added to both) Jump Start
    // gains 10 % at 8 packets; with an ACK per segment it gains less from the SYN.
    let delayed = json!({"delayed_ack": true});
    let gain = |tcp: Value| {
        let (js, _) = completion("jump-start", 8, json!({}), tcp.clone());
        let (ss, _) = completion("newreno", 8, json!({}), tcp);
        1.0 - js / ss
    };
    let (with, without) = (gain(delayed), gain(ns2_sink()));
    assert!(with >= 0.10, "delayed ACKs, from the SYN: {:.1}%", with * 100.0);
    assert!(with > without, "delayed ACKs {:.1}% vs an ACK per segment {:.1}%", with * 100.0, without * 100.0);
}
