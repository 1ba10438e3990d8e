//! A run's size is estimated before anything is expanded or simulated, and a scenario whose
//! estimate exceeds its limits is refused in one line naming the field (issue 17). These tests
//! assume `TCPSTART_LIMITS` is unset, so that the default limits apply.

mod common;

use serde_json::{json, Value};
use tcpstart_sim::scenario::{self, Estimate, Limits, RawLimits, RawScenario};

fn raw(spec: &Value) -> RawScenario {
    scenario::parse(&spec.to_string()).expect("a scenario that parses")
}

fn estimate(spec: &Value) -> Estimate {
    raw(spec).estimate().expect("limits that resolve").0
}

/// The one-line refusal of `spec`, after checking that it is one line starting with `field`.
fn refusal(spec: Value, field: &str) -> String {
    let e = scenario::from_json(&spec.to_string()).map(|_| ()).expect_err("refused").to_string();
    assert!(e.starts_with(&format!("{field}: ")), "{e}");
    assert!(!e.contains('\n') && e.contains("above the limit"), "{e}");
    assert!(e.contains("[limits]") && e.contains("TCPSTART_LIMITS="), "{e}");
    e
}

// The scenarios of issue 17 that exhausted memory or ran for tens of minutes, unasked.

#[test]
fn a_web_workload_of_a_million_objects_a_page_is_refused_before_it_is_drawn() {
    // 250 pages of a million objects each on average: validation alone asked for 3.8 GB and
    // aborted. Counting the objects draws none of them.
    let spec =
        json!({"network": {"rate": "100Mbps", "rtt": "40ms"}, "web": [{"page_objects_mean": 1e6}], "duration": "10s"});
    let e = refusal(spec, "web[0].page_objects_mean");
    assert!(e.contains("connections") && e.contains("GB of memory"), "{e}");
}

#[test]
fn ten_entries_of_a_hundred_thousand_flows_are_refused() {
    let flows: Vec<Value> = (0..10).map(|_| json!({"count": 100_000})).collect();
    let spec = json!({"network": {"rate": "100Mbps", "rtt": "40ms"}, "flows": flows, "duration": "1s"});
    let e = refusal(spec.clone(), "flows[0].count");
    assert!(e.contains("1000000 connections"), "{e}");
    assert_eq!(estimate(&spec).connections, 1_000_000);
}

#[test]
fn packet_events_of_a_long_gigabit_run_are_refused() {
    let spec = json!({"network": {"rate": "1Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s",
                      "trace": {"packets": true}});
    let e = refusal(spec, "trace.packets");
    assert!(e.contains("rows of the packets table"), "{e}");
}

#[test]
fn a_hundred_gigabits_for_a_thousand_seconds_is_refused_with_its_cpu_time() {
    let spec = json!({"network": {"rate": "100Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s"});
    let e = refusal(spec.clone(), "duration");
    assert!(e.contains("(100Gbps for 1000s)") && e.contains("minutes of CPU time"), "{e}");
    // 100 Gb/s of 1500-byte packets for 1000 s, with an ACK for every second one.
    let packets = estimate(&spec).packets as f64;
    assert!((packets / (100e9 / 8.0 / 1500.0 * 1000.0 * 1.5) - 1.0).abs() < 0.01, "{packets}");
}

#[test]
fn a_sized_transfer_too_long_for_its_link_names_its_size() {
    let spec = json!({"network": {"rate": "1Gbps", "rtt": "40ms"}, "flows": [{"size": "5000GB"}]});
    refusal(spec, "flows[0].size");
}

#[test]
fn a_huge_queue_is_sized_by_the_windows_that_fill_it() {
    // A billion-packet queue holds what 20000 connections' 16 MB windows send into it.
    let flows = json!([{"count": 20_000}]);
    let spec = json!({"network": {"rate": "10Gbps", "rtt": "40ms", "queue": "1000000000pkt"}, "flows": flows, "duration": "1s"});
    let e = refusal(spec.clone(), "network.queue");
    assert!(e.contains("packets queued at once"), "{e}");
    let held = estimate(&spec).packets_held as f64;
    assert!((held / (20_000.0 * 16e6 / 1500.0) - 1.0).abs() < 0.01, "{held}");
    // The default queue, a BDP, holds a BDP, and the link as much again; nothing is sent the
    // other way.
    let spec = json!({"network": {"rate": "10Gbps", "rtt": "40ms"}, "flows": flows, "duration": "1s"});
    let bdp = 10e9 / 8.0 * 0.04 / 1500.0;
    assert!((estimate(&spec).packets_held as f64 / (2.0 * bdp) - 1.0).abs() < 0.01);
}

// The limits are raised in the scenario; bad limits are named like any other field.

#[test]
fn raised_limits_let_the_same_scenarios_through() {
    let fast = json!({"network": {"rate": "100Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s",
                      "limits": {"packets": 2e10}});
    assert!(scenario::from_json(&fast.to_string()).is_ok());
    let traced = json!({"network": {"rate": "1Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s",
                        "trace": {"packets": true}, "limits": {"memory": "50GB"}});
    assert!(scenario::from_json(&traced.to_string()).is_ok());
    // The refusal's own suggestion is enough.
    let e =
        refusal(json!({"network": {"rate": "100Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s"}), "duration");
    let suggested: f64 = e.split("packets = ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let again = json!({"network": {"rate": "100Gbps", "rtt": "40ms"}, "flows": [{}], "duration": "1000s",
                       "limits": {"packets": suggested}});
    assert!(scenario::from_json(&again.to_string()).is_ok(), "{suggested}");
}

#[test]
fn bad_limits_are_named() {
    let with = |limits: Value| {
        let spec = json!({"network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{"size": 1000}], "limits": limits});
        scenario::from_json(&spec.to_string()).map(|_| ()).unwrap_err().to_string()
    };
    assert!(with(json!({"memory": "1KB"})).starts_with("limits.memory: must be between"));
    assert!(with(json!({"memory": "lots"})).starts_with("limits.memory:"));
    assert!(with(json!({"packets": 0})).starts_with("limits.packets: must be between 1 and"));
    assert!(with(json!({"time": "1h"})).starts_with("limits"));
}

#[test]
fn the_environment_variable_reads_name_value_pairs() {
    let env = RawLimits::parse_env("memory=8GB, packets=5e9").unwrap();
    let spec = json!({"network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{"size": 1000}], "limits": env});
    assert_eq!(raw(&spec).limits().unwrap(), Limits { memory: 8_000_000_000, packets: 5_000_000_000 });
    assert!(RawLimits::parse_env("").unwrap().memory.is_none());
    let err = |text: &str| RawLimits::parse_env(text).unwrap_err().to_string();
    assert!(err("memory").starts_with("TCPSTART_LIMITS: expected name=value"), "{}", err("memory"));
    assert!(err("time=1h").contains("unknown limit \"time\""));
    assert!(err("packets=many").starts_with("TCPSTART_LIMITS: packets: expected a number"));
}

#[test]
fn defaults_apply_without_limits() {
    let spec = json!({"network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{"size": 1000}]});
    assert_eq!(raw(&spec).limits().unwrap(), Limits::DEFAULT);
}

// The estimate against runs.

/// Asserts `estimated` is within `[actual / below, actual * above]`.
fn near(what: &str, estimated: u64, actual: u64, below: f64, above: f64) {
    let (e, a) = (estimated as f64, actual as f64);
    assert!(e >= a / below && e <= a * above, "{what}: estimated {e}, actual {a}");
}

fn compare(spec: Value) {
    let e = estimate(&spec);
    let run = common::run(spec);
    let bottlenecks: u64 =
        ["bottleneck", "bottleneck_rev"].iter().map(|l| common::link(&run, l)["packets_sent"].as_u64().unwrap()).sum();
    assert_eq!(e.connections, run.summary["flows"].as_array().unwrap().len() as u64);
    near("packets", e.packets, bottlenecks, 1.3, 1.3);
    // Rows are bounded from above: a flow or queue can be quiet, never busier than its grid.
    near("flow rows", e.flow_rows, run.flows.t.len() as u64, 1.0, 5.0);
    near("queue rows", e.queue_rows, run.queues.t.len() as u64, 1.0, 6.0);
    let packet_rows = run.packets.as_ref().map_or(0, |p| p.t.len() as u64);
    near("packet rows", e.packet_rows, packet_rows, 1.3, 1.3);
    let pcap: usize = run.pcaps.iter().map(|(_, bytes)| bytes.len()).sum();
    near("pcap bytes", e.pcap_bytes, pcap as u64, 1.5, 1.5);
}

const NET: fn() -> Value = || json!({"rate": "20Mbps", "rtt": "100ms"});

#[test]
fn bulk_flows_for_a_duration() {
    compare(json!({"network": NET(), "flows": [{"count": 4}], "duration": "10s"}));
}

#[test]
fn sized_transfers_without_a_duration() {
    compare(json!({"network": NET(), "flows": [{"size": "5MB", "count": 3, "interval": "1s"}]}));
}

#[test]
fn a_web_workload() {
    compare(json!({"network": NET(), "web": [{}]}));
}

#[test]
fn every_trace_at_every_change() {
    compare(json!({"network": NET(), "flows": [{"count": 2}], "duration": "5s",
                   "trace": {"interval": "0s", "queue_interval": "0s", "packets": true,
                             "pcap": ["bottleneck", "bottleneck_rev", "sender0_out"]}}));
}

#[test]
fn both_directions_and_udp() {
    compare(json!({"network": NET(), "flows": [{"count": 2}, {"direction": "reverse", "size": "2MB"}],
                   "udp": [{"rate": "5Mbps", "stop": "3s"}], "duration": "5s"}));
}

#[test]
fn every_shipped_scenario_is_within_the_default_limits() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let value: Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let (size, limits) = raw(&value).estimate().unwrap();
            assert!(size.within(&limits).is_ok(), "{}: {size:?}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} scenario files");
}
