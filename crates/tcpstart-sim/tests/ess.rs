//! Enhanced Slow-Start on the paths of the ESS paper's Table 1 (400-byte MTU, drop-tail):
//! ESS leaves slow start with a window between one and two bandwidth-delay products and reaches
//! the BDP sooner than NewReno.

mod common;
use serde_json::json;

/// Table 1: (bottleneck rate in Mbps, RTprop in ms). Access links 1 ms in the paper's table; the
/// simulator has an access link at each end, so each gets 0.5 ms and the bottleneck keeps the
/// table's one-way delay: RTprop = 2 x (bottleneck delay + 2 x 0.5 ms).
const TABLE_1: [(u32, u32); 8] = [(10, 12), (5, 22), (10, 22), (20, 22), (50, 22), (10, 42), (20, 42), (10, 102)];

/// 400-byte packets: 348 bytes of payload + 40 bytes of IP/TCP header + 12 of timestamps.
const MSS: u64 = 348;

fn run(algorithm: &str, mbps: u32, rtt_ms: u32) -> common::Run {
    common::run(json!({
        "duration": format!("{}ms", 40 * rtt_ms),
        "network": {"rate": format!("{mbps}Mbps"), "rtt": format!("{rtt_ms}ms"), "access_delay": "0.5ms", "queue": "1bdp"},
        "tcp": {"mss": MSS},
        "flows": [{"algorithm": algorithm}]
    }))
}

/// First time the window holds `bytes` of payload.
fn time_to(out: &common::Run, bytes: f64) -> f64 {
    let series = common::cwnd_series(out, 0);
    series.iter().find(|(_, c)| *c as f64 >= bytes).map_or(f64::INFINITY, |(t, _)| *t)
}

#[test]
fn ess_exits_between_one_and_two_bdp_and_reaches_the_bdp_before_newreno() {
    for (mbps, rtt_ms) in TABLE_1 {
        let ess = run("ess", mbps, rtt_ms);
        let newreno = run("newreno", mbps, rtt_ms);
        // The BDP in payload bytes: the window counts payload, the link carries 400-byte packets.
        let bdp = mbps as f64 * 1e6 / 8.0 * rtt_ms as f64 * 1e-3 * MSS as f64 / 400.0;
        let exit = common::value(&ess, "ss_exit_cwnd");
        let (t_ess, t_newreno) = (time_to(&ess, bdp), time_to(&newreno, bdp));
        eprintln!(
            "{mbps} Mbps {rtt_ms} ms: exit {:.2} BDP at {:.3}s; BDP at {t_ess:.3}s (ess) {t_newreno:.3}s (newreno); drops {} / {}",
            exit / bdp,
            common::value(&ess, "ss_exit_time"),
            common::flow(&ess, 0)["drops"],
            common::flow(&newreno, 0)["drops"]
        );
        assert!(exit >= bdp && exit <= 2.0 * bdp, "{mbps} Mbps {rtt_ms} ms: exit window {exit} vs BDP {bdp}");
        // Stopping at the estimate instead of at a loss: fewer drops than NewReno's overshoot.
        assert!(
            common::flow(&ess, 0)["drops"].as_u64() < common::flow(&newreno, 0)["drops"].as_u64(),
            "{mbps} Mbps {rtt_ms} ms: drops {} (ess) vs {} (newreno)",
            common::flow(&ess, 0)["drops"],
            common::flow(&newreno, 0)["drops"]
        );
        assert!(t_ess < t_newreno, "{mbps} Mbps {rtt_ms} ms: BDP reached at {t_ess} s (ess) vs {t_newreno} s");
    }
}
