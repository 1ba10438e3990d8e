//! HyStart++ (RFC 9406): a slow start that leaves early on a rise in round-trip delay, through a
//! slower "Conservative Slow Start" (CSS) that can undo a spurious exit.
//!
//! [`HyStartPlusPlus`] is a component, not a controller: a host algorithm (Reno/NewReno, CUBIC)
//! embeds one and, for every new ACK while it is in slow start, hands it the growth its own slow
//! start would apply. The component answers with a [`SlowStartStep`]: grow by that much (standard
//! slow start), by a `1/CSS_GROWTH_DIVISOR` share of it (CSS), or leave slow start now
//! (`ssthresh = cwnd`, RFC 9406 section 4.2). The host keeps its own units (bytes or packets) and
//! its own counting (Reno's byte-counting limit `abc`, Linux CUBIC's packet count); the component
//! adds RFC 9406's cap L per ACK on top.
//!
//! State machine (RFC 9406 section 4.2; a round ends when `windowEnd`, SND.NXT when the round
//! began, is acknowledged, i.e. when SND.UNA passes it):
//!
//! | phase | growth per ACK | leaves to | when |
//! |---|---|---|---|
//! | `SlowStart` | min(N, L x SMSS) | `Conservative` | >= N_RTT_SAMPLE samples this round and currentRoundMinRTT >= lastRoundMinRTT + RttThresh |
//! | `Conservative` | min(N, L x SMSS) / CSS_GROWTH_DIVISOR | `SlowStart` | >= N_RTT_SAMPLE samples this round and currentRoundMinRTT < cssBaselineMinRtt |
//! | `Conservative` | | `Done` (ssthresh = cwnd) | CSS_ROUNDS rounds ended in CSS |
//! | any | | `Done` | loss or timeout (the host's reduction applies) |
//!
//! with RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
//! After `Done` the host uses standard slow start: RFC 9406 section 4.4 recommends HyStart++ only
//! for the initial slow start, so a timeout ends it for the rest of the connection.
//!
//! Interpretations:
//! - The round in which CSS was entered counts as the first of the CSS_ROUNDS rounds (section 4.2
//!   counts CSS rounds from entry); the exit happens on the ACK that ends the fifth.
//! - Per ACK the RFC's order is kept: the window grows at the current phase's rate, then the ACK's
//!   RTT sample is taken and may change the phase for the following ACKs.
//! - "windowEnd is ACKed" is read as in TCP sequence space: the byte numbered windowEnd (the first
//!   one sent after the round began) is acknowledged, SND.UNA > windowEnd. This is also the round
//!   test of Linux HyStart (`after(snd_una, end_seq)`), so both slow starts count rounds alike.
//! - The first round begins at the first ACK (windowEnd = SND.NXT then); before it there is no
//!   round to compare with, so nothing is lost.
//! - CSS growth keeps the remainder of the division, so four one-segment ACKs in CSS add exactly
//!   one segment with the default divisor.
//! - The simulator's hosts do not pace, so L defaults to 8 segments (the non-paced value).
//! - If `min_rtt_thresh_ms` exceeds `max_rtt_thresh_ms`, RttThresh is `min_rtt_thresh_ms`
//!   (the RFC's max-of-min order), never a panic.

use crate::controller::CongestionControl;
use crate::cubic::{Cubic, CubicConfig, SlowStart};
use crate::events::AckEvent;
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Reno, RenoVariant};
use crate::time::Duration;

const CSS_GROWTH_DIVISOR: ParamSpec = ParamSpec {
    name: "css_growth_divisor",
    default: 4.0,
    min: 2.0,
    max: 1024.0,
    integer: true,
    doc: "CSS_GROWTH_DIVISOR: Conservative Slow Start grows by 1/divisor of slow start's increase (RFC 9406 4.3, at least 2)",
};
const CSS_ROUNDS: ParamSpec = ParamSpec {
    name: "css_rounds",
    default: 5.0,
    min: 1.0,
    max: 1000.0,
    integer: true,
    doc: "CSS_ROUNDS: rounds spent in Conservative Slow Start before congestion avoidance",
};
const N_RTT_SAMPLE: ParamSpec = ParamSpec {
    name: "n_rtt_sample",
    default: 8.0,
    min: 1.0,
    max: 1000.0,
    integer: true,
    doc: "N_RTT_SAMPLE: RTT samples a round needs before its minimum is compared",
};
const MIN_RTT_THRESH: ParamSpec = ParamSpec {
    name: "min_rtt_thresh_ms",
    default: 4.0,
    min: 0.0,
    max: 10_000.0,
    integer: false,
    doc: "MIN_RTT_THRESH in ms: smallest delay increase that ends slow start",
};
const MAX_RTT_THRESH: ParamSpec = ParamSpec {
    name: "max_rtt_thresh_ms",
    default: 16.0,
    min: 0.0,
    max: 10_000.0,
    integer: false,
    doc: "MAX_RTT_THRESH in ms: largest delay increase needed to end slow start",
};
const MIN_RTT_DIVISOR: ParamSpec = ParamSpec {
    name: "min_rtt_divisor",
    default: 8.0,
    min: 1.0,
    max: 1024.0,
    integer: true,
    doc: "MIN_RTT_DIVISOR: the delay threshold is lastRoundMinRTT / divisor, clamped to the two thresholds",
};
const L_SEGMENTS: ParamSpec = ParamSpec {
    name: "l_segments",
    default: 8.0,
    min: 0.0,
    max: 1_000_000.0,
    integer: true,
    doc: "L: cap on slow-start growth per ACK in segments (8 when not paced, 0 = infinity as when paced)",
};

/// HyStart++'s parameters, in the order the registry lists them after the host's own.
pub const PARAMS: [ParamSpec; 7] =
    [CSS_GROWTH_DIVISOR, CSS_ROUNDS, N_RTT_SAMPLE, MIN_RTT_THRESH, MAX_RTT_THRESH, MIN_RTT_DIVISOR, L_SEGMENTS];

/// The host's parameters followed by HyStart++'s; `N` must be `A + PARAMS.len()` (checked when
/// the constant is evaluated, so a wrong length does not compile).
pub const fn with_params<const A: usize, const N: usize>(host: [ParamSpec; A]) -> [ParamSpec; N] {
    assert!(A + PARAMS.len() == N, "parameter list length");
    let mut out = [PARAMS[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { host[i] } else { PARAMS[i - A] };
        i += 1;
    }
    out
}

fn reno_host(variant: RenoVariant, p: &Params, cfg: &CcConfig) -> Box<dyn CongestionControl> {
    Box::new(Reno::from_params(variant, p, cfg).with_hystartpp(HyStartPlusPlus::from_params(p)))
}

const RENO_PARAMS: [ParamSpec; 8] = with_params([crate::reno::ABC]);

pub const RENO_HYSTARTPP: Registration = Registration {
    info: AlgorithmInfo {
        name: "reno+hystartpp",
        summary: "Reno with HyStart++ in its initial slow start (delay-based exit through Conservative Slow Start)",
        reference: "RFC 9406 over RFC 5681",
        params: &RENO_PARAMS,
    },
    build: |p, cfg| reno_host(RenoVariant::Reno, p, cfg),
    receiver_hook: None,
};

pub const NEWRENO_HYSTARTPP: Registration = Registration {
    info: AlgorithmInfo {
        name: "newreno+hystartpp",
        summary: "NewReno with HyStart++ in its initial slow start (delay-based exit through Conservative Slow Start)",
        reference: "RFC 9406 over RFC 6582",
        params: &RENO_PARAMS,
    },
    build: |p, cfg| reno_host(RenoVariant::NewReno, p, cfg),
    receiver_hook: None,
};

const CUBIC_PARAMS: [ParamSpec; 11] = with_params(crate::cubic::PARAMS);

pub const CUBIC_HYSTARTPP: Registration = Registration {
    info: AlgorithmInfo {
        name: "cubic+hystartpp",
        summary: "Linux CUBIC with HyStart++ instead of Linux HyStart in its initial slow start",
        reference: "RFC 9406 over RFC 9438 / Linux net/ipv4/tcp_cubic.c v2.3",
        params: &CUBIC_PARAMS,
    },
    build: |p, cfg| {
        let slow_start = SlowStart::HyStartPlusPlus(HyStartPlusPlus::from_params(p));
        Box::new(Cubic::new(CubicConfig::from_params(p), cfg, slow_start))
    },
    receiver_hook: None,
};

/// HyStart++ constants (RFC 9406 section 4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub css_growth_divisor: u64,
    pub css_rounds: u32,
    pub n_rtt_sample: u32,
    pub min_rtt_thresh: Duration,
    pub max_rtt_thresh: Duration,
    pub min_rtt_divisor: u32,
    /// L in segments; `None` = infinity.
    pub l_segments: Option<u64>,
}

impl Default for Config {
    /// The RFC's recommended constants, for a sender that does not pace.
    fn default() -> Self {
        Config {
            css_growth_divisor: 4,
            css_rounds: 5,
            n_rtt_sample: 8,
            min_rtt_thresh: Duration::from_millis(4),
            max_rtt_thresh: Duration::from_millis(16),
            min_rtt_divisor: 8,
            l_segments: Some(8),
        }
    }
}

/// Where HyStart++ stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Conservative Slow Start.
    Conservative,
    /// HyStart++ has ended (CSS finished, loss or timeout); the host's standard rules apply.
    Done,
}

/// What the host does with one ACK's slow-start growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartStep {
    /// Grow the window by this much (in the host's units).
    Grow(u64),
    /// Leave slow start: set ssthresh = cwnd and continue in congestion avoidance.
    ExitSlowStart,
}

#[derive(Clone, Debug)]
pub struct HyStartPlusPlus {
    cfg: Config,
    phase: Phase,
    /// SND.NXT when the current round began; `None` before the first ACK.
    window_end: Option<u64>,
    /// Minimum RTT of the previous and the current round (`None` = infinity).
    last_round_min_rtt: Option<Duration>,
    current_round_min_rtt: Option<Duration>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<Duration>,
    /// Rounds ended since CSS was entered (the entry round included).
    css_rounds: u32,
    /// Growth not yet applied because of the CSS division (host units, below the divisor).
    css_remainder: u64,
}

impl HyStartPlusPlus {
    pub fn new(cfg: Config) -> Self {
        HyStartPlusPlus {
            cfg,
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            css_remainder: 0,
        }
    }

    /// Reads the [`PARAMS`] entries of resolved registry parameters.
    pub fn from_params(p: &Params) -> Self {
        let ms = |name: &str| Duration::from_secs_f64(p[name] / 1000.0);
        let l = p["l_segments"] as u64;
        HyStartPlusPlus::new(Config {
            css_growth_divisor: p["css_growth_divisor"] as u64,
            css_rounds: p["css_rounds"] as u32,
            n_rtt_sample: p["n_rtt_sample"] as u32,
            min_rtt_thresh: ms("min_rtt_thresh_ms"),
            max_rtt_thresh: ms("max_rtt_thresh_ms"),
            min_rtt_divisor: p["min_rtt_divisor"] as u32,
            l_segments: (l > 0).then_some(l),
        })
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Loss, ECN or a timeout: HyStart++ is over for this connection (RFC 9406 sections 4.2, 4.4).
    pub fn stop(&mut self) {
        self.phase = Phase::Done;
    }

    /// RttThresh of RFC 9406 section 4.2 for a previous round's minimum.
    pub fn rtt_thresh(&self, last_round_min_rtt: Duration) -> Duration {
        let scaled = last_round_min_rtt / self.cfg.min_rtt_divisor;
        self.cfg.min_rtt_thresh.max(scaled.min(self.cfg.max_rtt_thresh))
    }

    /// One new ACK in slow start. `increment` is the growth the host's standard slow start would
    /// apply for it (0 when the host is not allowed to grow, e.g. not cwnd-limited; the ACK still
    /// counts for rounds and RTT), `segment` is one SMSS in the host's units.
    pub fn on_ack(&mut self, ev: &AckEvent, increment: u64, segment: u64) -> SlowStartStep {
        if self.phase == Phase::Done {
            return SlowStartStep::Grow(increment);
        }
        if self.window_end.is_none_or(|end| ev.snd_una > end) {
            if self.window_end.is_some() && self.phase == Phase::Conservative {
                self.css_rounds += 1;
                if self.css_rounds >= self.cfg.css_rounds {
                    self.phase = Phase::Done;
                    return SlowStartStep::ExitSlowStart;
                }
            }
            self.window_end = Some(ev.snd_nxt);
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
        }
        let capped = self.cfg.l_segments.map_or(increment, |l| increment.min(l.saturating_mul(segment)));
        let grow = match self.phase {
            Phase::Conservative => {
                let total = capped + self.css_remainder;
                self.css_remainder = total % self.cfg.css_growth_divisor;
                total / self.cfg.css_growth_divisor
            }
            _ => capped,
        };
        if let Some(rtt) = ev.rtt_sample {
            self.on_rtt_sample(rtt);
        }
        SlowStartStep::Grow(grow)
    }

    fn on_rtt_sample(&mut self, rtt: Duration) {
        let current = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
        self.current_round_min_rtt = Some(current);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < self.cfg.n_rtt_sample {
            return;
        }
        match (self.phase, self.last_round_min_rtt, self.css_baseline_min_rtt) {
            (Phase::SlowStart, Some(last), _) if current >= last + self.rtt_thresh(last) => {
                self.css_baseline_min_rtt = Some(current);
                self.phase = Phase::Conservative;
                self.css_rounds = 0;
                self.css_remainder = 0;
            }
            (Phase::Conservative, _, Some(baseline)) if current < baseline => {
                // The delay increase was spurious: resume slow start, HyStart++ included.
                self.css_baseline_min_rtt = None;
                self.phase = Phase::SlowStart;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    const MSS: u64 = 1000;

    /// Feeds one round of `acks` ACKs of one segment each with RTT `rtt_ms`: the round's data is
    /// segments `*seq + 1 ..= *seq + acks` (sequence numbers count segments here), all sent before
    /// the round began. Returns the total growth and whether an ACK asked to exit.
    fn round(h: &mut HyStartPlusPlus, seq: &mut u64, acks: u64, rtt_ms: u64) -> (u64, bool) {
        let end = *seq + acks;
        let mut grown = 0;
        let mut exited = false;
        for _ in 0..acks {
            *seq += 1;
            let ev = AckEvent {
                now: Instant::ZERO,
                bytes_acked: MSS,
                rtt_sample: Some(Duration::from_millis(rtt_ms)),
                snd_una: *seq,
                snd_nxt: end,
                ..Default::default()
            };
            match h.on_ack(&ev, MSS, MSS) {
                SlowStartStep::Grow(g) => grown += g,
                SlowStartStep::ExitSlowStart => exited = true,
            }
        }
        (grown, exited)
    }

    #[test]
    fn constants_are_the_rfc_recommendations() {
        // RFC 9406 section 4.3.
        let c = Config::default();
        assert_eq!((c.css_growth_divisor, c.css_rounds, c.n_rtt_sample, c.min_rtt_divisor), (4, 5, 8, 8));
        assert_eq!((c.min_rtt_thresh, c.max_rtt_thresh), (Duration::from_millis(4), Duration::from_millis(16)));
        assert_eq!(c.l_segments, Some(8));
        let defaults: Vec<f64> = PARAMS.iter().map(|p| p.default).collect();
        assert_eq!(defaults, [4.0, 5.0, 8.0, 4.0, 16.0, 8.0, 8.0]);
    }

    #[test]
    fn rtt_threshold_clamps_between_4_and_16_ms() {
        // Reference vectors: 1 ms -> 4 ms, 80 ms -> 10 ms, 1 s -> 16 ms.
        let h = HyStartPlusPlus::new(Config::default());
        assert_eq!(h.rtt_thresh(Duration::from_millis(1)), Duration::from_millis(4));
        assert_eq!(h.rtt_thresh(Duration::from_millis(80)), Duration::from_millis(10));
        assert_eq!(h.rtt_thresh(Duration::from_secs(1)), Duration::from_millis(16));
    }

    #[test]
    fn l_caps_growth_per_ack_at_eight_segments() {
        let mut h = HyStartPlusPlus::new(Config::default());
        let ev = AckEvent { bytes_acked: 20 * MSS, snd_una: 20, snd_nxt: 40, ..Default::default() };
        assert_eq!(h.on_ack(&ev, 20 * MSS, MSS), SlowStartStep::Grow(8 * MSS));
        let mut paced = HyStartPlusPlus::new(Config { l_segments: None, ..Config::default() });
        assert_eq!(paced.on_ack(&ev, 20 * MSS, MSS), SlowStartStep::Grow(20 * MSS));
    }

    #[test]
    fn delay_increase_enters_css_only_after_eight_samples() {
        let mut h = HyStartPlusPlus::new(Config::default());
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 100);
        // 100 ms last round: threshold 12.5 ms. Seven samples at 113 ms are not enough.
        round(&mut h, &mut seq, 7, 113);
        assert_eq!(h.phase(), Phase::SlowStart);
        let mut h = HyStartPlusPlus::new(Config::default());
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 100);
        // 112 ms is below 100 + 12.5: no exit; 113 ms is above.
        round(&mut h, &mut seq, 10, 112);
        assert_eq!(h.phase(), Phase::SlowStart);
        round(&mut h, &mut seq, 10, 126);
        assert_eq!(h.phase(), Phase::Conservative);
    }

    #[test]
    fn css_grows_a_quarter_as_fast_and_exits_after_five_rounds() {
        let mut h = HyStartPlusPlus::new(Config::default());
        let mut seq = 0;
        assert_eq!(round(&mut h, &mut seq, 8, 100), (8 * MSS, false));
        // Entry on the 8th sample of round 2; growth precedes the sample, so all 8 ACKs grew fully.
        assert_eq!(round(&mut h, &mut seq, 8, 120), (8 * MSS, false));
        assert_eq!(h.phase(), Phase::Conservative);
        // Round 2 was CSS round 1; rounds 3..6 are CSS rounds 2..5 and grow by a quarter.
        for _ in 3..=6 {
            assert_eq!(round(&mut h, &mut seq, 8, 120), (2 * MSS, false));
        }
        // The ACK that shows the fifth CSS round complete (the first of round 7) ends slow start,
        // without growth; the seven ACKs after it get standard slow start.
        assert_eq!(round(&mut h, &mut seq, 8, 120), (7 * MSS, true));
        assert_eq!(h.phase(), Phase::Done);
    }

    #[test]
    fn css_division_keeps_its_remainder() {
        let mut h = HyStartPlusPlus::new(Config::default());
        let mut seq = 0;
        round(&mut h, &mut seq, 8, 100);
        round(&mut h, &mut seq, 8, 120);
        // One-byte ACKs within the same round: four of them make one byte of growth.
        let grown: u64 = (0..400)
            .map(|_| {
                let ev = AckEvent { bytes_acked: 1, snd_una: seq, snd_nxt: seq + 100, ..Default::default() };
                match h.on_ack(&ev, 1, MSS) {
                    SlowStartStep::Grow(g) => g,
                    SlowStartStep::ExitSlowStart => panic!("no round ended"),
                }
            })
            .sum();
        assert_eq!(grown, 100);
    }

    /// A connection in CSS since round 2 (100 ms, then 113 ms: 113 >= 100 + 12.5).
    fn in_css() -> (HyStartPlusPlus, u64) {
        let mut h = HyStartPlusPlus::new(Config::default());
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 100);
        round(&mut h, &mut seq, 10, 113);
        assert_eq!(h.phase(), Phase::Conservative);
        (h, seq)
    }

    #[test]
    fn falling_rtt_in_css_resumes_slow_start_after_eight_samples() {
        // 112 ms < baseline 113 ms, but seven samples are not enough to decide.
        let (mut h, mut seq) = in_css();
        round(&mut h, &mut seq, 7, 112);
        assert_eq!(h.phase(), Phase::Conservative);
        // Eight are: the exit was spurious, slow start resumes at full growth.
        let (mut h, mut seq) = in_css();
        round(&mut h, &mut seq, 8, 112);
        assert_eq!(h.phase(), Phase::SlowStart);
        assert_eq!(round(&mut h, &mut seq, 8, 112), (8 * MSS, false));
    }

    #[test]
    fn a_resumed_slow_start_counts_css_rounds_afresh() {
        let (mut h, mut seq) = in_css(); // CSS round 1 was round 2
        round(&mut h, &mut seq, 10, 113); // CSS round 2
        round(&mut h, &mut seq, 10, 112); // back to slow start
        round(&mut h, &mut seq, 10, 127); // 127 >= 112 + 14: CSS again, its round 1
        for _ in 2..=5 {
            assert!(!round(&mut h, &mut seq, 10, 127).1);
        }
        assert!(round(&mut h, &mut seq, 10, 127).1, "the second CSS lasts five rounds of its own");
    }

    #[test]
    fn stop_hands_back_standard_slow_start() {
        let mut h = HyStartPlusPlus::new(Config::default());
        h.stop();
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 100);
        assert_eq!(round(&mut h, &mut seq, 10, 500), (10 * MSS, false));
        assert_eq!(h.phase(), Phase::Done);
    }

    #[test]
    fn reno_host_grows_a_quarter_in_css_and_leaves_with_ssthresh_at_cwnd() {
        use crate::controller::CongestionControl;
        use crate::events::{CongestionEvent, RtoEvent};
        use std::collections::BTreeMap;
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        let mut cc = crate::registry::build("newreno+hystartpp", &BTreeMap::new(), &cfg).unwrap();
        // Rounds of 8 one-segment ACKs (abc = 1: +1 MSS each in slow start); segment numbers are
        // sequence numbers here, as in `round`.
        let mut seq = 0;
        let mut feed = |cc: &mut Box<dyn CongestionControl>, rtt_ms: u64| {
            let end = seq + 8;
            for _ in 0..8 {
                seq += 1;
                cc.on_ack(&AckEvent {
                    bytes_acked: MSS,
                    rtt_sample: Some(Duration::from_millis(rtt_ms)),
                    snd_una: seq,
                    snd_nxt: end,
                    cwnd_limited: true,
                    ..Default::default()
                });
            }
        };
        feed(&mut cc, 100);
        feed(&mut cc, 120);
        assert_eq!((cc.state().cwnd, cc.state().phase), (26 * MSS, "conservative_slow_start"));
        feed(&mut cc, 120);
        assert_eq!(cc.state().cwnd, 28 * MSS, "8 ACKs in CSS: 8 x MSS / 4");
        for _ in 0..3 {
            feed(&mut cc, 120);
        }
        assert_eq!(cc.state().cwnd, 34 * MSS);
        feed(&mut cc, 120); // its first ACK ends the fifth CSS round
        assert_eq!(cc.state().ssthresh, 34 * MSS);
        assert_eq!(cc.state().phase, "congestion_avoidance");
        // After a loss and a timeout, slow start is the standard one: no CSS however high the RTT.
        cc.on_congestion(&CongestionEvent { flight_size: 20 * MSS, ..Default::default() });
        cc.on_rto(&RtoEvent { flight_size: 20 * MSS, consecutive: 1, ..Default::default() });
        for rtt in [100, 200, 400] {
            feed(&mut cc, rtt);
            assert_ne!(cc.state().phase, "conservative_slow_start");
        }
        // Full growth from 1 MSS up to ssthresh (10 MSS), then congestion avoidance.
        assert!(cc.state().cwnd >= 10 * MSS && cc.state().cwnd < 12 * MSS, "{}", cc.state().cwnd);
    }

    #[test]
    fn param_list_appends_to_the_host() {
        assert_eq!(RENO_PARAMS[0].name, "abc");
        assert_eq!(RENO_PARAMS[1..].iter().map(|p| p.name).collect::<Vec<_>>(), PARAMS.map(|p| p.name));
    }
}
