//! The one table of fields and defaults (`scenario::defaults::FIELDS`) against the code that
//! reads scenarios: every field of every `Raw*` table has a row and no row names another; a
//! field set to its row's default resolves exactly as the field left out; a resolved scenario
//! written back in user units (`validate`'s output), through TOML text, is the same scenario;
//! docs/scenario-reference.md lists the table (with `TCPSTART_BLESS=1`, `make golden` rewrites
//! it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tcpstart_sim::scenario::defaults::{markdown, Unset, FIELDS};
use tcpstart_sim::scenario::{
    self, parse, Quantity, RawAckCompression, RawAqm, RawChange, RawFlow, RawHop, RawNetwork, RawQuickStart,
    RawScenario, RawUdp, RawWeb,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn names(v: impl serde::Serialize) -> BTreeSet<String> {
    serde_json::to_value(v).unwrap().as_object().unwrap().keys().cloned().collect()
}

#[test]
fn every_field_has_a_row_and_every_row_a_field() {
    let raw = RawScenario::default();
    // The time-varying fields are left out of the text when unset.
    let network = RawNetwork {
        schedule: vec![RawChange::default()],
        schedule_period: Some(Quantity::Number(1.0)),
        trace: Some(String::new()),
        reverse_trace: Some(String::new()),
        hops: vec![RawHop::default()],
        ..RawNetwork::default()
    };
    let tables = [
        ("", names(&raw)),
        ("network", names(&network)),
        ("network.quick_start", names(RawQuickStart::default())),
        ("network.schedule", names(RawChange::default())),
        ("network.hops", names(RawHop::default())),
        ("network.aqm", names(RawAqm::default())),
        ("network.ack_compression", names(RawAckCompression::default())),
        ("tcp", names(&raw.tcp)),
        ("flows", names(RawFlow::default())),
        ("udp", names(RawUdp::default())),
        ("web", names(RawWeb::default())),
        ("trace", names(&raw.trace)),
        ("limits", names(&raw.limits)),
    ];
    for (table, fields) in &tables {
        let rows: BTreeSet<String> = FIELDS.iter().filter(|f| f.table == *table).map(|f| f.name.to_string()).collect();
        assert_eq!(&rows, fields, "the rows of table {table:?} against its Raw struct");
    }
    assert!(FIELDS.iter().all(|f| tables.iter().any(|(t, _)| *t == f.table)));
}

/// The run's scenario of `v`, as JSON text to compare.
fn expanded(v: &Value) -> Result<String, String> {
    let s = scenario::from_json(&v.to_string()).map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&s).unwrap())
}

#[test]
fn a_field_set_to_its_default_resolves_as_the_field_left_out() {
    let base = json!({"flows": [{"size": 1000}], "udp": [{"stop": "1s"}], "web": [{"sessions": 1}]});
    let mut checked = 0;
    // Each default with the tcp.profile it holds for (none: any).
    let cases = FIELDS.iter().flat_map(|f| match f.default {
        Unset::Value(v) => vec![(f, v, None)],
        Unset::Profile { rfc, linux } => vec![(f, rfc, Some("rfc")), (f, linux, Some("linux"))],
        Unset::Rule(_) | Unset::Required => vec![],
    });
    for (f, literal, profile) in cases {
        let value: Value = serde_json::from_str(literal).unwrap_or_else(|e| panic!("{}.{}: {e}", f.table, f.name));
        let mut without = base.clone();
        if let Some(p) = profile {
            without["tcp"] = json!({ "profile": p });
        }
        // Where the field goes, in a scenario that leaves it out.
        let slot: &mut Value = match f.table {
            "" => &mut without,
            "network" | "tcp" | "trace" => &mut without[f.table],
            "network.aqm" => {
                let kind = if f.meaning.starts_with("codel") { "codel" } else { "red" };
                without["network"]["aqm"] = json!({ "kind": kind });
                &mut without["network"]["aqm"]
            }
            "network.quick_start" => &mut without["network"]["quick_start"],
            "flows" | "udp" | "web" => &mut without[f.table][0],
            other => panic!("no place for a field of {other:?} with a default"),
        };
        if slot.is_null() {
            *slot = json!({});
        }
        let mut with = without.clone();
        let slot = match f.table {
            "" => &mut with,
            "network.aqm" => &mut with["network"]["aqm"],
            "network.quick_start" => &mut with["network"]["quick_start"],
            "flows" | "udp" | "web" => &mut with[f.table][0],
            t => &mut with[t],
        };
        if slot.get(f.name).is_some() {
            continue; // the base sets it (web.sessions)
        }
        slot[f.name] = value;
        let without = expanded(&without).unwrap_or_else(|e| panic!("{}.{}: the base fails: {e}", f.table, f.name));
        assert_eq!(expanded(&with), Ok(without), "{}.{} = {literal} (profile {profile:?})", f.table, f.name);
        checked += 1;
    }
    assert!(checked > 60, "only {checked} defaults checked");
}

/// Every scenario of `scenarios/` and of the golden cases, as JSON.
fn scenario_files() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for dir in ["scenarios", "crates/tcpstart-sim/tests/golden"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") && !path.ends_with("cases.toml") {
                let mut v: Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                v.as_object_mut().unwrap().remove("benchmark");
                // A file names its traces relative to itself (as tcpstart reads it).
                for key in ["trace", "reverse_trace"] {
                    if let Some(Value::String(file)) = v.pointer_mut(&format!("/network/{key}")) {
                        *file = path.parent().unwrap().join(&*file).display().to_string();
                    }
                }
                out.push((path.display().to_string(), v));
            }
        }
    }
    assert!(out.len() > 10);
    out
}

#[test]
fn a_resolved_scenario_written_as_toml_reads_back_as_the_same_scenario() {
    let extra = [
        json!({"network": {"hosts": 2, "delay": "10ms", "aqm": {"kind": "codel"}}, "seed": 7,
               "tcp": {"initial_window": "4000B", "mss": 1000, "sack": false},
               "flows": [{"size": "1MB", "starts": ["1s", "1.5s"], "tcp": {"mss": 500}, "host": 1},
                         {"size": 12345, "count": 3, "arrivals": "poisson", "interval": "10ms",
                          "params": {}, "algorithm": "cubic"}],
               "udp": [{"rate": "1.5Mbps", "on": "10ms", "off": "20ms", "on_off": "exponential", "stop": "2s",
                        "tick": "10ms"}],
               "web": [{"sessions": 2, "tcp": {"initial_window": 3}}],
               "trace": {"interval": "0s", "pcap": ["sender1_out"]}}),
        json!({"network": {"rate": 12345678.9, "access_delay": "1ms", "queue": "30KB",
                            "reverse_aqm": {"kind": "red", "min_th": 3}},
               "flows": [{"size": 1000, "access_delay": "3ms", "drop_transmissions": [3, 1]}],
               "limits": {"memory": "1GB"}}),
        json!({"network": {"ack_jitter": "3ms", "quick_start": {"interval": "500ms"}, "access_delay": "1ms",
                            "schedule": [{"at": "1s", "rate": "5Mbps"}, {"at": "2s", "rtt": "50ms"},
                                         {"at": "2.5s", "delay": "7ms", "rate": "7.5Mbps"}],
                            "schedule_period": "4s"},
               "tcp": {"profile": "linux", "rto_min": "300ms"},
               "flows": [{"size": 1000, "tcp": {"profile": "rfc"}}, {"size": 2000}]}),
        json!({"network": {"trace": root().join("scenarios/traces/cellular-stationary.trace").display().to_string(),
                            "schedule": [{"at": "1s", "rtt": "30ms"}]},
               "flows": [{"size": 1000}]}),
        json!({"network": {"rate": "10Mbps", "reverse_rate": "20Mbps", "reverse_queue": "2bdp", "delay": "5ms",
                            "access_delay": "1ms",
                            "hops": [{}, {"rate": "5Mbps", "queue": 30}, {"delay": "20ms", "reverse_queue": "40KB"}]},
               "flows": [{"size": 1000}, {"size": 2000, "hops": [1, 2]}],
               "udp": [{"stop": "1s", "hops": [0], "tick": "2.5ms"}], "trace": {"pcap": ["hop1_rev"]}}),
    ];
    let files = scenario_files();
    let cases = files.iter().cloned().chain(extra.into_iter().map(|v| ("extra".to_string(), v)));
    for (name, v) in cases {
        let resolved = scenario::resolved_json(&v.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = toml::to_string(&resolved).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back: Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(expanded(&back), expanded(&v), "{name}:\n{text}");
        // And the form is a fixed point: the defaults are all there.
        assert_eq!(scenario::resolved_json(&back.to_string()).unwrap(), resolved, "{name}");
    }
}

#[test]
fn the_reference_page_lists_the_fields() {
    let path = root().join("docs/scenario-reference.md");
    let doc = std::fs::read_to_string(&path).expect("docs/scenario-reference.md reads").replace("\r\n", "\n");
    let marker = "<!-- the fields, from crates/tcpstart-sim/src/scenario/defaults.rs (make golden rewrites them) -->\n";
    let start = doc.find(marker).expect("the reference has the marker line") + marker.len();
    let end = doc[start..].find("<!-- end of the fields -->").map(|i| start + i).expect("and the end marker");
    let expected = format!("\n{}", markdown());
    if doc[start..end] == expected {
        return;
    }
    if std::env::var_os("TCPSTART_BLESS").is_some() {
        std::fs::write(&path, format!("{}{expected}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    panic!("docs/scenario-reference.md lists other fields than scenario/defaults.rs; `make golden` rewrites it");
}

#[test]
fn a_bad_value_is_one_line_naming_the_field() {
    let e = parse(r#"{"network": {"loss": NaN}, "flows": [{"size": 1}]}"#).unwrap_err().to_string();
    assert_eq!(e, "network.loss: must be a finite value (0 to 1, 1 excluded), got NaN");
    let e = parse(r#"{"flows": [{"tcp": {"rto_min": Infinity}}]}"#).unwrap_err().to_string();
    assert_eq!(e, "flows[0].tcp.rto_min: must be a finite value (1us to 100000s), got Infinity");
    let e = parse(r#"{"flows": [{"size": 1, "params": {"beta": -Infinity}}]}"#).unwrap_err().to_string();
    assert_eq!(e, "flows[0].params.beta: must be a finite number, got -Infinity");
}
