//! The bottleneck's time-varying fields: `network.schedule` (changes of rate and delay at given
//! times, once or every `network.schedule_period`) and `network.trace` / `network.reverse_trace`
//! (delivery traces in the mahimahi format, read from files).

use std::sync::Arc;

use core::time::Duration;
use serde::{Deserialize, Serialize};

use super::ranges::{rate, time, MAX_TIME};
use super::{Quantity, RawNetwork};
use crate::delivery_trace::DeliveryTrace;
use crate::error::ScenarioError;
use crate::link_schedule::{Change, Level, Schedule};

/// One `[[network.schedule]]` entry: from `at` on, the bottleneck has this rate and/or this
/// round-trip time (or one-way delay); what it does not give stays as it was.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RawChange {
    pub at: Option<Quantity>,
    pub rate: Option<Quantity>,
    pub rtt: Option<Quantity>,
    pub delay: Option<Quantity>,
}

/// The resolved time-varying fields of the network.
#[derive(Clone, Debug, Default)]
pub struct Variation {
    pub schedule: Option<Arc<Schedule>>,
    pub trace: Option<Arc<DeliveryTrace>>,
    pub reverse_trace: Option<Arc<DeliveryTrace>>,
}

/// Resolves the time-varying fields against the bottleneck's base rate and one-way delay.
/// `access_delay` turns a change's `rtt` into the bottleneck's delay as `network.rtt` is;
/// `mtu` is what one delivery opportunity of a trace carries.
pub(super) fn resolve(
    n: &RawNetwork,
    base: Level,
    access_delay: Duration,
    mtu: u32,
) -> Result<Variation, ScenarioError> {
    let trace = n.trace.as_deref().map(|f| read_trace("network.trace", f, mtu)).transpose()?;
    let reverse_trace = n.reverse_trace.as_deref().map(|f| read_trace("network.reverse_trace", f, mtu)).transpose()?;
    let period_ns = match &n.schedule_period {
        None => None,
        Some(_) if n.schedule.is_empty() => {
            return Err(ScenarioError::new("network.schedule_period", "needs [[network.schedule]] entries to repeat"))
        }
        Some(q) => Some(time("network.schedule_period", q, Duration::from_micros(1), MAX_TIME)?.as_nanos() as u64),
    };
    let mut changes: Vec<Change> = Vec::with_capacity(n.schedule.len());
    for (i, raw) in n.schedule.iter().enumerate() {
        let at_field = format!("network.schedule[{i}].at");
        let at = raw.at.as_ref().ok_or_else(|| ScenarioError::new(&at_field, "is required, e.g. \"10s\""))?;
        let at_ns = time(&at_field, at, Duration::ZERO, MAX_TIME)?.as_nanos() as u64;
        if let Some(before) = changes.last().filter(|c| c.at_ns >= at_ns) {
            return Err(ScenarioError::new(
                &at_field,
                format!("must be later than network.schedule[{}].at ({:?})", i - 1, Duration::from_nanos(before.at_ns)),
            ));
        }
        if let Some(p) = period_ns.filter(|&p| at_ns >= p) {
            return Err(ScenarioError::new(
                &at_field,
                format!("must be before network.schedule_period ({:?}), got {}", Duration::from_nanos(p), at.text()),
            ));
        }
        let mut level = changes.last().map_or(base, |c| c.level);
        let f = |name: &str| format!("network.schedule[{i}].{name}");
        if raw.rate.is_none() && raw.rtt.is_none() && raw.delay.is_none() {
            return Err(ScenarioError::new(format!("network.schedule[{i}]"), "give rate, rtt or delay"));
        }
        if let Some(q) = &raw.rate {
            if n.trace.is_some() {
                return Err(ScenarioError::new(
                    f("rate"),
                    "the bottleneck's rate follows network.trace; a schedule with a trace changes rtt or delay only",
                ));
            }
            level.rate_bps = rate(&f("rate"), q, 1e3, 1e13)?;
        }
        if let Some(d) =
            bottleneck_delay(&format!("network.schedule[{i}]"), raw.rtt.as_ref(), raw.delay.as_ref(), access_delay)?
        {
            level.delay_ns = d.as_nanos() as u64;
        }
        changes.push(Change { at_ns, level });
    }
    let schedule = (!changes.is_empty()).then(|| Arc::new(Schedule { base, changes, period_ns }));
    Ok(Variation { schedule, trace, reverse_trace })
}

/// The bottleneck's one-way delay from `{at}.rtt` (the path's base RTT: both bottleneck
/// directions and the four access links) or `{at}.delay`; `None` when neither is given.
pub(super) fn bottleneck_delay(
    at: &str,
    rtt: Option<&Quantity>,
    delay: Option<&Quantity>,
    access_delay: Duration,
) -> Result<Option<Duration>, ScenarioError> {
    let field = |name: &str| format!("{at}.{name}");
    match (rtt, delay) {
        (Some(_), Some(_)) => Err(ScenarioError::new(field("rtt"), "give either rtt or delay, not both")),
        (Some(q), None) => {
            let rtt = time(&field("rtt"), q, Duration::from_micros(1), MAX_TIME)?;
            (rtt / 2).checked_sub(2 * access_delay).map(Some).ok_or_else(|| {
                ScenarioError::new(
                    field("rtt"),
                    format!("{rtt:?} is shorter than the access links' round trip ({:?})", 4 * access_delay),
                )
            })
        }
        (None, Some(q)) => Ok(Some(time(&field("delay"), q, Duration::ZERO, MAX_TIME)?)),
        (None, None) => Ok(None),
    }
}

fn read_trace(field: &str, file: &str, mtu: u32) -> Result<Arc<DeliveryTrace>, ScenarioError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "not a UTF-8 text file".to_string(),
            _ => crate::error::one_line(&e.to_string()),
        };
        ScenarioError::new(field, format!("cannot read {file:?}: {why}"))
    })?;
    DeliveryTrace::parse(file, &text, mtu).map(Arc::new).map_err(|m| ScenarioError::new(field, format!("{file:?} {m}")))
}
