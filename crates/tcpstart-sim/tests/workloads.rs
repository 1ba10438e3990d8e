//! Flow schedules, the Pareto II generator, the web workload and many-host dumbbells.

mod common;

use core::time::Duration;

use common::{flow, link, run};
use rand_pcg::Pcg64Mcg;
use serde_json::json;
use tcpstart_sim::scenario::from_json;
use tcpstart_sim::traffic::dist::Lomax;
use tcpstart_sim::traffic::web::{generate, WebSpec};

#[test]
fn periodic_flows_start_every_interval() {
    let out = run(json!({
        "network": {"rate": "10Mbps", "rtt": "20ms"},
        "flows": [{"size": 1460, "start": "100ms", "count": 5, "interval": "250ms"}],
    }));
    for k in 0..5 {
        let start = 0.1 + 0.25 * k as f64;
        assert!((flow(&out, k)["start"].as_f64().unwrap() - start).abs() < 1e-12);
        // The connection really opened then: its first trace row is the SYN.
        let first = (0..out.flows.t.len()).find(|&i| out.flows.flow[i] == k as u32).unwrap();
        assert!((out.flows.t[first] - start).abs() < 1e-9, "flow {k} opened at {}", out.flows.t[first]);
    }
}

#[test]
fn explicit_start_lists_are_kept() {
    let s = from_json(
        &json!({"network": {"rate": "10Mbps", "rtt": "20ms"}, "flows": [{"size": 1000, "starts": ["2s", "0.5s"]}]})
            .to_string(),
    )
    .unwrap();
    let starts: Vec<Duration> = s.flows.iter().map(|f| f.start).collect();
    assert_eq!(starts, [Duration::from_secs(2), Duration::from_millis(500)]);
}

#[test]
fn poisson_arrivals_have_exponential_gaps_of_the_mean() {
    let s = from_json(
        &json!({
            "network": {"rate": "10Mbps", "rtt": "20ms"},
            "flows": [{"size": 1000, "count": 20000, "interval": "10ms", "arrivals": "poisson", "start": "1s"}],
        })
        .to_string(),
    )
    .unwrap();
    let t: Vec<f64> = s.flows.iter().map(|f| f.start.as_secs_f64()).collect();
    assert!(t[0] > 1.0 && t.windows(2).all(|w| w[1] >= w[0]));
    let gaps: Vec<f64> = std::iter::once(t[0] - 1.0).chain(t.windows(2).map(|w| w[1] - w[0])).collect();
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
    // Exponential: mean 10 ms and standard deviation equal to the mean. The sample mean's
    // standard error is 10 ms / sqrt(20000) = 0.07 ms; 0.3 ms is over four of them.
    assert!((mean - 0.010).abs() < 0.0003, "mean gap {mean}");
    assert!((sd / mean - 1.0).abs() < 0.05, "coefficient of variation {}", sd / mean);
    // P(gap > mean) = e^-1 = 0.368.
    let above = gaps.iter().filter(|&&g| g > 0.010).count() as f64 / n;
    assert!((above - (-1f64).exp()).abs() < 0.015, "P(gap > mean) = {above}");
}

#[test]
fn pareto_ii_sample_mean_and_tail_match_the_parameters() {
    let mut rng = Pcg64Mcg::new(42);
    let n = 1_000_000;
    // Mean: with shape 3 the variance is finite (s^2 a / ((a-1)^2 (a-2)) = 48 for mean 4), so
    // the sample mean of a million has a standard error of 0.007.
    let d = Lomax::from_mean(4.0, 3.0);
    let mean = (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64;
    assert!((mean - 4.0).abs() < 0.03, "sample mean {mean}");
    // Tail: P(X > x) = (1 + x / s)^-a with s = mean (a - 1), checked at several x for the
    // workload's shapes, within four binomial standard errors.
    for (m, a) in [(4.0, 1.2), (4.0, 1.5)] {
        let d = Lomax::from_mean(m, a);
        let s = m * (a - 1.0);
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        for x in [0.5, 2.0, 4.0, 20.0, 100.0] {
            let p = (1.0 + x / s).powf(-a);
            let emp = xs.iter().filter(|&&v| v > x).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((emp - p).abs() < 4.0 * se + 1e-9, "shape {a}: P(X > {x}) = {emp}, expected {p}");
        }
    }
}

/// E[ceil X] = sum over k >= 0 of P(X > k) = sum (1 + k/s)^-a, summed to K and the rest by its
/// integral (Euler-Maclaurin, first correction term).
fn mean_of_ceiling(mean: f64, a: f64) -> f64 {
    let s = mean * (a - 1.0);
    let f = |k: f64| (1.0 + k / s).powf(-a);
    let big_k = 1e6;
    let head: f64 = (0..big_k as u64).map(|k| f(k as f64)).sum();
    head + s / (a - 1.0) * (1.0 + big_k / s).powf(1.0 - a) + f(big_k) / 2.0
}

fn jump_start_web() -> WebSpec {
    WebSpec {
        sessions: 20_000,
        session_interval: Duration::from_millis(5),
        start: Duration::ZERO,
        pages: 5,
        page_objects: Lomax::from_mean(4.0, 1.5),
        page_interval: Duration::from_millis(500),
        object_packets: Lomax::from_mean(4.0, 1.2),
        object_interval: Duration::from_millis(50),
    }
}

#[test]
fn web_pages_and_objects_follow_the_papers_distributions() {
    let sessions = generate(&jump_start_web(), &mut Pcg64Mcg::new(3));
    let pages: Vec<_> = sessions.iter().flat_map(|s| &s.pages).collect();
    assert_eq!(pages.len(), 100_000);
    assert!(sessions.windows(2).all(|w| w[1].start - w[0].start == Duration::from_millis(5)));
    // Objects per page: ceil of Pareto II (mean 4, shape 1.5), E[ceil X] = 4.56. The shape
    // gives an infinite variance, so the sample mean of 1e5 pages converges slowly: 5 %.
    let objects: Vec<u64> = pages.iter().map(|p| p.objects.len() as u64).collect();
    let mean_objects = objects.iter().sum::<u64>() as f64 / objects.len() as f64;
    let expected = mean_of_ceiling(4.0, 1.5);
    // Rounding up adds less than one: E[X] <= E[ceil X] < E[X] + 1.
    assert!((4.0..5.0).contains(&expected), "{expected}");
    assert!((mean_objects - expected).abs() / expected < 0.05, "objects per page {mean_objects}, expected {expected}");
    // Packets per object: shape 1.2 makes a sample mean useless as a check; its distribution
    // is exact instead: P(N > k) = P(X > k) = (1 + k / 0.8)^-1.2 for whole k.
    let packets: Vec<u64> = pages.iter().flat_map(|p| p.objects.iter().map(|o| o.packets)).collect();
    let n = packets.len() as f64;
    for k in [1u64, 2, 4, 10, 50] {
        let p = (1.0 + k as f64 / 0.8).powf(-1.2);
        let emp = packets.iter().filter(|&&v| v > k).count() as f64 / n;
        assert!((emp - p).abs() < 4.0 * (p * (1.0 - p) / n).sqrt(), "P(packets > {k}) = {emp}, expected {p}");
    }
    // Gaps: exponential, mean 50 ms between objects and 500 ms between pages.
    let gaps: Vec<f64> =
        pages.iter().flat_map(|p| p.objects.windows(2).map(|w| (w[1].offset - w[0].offset).as_secs_f64())).collect();
    let mean_gap = gaps.iter().sum::<f64>() / gaps.len() as f64;
    assert!((mean_gap - 0.05).abs() < 0.002, "inter-object mean {mean_gap}");
    let page_gap = pages.iter().map(|p| p.gap_before.as_secs_f64()).sum::<f64>() / pages.len() as f64;
    assert!((page_gap - 0.5).abs() < 0.01, "inter-page mean {page_gap}");
}

#[test]
fn web_workload_runs_every_object_and_chains_pages() {
    let out = run(json!({
        "network": {"rate": "10Mbps", "rtt": "64ms", "queue": "60pkt", "hosts": 1},
        "tcp": {"initial_window": 3},
        "web": [{"sessions": 10, "pages": 3}],
    }));
    let flows = out.summary["flows"].as_array().unwrap();
    let s = from_json(
        &json!({"network": {"rate": "10Mbps", "rtt": "64ms", "hosts": 1}, "web": [{"sessions": 10, "pages": 3}]})
            .to_string(),
    )
    .unwrap();
    assert_eq!(s.pages.len(), 30);
    assert_eq!(flows.len(), s.flows.len());
    assert!(flows.iter().all(|f| f["completed"] == true && f["class"] == "web"));
    // A page starts only after the previous one of its session completed.
    for p in &s.pages {
        if let Some((next, _)) = p.next {
            let done = (p.first_flow..p.first_flow + p.objects)
                .map(|i| {
                    flows[i as usize]["start"].as_f64().unwrap()
                        + flows[i as usize]["completion_time"].as_f64().unwrap()
                })
                .fold(0.0, f64::max);
            let next_first = flows[s.pages[next as usize].first_flow as usize]["start"].as_f64().unwrap();
            assert!(next_first >= done - 1e-9, "page {next} began at {next_first}, before {done}");
        }
    }
    let web = &out.summary["classes"]["web"];
    assert_eq!(web["flows"].as_u64().unwrap() as usize, flows.len());
    assert_eq!(web["completion_time"]["count"].as_u64().unwrap() as usize, flows.len());
    let ct = &web["completion_time"];
    assert!(ct["min"].as_f64() <= ct["p50"].as_f64() && ct["p50"].as_f64() <= ct["p99"].as_f64());
    // Every object was one MSS-sized packet or more: the sum is what crossed the bottleneck.
    let bytes: u64 = flows.iter().map(|f| f["size"].as_u64().unwrap()).sum();
    assert_eq!(web["bytes_delivered"].as_u64().unwrap(), bytes);
    assert!(flows.iter().all(|f| f["size"].as_u64().unwrap() % 1460 == 0));
}

#[test]
fn jump_start_200_connections_from_alternating_sides_all_complete() {
    // Jump Start paper III-C: 100 nodes each side on 50 Mbps links, 5 Mbps / 64 ms bottleneck,
    // 60-packet queue, 200 connections of 200 packets started periodically from alternating
    // sides (here 100 ms apart).
    let out = run(json!({
        "network": {"rate": "5Mbps", "rtt": "64ms", "queue": "60pkt", "hosts": 100, "access_rate": "50Mbps"},
        "tcp": {"initial_window": 3},
        "flows": [
            {"size": 292000, "count": 100, "interval": "200ms", "class": "left"},
            {"size": 292000, "count": 100, "interval": "200ms", "start": "100ms", "direction": "reverse", "class": "right"},
        ],
    }));
    let flows = out.summary["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 200);
    assert!(flows.iter().all(|f| f["completed"] == true), "a connection did not complete");
    // Host pair h carries left flow h and right flow h: each node sources one connection.
    for h in 0..100 {
        assert_eq!(flows[h]["host"], h);
        assert_eq!(flows[100 + h]["host"], h);
    }
    assert_eq!(out.summary["links"].as_array().unwrap().len(), 2 + 4 * 100);
    // Both bottleneck directions carried 100 x 200 data packets at least (retransmissions more).
    for l in ["bottleneck", "bottleneck_rev"] {
        assert!(link(&out, l)["packets_sent"].as_u64().unwrap() >= 100 * 200);
    }
    let classes = &out.summary["classes"];
    assert_eq!(classes["left"]["completed"], 100);
    assert_eq!(classes["right"]["completed"], 100);
}

#[test]
fn flows_on_one_host_share_its_access_links() {
    let out = run(json!({
        "duration": "5s",
        "network": {"rate": "100Mbps", "rtt": "20ms", "hosts": 1, "access_rate": "10Mbps"},
        "flows": [{"count": 2}],
    }));
    // The 10 Mbps access link is the bottleneck of both flows together.
    let access = link(&out, "sender0_out")["utilization"].as_f64().unwrap();
    assert!(access > 0.9, "access utilisation {access}");
    let total: f64 = (0..2).map(|i| flow(&out, i)["goodput_bps"].as_f64().unwrap()).sum();
    assert!(total < 10e6, "two flows on one 10 Mbps access link got {total} bps");
    let jain = out.summary["classes"]["newreno"]["jain_index"].as_f64().unwrap();
    assert!(jain > 0.5 && jain <= 1.0);
}

#[test]
fn traffic_mixes_are_deterministic() {
    let spec = json!({
        "duration": "3s",
        "seed": 11,
        "network": {"rate": "10Mbps", "rtt": "40ms", "hosts": 4},
        "flows": [{"count": 3, "interval": "100ms", "arrivals": "poisson", "size": "100KB"}, {"direction": "reverse"}],
        "udp": [{"rate": "1Mbps", "on": "100ms", "off": "200ms", "on_off": "exponential"}],
        "web": [{"sessions": 3}],
    });
    let a = run(spec.clone());
    let b = run(spec);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.flows.t, b.flows.t);
}

#[test]
fn jain_index_leaves_out_flows_that_never_started() {
    let out = run(json!({
        "duration": "2s",
        "network": {"rate": "10Mbps", "rtt": "20ms"},
        "flows": [{"count": 2}, {"start": "5s"}],
    }));
    assert_eq!(flow(&out, 2)["started"], false);
    let (a, b) = (flow(&out, 0)["goodput_bps"].as_f64().unwrap(), flow(&out, 1)["goodput_bps"].as_f64().unwrap());
    let two = (a + b).powi(2) / (2.0 * (a * a + b * b));
    for j in [&out.summary["jain_index"], &out.summary["classes"]["newreno"]["jain_index"]] {
        assert!((j.as_f64().unwrap() - two).abs() < 1e-12, "{j} vs {two}");
    }
}
