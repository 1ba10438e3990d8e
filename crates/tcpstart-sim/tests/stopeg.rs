//! StopEG (the lab's reconstruction, see docs/algorithms/stopeg.md) on a path of the ESS paper's
//! Table 1 (10 Mbps, 22 ms, 400-byte packets): the stop rule is visible in the flow trace. The
//! first ACKs come back as a train one bottleneck slot apart, far inside one forward delay, so
//! after ACK j cwnd = 10 + j segments and 2j > 0.568 (10 + j) first holds at j = 4: slow start
//! ends at 14 segments without any loss, which NewReno on the same path never does.

mod common;
use serde_json::json;

const MSS: u64 = 348;

fn run(algorithm: &str, delayed_ack: bool, params: serde_json::Value) -> tcpstart_sim::RunOutput {
    run_on(algorithm, 10, 22, delayed_ack, params)
}

fn run_on(
    algorithm: &str,
    mbps: u32,
    rtt_ms: u32,
    delayed_ack: bool,
    params: serde_json::Value,
) -> tcpstart_sim::RunOutput {
    common::run(json!({
        "duration": format!("{}ms", 14 * rtt_ms),
        "network": {"rate": format!("{mbps}Mbps"), "rtt": format!("{rtt_ms}ms"), "access_delay": "0.5ms", "queue": "1bdp"},
        "tcp": {"mss": MSS, "initial_window": 10, "delayed_ack": delayed_ack},
        "flows": [{"algorithm": algorithm, "params": params}]
    }))
}

/// (time, ssthresh, retransmissions) of the first congestion-avoidance sample, if any.
fn first_congestion_avoidance(out: &tcpstart_sim::RunOutput) -> Option<(f64, u64, u64)> {
    let f = &out.flows;
    (0..f.t.len())
        .find(|&i| f.phase[i] == "congestion_avoidance")
        .map(|i| (f.t[i], f.ssthresh[i], f.retransmissions[i]))
}

#[test]
fn stop_rule_ends_slow_start_in_the_first_ack_train_without_loss() {
    for delayed_ack in [false, true] {
        let out = run("stopeg", delayed_ack, json!({}));
        let (t, ssthresh, retransmissions) = first_congestion_avoidance(&out).expect("StopEG never stopped");
        // One ACK adds one segment with or without delayed ACKs (RFC 5681 counting), so j = 4 both ways.
        assert_eq!(ssthresh, 14 * MSS, "delayed_ack {delayed_ack}");
        assert_eq!(retransmissions, 0, "the stop came before any loss");
        // Handshake (22 ms) + the first data round trip (22 ms) + the ACK train's first slots.
        assert!(t > 0.044 && t < 0.050, "stopped at {t} s");
    }
    let out = run("stopeg", false, json!({"threshold": 0.9}));
    assert_eq!(first_congestion_avoidance(&out).unwrap().1, 19 * MSS, "2j > 0.9 (10 + j) first at j = 9");
}

#[test]
fn the_stop_comes_at_the_same_window_whatever_the_path() {
    // The ACK train is shorter than a forward delay on every path of the ESS paper's Table 1, from
    // the smallest BDP to the largest, so the rule sees the same j = 4.
    for (mbps, rtt_ms) in [(10, 12), (50, 22), (10, 102)] {
        let out = run_on("stopeg", mbps, rtt_ms, true, json!({}));
        let (t, ssthresh, _) = first_congestion_avoidance(&out).unwrap();
        assert_eq!(ssthresh, 14 * MSS, "{mbps} Mbps {rtt_ms} ms");
        assert!(t < 2.5 * rtt_ms as f64 * 1e-3, "{mbps} Mbps {rtt_ms} ms: stopped at {t} s");
    }
}

#[test]
fn newreno_on_the_same_path_leaves_slow_start_only_through_a_loss() {
    let out = run("newreno", false, json!({}));
    let f = &out.flows;
    let after_slow_start =
        f.phase.iter().find(|p| !matches!(**p, "handshake" | "slow_start")).expect("slow start never ended");
    assert_eq!(*after_slow_start, "recovery");
}
