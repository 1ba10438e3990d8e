//! BBR v1 (Bottleneck Bandwidth and RTT), following Linux `net/ipv4/tcp_bbr.c` as in mainline
//! (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016).
//!
//! BBR keeps a model of the path, a windowed maximum of delivery-rate samples (`bw`, 10
//! packet-timed rounds) and a windowed minimum RTT (`min_rtt`, 10 s), and sets
//! `pacing_rate = pacing_gain x bw` and `cwnd = cwnd_gain x bw x min_rtt` (+ allowances).
//!
//! State machine (Linux names; [`CongestionControl::phase`] returns them in lower case):
//! ```text
//!      +---> STARTUP  ----+      STARTUP:   pacing and cwnd gain 2/ln2 (739/256)
//!      |        |         |      DRAIN:     pacing gain 88/256 (1/high_gain), cwnd gain 739/256
//!      |        V         |      PROBE_BW:  pacing gains 5/4, 3/4, 1 x 6 (cycled, one phase per
//!      |      DRAIN   ----+                 min_rtt), cwnd gain 2
//!      |        |         |      PROBE_RTT: gains 1, cwnd capped at 4 packets
//!      |        V         |
//!      +---> PROBE_BW ----+      STARTUP -> DRAIN: the max bw grew < 25 % in 3 rounds
//!      |      ^    |      |      DRAIN -> PROBE_BW: inflight <= 1 BDP
//!      |      +----+      |      any -> PROBE_RTT: min_rtt not refreshed for 10 s
//!      +---- PROBE_RTT <--+      PROBE_RTT -> PROBE_BW / STARTUP: 200 ms and one round at
//!                                <= 4 packets (STARTUP if the pipe was never full)
//! ```
//! Also as in Linux: packet conservation in the first round of fast recovery and restore of the
//! pre-recovery cwnd on exit; RTO handling (`bbr_set_state(TCP_CA_Loss)`); the long-term
//! ("policer") bandwidth estimator; the ACK-aggregation cwnd allowance; the 1 % pacing margin;
//! the cwnd quantization budget; restart from idle. Arithmetic is Linux's fixed point: gains
//! x256 (`BBR_UNIT`), bandwidth in packets per microsecond x2^24 (`BW_UNIT`), windows in packets.
//!
//! Interpretations for the simulator (see docs/algorithms/bbr.md):
//! - Linux calls BBR after its recovery state machine on each ACK; the simulator's sender calls
//!   [`CongestionControl::on_ack`] first and reports recovery entry afterwards. So the entry step
//!   (save cwnd, `cwnd = inflight + acked`) runs in `on_congestion` with that ACK's numbers, and
//!   the exits (recovery point or, after an RTO, the highest sequence sent at the timeout
//!   acknowledged) are detected in `on_ack` from `snd_una`, as Linux does, before the model update.
//! - `tso_segs_goal` (TSO/GSO burst size) enters the cwnd budget (`+3 x goal`) and the
//!   in-network estimate. The simulator sends single segments; by default the goal is still
//!   computed from the pacing rate as a Linux host with GSO would (1 ms of data, at least 2
//!   segments above 1.2 Mbit/s), so cwnd matches Linux's; the `tso_segs_goal` parameter fixes it
//!   (1 models a host without segmentation offload).
//! - The random start of the PROBE_BW gain cycle comes from a deterministic generator seeded by
//!   the `seed` parameter.
//! - Bytes are converted to packets by rounding up (the simulator's segments are full-sized except
//!   the last of a transfer).
//! - `tcp_packets_in_flight` is the sender's in-flight count minus the duplicate-ACK credit
//!   ([`RateSample::dupack_credit`], non-zero only without SACK); the sender's RFC 6582 window
//!   inflation moves by the same amounts as Linux's Reno `sacked_out`, so cwnd + inflation
//!   against the sender's in-flight count is Linux's cwnd against `tcp_packets_in_flight`.
//! - The earliest departure time of `bbr_packets_in_net_at_edt` is mirrored from [`SentEvent`]s
//!   with the sender's pacing rule (payload bytes / pacing rate after the later of the previous
//!   departure and now).
//! - Linux skips min_rtt samples from ACKs it suspects delayed (a lone sub-MSS segment); the
//!   simulator's segments are full-sized, so that rule is left out.

pub mod full_bw;
pub mod win_minmax;

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RateSample, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::time::{Duration, Instant};
use full_bw::FullBw;
use win_minmax::WinMinmax;

/// Bandwidth scale: packets per microsecond x 2^24.
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gain scale: x 256.
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;

const CYCLE_LEN: usize = 8;
/// Window of the bandwidth max filter, in rounds.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
const MIN_RTT_WIN: Duration = Duration::from_secs(10);
const PROBE_RTT_MODE: Duration = Duration::from_millis(200);
/// Below this pacing rate (bit/s) the TSO goal is one segment.
const MIN_TSO_RATE: u64 = 1_200_000;
const PACING_MARGIN_PERCENT: u64 = 1;
/// 2/ln2 rounded up: 739/256 = 2.887.
pub const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
/// 1/high_gain: 88/256 = 0.344.
pub const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
pub const CWND_GAIN: u64 = BBR_UNIT * 2;
pub const PACING_GAIN: [u64; CYCLE_LEN] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// The cycle starts at one of this many phases (never the 3/4 drain phase).
const CYCLE_RAND: u64 = 7;
pub const CWND_MIN_TARGET: u64 = 4;
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
/// 4 kbit/s in bytes per second.
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// Linux TCP_INIT_CWND: the cwnd target before any RTT sample.
const TCP_INIT_CWND: u64 = 10;
/// Largest GSO burst in bytes (GSO_MAX_SIZE - 1 - MAX_TCP_HEADER on x86-64).
const GSO_MAX_BYTES: u64 = 65536 - 1 - 320;
/// Linux `sk_pacing_shift`: a TSO burst holds about 1 ms (2^-10 s) of data.
const PACING_SHIFT: u32 = 10;

const SEED: ParamSpec = ParamSpec {
    name: "seed",
    default: 1.0,
    min: 0.0,
    max: 65535.0,
    integer: true,
    doc: "seed of the deterministic choice of the first PROBE_BW gain phase (Linux draws it at random)",
};
const TSO_SEGS_GOAL: ParamSpec = ParamSpec {
    name: "tso_segs_goal",
    default: 0.0,
    min: 0.0,
    max: 64.0,
    integer: true,
    doc:
        "segments per TSO burst in the cwnd budget: 0 = Linux's rule from the pacing rate, 1 = no segmentation offload",
};

pub const BBR: Registration = Registration {
    info: AlgorithmInfo {
        name: "bbr",
        summary: "BBR v1: model-based; paces at the max delivery rate, cwnd 2 BDP; STARTUP/DRAIN/PROBE_BW/PROBE_RTT",
        reference: "Linux net/ipv4/tcp_bbr.c (BBR v1); Cardwell et al., ACM Queue 2016",
        params: &[SEED, TSO_SEGS_GOAL],
    },
    build: |p, cfg| Box::new(Bbr::from_params(p, cfg)),
    receiver_hook: None,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The sender's loss-recovery state as Linux names it (only what BBR distinguishes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    mss: u64,
    /// Fixed TSO goal, or 0 for Linux's rule.
    tso_segs_fixed: u64,
    rng: u64,
    // Window, in packets; ssthresh in packets (`None` = infinite).
    cwnd: u64,
    ssthresh: Option<u64>,
    /// Pacing rate in bytes per second (0 = not pacing, as in Linux).
    pacing_rate: u64,
    /// Earliest departure time of the next segment, as the sender's pacing computes it.
    next_departure: Instant,

    mode: Mode,
    ca_state: CaState,
    prev_ca_state: CaState,
    /// Recovery ends when snd_una reaches this (the recovery point, or snd_nxt at an RTO).
    recovery_end: u64,
    snd_max: u64,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    /// `u64::MAX` until a sample exists.
    min_rtt_us: u64,
    min_rtt_stamp: Instant,
    probe_rtt_done_stamp: Option<Instant>,
    bw: WinMinmax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_mstamp: Instant,
    cycle_idx: usize,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw: FullBw,
    has_seen_rtt: bool,
    prior_cwnd: u64,

    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    /// Milliseconds, like Linux.
    lt_last_stamp: u64,
    lt_last_lost: u64,

    ack_epoch_mstamp: Instant,
    extra_acked: [u64; 2],
    ack_epoch_acked: u64,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,

    // The connection as Linux's `tcp_sock` shows it, in packets, from the latest ACK.
    delivered: u64,
    delivered_mstamp: Instant,
    lost: u64,
    /// Totals in bytes, kept for ACKs that come without a rate sample.
    delivered_bytes: u64,
    lost_bytes: u64,
    inflight: u64,
    /// acked packets and the cwnd before the latest ACK, for the recovery entry that follows it.
    last_acked: u64,
    cwnd_before_ack: u64,
}

fn us(d: Duration) -> u64 {
    d.as_micros() as u64
}

impl Bbr {
    pub fn new(mss: u64, initial_cwnd: u64, seed: u64, tso_segs_goal: u64) -> Self {
        let mut bbr = Bbr {
            mss,
            tso_segs_fixed: tso_segs_goal,
            rng: seed,
            cwnd: initial_cwnd.div_ceil(mss).max(1),
            ssthresh: None,
            pacing_rate: 0,
            next_departure: Instant::ZERO,
            mode: Mode::Startup,
            ca_state: CaState::Open,
            prev_ca_state: CaState::Open,
            recovery_end: 0,
            snd_max: 0,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            min_rtt_us: u64::MAX,
            min_rtt_stamp: Instant::ZERO,
            probe_rtt_done_stamp: None,
            bw: WinMinmax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: Instant::ZERO,
            cycle_idx: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: FullBw::default(),
            has_seen_rtt: false,
            prior_cwnd: 0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            ack_epoch_mstamp: Instant::ZERO,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            delivered: 0,
            delivered_mstamp: Instant::ZERO,
            lost: 0,
            delivered_bytes: 0,
            lost_bytes: 0,
            inflight: 0,
            last_acked: 0,
            cwnd_before_ack: 0,
        };
        bbr.init(Instant::ZERO, None);
        bbr
    }

    fn from_params(p: &Params, cfg: &CcConfig) -> Self {
        Bbr::new(cfg.mss, cfg.initial_cwnd, p["seed"] as u64, p["tso_segs_goal"] as u64)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The bandwidth estimate in bytes per second (without pacing margin or gain).
    pub fn bw_bytes_per_sec(&self) -> f64 {
        self.bw() as f64 * self.mss as f64 * 1e6 / BW_UNIT as f64
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        (self.min_rtt_us != u64::MAX).then(|| Duration::from_micros(self.min_rtt_us))
    }
    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }
    pub fn cwnd_gain(&self) -> u64 {
        self.cwnd_gain
    }
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw.reached
    }
    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }
    pub fn cwnd_packets(&self) -> u64 {
        self.cwnd
    }

    fn pkts(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss)
    }

    /// Linux `bbr_init`, run when the connection is established.
    fn init(&mut self, now: Instant, min_rtt: Option<Duration>) {
        self.ssthresh = None;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = self.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = None;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = min_rtt.map_or(u64::MAX, us);
        self.min_rtt_stamp = now;
        self.bw.reset(self.rtt_cnt, 0);
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(min_rtt);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw.reset();
        self.cycle_mstamp = Instant::ZERO;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling();
        self.mode = Mode::Startup;
        self.update_gains();
        self.ack_epoch_mstamp = now;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
    }

    /// A splitmix64 step: deterministic stand-in for Linux's `get_random_u32_below`.
    fn random_below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }
    fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }
    fn extra_acked_max(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// Bytes per second for a bandwidth and gain, with the 1 % pacing margin
    /// (`bbr_rate_bytes_per_sec`; u128 where Linux relies on its rate range for u64).
    fn rate_bytes_per_sec(&self, bw: u64, gain: u64) -> u64 {
        let mut rate = bw as u128 * self.mss as u128;
        rate = (rate * gain as u128) >> BBR_SCALE;
        rate *= (1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) as u128;
        (rate >> BW_SCALE) as u64
    }

    /// high_gain x cwnd / srtt, or over a nominal 1 ms before any RTT sample.
    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<Duration>) {
        let rtt_us = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                us(r).max(1)
            }
            None => 1000,
        };
        let bw = self.cwnd * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    fn set_pacing_rate(&mut self, bw: u64, gain: u64, srtt: Option<Duration>) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt);
        }
        // Until the pipe is full the rate only grows, so a low early sample cannot slow start-up.
        if self.full_bw.reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Segments per TSO burst: 1 ms of data at the pacing rate, at least 1 (below 1.2 Mbit/s)
    /// or 2 segments (`bbr_tso_segs_goal`), unless the parameter fixes it.
    fn tso_segs_goal(&self) -> u64 {
        if self.tso_segs_fixed > 0 {
            return self.tso_segs_fixed;
        }
        let min_segs = if self.pacing_rate < MIN_TSO_RATE / 8 { 1 } else { 2 };
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(GSO_MAX_BYTES);
        (bytes / self.mss).max(min_segs)
    }

    /// ceil(bw x min_rtt x gain) in packets; the initial window before any RTT sample.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        if self.min_rtt_us == u64::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        (((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128)) as u64
    }

    /// Room for full-sized bursts in the end hosts, an even count against delayed ACKs, and two
    /// more packets in the probing phase so small BDPs still probe.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    fn inflight_target(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Packets in the network when the next segment departs: what pacing has already scheduled
    /// minus what the path delivers before then (`bbr_packets_in_net_at_edt`).
    fn packets_in_net_at_edt(&self, now: Instant, inflight_now: u64) -> u64 {
        let interval_us = us(self.next_departure.max(now) - now);
        let interval_delivered = ((self.bw() as u128 * interval_us as u128) >> BW_SCALE) as u64;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    fn ack_aggregation_cwnd(&self) -> u64 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw.reached {
            return 0;
        }
        let max_aggr_cwnd = self.bw() * EXTRA_ACKED_MAX_US / BW_UNIT;
        ((EXTRA_ACKED_GAIN * self.extra_acked_max()) >> BBR_SCALE).min(max_aggr_cwnd)
    }

    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            // Recovery or PROBE_RTT cut cwnd for now: keep the larger value from before.
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Packet conservation in the first round of recovery, restore on exit
    /// (`bbr_set_cwnd_to_recover_or_restore`). Returns the cwnd and whether conservation rules.
    fn recover_or_restore(&mut self, losses: u64, acked: u64) -> (u64, bool) {
        let mut cwnd = self.cwnd;
        if losses > 0 {
            cwnd = cwnd.saturating_sub(losses).max(1);
        }
        let state = self.ca_state;
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            // Cut what the window had unused: send one packet per packet delivered.
            cwnd = self.inflight + acked;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(self.inflight + acked), true);
        }
        (cwnd, false)
    }

    fn apply_caps(&mut self) {
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }

    fn set_cwnd(&mut self, losses: u64, acked: u64, bw: u64, gain: u64) {
        if acked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(losses, acked);
            if !conserving {
                let target = self.quantization_budget(self.bdp(bw, gain) + self.ack_aggregation_cwnd());
                if self.full_bw.reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
            self.cwnd = cwnd;
        }
        self.apply_caps();
    }

    fn is_next_cycle_phase(&self, now: Instant, rs: &RateSample, prior_in_flight: u64) -> bool {
        let is_full_length = us(self.delivered_mstamp - self.cycle_mstamp) > self.min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(now, prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probe until inflight reaches pacing_gain x BDP, unless packets are being lost.
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight_target(bw, self.pacing_gain));
        }
        // Drain until the queue we added is gone, but no longer than a min_rtt.
        is_full_length || inflight <= self.inflight_target(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_mstamp = self.delivered_mstamp;
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_RAND) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if self.full_bw.reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp = self.delivered_mstamp.as_nanos() / 1_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// Two consecutive lossy intervals with about the same rate: a policer. Use their average.
    fn lt_bw_interval_done(&mut self, bw: u64) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt_bw || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// Long-term ("policer") bandwidth sampling (`bbr_lt_bw_sampling`).
    fn lt_bw_sampling(&mut self, losses: u64, is_app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, once the policer's token bucket is empty.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        // End the interval at a loss, when the tokens are exhausted.
        if losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = self.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_mstamp.as_nanos() / 1_000_000) as i64 - self.lt_last_stamp as i64;
        if t_ms < 1 {
            return;
        }
        let bw = delivered * BW_UNIT / (t_ms as u64 * 1000);
        self.lt_bw_interval_done(bw);
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(interval_us) = rs.interval.map(us).filter(|&i| i > 0) else { return };
        if self.pkts(rs.prior_delivered) >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(self.pkts(rs.losses), rs.is_app_limited);
        let bw = self.pkts(rs.delivered) * BW_UNIT / interval_us;
        // App-limited samples only count when they raise the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// Windowed max of data ACKed beyond what bw predicts (ACK aggregation), 5-10 rounds.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        let acked = self.pkts(rs.acked_sacked);
        if EXTRA_ACKED_GAIN == 0 || acked == 0 || rs.interval.is_none_or(|i| us(i) == 0) {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us(self.delivered_mstamp - self.ack_epoch_mstamp);
        let mut expected_acked = self.bw() * epoch_us / BW_UNIT;
        // A new epoch when ACKs arrive slower than expected or the epoch is very old.
        if self.ack_epoch_acked <= expected_acked || self.ack_epoch_acked + acked >= ACK_EPOCH_ACKED_RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected_acked).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    fn update_cycle_phase(&mut self, now: Instant, rs: &RateSample, prior_in_flight: u64) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(now, rs, prior_in_flight) {
            self.advance_cycle_phase();
        }
    }

    /// Full pipe: three non-app-limited rounds in a row without 25 % growth of the max bw.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        self.full_bw.on_round(self.max_bw(), self.round_start, rs.is_app_limited);
    }

    fn check_drain(&mut self, now: Instant) {
        if self.mode == Mode::Startup && self.full_bw.reached {
            self.mode = Mode::Drain;
            self.ssthresh = Some(self.inflight_target(self.max_bw(), BBR_UNIT));
        }
        // Possibly drained at once.
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(now, self.inflight) <= self.inflight_target(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    fn check_probe_rtt_done(&mut self, now: Instant) {
        if self.probe_rtt_done_stamp.is_none_or(|d| now <= d) {
            return;
        }
        // Next PROBE_RTT in 10 s at the earliest.
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// min_rtt filter and PROBE_RTT entry and exit (`bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, now: Instant, rs: &RateSample) {
        let filter_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        // Linux also skips samples from ACKs it suspects were delayed (a lone sub-MSS segment).
        if let Some(rtt) = rs.rtt {
            if us(rtt) < self.min_rtt_us || filter_expired {
                self.min_rtt_us = us(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Hold at most 4 packets for max(200 ms, 1 round).
            if self.probe_rtt_done_stamp.is_none() && self.inflight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_MODE);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
        // Restart from idle ends with the first ACK that delivers data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt_use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// Takes the connection state from an ACK; builds a sample-less one for callers without a
    /// delivery-rate estimator.
    fn observe(&mut self, ev: &AckEvent) -> RateSample {
        let rs = ev.rate.unwrap_or_else(|| {
            let acked_sacked = ev.bytes_acked + ev.bytes_sacked;
            RateSample {
                acked_sacked,
                rtt: ev.rtt_sample,
                total_delivered: self.delivered_bytes + acked_sacked,
                total_lost: self.lost_bytes,
                delivered_time: if acked_sacked > 0 { ev.now } else { self.delivered_mstamp },
                ..RateSample::default()
            }
        });
        self.delivered_bytes = rs.total_delivered;
        self.lost_bytes = rs.total_lost;
        self.delivered = self.pkts(rs.total_delivered);
        self.lost = self.pkts(rs.total_lost);
        self.delivered_mstamp = rs.delivered_time;
        self.inflight = self.pkts(ev.bytes_in_flight.saturating_sub(rs.dupack_credit));
        rs
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        self.init(ev.now, ev.handshake_rtt);
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        self.snd_max = self.snd_max.max(ev.seq + ev.len as u64);
        // Restart from idle (Linux CA_EVENT_TX_START: sending with nothing in flight).
        if ev.bytes_in_flight <= ev.len as u64 && ev.app_limited {
            self.idle_restart = true;
            self.ack_epoch_mstamp = ev.now;
            self.ack_epoch_acked = 0;
            // Pace at the estimated bw if restarting app-limited: no need to build a queue.
            match self.mode {
                Mode::ProbeBw => self.set_pacing_rate(self.bw(), BBR_UNIT, None),
                Mode::ProbeRtt => self.check_probe_rtt_done(ev.now),
                _ => {}
            }
        }
        // The sender's departure-time pacing, mirrored for the in-network estimate.
        if self.pacing_rate > 0 {
            let gap = Duration::from_secs_f64(ev.len as f64 / self.pacing_rate as f64);
            self.next_departure = self.next_departure.max(ev.now) + gap;
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let rs = self.observe(ev);
        // Recovery (or the loss state after an RTO) ends before the model update, as in Linux.
        if self.ca_state > CaState::Open && ev.snd_una >= self.recovery_end {
            self.ca_state = CaState::Open;
        }
        let now = ev.now;
        let prior_in_flight = self.pkts(ev.prior_in_flight.saturating_sub(rs.dupack_credit));
        self.update_bw(&rs);
        self.update_ack_aggregation(&rs);
        self.update_cycle_phase(now, &rs, prior_in_flight);
        self.check_full_bw_reached(&rs);
        self.check_drain(now);
        self.update_min_rtt(now, &rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, ev.srtt);
        self.cwnd_before_ack = self.cwnd;
        self.last_acked = self.pkts(rs.acked_sacked);
        self.set_cwnd(self.pkts(rs.losses), self.last_acked, bw, self.cwnd_gain);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        // Linux saves cwnd (its ssthresh hook) before this ACK's cwnd update; ours already ran.
        let cwnd = self.cwnd;
        self.cwnd = self.cwnd_before_ack;
        self.save_cwnd();
        self.cwnd = cwnd;
        self.ca_state = CaState::Recovery;
        self.recovery_end = ev.high_data;
        if self.last_acked > 0 {
            (self.cwnd, _) = self.recover_or_restore(0, self.last_acked);
        }
        self.apply_caps();
    }

    fn on_recovery_exit(&mut self, _ev: &RecoveryExitEvent) {
        // The ACK that ended recovery already showed it (snd_una reached the recovery point)
        // and restored cwnd; this covers a sender that ends recovery on other grounds.
        if self.ca_state == CaState::Recovery {
            self.ca_state = CaState::Open;
            self.prev_ca_state = CaState::Open;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
            self.apply_caps();
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        // Linux tcp_enter_loss: ssthresh hook (save cwnd) on the first timeout of an episode,
        // cwnd = packets in flight (none: all marked lost) + 1, then bbr_set_state(Loss).
        if ev.consecutive <= 1 {
            self.save_cwnd();
        }
        self.cwnd = 1;
        self.ca_state = CaState::Loss;
        self.recovery_end = self.snd_max;
        self.prev_ca_state = CaState::Loss;
        self.full_bw.full_bw = 0;
        self.round_start = true;
        self.lt_bw_sampling(1, false);
    }

    fn state(&self) -> CcState {
        CcState {
            cwnd: self.cwnd * self.mss,
            ssthresh: self.ssthresh.map_or(u64::MAX, |s| s * self.mss),
            // A zero rate means no pacing, as in Linux.
            pacing_rate: (self.pacing_rate > 0).then_some(self.pacing_rate as f64),
            in_slow_start: self.mode == Mode::Startup,
            phase: match self.mode {
                Mode::Startup => "startup",
                Mode::Drain => "drain",
                Mode::ProbeBw => "probe_bw",
                Mode::ProbeRtt => "probe_rtt",
            },
            // `bbr_set_cwnd_to_recover_or_restore`: BBR is a `cong_control` module.
            sets_recovery_window: true,
            marks_app_limited: self.mode == Mode::ProbeRtt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    /// A fake connection feeding BBR ACKs with explicit rate samples on a fake clock.
    struct Drive {
        now: Instant,
        delivered: u64,
        lost: u64,
        /// Delivered count when the current round began (the `prior_delivered` of its ACKs).
        round_prior: u64,
    }

    impl Drive {
        /// BBR with IW 10 established at t = 0 over a 10 ms handshake RTT.
        fn start(seed: u64) -> (Drive, Bbr) {
            let mut cc = Bbr::new(MSS, 10 * MSS, seed, 0);
            cc.on_established(&EstablishedEvent {
                now: Instant::ZERO,
                handshake_rtt: Some(ms(10)),
                ..Default::default()
            });
            (Drive { now: Instant::ZERO, delivered: 0, lost: 0, round_prior: 0 }, cc)
        }

        /// An ACK `after` the previous one delivering `pkts` packets, with `inflight` packets left
        /// in flight. `new_round`: its segment was sent after the previous round's data was
        /// delivered (so a packet-timed round ends). The sample counts what was delivered since
        /// the round began over `interval`; tests keep it at or below 1 packet/ms, the path rate.
        #[allow(clippy::too_many_arguments)]
        fn ack_ex(
            &mut self,
            cc: &mut Bbr,
            after: Duration,
            pkts: u64,
            interval: Duration,
            rtt: Duration,
            inflight: u64,
            losses: u64,
            new_round: bool,
        ) {
            self.now = self.now + after;
            if new_round {
                self.round_prior = self.delivered;
            }
            self.delivered += pkts * MSS;
            self.lost += losses * MSS;
            let rs = RateSample {
                delivered: self.delivered - self.round_prior,
                interval: Some(interval),
                prior_delivered: self.round_prior,
                rtt: Some(rtt),
                losses: losses * MSS,
                acked_sacked: pkts * MSS,
                total_delivered: self.delivered,
                total_lost: self.lost,
                delivered_time: self.now,
                ..Default::default()
            };
            cc.on_ack(&AckEvent {
                now: self.now,
                bytes_acked: pkts * MSS,
                rtt_sample: Some(rtt),
                srtt: Some(rtt),
                prior_in_flight: (inflight + pkts) * MSS,
                bytes_in_flight: inflight * MSS,
                snd_una: self.delivered,
                rate: Some(rs),
                ..Default::default()
            });
        }

        /// An ACK inside the current round, `after_ms` after the previous one, RTT 10 ms, with a
        /// sample (20 ms) below the path rate.
        fn within(&mut self, cc: &mut Bbr, after_ms: u64, pkts: u64, inflight: u64, losses: u64) {
            self.ack_ex(cc, ms(after_ms), pkts, ms(20), ms(10), inflight, losses, false);
        }

        /// One round in one ACK: `pkts` packets over `interval_ms`, RTT 10 ms.
        fn round(&mut self, cc: &mut Bbr, pkts: u64, interval_ms: u64, inflight: u64) {
            self.ack_ex(cc, ms(interval_ms), pkts, ms(interval_ms), ms(10), inflight, 0, true);
        }

        /// Start-up at 1 packet/ms (BDP 10 packets at 10 ms) until PROBE_BW.
        fn to_probe_bw(seed: u64) -> (Drive, Bbr) {
            let (mut d, mut cc) = Drive::start(seed);
            while cc.mode() == Mode::Startup {
                d.round(&mut cc, 10, 10, 30);
            }
            d.round(&mut cc, 10, 10, 5);
            assert_eq!(cc.mode(), Mode::ProbeBw);
            (d, cc)
        }
    }

    #[test]
    fn gains_are_linux_fixed_point_values() {
        // tcp_bbr.c: BBR_UNIT * 2885 / 1000 + 1, BBR_UNIT * 1000 / 2885, BBR_UNIT * 2,
        // {5/4, 3/4, 1 x 6} x BBR_UNIT, with BBR_UNIT = 256.
        assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
        assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
        assert_eq!((BW_RTTS, MIN_RTT_WIN, PROBE_RTT_MODE, CWND_MIN_TARGET), (10, ms(10_000), ms(200), 4));
    }

    #[test]
    fn initial_pacing_rate_is_high_gain_times_iw_over_srtt() {
        // IW 10 x 1448 B over a 100 ms handshake RTT: bw = 10 * 2^24 / 100000 = 1677;
        // 1677 * 1448 * 739 >> 8, * 990000 >> 24 = 413 638 B/s (computed independently).
        let mut cc = Bbr::new(1448, 10 * 1448, 1, 0);
        cc.on_established(&EstablishedEvent { now: Instant::ZERO, handshake_rtt: Some(ms(100)), ..Default::default() });
        assert_eq!(cc.state().pacing_rate, Some(413_638.0));
        assert_eq!(cc.state().phase, "startup");
        // Without a handshake sample Linux assumes 1 ms: 100x that rate (up to rounding).
        let mut cc = Bbr::new(1448, 10 * 1448, 1, 0);
        cc.on_established(&EstablishedEvent { now: Instant::ZERO, handshake_rtt: None, ..Default::default() });
        let r = cc.state().pacing_rate.unwrap();
        assert!((r / 413_638.0 - 100.0).abs() < 0.1, "{r}");
    }

    #[test]
    fn startup_grows_cwnd_by_acked_and_keeps_high_gains() {
        let (mut d, mut cc) = Drive::start(1);
        assert_eq!((cc.pacing_gain(), cc.cwnd_gain()), (HIGH_GAIN, HIGH_GAIN));
        d.round(&mut cc, 4, 10, 10);
        assert_eq!(cc.state().cwnd, 14 * MSS, "slow start: cwnd + acked");
        d.round(&mut cc, 8, 10, 10);
        assert_eq!(cc.state().cwnd, 22 * MSS);
        assert!(cc.state().in_slow_start);
    }

    #[test]
    fn full_pipe_after_three_rounds_without_25_percent_growth() {
        let (mut d, mut cc) = Drive::start(1);
        // Round 1 sets full_bw = 10 * 2^24 / 10000 = 16777.
        d.round(&mut cc, 10, 10, 100);
        assert_eq!(cc.full_bw.full_bw, 16777);
        // +20 %: not significant (threshold 16777 * 320 >> 8 = 20971).
        d.ack_ex(&mut cc, ms(10), 12, ms(10), ms(10), 100, 0, true);
        d.round(&mut cc, 10, 10, 100);
        assert_eq!((cc.full_bw.count, cc.mode()), (2, Mode::Startup));
        // Exactly the threshold counts as growth: 10 packets in 8000 us -> 20971.
        d.ack_ex(&mut cc, ms(10), 10, Duration::from_micros(8000), ms(10), 100, 0, true);
        assert_eq!((cc.full_bw.full_bw, cc.full_bw.count), (20971, 0));
        for round in 1..=3 {
            assert_eq!(cc.mode(), Mode::Startup, "round {round}");
            d.round(&mut cc, 10, 10, 100);
        }
        assert!(cc.full_bw_reached());
        assert_eq!(cc.mode(), Mode::Drain, "inflight 100 is above the BDP target");
        assert_eq!((cc.pacing_gain(), cc.cwnd_gain()), (DRAIN_GAIN, HIGH_GAIN));
    }

    #[test]
    fn full_pipe_counts_only_round_starts() {
        let (mut d, mut cc) = Drive::start(1);
        d.round(&mut cc, 10, 10, 100);
        // ACKs inside the same round do not count.
        for _ in 0..5 {
            d.ack_ex(&mut cc, ms(1), 1, ms(10), ms(10), 100, 0, false);
        }
        assert_eq!(cc.full_bw.count, 0);
    }

    #[test]
    fn drain_ends_when_inflight_falls_to_one_bdp_and_sets_ssthresh() {
        let (mut d, mut cc) = Drive::start(1);
        for _ in 0..4 {
            d.round(&mut cc, 10, 10, 100);
        }
        assert_eq!(cc.mode(), Mode::Drain);
        // Target: bdp = ceil(16777 * 10000 / 2^24) = 10, + 3 x TSO goal (2 at this rate) = 16.
        assert_eq!(cc.state().ssthresh, 16 * MSS);
        d.round(&mut cc, 10, 10, 17);
        assert_eq!(cc.mode(), Mode::Drain);
        d.round(&mut cc, 10, 10, 16);
        assert_eq!(cc.mode(), Mode::ProbeBw);
        assert_eq!(cc.cwnd_gain(), CWND_GAIN);
        assert!(!cc.state().in_slow_start);
    }

    #[test]
    fn probe_bw_starts_in_a_random_phase_but_never_the_drain_phase() {
        let mut seen = [false; CYCLE_LEN];
        for seed in 0..200 {
            let (_, cc) = Drive::to_probe_bw(seed);
            seen[cc.cycle_idx()] = true;
            assert_eq!(cc.pacing_gain(), PACING_GAIN[cc.cycle_idx()]);
        }
        assert!(!seen[1], "the 3/4 phase is never first");
        assert_eq!(seen.iter().filter(|&&s| s).count(), 7);
        // Same seed, same choice.
        assert_eq!(Drive::to_probe_bw(42).1.cycle_idx(), Drive::to_probe_bw(42).1.cycle_idx());
    }

    /// A PROBE_BW flow in the given phase.
    fn in_phase(idx: usize) -> (Drive, Bbr) {
        let (d, mut cc) = Drive::to_probe_bw(1);
        cc.cycle_idx = idx;
        cc.cycle_mstamp = d.now;
        cc.update_gains();
        (d, cc)
    }

    #[test]
    fn cruise_phase_lasts_one_min_rtt() {
        let (mut d, mut cc) = in_phase(3);
        // min_rtt is 10 ms: a phase ends once delivered_mstamp is more than 10 ms after its start.
        d.within(&mut cc, 10, 1, 10, 0);
        assert_eq!(cc.cycle_idx(), 3);
        d.within(&mut cc, 1, 1, 10, 0);
        assert_eq!(cc.cycle_idx(), 4);
        assert_eq!(cc.state().pacing_rate, Some(989_987.0), "1.0 x bw x 0.99: 16777 * 1000 * 990000 >> 24");
    }

    #[test]
    fn probe_phase_waits_for_inflight_of_five_quarters_bdp_or_a_loss() {
        // Target for gain 5/4: ceil(16777 * 10000 * 320 / 256 / 2^24) = 13, + 6 = 19, even = 20,
        // + 2 in phase 0 = 22 packets.
        let (mut d, mut cc) = in_phase(0);
        assert_eq!(cc.inflight_target(cc.max_bw(), PACING_GAIN[0]), 22);
        d.within(&mut cc, 11, 1, 10, 0);
        assert_eq!(cc.cycle_idx(), 0, "a full min_rtt but inflight still low");
        d.within(&mut cc, 1, 1, 30, 0);
        assert_eq!(cc.cycle_idx(), 1);
        let (mut d, mut cc) = in_phase(0);
        d.within(&mut cc, 11, 1, 10, 1);
        assert_eq!(cc.cycle_idx(), 1, "a loss ends the probe");
    }

    #[test]
    fn drain_phase_ends_early_once_inflight_is_at_one_bdp() {
        let (mut d, mut cc) = in_phase(1);
        d.within(&mut cc, 1, 1, 30, 0);
        assert_eq!(cc.cycle_idx(), 1);
        // Target for gain 1: 10 + 6 = 16 packets; prior_in_flight = inflight + acked.
        d.within(&mut cc, 1, 1, 15, 0);
        assert_eq!(cc.cycle_idx(), 2);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_holds_four_packets_for_200_ms_and_a_round() {
        let (mut d, mut cc) = Drive::to_probe_bw(1);
        let cwnd = cc.state().cwnd;
        // RTT samples above min_rtt (10 ms) do not refresh it.
        while d.now < Instant::ZERO + ms(10_000) {
            d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(12), 20, 0, true);
            assert_eq!(cc.mode(), Mode::ProbeBw);
        }
        d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(12), 20, 0, true);
        assert_eq!(cc.state().phase, "probe_rtt");
        assert_eq!(cc.state().cwnd, 4 * MSS);
        assert!(cc.state().marks_app_limited);
        assert_eq!(cc.min_rtt(), Some(ms(12)), "expired filter takes the new sample");
        // Inflight reaches 4: the 200 ms start now.
        d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(12), 4, 0, false);
        let reached = d.now;
        d.ack_ex(&mut cc, ms(10), 2, ms(10), ms(12), 4, 0, true);
        assert_eq!(cc.mode(), Mode::ProbeRtt, "a round done, but not 200 ms");
        while d.now < reached + ms(200) {
            d.ack_ex(&mut cc, ms(10), 2, ms(10), ms(12), 4, 0, false);
            assert_eq!(cc.mode(), Mode::ProbeRtt);
        }
        d.ack_ex(&mut cc, ms(1), 2, ms(10), ms(12), 4, 0, false);
        assert_eq!(cc.mode(), Mode::ProbeBw);
        assert!(cc.state().cwnd >= cwnd, "cwnd before PROBE_RTT restored");
    }

    #[test]
    fn a_sample_equal_to_min_rtt_does_not_put_probe_rtt_off() {
        // tcp_bbr.c since 5.10 refreshes the filter only on rtt_us < min_rtt_us: samples equal to
        // min_rtt (10 ms here) still let the 10 s window expire.
        let (mut d, mut cc) = Drive::to_probe_bw(1);
        while d.now < Instant::ZERO + ms(10_000) {
            d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(10), 20, 0, true);
            assert_eq!(cc.mode(), Mode::ProbeBw);
        }
        d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(10), 20, 0, true);
        assert_eq!(cc.mode(), Mode::ProbeRtt);
    }

    /// A PROBE_BW flow whose cwnd settled at its target; returns that cwnd in packets.
    fn settled() -> (Drive, Bbr, u64) {
        let (mut d, mut cc) = Drive::to_probe_bw(1);
        for _ in 0..5 {
            d.round(&mut cc, 10, 10, 20);
        }
        // A cruise phase (phase 0 adds 2 packets to the target); it lasts past the test.
        cc.cycle_idx = 3;
        cc.cycle_mstamp = d.now;
        d.round(&mut cc, 10, 10, 20);
        let w = cc.cwnd_packets();
        d.within(&mut cc, 0, 1, 20, 0);
        assert_eq!(cc.cwnd_packets(), w, "settled at the target");
        // 2 x BDP (20) + aggregation allowance + quantization budget.
        assert!(w > 26, "{w}");
        (d, cc, w)
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
        let (mut d, mut cc, w) = settled();
        // The ACK that triggers recovery; Linux saves cwnd before processing it.
        d.within(&mut cc, 1, 2, 20, 0);
        cc.on_congestion(&CongestionEvent { now: d.now, flight_size: 25 * MSS, high_data: d.delivered + 6 * MSS });
        // Packet conservation: inflight 20 + acked 2.
        assert_eq!(cc.cwnd_packets(), 22);
        assert_eq!(cc.prior_cwnd, w);
        // In the first round: cwnd = max(cwnd - losses, inflight + acked).
        d.within(&mut cc, 1, 1, 12, 3);
        assert_eq!(cc.cwnd_packets(), 19);
        d.within(&mut cc, 1, 1, 10, 0);
        assert_eq!(cc.cwnd_packets(), 19);
        // A new round ends conservation: cwnd + acked up to the target.
        d.ack_ex(&mut cc, ms(10), 3, ms(10), ms(10), 10, 0, true);
        assert_eq!(cc.cwnd_packets(), 22);
        // The recovery point (6 packets on) is acknowledged: cwnd from before recovery, then
        // + acked as the target (raised meanwhile by the ACK-aggregation allowance) permits.
        d.within(&mut cc, 1, 1, 10, 0);
        assert_eq!(cc.cwnd_packets(), w + 1);
    }

    #[test]
    fn rto_collapses_cwnd_to_one_and_restores_after_the_lost_flight() {
        let (mut d, mut cc, w) = settled();
        // The highest segment sent before the timeout ends 3 packets above snd_una.
        cc.on_sent(&SentEvent { now: d.now, seq: d.delivered + 2 * MSS, len: MSS as u32, ..Default::default() });
        cc.on_rto(&RtoEvent { now: d.now, flight_size: 20 * MSS, consecutive: 1 });
        assert_eq!((cc.state().cwnd, cc.full_bw.full_bw), (MSS, 0));
        assert!(cc.full_bw_reached(), "Linux keeps full_bw_reached and the bw filter");
        // In the loss state: cwnd + acked, at least cwnd_min_target.
        d.ack_ex(&mut cc, ms(10), 1, ms(10), ms(10), 0, 0, true);
        assert_eq!(cc.cwnd_packets(), 4);
        d.within(&mut cc, 1, 1, 0, 0);
        assert_eq!(cc.cwnd_packets(), 5);
        // Everything sent before the timeout acknowledged: back to the saved cwnd.
        d.within(&mut cc, 1, 1, 0, 0);
        assert_eq!(cc.cwnd_packets(), w);
    }

    #[test]
    fn consistent_lossy_intervals_reveal_a_policer() {
        let (mut d, mut cc) = Drive::to_probe_bw(1);
        // 10 packets per 10 ms with 3 lost each round: 30 % loss. The first loss starts
        // sampling; four rounds later the interval gives 40 * 2^24 / 40000 = 16777 (hand
        // computed); the next interval the same: the average is used with gain 1.
        for _ in 0..4 {
            d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(10), 10, 3, true);
            assert!(!cc.lt_use_bw());
        }
        assert_eq!(cc.lt_bw, 16777);
        for _ in 0..4 {
            assert!(!cc.lt_use_bw());
            d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(10), 10, 3, true);
        }
        assert!(cc.lt_use_bw());
        assert_eq!((cc.bw(), cc.pacing_gain()), (16777, BBR_UNIT));
    }

    #[test]
    fn inconsistent_lossy_intervals_are_not_a_policer() {
        let (mut d, mut cc) = Drive::to_probe_bw(1);
        for _ in 0..4 {
            d.ack_ex(&mut cc, ms(10), 10, ms(10), ms(10), 10, 3, true);
        }
        // Twice the delivery rate in the second interval: beyond 1/8 and 4 kbit/s.
        for _ in 0..4 {
            d.ack_ex(&mut cc, ms(10), 20, ms(10), ms(10), 10, 6, true);
        }
        assert!(!cc.lt_use_bw());
        assert_eq!(cc.lt_bw, 33554, "80 * 2^24 / 40000, the new interval's rate");
    }

    #[test]
    fn restart_from_idle_paces_at_bw_and_defers_probe_rtt() {
        let (mut d, mut cc) = in_phase(0);
        d.within(&mut cc, 1, 1, 10, 0);
        assert_eq!(cc.state().pacing_rate, Some(1_237_484.0), "5/4: 16777 * 1000 * 320 >> 8, * 990000 >> 24");
        cc.on_sent(&SentEvent {
            now: d.now,
            seq: 0,
            len: MSS as u32,
            bytes_in_flight: MSS,
            app_limited: true,
            ..Default::default()
        });
        assert!(cc.idle_restart);
        assert_eq!(cc.state().pacing_rate, Some(989_987.0));
        // Sending while not app-limited is no restart.
        let (d, mut cc) = in_phase(0);
        cc.on_sent(&SentEvent {
            now: d.now,
            seq: 0,
            len: MSS as u32,
            bytes_in_flight: MSS,
            app_limited: false,
            ..Default::default()
        });
        assert!(!cc.idle_restart);
    }

    #[test]
    fn tso_goal_follows_the_pacing_rate_unless_fixed() {
        let mut cc = Bbr::new(MSS, 10 * MSS, 1, 0);
        cc.pacing_rate = 100_000; // below 1.2 Mbit/s: 1 segment
        assert_eq!(cc.tso_segs_goal(), 1);
        cc.pacing_rate = 1_000_000; // 976 bytes per ms: the minimum of 2
        assert_eq!(cc.tso_segs_goal(), 2);
        cc.pacing_rate = 125_000_000; // 1 Gbit/s: 122 070 bytes per ms, capped at 65 215
        assert_eq!(cc.tso_segs_goal(), 65);
        let fixed = Bbr::new(MSS, 10 * MSS, 1, 1);
        assert_eq!(fixed.tso_segs_goal(), 1);
    }

    #[test]
    fn app_limited_samples_only_raise_the_estimate() {
        let (mut d, mut cc) = Drive::start(1);
        d.round(&mut cc, 10, 10, 10);
        let bw = cc.max_bw();
        d.now = d.now + ms(10);
        let prior = d.delivered;
        d.delivered += 2 * MSS;
        let rs = RateSample {
            delivered: 2 * MSS,
            interval: Some(ms(10)),
            prior_delivered: prior,
            is_app_limited: true,
            acked_sacked: 2 * MSS,
            total_delivered: d.delivered,
            delivered_time: d.now,
            ..Default::default()
        };
        cc.on_ack(&AckEvent {
            now: d.now,
            bytes_acked: 2 * MSS,
            bytes_in_flight: MSS,
            rate: Some(rs),
            ..Default::default()
        });
        assert_eq!(cc.max_bw(), bw);
        assert_eq!(cc.full_bw.count, 0, "app-limited rounds do not count towards a full pipe");
    }
}
