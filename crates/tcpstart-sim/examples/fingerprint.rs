//! Prints everything a run produces in a form `diff` can compare: the summary JSON, then one
//! line per trace column with its length and a hash of its exact bits. Used to check that an
//! optimization changes nothing (docs/performance.md):
//!
//!     cargo run --release -p tcpstart-sim --example fingerprint -- scenario.json > before.txt
//!
//! The scenario is JSON in the same structure as the TOML files (`tcpstart validate` prints one
//! with every default filled in).

use std::hash::Hasher;

/// FNV-1a: stable across Rust versions and platforms, unlike `DefaultHasher`.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn column<T>(name: &str, values: &[T], bits: impl Fn(&T) -> Vec<u8>) {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for v in values {
        h.write(&bits(v));
    }
    println!("{name}: {} rows, fnv {:016x}", values.len(), h.finish());
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: fingerprint SCENARIO.json");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let out = tcpstart_sim::run_json(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    println!("{}", serde_json::to_string_pretty(&out.summary).expect("a summary serialises"));
    let f64s = |v: &f64| v.to_bits().to_le_bytes().to_vec();
    let u64s = |v: &u64| v.to_le_bytes().to_vec();
    let u32s = |v: &u32| v.to_le_bytes().to_vec();
    let strs = |v: &&str| v.as_bytes().to_vec();
    let f = &out.flows;
    column("flows.t", &f.t, f64s);
    column("flows.flow", &f.flow, u32s);
    column("flows.cwnd", &f.cwnd, u64s);
    column("flows.ssthresh", &f.ssthresh, u64s);
    column("flows.inflight", &f.inflight, u64s);
    column("flows.srtt", &f.srtt, f64s);
    column("flows.rtt", &f.rtt, f64s);
    column("flows.pacing_rate", &f.pacing_rate, f64s);
    column("flows.delivered", &f.delivered, u64s);
    column("flows.retransmissions", &f.retransmissions, u64s);
    column("flows.phase", &f.phase, strs);
    let q = &out.queues;
    column("queues.t", &q.t, f64s);
    column("queues.link", &q.link, u32s);
    column("queues.packets", &q.packets, u64s);
    column("queues.bytes", &q.bytes, u64s);
    column("queues.sojourn", &q.sojourn, f64s);
    if let Some(p) = &out.packets {
        column("packets.t", &p.t, f64s);
        column("packets.flow", &p.flow, u32s);
        column("packets.event", &p.event, strs);
        column("packets.seq", &p.seq, u64s);
        column("packets.ack", &p.ack, u64s);
        column("packets.len", &p.len, u32s);
        column("packets.link", &p.link, u32s);
    }
    for (link, bytes) in &out.pcaps {
        column(&format!("pcap.{link}"), bytes, |b: &u8| vec![*b]);
    }
}
