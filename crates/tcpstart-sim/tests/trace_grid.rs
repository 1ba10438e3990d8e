//! The default time series: a fixed grid of rows whose size does not grow with the simulated
//! duration, each row carrying the state at its tick, plus every phase change at once; a flow
//! without events pauses its rows.

mod common;
use common::Run;
use serde_json::json;

fn two_flows(rate: &str, duration: &str, interval: Option<&str>) -> Run {
    let mut spec = json!({
        "seed": 3,
        "duration": duration,
        "network": {"rate": rate, "rtt": "40ms", "queue": "1bdp"},
        "flows": [{"algorithm": "newreno"}, {"algorithm": "cubic", "start": "1s"}]
    });
    if let Some(i) = interval {
        spec["trace"] = json!({"interval": i, "queue_interval": i});
    }
    common::run(spec)
}

/// Rows of `flow`: (time, cwnd, phase).
fn rows(out: &Run, flow: u32) -> Vec<(f64, u64, &'static str)> {
    let f = &out.flows;
    (0..f.t.len()).filter(|&i| f.flow[i] == flow).map(|i| (f.t[i], f.cwnd[i], f.phase[i])).collect()
}

fn on_grid(t: f64, step: f64) -> bool {
    ((t / step).round() * step - t).abs() < 1e-9
}

#[test]
fn ten_times_the_duration_gives_about_the_same_number_of_rows() {
    // Default interval: 1 ms for 10 s, 10 ms for 100 s, so 10 000 ticks either way.
    let run = |duration: &str| {
        common::run(json!({
            "duration": duration,
            "network": {"rate": "100Mbps", "rtt": "40ms", "queue": "1bdp"},
            "flows": [{"algorithm": "newreno"}]
        }))
    };
    let (short, long) = (run("10s"), run("100s"));
    for (out, step) in [(&short, 1e-3), (&long, 1e-2)] {
        let r = rows(out, 0);
        let ticks: Vec<f64> = r.iter().filter(|x| on_grid(x.0, step)).map(|x| x.0).collect();
        // At most one row per tick, and one at every tick but for the pauses of slow start's
        // first round trips (a window sent, then 40 ms without an event).
        assert!(ticks.windows(2).all(|w| w[1] > w[0]), "two rows at one tick");
        assert!((9_700..=10_001).contains(&ticks.len()), "{} of 10 001 ticks", ticks.len());
        // Every row off the grid is a phase change.
        for w in r.windows(2) {
            assert!(on_grid(w[1].0, step) || w[1].2 != w[0].2, "row {:?} after {:?}", w[1], w[0]);
        }
    }
    let (a, b) = (short.flows.t.len() as f64, long.flows.t.len() as f64);
    assert!((b / a - 1.0).abs() < 0.1, "flow rows: {a} for 10 s, {b} for 100 s");
    let (a, b) = (short.queues.t.len() as f64, long.queues.t.len() as f64);
    assert!((b / a - 1.0).abs() < 0.1, "queue rows: {a} for 10 s, {b} for 100 s");
}

#[test]
fn a_grid_row_carries_the_state_after_the_last_change_at_or_before_its_tick() {
    // (Ticks paused by a flow's silence are simply absent; the rows that are there are checked.)
    let every = two_flows("10Mbps", "3s", Some("0s"));
    let grid = two_flows("10Mbps", "3s", Some("5ms"));
    for flow in [0, 1] {
        let changes = rows(&every, flow);
        for (t, cwnd, phase) in rows(&grid, flow).into_iter().filter(|r| on_grid(r.0, 5e-3)) {
            let last = changes.iter().rev().find(|c| c.0 <= t + 1e-12).expect("a grid row after the flow's start");
            assert_eq!((cwnd, phase), (last.1, last.2), "flow {flow} at {t}");
        }
    }
    // The queue series too: the bottleneck's length at each tick.
    let (qe, qg) = (&every.queues, &grid.queues);
    let bottleneck = 0;
    let mut checked = 0;
    for i in (0..qg.t.len()).filter(|&i| qg.link[i] == bottleneck) {
        let last = (0..qe.t.len()).rev().find(|&j| qe.link[j] == bottleneck && qe.t[j] <= qg.t[i] + 1e-12).unwrap();
        assert_eq!(qg.packets[i], qe.packets[last], "bottleneck at {}", qg.t[i]);
        checked += 1;
    }
    assert!(checked > 100, "{checked} bottleneck rows");
}

#[test]
fn finished_flows_have_no_rows_after_their_end() {
    let out = common::run(json!({
        "duration": "5s",
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "flows": [{"algorithm": "newreno", "size": "100KB"}, {"algorithm": "newreno"}]
    }));
    let done = common::flow(&out, 0)["completion_time"].as_f64().unwrap();
    let r = rows(&out, 0);
    let last = r.last().unwrap();
    assert_eq!(last.2, "done");
    assert!((last.0 - done).abs() < 1e-6 && r.iter().all(|x| x.0 <= last.0), "last row {last:?}, done at {done}");
    // The other flow runs to the end of the run.
    assert_eq!(rows(&out, 1).last().unwrap().0, 5.0);
}
