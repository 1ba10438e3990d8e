//! Receiver processing jitter (`network.ack_jitter`): each packet a receiver host sends waits an
//! extra uniform draw from the seed, in order, so replications of a deterministic path differ,
//! while one seed still gives one outcome and the field left out changes nothing.

mod common;

use serde_json::{json, Value};
use tcpstart_sim::scenario::from_json;

fn lone_flow(seed: u64, jitter: Option<&str>) -> Value {
    let mut network = json!({"rate": "20Mbps", "rtt": "40ms", "queue": "1bdp"});
    if let Some(j) = jitter {
        network["ack_jitter"] = json!(j);
    }
    json!({"seed": seed, "network": network, "flows": [{"algorithm": "cubic", "size": "2MB"}]})
}

fn completion(spec: Value) -> f64 {
    let out = common::run(spec);
    common::value(&out, "completion_time")
}

#[test]
fn seeds_alone_change_nothing_on_a_deterministic_path() {
    let times: Vec<f64> = (1..=4).map(|seed| completion(lone_flow(seed, None))).collect();
    assert!(times.iter().all(|&t| t == times[0]), "{times:?}");
}

#[test]
fn ack_jitter_makes_seeds_differ_and_one_seed_repeat_itself() {
    let times: Vec<f64> = (1..=4).map(|seed| completion(lone_flow(seed, Some("200us")))).collect();
    let distinct = times.iter().map(|t| t.to_bits()).collect::<std::collections::HashSet<_>>();
    assert_eq!(distinct.len(), 4, "{times:?}");
    assert_eq!(completion(lone_flow(3, Some("200us"))).to_bits(), times[2].to_bits());
    // The ACKs are held at most 200 us each, in order: the transfer is barely slower.
    let plain = completion(lone_flow(1, None));
    assert!(times.iter().all(|&t| t >= plain - 0.05 && t < plain * 1.1), "{times:?} vs {plain}");
}

#[test]
fn zero_ack_jitter_is_no_jitter() {
    assert_eq!(completion(lone_flow(2, Some("0ms"))).to_bits(), completion(lone_flow(2, None)).to_bits());
}

#[test]
fn a_bad_ack_jitter_is_refused_in_one_line_with_its_range() {
    for bad in [r#""-1ms""#, r#""2s""#, "5", r#""soon""#] {
        let text = format!(
            r#"{{"network": {{"rate": "10Mbps", "rtt": "100ms", "ack_jitter": {bad}}}, "flows": [{{"size": 1000}}]}}"#
        );
        let e = from_json(&text).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with("network.ack_jitter: ") && !e.contains('\n'), "{bad}: {e}");
    }
    let text = r#"{"network": {"rate": "10Mbps", "rtt": "100ms", "ack_jitter": "2s"}, "flows": [{"size": 1000}]}"#;
    let e = from_json(text).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("1s"), "names the upper end: {e}");
}
