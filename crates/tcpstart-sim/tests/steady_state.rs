//! Long-run behaviour: bottleneck utilization and the Mathis et al. throughput under random loss.

mod common;
use serde_json::json;

#[test]
fn a_long_newreno_flow_with_a_bdp_of_buffer_fills_the_bottleneck() {
    let out = common::run(json!({
        "duration": "60s",
        "network": {"rate": "10Mbps", "rtt": "50ms", "queue": "1bdp"},
        "flows": [{"algorithm": "newreno"}]
    }));
    let util = common::link(&out, "bottleneck")["utilization"].as_f64().unwrap();
    assert!(util >= 0.95, "bottleneck utilization {util}");
    assert!(common::link(&out, "bottleneck")["drops"].as_u64().unwrap() > 0, "the flow should probe until loss");
}

/// Mathis, Semke, Mahdavi, Ott (CCR 1997): throughput = MSS / RTT x sqrt(3 / 2) / sqrt(p) with an
/// ACK per segment. The bottleneck is fast enough that loss, not capacity, limits the flow.
#[test]
fn reno_throughput_under_random_loss_follows_the_mathis_formula() {
    let (mss, rtt) = (1460.0, 0.1);
    for (p, duration) in [(0.0003f64, "600s"), (0.001, "300s"), (0.003, "300s"), (0.01, "300s")] {
        let out = common::run(json!({
            "seed": 7,
            "duration": duration,
            "network": {"rate": "1Gbps", "rtt": "100ms", "queue": "100000pkt", "loss": p},
            "tcp": {"delayed_ack": false, "sack": true},
            "flows": [{"algorithm": "newreno"}]
        }));
        let measured = common::flow(&out, 0)["goodput_bps"].as_f64().unwrap();
        let mathis = mss * 8.0 / rtt * (1.5f64).sqrt() / p.sqrt();
        let ratio = measured / mathis;
        println!("p = {p}: measured {:.2} Mbps, Mathis {:.2} Mbps, ratio {ratio:.3}", measured / 1e6, mathis / 1e6);
        assert!((0.75..=1.25).contains(&ratio), "p = {p}: measured/Mathis = {ratio:.3}");
    }
}
