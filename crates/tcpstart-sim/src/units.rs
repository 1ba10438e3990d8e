//! Human unit strings: rates ("20Mbps"), times ("200ms"), sizes ("1MB", "64KiB"), and queue
//! limits that may also be given in packets ("100pkt") or bandwidth-delay products ("1bdp").
//! Decimal prefixes are powers of 1000 (networking convention), binary ones (KiB) of 1024.

use core::time::Duration;

/// The length of the number at the start of `t`: an optional sign, digits with at most one
/// decimal point, and an exponent (`e6`, `E-3`) when digits follow the `e`, so "1e6bps" is
/// 1e6 bps while the "e" of a unit is never taken for an exponent. "nan", "inf" and "infinity"
/// are numbers too, for the field's range check to name them.
fn number_len(t: &str) -> usize {
    let b = t.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = if matches!(b.first(), Some(b'+' | b'-')) { 1 } else { 0 };
    let word = |w: &str| b.len() >= end + w.len() && b[end..end + w.len()].eq_ignore_ascii_case(w.as_bytes());
    if let Some(w) = ["infinity", "inf", "nan"].into_iter().find(|w| word(w)) {
        return end + w.len();
    }
    end = digits(end);
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exponent_end = digits(end + 1 + sign);
        if exponent_end > end + 1 + sign {
            end = exponent_end;
        }
    }
    end
}

/// Splits "12.5Mbps" into (12.5, "Mbps"). A number too large for a float is infinite here, and
/// the field's range check then names the range it is outside.
fn split_number(text: &str) -> Result<(f64, &str), String> {
    let t = text.trim();
    let (num, unit) = t.split_at(number_len(t));
    let value: f64 = num.parse().map_err(|_| format!("expected a number followed by a unit, got {text:?}"))?;
    Ok((value, unit.trim()))
}

fn unit_error(text: &str, allowed: &str) -> String {
    format!("unrecognised unit in {text:?}; use one of {allowed}")
}

/// A rate in bits per second.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let (v, unit) = split_number(text)?;
    if !v.is_finite() {
        return Ok(v);
    }
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bps" => 1.0,
        "kbps" => 1e3,
        "mbps" => 1e6,
        "gbps" => 1e9,
        "tbps" => 1e12,
        _ => return Err(unit_error(text, "bps, Kbps, Mbps, Gbps, Tbps")),
    };
    Ok(v * scale)
}

/// A duration; a bare number is rejected because seconds vs milliseconds is a classic mistake.
/// NaN and infinity are the longest duration, beyond every field's range.
pub fn parse_time(text: &str) -> Result<Duration, String> {
    let (v, unit) = split_number(text)?;
    if !v.is_finite() {
        return Ok(Duration::MAX);
    }
    let scale_ns = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return Err(unit_error(text, "ns, us, ms, s, min")),
    };
    if v < 0.0 {
        return Err(format!("{text:?} is negative"));
    }
    Ok(Duration::from_nanos((v * scale_ns).round() as u64))
}

/// A size in bytes.
pub fn parse_bytes(text: &str) -> Result<f64, String> {
    let (v, unit) = split_number(text)?;
    if !v.is_finite() {
        return Ok(v);
    }
    let scale = size_scale(unit).ok_or_else(|| unit_error(text, "B, KB, MB, GB, KiB, MiB, GiB"))?;
    Ok(v * scale)
}

fn size_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "B" | "b" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// A queue limit as written by the user, before the path's BDP is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(f64),
    Bytes(f64),
    Bdp(f64),
}

pub fn parse_queue(text: &str) -> Result<QueueLimit, String> {
    let (v, unit) = split_number(text)?;
    if !v.is_finite() {
        return Ok(QueueLimit::Packets(v));
    }
    match unit {
        "" | "pkt" | "pkts" | "packets" | "p" => Ok(QueueLimit::Packets(v)),
        "bdp" | "BDP" => Ok(QueueLimit::Bdp(v)),
        other => size_scale(other)
            .map(|s| QueueLimit::Bytes(v * s))
            .ok_or_else(|| unit_error(text, "pkt, bdp, B, KB, MB, KiB, MiB")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("20Mbps").unwrap(), 20e6);
        assert_eq!(parse_rate("1.544 Mbps").unwrap(), 1.544e6);
        assert_eq!(parse_rate("10gbps").unwrap(), 10e9);
        assert!(parse_rate("20MB").unwrap_err().contains("Mbps"));
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn numbers_with_exponents() {
        assert_eq!(parse_rate("1e6bps").unwrap(), 1e6);
        assert_eq!(parse_rate("1e3Mbps").unwrap(), 1e9);
        assert_eq!(parse_rate("2.5E-1 Gbps").unwrap(), 0.25e9);
        assert_eq!(parse_rate("1e+2Kbps").unwrap(), 1e5);
        assert_eq!(parse_time("1e-3s").unwrap(), Duration::from_millis(1));
        assert_eq!(parse_bytes("1.5e6B").unwrap(), 1.5e6);
        assert_eq!(parse_queue("1e2").unwrap(), QueueLimit::Packets(100.0));
        assert_eq!(parse_queue("2e0bdp").unwrap(), QueueLimit::Bdp(2.0));
        // An "e" without digits after it starts the unit.
        assert!(parse_rate("1ebps").unwrap_err().contains("unrecognised unit"));
        // Beyond a float: infinite, for the range check to refuse.
        assert_eq!(parse_rate("1e999bps").unwrap(), f64::INFINITY);
    }

    #[test]
    fn malformed_numbers() {
        for text in ["", "ms", "-", ".", "1-2ms", "1..2ms", "n ms", "in s", "++1s", "e6bps"] {
            assert!(parse_time(text).is_err(), "{text:?}");
        }
        assert!(parse_time("1-2ms").unwrap_err().contains("unrecognised unit"));
        assert!(parse_time("na ms").unwrap_err().starts_with("expected a number"));
    }

    #[test]
    fn nan_and_infinity_are_left_to_the_range_check() {
        assert!(parse_rate("nan").unwrap().is_nan());
        assert_eq!(parse_rate("-inf Mbps").unwrap(), f64::NEG_INFINITY);
        assert_eq!(parse_bytes("Infinity").unwrap(), f64::INFINITY);
        assert_eq!(parse_time("NaN ms").unwrap(), Duration::MAX);
        assert_eq!(parse_time("inf").unwrap(), Duration::MAX);
        assert!(matches!(parse_queue("nan bdp").unwrap(), QueueLimit::Packets(p) if p.is_nan()));
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("200ms").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_time("0.11674s").unwrap(), Duration::from_nanos(116_740_000));
        assert_eq!(parse_time("5us").unwrap(), Duration::from_micros(5));
        assert!(parse_time("200").unwrap_err().contains("ms"));
        assert!(parse_time("-1s").is_err());
    }

    #[test]
    fn sizes_and_queues() {
        assert_eq!(parse_bytes("1MB").unwrap(), 1e6);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536.0);
        assert_eq!(parse_queue("1bdp").unwrap(), QueueLimit::Bdp(1.0));
        assert_eq!(parse_queue("100pkt").unwrap(), QueueLimit::Packets(100.0));
        assert_eq!(parse_queue("100").unwrap(), QueueLimit::Packets(100.0));
        assert_eq!(parse_queue("150KB").unwrap(), QueueLimit::Bytes(150e3));
        assert!(parse_queue("3 cups").is_err());
    }
}
