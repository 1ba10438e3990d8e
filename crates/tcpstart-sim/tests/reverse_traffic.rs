//! Reverse-path traffic: a TCP flow whose data goes from the receivers' side shares the reverse
//! bottleneck with the forward flow's ACKs. The ACKs queue behind its data (the forward flow's
//! RTT grows by that queue) and leave the queue in clumps (ACK compression, Zhang, Shenker and
//! Clark 1991): several ACKs closer together than the forward data segments were.

mod common;

use common::{link, run};
use serde_json::json;

/// The forward flow's ACK arrivals at its sender after `from` seconds, and its mean RTT sample.
fn ack_gaps_and_rtt(with_reverse: bool) -> (Vec<f64>, f64) {
    // The forward flow is held by a 20-segment receive window (29200 bytes, below the 62.5 KB
    // BDP), so it never queues at the forward bottleneck: its RTT shows the reverse queue only.
    let mut flows = vec![json!({"size": "unlimited", "tcp": {"rcv_buf": 29200}})];
    if with_reverse {
        flows.push(json!({"size": "unlimited", "direction": "reverse", "class": "reverse"}));
    }
    let out = run(json!({
        "duration": "20s",
        "network": {"rate": "10Mbps", "rtt": "50ms", "queue": "100pkt", "hosts": 1},
        "flows": flows,
        "trace": {"packets": true},
    }));
    if with_reverse {
        // The reverse flow's data went through bottleneck_rev; its ACKs through bottleneck.
        assert!(link(&out, "bottleneck_rev")["utilization"].as_f64().unwrap() > 0.9);
        assert_eq!(out.summary["flows"][1]["direction"], "reverse");
    }
    let p = out.packets.as_ref().unwrap();
    let acks: Vec<f64> = (0..p.t.len())
        .filter(|&i| p.flow[i] == 0 && p.event[i] == "ack_arrive" && p.t[i] > 5.0)
        .map(|i| p.t[i])
        .collect();
    let f = &out.flows;
    let rtts: Vec<f64> = (0..f.t.len()).filter(|&i| f.flow[i] == 0 && f.t[i] > 5.0).map(|i| f.rtt[i]).collect();
    (acks.windows(2).map(|w| w[1] - w[0]).collect(), rtts.iter().sum::<f64>() / rtts.len() as f64)
}

#[test]
fn reverse_data_compresses_the_forward_acks_and_inflates_the_rtt() {
    // A 1500-byte data packet takes 1.2 ms at 10 Mbps, so ACKs of undisturbed data arrive at
    // least that far apart; an ACK (52-64 bytes) takes about 50 us.
    let compressed = |gaps: &[f64]| gaps.iter().filter(|&&g| g < 0.6e-3).count() as f64 / gaps.len() as f64;
    let (alone, rtt_alone) = ack_gaps_and_rtt(false);
    let (shared, rtt_shared) = ack_gaps_and_rtt(true);
    assert_eq!(compressed(&alone), 0.0, "ACKs bunched up without reverse traffic");
    assert!(compressed(&shared) > 0.5, "only {:.2} of ACK gaps compressed", compressed(&shared));
    // Alone: the 50 ms base RTT plus serialisation. Shared: plus the reverse queue, which the
    // reverse flow keeps between half full and full (100 packets = 120 ms).
    assert!(rtt_alone < 0.055, "rtt alone {rtt_alone}");
    assert!(rtt_shared > rtt_alone + 0.04, "rtt with reverse traffic {rtt_shared}");
}
