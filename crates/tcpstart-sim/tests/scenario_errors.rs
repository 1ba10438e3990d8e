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
