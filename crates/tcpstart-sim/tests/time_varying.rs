//! Time-varying bottlenecks: a rate and delay schedule, and delivery traces in the mahimahi
//! format, checked against figures worked out by hand from the schedule or the trace.

mod common;

use std::path::PathBuf;

use serde_json::{json, Value};
use tcpstart_sim::scenario;

/// Writes `text` to a trace file of this test's own (tests run in parallel) and returns its path.
fn trace_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tcpstart-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn error(spec: Value) -> String {
    scenario::from_json(&spec.to_string()).unwrap_err().to_string()
}

#[test]
fn a_trace_of_one_opportunity_per_millisecond_sends_one_data_packet_per_millisecond() {
    // Data packets are 1512 bytes (1460 + 40 + 12 of timestamps), the size an opportunity
    // carries: one per ms is 12.096 Mbps.
    let trace = trace_file("one-per-ms.trace", "1\n");
    let out = common::run(json!({
        "duration": "10s",
        "network": {"rate": "12.096Mbps", "rtt": "40ms", "trace": trace},
        "flows": [{"algorithm": "newreno"}]
    }));
    let sent = common::link(&out, "bottleneck")["packets_sent"].as_u64().unwrap();
    // At most one per opportunity (10 000 in 10 s, plus the handshake's small packets, which
    // share none here: the SYN leaves alone); a busy link uses nearly all after the start.
    assert!((9_300..=10_001).contains(&sent), "{sent} packets in 10 s");
    let util = common::link(&out, "bottleneck")["utilization"].as_f64().unwrap();
    assert!(util > 0.93 && util <= 1.0, "utilisation by the trace's opportunities: {util}");
    // The same transfer over a constant link of that rate takes about as long.
    let sized = |network: Value| {
        let out = common::run(json!({"network": network, "flows": [{"algorithm": "newreno", "size": "2MB"}]}));
        common::flow(&out, 0)["completion_time"].as_f64().unwrap()
    };
    let traced = sized(json!({"rate": "12.096Mbps", "rtt": "40ms", "trace": trace}));
    let constant = sized(json!({"rate": "12.096Mbps", "rtt": "40ms"}));
    assert!((traced / constant - 1.0).abs() < 0.03, "trace {traced} s, constant link {constant} s");
}

#[test]
fn a_bursty_trace_sends_its_bursts_at_their_millisecond() {
    // Ten opportunities at once every 10 ms: the same mean rate as one per ms, in bursts.
    let trace = trace_file("bursts.trace", &"10\n".repeat(10));
    let out = common::run(json!({
        "duration": "5s",
        "network": {"rate": "12.096Mbps", "rtt": "40ms", "trace": trace},
        "flows": [{"algorithm": "newreno"}],
        "trace": {"queue_interval": "0s"}
    }));
    // The queue shrinks only when a transmission ends and the next packet starts: at the
    // bursts' instants, multiples of 10 ms.
    let q = &out.queues;
    let mut falls = 0;
    let rows: Vec<usize> = (0..q.t.len()).filter(|&i| q.link[i] == 0).collect();
    for pair in rows.windows(2) {
        let (before, i) = (pair[0], pair[1]);
        if q.packets[i] < q.packets[before] {
            let ms = q.t[i] * 1e3;
            assert!((ms - (ms / 10.0).round() * 10.0).abs() < 1e-6, "a fall at {ms} ms");
            falls += 1;
        }
    }
    assert!(falls > 100, "{falls} bursts seen");
}

#[test]
fn a_rate_schedule_changes_the_rate_at_its_instant() {
    let out = common::run(json!({
        "duration": "10s",
        "network": {"rate": "20Mbps", "rtt": "40ms", "schedule": [{"at": "5s", "rate": "5Mbps"}]},
        "flows": [{"algorithm": "cubic"}]
    }));
    let b = common::link(&out, "bottleneck");
    // 5 s at 20 Mbps and 5 s at 5 Mbps: 125 Mb, 10 334 packets of 1512 bytes.
    let sent = b["packets_sent"].as_f64().unwrap();
    assert!(sent > 0.9 * 10_334.0 && sent < 10_334.0 + 10.0, "{sent}");
    let util = b["utilization"].as_f64().unwrap();
    assert!((util - sent / 10_334.0).abs() < 0.01, "utilisation {util} against the schedule's capacity");
}

#[test]
fn a_delay_schedule_changes_the_rtt_and_can_repeat() {
    let out = common::run(json!({
        "duration": "7s",
        "network": {"rate": "10Mbps", "rtt": "40ms", "queue": "20packets",
                    "schedule": [{"at": "2s", "rtt": "120ms"}], "schedule_period": "4s"},
        "flows": [{"algorithm": "newreno"}]
    }));
    let f = &out.flows;
    let rtts = |from: f64, to: f64| -> Vec<f64> {
        (0..f.t.len()).filter(|&i| f.t[i] >= from && f.t[i] < to && !f.rtt[i].is_nan()).map(|i| f.rtt[i]).collect()
    };
    let min = |v: Vec<f64>| v.into_iter().fold(f64::INFINITY, f64::min);
    let max = |v: Vec<f64>| v.into_iter().fold(0.0, f64::max);
    // 20 packets of queue and the packet's own transmission add at most 25.4 ms at 10 Mbps.
    let queue = 21.0 * 1512.0 * 8.0 / 10e6;
    let bands = [max(rtts(0.5, 2.0)), min(rtts(2.3, 4.0)), max(rtts(4.3, 6.0)), min(rtts(6.3, 7.0))];
    assert!(bands[0] < 0.040 + queue + 0.001, "{bands:?}");
    assert!(bands[1] >= 0.120, "{bands:?}");
    // Back to 40 ms from 4 s (the period), and up again from 6 s.
    assert!(bands[2] < 0.040 + queue + 0.001, "{bands:?}");
    assert!(bands[3] >= 0.120, "{bands:?}");
}

#[test]
fn time_varying_runs_are_deterministic() {
    let trace = trace_file("lumpy.trace", "1\n1\n3\n4\n4\n4\n9\n");
    let spec = json!({
        "duration": "5s", "seed": 3,
        "network": {"rate": "10Mbps", "rtt": "30ms", "trace": trace, "loss": 0.01,
                    "schedule": [{"at": "1s", "rtt": "60ms"}, {"at": "3s", "delay": "5ms"}]},
        "flows": [{"algorithm": "cubic"}, {"algorithm": "newreno", "start": "1s"}]
    });
    let (a, b) = (common::run(spec.clone()), common::run(spec));
    assert_eq!(a.summary, b.summary);
    assert_eq!(
        a.flows.rtt.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        b.flows.rtt.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn bad_schedules_and_traces_get_one_line_naming_the_field() {
    let net = |extra: Value| {
        let mut n = json!({"rate": "10Mbps", "rtt": "40ms"});
        n.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({"network": n, "flows": [{}]})
    };
    let cases = [
        (json!({"trace": "/nonexistent/x.trace"}), "network.trace: cannot read \"/nonexistent/x.trace\": no such file"),
        (
            json!({"schedule": [{"at": "2s", "rate": "1Mbps"}, {"at": "1s", "rate": "2Mbps"}]}),
            "network.schedule[1].at: must be later than network.schedule[0].at (2s)",
        ),
        (json!({"schedule": [{"at": "2s"}]}), "network.schedule[0]: give rate, rtt or delay"),
        (json!({"schedule": [{"rate": "2Mbps"}]}), "network.schedule[0].at: is required, e.g. \"10s\""),
        (
            json!({"schedule": [{"at": "5s", "rtt": "10ms"}], "schedule_period": "4s"}),
            "network.schedule[0].at: must be before network.schedule_period (4s), got 5s",
        ),
        (json!({"schedule_period": "4s"}), "network.schedule_period: needs [[network.schedule]] entries to repeat"),
        (
            json!({"schedule": [{"at": "1s", "rate": "0.5Kbps"}]}),
            "network.schedule[0].rate: must be between 1Kbps and 10000Gbps, got 0.5Kbps",
        ),
        (
            json!({"schedule": [{"at": "1s", "rtt": "10ms", "delay": "5ms"}]}),
            "network.schedule[0].rtt: give either rtt or delay, not both",
        ),
        (
            json!({"schedule": [{"at": "1s", "speed": "1Mbps"}]}),
            "network.schedule[0].speed: unknown field `speed`, expected one of `at`, `rate`, `rtt`, `delay`",
        ),
    ];
    for (extra, want) in cases {
        let got = error(net(extra));
        assert!(got.starts_with(want), "got: {got}\nwanted: {want}");
        assert!(!got.contains('\n'));
    }
    let trace = trace_file("decreasing.trace", "3\n1\n");
    assert_eq!(
        error(net(json!({"trace": trace}))),
        format!("network.trace: {trace:?} line 2: times must not decrease, got 1 after 3")
    );
    let trace = trace_file("fine.trace", "1\n");
    assert_eq!(
        error(net(json!({"trace": trace, "schedule": [{"at": "1s", "rate": "1Mbps"}]}))),
        "network.schedule[0].rate: the bottleneck's rate follows network.trace; a schedule with a trace changes rtt or delay only"
    );
}
