//! BBRv3 (`bbr3`, docs/algorithms/bbr3.md) against BBR v1 on a shallow buffer: v1's STARTUP
//! ignores loss and keeps doubling into a queue of a tenth of the BDP; v3 leaves STARTUP when a
//! round loses more than 2 % in six or more loss events, so it loses far less while starting.

mod common;
use serde_json::json;

/// 50 Mbps, 100 ms, a buffer of 0.1 BDP, one 20 MB transfer.
fn run(algorithm: &str) -> common::Run {
    common::run(json!({
        "network": {"rate": "50Mbps", "rtt": "100ms", "queue": "0.1bdp"},
        "flows": [{"algorithm": algorithm, "size": "20MB"}]
    }))
}

/// Data bytes retransmitted before the flow's first second ends: the start-up's losses.
fn startup_retransmissions(out: &common::Run) -> u64 {
    let f = &out.flows;
    (0..f.t.len()).filter(|&i| f.t[i] <= 1.0).map(|i| f.retransmissions[i]).max().unwrap_or(0)
}

#[test]
fn bbr3_loses_far_less_than_bbr_v1_while_starting_on_a_shallow_buffer() {
    let (v1, v3) = (run("bbr"), run("bbr3"));
    let p = common::phases(&v3);
    assert_eq!(p[..3], ["handshake", "startup", "drain"], "{p:?}");
    assert!(p.iter().any(|s| s.starts_with("probe_bw_")), "{p:?}");
    let (r1, r3) = (startup_retransmissions(&v1), startup_retransmissions(&v3));
    let done = |o: &common::Run| common::value(o, "completion_time");
    println!("retransmissions in the first second: bbr {r1}, bbr3 {r3}; completion {} s, {} s", done(&v1), done(&v3));
    assert!(r1 >= 50 && r3 * 3 <= r1, "bbr {r1} against bbr3 {r3}");
    for out in [&v1, &v3] {
        assert!(common::flow(out, 0)["completed"].as_bool().unwrap());
    }
}
