//! RTT estimation and the retransmission timeout of RFC 6298.

use core::time::Duration;

/// Durations are kept in nanoseconds: `Duration`'s arithmetic splits every product and quotient
/// into seconds and nanoseconds, which cost several times the integer operations on the ACK path.
/// Both floor alike, so the results are the same to the nanosecond.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    latest: Option<Duration>,
    min: Option<Duration>,
    rto: u64,
    min_rto: u64,
    max_rto: u64,
    granularity: u64,
    /// Exponential backoff multiplier applied after timeouts (RFC 6298 5.5).
    backoff: u32,
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos() as u64
}

impl RttEstimator {
    pub fn new(initial: Duration, min_rto: Duration, max_rto: Duration, granularity: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            latest: None,
            min: None,
            rto: nanos(initial),
            min_rto: nanos(min_rto),
            max_rto: nanos(max_rto),
            granularity: nanos(granularity),
            backoff: 0,
        }
    }

    /// Takes one RTT sample (RFC 6298 2.2 and 2.3) and clears any timeout backoff, since a valid
    /// sample means the path delivers again (Karn's rule: only unambiguous samples reach here).
    pub fn sample(&mut self, r: Duration) {
        self.latest = Some(r);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        let r = nanos(r);
        let srtt = match self.srtt {
            None => {
                self.rttvar = r / 2;
                r
            }
            Some(srtt) => {
                // RTTVAR is updated first, with the old SRTT (alpha = 1/8, beta = 1/4).
                let err = srtt.abs_diff(r);
                self.rttvar = (self.rttvar * 3 + err) / 4;
                (srtt * 7 + r) / 8
            }
        };
        self.srtt = Some(srtt);
        self.rto = (srtt + self.granularity.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// RFC 6298 5.5: double the timer after it expires.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// RFC 6298 5.7: a retransmitted SYN leaves a conservative 3 s initial timeout for the data.
    pub fn reset_after_syn_retransmission(&mut self) {
        if self.srtt.is_none() {
            self.rto = nanos(Duration::from_secs(3)).clamp(self.min_rto, self.max_rto);
        }
        self.backoff = 0;
    }

    pub fn rto(&self) -> Duration {
        // Saturating: a backed-off timer beyond u64 nanoseconds is capped at `max_rto` anyway.
        Duration::from_nanos(self.rto.saturating_mul(1u64 << self.backoff.min(30)).min(self.max_rto))
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.map(Duration::from_nanos)
    }
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn first_sample_rfc_vector() {
        // RFC 6298: R = 100 ms -> SRTT 100, RTTVAR 50, RTO 300 ms, rounded up to the 1 s minimum.
        let mut e = RttEstimator::new(ms(1000), ms(1000), ms(60_000), ms(1));
        e.sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(1000));
        let mut linux_min = RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1));
        linux_min.sample(ms(100));
        assert_eq!(linux_min.rto(), ms(300));
    }

    #[test]
    fn later_samples_update_rttvar_with_old_srtt() {
        let mut e = RttEstimator::new(ms(1000), ms(1), ms(60_000), ms(1));
        e.sample(ms(100));
        e.sample(ms(200));
        // RTTVAR = 3/4 * 50 + 1/4 * |100 - 200| = 62.5; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5.
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(112_500 + 250_000));
        assert_eq!(e.min_rtt(), Some(ms(100)));
    }

    #[test]
    fn backoff_doubles_until_max_and_a_sample_clears_it() {
        let mut e = RttEstimator::new(ms(1000), ms(1000), ms(5000), ms(1));
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(5000), "capped at rto_max");
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn granularity_bounds_the_variance_term() {
        let mut e = RttEstimator::new(ms(1000), ms(1), ms(60_000), ms(500));
        e.sample(ms(100));
        e.sample(ms(100));
        e.sample(ms(100));
        assert!(e.rto() >= ms(600), "{:?}", e.rto());
    }
}
