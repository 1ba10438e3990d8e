//! A structure-aware fuzzer of scenario input: scenarios shaped like the real ones (every table
//! and field the core reads), with values drawn from what users get wrong: unit strings with
//! odd numbers and units, NaN and infinity, negative and huge numbers, empty strings, wrong
//! types, unknown fields, tables where lists belong and the other way round.
//!
//! Property: validation returns a scenario or a one-line error naming a field, in the user's
//! terms, and never panics. The trees are TOML values, which, unlike JSON, hold NaN and
//! infinity (as TOML files and Python dicts do); each is also checked through its JSON text, the
//! other way scenarios reach the core.
//!
//! `cargo test` runs a short campaign (`CASES`); a long one, as docs/errors.md records:
//! `PROPTEST_CASES=1000000 cargo test --release -p tcpstart-sim --test fuzz_scenario`.
//!
//! Sizes that pass validation are kept small (counts, sessions, pages, workload means): a valid
//! scenario may stand for millions of flows, and how large a run may be is the run-size limit's
//! business, not validation's; out-of-range sizes are generated as often as any other mistake.

use proptest::prelude::*;
use tcpstart_sim::scenario::{from_json, with_path};
use tcpstart_sim::ScenarioError;
use toml::Value;

/// Short enough for every `cargo test`; PROPTEST_CASES replaces it.
const CASES: u32 = 2000;

/// Fields the generator adds that the core does not know.
const UNKNOWN_FIELDS: [&str; 3] = ["colour", "sesions", "flow"];

/// What a field holds, as the core reads it.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Rate,
    Time,
    Bytes,
    Queue,
    /// An integer field; valid values are drawn up to this bound (and out of range besides).
    Int(i64),
    /// A number; valid values are drawn up to this bound.
    Float(f64),
    Bool,
    Word(&'static [&'static str]),
    Params,
    Times,
    Links,
    Table(&'static [(&'static str, Kind)]),
    List(&'static [(&'static str, Kind)]),
}

const ALGORITHMS: &[&str] = &["newreno", "reno", "cubic", "bbr", "jump-start", "warp", ""];
const DIRECTIONS: &[&str] = &["forward", "reverse", "up", ""];

const AQM: &[(&str, Kind)] = &[
    ("kind", Kind::Word(&["droptail", "red", "codel", "fifo"])),
    ("min_th", Kind::Float(50.0)),
    ("max_th", Kind::Float(100.0)),
    ("weight", Kind::Float(1.0)),
    ("max_p", Kind::Float(1.0)),
    ("gentle", Kind::Bool),
    ("wait", Kind::Bool),
    ("mean_packet_size", Kind::Int(2000)),
    ("target", Kind::Time),
    ("interval", Kind::Time),
];

const ACK_COMPRESSION: &[(&str, Kind)] =
    &[("mode", Kind::Word(&["release", "merge", "hold"])), ("interval", Kind::Time)];

const NETWORK: &[(&str, Kind)] = &[
    ("rate", Kind::Rate),
    ("reverse_rate", Kind::Rate),
    ("rtt", Kind::Time),
    ("delay", Kind::Time),
    ("queue", Kind::Queue),
    ("reverse_queue", Kind::Queue),
    ("loss", Kind::Float(0.1)),
    ("reverse_loss", Kind::Float(0.1)),
    ("access_rate", Kind::Rate),
    ("access_delay", Kind::Time),
    ("access_queue", Kind::Queue),
    ("hosts", Kind::Int(8)),
    ("aqm", Kind::Table(AQM)),
    ("reverse_aqm", Kind::Table(AQM)),
    ("ber", Kind::Float(0.001)),
    ("reverse_ber", Kind::Float(0.001)),
    ("router_pps", Kind::Float(1e6)),
    ("reverse_router_pps", Kind::Float(1e6)),
    ("ack_compression", Kind::Table(ACK_COMPRESSION)),
    ("reverse_ack_compression", Kind::Table(ACK_COMPRESSION)),
];

const TCP: &[(&str, Kind)] = &[
    ("mss", Kind::Int(9000)),
    ("initial_window", Kind::Bytes),
    ("initial_ssthresh", Kind::Bytes),
    ("sack", Kind::Bool),
    ("timestamps", Kind::Bool),
    ("window_scaling", Kind::Bool),
    ("rcv_buf", Kind::Bytes),
    ("delayed_ack", Kind::Bool),
    ("delack_count", Kind::Int(80)),
    ("delack_timeout", Kind::Time),
    ("quickack", Kind::Int(20)),
    ("rto_initial", Kind::Time),
    ("rto_min", Kind::Time),
    ("rto_max", Kind::Time),
    ("clock_granularity", Kind::Time),
    ("clock_tick", Kind::Time),
    ("fast_retransmit", Kind::Bool),
    ("limited_transmit", Kind::Bool),
    ("dupthresh", Kind::Int(2000)),
    ("recovery", Kind::Word(&["rfc6675", "prr", "rate-halving"])),
    ("rto_restart", Kind::Word(&["every_ack", "first_partial_ack", "never"])),
];

const FLOW: &[(&str, Kind)] = &[
    ("algorithm", Kind::Word(ALGORITHMS)),
    ("params", Kind::Params),
    ("size", Kind::Bytes),
    ("start", Kind::Time),
    ("count", Kind::Int(20)),
    ("access_rate", Kind::Rate),
    ("access_delay", Kind::Time),
    ("drop_transmissions", Kind::List(&[])),
    ("tcp", Kind::Table(TCP)),
    ("class", Kind::Word(&["bulk", "", "web"])),
    ("direction", Kind::Word(DIRECTIONS)),
    ("host", Kind::Int(10)),
    ("interval", Kind::Time),
    ("arrivals", Kind::Word(&["periodic", "poisson", "bursty"])),
    ("starts", Kind::Times),
];

const UDP: &[(&str, Kind)] = &[
    ("rate", Kind::Rate),
    ("packet_size", Kind::Int(70_000)),
    ("start", Kind::Time),
    ("stop", Kind::Time),
    ("on", Kind::Time),
    ("off", Kind::Time),
    ("on_off", Kind::Word(&["fixed", "exponential", "pareto"])),
    ("direction", Kind::Word(DIRECTIONS)),
    ("host", Kind::Int(10)),
    ("class", Kind::Word(&["udp", ""])),
    ("count", Kind::Int(5)),
    ("tick", Kind::Time),
];

const WEB: &[(&str, Kind)] = &[
    ("sessions", Kind::Int(5)),
    ("session_interval", Kind::Time),
    ("start", Kind::Time),
    ("pages", Kind::Int(5)),
    ("page_objects_mean", Kind::Float(8.0)),
    ("page_objects_shape", Kind::Float(3.0)),
    ("page_interval", Kind::Time),
    ("object_packets_mean", Kind::Float(8.0)),
    ("object_packets_shape", Kind::Float(3.0)),
    ("object_interval", Kind::Time),
    ("algorithm", Kind::Word(ALGORITHMS)),
    ("params", Kind::Params),
    ("tcp", Kind::Table(TCP)),
    ("direction", Kind::Word(DIRECTIONS)),
    ("host", Kind::Int(10)),
    ("class", Kind::Word(&["web", ""])),
];

const TRACE: &[(&str, Kind)] =
    &[("interval", Kind::Time), ("queue_interval", Kind::Time), ("packets", Kind::Bool), ("pcap", Kind::Links)];

const SCENARIO: &[(&str, Kind)] = &[
    ("seed", Kind::Int(1000)),
    ("duration", Kind::Time),
    ("network", Kind::Table(NETWORK)),
    ("tcp", Kind::Table(TCP)),
    ("algorithm", Kind::Word(ALGORITHMS)),
    ("flows", Kind::List(FLOW)),
    ("udp", Kind::List(UDP)),
    ("web", Kind::List(WEB)),
    ("trace", Kind::Table(TRACE)),
];

fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// Number text as users write it, and as they mistype it.
fn number_text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => (0u32..2000).prop_map(|n| n.to_string()),
        2 => (0.0f64..1000.0).prop_map(|x| format!("{x:.3}")),
        2 => (-5i32..20, 1u32..10).prop_map(|(e, m)| format!("{m}e{e}")),
        3 => prop::sample::select(vec![
            "", "-5", "0", "-0", ".5", "5.", "1e", "1e999", "-1e999", "1e-999", "nan", "NaN", "inf", "-inf",
            "Infinity", "1..2", "1-2", "+-1", "0x10", "1_000", "١", " 7 ", "18446744073709551616",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

/// A string with a unit: a number and one of `units` (or a stray one), spaced or not.
fn unit_string(units: &'static [&'static str]) -> BoxedStrategy<Value> {
    let unit =
        prop_oneof![4 => prop::sample::select(units), 1 => prop::sample::select(&["", "parsecs", "µs", "%", "B"][..])];
    (number_text(), prop::bool::ANY, unit)
        .prop_map(|(n, space, u)| text(format!("{n}{}{u}", if space { " " } else { "" })))
        .boxed()
}

/// A float of any kind: ordinary, tiny, huge, negative, NaN, infinite.
fn any_float() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => -10.0f64..10.0,
        1 => prop::num::f64::ANY,
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e20, -1e20, 5e-324]),
    ]
    .boxed()
}

/// An integer outside every range or at its edges.
fn odd_integer() -> BoxedStrategy<i64> {
    prop::sample::select(vec![-1, 0, i64::MIN, i64::MAX, 1 << 32, (1 << 32) - 1, 100_001, 1_000_000_000]).boxed()
}

/// Any value at all, nested a little: what a field gets when it gets the wrong type.
fn anything() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        any_float().prop_map(Value::Float),
        any::<i64>().prop_map(Value::Integer),
        prop::bool::ANY.prop_map(Value::Boolean),
        ".{0,8}".prop_map(Value::String),
        Just(Value::Datetime("1979-05-27T07:32:00Z".parse().unwrap())),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{0,4}", inner), 0..3).prop_map(|kv| Value::Table(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A value for a field of this kind: mostly of the right type, sometimes anything.
fn value(kind: Kind) -> BoxedStrategy<Value> {
    let right: BoxedStrategy<Value> = match kind {
        Kind::Rate => prop_oneof![
            4 => unit_string(&["bps", "Kbps", "Mbps", "Gbps", "Tbps", "kbps"]),
            1 => any_float().prop_map(Value::Float),
        ]
        .boxed(),
        Kind::Time => prop_oneof![
            4 => unit_string(&["ns", "us", "µs", "ms", "s", "min"]),
            1 => any_float().prop_map(Value::Float),
            1 => (0i64..100).prop_map(Value::Integer),
        ]
        .boxed(),
        Kind::Bytes => prop_oneof![
            4 => unit_string(&["B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "bytes"]),
            1 => prop::sample::select(vec!["unlimited", "inf", "infinite"]).prop_map(text),
            1 => (1i64..100_000).prop_map(Value::Integer),
            1 => any_float().prop_map(Value::Float),
        ]
        .boxed(),
        Kind::Queue => prop_oneof![
            4 => unit_string(&["pkt", "pkts", "packets", "bdp", "BDP", "B", "KB", "KiB"]),
            1 => (0i64..1000).prop_map(Value::Integer),
            1 => any_float().prop_map(Value::Float),
        ]
        .boxed(),
        Kind::Int(max) => prop_oneof![
            6 => (0..=max).prop_map(Value::Integer),
            1 => odd_integer().prop_map(Value::Integer),
            1 => any_float().prop_map(Value::Float),
        ]
        .boxed(),
        Kind::Float(max) => prop_oneof![
            6 => (0.0..=max).prop_map(Value::Float),
            1 => (0..=max as i64).prop_map(Value::Integer),
            1 => any_float().prop_map(Value::Float),
        ]
        .boxed(),
        Kind::Bool => prop::bool::ANY.prop_map(Value::Boolean).boxed(),
        Kind::Word(words) => prop_oneof![
            5 => prop::sample::select(words).prop_map(text),
            1 => ".{0,6}".prop_map(Value::String),
        ]
        .boxed(),
        Kind::Params => prop::collection::vec(
            (prop::sample::select(&["abc", "beta", "c", "hystart", "nope"][..]), value(Kind::Float(4.0))),
            0..3,
        )
        .prop_map(|kv| Value::Table(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
        .boxed(),
        Kind::Times => prop::collection::vec(value(Kind::Time), 0..4).prop_map(Value::Array).boxed(),
        Kind::Links => prop::collection::vec(
            prop::sample::select(
                &["bottleneck", "bottleneck_rev", "sender0_out", "receiver1_in", "sender99_in", ""][..],
            )
            .prop_map(text),
            0..3,
        )
        .prop_map(Value::Array)
        .boxed(),
        Kind::Table(fields) => table(fields),
        Kind::List(&[]) => prop::collection::vec(value(Kind::Int(50)), 0..4).prop_map(Value::Array).boxed(),
        Kind::List(fields) => prop::collection::vec(table(fields), 0..3).prop_map(Value::Array).boxed(),
    };
    prop_oneof![12 => right, 1 => anything()].boxed()
}

/// A table with some of `fields` set, and now and then one the core does not know.
fn table(fields: &'static [(&'static str, Kind)]) -> BoxedStrategy<Value> {
    let entries: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
        .iter()
        .map(|&(name, kind)| prop::option::weighted(0.35, value(kind).prop_map(move |v| (name.to_string(), v))).boxed())
        .collect();
    let unknown = prop::option::weighted(0.03, (prop::sample::select(&UNKNOWN_FIELDS[..]), anything()));
    (entries, unknown)
        .prop_map(|(entries, unknown)| {
            let mut t: toml::Table = entries.into_iter().flatten().collect();
            if let Some((k, v)) = unknown {
                t.insert(k.to_string(), v);
            }
            Value::Table(t)
        })
        .boxed()
}

/// A scenario that mostly has the network and traffic a valid one needs, so that validation
/// gets past its first checks into the fields behind them.
fn scenario() -> BoxedStrategy<Value> {
    let base = || {
        let mut t = toml::Table::new();
        let mut net = toml::Table::new();
        net.insert("rate".into(), text("10Mbps"));
        net.insert("rtt".into(), text("100ms"));
        t.insert("network".into(), Value::Table(net));
        t.insert("duration".into(), text("1s"));
        let mut flow = toml::Table::new();
        flow.insert("size".into(), text("10KB"));
        t.insert("flows".into(), Value::Array(vec![Value::Table(flow)]));
        t
    };
    // A scenario is a table: a TOML file always is, and the Python API and `from_json` refuse
    // anything else before reading it.
    prop_oneof![
        1 => table(SCENARIO),
        4 => table(SCENARIO).prop_map(move |over| {
            let mut t = base();
            // The generated fields replace the base's, and generated network fields join its own.
            if let Value::Table(over) = over {
                for (k, v) in over {
                    match (t.get_mut(&k), v) {
                        (Some(Value::Table(mine)), Value::Table(theirs)) => mine.extend(theirs),
                        (_, v) => {
                            t.insert(k, v);
                        }
                    }
                }
            }
            Value::Table(t)
        }),
    ]
    .boxed()
}

const SERDE_PHRASES: [&str; 9] = [
    "invalid type:",
    "invalid value:",
    "invalid length",
    "expected u32",
    "expected u64",
    "expected f64",
    "expected struct",
    "expected a map",
    "expected value",
];

const TOP_LEVEL: [&str; 9] = ["seed", "duration", "network", "tcp", "algorithm", "flows", "udp", "web", "trace"];

/// An error must be one line that names a field the scenario has (or, for a scenario that is
/// not a table at all, says so), in the user's terms rather than serde's.
fn check_error(e: &ScenarioError) -> Result<(), TestCaseError> {
    let line = e.to_string();
    prop_assert!(!line.contains('\n'), "more than one line: {line}");
    prop_assert!(!e.message.trim().is_empty(), "no message: {line}");
    let first = e.field.split(['.', '[']).next().unwrap_or_default();
    // An unknown field is named in the path and in the message.
    let last = e.field.rsplit(['.', '[']).next().unwrap_or_default();
    let unknown = e.message.starts_with(&format!("unknown field `{last}`"));
    let named = TOP_LEVEL.contains(&first) || unknown;
    let whole =
        e.field.is_empty() && (e.message.starts_with("must be a table") || e.message.starts_with("unknown field"));
    prop_assert!(named || whole, "no field named: {line}");
    // serde's phrases, not words a user's own string may hold ("\u{68f64}" holds "f64").
    for jargon in SERDE_PHRASES {
        prop_assert!(!line.contains(jargon), "serde's words: {line}");
    }
    Ok(())
}

fn check(v: &Value) -> Result<(), TestCaseError> {
    match with_path(v.clone()).and_then(|raw| raw.validate()) {
        // What `tcpstart validate` prints of it.
        Ok(s) => prop_assert!(serde_json::to_string(&s).is_ok()),
        Err(e) => check_error(&e)?,
    }
    // JSON has no NaN or infinity (serde_json writes null), nor TOML's dates (an object).
    if let Ok(json) = serde_json::to_string(v) {
        if let Err(e) = from_json(&json) {
            check_error(&e)?;
        }
    }
    Ok(())
}

fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = CASES;
    }
    c
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn validation_answers_every_scenario_with_a_scenario_or_one_line_naming_a_field(v in scenario()) {
        check(&v)?;
    }
}
