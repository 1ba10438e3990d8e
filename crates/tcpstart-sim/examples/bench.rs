//! Throughput benchmark of the simulator on the reference scenario: NewReno bulk flows
//! sharing a 1 Gb/s, 20 ms one-way bottleneck with a 1000-packet drop-tail queue.
//!
//!     cargo run --release -p tcpstart-sim --example bench [-- --duration 30s --flows 10]
//!
//! `--duration` exists so one can check that peak memory does not grow with simulated time.

use std::time::Instant;

use serde_json::json;

fn main() {
    let (duration, flows) = parse_args();

    // Built as JSON and run through the public API, so the benchmark measures exactly what a
    // user's run costs (apart from TOML/Python conversion).
    let scenario_json = json!({
        "duration": duration,
        "network": {
            "rate": "1Gbps", "delay": "20ms", "queue": "1000pkt",
            "access_rate": "10Gbps", "access_delay": "1ms",
        },
        "tcp": { "sack": true, "delayed_ack": true },
        "flows": [{ "algorithm": "newreno", "count": flows }],
    })
    .to_string();

    // Parse timed on its own so it cannot hide in (or inflate) the simulation figure.
    let t = Instant::now();
    let scenario = tcpstart_sim::scenario::from_json(&scenario_json).expect("benchmark scenario is valid");
    let parse_wall = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let out = tcpstart_sim::run(scenario);
    let wall = t.elapsed().as_secs_f64();

    let s = &out.summary;
    let bottleneck = s.links.iter().find(|l| l.name == "bottleneck").expect("a forward bottleneck link");
    let bottleneck_pkts = bottleneck.packets_sent;
    // Every hop a packet makes costs the simulator work, so the all-links total is the fairer
    // measure of simulator speed; the bottleneck figure is the one users think in.
    let total_pkts: u64 = s.links.iter().map(|l| l.packets_sent).sum();
    let events = s.sim.events;
    let invariants_ok = s.invariants.ok;

    println!("scenario: {flows} x newreno, 1 Gb/s, 20 ms one-way, 1000 pkt drop-tail, {duration} simulated");
    println!("parse wall time:              {:.6} s", parse_wall);
    println!("run wall time:                {:.3} s", wall);
    println!("simulated end time:           {:.3} s", s.sim.end_time);
    println!("bottleneck packets:           {bottleneck_pkts}");
    println!("bottleneck packets / wall s:  {:.0}", bottleneck_pkts as f64 / wall);
    println!("all-link packets:             {total_pkts}");
    println!("all-link packets / wall s:    {:.0}", total_pkts as f64 / wall);
    println!("events:                       {events}");
    println!("events / wall s:              {:.0}", events as f64 / wall);
    println!("bottleneck utilization:       {:.4}", bottleneck.utilization);
    println!("bottleneck drops:             {}", bottleneck.drops);
    println!("invariants ok:                {invariants_ok}");
    // The time series are kept in full (1 ms default sampling), so they are the part of memory
    // expected to grow with simulated duration; printed to tell that apart from a leak.
    println!("trace rows (flow / queue):    {} / {}", out.flows.rows(), out.queues.rows());
    // Read at the very end, after `run` has returned, so the high-water mark covers the whole run.
    println!("peak RSS (VmHWM):             {}", peak_rss().unwrap_or_else(|| "unavailable".into()));

    if !invariants_ok {
        eprintln!("invariants failed: {:?}", s.invariants);
        std::process::exit(1);
    }
}

/// `--duration <time>` and `--flows <n>`; plain std::env::args to keep the example dependency-free.
fn parse_args() -> (String, u32) {
    let mut duration = "30s".to_string();
    let mut flows = 10;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_else(|| usage(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--duration" => duration = value,
            "--flows" => flows = value.parse().unwrap_or_else(|_| usage("--flows takes a whole number")),
            _ => usage(&format!("unknown argument {arg}")),
        }
    }
    (duration, flows)
}

fn usage(msg: &str) -> ! {
    eprintln!("{msg}\nusage: bench [--duration 30s] [--flows 10]");
    std::process::exit(2);
}

/// Peak resident set size as the kernel reports it (Linux only).
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line["VmHWM:".len()..].trim().to_string())
}
