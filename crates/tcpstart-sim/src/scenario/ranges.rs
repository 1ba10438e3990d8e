//! Units and ranges: a field's value, written as the user wrote it, as the typed value the
//! simulation takes, or a one-line error naming the field and its allowed range.

use core::time::Duration;
use std::fmt::Display;

use super::{Limit, Quantity};
use crate::error::ScenarioError;
use crate::packet::Direction;
use crate::units::{parse_bytes, parse_queue, parse_rate, parse_time, QueueLimit};

pub(crate) fn rate(field: &(impl Display + ?Sized), q: &Quantity, min: f64, max: f64) -> Result<f64, ScenarioError> {
    let v = match q {
        Quantity::Number(n) => *n,
        Quantity::Text(t) => parse_rate(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(
            field,
            format!("must be between {} and {}, got {}", fmt_rate(min), fmt_rate(max), q.text()),
        ));
    }
    Ok(v)
}

pub(crate) fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{}Gbps", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{}Mbps", bps / 1e6)
    } else if bps >= 1e3 {
        format!("{}Kbps", bps / 1e3)
    } else {
        format!("{bps}bps")
    }
}

pub(crate) fn time(
    field: &(impl Display + ?Sized),
    q: &Quantity,
    min: Duration,
    max: Duration,
) -> Result<Duration, ScenarioError> {
    let d = match q {
        Quantity::Number(n) if !n.is_finite() => {
            return Err(ScenarioError::new(
                field,
                format!("must be a time with a unit between {min:?} and {max:?}, got {}", q.text()),
            ))
        }
        Quantity::Number(_) => {
            return Err(ScenarioError::new(field, format!("give a unit, e.g. \"{}ms\" or \"{}s\"", q.text(), q.text())))
        }
        Quantity::Text(t) => parse_time(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    time_within(field, d, &q.text(), min, max)
}

/// `d`, written `given`, if it lies in [min, max].
pub(crate) fn time_within(
    field: &(impl Display + ?Sized),
    d: Duration,
    given: &str,
    min: Duration,
    max: Duration,
) -> Result<Duration, ScenarioError> {
    if d < min || d > max {
        return Err(ScenarioError::new(field, format!("must be between {min:?} and {max:?}, got {given}")));
    }
    Ok(d)
}

pub(crate) fn bytes(field: &(impl Display + ?Sized), q: &Quantity, min: f64, max: f64) -> Result<u64, ScenarioError> {
    let v = match q {
        Quantity::Number(n) => *n,
        Quantity::Text(t) => parse_bytes(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(field, format!("must be between {min} and {max} bytes, got {}", q.text())));
    }
    Ok(v.round() as u64)
}

pub(crate) fn fraction(field: &str, v: f64) -> Result<f64, ScenarioError> {
    if !(0.0..1.0).contains(&v) {
        return Err(ScenarioError::new(field, format!("must be a probability in [0, 1), got {v}")));
    }
    Ok(v)
}

pub(crate) fn in_range<T: PartialOrd + Display + Copy>(
    field: &(impl Display + ?Sized),
    v: T,
    min: T,
    max: T,
) -> Result<T, ScenarioError> {
    // Written so that NaN, which compares false with everything, is outside every range.
    if !(v >= min && v <= max) {
        return Err(ScenarioError::new(field, format!("must be between {min} and {max}, got {v}")));
    }
    Ok(v)
}

/// The longest receiver processing jitter: longer would be an outage, not jitter.
pub(crate) const MAX_ACK_JITTER: Duration = Duration::from_secs(1);
pub(crate) const MAX_TIME: Duration = Duration::from_secs(100_000);
/// The coarsest UDP sender clock: a 1 Hz kernel; coarser would be a schedule, not a timer.
pub(crate) const MAX_TICK: Duration = Duration::from_secs(1);
/// Flows one `[[flows]]` entry (`count` or `starts`) or `[[udp]]` entry stands for.
pub(crate) const MAX_FLOWS_PER_ENTRY: u32 = 100_000;

/// Samples per flow and per link that the default trace interval allows over a run's duration.
pub const DEFAULT_TRACE_SAMPLES: u32 = 10_000;

/// 1 ms, or a tenth of a thousandth of the duration when that is longer: a run's time series then
/// hold at most about [`DEFAULT_TRACE_SAMPLES`] rows per flow and link however long it runs, so
/// memory does not grow with simulated time. Runs without a duration end with their transfers.
pub(crate) fn default_trace_interval(duration: Option<Duration>) -> Duration {
    let by_duration = duration.map_or(Duration::ZERO, |d| d / DEFAULT_TRACE_SAMPLES);
    by_duration.max(Duration::from_millis(1))
}

/// A time-series grid step: 0 (a row at every change) or at least 1 us, below which the grid
/// would hold more rows than any run can use.
pub(crate) fn trace_interval(field: &str, q: &Option<Quantity>, default: Duration) -> Result<Duration, ScenarioError> {
    let Some(q) = q else { return Ok(default) };
    let d = time(field, q, Duration::ZERO, MAX_TIME)?;
    if !d.is_zero() && d < Duration::from_micros(1) {
        return Err(ScenarioError::new(
            field,
            format!("must be 0s (a row at every change) or at least 1us, got {}", q.text()),
        ));
    }
    Ok(d)
}

pub(crate) fn limit(field: &str, q: &Quantity, bdp_bytes: f64, mtu: f64) -> Result<Limit, ScenarioError> {
    let parsed = match q {
        Quantity::Number(n) => QueueLimit::Packets(*n),
        Quantity::Text(t) => parse_queue(t).map_err(|m| ScenarioError::new(field, m))?,
    };
    let out = match parsed {
        QueueLimit::Packets(p) if p >= 1.0 && p.fract() == 0.0 && p <= 1e9 => Limit::Packets(p as u64),
        QueueLimit::Packets(p) => {
            return Err(ScenarioError::new(
                field,
                format!("must hold a whole number of packets between 1 and 1e9, got {p}"),
            ))
        }
        QueueLimit::Bytes(b) if b >= mtu && b <= 1e13 => Limit::Bytes(b as u64),
        QueueLimit::Bytes(b) => {
            return Err(ScenarioError::new(
                field,
                format!("must hold at least one packet ({mtu} bytes), got {b} bytes"),
            ))
        }
        QueueLimit::Bdp(x) if x > 0.0 && x <= 1e4 => Limit::Packets(((x * bdp_bytes / mtu).round() as u64).max(1)),
        QueueLimit::Bdp(x) => {
            return Err(ScenarioError::new(field, format!("must be more than 0 and at most 1e4 BDP, got {x}")))
        }
    };
    Ok(out)
}

pub(crate) fn direction(field: &str, raw: &Option<String>) -> Result<Direction, ScenarioError> {
    match raw.as_deref() {
        None => Ok(Direction::Forward),
        Some(d) => Direction::parse(d)
            .ok_or_else(|| ScenarioError::new(field, format!("must be {}, got {d:?}", Direction::NAMES))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_trace_interval_keeps_the_sample_count_bounded() {
        assert_eq!(default_trace_interval(None), Duration::from_millis(1));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(5))), Duration::from_millis(1));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(30))), Duration::from_millis(3));
        assert_eq!(default_trace_interval(Some(Duration::from_secs(300))), Duration::from_millis(30));
    }
}
