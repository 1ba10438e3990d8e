//! The benchmarks of `tcpstart bench` (issue 7) run natively, without a Python interpreter, so
//! that speed and peak memory are the simulator's own, like for like with ns-3's compiled process:
//!
//!     cargo run --profile release-lto -p tcpstart-sim --example bench -- [B1 B2 B3 B3-iw200 B4]
//!         [--duration 300s] [--flows 100]
//!
//! Default B1. The scenarios are the files `python/tcpstart/benchmarks/<name>.toml` that
//! `tcpstart bench` runs, compiled in: a file is a scenario plus a `[benchmark]` table (its
//! description), which is taken out before the scenario reaches the core. `--duration` replaces
//! each file's simulated duration (B3 has none: it runs until every transfer has finished), for
//! instance to check that peak memory does not grow with simulated time. `--flows` sets the flow
//! count of a benchmark of one bulk flow group (B1, B2, B4): the "100 flows" workload of the
//! instruction counts in perf/journal.md.
//!
//! One benchmark runs in this process. Of several, each runs in a child process of this program
//! (given `--row`: print the row alone), so that each peak RSS is that benchmark's alone. Under
//! callgrind, which does not follow children by default, give one name.
//!
//! Per benchmark it prints what `tcpstart bench` does: the simulated time, the wall time of the
//! run alone (scenario parsing excluded), forward-bottleneck packets and events per wall second,
//! the peak RSS (VmHWM, read after the run, with its output still held), and the trace rows,
//! the part of memory that grows with simulated time.

use std::process::{Command, ExitCode};
use std::time::Instant;

use serde_json::Value;
use tcpstart_sim::scenario::{self, Scenario};

/// The benchmark files, in the issue's order.
const BENCHMARKS: [(&str, &str); 5] = [
    ("B1", include_str!("../../../python/tcpstart/benchmarks/B1.toml")),
    ("B2", include_str!("../../../python/tcpstart/benchmarks/B2.toml")),
    ("B3", include_str!("../../../python/tcpstart/benchmarks/B3.toml")),
    ("B3-iw200", include_str!("../../../python/tcpstart/benchmarks/B3-iw200.toml")),
    ("B4", include_str!("../../../python/tcpstart/benchmarks/B4.toml")),
];

const USAGE: &str = "usage: bench [B1|B2|B3|B3-iw200|B4 ...] [--duration TIME] [--flows N]";

#[derive(Default)]
struct Options {
    names: Vec<String>,
    duration: Option<String>,
    flows: Option<u32>,
    /// Print the benchmark's table row alone: how the parent runs each child.
    row: bool,
}

/// A benchmark ready to run.
struct Bench {
    name: String,
    description: String,
    scenario: Scenario,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    // Every scenario is resolved before anything runs, so that a bad argument is one message
    // at once rather than one from each child.
    let resolved = parse_args(&args).and_then(|opts| {
        let benches = opts.names.iter().map(|n| load(n, &opts)).collect::<Result<Vec<_>, _>>()?;
        Ok((opts, benches))
    });
    let (opts, mut benches) = match resolved {
        Ok(ok) => ok,
        Err(msg) => {
            eprintln!("bench: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !opts.row {
        for b in &benches {
            println!("{:<9} {}", b.name, b.description);
        }
        println!();
        println!(
            "{}",
            row([
                "bench",
                "simulated",
                "wall",
                "bottleneck pkts/s",
                "events/s",
                "peak RSS",
                "trace rows (flow / queue)"
            ])
        );
    }
    if benches.len() == 1 {
        return run_here(benches.remove(0));
    }
    let mut failed = Vec::new();
    for b in &benches {
        if let Err(why) = run_in_child(&b.name, &opts) {
            failed.push(format!("{}: {why}", b.name));
        }
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("bench: failed: {}", failed.join("; "));
        ExitCode::FAILURE
    }
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--duration" => opts.duration = Some(value()?.clone()),
            "--flows" => {
                let v = value()?;
                let n = v.parse().ok().filter(|&n| n >= 1);
                opts.flows = Some(n.ok_or_else(|| format!("--flows takes a whole number of at least 1, got {v:?}"))?);
            }
            "--row" => opts.row = true,
            name if !name.starts_with('-') => opts.names.push(name.to_string()),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    if opts.names.is_empty() {
        opts.names.push(BENCHMARKS[0].0.to_string());
    }
    Ok(opts)
}

/// The named benchmark's scenario from its file, with the options applied, resolved by the core.
fn load(name: &str, opts: &Options) -> Result<Bench, String> {
    let (_, text) = BENCHMARKS.iter().find(|(n, _)| *n == name).ok_or_else(|| {
        let names: Vec<_> = BENCHMARKS.iter().map(|(n, _)| *n).collect();
        format!("unknown benchmark {name:?}; available: {}", names.join(", "))
    })?;
    // The files are part of this program, so a broken one is a bug, not a user error.
    let mut file: serde_json::Map<String, Value> = toml::from_str(text).expect("a benchmark file is valid TOML");
    let meta = file.remove("benchmark").expect("a benchmark file has a [benchmark] table");
    let description = meta["description"].as_str().expect("a benchmark has a description").to_string();
    if let Some(d) = &opts.duration {
        file.insert("duration".into(), d.clone().into());
    }
    if let Some(n) = opts.flows {
        match file.get_mut("flows").and_then(Value::as_array_mut).map(Vec::as_mut_slice) {
            Some([group]) => group["count"] = n.into(),
            _ => return Err(format!("--flows: {name} has more than one group of flows; it applies to B1, B2 and B4")),
        }
    }
    let scenario = scenario::from_json(&Value::Object(file).to_string()).map_err(|e| format!("{name}: {e}"))?;
    Ok(Bench { name: name.to_string(), description, scenario })
}

/// Runs the benchmark in this process and prints its row; failure when an invariant broke.
fn run_here(bench: Bench) -> ExitCode {
    let t = Instant::now();
    let out = tcpstart_sim::run(bench.scenario);
    let wall = t.elapsed().as_secs_f64();

    let s = &out.summary;
    let bottleneck = s.links.iter().find(|l| l.name == "bottleneck").expect("a forward bottleneck link");
    // Read at the very end, with the output still held, so the high-water mark covers the run.
    let rss = peak_rss_kb().map_or("n/a".into(), |kb| format!("{:.1} MB", kb as f64 / 1024.0));
    println!(
        "{}",
        row([
            bench.name.clone(),
            format!("{:.1} s", s.sim.end_time),
            format!("{wall:.3} s"),
            format!("{:.2} M", bottleneck.packets_sent as f64 / wall / 1e6),
            format!("{:.1} M", s.sim.events as f64 / wall / 1e6),
            rss,
            format!("{} / {}", out.flows.rows(), out.queues.rows()),
        ])
    );
    if s.invariants.ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("{}: invariants failed: {:?}", bench.name, s.invariants);
        ExitCode::FAILURE
    }
}

/// Runs one benchmark in a child process of this program, which prints its own row.
fn run_in_child(name: &str, opts: &Options) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.arg(name).arg("--row");
    if let Some(d) = &opts.duration {
        cmd.args(["--duration", d]);
    }
    if let Some(n) = opts.flows {
        cmd.args(["--flows", &n.to_string()]);
    }
    let status = cmd.status().map_err(|e| format!("cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("exited with {status}"))
    }
}

fn row<S: AsRef<str>>(cells: [S; 7]) -> String {
    let [bench, simulated, wall, pkts, events, rss, trace] = cells.each_ref().map(AsRef::as_ref);
    format!("{bench:<9} {simulated:>10} {wall:>9} {pkts:>18} {events:>9} {rss:>9}  {trace}")
}

/// This process's peak resident set size in kB, as the kernel reports it (Linux only).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..].trim().strip_suffix("kB")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn args(a: &[&str]) -> Result<Options, String> {
        parse_args(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn bench(a: &[&str]) -> Result<Bench, String> {
        let opts = args(a)?;
        load(&opts.names[0], &opts)
    }

    #[test]
    fn every_benchmark_file_is_compiled_in() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/tcpstart/benchmarks");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("the benchmark folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut compiled: Vec<_> = BENCHMARKS.iter().map(|(n, _)| n.to_string()).collect();
        compiled.sort();
        assert_eq!(on_disk, compiled);
    }

    #[test]
    fn each_benchmark_resolves_with_its_own_duration_or_a_given_one() {
        // The issue's simulated durations: B1 and B2 30 s, B4 10 s, B3 until done.
        let own = [("B1", Some(30)), ("B2", Some(30)), ("B3", None), ("B3-iw200", None), ("B4", Some(10))];
        for (name, secs) in own {
            assert_eq!(bench(&[name]).unwrap().scenario.duration, secs.map(Duration::from_secs), "{name}");
            let short = bench(&[name, "--duration", "2.5s"]).unwrap();
            assert_eq!(short.scenario.duration, Some(Duration::from_millis(2500)), "{name}");
        }
    }

    #[test]
    fn b1_is_the_issues_scenario() {
        let b = bench(&["B1"]).unwrap();
        let s = &b.scenario;
        assert_eq!((s.network.rate_bps, s.network.delay), (1e9, Duration::from_millis(20)));
        assert_eq!(s.network.queue, scenario::Limit::Packets(1000));
        assert_eq!(s.flows.len(), 10);
        for f in &s.flows {
            assert_eq!((f.algorithm.as_str(), f.size), ("newreno", None));
            assert!(f.tcp.sack && f.tcp.delayed_ack);
            assert_eq!((f.access_rate_bps, f.access_delay), (10e9, Duration::from_millis(1)));
        }
        assert_eq!(b.description, "10 NewReno flows, 1 Gb/s, 20 ms one-way, 1000-packet queue");
    }

    #[test]
    fn b3_is_200_transfers_of_200_packets_a_start_every_50_ms() {
        let s = bench(&["B3"]).unwrap().scenario;
        assert_eq!(s.hosts.len(), 100);
        let mut starts: Vec<_> = s.flows.iter().map(|f| f.start).collect();
        starts.sort();
        assert_eq!(starts, (0..200).map(|k| Duration::from_millis(50 * k)).collect::<Vec<_>>());
        assert!(s.flows.iter().all(|f| f.algorithm == "jump-start" && f.size == Some(200 * 1460)));
    }

    #[test]
    fn flows_sets_the_count_of_a_bulk_benchmark_only() {
        assert_eq!(bench(&["B1", "--flows", "100"]).unwrap().scenario.flows.len(), 100);
        assert_eq!(bench(&["B4", "--flows", "3"]).unwrap().scenario.flows.len(), 3);
        let err = bench(&["B3", "--flows", "3"]).err().unwrap();
        assert!(err.contains("--flows") && err.contains("B3"), "{err}");
    }

    #[test]
    fn bad_arguments_are_clear_messages() {
        assert_eq!(args(&[]).unwrap().names, ["B1"]);
        assert_eq!(args(&["B3", "B1", "--row"]).unwrap().names, ["B3", "B1"]);
        let unknown = bench(&["B9"]).err().unwrap();
        assert!(unknown.contains("\"B9\"") && unknown.contains("B1, B2, B3, B3-iw200, B4"), "{unknown}");
        assert_eq!(args(&["--duration"]).err().unwrap(), "--duration needs a value");
        assert!(args(&["--flows", "0"]).err().unwrap().contains("at least 1"));
        assert!(args(&["--flows", "x"]).err().unwrap().contains("whole number"));
        assert_eq!(args(&["--fast"]).err().unwrap(), "unknown option --fast");
        // The core names the field and the problem.
        let bad = bench(&["B2", "--duration", "soon"]).err().unwrap();
        assert!(bad.starts_with("B2: ") && bad.contains("duration"), "{bad}");
    }
}
