//! Golden outputs: every scenario in `scenarios/` and the fingerprint cases of
//! `tests/golden/cases.toml` run and compared with the reference committed in
//! `tests/golden/expected/`: the summary, a digest of every trace column and of every pcap.
//!
//! The simulator is deterministic, so any difference is a change of behaviour. When one is
//! intended, regenerate the references and review them (docs/testing.md, "Golden outputs"):
//!
//!     TCPSTART_BLESS=1 cargo test -p tcpstart-sim --test golden    # or: make golden
//!     git diff crates/tcpstart-sim/tests/golden/
//!
//! Digests are SHA-256 of a column's values in row order, each written as fixed little-endian
//! bytes whatever the column's Rust type, so they are the same on every platform and do not
//! change when a column only changes its storage: an integer as 8 bytes (u64, or i64 if
//! negative), a float as the 8 bytes of its IEEE 754 binary64 bits with every NaN as
//! 0x7ff8000000000000, a string as its UTF-8 bytes and a zero byte.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

const BLESS_VAR: &str = "TCPSTART_BLESS";
const REGENERATE: &str = "TCPSTART_BLESS=1 cargo test -p tcpstart-sim --test golden    # or: make golden";
/// A summary list (flows, UDP sources, links) longer than this is stored as its length, its
/// first entries and a digest of all, which keeps the reference of a scenario with thousands of
/// web objects at a few kilobytes.
const LISTED_ENTRIES: usize = 20;
/// The entries of a long list shown: the first flows, the bottleneck links.
const FIRST_ENTRIES: usize = 4;
/// Differences shown per case in a failure message.
const SHOWN_DIFFERENCES: usize = 12;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// From the repository root, as messages name it.
const GOLDEN_DIR: &str = "crates/tcpstart-sim/tests/golden";

fn golden_dir() -> PathBuf {
    root().join(GOLDEN_DIR)
}

/// One scenario to run, with where its reference lives.
struct Case {
    /// `scenarios/<stem>` or `cases/<name>`: also the reference's path under `expected/`.
    name: String,
    scenario: Value,
}

impl Case {
    fn expected_path(&self) -> PathBuf {
        golden_dir().join("expected").join(format!("{}.json", self.name))
    }
}

fn read_toml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes `over` onto `base`: tables merge key by key, anything else is replaced.
fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// Makes a scenario's trace files relative to the current directory, as `tcpstart` does: a
/// scenario file names them relative to itself.
fn resolve_trace_files(scenario: &mut Value, dir: &Path) {
    for key in ["trace", "reverse_trace"] {
        if let Some(Value::String(file)) = scenario.pointer_mut(&format!("/network/{key}")) {
            *file = dir.join(&*file).to_str().expect("a UTF-8 path").to_string();
        }
    }
}

/// Every file in `scenarios/`, then the fingerprint cases, as `cases.toml` defines them.
fn cases() -> Vec<Case> {
    let spec = read_toml(&golden_dir().join("cases.toml"));
    let shorten = spec.get("shorten").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios/ is readable")
        .map(|entry| entry.expect("scenarios/ is readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name").to_string();
        let mut scenario = read_toml(&path);
        resolve_trace_files(&mut scenario, path.parent().expect("a file in scenarios/"));
        if let Some(set) = shorten.get(&stem) {
            merge(&mut scenario, set);
        }
        cases.push(Case { name: format!("scenarios/{stem}"), scenario });
    }
    for case in spec.get("case").and_then(Value::as_array).expect("cases.toml has [[case]] entries") {
        let name = case["name"].as_str().expect("a case has a name");
        let file = case["file"].as_str().expect("a case has a file");
        let mut scenario = read_toml(&root().join(file));
        if let Some(table) = scenario.as_object_mut() {
            table.remove("benchmark");
        }
        if let Some(set) = case.get("set") {
            merge(&mut scenario, set);
        }
        cases.push(Case { name: format!("cases/{name}"), scenario });
    }
    let unknown: Vec<_> =
        shorten.keys().filter(|k| !cases.iter().any(|c| c.name == format!("scenarios/{k}"))).collect();
    assert!(unknown.is_empty(), "cases.toml [shorten] names no file in scenarios/: {unknown:?}");
    cases
}

/// A column's values in the byte form the module docs define.
fn write_value(bytes: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                bytes.extend(u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                bytes.extend(i.to_le_bytes());
            } else {
                bytes.extend(n.as_f64().expect("a number").to_bits().to_le_bytes());
            }
        }
        // serde_json writes a NaN as null.
        Value::Null => bytes.extend(f64::NAN.to_bits().to_le_bytes()),
        Value::String(s) => {
            bytes.extend(s.as_bytes());
            bytes.push(0);
        }
        other => panic!("a trace column holds numbers and strings, not {other}"),
    }
}

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// A trace table as its row count and a digest per column.
fn table_digests(table: &impl Serialize) -> Value {
    let Value::Object(columns) = serde_json::to_value(table).expect("a trace serialises") else {
        panic!("a trace is a record of columns")
    };
    let mut rows = None;
    let mut digests = Map::new();
    for (name, values) in columns {
        let values = values.as_array().expect("a column is a list");
        let n = *rows.get_or_insert(values.len());
        assert_eq!(n, values.len(), "column {name} has {} rows, another {n}", values.len());
        let mut bytes = Vec::with_capacity(8 * values.len());
        values.iter().for_each(|v| write_value(&mut bytes, v));
        digests.insert(name, sha256(&bytes).into());
    }
    json!({ "rows": rows.unwrap_or(0), "columns": digests })
}

/// The summary as summary.json has it, with long lists shortened (see `LISTED_ENTRIES`).
fn summary(value: Value) -> Value {
    let Value::Object(mut fields) = value else { panic!("a summary is a record") };
    for list in fields.values_mut() {
        let long = list.as_array().filter(|items| items.len() > LISTED_ENTRIES);
        if let Some(items) = long {
            let first = &items[..FIRST_ENTRIES];
            *list = json!({ "entries": items.len(), "first": first, "sha256": sha256(list.to_string().as_bytes()) });
        }
    }
    Value::Object(fields)
}

/// Everything the run produced that the reference pins.
fn golden(case: &Case) -> Value {
    let text = case.scenario.to_string();
    let scenario = tcpstart_sim::scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let out = tcpstart_sim::run(scenario);
    let mut golden = json!({
        "summary": summary(out.summary.to_value()),
        "flows": table_digests(&out.flows.table()),
        "queues": table_digests(&out.queues.table()),
    });
    if let Some(packets) = &out.packets {
        golden["packets"] = table_digests(packets);
    }
    if !out.pcaps.is_empty() {
        let pcaps: Map<String, Value> = out
            .pcaps
            .iter()
            .map(|(link, bytes)| (link.clone(), json!({ "bytes": bytes.len(), "sha256": sha256(bytes) })))
            .collect();
        golden["pcaps"] = pcaps.into();
    }
    golden
}

fn render(golden: &Value) -> String {
    serde_json::to_string_pretty(golden).expect("JSON serialises") + "\n"
}

/// Where `expected` and `actual` differ, as `path: expected X, got Y` lines.
fn differences(path: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys().filter(|k| !e.contains_key(*k))).collect();
            keys.sort();
            for key in keys {
                let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                match (e.get(key), a.get(key)) {
                    (Some(e), Some(a)) => differences(&at, e, a, out),
                    (Some(_), None) => out.push(format!("{at}: expected, but not produced")),
                    (None, Some(a)) => out.push(format!("{at}: produced but not expected: {a}")),
                    (None, None) => unreachable!("a key of one side"),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                differences(&format!("{path}[{i}]"), e, a, out);
            }
        }
        (e, a) if e != a => out.push(format!("{path}: expected {e}, got {a}")),
        _ => {}
    }
}

/// Runs the case and compares it with its reference (or, blessing, rewrites the reference);
/// returns what differs.
fn check(case: &Case, bless: bool) -> Option<String> {
    let actual = render(&golden(case));
    let path = case.expected_path();
    // A checkout that turned line ends into CRLF holds the same reference.
    let expected = std::fs::read_to_string(&path).ok().map(|text| text.replace("\r\n", "\n"));
    if expected.as_deref() == Some(actual.as_str()) {
        return None;
    }
    if bless {
        std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("golden folder is writable");
        std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return Some(format!("{}: {}", case.name, if expected.is_some() { "updated" } else { "new" }));
    }
    let Some(expected) = expected else {
        return Some(format!("{}: no reference at {GOLDEN_DIR}/expected/{}.json", case.name, case.name));
    };
    let mut found = Vec::new();
    match serde_json::from_str::<Value>(&expected) {
        // Both texts go through the same parser, so equal values mean equal texts but for layout.
        Ok(e) => differences("", &e, &serde_json::from_str(&actual).expect("own JSON parses"), &mut found),
        Err(e) => found.push(format!("the reference is not JSON: {e}")),
    }
    if found.is_empty() {
        found.push("the reference's text differs (layout or a float's last digit)".into());
    }
    let more = found.len().saturating_sub(SHOWN_DIFFERENCES);
    found.truncate(SHOWN_DIFFERENCES);
    if more > 0 {
        found.push(format!("... and {more} more"));
    }
    Some(format!("{} ({GOLDEN_DIR}/expected/{}.json):\n    {}", case.name, case.name, found.join("\n    ")))
}

/// References with no case: a scenario was removed or renamed.
fn stale_references(cases: &[Case], bless: bool) -> Vec<String> {
    let expected = golden_dir().join("expected");
    let mut stale = Vec::new();
    for group in ["scenarios", "cases"] {
        let Ok(entries) = std::fs::read_dir(expected.join(group)) else { continue };
        for path in entries.map(|e| e.expect("golden folder is readable").path()) {
            let name = format!("{group}/{}", path.file_stem().and_then(|s| s.to_str()).unwrap_or_default());
            if !cases.iter().any(|c| c.name == name) {
                if bless {
                    std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                }
                stale.push(format!(
                    "{GOLDEN_DIR}/expected/{name}.json: no such case{}",
                    if bless { " (removed)" } else { "" }
                ));
            }
        }
    }
    stale
}

#[test]
fn golden_outputs() {
    let bless = std::env::var_os(BLESS_VAR).is_some_and(|v| !v.is_empty() && v != "0");
    let cases = cases();
    // The cases run on all cores: the test's time is that of the slowest few, not their sum.
    let next = AtomicUsize::new(0);
    let reports = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(cases.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Some(report) = check(case, bless) {
                        reports.lock().expect("no worker panicked").push(report);
                    }
                }
            });
        }
    });
    let mut reports = reports.into_inner().expect("no worker panicked");
    reports.sort();
    let stale = stale_references(&cases, bless);
    if bless {
        for report in reports.iter().chain(&stale) {
            eprintln!("golden: {report}");
        }
        eprintln!(
            "golden: {} of {} references written; review them: git diff {GOLDEN_DIR}/",
            reports.len(),
            cases.len()
        );
        return;
    }
    assert!(
        reports.is_empty() && stale.is_empty(),
        "golden outputs: {} of {} cases differ from their references; references without a case: {}.\n  {}\n\n\
         If the change is intended, regenerate the references, review them and say why in the commit:\n  \
         {REGENERATE}\n  git diff {GOLDEN_DIR}/\n",
        reports.len(),
        cases.len(),
        stale.len(),
        reports.iter().chain(&stale).cloned().collect::<Vec<_>>().join("\n  "),
    );
}
