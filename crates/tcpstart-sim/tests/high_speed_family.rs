//! The loss-based high-speed family on fat paths: HighSpeed TCP's response function, Scalable
//! TCP's window-independent recovery time and BIC's binary-search approach to W_max.

mod common;
use serde_json::{json, Value};

const MSS: f64 = 1460.0;

/// Time of the first trace sample at or after `from` where cwnd (segments) satisfies `pred`.
fn first_time(series: &[(f64, u64)], from: f64, pred: impl Fn(f64) -> bool) -> Option<f64> {
    series.iter().find(|&&(t, c)| t >= from && pred(c as f64 / MSS)).map(|&(t, _)| t)
}

/// (time, cwnd before, cwnd after) of each recovery entry of flow 0.
fn reductions(out: &common::Run) -> Vec<(f64, f64, f64)> {
    let f = &out.flows;
    (1..f.t.len())
        .filter(|&i| f.phase[i] == "recovery" && f.phase[i - 1] != "recovery")
        .map(|i| (f.t[i], f.cwnd[i - 1] as f64 / MSS, f.cwnd[i] as f64 / MSS))
        .collect()
}

/// One long flow on a path that is never the limit: 1 Gbps, 50 ms, a queue that never fills.
fn fat_path(algorithm: &str, params: Value, duration: &str, loss: f64, tcp: Value) -> common::Run {
    common::run(json!({
        "seed": 11,
        "duration": duration,
        "network": {"rate": "1Gbps", "rtt": "50ms", "queue": "100000pkt", "loss": loss},
        "tcp": tcp,
        "flows": [{"algorithm": algorithm, "params": params}],
        "trace": {"interval": "5ms"}
    }))
}

/// RFC 3649 section 5: HighSpeed's response function is w = 0.12 / p^0.835 segments (per RTT,
/// one ACK per segment). With random loss at rate p on a path that never queues, the average
/// window is the delivered data per RTT after a warm-up.
///
/// Tolerance 25 %, as for Reno's Mathis check (steady_state.rs): the formula is derived for
/// periodic losses one per congestion epoch, while here losses are independent (Bernoulli), so
/// epochs vary in length and a window sometimes loses several segments in one recovery; and the
/// 0.12 / p^0.835 fit itself is within 1 % of the exact log-linear interpolation between
/// (38, 1.5/38^2) and (83000, 1e-7) (e.g. p(1058) gives 1050).
#[test]
fn highspeed_average_window_follows_the_rfc3649_response_function() {
    for (p, table, duration) in [(1e-4, 0.0, "150s"), (1e-4, 1.0, "150s"), (1e-5, 0.0, "200s")] {
        let out = fat_path("highspeed", json!({"table": table}), duration, p, json!({"delayed_ack": false}));
        let f = &out.flows;
        let warmup = 30.0;
        let i0 = f.t.iter().position(|&t| t >= warmup).unwrap();
        let i1 = f.t.len() - 1;
        let rate = (f.delivered[i1] - f.delivered[i0]) as f64 / (f.t[i1] - f.t[i0]);
        let window = rate * 0.050 / MSS;
        let rfc = 0.12 / p.powf(0.835);
        let ratio = window / rfc;
        println!("p = {p}, table = {table}: average window {window:.0} segments, RFC 3649 {rfc:.0}, ratio {ratio:.3}");
        assert!((0.75..=1.25).contains(&ratio), "p = {p}, table = {table}: window/RFC = {ratio:.3}");
    }
}

/// Scalable TCP (Kelly 2003): after a loss cwnd keeps 7/8 and grows 1 % per RTT, so it regains its
/// pre-loss size after ln(8/7) / ln(1.01) = 13.4 RTTs of growth (plus about one RTT of recovery)
/// whatever the size. Reno would need W/2 RTTs: 100 at W = 200, 400 at W = 800.
#[test]
fn scalable_recovers_from_a_loss_in_the_same_time_at_any_window() {
    let mut times = Vec::new();
    for ssthresh in [200.0, 800.0] {
        // Congestion avoidance from `ssthresh` segments; the scripted drop comes a few RTTs later.
        let tcp = json!({"initial_ssthresh": ssthresh});
        let drop = (ssthresh * 8.0) as u64;
        let out = common::run(json!({
            "duration": "5s",
            "network": {"rate": "1Gbps", "rtt": "50ms", "queue": "100000pkt"},
            "tcp": tcp,
            "flows": [{"algorithm": "scalable", "drop_transmissions": [drop]}],
            "trace": {"interval": "1ms"}
        }));
        let (t_loss, before, after) = reductions(&out)[0];
        assert!((after / before - 0.875).abs() < 0.01, "keeps 7/8: {before} -> {after}");
        let series = common::cwnd_series(&out, 0);
        let t_back = first_time(&series, t_loss, |w| w >= before).expect("regains its window");
        let rtts = (t_back - t_loss) / 0.050;
        println!("W = {before:.0} segments: back after {rtts:.1} RTTs");
        assert!((12.0..=17.0).contains(&rtts), "W = {before:.0}: {rtts:.1} RTTs");
        times.push(rtts);
    }
    assert!((times[0] - times[1]).abs() / times[0] < 0.1, "recovery time depends on the window: {times:?}");
}

/// BIC (Linux tcp_bic.c) after one loss at W_max: +S_max = 16 segments per RTT while far below it
/// (dist = (W_max - w) / 4 > 16), then binary search (+dist per RTT, the gap shrinking by 3/4 per RTT),
/// then +0.2 per RTT within B = 4 segments on each side of W_max, then accelerating max probing.
/// Increments per RTT shrink towards W_max (concave) and grow beyond it (convex).
///
/// Every increment is 31/16 times the nominal one: with one packet per ACK, Linux's packets-per-ACK
/// average (delayed_ack += 1 - delayed_ack / 16 in integers, from 32) stops at 31, not 16, and cnt
/// is scaled by 16 / 31. So: 31 segments per RTT far below W_max, and 8 / (0.2 x 31 / 16) = 20.6
/// RTTs to cross the 8 segments around W_max.
#[test]
fn bic_approaches_w_max_by_binary_search_then_probes_beyond_it() {
    let out = common::run(json!({
        "duration": "12s",
        "network": {"rate": "2Gbps", "rtt": "50ms", "queue": "100000pkt"},
        "tcp": {"initial_ssthresh": 1000, "delayed_ack": false},
        "flows": [{"algorithm": "bic", "drop_transmissions": [6000]}],
        "trace": {"interval": "1ms"}
    }));
    let (t_loss, w_max, after) = reductions(&out)[0];
    assert!((after / w_max - 819.0 / 1024.0).abs() < 0.01, "beta: {w_max} -> {after}");
    let series = common::cwnd_series(&out, 0);
    let at = |w: f64| first_time(&series, t_loss, |c| c >= w).unwrap_or(f64::NAN);
    // RTTs to climb each band of the window.
    let rtts = |lo: f64, hi: f64| (at(hi) - at(lo)) / 0.050;
    let far = rtts(after + 10.0, after + 150.0) / 140.0; // RTTs per segment, linear region
    let near = rtts(w_max - 30.0, w_max - 10.0) / 20.0; // binary search
    let plateau = rtts(w_max - 4.0, w_max + 4.0); // smooth region around W_max
    let probing = rtts(w_max + 10.0, w_max + 40.0) / 30.0; // max probing, accelerating
    println!(
        "W_max {w_max:.0}: RTTs/segment far {far:.3}, near {near:.3}, plateau {plateau:.1} RTTs, probing {probing:.3}"
    );
    assert!((1.0 / far - 31.0).abs() < 5.0, "linear increase of 31 per RTT far below W_max: {}", 1.0 / far);
    assert!(near > 2.0 * far, "growth slows down near W_max (concave)");
    assert!((16.0..=26.0).contains(&plateau), "plateau at W_max: {plateau:.1} RTTs");
    assert!(probing < near, "max probing accelerates away from W_max (convex)");
}
