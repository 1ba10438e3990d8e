//! The parking lot's fields: `[[network.hops]]`, a chain of hops between routers, and each
//! flow's and UDP source's `hops`, the consecutive hops it crosses. A hop gives its rate, delay
//! and queue; what it leaves out is the dumbbell's bottleneck's (`network.rate`, `delay`,
//! `queue` and their `reverse_` twins), and every other element of the bottleneck (AQM,
//! losses, forwarding cap, ACK compression) applies to every hop. Elements that belong to one
//! bottleneck (schedules, delivery traces, the Quick-Start router, scripted drops) are refused.

use core::time::Duration;

use super::ranges::{limit, rate, time, MAX_TIME};
use super::{Hop, Network, Quantity, RawNetwork};
use crate::error::ScenarioError;

/// The longest chain: its links' indices and a packet's hop count stay small.
pub const MAX_HOPS: usize = 64;

/// The hops of `network.hops`, resolved against the dumbbell's `net` (which gives what a hop
/// leaves out); empty when there are none. `mtu` sizes a queue given in bandwidth-delay products.
pub(super) fn resolve(
    n: &RawNetwork,
    net: &Network,
    access_delay: Duration,
    mtu: f64,
) -> Result<Vec<Hop>, ScenarioError> {
    if n.hops.is_empty() {
        return Ok(Vec::new());
    }
    if !(2..=MAX_HOPS).contains(&n.hops.len()) {
        return Err(ScenarioError::new(
            "network.hops",
            format!(
                "a parking lot has 2 to {MAX_HOPS} hops, got {} (without network.hops the path is the dumbbell)",
                n.hops.len()
            ),
        ));
    }
    let single = [
        ("network.schedule", !n.schedule.is_empty() || n.schedule_period.is_some()),
        ("network.trace", n.trace.is_some()),
        ("network.reverse_trace", n.reverse_trace.is_some()),
        ("network.quick_start", n.quick_start.is_some()),
    ];
    if let Some((field, _)) = single.iter().find(|(_, set)| *set) {
        return Err(ScenarioError::new(
            *field,
            "not with network.hops: schedules, traces and Quick-Start routers belong to the dumbbell's one bottleneck",
        ));
    }
    let f = |k: usize, name: &str| format!("network.hops[{k}].{name}");
    let delays = (n.hops.iter().enumerate())
        .map(|(k, raw)| match &raw.delay {
            Some(q) => time(&f(k, "delay"), q, Duration::ZERO, MAX_TIME),
            None => Ok(net.delay),
        })
        .collect::<Result<Vec<_>, _>>()?;
    // A queue in bdp is of the hop's forward rate (as the dumbbell's reverse queue is) and the
    // round trip over the whole chain.
    let rtt = 2 * (delays.iter().sum::<Duration>() + 2 * access_delay);
    let one_bdp = Quantity::Text("1bdp".into());
    let mut hops = Vec::with_capacity(n.hops.len());
    for (k, (raw, delay)) in n.hops.iter().zip(delays).enumerate() {
        let rate_bps = match &raw.rate {
            Some(q) => rate(&f(k, "rate"), q, 1e3, 1e13)?,
            None => net.rate_bps,
        };
        let reverse_rate_bps = match raw.reverse_rate.as_ref().or(raw.rate.as_ref()) {
            Some(q) => rate(&f(k, "reverse_rate"), q, 1e3, 1e13)?,
            None => net.reverse_rate_bps,
        };
        let bdp = super::bdp_bytes(rate_bps, rtt);
        let forward = raw.queue.as_ref().or(n.queue.as_ref()).unwrap_or(&one_bdp);
        let queue = limit(&f(k, "queue"), forward, bdp, mtu)?;
        let reverse = raw.reverse_queue.as_ref().or(raw.queue.as_ref()).or(n.reverse_queue.as_ref()).unwrap_or(forward);
        let reverse_queue = limit(&f(k, "reverse_queue"), reverse, bdp, mtu)?;
        hops.push(Hop { rate_bps, reverse_rate_bps, delay, queue, reverse_queue });
    }
    Ok(hops)
}

/// The hops an entry at `at` crosses, from its `hops` list, on a chain of `chain` hops (0 for
/// the dumbbell): first and last, or `None` for every hop.
pub(super) fn span(at: &str, hops: &Option<Vec<u32>>, chain: usize) -> Result<Option<[u32; 2]>, ScenarioError> {
    let Some(list) = hops else { return Ok(None) };
    let field = format!("{at}.hops");
    if chain == 0 {
        return Err(ScenarioError::new(field, "needs network.hops (a parking lot's hops to cross)"));
    }
    let consecutive = list.windows(2).all(|w| w[1] == w[0] + 1);
    match (list.first(), list.last()) {
        (Some(&first), Some(&last)) if consecutive && (last as usize) < chain => Ok(Some([first, last])),
        _ => Err(ScenarioError::new(
            field,
            format!("must list consecutive hops in order, 0 to {} (network.hops), got {list:?}", chain - 1),
        )),
    }
}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use crate::scenario::{from_json, Limit};

    fn error(text: &str) -> String {
        from_json(text).map(|_| ()).unwrap_err().to_string()
    }

    const LOT: &str = r#""network": {"rate": "10Mbps", "reverse_rate": "20Mbps", "delay": "5ms", "access_delay": "1ms",
        "hops": [{}, {"rate": "5Mbps", "delay": "20ms"}, {"reverse_rate": "1Mbps", "queue": "30KB"}]}"#;

    #[test]
    fn a_hop_takes_what_it_leaves_out_from_the_bottleneck() {
        let s =
            from_json(&format!(r#"{{{LOT}, "flows": [{{"size": 1000}}, {{"size": 1000, "hops": [1, 2]}}]}}"#)).unwrap();
        let h = &s.network.hops;
        assert_eq!((h[0].rate_bps, h[0].reverse_rate_bps, h[0].delay), (10e6, 20e6, Duration::from_millis(5)));
        // A hop's rate is both directions' unless it gives a reverse one.
        assert_eq!((h[1].rate_bps, h[1].reverse_rate_bps, h[1].delay), (5e6, 5e6, Duration::from_millis(20)));
        assert_eq!((h[2].rate_bps, h[2].reverse_rate_bps), (10e6, 1e6));
        // 1 bdp of each hop's rate over the whole chain's round trip, 2 x (5 + 20 + 5 + 2) ms, in
        // 1500-byte packets: 10 Mbps x 64 ms = 80000 B = 53.3 packets; 5 Mbps: 26.7.
        assert_eq!((h[0].queue, h[0].reverse_queue), (Limit::Packets(53), Limit::Packets(53)));
        assert_eq!(h[1].queue, Limit::Packets(27));
        assert_eq!((h[2].queue, h[2].reverse_queue), (Limit::Bytes(30_000), Limit::Bytes(30_000)));
        // Each flow's round trip and bandwidth-delay product are of its own hops.
        let (long, short) = (&s.flows[0], &s.flows[1]);
        assert_eq!((long.hops, short.hops), (None, Some([1, 2])));
        assert_eq!(long.base_rtt(&s.network), Duration::from_millis(64));
        assert_eq!(short.base_rtt(&s.network), Duration::from_millis(54));
        assert_eq!(short.bdp(&s.network), (5e6 / 8.0 * 0.054) as u64);
    }

    #[test]
    fn the_dumbbell_is_one_hop_of_its_bottleneck() {
        let s = from_json(r#"{"network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{"size": 1000}]}"#).unwrap();
        assert!(s.network.hops.is_empty());
        let chain = s.network.chain();
        assert_eq!((chain.len(), chain[0].rate_bps, chain[0].delay), (1, 10e6, Duration::from_millis(20)));
        assert_eq!(s.flows[0].bdp(&s.network), 50_000);
    }

    #[test]
    fn bad_chains_and_routes_are_one_line_naming_the_field() {
        let flows = r#""flows": [{"size": 1000}]"#;
        let cases = [
            (
                format!(r#"{{"network": {{"hops": [{{}}]}}, {flows}}}"#),
                "network.hops: a parking lot has 2 to 64 hops, got 1 (without network.hops the path is the dumbbell)",
            ),
            (
                format!(r#"{{"network": {{"hops": [{{}}, {{"rate": "0Mbps"}}]}}, {flows}}}"#),
                "network.hops[1].rate: must be between 1Kbps and 10000Gbps, got 0Mbps",
            ),
            (
                format!(r#"{{"network": {{"hops": [{{"delay": 5}}, {{}}]}}, {flows}}}"#),
                "network.hops[0].delay: give a unit, e.g. \"5ms\" or \"5s\"",
            ),
            (
                format!(r#"{{"network": {{"hops": [{{}}, {{"colour": 1}}]}}, {flows}}}"#),
                "network.hops[1].colour: unknown field `colour`, expected one of `rate`, `reverse_rate`, `delay`, `queue`, `reverse_queue`",
            ),
            (
                format!(r#"{{"network": {{"hops": [{{}}, {{}}], "quick_start": {{}}}}, {flows}}}"#),
                "network.quick_start: not with network.hops: schedules, traces and Quick-Start routers belong to the dumbbell's one bottleneck",
            ),
            (
                r#"{"network": {"hops": [{}, {}]}, "flows": [{"size": 1000, "drop_transmissions": [2]}]}"#.into(),
                "flows[0].drop_transmissions: not with network.hops: scripted drops belong to the dumbbell's one bottleneck",
            ),
            (
                r#"{"flows": [{"size": 1000, "hops": [0]}]}"#.into(),
                "flows[0].hops: needs network.hops (a parking lot's hops to cross)",
            ),
            (
                r#"{"network": {"hops": [{}, {}, {}]}, "flows": [{"size": 1000, "hops": [0, 2]}]}"#.into(),
                "flows[0].hops: must list consecutive hops in order, 0 to 2 (network.hops), got [0, 2]",
            ),
            (
                r#"{"network": {"hops": [{}, {}]}, "udp": [{"stop": "1s", "hops": [2]}]}"#.into(),
                "udp[0].hops: must list consecutive hops in order, 0 to 1 (network.hops), got [2]",
            ),
            (
                r#"{"network": {"hops": [{}, {}]}, "flows": [{"size": 1000, "hops": []}]}"#.into(),
                "flows[0].hops: must list consecutive hops in order, 0 to 1 (network.hops), got []",
            ),
        ];
        for (text, expected) in cases {
            let e = error(&text);
            assert!(e.starts_with(expected), "{text}:\n{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
