//! UDP sources: a constant-bit-rate source fills its rate at the bottleneck, on/off sources
//! send for their duty cycle, nothing leaves after `stop`, and every datagram is accounted for.

mod common;

use common::{link, run};
use serde_json::{json, Value};

fn udp(out: &common::Run, j: usize) -> &Value {
    &out.summary["udp"][j]
}

/// Bits per second a link sent over a run of `secs`: its utilisation times its rate.
fn bits_per_second(l: &Value) -> f64 {
    l["utilization"].as_f64().unwrap() * l["rate_bps"].as_f64().unwrap()
}

#[test]
fn cbr_source_sends_at_its_rate_measured_at_the_bottleneck() {
    let out = run(json!({
        "duration": "10s",
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "2Mbps"}],
    }));
    // 1470 payload + 28 header bytes = 11984 bits every 5.992 ms: sends at 0, 5.992 ms, ...
    // up to 9.9928 s, i.e. floor(10 / 0.005992) + 1 = 1669 datagrams.
    let u = udp(&out, 0);
    assert_eq!(u["sent_packets"], 1669);
    assert_eq!(u["sent_bytes"], 1669 * 1470);
    let b = link(&out, "bottleneck");
    assert_eq!(b["packets_sent"], 1669);
    let rate = bits_per_second(b);
    assert!((rate - 2e6).abs() / 2e6 < 0.001, "bottleneck carried {rate} bps");
    // Nothing crosses the other way: a UDP source has no acknowledgements.
    assert_eq!(link(&out, "bottleneck_rev")["packets_sent"], 0);
    assert_eq!(u["lost_packets"], 0);
}

#[test]
fn a_reverse_source_uses_the_reverse_bottleneck() {
    let out = run(json!({
        "duration": "1s",
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "1Mbps", "direction": "reverse"}],
    }));
    assert_eq!(link(&out, "bottleneck")["packets_sent"], 0);
    assert_eq!(link(&out, "bottleneck_rev")["packets_sent"], udp(&out, 0)["sent_packets"]);
    assert_eq!(link(&out, "receiver0_out")["packets_sent"], udp(&out, 0)["sent_packets"]);
}

#[test]
fn fixed_on_off_sends_only_in_its_on_periods() {
    let out = run(json!({
        "duration": "9.5s",
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "2Mbps", "on": "1s", "off": "1s"}],
        "trace": {"packets": true},
    }));
    let p = out.packets.as_ref().unwrap();
    let sends: Vec<f64> = (0..p.t.len()).filter(|&i| p.event[i] == "send").map(|i| p.t[i]).collect();
    // On in [0, 1), [2, 3), ..., [8, 9): every send falls in an even second.
    assert!(sends.iter().all(|t| t % 2.0 < 1.0), "a datagram left during an off period");
    // Each on period: sends at 0, 5.992 ms, ... below 1 s = 167 datagrams; five periods.
    assert_eq!(sends.len(), 5 * 167);
}

#[test]
fn exponential_on_off_duty_cycle_matches_its_means() {
    let out = run(json!({
        "duration": "400s",
        "seed": 7,
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "1Mbps", "on": "200ms", "off": "300ms", "on_off": "exponential"}],
    }));
    // Duty cycle 0.2 / (0.2 + 0.3) = 0.4 of 1 Mbps for 400 s. About 800 on/off cycles: the
    // fraction of time on has a standard deviation near 1.4 %, so 6 % is four sigma.
    let sent_bits = udp(&out, 0)["sent_packets"].as_f64().unwrap() * 1498.0 * 8.0;
    let duty = sent_bits / (1e6 * 400.0);
    assert!((duty - 0.4).abs() < 0.4 * 0.06, "duty cycle {duty}");
}

#[test]
fn nothing_is_sent_before_start_or_from_stop_on() {
    let out = run(json!({
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "1Mbps", "start": "1s", "stop": "2s"}],
        "trace": {"packets": true},
    }));
    let p = out.packets.as_ref().unwrap();
    let sends: Vec<f64> = (0..p.t.len()).filter(|&i| p.event[i] == "send").map(|i| p.t[i]).collect();
    assert!(sends.iter().all(|&t| (1.0..2.0).contains(&t)));
    // 11984 bits at 1 Mbps: every 11.984 ms from 1 s, the last below 2 s is the 84th.
    assert_eq!(sends.len(), 84);
    // Without a duration the run lasts until the source has stopped and its packets are out.
    assert_eq!(udp(&out, 0)["delivered_packets"], 84);
    let arrivals = (0..p.t.len()).filter(|&i| p.event[i] == "arrive").count();
    assert_eq!(arrivals, 84);
}

#[test]
fn overload_loses_datagrams_and_every_one_is_accounted_for() {
    let out = run(json!({
        "duration": "5s",
        "network": {"rate": "10Mbps", "rtt": "40ms", "queue": "20pkt"},
        "flows": [{"size": "unlimited"}],
        "udp": [{"rate": "8Mbps", "stop": "4s"}, {"rate": "4Mbps", "stop": "4s", "class": "second"}],
    }));
    for j in 0..2 {
        let u = udp(&out, j);
        let (sent, delivered, lost) = (
            u["sent_packets"].as_u64().unwrap(),
            u["delivered_packets"].as_u64().unwrap(),
            u["lost_packets"].as_u64().unwrap(),
        );
        // The sources stopped a second before the end, so nothing of theirs is still on the way.
        assert_eq!(sent, delivered + lost, "source {j}");
        assert!(lost > 0, "source {j} lost nothing at 12 Mbps into 10 Mbps");
    }
    // Classes: the TCP flow's, the first source's default "udp" class, and "second".
    let classes = &out.summary["classes"];
    assert_eq!(classes["udp"]["udp"]["sent_packets"], udp(&out, 0)["sent_packets"]);
    assert_eq!(classes["second"]["udp"]["lost_packets"], udp(&out, 1)["lost_packets"]);
    assert_eq!(classes["newreno"]["flows"], 1);
    // UDP packets take part in the conservation check (common::run asserts it); they are counted.
    let inv = &out.invariants;
    let udp_sent: u64 = (0..2).map(|j| udp(&out, j)["sent_packets"].as_u64().unwrap()).sum();
    assert!(inv.packets_created > udp_sent);
}

/// 4 Mbps of 1500-byte IP packets (one due every 3 ms) into a 10 Mbps bottleneck, smooth or
/// on a 10 ms sender clock.
fn four_mbps(tick: Option<&str>) -> common::Run {
    let mut source = json!({"rate": "4Mbps", "packet_size": 1472, "stop": "10s"});
    if let Some(t) = tick {
        source["tick"] = json!(t);
    }
    run(json!({
        "duration": "11s",
        "network": {"rate": "10Mbps", "rtt": "40ms", "queue": "100pkt"},
        "udp": [source],
        "trace": {"packets": true},
    }))
}

/// Send times grouped: (time, datagrams sent at it).
fn bursts(out: &common::Run) -> Vec<(f64, usize)> {
    let p = out.packets.as_ref().unwrap();
    let mut groups: Vec<(f64, usize)> = Vec::new();
    for i in (0..p.t.len()).filter(|&i| p.event[i] == "send") {
        match groups.last_mut() {
            Some((t, n)) if *t == p.t[i] => *n += 1,
            _ => groups.push((p.t[i], 1)),
        }
    }
    groups
}

#[test]
fn a_ticked_source_sends_bursts_on_its_ticks_at_the_same_mean_rate() {
    let (smooth, ticked) = (four_mbps(None), four_mbps(Some("10ms")));
    // Smooth: due at 0, 3 ms, ..., 9.999 s, one at a time.
    assert_eq!(udp(&smooth, 0)["sent_packets"], 3334);
    assert!(bursts(&smooth).iter().all(|&(_, n)| n == 1));
    // Ticked: the same due times, leaving at the first 10 ms tick at or after each; those due
    // after 9.99 s would leave at the 10 s tick, which is at stop: 3331 datagrams, in bursts
    // of 3 or 4 (10 ms / 3 ms = 3.33) after the first tick's lone one.
    assert_eq!(udp(&ticked, 0)["sent_packets"], 3331);
    let b = bursts(&ticked);
    assert_eq!(b.len(), 1000);
    for &(t, n) in &b[1..] {
        assert!((t * 100.0 - (t * 100.0).round()).abs() < 1e-6, "a burst left between ticks, at {t} s");
        assert!(n == 3 || n == 4, "{n} datagrams at {t} s");
    }
    // The bottleneck queue sees a burst arrive at once: three wait behind the one in service.
    let (qs, qt) = (link(&smooth, "bottleneck"), link(&ticked, "bottleneck"));
    assert!(qs["max_queue_packets"].as_u64().unwrap() <= 1, "smooth: {}", qs["max_queue_packets"]);
    assert!(qt["max_queue_packets"].as_u64().unwrap() >= 3, "ticked: {}", qt["max_queue_packets"]);
    // Mean rate: both carry 4 Mbps over the 10 s they send, within the three datagrams of the
    // last tick (0.1 %).
    for out in [&smooth, &ticked] {
        let rate = bits_per_second(link(out, "bottleneck")) * 11.0 / 10.0;
        assert!((rate - 4e6).abs() / 4e6 < 0.0015, "bottleneck carried {rate} bps");
    }
}

#[test]
fn bursts_overflow_a_queue_the_smooth_source_does_not() {
    let lost = |tick: Option<&str>| {
        let mut source = json!({"rate": "4Mbps", "packet_size": 1472, "stop": "5s"});
        if let Some(t) = tick {
            source["tick"] = json!(t);
        }
        let out = run(json!({
            "network": {"rate": "10Mbps", "rtt": "40ms", "queue": "2pkt"},
            "udp": [source],
        }));
        udp(&out, 0)["lost_packets"].as_u64().unwrap()
    };
    assert_eq!(lost(None), 0);
    // A two-packet queue loses at least one datagram of every burst of four, and those are
    // a third of the ticks (10 ms / 3 ms = 3.33 a tick): about 160 of the 500 ticks.
    assert!(lost(Some("10ms")) > 100, "{}", lost(Some("10ms")));
}

#[test]
fn a_ticked_on_off_source_is_deterministic_and_keeps_its_duty_cycle() {
    let spec = json!({
        "duration": "200s",
        "seed": 11,
        "network": {"rate": "10Mbps", "rtt": "40ms"},
        "udp": [{"rate": "1Mbps", "on": "200ms", "off": "300ms", "on_off": "exponential", "tick": "10ms"}],
    });
    let (a, b) = (run(spec.clone()), run(spec));
    assert_eq!(a.summary, b.summary);
    // About 400 cycles at 0.4 duty: the time-on fraction's standard deviation is near 2 %;
    // the ticks delay but never drop a datagram due in an on period (only at stop, unset here).
    let sent_bits = udp(&a, 0)["sent_packets"].as_f64().unwrap() * 1498.0 * 8.0;
    let duty = sent_bits / (1e6 * 200.0);
    assert!((duty - 0.4).abs() < 0.4 * 0.08, "duty cycle {duty}");
}
