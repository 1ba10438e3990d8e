//! Careful Resume (`newreno+careful-resume`, docs/algorithms/careful-resume.md) on a long fat
//! path with the saved state in the flow's parameters: a valid saved window cuts the time to
//! the BDP and the completion time against NewReno; a stale, too large one ends in Safe Retreat
//! with the window halved from the validated pipe size; a path whose RTT changed is not resumed.

mod common;
use serde_json::{json, Value};

/// 100 Mbps, 200 ms, 1-BDP drop-tail queue: BDP 2.5 MB.
fn run(algorithm: &str, params: Value) -> common::Run {
    common::run(json!({
        "duration": "60s",
        "network": {"rate": "100Mbps", "rtt": "200ms", "queue": "1bdp"},
        "tcp": {"initial_window": 10},
        "flows": [{"algorithm": algorithm, "size": "10MB", "params": params}]
    }))
}

#[test]
fn a_saved_window_of_one_bdp_resumes_at_half_of_it() {
    let cr = run("newreno+careful-resume", json!({"saved_cwnd": 2_500_000, "saved_rtt_ms": 200}));
    let newreno = run("newreno", json!({}));
    let p = common::phases(&cr);
    assert_eq!(p[..5], ["handshake", "reconnaissance", "unvalidated", "validating", "slow_start"], "{p:?}");
    // The jump to 1.25 MB after the first round leaves one doubling to the BDP: NewReno needs
    // about eight rounds from 10 segments.
    let (t_cr, t_nr) = (common::value(&cr, "time_to_bdp"), common::value(&newreno, "time_to_bdp"));
    assert!(t_cr < 0.6 * t_nr, "time to the BDP: {t_cr} s against {t_nr} s");
    assert!(common::value(&cr, "completion_time") < common::value(&newreno, "completion_time"));
}

#[test]
fn a_stale_saved_window_retreats_to_half_the_validated_pipe() {
    // saved_cwnd 16 MB: the jump of 8 MB overflows BDP + queue (5 MB).
    let cr = run("newreno+careful-resume", json!({"saved_cwnd": 16_000_000, "saved_rtt_ms": 200}));
    let p = common::phases(&cr);
    assert!(p.contains(&"safe_retreat"), "{p:?}");
    let f = &cr.flows;
    let first = f.phase.iter().position(|p| *p == "safe_retreat").unwrap();
    let jump = f.cwnd[first - 1];
    // The retreat window is half of a pipe size that cannot exceed what the path holds
    // (BDP + queue, 5 MB, plus the pre-jump flight), far below the jump.
    assert!(f.cwnd[first] <= 2_600_000 && f.cwnd[first] < jump / 3, "retreat {} after {jump}", f.cwnd[first]);
    assert!(common::flow(&cr, 0)["completed"].as_bool().unwrap());
}

#[test]
fn a_path_whose_rtt_halved_is_not_resumed() {
    // saved_rtt 500 ms: the current 200 ms is no more than half of it, so NewReno runs alone.
    // (400 ms would not do: the measured minimum includes the serialisation, above 200 ms.)
    let cr = run("newreno+careful-resume", json!({"saved_cwnd": 2_500_000, "saved_rtt_ms": 500}));
    let newreno = run("newreno", json!({}));
    // The same succession of windows (Careful Resume's trace has one row more, at the change
    // of phase from reconnaissance to NewReno's slow start, so rows do not line up) and the
    // same summary.
    let changes = |out: &common::Run| {
        let mut v: Vec<u64> = out.flows.cwnd.to_vec();
        v.dedup();
        v
    };
    assert_eq!(changes(&cr), changes(&newreno));
    for key in ["completion_time", "retransmissions", "max_cwnd"] {
        assert_eq!(common::flow(&cr, 0)[key], common::flow(&newreno, 0)[key], "{key}");
    }
}
