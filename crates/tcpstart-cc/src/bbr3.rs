//! BBRv3, following the IETF draft draft-ietf-ccwg-bbr-04 (Cardwell, Swett, Beshay, 2025;
//! BBRv3 as Linux's `tcp_bbr.c` on the google/bbr `v3` branch runs it), section numbers below.
//! Registered as `bbr3`. It keeps BBR v1's model (a windowed maximum of delivery-rate samples
//! and a windowed minimum RTT; see [`crate::bbr`], whose full-pipe estimator and max filter it
//! shares) and adds what v1 lacks: loss as a signal. STARTUP also ends when a round loses more
//! than 2 % of its data in at least six loss events, and the long-term and short-term bounds on
//! inflight (`inflight_hi`, `inflight_lo`, `bw_lo`) keep PROBE_BW near the loss threshold.
//!
//! State machine (draft 5.1; [`CongestionControl::phase`] returns the lower-case names):
//!
//! | state | pacing gain | cwnd gain | leaves to | when |
//! |---|---|---|---|---|
//! | `startup` | 2.77 (4 ln 2) | 2 | `drain` | full bandwidth (3 rounds < 25 % growth) or high loss (5.3.1.3) |
//! | `drain` | 0.5 | 2 | `probe_bw_down` | inflight <= BDP, or 3 rounds in DRAIN |
//! | `probe_bw_down` | 0.9 | 2 | `probe_bw_cruise` | inflight <= min(BDP, inflight_hi with headroom) |
//! | `probe_bw_down`, `_cruise` | 0.9, 1 | 2 | `probe_bw_refill` | 2-3 s since the cycle began, or the Reno-coexistence rounds |
//! | `probe_bw_refill` | 1 | 2 | `probe_bw_up` | one round (the lower bounds reset on entry) |
//! | `probe_bw_up` | 1.25 | 2.25 | `probe_bw_down` | loss rate > 2 % (inflight_hi cut), or the bandwidth stopped growing with cwnd at inflight_hi |
//! | any | 1 | 0.5 BDP cap | `probe_rtt` | no new min RTT for 5 s |
//! | `probe_rtt` | | | `probe_bw_down` / `startup` | 200 ms and a round at the cap |
//!
//! Interpretations (docs/algorithms/bbr3.md lists them all):
//! - Sizes in bytes, rates in bytes per second, floating point where the draft writes real
//!   numbers; the windowed maximum bandwidth is kept in whole bytes per second.
//! - The simulator has no ECN, so the ECN signals of the draft are absent.
//! - A "loss event" (the draft's discontiguous lost range, 5.3.1.3) is an ACK on which the
//!   sender newly marks data lost; the round's loss rate is the bytes marked lost in the round
//!   over the bytes delivered and lost in it (the draft judges each packet's `tx_in_flight`,
//!   which the simulator's rate samples do not carry).
//! - The "inflight too high" response of probing (5.5.10.2) is taken per ACK at the round's loss
//!   rate, with inflight_hi = max(the prior inflight, beta x target inflight).
//! - ACK-aggregation allowance (`extra_acked`, 5.5.9) and the offload budget are left out:
//!   the simulator sends single segments and its receivers do not aggregate ACKs unless a
//!   scenario asks for it.
//! - Loss recovery (5.6.4.4): on entry cwnd = inflight + the ACK's newly delivered bytes
//!   (packet conservation for one round), the pre-recovery cwnd restored on exit; a timeout
//!   leaves one segment, as in v1.

use crate::bbr::full_bw::FullBw;
use crate::bbr::win_minmax::WinMinmax;
use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::time::{Duration, Instant};

/// 4 ln 2: the smallest gain that lets the sending rate double each round (2.6).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
pub const STARTUP_CWND_GAIN: f64 = 2.0;
pub const DRAIN_PACING_GAIN: f64 = 0.5;
pub const DEFAULT_CWND_GAIN: f64 = 2.0;
pub const PROBE_DOWN_PACING_GAIN: f64 = 0.9;
pub const PROBE_UP_PACING_GAIN: f64 = 1.25;
pub const PROBE_UP_CWND_GAIN: f64 = 2.25;
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// 2.8: the loss rate a round may reach before inflight counts as too high.
pub const LOSS_THRESH: f64 = 0.02;
/// 2.8: multiplicative decrease of the short-term bounds on loss.
pub const BETA: f64 = 0.7;
/// 2.8: share of inflight_hi left free while cruising.
pub const HEADROOM: f64 = 0.15;
pub const MIN_PIPE_CWND_SEGMENTS: u64 = 4;
pub const PACING_MARGIN: f64 = 0.01;
/// 5.3.1.3: loss events in a round that, with a loss rate above LOSS_THRESH, end STARTUP.
pub const STARTUP_FULL_LOSS_CNT: u64 = 6;
/// 5.3.2: DRAIN gives up after this many rounds.
pub const DRAIN_MAX_ROUNDS: u64 = 3;
/// 2.11: the max-bandwidth filter spans two PROBE_BW cycles.
const MAX_BW_FILTER_LEN: u64 = 2;
const MIN_RTT_FILTER_LEN: Duration = Duration::from_secs(10);
const PROBE_RTT_INTERVAL: Duration = Duration::from_secs(5);
const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// 5.3.3.8: the wait between bandwidth probes is 2 s plus up to 1 s at random.
const PROBE_WAIT_BASE: Duration = Duration::from_secs(2);
/// 5.3.3.8: at most this many rounds between probes, for coexistence with Reno.
const RENO_ROUNDS_BOUND: u64 = 63;
const MAX_PROBE_UP_ROUNDS: u32 = 30;
/// 5.6.2: the RTT assumed for the initial pacing rate before any sample.
const INITIAL_PACING_RTT: Duration = Duration::from_millis(1);

const SEED: ParamSpec = ParamSpec {
    name: "seed",
    default: 1.0,
    min: 0.0,
    max: 65535.0,
    integer: true,
    doc: "seed of the deterministic draws of the probe wait (the draft draws them at random)",
};
const FULL_LOSS_CNT: ParamSpec = ParamSpec {
    name: "startup_full_loss_cnt",
    default: STARTUP_FULL_LOSS_CNT as f64,
    min: 1.0,
    max: 1000.0,
    integer: true,
    doc: "loss events in a round that, with more than 2 % lost, end STARTUP (draft 6; draft-cardwell-02 had 3)",
};

pub const BBR3: Registration = Registration {
    info: AlgorithmInfo {
        name: "bbr3",
        summary: "BBRv3: BBR's model with loss as a signal; STARTUP ends on a full pipe or > 2 % loss, inflight bounds in PROBE_BW",
        reference: "draft-ietf-ccwg-bbr-04 (BBR Congestion Control); Linux tcp_bbr.c, google/bbr v3 branch",
        params: &[SEED, FULL_LOSS_CNT],
    },
    build: |p, cfg| Box::new(Bbr3::from_params(p, cfg)),
    receiver_hook: None,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    fn is_probe_bw(self) -> bool {
        matches!(self, State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp)
    }
    /// States that probe for bandwidth: losses there do not cut the short-term bounds (5.5.10.3).
    fn is_probing_bw(self) -> bool {
        matches!(self, State::Startup | State::ProbeBwRefill | State::ProbeBwUp)
    }
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    mss: u64,
    initial_cwnd: u64,
    full_loss_cnt: u64,
    rng: u64,
    cwnd: u64,
    /// Bytes per second; 0 before the first rate is set.
    pacing_rate: f64,
    state: State,
    pacing_gain: f64,
    cwnd_gain: f64,

    // Rounds (2.7).
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    idle_restart: bool,
    drain_start_round: u64,

    // Model (2.9): max_bw over MAX_BW_FILTER_LEN cycles, in bytes per second.
    max_bw: WinMinmax,
    cycle_count: u64,
    bw_lo: Option<f64>,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Instant,
    probe_rtt_min_delay: Option<Duration>,
    probe_rtt_min_stamp: Instant,
    inflight_hi: Option<u64>,
    inflight_lo: Option<u64>,

    // Congestion signals of the current loss round (2.10).
    bw_latest: f64,
    inflight_latest: u64,
    loss_round_delivered: u64,
    loss_in_round: bool,
    loss_events_in_round: u64,
    lost_in_round: u64,
    delivered_at_loss_round: u64,
    lost_at_loss_round: u64,

    /// BBR.full_bw_reached: the pipe was found full once (STARTUP is over for good).
    filled_pipe: bool,
    /// The plateau detector: STARTUP's exit, and PROBE_UP's "no more bandwidth" (full_bw_now).
    full_bw: FullBw,

    // PROBE_BW (2.14).
    cycle_stamp: Instant,
    bw_probe_wait: Duration,
    rounds_since_bw_probe: u64,
    bw_probe_up_rounds: u32,
    bw_probe_up_acked: u64,
    probe_up_cnt: u64,

    // PROBE_RTT (2.16).
    probe_rtt_done_stamp: Option<Instant>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,

    // Recovery.
    in_recovery: bool,
    recovery_round_start: bool,
    recovery_end: u64,
    /// Newly delivered bytes of the latest ACK, for the recovery entry that follows it.
    last_acked: u64,

    // The connection, from the latest ACK.
    delivered: u64,
    lost: u64,
    inflight: u64,
    snd_max: u64,
}

impl Bbr3 {
    pub fn new(mss: u64, initial_cwnd: u64, seed: u64, full_loss_cnt: u64) -> Self {
        Bbr3 {
            mss,
            initial_cwnd,
            full_loss_cnt,
            rng: seed,
            cwnd: initial_cwnd,
            pacing_rate: 0.0,
            state: State::Startup,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            idle_restart: false,
            drain_start_round: 0,
            max_bw: WinMinmax::default(),
            cycle_count: 0,
            bw_lo: None,
            min_rtt: None,
            min_rtt_stamp: Instant::ZERO,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: Instant::ZERO,
            inflight_hi: None,
            inflight_lo: None,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_in_round: false,
            loss_events_in_round: 0,
            lost_in_round: 0,
            delivered_at_loss_round: 0,
            lost_at_loss_round: 0,
            filled_pipe: false,
            full_bw: FullBw::default(),
            cycle_stamp: Instant::ZERO,
            bw_probe_wait: PROBE_WAIT_BASE,
            rounds_since_bw_probe: 0,
            bw_probe_up_rounds: 0,
            bw_probe_up_acked: 0,
            probe_up_cnt: u64::MAX,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            in_recovery: false,
            recovery_round_start: false,
            recovery_end: 0,
            last_acked: 0,
            delivered: 0,
            lost: 0,
            inflight: 0,
            snd_max: 0,
        }
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        Bbr3::new(cfg.mss, cfg.initial_cwnd, p["seed"] as u64, p["startup_full_loss_cnt"] as u64)
    }

    pub fn bbr_state(&self) -> State {
        self.state
    }
    pub fn full_bw_reached(&self) -> bool {
        self.filled_pipe
    }
    pub fn inflight_hi(&self) -> Option<u64> {
        self.inflight_hi
    }
    pub fn inflight_lo(&self) -> Option<u64> {
        self.inflight_lo
    }
    /// The bandwidth the controls use, bytes per second: max_bw bounded by bw_lo (5.5.6).
    pub fn bw(&self) -> f64 {
        let max = self.max_bw.get() as f64;
        self.bw_lo.map_or(max, |lo| max.min(lo))
    }
    pub fn gains(&self) -> (f64, f64) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// A splitmix64 step in [0, 1): the deterministic stand-in for the draft's random draws.
    fn random_unit(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / 2f64.powi(64)
    }

    fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_SEGMENTS * self.mss
    }

    /// gain x bw x min_rtt in bytes (5.5.7 `BBRBDPMultiple`); the initial window before an RTT.
    fn bdp_multiple(&self, gain: f64) -> u64 {
        match self.min_rtt {
            Some(rtt) => (gain * self.bw() * rtt.as_secs_f64()) as u64,
            None => self.initial_cwnd,
        }
    }

    /// 5.5.7 `BBRInflight`: the BDP multiple, rounded up to an even number of segments, and two
    /// more segments in PROBE_UP so that small BDPs still probe.
    fn inflight(&self, gain: f64) -> u64 {
        let segs = self.bdp_multiple(gain).div_ceil(self.mss);
        let mut segs = segs.max(MIN_PIPE_CWND_SEGMENTS).next_multiple_of(2);
        if self.state == State::ProbeBwUp {
            segs += 2;
        }
        segs * self.mss
    }

    /// 5.5.8 `BBRInflightWithHeadroom`: inflight_hi less the headroom left for other flows.
    fn inflight_with_headroom(&self) -> Option<u64> {
        let hi = self.inflight_hi?;
        let headroom = ((HEADROOM * hi as f64) as u64).max(self.mss);
        Some(hi.saturating_sub(headroom).max(self.min_pipe_cwnd()))
    }

    fn set_state(&mut self, state: State) {
        self.state = state;
        (self.pacing_gain, self.cwnd_gain) = match state {
            State::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            State::Drain => (DRAIN_PACING_GAIN, STARTUP_CWND_GAIN),
            State::ProbeBwDown => (PROBE_DOWN_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwCruise | State::ProbeBwRefill => (1.0, DEFAULT_CWND_GAIN),
            State::ProbeBwUp => (PROBE_UP_PACING_GAIN, PROBE_UP_CWND_GAIN),
            State::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
    }

    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// 5.5.1: a round ends when the data sent at its start is delivered.
    fn update_round(&mut self, prior_delivered: u64) {
        self.round_start = prior_delivered >= self.next_round_delivered && self.delivered > prior_delivered;
        if self.round_start {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_bw_probe += 1;
        }
    }

    /// 5.5.10: the loss round's signals (`sample_delivered`: the rate sample's delivered bytes);
    /// at the round's end, STARTUP's high-loss exit and the short-term bounds.
    fn update_congestion_signals(
        &mut self,
        lost: u64,
        sample_delivered: u64,
        delivery_rate: Option<f64>,
        prior_delivered: u64,
    ) {
        if let Some(rate) = delivery_rate {
            self.bw_latest = self.bw_latest.max(rate);
        }
        self.inflight_latest = self.inflight_latest.max(sample_delivered);
        // An ACK that ends a loss round opens the next: its own losses count there.
        let loss_round_start = prior_delivered >= self.loss_round_delivered && self.delivered > prior_delivered;
        if loss_round_start {
            if self.loss_in_round {
                self.check_startup_high_loss();
                if !self.state.is_probing_bw() && self.filled_pipe {
                    self.loss_lower_bounds();
                }
            }
            self.loss_round_delivered = self.delivered;
            self.reset_loss_round();
        }
        if lost > 0 {
            self.loss_in_round = true;
            self.loss_events_in_round += 1;
            self.lost_in_round += lost;
        }
    }

    fn reset_loss_round(&mut self) {
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
        self.loss_in_round = false;
        self.loss_events_in_round = 0;
        self.lost_in_round = 0;
        self.delivered_at_loss_round = self.delivered;
        self.lost_at_loss_round = self.lost;
    }

    /// Bytes marked lost over bytes delivered or lost, in the current loss round.
    fn round_loss_rate(&self) -> f64 {
        let delivered = self.delivered - self.delivered_at_loss_round;
        let total = delivered + self.lost_in_round;
        if total == 0 {
            0.0
        } else {
            self.lost_in_round as f64 / total as f64
        }
    }

    /// 5.3.1.3 `BBRCheckStartupHighLoss`.
    fn check_startup_high_loss(&mut self) {
        if self.state != State::Startup || self.filled_pipe {
            return;
        }
        if self.round_loss_rate() > LOSS_THRESH && self.loss_events_in_round >= self.full_loss_cnt {
            self.filled_pipe = true;
            self.inflight_hi = Some(self.bdp_multiple(1.0).max(self.inflight_latest));
        }
    }

    /// 5.5.10.3 `BBRLossLowerBounds`, after `BBRInitLowerBounds`.
    fn loss_lower_bounds(&mut self) {
        let bw_lo = self.bw_lo.unwrap_or(self.max_bw.get() as f64);
        let inflight_lo = self.inflight_lo.unwrap_or(self.cwnd);
        self.bw_lo = Some(self.bw_latest.max(BETA * bw_lo));
        self.inflight_lo = Some(self.inflight_latest.max((BETA * inflight_lo as f64) as u64));
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = None;
        self.inflight_lo = None;
    }

    /// 5.5.10.2: while probing, a round losing more than LOSS_THRESH caps inflight_hi and ends the probe.
    fn check_inflight_too_high(&mut self, now: Instant, prior_in_flight: u64) {
        let probing = matches!(self.state, State::ProbeBwRefill | State::ProbeBwUp);
        if !probing || !self.loss_in_round || self.round_loss_rate() <= LOSS_THRESH {
            return;
        }
        let floor = (BETA * self.inflight(self.cwnd_gain) as f64) as u64;
        self.inflight_hi = Some(prior_in_flight.max(floor).max(self.min_pipe_cwnd()));
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(now);
        }
    }

    fn update_max_bw(&mut self, delivery_rate: Option<f64>, app_limited: bool) {
        let Some(rate) = delivery_rate else { return };
        let rate = rate as u64;
        if !app_limited || rate >= self.max_bw.get() {
            self.max_bw.running_max(MAX_BW_FILTER_LEN, self.cycle_count, rate);
        }
    }

    // PROBE_BW (5.3.3).

    fn start_probe_bw_down(&mut self, now: Instant) {
        self.full_bw.reset();
        self.probe_up_cnt = u64::MAX;
        // 5.3.3.8 BBRPickProbeWait: rounds and time to the next probe.
        self.rounds_since_bw_probe = (self.random_unit() * 2.0) as u64;
        self.bw_probe_wait = PROBE_WAIT_BASE + Duration::from_secs_f64(self.random_unit());
        self.cycle_stamp = now;
        self.cycle_count += 1;
        self.start_round();
        self.set_state(State::ProbeBwDown);
    }

    fn start_probe_bw_cruise(&mut self) {
        self.set_state(State::ProbeBwCruise);
    }

    fn start_probe_bw_refill(&mut self) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0;
        self.start_round();
        self.set_state(State::ProbeBwRefill);
    }

    fn start_probe_bw_up(&mut self, now: Instant) {
        self.cycle_stamp = now;
        self.start_round();
        self.full_bw.reset();
        self.set_state(State::ProbeBwUp);
        self.raise_inflight_hi_slope();
    }

    /// 5.3.3.5: inflight_hi grows by 1, 2, 4, ... segments per round while probing up.
    fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = self.mss << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_cnt = (self.cwnd / growth_this_round).max(1);
    }

    /// 5.3.3.5 `BBRProbeInflightHiUpward`: a cwnd-limited flow at inflight_hi pushes it up.
    fn probe_inflight_hi_upward(&mut self, acked: u64, cwnd_limited: bool) {
        let Some(hi) = self.inflight_hi else { return };
        if !cwnd_limited || self.cwnd < hi {
            return;
        }
        self.bw_probe_up_acked += acked;
        let per_segment = self.probe_up_cnt.saturating_mul(self.mss);
        if self.bw_probe_up_acked >= per_segment {
            let delta = self.bw_probe_up_acked / per_segment;
            self.bw_probe_up_acked -= delta * per_segment;
            self.inflight_hi = Some(hi + delta * self.mss);
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// 5.3.3.8 `BBRIsTimeToProbeBW` (without its REFILL side effect).
    fn is_time_to_probe_bw(&self, now: Instant) -> bool {
        let reno_rounds = (self.bdp_multiple(1.0) / self.mss).min(RENO_ROUNDS_BOUND);
        now - self.cycle_stamp > self.bw_probe_wait || self.rounds_since_bw_probe >= reno_rounds
    }

    fn update_probe_bw_cycle_phase(&mut self, now: Instant, rs_app_limited: bool, acked: u64, cwnd_limited: bool) {
        if !self.filled_pipe || !self.state.is_probe_bw() {
            return;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_hi_upward(acked, cwnd_limited);
        }
        match self.state {
            State::ProbeBwDown | State::ProbeBwCruise => {
                if self.is_time_to_probe_bw(now) {
                    self.start_probe_bw_refill();
                } else if self.state == State::ProbeBwDown {
                    let target = self.inflight(1.0).min(self.inflight_with_headroom().unwrap_or(u64::MAX));
                    if self.inflight <= target {
                        self.start_probe_bw_cruise();
                    }
                }
            }
            State::ProbeBwRefill if self.round_start => self.start_probe_bw_up(now),
            State::ProbeBwUp => {
                // 5.3.3.6 BBRIsTimeToGoDown: the probe found no more bandwidth.
                let at_hi = self.inflight_hi.is_some_and(|hi| cwnd_limited && self.cwnd >= hi);
                let plateau = self.full_bw.on_round(self.max_bw.get(), self.round_start, rs_app_limited);
                if at_hi {
                    self.full_bw.reset();
                } else if plateau {
                    self.start_probe_bw_down(now);
                }
            }
            _ => {}
        }
    }

    // PROBE_RTT (5.3.4).

    fn update_min_rtt(&mut self, now: Instant, rtt: Option<Duration>) {
        let expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(rtt) = rtt {
            if self.probe_rtt_min_delay.is_none_or(|d| rtt < d) || expired {
                self.probe_rtt_min_delay = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_FILTER_LEN;
        if let Some(d) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.min_rtt = Some(d);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if expired && !self.idle_restart && self.state != State::ProbeRtt {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
            self.probe_rtt_done_stamp = None;
            self.start_round();
            self.set_state(State::ProbeRtt);
        }
    }

    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(PROBE_RTT_CWND_GAIN).max(self.min_pipe_cwnd())
    }

    fn check_probe_rtt(&mut self, now: Instant) {
        if self.state != State::ProbeRtt {
            return;
        }
        match self.probe_rtt_done_stamp {
            None if self.inflight <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done {
                    self.exit_probe_rtt(now);
                }
            }
            None => {}
        }
    }

    fn exit_probe_rtt(&mut self, now: Instant) {
        self.probe_rtt_min_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_lower_bounds();
        if self.filled_pipe {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.set_state(State::Startup);
        }
    }

    // Controls (5.6).

    fn set_pacing_rate(&mut self) {
        let rate = self.pacing_gain * self.bw() * (1.0 - PACING_MARGIN);
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn init_pacing_rate(&mut self, rtt: Option<Duration>) {
        let rtt = rtt.filter(|r| !r.is_zero()).unwrap_or(INITIAL_PACING_RTT);
        self.pacing_rate = STARTUP_PACING_GAIN * self.cwnd as f64 / rtt.as_secs_f64();
    }

    /// 5.6.4.6 `BBRSetCwnd` with `BBRBoundCwndForModel`.
    fn set_cwnd(&mut self, acked: u64, lost: u64) {
        if lost > 0 {
            self.cwnd = self.cwnd.saturating_sub(lost).max(self.mss);
        }
        if self.in_recovery && self.recovery_round_start {
            // Packet conservation in the first round of recovery.
            self.cwnd = self.cwnd.max(self.inflight + acked);
        } else {
            let max_inflight = self.inflight(self.cwnd_gain);
            if self.filled_pipe {
                self.cwnd = (self.cwnd + acked).min(max_inflight);
            } else if self.cwnd < max_inflight || self.delivered < self.initial_cwnd {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        }
        let mut cap = u64::MAX;
        if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_hi.unwrap_or(u64::MAX);
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom().unwrap_or(u64::MAX);
        }
        cap = cap.min(self.inflight_lo.unwrap_or(u64::MAX)).max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        self.min_rtt_stamp = ev.now;
        self.probe_rtt_min_stamp = ev.now;
        self.min_rtt = ev.handshake_rtt;
        self.probe_rtt_min_delay = ev.handshake_rtt;
        self.init_pacing_rate(ev.handshake_rtt);
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        self.snd_max = self.snd_max.max(ev.seq + u64::from(ev.len));
        // 5.4.1 restart from idle: pace at the estimate, not above it.
        if ev.bytes_in_flight <= u64::from(ev.len) && ev.app_limited {
            self.idle_restart = true;
            if self.state.is_probe_bw() {
                self.pacing_rate = self.bw() * (1.0 - PACING_MARGIN);
            } else if self.state == State::ProbeRtt {
                self.check_probe_rtt(ev.now);
            }
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let rs = ev.rate.unwrap_or_default();
        let acked = ev.bytes_acked + ev.bytes_sacked;
        (self.delivered, self.lost) = match ev.rate {
            Some(rs) => (rs.total_delivered, rs.total_lost),
            None => (self.delivered + acked, self.lost),
        };
        self.inflight = ev.bytes_in_flight.saturating_sub(rs.dupack_credit);
        if self.in_recovery && ev.snd_una >= self.recovery_end {
            self.in_recovery = false;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        let now = ev.now;
        let prior_delivered = if ev.rate.is_some() { rs.prior_delivered } else { self.delivered - acked };
        let delivery_rate = rs.delivery_rate();
        self.update_round(prior_delivered);
        if self.round_start {
            self.recovery_round_start = false;
        }
        self.update_max_bw(delivery_rate, rs.is_app_limited);
        let sample_delivered = if ev.rate.is_some() { rs.delivered } else { acked };
        self.update_congestion_signals(rs.losses, sample_delivered, delivery_rate, prior_delivered);
        self.check_inflight_too_high(now, ev.prior_in_flight);
        // STARTUP's exits (5.3.1): a full pipe by bandwidth or by loss.
        if self.state == State::Startup && self.full_bw.on_round(self.max_bw.get(), self.round_start, rs.is_app_limited)
        {
            self.filled_pipe = true;
        }
        if self.state == State::Startup && self.filled_pipe {
            self.drain_start_round = self.round_count;
            self.set_state(State::Drain);
        }
        if self.state == State::Drain
            && (self.inflight <= self.inflight(1.0) || self.round_count >= self.drain_start_round + DRAIN_MAX_ROUNDS)
        {
            self.start_probe_bw_down(now);
        }
        self.update_probe_bw_cycle_phase(now, rs.is_app_limited, acked, ev.cwnd_limited);
        self.update_min_rtt(now, rs.rtt.or(ev.rtt_sample));
        self.check_probe_rtt(now);
        if rs.delivered > 0 || acked > 0 {
            self.idle_restart = false;
        }
        self.set_pacing_rate();
        self.last_acked = acked;
        self.set_cwnd(acked, rs.losses);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.prior_cwnd =
            if self.in_recovery || self.state == State::ProbeRtt { self.prior_cwnd.max(self.cwnd) } else { self.cwnd };
        self.in_recovery = true;
        self.recovery_round_start = true;
        self.recovery_end = ev.high_data;
        self.cwnd = (self.inflight + self.last_acked).max(self.mss);
    }

    fn on_recovery_exit(&mut self, _ev: &RecoveryExitEvent) {
        if self.in_recovery {
            self.in_recovery = false;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        if ev.consecutive <= 1 {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
        self.cwnd = self.mss;
        self.in_recovery = true;
        self.recovery_round_start = false;
        self.recovery_end = self.snd_max;
    }

    fn state(&self) -> CcState {
        CcState {
            cwnd: self.cwnd,
            ssthresh: if self.filled_pipe { self.inflight(1.0) } else { u64::MAX },
            pacing_rate: (self.pacing_rate > 0.0).then_some(self.pacing_rate),
            in_slow_start: self.state == State::Startup,
            phase: match self.state {
                State::Startup => "startup",
                State::Drain => "drain",
                State::ProbeBwDown => "probe_bw_down",
                State::ProbeBwCruise => "probe_bw_cruise",
                State::ProbeBwRefill => "probe_bw_refill",
                State::ProbeBwUp => "probe_bw_up",
                State::ProbeRtt => "probe_rtt",
            },
            sets_recovery_window: true,
            marks_app_limited: self.state == State::ProbeRtt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::RateSample;

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(100);

    /// A fake connection on a fake clock: rounds of ACKs with explicit rate samples.
    struct Drive {
        cc: Bbr3,
        now: Instant,
        delivered: u64,
        lost: u64,
        inflight: u64,
    }

    impl Drive {
        fn new() -> Self {
            let mut cc = Bbr3::new(MSS, 10 * MSS, 1, STARTUP_FULL_LOSS_CNT);
            cc.on_established(&EstablishedEvent { handshake_rtt: Some(RTT), ..Default::default() });
            Drive { cc, now: Instant::ZERO, delivered: 0, lost: 0, inflight: 20 * MSS }
        }

        /// One round of `acks` ACKs of one segment each, measuring `rate` bytes per second;
        /// the first `loss_events` of them each mark `lost_each` bytes lost.
        fn round(&mut self, acks: u64, rate: f64, loss_events: u64, lost_each: u64) {
            let prior = self.delivered;
            for i in 0..acks {
                self.now = self.now + RTT / acks as u32;
                self.delivered += MSS;
                let losses = if i < loss_events { lost_each } else { 0 };
                self.lost += losses;
                let rs = RateSample {
                    delivered: (self.delivered - prior).max(MSS),
                    interval: Some(Duration::from_secs_f64((self.delivered - prior).max(MSS) as f64 / rate)),
                    prior_delivered: prior,
                    rtt: Some(RTT),
                    losses,
                    acked_sacked: MSS,
                    total_delivered: self.delivered,
                    total_lost: self.lost,
                    ..Default::default()
                };
                self.cc.on_ack(&AckEvent {
                    now: self.now,
                    bytes_acked: MSS,
                    prior_in_flight: self.inflight + MSS,
                    bytes_in_flight: self.inflight,
                    cwnd_limited: true,
                    snd_una: self.delivered,
                    rate: Some(rs),
                    ..Default::default()
                });
            }
        }
    }

    #[test]
    fn each_state_has_the_drafts_gains() {
        let mut cc = Bbr3::new(MSS, 10 * MSS, 1, STARTUP_FULL_LOSS_CNT);
        let gains = |cc: &mut Bbr3, s| {
            cc.set_state(s);
            cc.gains()
        };
        assert_eq!(gains(&mut cc, State::Startup), (2.77, 2.0));
        assert_eq!(gains(&mut cc, State::Drain), (0.5, 2.0));
        assert_eq!(gains(&mut cc, State::ProbeBwDown), (0.9, 2.0));
        assert_eq!(gains(&mut cc, State::ProbeBwCruise), (1.0, 2.0));
        assert_eq!(gains(&mut cc, State::ProbeBwRefill), (1.0, 2.0));
        assert_eq!(gains(&mut cc, State::ProbeBwUp), (1.25, 2.25));
        assert_eq!(gains(&mut cc, State::ProbeRtt), (1.0, 0.5));
        assert_eq!((LOSS_THRESH, BETA, HEADROOM, STARTUP_FULL_LOSS_CNT), (0.02, 0.7, 0.15, 6));
    }

    #[test]
    fn startup_paces_at_2_77_times_the_estimate_and_grows_the_window() {
        let mut d = Drive::new();
        // Before any sample: 2.77 x IW / handshake RTT.
        assert_eq!(d.cc.state().pacing_rate, Some(2.77 * 10_000.0 / 0.1));
        d.round(10, 1e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::Startup);
        assert_eq!(d.cc.state().cwnd, 20 * MSS, "every ACKed byte grows cwnd below 2 BDP");
        d.round(20, 2e6, 0, 0);
        // bw 2 MB/s: pacing 2.77 x 2e6 x 0.99.
        assert!((d.cc.state().pacing_rate.unwrap() - 2.77 * 2e6 * 0.99).abs() < 1.0);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_growth_then_drains() {
        let mut d = Drive::new();
        for (acks, rate) in [(10, 1e6), (20, 2e6), (40, 4e6)] {
            d.round(acks, rate, 0, 0);
        }
        d.round(40, 4.5e6, 0, 0);
        d.round(40, 4.5e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::Startup, "two flat rounds");
        d.inflight = 900 * MSS;
        d.round(40, 4.5e6, 0, 0);
        assert_eq!((d.cc.bbr_state(), d.cc.full_bw_reached()), (State::Drain, true));
        assert_eq!(d.cc.inflight_hi(), None, "no loss: no bound");
        // BDP = 4.5 MB/s x 100 ms = 450 kB: DRAIN ends once inflight is down to it, and
        // PROBE_BW_DOWN, with nothing above the BDP, cruises on the same ACK.
        d.inflight = 460 * MSS;
        d.round(1, 4.5e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::Drain);
        d.inflight = 450 * MSS;
        d.round(1, 4.5e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwCruise);
    }

    #[test]
    fn startup_ends_on_a_round_with_six_loss_events_above_two_percent() {
        // Five events or a low rate do not end it; six events losing > 2 % do.
        for (events, lost_each, exits) in [(5, 2 * MSS, false), (6, 50, false), (6, 2 * MSS, true)] {
            let mut d = Drive::new();
            d.round(10, 1e6, 0, 0);
            d.round(20, 2e6, events, lost_each);
            // The loss round ends with the next round's first ACK.
            d.inflight = 100 * MSS;
            d.round(1, 2e6, 0, 0);
            let state = d.cc.bbr_state();
            assert_eq!(state != State::Startup, exits, "{events} events of {lost_each} B: {state:?}");
            if exits {
                // inflight_hi = max(BDP (2 MB/s x 100 ms), the round's largest sample).
                assert_eq!(d.cc.inflight_hi(), Some(200 * MSS));
            }
        }
    }

    #[test]
    fn drain_gives_up_after_three_rounds() {
        let mut d = Drive::new();
        d.round(10, 1e6, 0, 0);
        d.round(20, 2e6, 6, 2 * MSS);
        d.inflight = 1000 * MSS;
        d.round(1, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::Drain);
        d.round(20, 2e6, 0, 0);
        d.round(20, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::Drain);
        d.round(20, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwDown, "three rounds, still above the BDP");
    }

    #[test]
    fn probe_bw_cruises_then_refills_and_probes_up() {
        let mut d = Drive::new();
        d.round(10, 1e6, 0, 0);
        d.round(20, 2e6, 6, 2 * MSS);
        // Out of DRAIN into PROBE_BW_DOWN, which holds while inflight is above the BDP
        // (200 kB) and inflight_hi (200 kB) less its headroom (170 kB).
        d.inflight = 190 * MSS;
        d.round(1, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwDown);
        assert_eq!(d.cc.gains(), (0.9, 2.0));
        d.inflight = 170 * MSS;
        d.round(10, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwCruise);
        // The Reno-coexistence bound: min(BDP in segments, 63) = 63 rounds at most; the wait
        // of 2-3 s (20-30 rounds of 100 ms) comes first.
        let mut rounds = 0;
        while d.cc.bbr_state() == State::ProbeBwCruise {
            d.round(10, 2e6, 0, 0);
            rounds += 1;
        }
        assert!((19..=31).contains(&rounds), "{rounds} rounds of cruising");
        assert_eq!(d.cc.bbr_state(), State::ProbeBwRefill);
        assert_eq!(d.cc.inflight_lo(), None, "REFILL resets the short-term bounds");
        d.round(10, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwUp);
        assert_eq!(d.cc.gains(), (1.25, 2.25));
        // Loss above 2 % while probing up: back down, inflight_hi = max(prior inflight 251 kB,
        // 0.7 x the UP target: 2.25 BDP = 450 segments + 2).
        d.inflight = 250 * MSS;
        d.round(10, 2e6, 3, 2 * MSS);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwDown);
        assert_eq!(d.cc.inflight_hi(), Some(316_400));
    }

    #[test]
    fn probe_rtt_after_five_seconds_caps_cwnd_at_half_the_bdp() {
        let mut d = Drive::new();
        d.round(10, 1e6, 0, 0);
        d.round(20, 2e6, 6, 2 * MSS);
        d.inflight = 150 * MSS;
        d.round(1, 2e6, 0, 0);
        // RTT samples stay at 100 ms (no new minimum) for 5 s: 50 rounds.
        while d.cc.bbr_state() != State::ProbeRtt {
            d.round(10, 2e6, 0, 0);
            assert!(d.now < Instant::ZERO + Duration::from_secs(6), "no PROBE_RTT by 6 s");
        }
        assert!(d.now > Instant::ZERO + PROBE_RTT_INTERVAL);
        // 0.5 x 2 MB/s x 100 ms = 100 kB.
        assert_eq!(d.cc.state().cwnd, 100 * MSS);
        assert!(d.cc.state().marks_app_limited);
        d.inflight = 80 * MSS;
        d.round(10, 2e6, 0, 0);
        d.round(10, 2e6, 0, 0);
        d.round(10, 2e6, 0, 0);
        assert_eq!(d.cc.bbr_state(), State::ProbeBwCruise, "200 ms and a round at the cap, then cruise");
    }
}
