//! CUBIC and the two slow-start exits in front of it: the cubic window curve after a loss,
//! checked against W(t) = C (t - K)^3 + W_max; Linux HyStart leaving slow start before the first
//! loss; HyStart++ passing through Conservative Slow Start with far fewer losses than standard
//! slow start.

mod common;
use common::Run;
use serde_json::json;

const MSS: f64 = 1460.0;

/// (phase, time, cwnd in segments, retransmissions so far) at each phase change of flow 0.
fn phases(out: &Run) -> Vec<(&'static str, f64, f64, u64)> {
    let f = &out.flows;
    let mut v: Vec<(&'static str, f64, f64, u64)> = vec![];
    for i in 0..f.t.len() {
        if v.last().is_none_or(|p| p.0 != f.phase[i]) {
            v.push((f.phase[i], f.t[i], f.cwnd[i] as f64 / MSS, f.retransmissions[i]));
        }
    }
    v
}

/// The phase that followed slow start, and the retransmissions counted when it began.
fn after_slow_start(out: &Run) -> (&'static str, u64) {
    let p = phases(out);
    let i = p.iter().position(|p| p.0 == "slow_start").expect("slow start");
    (p[i + 1].0, p[i + 1].3)
}

fn drops(out: &Run) -> u64 {
    common::flow(out, 0)["drops"].as_u64().unwrap()
}

/// cwnd in segments when slow start ended.
fn exit_cwnd(out: &Run) -> f64 {
    common::flow(out, 0)["ss_exit_cwnd"].as_f64().unwrap() / MSS
}

/// One scripted loss in slow start on a path that never queues (1 Gbps, so the window stays far
/// below the 8561-segment BDP and every RTT is the base RTT): after recovery the window must
/// follow RFC 9438 eq. 1, W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C),
/// computed here by hand from the W_max the run reached.
#[test]
fn window_after_a_loss_follows_the_cubic_curve() {
    let out = common::run(json!({
        "duration": "16s",
        "network": {"rate": "1Gbps", "rtt": "100ms", "queue": "1bdp"},
        "flows": [{"algorithm": "cubic", "drop_transmissions": [300]}]
    }));
    assert_eq!(drops(&out), 1);
    let (c, beta) = (0.4, 0.7);
    let w_max = exit_cwnd(&out);
    let k = (w_max * (1.0 - beta) / c).cbrt();
    let w = |t: f64| c * (t - k).powi(3) + w_max;
    let f = &out.flows;
    // The epoch starts at the first ACK of congestion avoidance.
    let ca: Vec<(f64, f64)> = (0..f.t.len())
        .filter(|&i| f.phase[i] == "congestion_avoidance")
        .map(|i| (f.t[i], f.cwnd[i] as f64 / MSS))
        .collect();
    let t0 = ca[0].0;
    assert!(ca[0].1 <= (beta + 0.01) * w_max, "reduction to beta x W_max: {} of {w_max}", ca[0].1);
    let mut worst: f64 = 0.0;
    for &(t, cwnd) in ca.iter().filter(|(t, _)| *t - t0 <= 2.3 * k) {
        let err = (cwnd - w(t - t0)).abs() / w(t - t0);
        worst = worst.max(err);
        assert!(err < 0.03, "t - t0 = {:.2} s: cwnd {cwnd}, W(t) = {:.1}", t - t0, w(t - t0));
    }
    println!("W_max {w_max} segments, K {k:.3} s, largest deviation from W(t) {:.2} %", worst * 100.0);
    // Concave, flat around W_max at K, convex: growth over equal spans of K/3.
    let at = |s: f64| ca.iter().find(|(t, _)| *t - t0 >= s).unwrap().1;
    let grow = |from: f64| at(from + k / 3.0) - at(from);
    let (early, middle, late) = (grow(0.0), grow(k - k / 6.0), grow(2.0 * k - k / 3.0));
    assert!(early > 5.0 * middle.max(1.0) && late > 5.0 * middle.max(1.0), "{early} / {middle} / {late}");
    assert!((at(k) - w_max).abs() <= 0.01 * w_max, "cwnd at K {} vs W_max {w_max}", at(k));
}

fn startup(algorithm: &str, rate: &str, queue: &str, duration: &str) -> Run {
    common::run(json!({
        "duration": duration,
        "network": {"rate": rate, "rtt": "100ms", "queue": queue},
        "flows": [{"algorithm": algorithm}]
    }))
}

/// 100 Mbps, 100 ms: BDP 856 segments, 2 BDP of queue, so the pipe holds 3 BDP. Linux HyStart's
/// ACK train ends slow start near one BDP with no loss at all; without HyStart, slow start runs
/// until the queue overflows, well past the pipe.
#[test]
fn hystart_leaves_slow_start_before_the_first_loss_and_nohystart_does_not() {
    let bdp = 100e6 / 8.0 * 0.1 / MSS;
    let cubic = startup("cubic", "100Mbps", "2bdp", "3s");
    assert_eq!(after_slow_start(&cubic), ("congestion_avoidance", 0));
    let exit = exit_cwnd(&cubic) / bdp;
    assert!((0.75..=2.0).contains(&exit), "HyStart exit at {exit:.2} BDP");
    assert_eq!(drops(&cubic), 0);

    let plain = startup("cubic-nohystart", "100Mbps", "2bdp", "3s");
    assert_eq!(after_slow_start(&plain).0, "recovery");
    assert!(exit_cwnd(&plain) / bdp > 3.0, "slow start overshoots the 3-BDP pipe: {:.2} BDP", exit_cwnd(&plain) / bdp);
    assert!(drops(&plain) > 1000, "{} drops", drops(&plain));
    println!(
        "HyStart exit {:.0} segments ({exit:.2} BDP), 0 drops; without: {:.0} segments, {} drops",
        exit_cwnd(&cubic),
        exit_cwnd(&plain),
        drops(&plain)
    );

    // The delay test alone: it fires only once the queue has held RTT/8 for a whole round,
    // later than the ACK train, but still before any loss.
    let delay_only = common::run(json!({
        "duration": "3s",
        "network": {"rate": "20Mbps", "rtt": "100ms", "queue": "4bdp"},
        "flows": [{"algorithm": "cubic", "params": {"hystart_detect": 2}}]
    }));
    assert_eq!(after_slow_start(&delay_only), ("congestion_avoidance", 0));
}

/// 20 Mbps, 100 ms (BDP 171 segments), 3 BDP of queue. NewReno with HyStart++ sees the RTT rise,
/// grows by a quarter of slow start's rate for CSS_ROUNDS rounds (x 1.125 per round with delayed
/// ACKs, at most 1.125^5 = 1.80 in all) and enters congestion avoidance before any loss; plain
/// NewReno slow start runs into the full queue.
#[test]
fn hystartpp_passes_through_css_into_congestion_avoidance_with_fewer_losses() {
    let hspp = startup("newreno+hystartpp", "20Mbps", "3bdp", "6s");
    let p = phases(&hspp);
    let names: Vec<&str> = p.iter().map(|p| p.0).take(4).collect();
    assert_eq!(names, ["handshake", "slow_start", "conservative_slow_start", "congestion_avoidance"]);
    let (css, ca) = (p[2], p[3]);
    assert_eq!(ca.3, 0, "no retransmission before congestion avoidance");
    let growth = ca.2 / css.2;
    assert!((1.5..=1.81).contains(&growth), "CSS grew the window x{growth:.3}");

    let plain = startup("newreno", "20Mbps", "3bdp", "6s");
    assert_eq!(after_slow_start(&plain).0, "recovery");
    assert!(drops(&hspp) * 10 < drops(&plain), "drops: HyStart++ {}, NewReno {}", drops(&hspp), drops(&plain));
    println!(
        "CSS from {:.0} to {:.0} segments (x{growth:.3}) in {:.2} s; drops in 6 s: {} vs NewReno {}",
        css.2,
        ca.2,
        ca.1 - css.1,
        drops(&hspp),
        drops(&plain)
    );
}

/// The same component in front of CUBIC: HyStart++ replaces Linux HyStart. CUBIC's slow start
/// doubles per round (Linux counts every acked packet), so CSS begins later than in front of
/// NewReno, but the run still loses far less than CUBIC's standard slow start.
#[test]
fn hystartpp_in_front_of_cubic_enters_css_and_loses_less() {
    let hspp = startup("cubic+hystartpp", "20Mbps", "3bdp", "6s");
    assert_eq!(after_slow_start(&hspp).0, "conservative_slow_start");
    let plain = startup("cubic-nohystart", "20Mbps", "3bdp", "6s");
    assert!(
        drops(&hspp) * 3 < drops(&plain),
        "drops: HyStart++ {}, standard slow start {}",
        drops(&hspp),
        drops(&plain)
    );
}
