//! eHSTCP (Choi, Lee, Cho): the decrease factor 1 - beta = RTTmin / eRTT, and the backward-path
//! queueing removed from eRTT using one-way delays from timestamps, so a congested ACK path does not
//! shrink the window the way a plain RTT-based estimate does.

mod common;
use serde_json::{json, Value};

const MSS: f64 = 1460.0;
/// Delay of a full forward queue of 0.2 BDP: 67 packets of 1460 + 52 bytes at 100 Mbps.
const FULL_QUEUE_DELAY: f64 = 67.0 * 1512.0 * 8.0 / 100e6;

/// One eHSTCP flow for 60 s on 100 Mbps / 40 ms with a drop-tail queue of `queue`; with `reverse`,
/// the ACK path has its own slow bottleneck and a 100-packet queue.
fn run(params: Value, queue: &str, reverse: Option<&str>) -> common::Run {
    let mut network = json!({"rate": "100Mbps", "rtt": "40ms", "queue": queue});
    if let Some(rate) = reverse {
        network["reverse_rate"] = json!(rate);
        network["reverse_queue"] = json!("100pkt");
    }
    common::run(json!({
        "duration": "60s",
        "network": network,
        "flows": [{"algorithm": "ehstcp", "params": params}],
        "trace": {"interval": "1ms"}
    }))
}

/// Fast-recovery entries after `after` seconds: (RTT sample just before, cwnd before, cwnd after)
/// in seconds and segments.
fn reductions(out: &common::Run, after: f64) -> Vec<(f64, f64, f64)> {
    let f = &out.flows;
    (1..f.t.len())
        .filter(|&i| f.t[i] >= after && f.phase[i] == "recovery" && f.phase[i - 1] != "recovery")
        .map(|i| (f.rtt[i - 1], f.cwnd[i - 1] as f64 / MSS, f.cwnd[i] as f64 / MSS))
        .collect()
}

fn min_rtt(out: &common::Run) -> f64 {
    out.flows.rtt.iter().copied().filter(|r| r.is_finite()).fold(f64::INFINITY, f64::min)
}

/// Share of the trace samples spent in `phase`.
fn share(out: &common::Run, phase: &str) -> f64 {
    out.flows.phase.iter().filter(|&&p| p == phase).count() as f64 / out.flows.phase.len() as f64
}

fn mean_cwnd(out: &common::Run, after: f64) -> f64 {
    let c: Vec<f64> =
        common::cwnd_series(out, 0).into_iter().filter(|&(t, _)| t >= after).map(|(_, c)| c as f64 / MSS).collect();
    c.iter().sum::<f64>() / c.len() as f64
}

/// Eq. 4: without backward congestion eRTT is the RTT, so each loss leaves RTTmin / RTT of the
/// window: with 0.2 BDP of queue about 40/48 (gentler than HighSpeed's b(400) = 0.38, so a safety
/// check follows), with 1 BDP about 1/2 (stronger than HighSpeed's b(660) = 0.35, no check).
#[test]
fn each_loss_keeps_rttmin_over_ertt_of_the_window() {
    for (queue, check) in [("0.2bdp", true), ("1bdp", false)] {
        let out = run(json!({}), queue, None);
        let base = min_rtt(&out);
        let cuts = reductions(&out, 0.0);
        assert!(cuts.len() >= 2, "{queue}: losses {cuts:?}");
        for &(rtt, before, after) in &cuts {
            let (ratio, want) = (after / before, base / rtt);
            println!("{queue}: {before:.0} -> {after:.0} segments, kept {ratio:.3}, RTTmin/RTT {want:.3}");
            assert!((ratio - want).abs() < 0.02, "{queue}: kept {ratio:.3}, RTTmin/eRTT {want:.3}");
        }
        assert_eq!(share(&out, "safety_check") > 0.0, check, "{queue}: safety check phase");
    }
}

/// A 1.5 Mbps ACK path (the ACK stream of a full 100 Mbps flow needs about 1.7 Mbps) keeps its
/// 100-packet queue full: about 30 ms of backward queueing on a 40 ms path. eHSTCP removes it from
/// eRTT: its losses keep RTTmin / (RTTmin + forward queueing) of the window, as without the
/// reverse congestion, and its backlog N' stays low enough for the HighSpeed increase. With the
/// correction off (eRTT = RTT, the plain RTT-based estimate) the same path reads the ACK queue as
/// backlog: every loss keeps only RTTmin / RTT (about 0.53), the increase is Reno's, and the window
/// and goodput are smaller.
#[test]
fn backward_congestion_does_not_shrink_the_window() {
    let corrected = run(json!({}), "0.2bdp", Some("1.5Mbps"));
    let plain = run(json!({"backward_correction": 0}), "0.2bdp", Some("1.5Mbps"));
    let base = min_rtt(&corrected);
    // After the slow-start overshoot, once the ACK queue has filled.
    let cuts = reductions(&corrected, 5.0);
    assert!(!cuts.is_empty());
    for &(rtt, before, after) in &cuts {
        let (ratio, want) = (after / before, base / (base + FULL_QUEUE_DELAY));
        println!("corrected: RTT {rtt:.4} s, {before:.0} -> {after:.0}, kept {ratio:.3}, RTTmin/eRTT {want:.3}");
        assert!(rtt > 1.4 * base, "the ACK path should be congested: RTT {rtt:.4} s, RTTmin {base:.4} s");
        assert!((ratio - want).abs() < 0.03, "kept {ratio:.3}, RTTmin/(RTTmin + forward queueing) {want:.3}");
    }
    for &(rtt, before, after) in &reductions(&plain, 5.0) {
        let ratio = after / before;
        println!("plain RTT: RTT {rtt:.4} s, {before:.0} -> {after:.0}, kept {ratio:.3}");
        assert!((ratio - base / rtt).abs() < 0.03, "kept {ratio:.3}, RTTmin/RTT {:.3}", base / rtt);
    }
    let (hs_corrected, hs_plain) = (share(&corrected, "hstcp_increase"), share(&plain, "hstcp_increase"));
    let (w_corrected, w_plain) = (mean_cwnd(&corrected, 5.0), mean_cwnd(&plain, 5.0));
    let goodput = |o: &common::Run| common::flow(o, 0)["goodput_bps"].as_f64().unwrap() / 1e6;
    println!(
        "HighSpeed increase {hs_corrected:.3} vs {hs_plain:.3} of the time; mean cwnd {w_corrected:.0} vs {w_plain:.0}; goodput {:.1} vs {:.1} Mbps",
        goodput(&corrected),
        goodput(&plain)
    );
    assert!(hs_corrected > 0.1 && hs_plain < 0.01, "N' vs the RTT-based backlog");
    assert!(w_corrected > 1.1 * w_plain, "mean cwnd {w_corrected:.0} vs {w_plain:.0}");
    assert!(goodput(&corrected) > goodput(&plain));
}
