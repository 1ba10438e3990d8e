//! Quick-Start (`newreno+quick-start`, `cubic+quick-start`, docs/algorithms/quick-start.md) on
//! a 20 Mbps, 200 ms path whose bottleneck router takes part (`[network.quick_start]`): on an
//! idle path the router approves 10.24 Mbit/s, the sender paces about 250 kB in the first round
//! trip and a 400 kB transfer ends rounds earlier than with slow start; on a loaded path, or
//! without a Quick-Start router, the request is refused and the flow is NewReno.

mod common;
use serde_json::{json, Value};

const RTT: f64 = 0.2;

/// A 400 kB transfer starting at 1 s; `udp` Mbit/s of constant-rate load from the start.
fn run(algorithm: &str, router: Option<Value>, udp: f64) -> common::Run {
    let mut network = json!({"rate": "20Mbps", "rtt": "200ms", "queue": "1bdp"});
    if let Some(r) = router {
        network["quick_start"] = r;
    }
    let mut spec = json!({
        "network": network,
        "tcp": {"initial_window": 10},
        "flows": [{"algorithm": algorithm, "size": "400kB", "start": "1s"}]
    });
    if udp > 0.0 {
        spec["udp"] = json!([{"rate": format!("{udp}Mbps"), "stop": "3s"}]);
    }
    common::run(spec)
}

#[test]
fn an_approved_request_saves_round_trips() {
    let qs = run("newreno+quick-start", Some(json!({})), 0.0);
    let newreno = run("newreno", None, 0.0);
    assert_eq!(
        common::link(&qs, "bottleneck")["quick_start"],
        json!({"requests": 1, "approved": 0, "reduced": 1, "refused": 0})
    );
    let p = common::phases(&qs);
    assert_eq!(p[..3], ["handshake", "quick_start", "slow_start"], "{p:?}");
    // 10.24 Mbit/s x 200 ms x 1460 / 1500: 249 kB, 170 segments of 1460 bytes.
    let window = qs.flows.phase.iter().position(|p| *p == "quick_start").map(|i| qs.flows.cwnd[i]).unwrap();
    assert_eq!(window, 170 * 1460);
    // Quick-Start: the handshake, the paced round, one more round for the other 104 segments
    // and their serialisation (60 ms). Slow start from 10 segments, with delayed ACKs, needs
    // at least two rounds more.
    let (t_qs, t_nr) = (common::value(&qs, "completion_time"), common::value(&newreno, "completion_time"));
    assert!(t_qs < 3.5 * RTT && t_nr - t_qs > 2.0 * RTT, "Quick-Start {t_qs} s, NewReno {t_nr} s");
    assert_eq!(common::flow(&qs, 0)["retransmissions"], 0, "paced within the approved rate: no loss");
}

#[test]
fn cubic_uses_the_approval_too() {
    let qs = run("cubic+quick-start", Some(json!({})), 0.0);
    let cubic = run("cubic", None, 0.0);
    assert!(common::phases(&qs).contains(&"quick_start"));
    assert!(common::value(&cubic, "completion_time") - common::value(&qs, "completion_time") > 2.0 * RTT);
}

#[test]
fn a_refused_request_is_plain_slow_start() {
    // 17 Mbit/s of load against a budget of 80 % of 20 Mbit/s: nothing to spare.
    let qs = run("newreno+quick-start", Some(json!({"threshold": 0.8, "interval": "500ms"})), 17.0);
    let newreno = run("newreno", Some(json!({"threshold": 0.8, "interval": "500ms"})), 17.0);
    assert_eq!(common::link(&qs, "bottleneck")["quick_start"]["refused"], 1, "{}", common::link(&qs, "bottleneck"));
    assert!(!common::phases(&qs).contains(&"quick_start"));
    // The same transfer, apart from the 8 option bytes on the SYN and SYN-ACK.
    let (t_qs, t_nr) = (common::value(&qs, "completion_time"), common::value(&newreno, "completion_time"));
    assert!((t_qs - t_nr).abs() < 0.01 * t_nr, "Quick-Start {t_qs} s, NewReno {t_nr} s");
}

#[test]
fn a_bottleneck_without_a_router_refuses() {
    let qs = run("newreno+quick-start", None, 0.0);
    let newreno = run("newreno", None, 0.0);
    assert!(!common::phases(&qs).contains(&"quick_start"));
    assert!(common::link(&qs, "bottleneck").get("quick_start").is_none());
    assert!((common::value(&qs, "completion_time") - common::value(&newreno, "completion_time")).abs() < 0.001);
}

#[test]
fn a_bad_threshold_is_named() {
    let spec = json!({"network": {"rate": "20Mbps", "rtt": "200ms", "quick_start": {"threshold": 1.5}}, "flows": [{"size": "1MB"}]});
    let err = tcpstart_sim::scenario::from_json(&spec.to_string()).unwrap_err().to_string();
    assert_eq!(err, "network.quick_start.threshold: must be a share of the capacity in (0, 1], got 1.5");
}
