//! Receiver ACK policies: per segment, every k segments with the delayed-ACK timer as a backstop
//! (the OPNET segment/clock setting is k = 2 with a 0.2 s maximum delay), and Linux-style
//! quick-ACKs at connection start.

mod common;
use common::Run;
use serde_json::{json, Value};

const SEGMENTS: u64 = 100;
const MSS: u64 = 1460;

/// 100 segments sent in one flight (initial window 100), so they reach the receiver back-to-back
/// and the ACK count depends on the receiver's policy alone.
fn one_flight(tcp: Value) -> Run {
    let mut tcp_options = json!({"initial_window": SEGMENTS, "mss": MSS});
    tcp_options.as_object_mut().unwrap().extend(tcp.as_object().unwrap().clone());
    common::run(json!({
        "network": {"rate": "10Mbps", "rtt": "50ms", "queue": "200pkt"},
        "tcp": tcp_options,
        "flows": [{"algorithm": "newreno", "size": SEGMENTS * MSS}],
        "trace": {"packets": true}
    }))
}

/// (time, cumulative ACK) of the data ACKs the receiver sent.
fn acks(out: &Run) -> Vec<(f64, u64)> {
    let p = out.packets.as_ref().unwrap();
    (0..p.t.len()).filter(|&i| p.event[i] == "ack_send" && p.ack[i] > 0).map(|i| (p.t[i], p.ack[i])).collect()
}

#[test]
fn each_policy_sends_the_expected_number_of_acks() {
    // (options, ACKs): every segment; every 2nd; every 3rd (33 full groups and a timer ACK for
    // the 100th segment); every 10th; the OPNET segment/clock setting.
    let cases = [
        (json!({"delayed_ack": false}), 100),
        (json!({"delack_count": 1}), 100),
        (json!({"delack_count": 2}), 50),
        (json!({"delack_count": 3}), 34),
        (json!({"delack_count": 10}), 10),
        (json!({"delack_count": 2, "delack_timeout": "200ms"}), 50),
    ];
    for (tcp, expected) in cases {
        let out = one_flight(tcp.clone());
        assert_eq!(common::flow(&out, 0)["completed"], true);
        assert_eq!(acks(&out).len(), expected, "{tcp}");
    }
}

#[test]
fn a_lone_last_segment_waits_for_the_delayed_ack_timer() {
    for timeout in [0.04, 0.2] {
        let out = one_flight(json!({"delack_count": 3, "delack_timeout": format!("{}ms", timeout * 1e3)}));
        let a = acks(&out);
        let (before_last, last) = (a[a.len() - 2], a[a.len() - 1]);
        assert_eq!((before_last.1, last.1), (99 * MSS, 100 * MSS));
        // The 100th segment arrives one serialisation (1512 bytes at 10 Mb/s) after the 99th.
        let arrival = before_last.0 + 1512.0 * 8.0 / 10e6;
        assert!((last.0 - arrival - timeout).abs() < 1e-6, "timeout {timeout}: {} after", last.0 - arrival);
    }
}

#[test]
fn quick_acks_acknowledge_each_of_the_first_segments() {
    // Linux's count with a large window: TCP_MAX_QUICKACKS = 16.
    let out = one_flight(json!({"delack_count": 2, "quickack": 16}));
    let a = acks(&out);
    // 16 single-segment ACKs, then one per two segments for the other 84.
    assert_eq!(a.len(), 16 + 42);
    let advance: Vec<u64> = a.windows(2).map(|w| (w[1].1 - w[0].1) / MSS).collect();
    assert_eq!(a[0].1, MSS);
    assert!(advance[..15].iter().all(|&d| d == 1), "{advance:?}");
    assert!(advance[15..].iter().all(|&d| d == 2), "{advance:?}");
}

#[test]
fn quick_ack_count_is_range_checked() {
    let text =
        json!({"network": {"rate": "10Mbps", "rtt": "50ms"}, "tcp": {"quickack": -1}, "flows": [{"size": 1000}]});
    let e = tcpstart_sim::scenario::from_json(&text.to_string()).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("tcp.quickack:"), "{e}");
    let text =
        json!({"network": {"rate": "10Mbps", "rtt": "50ms"}, "flows": [{"size": 1000, "tcp": {"quickack": 200000}}]});
    let e = tcpstart_sim::scenario::from_json(&text.to_string()).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("flows[0].tcp.quickack: must be between 0 and 100000"), "{e}");
}
