//! An algorithm that lives outside tcpstart-cc (this test is its own crate) registers itself at
//! run time and is then named by scenarios like a built-in one; one whose code fails stops the
//! run with an error naming the algorithm, the flow, the time and the callback.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;
use tcpstart_cc::{
    register, AckEvent, AlgorithmInfo, CcConfig, CcState, CongestionControl, CongestionEvent, ControllerFailure,
    Instant, ParamSpec, RecoveryExitEvent, RtoEvent,
};
use tcpstart_sim::{scenario, Stopped};

/// A window fixed at `segments` segments; from ACK number `fail_at` on (0: never) it fails.
struct Fixed {
    cwnd: u64,
    fail_at: u64,
    acks: u64,
    failure: Option<ControllerFailure>,
}

impl CongestionControl for Fixed {
    fn name(&self) -> &'static str {
        "external-fixed"
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.acks += 1;
        if self.acks == self.fail_at {
            let error = "the external code gave up".into();
            self.failure = Some(ControllerFailure { event: "on_ack", at: ev.now, error });
            self.cwnd = 0;
        }
    }
    fn on_congestion(&mut self, _: &CongestionEvent) {}
    fn on_recovery_exit(&mut self, _: &RecoveryExitEvent) {}
    fn on_rto(&mut self, _: &RtoEvent) {}
    fn state(&self) -> CcState {
        CcState::window(self.cwnd, u64::MAX, "fixed")
    }
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        self.failure.take()
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "segments", default: 4.0, min: 1.0, max: 1000.0, integer: true, doc: "window in segments" },
    ParamSpec { name: "fail_at", default: 0.0, min: 0.0, max: 1e9, integer: true, doc: "ACK that fails (0: none)" },
];

fn register_fixed() {
    let info =
        AlgorithmInfo { name: "external-fixed", summary: "a fixed window", reference: "this test", params: PARAMS };
    let build = Arc::new(|p: &tcpstart_cc::Params, cfg: &CcConfig| -> Box<dyn CongestionControl> {
        let (cwnd, fail_at) = (p["segments"] as u64 * cfg.mss, p["fail_at"] as u64);
        Box::new(Fixed { cwnd, fail_at, acks: 0, failure: None })
    });
    register(info, build, None).unwrap();
}

fn spec(params: serde_json::Value) -> serde_json::Value {
    json!({
        "network": {"rate": "100Mbps", "rtt": "100ms", "queue": "1000pkt"},
        "flows": [{"algorithm": "external-fixed", "size": "200KB", "params": params}]
    })
}

#[test]
fn a_registered_algorithm_runs_with_its_parameters_checked() {
    register_fixed();
    assert!(tcpstart_cc::algorithms().iter().any(|a| a.name == "external-fixed"));
    // 200 KB at 10 segments a round trip of 100 ms: 14 rounds after the handshake's, far from 100 Mbps.
    let out = common::run(spec(json!({"segments": 10})));
    assert!(common::cwnd_series(&out, 0).iter().all(|&(_, c)| c == 14_600));
    let fct = common::flow(&out, 0)["completion_time"].as_f64().unwrap();
    assert!((1.4..1.8).contains(&fct), "{fct}");
    let err = scenario::from_json(&spec(json!({"segments": 0})).to_string()).unwrap_err();
    assert_eq!(err.to_string(), "flows[0].params.segments: must be an integer in [1, 1000], got 0");
    assert!(tcpstart_cc::build(
        "external-fixed",
        &BTreeMap::new(),
        &CcConfig { mss: 1000, initial_cwnd: 1000, initial_ssthresh: u64::MAX }
    )
    .is_ok());
}

#[test]
fn a_failing_registered_algorithm_stops_the_run_with_its_error() {
    register_fixed();
    let s = scenario::from_json(&spec(json!({"fail_at": 3})).to_string()).unwrap();
    let Err(Stopped::Controller(e)) = tcpstart_sim::run_watched(s, |_| std::ops::ControlFlow::Continue(())) else {
        panic!("the run went on")
    };
    assert_eq!((e.algorithm, e.flow, e.failure.event), ("external-fixed", 0, "on_ack"));
    // The third ACK: the handshake takes a round trip of 100 ms, the first window of four
    // segments brings two delayed ACKs a round trip later, the next window the third.
    let at = e.failure.at;
    assert!(at > Instant::from_nanos(300_000_000) && at < Instant::from_nanos(400_000_000), "{at:?}");
    let text = e.to_string();
    assert!(text.starts_with("algorithm 'external-fixed' failed in flow 0 at 0.3"), "{text}");
    assert!(text.ends_with(", in on_ack: the external code gave up"), "{text}");
}
