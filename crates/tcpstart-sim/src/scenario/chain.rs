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
pub(super) fn resolve(n: &RawNetwork, net: &Network, access_delay: Duration, mtu: f64) -> Result<Vec<Hop>, ScenarioError> {
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
    let rtt = 2.0 * (delays.iter().sum::<Duration>() + 2 * access_delay).as_secs_f64();
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
        let bdp = rate_bps / 8.0 * rtt;
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
