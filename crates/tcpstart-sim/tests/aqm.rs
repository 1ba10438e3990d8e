//! RED and CoDel at the bottleneck: RED's early drops grow with the average queue, CoDel holds the
//! sojourn time near its target where drop-tail lets a big buffer fill, both respect packet and
//! byte limits, and their parameters are checked with messages naming the field.

mod common;
use serde_json::{json, Value};
use tcpstart_sim::scenario::from_json;

fn f64_at(v: &Value, path: &[&str]) -> f64 {
    path.iter().fold(v, |v, k| &v[*k]).as_f64().unwrap_or_else(|| panic!("{path:?} missing in {v}"))
}

fn bulk(flows: u32, aqm: Value, queue: &str) -> common::Run {
    common::run(json!({
        "seed": 3,
        "duration": "40s",
        "network": {"rate": "10Mbps", "rtt": "60ms", "queue": queue, "aqm": aqm},
        "flows": [{"algorithm": "newreno", "count": flows}]
    }))
}

/// Flows start in congestion avoidance (initial_ssthresh 10 segments): RED's slow average
/// cannot follow a slow-start overshoot, and the burst of losses that follows would hide the
/// steady-state relation this test is about.
#[test]
fn red_drops_more_often_as_more_flows_raise_the_average_queue() {
    let mut last = (-1.0, 0.0);
    for flows in [1, 2, 4] {
        let out = common::run(json!({
            "seed": 3,
            "duration": "60s",
            "network": {"rate": "10Mbps", "rtt": "60ms", "queue": "300pkt", "aqm": {"kind": "red"}},
            "tcp": {"initial_ssthresh": 10},
            "flows": [{"algorithm": "newreno", "count": flows}]
        }));
        let b = common::link(&out, "bottleneck");
        let early = f64_at(b, &["early_drops"]) / f64_at(b, &["arrivals"]);
        let mean_queue = f64_at(b, &["mean_queue_packets"]);
        // ns-3 defaults: p_b = max_p (avg - min_th) / (max_th - min_th) with max_p 1/50, thresholds
        // 5 and 15; with "wait" the drops are spaced 1/p_b to 2/p_b arrivals apart, so a fraction
        // 2 p_b / 3 of the arrivals is dropped. The mean queue stands in for the average.
        let formula = 2.0 / 3.0 * 0.02 * ((mean_queue - 5.0) / 10.0).max(0.0);
        println!(
            "{flows} flows: mean queue {mean_queue:.2} packets, early-drop fraction {early:.5}, formula {formula:.5}"
        );
        assert_eq!(f64_at(b, &["overflow_drops"]) + f64_at(b, &["forced_drops"]), 0.0);
        assert!(early > last.0 && mean_queue > last.1, "{flows} flows: {early} / {mean_queue} after {last:?}");
        if mean_queue < 5.0 {
            assert!(early < 0.001, "{flows} flows: below min_th on average, yet {early}");
        } else {
            assert!((0.5..2.0).contains(&(early / formula)), "{flows} flows: {early} vs {formula}");
        }
        last = (early, mean_queue);
    }
}

#[test]
fn codel_keeps_the_sojourn_time_near_its_target_where_droptail_fills_the_buffer() {
    let codel = bulk(1, json!({"kind": "codel"}), "1000pkt");
    let droptail = bulk(1, json!({"kind": "droptail"}), "1000pkt");
    let (c, d) = (common::link(&codel, "bottleneck"), common::link(&droptail, "bottleneck"));
    let (c_p50, d_p50) = (f64_at(c, &["sojourn", "p50"]), f64_at(d, &["sojourn", "p50"]));
    println!(
        "CoDel: sojourn mean {:.1} ms p50 {:.1} ms p99 {:.1} ms, utilization {:.3}; drop-tail: mean {:.1} ms p50 {:.1} ms",
        1e3 * f64_at(c, &["sojourn", "mean"]),
        1e3 * c_p50,
        1e3 * f64_at(c, &["sojourn", "p99"]),
        f64_at(c, &["utilization"]),
        1e3 * f64_at(d, &["sojourn", "mean"]),
        1e3 * d_p50,
    );
    // Target 5 ms: the median packet waits about that long or less; drop-tail lets one Reno flow
    // build hundreds of milliseconds of queue in a 1000-packet (1.2 s) buffer.
    assert!(c_p50 <= 0.010, "CoDel median sojourn {c_p50}");
    assert!(f64_at(c, &["sojourn", "mean"]) < 0.015);
    assert!(d_p50 > 0.1, "drop-tail median sojourn {d_p50}");
    assert!(f64_at(c, &["early_drops"]) > 0.0 && f64_at(c, &["overflow_drops"]) == 0.0);
    assert!(f64_at(c, &["utilization"]) > 0.7, "CoDel should still keep the link mostly busy");
    // The queue trace carries the sojourn time too (link 0 is the bottleneck).
    let traced = |o: &common::Run| {
        let q = &o.queues;
        let mut v: Vec<f64> =
            (0..q.t.len()).filter(|&i| q.link[i] == 0 && q.t[i] > 5.0).map(|i| q.sojourn[i]).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    assert!(traced(&codel) < 0.010 && traced(&droptail) > 0.1, "{} / {}", traced(&codel), traced(&droptail));
}

#[test]
fn packet_and_byte_limits_bound_every_discipline() {
    for kind in ["droptail", "red", "codel"] {
        let out = bulk(16, json!({"kind": kind}), "20pkt");
        assert!(common::link(&out, "bottleneck")["max_queue_packets"].as_u64().unwrap() <= 20, "{kind}");
        let out = bulk(16, json!({"kind": kind}), "30KB");
        let b = common::link(&out, "bottleneck");
        assert!(b["max_queue_bytes"].as_u64().unwrap() <= 30_000, "{kind}");
        assert!(f64_at(b, &["drops"]) > 0.0, "{kind}");
    }
}

#[test]
fn red_parameters_change_the_drop_pattern_and_runs_repeat_exactly() {
    let run = |max_p: f64, seed: u64| {
        common::run(json!({
            "seed": seed,
            "duration": "20s",
            "network": {"rate": "10Mbps", "rtt": "60ms", "queue": "300pkt", "aqm": {"kind": "red", "max_p": max_p}},
            "flows": [{"algorithm": "newreno", "count": 8}]
        }))
    };
    let early = |o: &common::Run| f64_at(common::link(o, "bottleneck"), &["early_drops"]);
    let mean_q = |o: &common::Run| f64_at(common::link(o, "bottleneck"), &["mean_queue_packets"]);
    let (soft, hard) = (run(0.02, 1), run(0.2, 1));
    // A steeper drop curve holds the average queue lower.
    assert!(mean_q(&hard) < mean_q(&soft), "{} vs {}", mean_q(&hard), mean_q(&soft));
    assert_eq!(early(&run(0.02, 1)), early(&soft), "same seed, same drops");
    let (a, b) = (run(0.02, 2), run(0.02, 2));
    assert_eq!(a.summary, b.summary, "same seed, same run");
    assert_ne!(a.summary["links"], soft.summary["links"], "the seed drives RED's draws");
}

#[test]
fn the_reverse_direction_has_its_own_discipline_defaulting_to_the_forward_one() {
    let resolve = |net: Value| {
        let text = json!({"network": net, "flows": [{"size": 1000}]}).to_string();
        serde_json::to_value(from_json(&text).unwrap().network).unwrap()
    };
    let n = resolve(json!({"rate": "10Mbps", "rtt": "50ms", "aqm": {"kind": "codel", "target": "2ms"}}));
    assert_eq!(n["aqm"]["kind"], "codel");
    assert_eq!(n["reverse_aqm"], n["aqm"]);
    let n =
        resolve(json!({"rate": "10Mbps", "rtt": "50ms", "aqm": {"kind": "red"}, "reverse_aqm": {"kind": "droptail"}}));
    assert_eq!((n["aqm"]["kind"].as_str(), n["reverse_aqm"]["kind"].as_str()), (Some("red"), Some("droptail")));
    // ns-3 RedQueueDisc defaults.
    assert_eq!(n["aqm"]["min_th"], 5.0);
    assert_eq!(n["aqm"]["max_th"], 15.0);
    assert_eq!(n["aqm"]["weight"], 0.002);
    assert_eq!(n["aqm"]["max_p"], 0.02);
    assert_eq!(n["aqm"]["gentle"], true);
}

fn error(aqm: Value) -> String {
    let text = json!({"network": {"rate": "10Mbps", "rtt": "50ms", "aqm": aqm}, "flows": [{"size": 1000}]});
    from_json(&text.to_string()).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_aqm_settings_name_the_field_and_the_allowed_values() {
    let cases = [
        (json!({}), "network.aqm.kind: is required: droptail, red or codel"),
        (json!({"kind": "pie"}), "network.aqm.kind: must be droptail, red or codel, got \"pie\""),
        (json!({"kind": "codel", "min_th": 3}), "network.aqm.min_th: applies to kind = \"red\" only"),
        (json!({"kind": "red", "target": "5ms"}), "network.aqm.target: applies to kind = \"codel\" only"),
        (
            json!({"kind": "red", "min_th": 10, "max_th": 5}),
            "network.aqm.max_th: must be more than 0, at least min_th (10)",
        ),
        (json!({"kind": "red", "weight": 0}), "network.aqm.weight: must be in (0, 1]"),
        (json!({"kind": "red", "max_p": 1.5}), "network.aqm.max_p: must be a probability in (0, 1]"),
        (json!({"kind": "red", "mean_packet_size": 0}), "network.aqm.mean_packet_size: must be between 1 and 65535"),
        (json!({"kind": "codel", "target": "0s"}), "network.aqm.target: must be between"),
        (json!({"kind": "codel", "interval": 100}), "network.aqm.interval: give a unit"),
        (json!({"kind": "red", "colour": 1}), "network.aqm.colour: unknown field `colour`"),
    ];
    for (aqm, expected) in cases {
        let e = error(aqm.clone());
        assert!(e.starts_with(expected), "{aqm}: {e}");
    }
}
