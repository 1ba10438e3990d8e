//! CUBIC (RFC 9438) as Linux runs it: `net/ipv4/tcp_cubic.c` v2.3, with its HyStart.
//!
//! Registered names: `cubic` (Linux HyStart on, the Linux default), `cubic-nohystart` (standard
//! slow start up to the first loss) and, in `hystartpp.rs`, `cubic+hystartpp` (RFC 9406 HyStart++
//! in place of Linux HyStart; see [`crate::hystartpp`]).
//!
//! State machine:
//!
//! | phase | per new ACK (cwnd-limited) | leaves to | when |
//! |---|---|---|---|
//! | `slow_start` | cwnd += acked (Linux `tcp_slow_start`) | `congestion_avoidance` | cwnd >= ssthresh, or HyStart / HyStart++ sets ssthresh = cwnd |
//! | `conservative_slow_start` (HyStart++ only) | cwnd += acked / CSS_GROWTH_DIVISOR | see `hystartpp.rs` | |
//! | `congestion_avoidance` | cwnd += 1 per `cnt` packets acked (`bictcp_update` + `tcp_cong_avoid_ai`) | `recovery` | loss |
//! | `recovery` | no growth | `congestion_avoidance` | recovery point acked: cwnd = ssthresh |
//! | any | | `slow_start` | timeout: ssthresh = beta x cwnd (first timeout only), cwnd = 1, all CUBIC and HyStart state reset |
//!
//! On loss (`cubictcp_recalc_ssthresh`): the epoch ends; W_max (`last_max_cwnd`) = cwnd x
//! (1 + beta) / 2 if fast convergence is on and cwnd < W_max, else cwnd; ssthresh = max(cwnd x beta, 2).
//!
//! In congestion avoidance (`bictcp_update`), at most once per jiffy and at least every HZ/32 or
//! when cwnd changed: the first ACK of an epoch records `epoch_start`, and K = cbrt((W_max - cwnd)
//! / C) with origin W_max (or K = 0 and origin = cwnd when W_max <= cwnd). The target is the cubic
//! one minimum RTT ahead, W(t + delay_min) = C (t + delay_min - K)^3 + origin, and
//! cnt = cwnd / (target - cwnd) packets acked per +1 (100 x cwnd when target <= cwnd); cnt <= 20
//! while no loss has been seen (W_max = 0); the Reno-friendly estimate `tcp_cwnd` gains one packet
//! per cwnd x 15/8 packets acked (slope 8/15 per RTT = 3(1 - beta)/(1 + beta)) and caps cnt at
//! cwnd / (tcp_cwnd - cwnd) while it is ahead; finally cnt >= 2 (at most 1.5x per RTT).
//!
//! Where Linux and RFC 9438 differ, this module follows Linux (ns-3's TcpCubic, the cross-check,
//! does too):
//!
//! | | Linux (followed) | RFC 9438 |
//! |---|---|---|
//! | beta, C | fixed point: beta = 717/1024 = 0.7002, C = 410/1024 = 0.4004 (parameters are rounded to these grids) | 0.7, 0.4 |
//! | window | packets, growth by counting acked packets (`snd_cwnd_cnt`) | bytes or segments, fractional |
//! | time | jiffies (HZ = 1000 here), t and K in 1/1024 s (`BICTCP_HZ` = 10) | seconds |
//! | K | integer cube root (exact floor here; Linux's table + one Newton step, avg. error 0.2 %) | real cube root |
//! | target time | t + delay_min (minimum RTT) | t + RTT (smoothed) |
//! | Reno-friendly region | `tcp_cwnd` += 1 per cwnd x beta_scale/8 packets (beta_scale = 15), caps cnt | W_est += alpha x acked / cwnd, cwnd = W_est when W_cubic < W_est; alpha = 1 once W_est >= cwnd_prior |
//! | reduction base | cwnd | flight size |
//! | first epoch without loss | cnt <= 20 (>= 5 %/RTT) | W_max = cwnd, K = 0 |
//! | timeout | all state reset (W_max = 0, delay_min forgotten) | K = 0, W_max = cwnd at CA start |
//!
//! How the simulator's events map onto the kernel's:
//! - `acked` (packets newly delivered, Linux `tcp_ack`) = bytes newly acknowledged cumulatively,
//!   in whole segments; a remainder below one MSS is carried to the next ACK, as Linux counts a
//!   packet only once it is acknowledged entirely. SACKed bytes are not counted: Linux adds them
//!   only in the Disorder state, which the sender's recovery does not distinguish.
//! - Growth happens only when the sender reports the window as used (`tcp_is_cwnd_limited`).
//! - Recovery: Linux reduces cwnd by PRR to ssthresh; here cwnd drops to ssthresh when recovery
//!   begins (the sender adds the RFC 5681 inflation when SACK is off), as in the Reno module.
//! - RTT samples (`cubictcp_acked`) are taken on every ACK that has one, in recovery too, and
//!   dropped for 1 s after an epoch starts, as in Linux.
//! - An application restart after idle (`CA_EVENT_TX_START`: a segment sent with nothing else in
//!   flight) shifts the epoch start by the idle time since the last send.
//! - Undo of a spurious reduction is not modelled (the sender reports none).

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::hystart::{self, HyStart};
use crate::hystartpp::{HyStartPlusPlus, Phase, SlowStartStep};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::time::{Duration, Instant};

/// `BICTCP_BETA_SCALE`: beta is beta/1024.
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: CUBIC time is counted in 1/2^10 s.
const BICTCP_HZ: u32 = 10;
/// Jiffies per second (a typical `CONFIG_HZ=1000` kernel).
const HZ: u64 = 1000;
/// `snd_cwnd_clamp` default (~0U).
const CWND_CLAMP: u64 = u32::MAX as u64;

const BETA: ParamSpec = ParamSpec {
    name: "beta",
    default: 0.7,
    min: 0.1,
    max: 0.95,
    integer: false,
    doc: "multiplicative decrease factor: ssthresh = beta x cwnd (rounded to n/1024 as in Linux: 0.7 -> 717/1024)",
};
const C: ParamSpec = ParamSpec {
    name: "c",
    default: 0.4,
    min: 0.01,
    max: 10.0,
    integer: false,
    doc: "cubic scaling constant C in segments/s^3 (rounded to n/1024 as in Linux: 0.4 -> 410/1024)",
};
const FAST_CONVERGENCE: ParamSpec = ParamSpec {
    name: "fast_convergence",
    default: 1.0,
    min: 0.0,
    max: 1.0,
    integer: true,
    doc: "1: after a loss below the previous W_max, remember W_max = cwnd x (1 + beta) / 2",
};
const TCP_FRIENDLINESS: ParamSpec = ParamSpec {
    name: "tcp_friendliness",
    default: 1.0,
    min: 0.0,
    max: 1.0,
    integer: true,
    doc: "1: never grow slower than the Reno-friendly estimate (Linux tcp_friendliness)",
};
const HYSTART_DETECT: ParamSpec = ParamSpec {
    name: "hystart_detect",
    default: 3.0,
    min: 1.0,
    max: 3.0,
    integer: true,
    doc: "HyStart exits: 1 = ACK train, 2 = delay increase, 3 = both",
};
const HYSTART_LOW_WINDOW: ParamSpec = ParamSpec {
    name: "hystart_low_window",
    default: 16.0,
    min: 2.0,
    max: 1_000_000.0,
    integer: true,
    doc: "HyStart runs only when cwnd is at least this many packets",
};
const HYSTART_ACK_DELTA_US: ParamSpec = ParamSpec {
    name: "hystart_ack_delta_us",
    default: 2000.0,
    min: 0.0,
    max: 1_000_000.0,
    integer: true,
    doc: "largest ACK spacing in microseconds that still extends an ACK train",
};

/// Parameters shared by every CUBIC variant.
pub const PARAMS: [ParamSpec; 4] = [BETA, C, FAST_CONVERGENCE, TCP_FRIENDLINESS];
pub(crate) const HYSTART_PARAMS: [ParamSpec; 7] =
    [BETA, C, FAST_CONVERGENCE, TCP_FRIENDLINESS, HYSTART_DETECT, HYSTART_LOW_WINDOW, HYSTART_ACK_DELTA_US];

pub const CUBIC: Registration = Registration {
    info: AlgorithmInfo {
        name: "cubic",
        summary: "CUBIC as Linux runs it: cubic window growth around the last maximum, with HyStart",
        reference: "RFC 9438; Linux net/ipv4/tcp_cubic.c v2.3 (HyStart: Ha & Rhee 2011)",
        params: &HYSTART_PARAMS,
    },
    build: |p, cfg| Box::new(with_hystart(p, cfg)),
    receiver_hook: None,
};

/// Linux CUBIC with HyStart, from the parameters of [`CUBIC`].
pub(crate) fn with_hystart(p: &Params, cfg: &CcConfig) -> Cubic {
    let hystart = HyStart::new(hystart::Config {
        detect: p["hystart_detect"] as u8,
        low_window: p["hystart_low_window"] as u64,
        ack_delta: Duration::from_micros(p["hystart_ack_delta_us"] as u64),
    });
    Cubic::new(CubicConfig::from_params(p), cfg, SlowStart::HyStart(hystart))
}

pub const CUBIC_NOHYSTART: Registration = Registration {
    info: AlgorithmInfo {
        name: "cubic-nohystart",
        summary: "Linux CUBIC with HyStart off: standard slow start until the first loss",
        reference: "RFC 9438; Linux net/ipv4/tcp_cubic.c v2.3 with hystart=0",
        params: &PARAMS,
    },
    build: |p, cfg| Box::new(Cubic::new(CubicConfig::from_params(p), cfg, SlowStart::Standard)),
    receiver_hook: None,
};

/// CUBIC's own parameters, in real units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    pub beta: f64,
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { beta: 0.7, c: 0.4, fast_convergence: true, tcp_friendliness: true }
    }
}

impl CubicConfig {
    /// Reads the [`PARAMS`] entries of resolved registry parameters.
    pub fn from_params(p: &Params) -> Self {
        CubicConfig {
            beta: p["beta"],
            c: p["c"],
            fast_convergence: p["fast_convergence"] != 0.0,
            tcp_friendliness: p["tcp_friendliness"] != 0.0,
        }
    }
}

/// The slow start in front of CUBIC.
#[derive(Clone, Debug)]
pub enum SlowStart {
    Standard,
    /// Linux HyStart (`cubic`).
    HyStart(HyStart),
    /// RFC 9406 HyStart++ (`cubic+hystartpp`).
    HyStartPlusPlus(HyStartPlusPlus),
}

/// The per-connection state Linux keeps in `struct bictcp` and clears on a timeout.
#[derive(Clone, Debug, Default)]
struct BicState {
    /// Packets acked per +1 packet of cwnd.
    cnt: u64,
    /// W_max, packets (0: no loss yet).
    last_max_cwnd: u64,
    /// cwnd and time (jiffies) when `cnt` was last computed.
    last_cwnd: u64,
    last_time: u64,
    /// Origin of the cubic function (packets) and K (1/1024 s).
    origin_point: u64,
    k: u64,
    /// Minimum RTT, microseconds (0: none yet).
    delay_min_us: u64,
    /// Start of the current congestion-avoidance epoch, jiffies.
    epoch_start: Option<u64>,
    /// Packets acked, for the Reno-friendly estimate.
    ack_cnt: u64,
    /// Reno-friendly window estimate, packets.
    tcp_cwnd: u64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    mss: u64,
    /// beta x 1024 (Linux `beta`).
    beta: u64,
    /// C x 1024 (Linux `cube_rtt_scale` = `bic_scale` x 10).
    cube_rtt_scale: u64,
    /// 2^40 / cube_rtt_scale: K = cbrt(cube_factor x (W_max - cwnd)) in 1/1024 s.
    cube_factor: u64,
    /// 8 (1024 + beta) / 3 / (1024 - beta): 8/3 of the Reno-friendly packets per +1.
    beta_scale: u64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    slow_start: SlowStart,
    /// Window and threshold in packets (`u64::MAX` ssthresh: infinite).
    cwnd: u64,
    ssthresh: u64,
    /// Linux `snd_cwnd_cnt`: packets acked towards the next +1.
    cwnd_cnt: u64,
    /// Acknowledged bytes below one segment, not yet counted as a packet.
    acked_carry: u64,
    in_recovery: bool,
    /// Highest sequence sent so far (for HyStart's round after a timeout).
    snd_nxt: u64,
    /// Jiffies of the last data segment sent (`lsndtime`).
    last_send: Option<u64>,
    /// Linux's `sk_pacing_rate`, bytes per second: nothing paces by it, but HyStart's ACK-train
    /// threshold does depend on it.
    pacing_rate: u64,
    bic: BicState,
}

fn jiffies(t: Instant) -> u64 {
    t.as_nanos() / (1_000_000_000 / HZ)
}

/// `usecs_to_jiffies`, which rounds up.
fn usecs_to_jiffies(us: u64) -> u64 {
    us.div_ceil(1_000_000 / HZ)
}

/// Largest x with x^3 <= a. (Linux approximates this with a table and one Newton step.)
fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    let cube = |x: u64| (x as u128).pow(3);
    while cube(x) > a as u128 {
        x -= 1;
    }
    while cube(x + 1) <= a as u128 {
        x += 1;
    }
    x
}

impl Cubic {
    pub fn new(cfg: CubicConfig, cc: &CcConfig, slow_start: SlowStart) -> Self {
        let beta = (cfg.beta * BETA_SCALE as f64).round() as u64;
        let cube_rtt_scale = ((cfg.c * 1024.0).round() as u64).max(1);
        let ssthresh = if cc.initial_ssthresh == u64::MAX { u64::MAX } else { (cc.initial_ssthresh / cc.mss).max(2) };
        Cubic {
            mss: cc.mss,
            beta,
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            fast_convergence: cfg.fast_convergence,
            tcp_friendliness: cfg.tcp_friendliness,
            slow_start,
            cwnd: (cc.initial_cwnd / cc.mss).max(1),
            ssthresh,
            cwnd_cnt: 0,
            acked_carry: 0,
            in_recovery: false,
            snd_nxt: 0,
            last_send: None,
            pacing_rate: 0,
            bic: BicState::default(),
        }
    }

    /// `cubictcp_acked`: the minimum RTT and Linux HyStart, on every RTT sample.
    pub(crate) fn on_rtt_sample(&mut self, ev: &AckEvent, rtt: Duration) {
        let now = jiffies(ev.now);
        // Samples right after a reduction are distorted by the recovery; Linux drops them for 1 s.
        if self.bic.epoch_start.is_some_and(|e| now.saturating_sub(e) < HZ) {
            return;
        }
        let delay_us = (rtt.as_micros() as u64).max(1);
        if self.bic.delay_min_us == 0 || self.bic.delay_min_us > delay_us {
            self.bic.delay_min_us = delay_us;
        }
        if self.cwnd >= self.ssthresh {
            return;
        }
        if let SlowStart::HyStart(h) = &mut self.slow_start {
            let sample = hystart::Sample {
                now: ev.now,
                rtt,
                delay_min: Duration::from_micros(self.bic.delay_min_us),
                cwnd: self.cwnd,
                pacing_rate: self.pacing_rate,
                snd_una: ev.snd_una,
                snd_nxt: ev.snd_nxt,
            };
            if h.on_sample(&sample).is_some() {
                self.ssthresh = self.cwnd;
            }
        }
    }

    /// Linux `tcp_slow_start`, with HyStart++ consulted first when attached. Returns the acked
    /// packets left over for congestion avoidance.
    fn slow_start(&mut self, ev: &AckEvent, acked: u64) -> u64 {
        let mut increment = acked;
        if let SlowStart::HyStartPlusPlus(h) = &mut self.slow_start {
            match h.on_ack(ev, acked, 1) {
                SlowStartStep::Grow(n) => increment = n,
                SlowStartStep::ExitSlowStart => {
                    self.ssthresh = self.cwnd.max(2);
                    return acked;
                }
            }
        }
        let new = (self.cwnd + increment).min(self.ssthresh).min(CWND_CLAMP);
        let used = new - self.cwnd;
        self.cwnd = new;
        if used < increment {
            acked - used
        } else {
            0
        }
    }

    /// W(t) of the current epoch at `t` (1/1024 s since the epoch start), in packets.
    fn cubic_target(&self, t: u64) -> u64 {
        let b = &self.bic;
        let offs = t.abs_diff(b.k) as u128;
        // Linux computes this in u64 and overflows after ~340 s in one epoch; saturate instead.
        let delta = (self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
        let delta = delta.min(u64::MAX as u128) as u64;
        if t < b.k {
            b.origin_point.saturating_sub(delta)
        } else {
            b.origin_point.saturating_add(delta)
        }
    }

    /// `bictcp_update`: recomputes `cnt`, the packets to ack per +1 of cwnd.
    fn update(&mut self, now: u64, acked: u64) {
        let cwnd = self.cwnd;
        self.bic.ack_cnt += acked;
        if self.bic.last_cwnd == cwnd && now.saturating_sub(self.bic.last_time) <= HZ / 32 {
            return;
        }
        // The cubic function is evaluated at most once per jiffy; a reduction clears the epoch
        // and forces it.
        if !(self.bic.epoch_start.is_some() && now == self.bic.last_time) {
            self.bic.last_cwnd = cwnd;
            self.bic.last_time = now;
            let epoch_start = match self.bic.epoch_start {
                Some(e) => e,
                None => {
                    self.bic.epoch_start = Some(now);
                    self.bic.ack_cnt = acked;
                    self.bic.tcp_cwnd = cwnd;
                    if self.bic.last_max_cwnd <= cwnd {
                        self.bic.k = 0;
                        self.bic.origin_point = cwnd;
                    } else {
                        // Saturates only for a tiny C and a window of millions of packets.
                        self.bic.k = cube_root(self.cube_factor.saturating_mul(self.bic.last_max_cwnd - cwnd));
                        self.bic.origin_point = self.bic.last_max_cwnd;
                    }
                    now
                }
            };
            // One minimum RTT ahead, converted from jiffies to 1/1024 s.
            let t = ((now.saturating_sub(epoch_start) + usecs_to_jiffies(self.bic.delay_min_us)) << BICTCP_HZ) / HZ;
            let target = self.cubic_target(t);
            self.bic.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
            // Before any loss the bandwidth is unknown: grow at least 5 % per RTT.
            if self.bic.last_max_cwnd == 0 {
                self.bic.cnt = self.bic.cnt.min(20);
            }
        }
        if self.tcp_friendliness {
            // Reno-friendly estimate: +1 per cwnd x beta_scale / 8 packets acked. (Linux loops
            // one packet at a time; the step is kept at least 1 so a tiny beta cannot stall it.)
            let delta = ((cwnd * self.beta_scale) >> 3).max(1);
            if self.bic.ack_cnt > delta {
                let n = (self.bic.ack_cnt - 1) / delta;
                self.bic.ack_cnt -= n * delta;
                self.bic.tcp_cwnd += n;
            }
            if self.bic.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.bic.tcp_cwnd - cwnd);
                self.bic.cnt = self.bic.cnt.min(max_cnt);
            }
        }
        // At most one packet per two acked: 1.5x per RTT.
        self.bic.cnt = self.bic.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai`: +1 packet per `w` packets acked.
    fn cong_avoid_ai(&mut self, w: u64, acked: u64) {
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
        self.cwnd = self.cwnd.min(CWND_CLAMP);
    }

    /// Slow start or the cubic increase for the newly acknowledged packets.
    fn grow(&mut self, ev: &AckEvent) {
        if self.in_recovery || ev.bytes_acked == 0 {
            return;
        }
        let bytes = ev.bytes_acked + self.acked_carry;
        self.acked_carry = bytes % self.mss;
        let mut acked = if ev.cwnd_limited { bytes / self.mss } else { 0 };
        if self.cwnd < self.ssthresh {
            acked = self.slow_start(ev, acked);
        }
        if acked == 0 {
            return;
        }
        self.update(jiffies(ev.now), acked);
        self.cong_avoid_ai(self.bic.cnt, acked);
    }

    /// `cubictcp_recalc_ssthresh`: ends the epoch, remembers W_max, returns the new ssthresh.
    fn recalc_ssthresh(&mut self) -> u64 {
        self.bic.epoch_start = None;
        self.bic.last_max_cwnd = if self.cwnd < self.bic.last_max_cwnd && self.fast_convergence {
            self.cwnd * (BETA_SCALE + self.beta) / (2 * BETA_SCALE)
        } else {
            self.cwnd
        };
        (self.cwnd * self.beta / BETA_SCALE).max(2)
    }

    /// The part of an ACK after its RTT sample (`cong_avoid`, then `tcp_update_pacing_rate`).
    /// An add-on that acts between the two halves (SUSS) calls [`Cubic::on_rtt_sample`] and
    /// this itself.
    pub(crate) fn on_ack_after_rtt_sample(&mut self, ev: &AckEvent) {
        self.snd_nxt = self.snd_nxt.max(ev.snd_nxt);
        self.grow(ev);
        // tcp_cong_control ends every ACK with tcp_update_pacing_rate; HyStart's TSO allowance
        // reads the rate the previous ACK left.
        let packets_out = ev.snd_nxt.saturating_sub(ev.snd_una).div_ceil(self.mss);
        self.pacing_rate = hystart::linux_pacing_rate(self.mss, self.cwnd, packets_out, self.ssthresh, ev.srtt);
    }

    /// cwnd and ssthresh in packets (`u64::MAX`: no ssthresh yet).
    pub(crate) fn packets(&self) -> (u64, u64) {
        (self.cwnd, self.ssthresh)
    }

    /// Sets cwnd and ssthresh in packets, as an add-on in `tcp_sock` would (SUSS).
    pub(crate) fn set_packets(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd.clamp(1, CWND_CLAMP);
        self.ssthresh = ssthresh;
    }

    /// `ca->delay_min` in microseconds (0: no sample yet).
    pub(crate) fn delay_min_us(&self) -> u64 {
        self.bic.delay_min_us
    }

    /// Linux's `sk_pacing_rate` as the last ACK left it, bytes per second.
    pub(crate) fn linux_pacing_rate(&self) -> u64 {
        self.pacing_rate
    }

    fn stop_hystartpp(&mut self) {
        if let SlowStart::HyStartPlusPlus(h) = &mut self.slow_start {
            h.stop();
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        match self.slow_start {
            SlowStart::Standard => "cubic-nohystart",
            SlowStart::HyStart(_) => "cubic",
            SlowStart::HyStartPlusPlus(_) => "cubic+hystartpp",
        }
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        let now = jiffies(ev.now);
        // CA_EVENT_TX_START: sending resumes with nothing in flight. The idle time does not count
        // towards the cubic function.
        if !ev.is_retransmission && ev.bytes_in_flight <= ev.len as u64 {
            if let (Some(epoch), Some(last)) = (self.bic.epoch_start, self.last_send) {
                let idle = now.saturating_sub(last);
                if idle > 0 {
                    self.bic.epoch_start = Some((epoch + idle).min(now));
                }
            }
        }
        self.last_send = Some(now);
        self.snd_nxt = self.snd_nxt.max(ev.seq + ev.len as u64);
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(rtt) = ev.rtt_sample {
            self.on_rtt_sample(ev, rtt);
        }
        self.on_ack_after_rtt_sample(ev);
    }

    fn on_congestion(&mut self, _ev: &CongestionEvent) {
        self.ssthresh = self.recalc_ssthresh();
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
        self.in_recovery = true;
        self.stop_hystartpp();
    }

    fn on_recovery_exit(&mut self, _ev: &RecoveryExitEvent) {
        if self.in_recovery {
            self.cwnd = self.ssthresh;
            self.in_recovery = false;
        }
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        // tcp_enter_loss: ssthresh from the ssthresh hook on the first timeout only, then
        // TCP_CA_Loss resets CUBIC (W_max and delay_min included) and HyStart's round.
        if ev.consecutive <= 1 {
            self.ssthresh = self.recalc_ssthresh();
        }
        self.bic = BicState::default();
        if let SlowStart::HyStart(h) = &mut self.slow_start {
            h.reset(ev.now, self.snd_nxt);
        }
        self.stop_hystartpp();
        self.cwnd = 1;
        self.cwnd_cnt = 0;
        self.acked_carry = 0;
        self.in_recovery = false;
    }

    fn state(&self) -> CcState {
        let phase = if self.in_recovery {
            "recovery"
        } else if self.cwnd < self.ssthresh {
            match &self.slow_start {
                SlowStart::HyStartPlusPlus(h) if h.phase() == Phase::Conservative => "conservative_slow_start",
                _ => "slow_start",
            }
        } else {
            "congestion_avoidance"
        };
        CcState::window(self.cwnd * self.mss, self.ssthresh.saturating_mul(self.mss), phase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn cc_config(cwnd: u64) -> CcConfig {
        CcConfig { mss: MSS, initial_cwnd: cwnd * MSS, initial_ssthresh: u64::MAX }
    }

    fn cubic(cwnd: u64) -> Cubic {
        Cubic::new(CubicConfig::default(), &cc_config(cwnd), SlowStart::Standard)
    }

    fn ack_at(ms: f64, packets: u64, rtt_ms: f64) -> AckEvent {
        AckEvent {
            now: Instant::from_nanos((ms * 1e6) as u64),
            bytes_acked: packets * MSS,
            rtt_sample: Some(Duration::from_secs_f64(rtt_ms / 1000.0)),
            cwnd_limited: true,
            ..Default::default()
        }
    }

    /// A loss at `w_max` packets after an RTT sample of `rtt_ms` (so delay_min is known).
    fn after_loss(w_max: u64, rtt_ms: f64, cfg: CubicConfig) -> Cubic {
        let mut cc = Cubic::new(cfg, &cc_config(w_max), SlowStart::Standard);
        cc.on_ack(&AckEvent { cwnd_limited: false, ..ack_at(0.0, 1, rtt_ms) });
        cc.on_congestion(&CongestionEvent::default());
        cc.on_recovery_exit(&RecoveryExitEvent::default());
        cc
    }

    /// Feeds one ACK per packet for `secs`, `cwnd` ACKs evenly spread over each RTT, starting at
    /// `start_ms`; returns (time, cwnd) after each RTT.
    fn drive(cc: &mut Cubic, start_ms: f64, rtt_ms: f64, secs: f64) -> Vec<(f64, u64)> {
        let mut t = start_ms;
        let mut trace = vec![];
        while t < start_ms + secs * 1000.0 {
            let n = cc.cwnd;
            for i in 0..n {
                cc.on_ack(&ack_at(t + rtt_ms * i as f64 / n as f64, 1, rtt_ms));
            }
            t += rtt_ms;
            trace.push(((t - start_ms) / 1000.0, cc.cwnd));
        }
        trace
    }

    #[test]
    fn linux_fixed_point_constants() {
        let cc = cubic(10);
        // tcp_cubic.c: beta 717, bic_scale 41 -> cube_rtt_scale 410, beta_scale = 8*1741/3/307 = 15,
        // cube_factor = 2^40 / 410.
        assert_eq!((cc.beta, cc.cube_rtt_scale, cc.beta_scale), (717, 410, 15));
        assert_eq!(cc.cube_factor, (1u64 << 40) / 410);
    }

    #[test]
    fn integer_cube_root_is_the_floor() {
        for (a, r) in [(0, 0), (1, 1), (7, 1), (8, 2), (26, 2), (27, 3), (999_999, 99), (1_000_000, 100)] {
            assert_eq!(cube_root(a), r, "cbrt({a})");
        }
        assert_eq!(cube_root(u64::MAX), 2_642_245);
    }

    #[test]
    fn k_matches_the_hand_computed_value() {
        // W_max = 100, cwnd after the loss 70: K = cbrt(30 / C). With Linux's C = 410/1024:
        // cbrt(74.927) = 4.2149 s; with the RFC's C = 0.4: cbrt(75) = 4.2172 s.
        let mut cc = after_loss(100, 100.0, CubicConfig::default());
        assert_eq!(cc.cwnd, 70);
        cc.on_ack(&ack_at(2000.0, 1, 100.0));
        let k = cc.bic.k as f64 / 1024.0;
        assert!((k - 4.2149).abs() < 1.0 / 1024.0, "K = {k}");
        assert!((k - 4.2172).abs() / 4.2172 < 1e-3, "K = {k}");
        assert_eq!(cc.bic.origin_point, 100);
        // Reference vector: W_max 1000, cwnd 700 -> K = 9.086 s (C = 0.4).
        let mut cc = after_loss(1000, 100.0, CubicConfig::default());
        cc.on_ack(&ack_at(2000.0, 1, 100.0));
        let k = cc.bic.k as f64 / 1024.0;
        assert!((k - 9.086).abs() / 9.086 < 1e-3, "K = {k}");
    }

    #[test]
    fn cubic_function_matches_hand_computed_values() {
        // W(t) = C (t - K)^3 + W_max with W_max = 100, C = 0.4, K = 4.2172 s, by hand:
        // W(0) = 70.0, W(2) = 95.6, W(K) = 100, W(6) = 102.3, W(10) = 177.4. Linux truncates
        // the cubic term to whole packets, so the target is within one packet.
        let mut cc = after_loss(100, 100.0, CubicConfig::default());
        cc.on_ack(&ack_at(2000.0, 1, 100.0));
        for (t, w) in [(0.0, 70.0), (2.0, 95.6), (4.2172, 100.0), (6.0, 102.3), (10.0, 177.4)] {
            let target = cc.cubic_target((t * 1024.0) as u64) as f64;
            assert!((target - w).abs() <= 1.0, "W({t}) = {target}, hand {w}");
        }
    }

    #[test]
    fn loss_sets_ssthresh_to_beta_cwnd_and_fast_convergence_lowers_w_max() {
        // Reference vectors: cwnd 100 -> ssthresh 70 (100 x 717 / 1024 = 70.02); a loss at 100
        // below the previous W_max (120) remembers 100 x 1741 / 2048 = 85.
        let mut cc = cubic(120);
        cc.on_congestion(&CongestionEvent::default());
        assert_eq!((cc.bic.last_max_cwnd, cc.ssthresh), (120, 84));
        cc.cwnd = 100;
        cc.on_congestion(&CongestionEvent::default());
        assert_eq!((cc.bic.last_max_cwnd, cc.ssthresh, cc.cwnd), (85, 70, 70));
        let mut slow = Cubic::new(
            CubicConfig { fast_convergence: false, ..Default::default() },
            &cc_config(120),
            SlowStart::Standard,
        );
        slow.on_congestion(&CongestionEvent::default());
        slow.cwnd = 100;
        slow.on_congestion(&CongestionEvent::default());
        assert_eq!(slow.bic.last_max_cwnd, 100);
        // Never below two packets.
        let mut tiny = cubic(2);
        tiny.on_congestion(&CongestionEvent::default());
        assert_eq!(tiny.ssthresh, 2);
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        // W_max 100 at RTT 100 ms: concave up to W_max at K = 4.22 s, flat around it, convex
        // after. Linux aims one delay_min ahead, so cwnd(t) tracks W(t + RTT) from below within
        // a few packets.
        let mut cc = after_loss(100, 100.0, CubicConfig { tcp_friendliness: false, ..Default::default() });
        let trace = drive(&mut cc, 1000.0, 100.0, 8.0);
        let w = |t: f64| 0.4 * (t - 4.2172f64).powi(3) + 100.0;
        for &(t, cwnd) in &trace {
            let expected = w(t);
            assert!((cwnd as f64 - expected).abs() <= 3.0, "t = {t:.1}: cwnd {cwnd}, W(t) = {expected:.1}");
        }
        let at = |s: f64| trace.iter().find(|(t, _)| *t >= s).unwrap().1;
        assert!(at(1.0) - 70 > at(4.0) - at(3.0), "concave: fast first, then flat");
        assert!(at(8.0) - at(7.0) > at(5.0) - at(4.0), "convex after K");
    }

    #[test]
    fn reno_friendly_region_grows_8_15_packet_per_rtt() {
        // Small window, short RTT: cubic growth (K = cbrt(6 / 0.4) = 2.47 s) is slower than
        // Reno's, so the estimate tcp_cwnd leads: 14 + 8/15 per RTT, 100 RTTs in 1 s -> 67.3.
        let mut cc = after_loss(20, 10.0, CubicConfig::default());
        let trace = drive(&mut cc, 1000.0, 10.0, 1.0);
        let last = trace.last().unwrap().1 as f64;
        assert!((last - 67.3).abs() <= 3.0, "cwnd after 1 s {last}");
        let mut no_friend = after_loss(20, 10.0, CubicConfig { tcp_friendliness: false, ..Default::default() });
        let trace = drive(&mut no_friend, 1000.0, 10.0, 1.0);
        assert!(trace.last().unwrap().1 < 25, "pure cubic stays below W_max before K");
    }

    #[test]
    fn without_a_loss_congestion_avoidance_grows_at_least_5_percent_per_rtt() {
        // ssthresh reached without loss (W_max = 0): cnt is capped at 20, so 100 acked packets
        // add exactly 5.
        let mut cc = Cubic::new(
            CubicConfig::default(),
            &CcConfig { mss: MSS, initial_cwnd: 100 * MSS, initial_ssthresh: 100 * MSS },
            SlowStart::Standard,
        );
        for i in 0..100 {
            cc.on_ack(&ack_at(i as f64, 1, 100.0));
        }
        assert_eq!(cc.cwnd, 105);
    }

    #[test]
    fn slow_start_adds_every_acked_packet_and_carries_partial_segments() {
        let mut cc = cubic(10);
        cc.on_ack(&ack_at(0.0, 3, 100.0)); // a stretch ACK of 3 packets: +3 (no ABC limit)
        assert_eq!(cc.cwnd, 13);
        let half = AckEvent { bytes_acked: MSS / 2, ..ack_at(1.0, 0, 100.0) };
        cc.on_ack(&half);
        assert_eq!(cc.cwnd, 13, "half a segment is not a packet yet");
        cc.on_ack(&AckEvent { now: Instant::from_nanos(2_000_000), ..half });
        assert_eq!(cc.cwnd, 14);
        cc.on_ack(&AckEvent { cwnd_limited: false, ..ack_at(3.0, 5, 100.0) });
        assert_eq!(cc.cwnd, 14, "no growth when not cwnd-limited");
    }

    #[test]
    fn hystart_ends_slow_start_without_reducing_the_window() {
        // cwnd 20 >= 16; delay_min 100 ms; a round whose RTTs rise to 115 ms (> 100 + 12.5).
        let mut cc = Cubic::new(
            CubicConfig::default(),
            &cc_config(20),
            SlowStart::HyStart(HyStart::new(hystart::Config { detect: hystart::DETECT_DELAY, ..Default::default() })),
        );
        // A first round of one ACK at 100 ms sets delay_min.
        let mut ev = ack_at(0.0, 1, 100.0);
        ev.snd_una = 1;
        ev.snd_nxt = 1;
        cc.on_ack(&ev);
        let mut exit_cwnd = None;
        for i in 1..20u64 {
            let mut ev = ack_at(i as f64 * 5.0, 1, 115.0);
            ev.snd_una = 1 + i;
            ev.snd_nxt = 20 + 2 * i;
            let before = cc.cwnd;
            cc.on_ack(&ev);
            if cc.state().phase == "congestion_avoidance" {
                exit_cwnd = Some((i, before));
                break;
            }
        }
        // The second round begins at the second ACK; its samples 1..8 only accumulate, the 9th
        // exits.
        let (i, before) = exit_cwnd.expect("HyStart exits");
        assert_eq!(i, 9);
        assert_eq!(cc.ssthresh, before, "ssthresh = cwnd at the exit");
        assert!(cc.cwnd >= before);
    }

    #[test]
    fn timeout_resets_cubic_and_hystart() {
        let mut cc = Cubic::new(
            CubicConfig::default(),
            &cc_config(100),
            SlowStart::HyStart(HyStart::new(hystart::Config::default())),
        );
        cc.on_ack(&ack_at(0.0, 1, 100.0));
        cc.on_congestion(&CongestionEvent::default());
        cc.on_rto(&RtoEvent { consecutive: 1, ..Default::default() });
        assert_eq!((cc.cwnd, cc.ssthresh), (1, 49), "ssthresh from the cwnd at the timeout (70 x 0.7)");
        assert_eq!((cc.bic.last_max_cwnd, cc.bic.delay_min_us), (0, 0), "Linux forgets W_max and delay_min");
        cc.on_rto(&RtoEvent { consecutive: 2, ..Default::default() });
        assert_eq!(cc.ssthresh, 49, "a repeated timeout keeps ssthresh");
        assert_eq!(cc.state().phase, "slow_start");
    }

    #[test]
    fn idle_time_does_not_advance_the_cubic_clock() {
        let mut cc = after_loss(100, 100.0, CubicConfig::default());
        cc.on_sent(&SentEvent {
            now: Instant::from_nanos(1_500_000_000),
            len: 1000,
            bytes_in_flight: 5000,
            ..Default::default()
        });
        cc.on_ack(&ack_at(2000.0, 1, 100.0));
        assert_eq!(cc.bic.epoch_start, Some(2000));
        // Last send at 1.5 s; sending resumes at 5 s with nothing in flight: 3.5 s of idle.
        cc.on_sent(&SentEvent {
            now: Instant::from_nanos(5_000_000_000),
            len: 1000,
            bytes_in_flight: 1000,
            ..Default::default()
        });
        assert_eq!(cc.bic.epoch_start, Some(5000));
    }
}
