//! Linux HyStart, the slow-start exit built into `net/ipv4/tcp_cubic.c` (`hystart_update`,
//! `bictcp_hystart_reset`), after Ha and Rhee, "Taming the Elephants: New TCP Slow Start" (2011).
//!
//! It runs on every RTT sample while the host is in slow start and has not exited yet, and ends
//! slow start (the host sets ssthresh = cwnd, without reducing cwnd) on the first of two signals:
//!
//! - **ACK train**: ACKs arriving at most `ack_delta` (2 ms) apart form a train; when the train
//!   that began at the round's start has lasted longer than delay_min / 2, the round's data took
//!   about half the minimum RTT to drain through the bottleneck, so the next doubling would fill
//!   the pipe.
//! - **Delay increase**: the minimum RTT of the round's samples, once the round has had
//!   HYSTART_MIN_SAMPLES (8) of them, exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//! Rounds: a round begins when SND.UNA passes `end_seq` (`after(snd_una, end_seq)`), which is then
//! set to SND.NXT. Neither test runs while cwnd is below `low_window` (16 packets), but rounds are
//! still tracked. All times are kept in microseconds, as Linux keeps them, so the integer rounding
//! (delay_min >> 3, threshold >> 1) is the kernel's.
//!
//! The ACK-train threshold is (delay_min + `hystart_ack_delay`) / 2, as Linux computes it for a
//! socket without fq pacing (`SK_PACING_NONE`, the default qdisc): the host does not pace.
//! `hystart_ack_delay` is Linux's TSO/GRO allowance, min(1 ms, 4 x GSO size / sk_pacing_rate).
//! Linux maintains `sk_pacing_rate` for every TCP socket (`tcp_update_pacing_rate`, 200 % of
//! cwnd x MSS / SRTT in slow start) whether or not anything paces by it, and computes the allowance
//! from it whether or not segments are actually aggregated; the host passes that rate in
//! [`Sample::pacing_rate`] (see [`linux_pacing_rate`]). On the paths simulated here the
//! allowance is its 1 ms cap until the rate exceeds 262 MB/s.
//!
//! Interpretation: the GSO size is 64 KB (`GSO_LEGACY_MAX_SIZE`, a default device's); the kernel
//! also subtracts its header room (`MAX_TCP_HEADER` + 1, about 0.5 %), which only matters below
//! the 1 ms cap and is left out.

use crate::time::{Duration, Instant};

/// Samples a round needs before its minimum RTT is compared (`HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Clamp of the delay-increase threshold, microseconds (`HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`).
pub const DELAY_MIN_US: u64 = 4000;
pub const DELAY_MAX_US: u64 = 16000;

/// GSO size of a default Linux device, bytes (`GSO_LEGACY_MAX_SIZE`).
pub const GSO_MAX_SIZE: u64 = 65_536;
/// Cap of the TSO/GRO allowance, microseconds (`USEC_PER_MSEC` in `hystart_ack_delay`).
pub const ACK_DELAY_MAX_US: u64 = 1000;
/// `sysctl_tcp_pacing_ss_ratio` and `sysctl_tcp_pacing_ca_ratio` (percent).
pub const PACING_SS_RATIO: u64 = 200;
pub const PACING_CA_RATIO: u64 = 120;

/// `hystart_detect` bits.
pub const DETECT_ACK_TRAIN: u8 = 0x1;
pub const DETECT_DELAY: u8 = 0x2;

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// The Linux module parameters of HyStart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// `hystart_detect`: [`DETECT_ACK_TRAIN`] | [`DETECT_DELAY`].
    pub detect: u8,
    /// `hystart_low_window`, packets.
    pub low_window: u64,
    /// `hystart_ack_delta_us`.
    pub ack_delta: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config { detect: DETECT_ACK_TRAIN | DETECT_DELAY, low_window: 16, ack_delta: Duration::from_micros(2000) }
    }
}

/// What HyStart reads from the connection on each RTT sample.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub now: Instant,
    /// This ACK's RTT sample.
    pub rtt: Duration,
    /// The host's minimum RTT (`ca->delay_min`), already updated with this sample.
    pub delay_min: Duration,
    /// Congestion window in packets.
    pub cwnd: u64,
    /// Linux's `sk_pacing_rate` as the previous ACK left it, bytes per second (0: none yet).
    pub pacing_rate: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    cfg: Config,
    /// The exit point was found (`ca->found`); HyStart stays quiet until [`HyStart::reset`].
    found: bool,
    round_start_us: u64,
    /// Last time an ACK was close enough to the previous one to extend the train.
    last_ack_us: u64,
    end_seq: u64,
    /// Minimum RTT of the current round, microseconds (`None` = `~0U`).
    curr_rtt_us: Option<u64>,
    sample_cnt: u32,
}

fn micros(t: Instant) -> u64 {
    t.as_nanos() / 1000
}

impl HyStart {
    /// HyStart for a connection whose data starts at sequence 0 (`cubictcp_init`): the first
    /// ACK then begins the first round.
    pub fn new(cfg: Config) -> Self {
        HyStart { cfg, found: false, round_start_us: 0, last_ack_us: 0, end_seq: 0, curr_rtt_us: None, sample_cnt: 0 }
    }

    /// A new round from `now` (`bictcp_hystart_reset`).
    fn reset_round(&mut self, now: Instant, snd_nxt: u64) {
        self.round_start_us = micros(now);
        self.last_ack_us = self.round_start_us;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = None;
        self.sample_cnt = 0;
    }

    /// After a retransmission timeout Linux resets CUBIC and HyStart (`cubictcp_state` on
    /// `TCP_CA_Loss`): the next slow start may exit early again.
    pub fn reset(&mut self, now: Instant, snd_nxt: u64) {
        self.found = false;
        self.reset_round(now, snd_nxt);
    }

    pub fn found(&self) -> bool {
        self.found
    }

    /// One RTT sample while the host is in slow start (`hystart_update`). Returns the test that
    /// fired, if one did; the host then sets ssthresh = cwnd.
    pub fn on_sample(&mut self, s: &Sample) -> Option<Exit> {
        if self.found {
            return None;
        }
        if s.snd_una > self.end_seq {
            self.reset_round(s.now, s.snd_nxt);
        }
        if s.cwnd < self.cfg.low_window {
            return None;
        }
        let delay_min_us = s.delay_min.as_micros() as u64;
        let mut exit = None;
        if self.cfg.detect & DETECT_ACK_TRAIN != 0 {
            let now_us = micros(s.now);
            if now_us.saturating_sub(self.last_ack_us) <= self.cfg.ack_delta.as_micros() as u64 {
                self.last_ack_us = now_us;
                // Not paced (SK_PACING_NONE): half of delay_min plus the TSO/GRO allowance.
                let threshold = (delay_min_us + ack_delay_us(s.pacing_rate)) >> 1;
                if now_us.saturating_sub(self.round_start_us) > threshold {
                    self.found = true;
                    exit = Some(Exit::AckTrain);
                }
            }
        }
        if self.cfg.detect & DETECT_DELAY != 0 {
            // Linux counts 1 us for a zero sample.
            let rtt_us = (s.rtt.as_micros() as u64).max(1);
            let curr = self.curr_rtt_us.map_or(rtt_us, |c| c.min(rtt_us));
            self.curr_rtt_us = Some(curr);
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if curr > delay_min_us + delay_threshold_us(delay_min_us) {
                self.found = true;
                exit = Some(Exit::Delay);
            }
        }
        exit
    }
}

/// `hystart_ack_delay`: the TSO/GRO allowance of the ACK-train threshold, microseconds.
pub fn ack_delay_us(pacing_rate: u64) -> u64 {
    if pacing_rate == 0 {
        return 0;
    }
    ACK_DELAY_MAX_US.min(GSO_MAX_SIZE * 4 * 1_000_000 / pacing_rate)
}

/// `tcp_update_pacing_rate` (net/ipv4/tcp_input.c) without `sk_max_pacing_rate`: bytes per
/// second, 200 % of mss x max(cwnd, packets out) / SRTT while cwnd < ssthresh / 2, else 120 %.
/// Linux keeps SRTT in 1/8 us and scales the numerator by 8 to match; the integer division is
/// the kernel's. No SRTT yet (or 0) gives 0.
pub fn linux_pacing_rate(mss: u64, cwnd: u64, packets_out: u64, ssthresh: u64, srtt: Option<Duration>) -> u64 {
    // tp->srtt_us: SRTT in units of 1/8 us.
    let srtt_8us = srtt.map_or(0, |d| d.as_nanos() * 8 / 1000);
    if srtt_8us == 0 {
        return 0;
    }
    let ratio = if cwnd < ssthresh / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    let rate = mss as u128 * ((1_000_000 / 100) << 3) * ratio as u128 * cwnd.max(packets_out) as u128;
    (rate / srtt_8us) as u64
}

/// `HYSTART_DELAY_THRESH(delay_min >> 3)`: an eighth of the minimum RTT, within 4..16 ms.
pub fn delay_threshold_us(delay_min_us: u64) -> u64 {
    (delay_min_us >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(us: u64) -> Instant {
        Instant::from_nanos(us * 1000)
    }

    fn sample(now_us: u64, rtt_ms: u64, cwnd: u64, snd_una: u64, snd_nxt: u64) -> Sample {
        Sample {
            now: at_us(now_us),
            rtt: Duration::from_millis(rtt_ms),
            delay_min: Duration::from_millis(100),
            cwnd,
            pacing_rate: 0,
            snd_una,
            snd_nxt,
        }
    }

    #[test]
    fn linux_constants() {
        // tcp_cubic.c: HYSTART_MIN_SAMPLES 8, HYSTART_DELAY_MIN 4000U, HYSTART_DELAY_MAX 16000U,
        // hystart_detect 3, hystart_low_window 16, hystart_ack_delta_us 2000.
        assert_eq!((MIN_SAMPLES, DELAY_MIN_US, DELAY_MAX_US), (8, 4000, 16000));
        let c = Config::default();
        assert_eq!((c.detect, c.low_window, c.ack_delta), (3, 16, Duration::from_micros(2000)));
    }

    #[test]
    fn delay_threshold_is_an_eighth_of_min_rtt_within_4_and_16_ms() {
        // Reference vectors: 20 ms -> 4 ms, 80 ms -> 10 ms, 200 ms -> 16 ms.
        assert_eq!(delay_threshold_us(20_000), 4000);
        assert_eq!(delay_threshold_us(80_000), 10_000);
        assert_eq!(delay_threshold_us(200_000), 16_000);
    }

    #[test]
    fn delay_increase_exits_on_the_ninth_sample_above_the_threshold() {
        // delay_min 100 ms -> threshold 12.5 ms: a round minimum of 112.501 ms exits, but only
        // once eight samples have accumulated.
        let mut h = HyStart::new(Config { detect: DETECT_DELAY, ..Config::default() });
        let mut s = sample(0, 113, 20, 1, 100);
        for i in 0..8 {
            s.now = at_us(i * 10_000);
            assert_eq!(h.on_sample(&s), None, "sample {}", i + 1);
        }
        s.now = at_us(80_000);
        assert_eq!(h.on_sample(&s), Some(Exit::Delay));
        assert!(h.found());
        assert_eq!(h.on_sample(&s), None, "found: quiet until reset");
    }

    #[test]
    fn delay_at_the_threshold_does_not_exit() {
        let mut h = HyStart::new(Config { detect: DETECT_DELAY, ..Config::default() });
        let mut s = sample(0, 0, 20, 1, 100);
        s.rtt = Duration::from_micros(112_500); // exactly delay_min + 12.5 ms: not above
        for i in 0..20 {
            s.now = at_us(i * 10_000);
            assert_eq!(h.on_sample(&s), None);
        }
    }

    #[test]
    fn ack_train_exits_when_close_acks_span_half_the_min_rtt() {
        // ACKs 1 ms apart from the round's start: the train passes 50 ms at the ACK at 51 ms.
        let mut h = HyStart::new(Config { detect: DETECT_ACK_TRAIN, ..Config::default() });
        let mut exit_at = None;
        for ms in 0..60u64 {
            if let Some(e) = h.on_sample(&sample(1000 + ms * 1000, 100, 20, 1 + ms, 1000)) {
                exit_at = Some((ms, e));
                break;
            }
        }
        assert_eq!(exit_at, Some((51, Exit::AckTrain)));
    }

    #[test]
    fn tso_allowance_is_four_gso_frames_at_the_pacing_rate_capped_at_1_ms() {
        // hystart_ack_delay: 0 without a pacing rate; 4 x 65536 B x 1e6 / 14.6e6 B/s = 17955 us,
        // capped to 1000; at 1e9 B/s 262.144 us, truncated to 262.
        assert_eq!(ack_delay_us(0), 0);
        assert_eq!(ack_delay_us(14_600_000), 1000);
        assert_eq!(ack_delay_us(1_000_000_000), 262);
    }

    #[test]
    fn linux_pacing_rate_is_200_percent_in_slow_start_and_120_near_ssthresh() {
        // tcp_update_pacing_rate: 1460 x 80000 x 200 x 100 / (20 ms x 8 in 1/8 us) = 14.6 MB/s,
        // i.e. 2 x 100 x 1460 B / 20 ms; 120 % once cwnd >= ssthresh / 2; packets out count when
        // above cwnd.
        let srtt = Some(Duration::from_millis(20));
        assert_eq!(linux_pacing_rate(1460, 100, 100, u64::MAX, srtt), 14_600_000);
        assert_eq!(linux_pacing_rate(1460, 100, 100, 200, srtt), 8_760_000);
        assert_eq!(linux_pacing_rate(1460, 100, 120, u64::MAX, srtt), 17_520_000);
        assert_eq!(linux_pacing_rate(1460, 100, 100, u64::MAX, None), 0);
    }

    #[test]
    fn the_tso_allowance_delays_the_ack_train_exit_by_half_a_millisecond() {
        // ACKs 0.5 ms apart from the round's start at 1 ms, delay_min 100 ms. Threshold
        // 100000 / 2 = 50000 us without a pacing rate: the ACK 50.5 ms into the round exits.
        // With the 1 ms allowance (14.6 MB/s): (100000 + 1000) / 2 = 50500 us, so 51 ms.
        for (rate, exit_after_us) in [(0, 50_500), (14_600_000, 51_000)] {
            let mut h = HyStart::new(Config { detect: DETECT_ACK_TRAIN, ..Config::default() });
            let mut exit_at = None;
            for i in 0..200u64 {
                let s = Sample { pacing_rate: rate, ..sample(1000 + i * 500, 100, 20, 1 + i, 1000) };
                if h.on_sample(&s).is_some() {
                    exit_at = Some(i * 500);
                    break;
                }
            }
            assert_eq!(exit_at, Some(exit_after_us), "pacing rate {rate}");
        }
    }

    #[test]
    fn ack_train_breaks_on_a_gap_longer_than_ack_delta() {
        // ACKs 3 ms apart never extend the train.
        let mut h = HyStart::new(Config { detect: DETECT_ACK_TRAIN, ..Config::default() });
        for i in 0..100u64 {
            assert_eq!(h.on_sample(&sample(1000 + i * 3000, 100, 20, 1 + i, 1000)), None);
        }
    }

    #[test]
    fn nothing_fires_below_the_low_window() {
        let mut h = HyStart::new(Config::default());
        // RTT twice delay_min and an unbroken train, but cwnd 15 < 16.
        for i in 0..100u64 {
            assert_eq!(h.on_sample(&sample(1000 + i * 1000, 200, 15, 1 + i, 1000)), None);
        }
        // At cwnd 16 in the same round: the train's last ACK is stale (Linux does not extend it
        // below the low window), so only the delay test can fire, on its ninth sample.
        for i in 0..8u64 {
            assert_eq!(h.on_sample(&sample(101_000 + i * 1000, 200, 16, 101 + i, 1000)), None);
        }
        assert_eq!(h.on_sample(&sample(109_000, 200, 16, 109, 1000)), Some(Exit::Delay));
    }

    #[test]
    fn a_new_round_restarts_the_train_and_the_sample_count() {
        let mut h = HyStart::new(Config::default());
        // Round 1: data up to 1000; ACKs 1 ms apart for 40 ms.
        for ms in 0..40u64 {
            assert_eq!(h.on_sample(&sample(1000 + ms * 1000, 100, 20, 1 + ms, 1000)), None);
        }
        // An ACK past 1000 begins round 2 at 41 ms: the train restarts, so 30 more close ACKs
        // (to 71 ms, 70 ms after round 1 began) do not fire.
        for ms in 40..70u64 {
            assert_eq!(h.on_sample(&sample(1000 + ms * 1000, 100, 20, 1001 + ms, 5000)), None);
        }
        h.reset(at_us(0), 0);
        assert!(!h.found());
    }
}
