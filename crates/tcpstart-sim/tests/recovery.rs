//! Loss recovery: fast retransmit/recovery, NewReno partial ACKs, SACK recovery of several losses
//! in one window (with RFC 6675 NextSeg rules 3 and 4 for holes at the end of a transfer, PRR,
//! and both retransmission-timer restart rules), retransmission timeouts with backoff and Karn's
//! rule, and the delayed-ACK timer.
//! Losses are scripted (`drop_transmissions`) so each test knows exactly what was lost.

mod common;
use serde_json::{json, Value};

const MSS: f64 = 1460.0;

/// A 300-segment transfer on a 10 Mbps / 100 ms path with a large queue, so only the scripted
/// drops lose packets.
fn transfer(algorithm: &str, sack: bool, drops: &[u64], extra_tcp: Value) -> common::Run {
    let mut tcp = json!({"sack": sack, "delayed_ack": false, "initial_window": 10});
    tcp.as_object_mut().unwrap().extend(extra_tcp.as_object().unwrap().clone());
    common::run(json!({
        "network": {"rate": "10Mbps", "rtt": "100ms", "queue": "1000pkt"},
        "tcp": tcp,
        "flows": [{"algorithm": algorithm, "size": 300.0 * MSS, "drop_transmissions": drops}],
        "trace": {"packets": true}
    }))
}

fn stat(out: &common::Run, key: &str) -> u64 {
    common::flow(out, 0)[key].as_u64().unwrap()
}

fn completion(out: &common::Run) -> f64 {
    common::value(out, "completion_time")
}

/// Times of the packet-trace events of kind `event`.
fn event_times(out: &common::Run, event: &str) -> Vec<f64> {
    let p = out.packets.as_ref().unwrap();
    (0..p.t.len()).filter(|&i| p.event[i] == event).map(|i| p.t[i]).collect()
}

#[test]
fn fast_retransmit_repairs_a_single_loss_and_halves_the_window() {
    let out = transfer("newreno", false, &[40], json!({}));
    assert_eq!((stat(&out, "retransmissions"), stat(&out, "fast_recoveries"), stat(&out, "timeouts")), (1, 1, 0));
    // Slow start ended at the loss; afterwards cwnd is half the flight size at detection.
    let exit_cwnd = common::flow(&out, 0)["ss_exit_cwnd"].as_f64().unwrap();
    let f = &out.flows;
    let after: Vec<u64> =
        (0..f.t.len()).filter(|&i| f.phase[i] == "congestion_avoidance").map(|i| f.ssthresh[i]).collect();
    let ssthresh = after[0] as f64;
    assert!(ssthresh >= 0.4 * exit_cwnd && ssthresh <= 0.6 * exit_cwnd, "ssthresh {ssthresh} vs cwnd {exit_cwnd}");
}

#[test]
fn newreno_recovers_two_losses_in_one_window_without_timeout_and_reno_does_not() {
    let newreno = transfer("newreno", false, &[40, 44], json!({}));
    assert_eq!(
        (stat(&newreno, "retransmissions"), stat(&newreno, "fast_recoveries"), stat(&newreno, "timeouts")),
        (2, 1, 0)
    );
    // Reno leaves recovery at the first partial ACK and needs a second recovery or a timeout.
    let reno = transfer("reno", false, &[40, 44], json!({}));
    assert!(stat(&reno, "fast_recoveries") + stat(&reno, "timeouts") >= 2, "{}", common::flow(&reno, 0));
}

#[test]
fn sack_recovers_many_losses_in_one_window_faster_than_newreno() {
    let drops = [40, 42, 44, 46];
    let sack = transfer("newreno", true, &drops, json!({}));
    assert_eq!((stat(&sack, "retransmissions"), stat(&sack, "fast_recoveries"), stat(&sack, "timeouts")), (4, 1, 0));
    let newreno = transfer("newreno", false, &drops, json!({}));
    assert_eq!(stat(&newreno, "timeouts"), 0);
    // NewReno repairs one hole per round trip; SACK repairs all of them in the first.
    let retx_sack = event_times(&sack, "retransmit");
    let retx_newreno = event_times(&newreno, "retransmit");
    let span = |v: &[f64]| v.last().unwrap() - v.first().unwrap();
    assert!(span(&retx_sack) < 0.05, "SACK retransmissions spread over {} s", span(&retx_sack));
    assert!(span(&retx_newreno) > 0.25, "NewReno retransmissions spread over {} s", span(&retx_newreno));
    assert!(completion(&sack) < completion(&newreno));
}

#[test]
fn retransmission_timeout_backs_off_and_karn_ignores_retransmitted_samples() {
    // A 10-segment transfer whose last segment and its first two retransmissions are lost: no
    // duplicate ACKs can follow, so only the timer recovers it, three times.
    let out = common::run(json!({
        "network": {"rate": "10Mbps", "rtt": "100ms"},
        "tcp": {"sack": true, "delayed_ack": false, "timestamps": false, "rto_min": "200ms"},
        "flows": [{"algorithm": "newreno", "size": 10.0 * MSS, "drop_transmissions": [10, 11, 12]}],
        "trace": {"packets": true}
    }));
    assert_eq!((stat(&out, "timeouts"), stat(&out, "retransmissions")), (3, 3));
    let retx = event_times(&out, "retransmit");
    let first_wait = retx[1] - retx[0];
    let second_wait = retx[2] - retx[1];
    assert!((second_wait / first_wait - 2.0).abs() < 0.05, "waits {first_wait} then {second_wait}");
    // Karn: the ACK of a retransmission gives no RTT sample, so the latest sample stays the one
    // taken before the loss. (A sample from the retransmission would be a bare round trip, shorter
    // than the earlier samples, which include the queueing of the initial burst.)
    let f = &out.flows;
    let before = (0..f.t.len()).filter(|&i| f.t[i] < retx[0]).map(|i| f.rtt[i]).next_back().unwrap();
    assert!(before > 0.105, "the pre-loss sample {before} should include queueing");
    assert_eq!(*f.rtt.last().unwrap(), before, "an RTT sample was taken from a retransmitted segment");
}

#[test]
fn delayed_ack_timer_acknowledges_a_lone_segment() {
    let run = |timeout: &str| {
        common::run(json!({
            "network": {"rate": "100Mbps", "rtt": "100ms"},
            "tcp": {"delayed_ack": true, "delack_timeout": timeout},
            "flows": [{"algorithm": "newreno", "size": 1000}]
        }))
    };
    let slow = completion(&run("200ms"));
    let fast = completion(&run("40ms"));
    // Handshake + one round trip + the timer, in both cases.
    assert!((slow - fast - 0.160).abs() < 0.001, "{slow} vs {fast}");
    assert!((fast - 0.240).abs() < 0.005, "{fast}");
}

#[test]
fn limited_transmit_segments_stay_out_of_the_flight_size_that_sets_ssthresh() {
    // RFC 5681 3.2 step 2: "When [RFC3042] is in use, additional data sent in limited transmit
    // MUST NOT be included in this calculation." Hand count, one ACK per segment from IW 10:
    // segment 40 is lost; the ACKs of segments 1..39 each add one MSS, so cwnd = 49 segments and
    // segments up to 39 + 49 = 88 are out. The first two duplicate ACKs send 89 and 90 by limited
    // transmit; at the third, FlightSize without them is 88 - 39 = 49 segments: ssthresh 24.5 MSS.
    let out = transfer("newreno", true, &[40], json!({"limited_transmit": true}));
    assert_eq!((stat(&out, "fast_recoveries"), stat(&out, "timeouts")), (1, 0));
    // One new segment per duplicate ACK: the last one sent before the fast retransmission is 90.
    let p = out.packets.as_ref().unwrap();
    let retx = (0..p.t.len()).find(|&i| p.event[i] == "retransmit").unwrap();
    let highest = (0..retx).filter(|&i| p.event[i] == "send").map(|i| p.seq[i]).max().unwrap();
    assert_eq!(highest, 89 * MSS as u64, "segments sent before the fast retransmission");
    let f = &out.flows;
    let ssthresh = (0..f.t.len()).find(|&i| f.phase[i] == "recovery").map(|i| f.ssthresh[i]).unwrap();
    assert_eq!(ssthresh, (24.5 * MSS) as u64);
}

/// (time, segment number from 1) of the data packets with packet-trace event `event`.
fn segments(out: &common::Run, event: &str) -> Vec<(f64, u64)> {
    let p = out.packets.as_ref().unwrap();
    (0..p.t.len()).filter(|&i| p.event[i] == event).map(|i| (p.t[i], p.seq[i] / MSS as u64 + 1)).collect()
}

#[test]
fn rule_3_repairs_holes_among_the_last_segments_within_the_recovery() {
    // Segments 295, 296 and 299 of 300 lost: 297, 298 and 300 are SACKed, so 295 and 296 have
    // three SACKed segments above them (lost by IsLost) and 299 only one. NextSeg rule 3 sends
    // 299 anyway (unSACKed, below the highest SACKed byte) once the window has room, instead of
    // leaving it to a 1 s retransmission timeout.
    let lossless = completion(&transfer("newreno", true, &[], json!({})));
    let out = transfer("newreno", true, &[295, 296, 299], json!({}));
    assert_eq!((stat(&out, "fast_recoveries"), stat(&out, "timeouts")), (1, 0));
    let retx = segments(&out, "retransmit");
    let order: Vec<u64> = retx.iter().map(|&(_, seg)| seg).collect();
    // The flight at the loss is 6 segments, so cwnd = ssthresh = 3: 299 waits for the first
    // partial ACK. The ACK after that finds rules 1-3 exhausted and sends rule 4's rescue, which
    // must include the highest unSACKed byte: 299 again (RFC 6675 allows this repeat).
    assert_eq!(order, [295, 296, 299, 299]);
    let rtt = 0.1;
    assert!(
        retx[2].0 - retx[0].0 < 1.5 * rtt,
        "299 went out {} s after the fast retransmission",
        retx[2].0 - retx[0].0
    );
    assert!(completion(&out) - lossless < 2.5 * rtt, "{} vs {lossless} without loss", completion(&out));
}

#[test]
fn rescue_retransmission_repairs_a_lost_last_segment() {
    // Segments 290 and 300 (the last) lost: nothing is SACKed above 300, so neither IsLost nor
    // rule 3 covers it. Once the cumulative ACK passes the fast retransmission of 290 (HighACK >
    // RescueRxt), rule 4 retransmits the highest unSACKed segment, 300, one round trip later.
    let lossless = completion(&transfer("newreno", true, &[], json!({})));
    let out = transfer("newreno", true, &[290, 300], json!({}));
    assert_eq!((stat(&out, "fast_recoveries"), stat(&out, "timeouts")), (1, 0));
    let retx = segments(&out, "retransmit");
    assert_eq!(retx.iter().map(|&(_, seg)| seg).collect::<Vec<_>>(), [290, 300]);
    let gap = retx[1].0 - retx[0].0;
    assert!((0.1..0.15).contains(&gap), "rescue {gap} s after the fast retransmission, expected one RTT");
    assert!(completion(&out) - lossless < 0.25, "{} vs {lossless} without loss", completion(&out));
}

#[test]
fn prr_spreads_the_window_reduction_over_the_recovery() {
    // One loss at segment 100 in slow start. RFC 6675 sets cwnd = ssthresh at once and sends
    // nothing new until half the flight has drained, then one segment per ACK; PRR (RFC 6937)
    // sends about one segment for every two delivered from the start.
    let first_sends = |recovery: &str| {
        let out = transfer("newreno", true, &[100], json!({"recovery": recovery}));
        assert_eq!((stat(&out, "fast_recoveries"), stat(&out, "timeouts"), stat(&out, "retransmissions")), (1, 0, 1));
        let retx = segments(&out, "retransmit")[0].0;
        let sends: Vec<f64> =
            segments(&out, "send").into_iter().map(|(t, _)| t).filter(|&t| t >= retx).take(11).collect();
        (sends[0] - retx, (sends[10] - sends[0]) / 10.0, completion(&out))
    };
    // At 10 Mbps a 1500-byte packet takes 1.2 ms: ACKs return every 1.2 ms.
    let ack_gap = 1500.0 * 8.0 / 10e6;
    let (rfc_wait, rfc_gap, rfc_done) = first_sends("rfc6675");
    let (prr_wait, prr_gap, prr_done) = first_sends("prr");
    assert!(rfc_wait > 0.05, "RFC 6675 is silent for half a flight: waited {rfc_wait} s");
    assert!(prr_wait < 3.0 * ack_gap, "PRR sends from the second ACK on: waited {prr_wait} s");
    assert!((rfc_gap / ack_gap - 1.0).abs() < 0.05, "RFC 6675: one segment per ACK, gap {rfc_gap}");
    assert!((prr_gap / ack_gap - 2.0).abs() < 0.1, "PRR: one segment per two ACKs, gap {prr_gap}");
    assert!(prr_done < rfc_done, "PRR keeps the ACK clock: {prr_done} vs {rfc_done}");
}

#[test]
fn impatient_rto_restart_ends_a_long_recovery_in_a_timeout() {
    // 140 of the 160 segments of the fifth slow-start round lost; with PRR the repair takes
    // several round trips (slow-start-like growth from a small pipe). Restarting the timer on
    // every advancing ACK (RFC 6298 5.3, Linux) carries the recovery to its end; restarting it
    // only on the first partial ACK (RFC 6582's "impatient" variant, ns-3) lets it expire.
    let run = |rto_restart: &str| {
        let tcp = json!({"sack": true, "delayed_ack": false, "initial_window": 10, "recovery": "prr",
                         "rto_restart": rto_restart, "rto_min": "200ms"});
        common::run(json!({
            "network": {"rate": "10Mbps", "rtt": "100ms", "queue": "1000pkt"},
            "tcp": tcp,
            "flows": [{"algorithm": "newreno", "size": 1000.0 * MSS, "drop_transmissions": (151..=290).collect::<Vec<u64>>()}],
        }))
    };
    let every = run("every_ack");
    assert_eq!(
        (stat(&every, "fast_recoveries"), stat(&every, "timeouts"), stat(&every, "retransmissions")),
        (1, 0, 140)
    );
    let impatient = run("first_partial_ack");
    assert_eq!((stat(&impatient, "fast_recoveries"), stat(&impatient, "timeouts")), (1, 1));
    assert!(stat(&impatient, "retransmissions") > 140, "the timeout resends what was in flight");
    assert!(completion(&impatient) > completion(&every));
}

#[test]
fn prr_leaves_a_controller_that_sets_its_own_recovery_window_alone() {
    // Linux applies PRR (`tcp_cwnd_reduction`) only to controllers without a `cong_control`
    // hook; BBR sets cwnd in recovery itself (packet conservation, then restore). Its runs are
    // therefore the same under both settings, while NewReno's are not.
    let run = |algorithm: &str, recovery: &str| {
        let out = transfer(algorithm, true, &[100, 102, 104, 106], json!({"recovery": recovery}));
        (completion(&out), out.flows.cwnd.clone())
    };
    assert_eq!(run("bbr", "prr"), run("bbr", "rfc6675"));
    assert_ne!(run("newreno", "prr").1, run("newreno", "rfc6675").1);
}
