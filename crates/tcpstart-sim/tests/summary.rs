//! The summary's JSON shape, which summary.json and `Run.summary()` show users: keys sorted, integer
//! counts as JSON integers, rates and times as floats even when whole, null for what did not
//! happen. The summary is typed in Rust, so these pin the field types to what users have read.

mod common;
use serde_json::{json, Value};

/// One flow that completes and one that never starts before the run ends.
fn two_flows() -> common::Run {
    common::run(json!({
        "duration": "1s",
        "network": {"rate": "10Mbps", "rtt": "40ms", "queue": "1bdp"},
        "flows": [
            {"algorithm": "newreno", "size": "100kB"},
            {"algorithm": "newreno", "start": "2s", "class": "late"}
        ]
    }))
}

#[test]
fn keys_are_sorted_at_every_level() {
    let out = two_flows();
    let text = serde_json::to_string(&out.summary).unwrap();
    let top: Vec<&str> = out.summary.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(top, ["classes", "flows", "invariants", "jain_index", "links", "sim", "udp"]);
    let flow: Vec<&String> = out.summary["flows"][0].as_object().unwrap().keys().collect();
    let mut sorted = flow.clone();
    sorted.sort();
    assert_eq!(flow, sorted);
    assert!(text.starts_with("{\"classes\":{\"late\":"), "{}", &text[..40]);
}

#[test]
fn counts_are_integers_and_rates_floats() {
    let out = two_flows();
    let done = &out.summary["flows"][0];
    for key in ["id", "host", "size", "bytes_acked", "segments_sent", "max_cwnd", "bdp_bytes", "drops"] {
        assert!(done[key].is_u64(), "{key} = {}", done[key]);
    }
    for key in ["start", "completion_time", "goodput_bps", "drop_rate", "base_rtt"] {
        assert!(done[key].is_f64(), "{key} = {}", done[key]);
    }
    // Whole-valued floats stay floats: the first flow starts at 0 and drops nothing.
    assert_eq!(serde_json::to_string(&done["start"]).unwrap(), "0.0");
    assert_eq!(serde_json::to_string(&done["drop_rate"]).unwrap(), "0.0");
    let link = common::link(&out, "bottleneck");
    assert!(link["rate_bps"].is_f64() && link["max_queue_packets"].is_u64() && link["sojourn"]["p99"].is_f64());
    assert!(out.summary["sim"]["events"].is_u64() && out.summary["sim"]["end_time"].is_f64());
    assert_eq!(out.summary["classes"]["newreno"]["completion_time"]["count"], json!(1));
}

#[test]
fn what_did_not_happen_is_null() {
    let out = two_flows();
    let late = &out.summary["flows"][1];
    assert_eq!(late["started"], json!(false));
    for key in ["completion_time", "ss_exit_time", "ss_exit_cwnd", "time_to_bdp", "size"] {
        assert_eq!(late[key], Value::Null, "{key}");
    }
    let class = &out.summary["classes"]["late"];
    assert_eq!(class["completion_time"], Value::Null);
    assert_eq!(class["jain_index"], Value::Null, "no started flow to be fair among");
    assert_eq!(out.summary["links"][0]["ack_compression"], Value::Null);
    assert_eq!(out.summary["udp"], json!([]));
}
