//! Shared helpers for the scenario tests: build a scenario from JSON and run it with the
//! simulator's invariants checked, so every test run also checks packet conservation.

#![allow(dead_code)]

use serde_json::Value;
use tcpstart_sim::trace::{FlowTable, QueueTable};
use tcpstart_sim::{scenario, RunOutput};

/// A finished run with its summary as summary.json has it, so tests read it by key, and its
/// series as tables.
pub struct Run {
    pub summary: Value,
    pub flows: FlowTable,
    pub queues: QueueTable,
    out: RunOutput,
}

impl std::ops::Deref for Run {
    type Target = RunOutput;
    fn deref(&self) -> &RunOutput {
        &self.out
    }
}

pub fn run(spec: Value) -> Run {
    let s = scenario::from_json(&spec.to_string()).unwrap_or_else(|e| panic!("bad test scenario: {e}"));
    let out = tcpstart_sim::run(s);
    let inv = &out.invariants;
    assert!(inv.ok, "invariants violated: {inv:?}");
    assert_eq!(inv.packets_created, inv.delivered + inv.dropped + inv.merged + inv.in_network);
    let (flows, queues) = (out.flows.table(), out.queues.table());
    assert_eq!((flows.t.len(), queues.t.len()), (out.flows.rows(), out.queues.rows()));
    // Time never goes backwards within any recorded series.
    assert!(monotonic(&flows.t, &flows.flow), "flow trace time went backwards");
    assert!(monotonic(&queues.t, &queues.link), "queue trace time went backwards");
    assert!(flows.cwnd.iter().all(|&c| c > 0));
    Run { summary: out.summary.to_value(), flows, queues, out }
}

pub fn flow(out: &Run, i: usize) -> &Value {
    &out.summary["flows"][i]
}

/// A number of the first flow's summary (flow 0, the only one in most tests), by key: panics
/// naming the key when it is missing (a flow that did not finish has no completion time).
pub fn value(out: &Run, key: &str) -> f64 {
    let f = flow(out, 0);
    f[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {f}"))
}

/// The phases a single-flow run's rows pass through, in order, a repeat counted once.
pub fn phases(out: &Run) -> Vec<&'static str> {
    let mut seen: Vec<&'static str> = vec![];
    for &p in out.flows.phase.iter() {
        if seen.last() != Some(&p) {
            seen.push(p);
        }
    }
    seen
}

pub fn link<'a>(out: &'a Run, name: &str) -> &'a Value {
    out.summary["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()
}

/// (time, cwnd) samples of one flow.
pub fn cwnd_series(out: &Run, flow: u32) -> Vec<(f64, u64)> {
    (0..out.flows.t.len()).filter(|&i| out.flows.flow[i] == flow).map(|i| (out.flows.t[i], out.flows.cwnd[i])).collect()
}

/// Times are non-decreasing for every key (flow or link) of a series.
fn monotonic(t: &[f64], key: &[u32]) -> bool {
    let mut last = std::collections::HashMap::new();
    t.iter().zip(key).all(|(&t, k)| {
        let prev = last.insert(*k, t).unwrap_or(f64::MIN);
        prev <= t
    })
}
