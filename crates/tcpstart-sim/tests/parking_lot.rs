//! The parking lot: a chain of hops, one long flow over all of them and a cross flow on each.
//! Under a fair AIMD the long flow, which meets the losses of every hop, gets less than each
//! one-hop flow even at the same round-trip time; every hop passes on exactly the packets
//! that reach the next link of their routes.

mod common;

use common::{flow, link, run, Run};
use serde_json::{json, Value};

/// Three 10 Mbps hops of 10 ms; the long flow (pair 0) over all three, cross flow k (pair
/// k + 1) over hop k only, its access links lengthened so that every flow's round trip is 60 ms.
fn lot(size: Value, duration: Option<&str>) -> Value {
    let hop = json!({"rate": "10Mbps", "delay": "10ms"});
    let cross = |k: u32| json!({"size": size, "hops": [k], "access_delay": "10ms", "class": format!("cross{k}")});
    let mut s = json!({
        "seed": 3,
        "algorithm": "newreno",
        "network": {"hops": [hop, hop, hop], "queue": "1bdp"},
        "flows": [{"size": size, "class": "long"}, cross(0), cross(1), cross(2)],
    });
    if let Some(d) = duration {
        s["duration"] = json!(d);
    }
    s
}

fn count(out: &Run, name: &str, key: &str) -> u64 {
    link(out, name)[key].as_u64().unwrap_or_else(|| panic!("{name}.{key}"))
}

#[test]
fn the_long_flow_gets_less_than_each_one_hop_flow() {
    let out = run(lot(json!("unlimited"), Some("60s")));
    let goodput = |i: usize| flow(&out, i)["goodput_bps"].as_f64().unwrap();
    let drop_rate = |i: usize| flow(&out, i)["drop_rate"].as_f64().unwrap();
    for i in 0..4 {
        assert!((flow(&out, i)["base_rtt"].as_f64().unwrap() - 0.06).abs() < 1e-12, "flow {i}");
    }
    let long = goodput(0);
    for k in 0..3 {
        let cross = goodput(k + 1);
        let hop = format!("hop{k}");
        // Every hop is full, shared by the long flow and its cross flow.
        assert!(link(&out, &hop)["utilization"].as_f64().unwrap() > 0.9, "{hop}");
        assert!((long + cross) > 0.85 * 10e6 && (long + cross) < 10e6, "{hop}: {long} + {cross}");
        // AIMD's rate goes as 1 / sqrt(loss rate) (Mathis et al. 1997) and the long flow meets
        // the losses of three hops: below 1 / sqrt(3) of a cross flow's rate if each hop dropped
        // alike (drop-tail's phase effects take it to about a quarter with this seed).
        assert!(long < 0.6 * cross, "long {long} against cross{k} {cross}");
        // Losses are the hops': the long flow's data is dropped at each, a cross flow's at one,
        // so the long flow loses a larger share of what it sends.
        assert!(count(&out, &hop, "drops") > 0, "{hop}");
        assert!(
            drop_rate(0) > drop_rate(k + 1),
            "drop rates: long {} against cross{k} {}",
            drop_rate(0),
            drop_rate(k + 1)
        );
    }
}

#[test]
fn every_hop_passes_its_packets_to_the_next_link_of_their_routes() {
    // Sized flows and no duration: the run ends with the network empty. The middle hop is the
    // slowest, so it queues and drops.
    let mut s = lot(json!("2MB"), None);
    s["network"]["hops"][1]["rate"] = json!("4Mbps");
    let out = run(s);
    for i in 0..4 {
        assert_eq!(flow(&out, i)["completed"], true, "flow {i}");
    }
    let (sent, arrived) = (|l: &str| count(&out, l, "packets_sent"), |l: &str| count(&out, l, "arrivals"));
    for l in out.summary["links"].as_array().unwrap() {
        let name = l["name"].as_str().unwrap();
        assert_eq!(arrived(name), sent(name) + count(&out, name, "drops"), "{name}: arrivals = sent + dropped");
    }
    assert!(count(&out, "hop1", "drops") > 0);
    // Data, left to right: the long flow enters hop 0 and leaves after hop 2; cross flow k
    // (pair k + 1) enters and leaves hop k.
    assert_eq!(arrived("hop0"), sent("sender0_out") + sent("sender1_out"));
    for k in 0..3 {
        let next = if k < 2 {
            arrived(&format!("hop{}", k + 1)) - sent(&format!("sender{}_out", k + 2))
        } else {
            arrived("receiver0_in")
        };
        assert_eq!(sent(&format!("hop{k}")), arrived(&format!("receiver{}_in", k + 1)) + next, "hop{k}");
    }
    // ACKs, right to left: the long flow's enter hop 2 and leave after hop 0.
    assert_eq!(arrived("hop2_rev"), sent("receiver0_out") + sent("receiver3_out"));
    for k in 0..3 {
        let next = if k > 0 {
            arrived(&format!("hop{}_rev", k - 1)) - sent(&format!("receiver{k}_out"))
        } else {
            arrived("sender0_in")
        };
        assert_eq!(sent(&format!("hop{k}_rev")), arrived(&format!("sender{}_in", k + 1)) + next, "hop{k}_rev");
    }
}
