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

/// One line per column of a trace: its length and a hash of its values. Columns go through
/// JSON, which writes every float in its shortest exact form, so equal hashes mean equal bits.
fn columns(trace: &str, table: &impl serde::Serialize) {
    let value = serde_json::to_value(table).expect("a trace serialises");
    let columns = value.as_object().expect("a trace is a record of columns");
    for (name, values) in columns {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.write(values.to_string().as_bytes());
        let rows = values.as_array().map_or(0, Vec::len);
        println!("{trace}.{name}: {rows} rows, fnv {:016x}", h.finish());
    }
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
    println!("{}", serde_json::to_string_pretty(&out.summary.to_value()).expect("a summary serialises"));
    columns("flows", &out.flows.table());
    columns("queues", &out.queues.table());
    if let Some(packets) = &out.packets {
        columns("packets", packets);
    }
    for (link, bytes) in &out.pcaps {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.write(bytes);
        println!("pcap.{link}: {} bytes, fnv {:016x}", bytes.len(), h.finish());
    }
}
