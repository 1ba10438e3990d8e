//! ACK compression at the router feeding the reverse bottleneck: released batches arrive at the
//! sender back-to-back although the receiver sent them a data packet apart, and merging cuts the
//! number of ACKs that get through.

mod common;
use common::Run;
use serde_json::{json, Value};

/// One 2 MB transfer over 10 Mb/s, an ACK per segment, with the given element on the ACK path.
/// The buffer holds the whole transfer, so no loss puts SACK blocks on the ACKs.
fn transfer(element: Value) -> Run {
    let mut network = json!({"rate": "10Mbps", "rtt": "40ms", "queue": "2000pkt"});
    if !element.is_null() {
        network["reverse_ack_compression"] = element;
    }
    common::run(json!({
        "network": network,
        "tcp": {"delayed_ack": false},
        "flows": [{"algorithm": "newreno", "size": "2MB"}],
        "trace": {"packets": true}
    }))
}

/// Gaps between consecutive events of one kind (data ACKs only: the SYN-ACK acknowledges 0).
fn gaps(out: &Run, event: &str) -> Vec<f64> {
    let p = out.packets.as_ref().unwrap();
    let t: Vec<f64> = (0..p.t.len()).filter(|&i| p.event[i] == event && p.ack[i] > 0).map(|i| p.t[i]).collect();
    t.windows(2).map(|w| w[1] - w[0]).collect()
}

fn count(out: &Run, event: &str) -> usize {
    gaps(out, event).len() + 1
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn released_acks_reach_the_sender_back_to_back() {
    let plain = transfer(Value::Null);
    let compressed = transfer(json!({"mode": "release", "interval": "10ms"}));
    assert_eq!(common::flow(&compressed, 0)["drops"], 0);
    // A 1460-byte segment with headers and timestamps is 1512 bytes: 1.21 ms at 10 Mb/s; an ACK
    // with timestamps is 52 bytes: 41.6 us on the 10 Mb/s reverse bottleneck.
    let data_gap = 1512.0 * 8.0 / 10e6;
    let ack_gap = 52.0 * 8.0 / 10e6;
    for out in [&plain, &compressed] {
        let sent = median(gaps(out, "ack_send"));
        assert!((sent - data_gap).abs() < 1e-6, "receiver spacing {sent}");
    }
    let plain_arrival = median(gaps(&plain, "ack_arrive"));
    let compressed_arrival = median(gaps(&compressed, "ack_arrive"));
    println!(
        "median ACK spacing at the sender: {:.1} us plain, {:.1} us compressed",
        plain_arrival * 1e6,
        compressed_arrival * 1e6
    );
    assert!((plain_arrival - data_gap).abs() < 1e-6, "without the element the ACK clock is kept");
    assert!((compressed_arrival - ack_gap).abs() < 1e-7, "batches leave at the reverse link's rate");
    let element = &common::link(&compressed, "bottleneck_rev")["ack_compression"];
    assert_eq!(element["acks_merged"], 0);
    assert!(element["batches"].as_u64().unwrap() > 10);
    assert_eq!(count(&compressed, "ack_arrive"), count(&compressed, "ack_send"), "release loses no ACK");
}

#[test]
fn merging_keeps_one_ack_per_batch_and_the_transfer_still_completes() {
    let plain = transfer(Value::Null);
    let merged = transfer(json!({"mode": "merge", "interval": "10ms"}));
    assert_eq!(common::flow(&merged, 0)["completed"], true);
    let element = &common::link(&merged, "bottleneck_rev")["ack_compression"];
    let (held, absorbed, batches) = (
        element["acks_held"].as_u64().unwrap(),
        element["acks_merged"].as_u64().unwrap(),
        element["batches"].as_u64().unwrap(),
    );
    assert_eq!(held, absorbed + batches, "each batch forwards exactly one ACK");
    assert_eq!(count(&merged, "ack_arrive") as u64, count(&merged, "ack_send") as u64 - absorbed);
    assert_eq!(merged.invariants.merged, absorbed);
    println!(
        "ACKs reaching the sender: {} plain, {} merged",
        count(&plain, "ack_arrive"),
        count(&merged, "ack_arrive")
    );
    assert!(count(&merged, "ack_arrive") * 3 < count(&plain, "ack_arrive"), "10 ms batches of 1.2 ms-spaced ACKs");
}

#[test]
fn the_element_acts_only_on_its_own_direction() {
    // `ack_compression` sits in front of the forward bottleneck, which carries no pure ACKs here.
    let out = common::run(json!({
        "network": {"rate": "10Mbps", "rtt": "40ms", "ack_compression": {"mode": "merge", "interval": "10ms"}},
        "flows": [{"algorithm": "newreno", "size": "200KB"}]
    }));
    assert_eq!(common::link(&out, "bottleneck")["ack_compression"]["acks_held"], 0);
    assert!(common::link(&out, "bottleneck_rev")["ack_compression"].is_null());
}

#[test]
fn bad_ack_compression_settings_name_the_field() {
    let error = |element: Value| {
        let text = json!({"network": {"rate": "10Mbps", "rtt": "50ms", "reverse_ack_compression": element}, "flows": [{"size": 1000}]});
        tcpstart_sim::scenario::from_json(&text.to_string()).map(|_| ()).unwrap_err().to_string()
    };
    let cases = [
        (json!({"interval": "1ms"}), "network.reverse_ack_compression.mode: is required: release or merge"),
        (
            json!({"mode": "squash", "interval": "1ms"}),
            "network.reverse_ack_compression.mode: must be release or merge",
        ),
        (json!({"mode": "merge"}), "network.reverse_ack_compression.interval: is required"),
        (json!({"mode": "merge", "interval": "20s"}), "network.reverse_ack_compression.interval: must be between"),
    ];
    for (element, expected) in cases {
        let e = error(element.clone());
        assert!(e.starts_with(expected), "{element}: {e}");
    }
}
