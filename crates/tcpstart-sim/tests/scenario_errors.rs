//! Bad input is answered with one line naming the field and what is allowed.

use tcpstart_sim::scenario::from_json;

fn error(text: &str) -> String {
    from_json(text).map(|_| ()).unwrap_err().to_string()
}

const NET: &str = r#""network": {"rate": "10Mbps", "rtt": "100ms"}"#;

#[test]
fn unknown_field_is_named_with_its_path() {
    let e =
        error(&format!(r#"{{{NET}, "flows": [{{"algorithm": "reno", "tcp": {{"msss": 1000}}}}], "duration": "1s"}}"#));
    assert!(e.starts_with("flows[0].tcp"), "{e}");
    assert!(e.contains("msss"), "{e}");
}

#[test]
fn unknown_algorithm_lists_the_known_ones() {
    let e = error(&format!(r#"{{{NET}, "flows": [{{"algorithm": "warp"}}], "duration": "1s"}}"#));
    assert!(e.starts_with("flows[0].algorithm:") && e.contains("newreno"), "{e}");
}

#[test]
fn negative_zero_and_malformed_rates_are_refused_with_the_range() {
    for rate in [r#""-5Mbps""#, r#""0Mbps""#, "0", "-1e6"] {
        let e = error(&format!(r#"{{"network": {{"rate": {rate}, "rtt": "100ms"}}, "flows": [{{"size": 1000}}]}}"#));
        assert!(e.starts_with("network.rate: must be between"), "{rate}: {e}");
    }
    let e = error(r#"{"network": {"rate": "10 furlongs", "rtt": "100ms"}, "flows": [{"size": 1000}]}"#);
    assert!(e.starts_with("network.rate: unrecognised unit"), "{e}");
}

#[test]
fn a_queue_of_zero_is_refused() {
    let e = error(r#"{"network": {"rate": "10Mbps", "rtt": "100ms", "queue": 0}, "flows": [{"size": 1000}]}"#);
    assert!(e.starts_with("network.queue:"), "{e}");
}

#[test]
fn times_need_units_and_unlimited_flows_need_a_duration() {
    let e = error(r#"{"network": {"rate": "10Mbps", "rtt": 100}, "flows": [{"size": 1000}]}"#);
    assert!(e.starts_with("network.rtt: give a unit"), "{e}");
    let e = error(&format!(r#"{{{NET}, "flows": [{{"algorithm": "reno"}}]}}"#));
    assert!(e.starts_with("duration: is required"), "{e}");
}

#[test]
fn parameter_out_of_range_names_parameter_and_range() {
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1000, "params": {{"abc": -1}}}}]}}"#));
    assert_eq!(e, "flows[0].params.abc: must be an integer in [0, 64], got -1");
}

#[test]
fn pcap_of_an_unknown_link_is_refused() {
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1000}}], "trace": {{"pcap": ["core"]}}}}"#));
    assert!(e.starts_with("trace.pcap[0]: unknown link"), "{e}");
}

#[test]
fn a_quantity_of_the_wrong_type_says_what_is_expected() {
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": true}}]}}"#));
    assert_eq!(e, "flows[0].size: must be a number or a string with a unit, got true");
    let e = error(r#"{"network": {"rate": [1], "rtt": "100ms"}, "flows": [{"size": 1000}]}"#);
    assert_eq!(e, "network.rate: must be a number or a string with a unit, got a list");
}

#[test]
fn trace_interval_below_a_microsecond_is_refused_but_zero_is_allowed() {
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1000}}], "trace": {{"queue_interval": "500ns"}}}}"#));
    assert_eq!(e, "trace.queue_interval: must be 0s (a row at every change) or at least 1us, got 500ns");
    let ok =
        format!(r#"{{{NET}, "flows": [{{"size": 1000}}], "trace": {{"interval": "0s", "queue_interval": "1us"}}}}"#);
    assert!(from_json(&ok).is_ok());
}

/// The first line of the error for a scenario with the given extra top-level fields.
fn traffic_error(extra: &str) -> String {
    error(&format!(r#"{{"network": {{"rate": "10Mbps", "rtt": "100ms", "hosts": 4}}, "duration": "1s", {extra}}}"#))
}

#[test]
fn udp_sources_are_checked() {
    let cases = [
        (r#""udp": [{"rate": "0bps"}]"#, "udp[0].rate: must be between 1Kbps and 10000Gbps"),
        (r#""udp": [{"rate": "1Mbps", "on": "1s"}]"#, "udp[0].off: is required when on is given"),
        (r#""udp": [{"rate": "1Mbps", "on_off": "fixed"}]"#, "udp[0].on_off: needs the mean durations"),
        (
            r#""udp": [{"rate": "1Mbps", "on": "1s", "off": "1s", "on_off": "pareto"}]"#,
            "udp[0].on_off: must be \"fixed\" or \"exponential\", got \"pareto\"",
        ),
        (r#""udp": [{"rate": "1Mbps", "start": "2s", "stop": "1s"}]"#, "udp[0].stop: must be between"),
        (r#""udp": [{"rate": "1Mbps", "packet_size": 70000}]"#, "udp[0].packet_size: must be between 1 and 65507"),
        (r#""udp": [{"rate": "1Mbps", "direction": "up"}]"#, "udp[0].direction: must be \"forward\" or \"reverse\""),
        (r#""udp": [{"rate": "1Mbps", "host": 4}]"#, "udp[0].host: must be between 0 and 3, got 4"),
        (r#""udp": [{"rate": "1Mbps", "tick": "0s"}]"#, "udp[0].tick: must be between 1µs and 1s, got 0s"),
        (r#""udp": [{"rate": "1Mbps", "tick": "2s"}]"#, "udp[0].tick: must be between 1µs and 1s, got 2s"),
        (r#""udp": [{"rate": "1Mbps", "tick": 10}]"#, "udp[0].tick: give a unit"),
    ];
    for (extra, expected) in cases {
        let e = traffic_error(extra);
        assert!(e.starts_with(expected), "{extra}: {e}");
    }
    let e = error(&format!(r#"{{{NET}, "udp": [{{"rate": "1Mbps"}}]}}"#));
    assert_eq!(e, "duration: is required because udp[0] has no stop time");
}

#[test]
fn recovery_options_name_the_allowed_values() {
    let e = error(&format!(r#"{{{NET}, "tcp": {{"recovery": "rate-halving"}}, "flows": [{{"size": 1}}]}}"#));
    assert_eq!(e, r#"tcp.recovery: must be "rfc6675" or "prr", got "rate-halving""#);
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1, "tcp": {{"rto_restart": "never"}}}}]}}"#));
    assert_eq!(e, r#"flows[0].tcp.rto_restart: must be "every_ack" or "first_partial_ack", got "never""#);
}

#[test]
fn hosts_directions_and_schedules_are_checked() {
    let cases = [
        (r#""flows": [{"direction": "sideways"}]"#, "flows[0].direction: must be \"forward\" or \"reverse\""),
        (r#""flows": [{"host": 9}]"#, "flows[0].host: must be between 0 and 3, got 9"),
        (r#""flows": [{"access_delay": "5ms"}]"#, "flows[0].access_rate: per-flow access links"),
        (r#""flows": [{"starts": ["1s"], "count": 2}]"#, "flows[0].starts: give either starts or count, not both"),
        (r#""flows": [{"starts": []}]"#, "flows[0].starts: must list between 1 and 100000"),
        (r#""flows": [{"starts": ["1s", 2]}]"#, "flows[0].starts[1]: give a unit"),
        (r#""flows": [{"count": 3, "arrivals": "bursty"}]"#, "flows[0].arrivals: must be \"periodic\" or \"poisson\""),
        (
            r#""flows": [{"count": 3, "arrivals": "poisson"}]"#,
            "flows[0].interval: Poisson arrivals need a mean interval above 0",
        ),
        (r#""flows": [{"algorithm": "warp"}]"#, "flows[0].algorithm:"),
        (r#""algorithm": "warp", "flows": [{}]"#, "algorithm:"),
    ];
    for (extra, expected) in cases {
        let e = traffic_error(extra);
        assert!(e.starts_with(expected), "{extra}: {e}");
    }
    let e = error(r#"{"network": {"rate": "10Mbps", "rtt": "100ms", "hosts": 0}, "flows": [{"size": 1}]}"#);
    assert!(e.starts_with("network.hosts: must be between 1 and 10000, got 0"), "{e}");
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1, "host": 0}}]}}"#));
    assert!(e.starts_with("flows[0].host: needs network.hosts"), "{e}");
    let e = error(&format!(r#"{{{NET}}}"#));
    assert_eq!(e, "flows: at least one flow, web workload or UDP source is required");
}

#[test]
fn web_workloads_are_checked() {
    let cases = [
        (r#""web": [{"sessions": 0}]"#, "web[0].sessions: must be between 1 and 100000, got 0"),
        (r#""web": [{"page_objects_shape": 1.0}]"#, "web[0].page_objects_shape: must be more than 1"),
        (r#""web": [{"object_packets_mean": -4}]"#, "web[0].object_packets_mean: must be between"),
        (r#""web": [{"page_interval": 5}]"#, "web[0].page_interval: give a unit"),
        (r#""web": [{"sessions": 1000, "pages": 10000}]"#, "web[0].pages: sessions x pages must be at most 1000000"),
        (r#""web": [{"algorithm": "warp"}]"#, "web[0].algorithm:"),
        (r#""web": [{"params": {"abc": 99}}]"#, "web[0].params.abc:"),
        (r#""web": [{"tcp": {"mss": 1}}]"#, "web[0].tcp.mss:"),
        (r#""web": [{"sesions": 3}]"#, "web[0].sesions: unknown field `sesions`"),
    ];
    for (extra, expected) in cases {
        let e = traffic_error(extra);
        assert!(e.starts_with(expected), "{extra}: {e}");
    }
}

#[test]
fn a_default_out_of_range_is_named_as_written() {
    // rto_max defaults to 60 s, below an rto_min of 100 s: the default is checked like a value given.
    let e = error(&format!(r#"{{{NET}, "tcp": {{"rto_min": "100s"}}, "flows": [{{"size": 1000}}]}}"#));
    assert_eq!(e, "tcp.rto_max: must be between 100s and 100000s, got 60s");
    let e = error(&format!(r#"{{{NET}, "flows": [{{"size": 1000, "tcp": {{"rto_min": "100s"}}}}]}}"#));
    assert_eq!(e, "flows[0].tcp.rto_max: must be between 100s and 100000s, got 60s");
}

/// The error for a scenario written in TOML, which, unlike JSON, can hold NaN and infinity.
fn toml_error(text: &str) -> String {
    let value: toml::Value = toml::from_str(text).unwrap();
    match tcpstart_sim::scenario::with_path(value) {
        Ok(raw) => raw.validate().map(|_| ()).unwrap_err().to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn nan_and_infinity_are_named_with_the_range() {
    let net = "[network]\nrate = \"10Mbps\"\nrtt = \"100ms\"\n";
    let flow = "[[flows]]\nsize = 1000\n";
    let cases = [
        ("[network]\nrate = nan\nrtt = \"100ms\"\n[[flows]]\nsize = 1\n", "network.rate: must be between 1Kbps and 10000Gbps, got NaN"),
        ("[network]\nrate = inf\nrtt = \"100ms\"\n[[flows]]\nsize = 1\n", "network.rate: must be between 1Kbps and 10000Gbps, got inf"),
        ("[network]\nrate = \"10Mbps\"\nrtt = nan\n[[flows]]\nsize = 1\n", "network.rtt: must be a time with a unit between 1µs and 100000s, got NaN"),
        (&format!("{net}loss = nan\n{flow}"), "network.loss: must be a probability in [0, 1), got NaN"),
        (&format!("{net}queue = -inf\n{flow}"), "network.queue: must hold a whole number of packets between 1 and 1e9, got -inf"),
        (&format!("{net}router_pps = inf\n{flow}"), "network.router_pps: must be between 1 and 1e9 packets per second, got inf"),
        (&format!("{net}aqm = {{ kind = \"red\", min_th = nan }}\n{flow}"), "network.aqm.min_th: must be between 0 and 1000000000, got NaN"),
        (&format!("{net}[tcp]\ninitial_ssthresh = nan\n{flow}"), "tcp.initial_ssthresh: must be between 2 and 1000000000, got NaN"),
        (&format!("{net}[tcp]\ninitial_window = nan\n{flow}"), "tcp.initial_window: must be between 1 and 100000, got NaN"),
        (&format!("{net}{flow}params = {{ abc = nan }}\n"), "flows[0].params.abc: must be an integer in [0, 64], got NaN"),
        (&format!("{net}{flow}size = inf\n").replace("size = 1000\n", ""), "flows[0].size: must be between 1 and 1000000000000000 bytes, got inf"),
        (&format!("{net}[[web]]\npage_objects_mean = nan\n"), "web[0].page_objects_mean: must be between 0.001 and 1000000, got NaN"),
        (&format!("{net}[[web]]\nobject_packets_shape = inf\n"), "web[0].object_packets_shape: must be more than 1 (the mean is infinite otherwise) and at most 100, got inf"),
        (&format!("seed = nan\n{net}{flow}"), "seed: must be a whole number from 0 to 18446744073709551615, got NaN"),
        (&format!("seed = 1e20\n{net}{flow}"), "seed: must be a whole number from 0 to 18446744073709551615, got 100000000000000000000.0"),
    ];
    for (text, expected) in cases {
        assert_eq!(toml_error(text), expected, "{text}");
    }
}

#[test]
fn unit_strings_take_exponents_and_name_overflow_with_the_range() {
    let ok = r#"{"network": {"rate": "1e7bps", "rtt": "1e2ms", "queue": "1e2"}, "flows": [{"size": "1e3KB"}]}"#;
    let s = from_json(ok).unwrap();
    assert_eq!((s.network.rate_bps, s.flows[0].size), (1e7, Some(1_000_000)));
    let e = error(r#"{"network": {"rate": "1e3Mbps", "rtt": "1e999s"}, "flows": [{"size": 1}]}"#);
    assert_eq!(e, "network.rtt: must be between 1µs and 100000s, got 1e999s");
    let e = error(r#"{"network": {"rate": "1e999Mbps", "rtt": "1ms"}, "flows": [{"size": 1}]}"#);
    assert_eq!(e, "network.rate: must be between 1Kbps and 10000Gbps, got 1e999Mbps");
    let e = error(r#"{"network": {"rate": "nan", "rtt": "1ms"}, "flows": [{"size": 1}]}"#);
    assert_eq!(e, "network.rate: must be between 1Kbps and 10000Gbps, got nan");
    let e = error(r#"{"network": {"rate": "1Mbps", "rtt": "inf ms"}, "flows": [{"size": 1}]}"#);
    assert_eq!(e, "network.rtt: must be between 1µs and 100000s, got inf ms");
    let e = error(r#"{"network": {"rate": "1Mbps", "rtt": "1ms", "queue": "-Infinity"}, "flows": [{"size": 1}]}"#);
    assert_eq!(e, "network.queue: must hold a whole number of packets between 1 and 1e9, got -inf");
}

#[test]
fn wrong_types_say_what_is_expected_in_the_users_terms() {
    let cases = [
        (r#"{"seed": -1}"#, "seed: must be a whole number from 0 to 18446744073709551615, got -1"),
        (r#"{"seed": 1.5}"#, "seed: must be a whole number from 0 to 18446744073709551615, got 1.5"),
        (r#"{"seed": "x"}"#, r#"seed: must be a whole number from 0 to 18446744073709551615, got "x""#),
        (r#"{"network": "x"}"#, r#"network: must be a table, got "x""#),
        (
            r#"{"network": {"rate": "1Mbps", "rtt": "1ms", "hosts": 5000000000}}"#,
            "network.hosts: must be a whole number from 0 to 4294967295, got 5000000000",
        ),
        (
            r#"{"network": {"rate": "1Mbps", "rtt": "1ms", "loss": "1%"}}"#,
            r#"network.loss: must be a number, got "1%""#,
        ),
        (r#"{"network": {"rate": "1Mbps", "rtt": "1ms"}, "flows": {}}"#, "flows: must be a list, got a table"),
        (r#"{"network": {"rate": "1Mbps", "rtt": "1ms"}, "flows": [[]]}"#, "flows[0]: must be a table, got a list"),
        (
            r#"{"network": {"rate": "1Mbps", "rtt": "1ms"}, "tcp": {"sack": 1}}"#,
            "tcp.sack: must be true or false, got 1",
        ),
        (
            r#"{"network": {"rate": "1Mbps", "rtt": "1ms"}, "trace": {"pcap": "bottleneck"}}"#,
            r#"trace.pcap: must be a list, got "bottleneck""#,
        ),
        // Every network field has a default (docs/scenario-reference.md): the workload is what is missing.
        (r#"{"flows": []}"#, "flows: at least one flow, web workload or UDP source is required"),
        (r#"[]"#, "a scenario must be a table, got a list"),
        (r#" [0.0]"#, "a scenario must be a table, got a list"),
        (r#"{"network": ["1Mbps"]}"#, "network: must be a table, got a list"),
    ];
    for (text, expected) in cases {
        assert_eq!(error(text), expected, "{text}");
    }
}
