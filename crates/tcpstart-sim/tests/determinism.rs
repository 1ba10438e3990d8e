//! Same scenario and seed, same output, bit for bit; simulations share no state.

mod common;
use serde_json::{json, Value};

fn lossy(seed: u64) -> Value {
    json!({
        "seed": seed,
        "duration": "20s",
        "network": {"rate": "20Mbps", "rtt": "60ms", "queue": "0.5bdp", "loss": 0.002},
        "flows": [{"algorithm": "newreno", "count": 2}, {"algorithm": "reno", "start": "1s"}],
        "trace": {"packets": true, "pcap": ["bottleneck"]}
    })
}

/// Everything a run produces, serialised, for exact comparison.
fn fingerprint(out: &common::Run) -> String {
    let series = serde_json::to_string(&(&out.flows, &out.queues, &out.packets)).unwrap();
    format!("{}{series}{:?}", out.summary, out.pcaps)
}

#[test]
fn same_scenario_and_seed_give_identical_output() {
    let a = fingerprint(&common::run(lossy(3)));
    let b = fingerprint(&common::run(lossy(3)));
    assert_eq!(a, b);
    let c = fingerprint(&common::run(lossy(4)));
    assert_ne!(a, c, "a different seed should change the random losses");
}

#[test]
fn simulations_side_by_side_in_threads_match_sequential_runs() {
    let sequential = fingerprint(&common::run(lossy(5)));
    let handles: Vec<_> = (0..2).map(|_| std::thread::spawn(|| fingerprint(&common::run(lossy(5))))).collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), sequential);
    }
}
