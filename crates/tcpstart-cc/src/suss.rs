//! SUSS, "Speeding Up Slow Start": Arghavani, Zhang, Eyers, Arghavani, "SUSS: Improving TCP
//! Performance by Speeding Up Slow-Start", ACM SIGCOMM 2024, as the authors' Linux patch runs it
//! on CUBIC (github.com/SUSSdeveloper/SUSS, `sourceCode/linux-6.8/suss/`: `tcp_cubic.c` blocks
//! E1-E12, `tcp_output.c` D1, `tcp_input.c` C1-C3). Registered as `cubic+suss`: Linux CUBIC
//! (see [`crate::cubic`]) with SUSS and the HyStart that the patch modifies.
//!
//! Idea: while a round's ACK train is short against the minimum RTT, exponential growth will go
//! on, so SUSS lets the window grow 4x instead of 2x in the next round. The ACK clock sends the
//! usual doubling ("blue" packets, sent as the blue ACKs arrive); the extra ("red") packets are
//! paced into the idle rest of the round, after a guard gap, so the growth adds no burst.
//!
//! Per round (a round starts with the first ACK beyond SND.NXT at the previous round's start;
//! `round` 2 is the round of the initial window's ACKs), at the ACK that completes the round's
//! blue part (the first `iw x 2^(round-2)` packets sent in the previous round):
//!
//! 1. Δt_bat = (blue packets) x (blue ACK spacing): time from the round's first ACK to this one,
//!    scaled to the whole blue train, `blue_pkt x elapsed / (2 x blue_cnt)` in microseconds.
//! 2. Speed-up test (`suss_speedup`), while every earlier test passed:
//!    - round 2: min RTT > 10 ms and Δt_bat < min RTT / 4, else SUSS is off for the connection;
//!    - later: with the train scaled to a quadrupling round, Δt = Δt_bat 2^(round-2) and the
//!      previous one Δt' = Δt'_bat 2^(round-3), growth ratio μ = Δt / (2 Δt'); go on while
//!      2 μ Δt <= min RTT (the next train still fits in a round) and round < `suss_max` + 2, and
//!      the RTT has not risen: (k+1) curr_rtt <= (k+1) min RTT + k min RTT / 8, with curr_rtt
//!      HyStart's minimum of this round and k the rounds since the minimum RTT last fell.
//! 3. On a pass: red_pkt = blue_pkt_next (2^(round-1) - 1) packets are paced at
//!    red_pkt x MSS / D over D = min RTT (1 - 2^-(round-1)), starting a guard
//!    ((min RTT - D) - Δt_bat) / 2 after this ACK, and cwnd may grow to
//!    limit = cwnd + acked + red_pkt - red_ack (red_ack: red ACKs still due this round). The
//!    round is paced only if min RTT - D > Δt_bat.
//!
//! State machine (the patch's `suss_state` numbers in brackets):
//!
//! | state | per ACK / per send | leaves to | when |
//! |---|---|---|---|
//! | `Clocking` [1] | slow start; rounds and blue trains measured | `Pacing` | speed-up test passed and the round has room to pace |
//! | `Pacing` [2] | each send with a full window: cwnd += 2 up to `limit`; sends paced from the guard on; red ACKs: no growth | `Clocking` | next round's first ACK (pacing stops) |
//! | `Clocking`, `Pacing` | | `CapExit` [3] | cap set (below) and cwnd > cap: ssthresh = cwnd (cwnd = in flight first after 2+ jumps) |
//! | `Clocking`, `Pacing`, `CapExit` | | `DelayExit` [4] | HyStart delay test: ssthresh = cwnd (cwnd = in flight first after 2+ jumps) |
//! | any but `Off` | | `Reduced` [9] | loss: from `Clocking`/`Pacing` cwnd = in flight first; then CUBIC's reduction |
//! | `Clocking` | | `Off` [10] | round-2 test failed: the standard HyStart from here |
//! | any | | `Off` | timeout (tcpstart's reading, see below) |
//!
//! The cap: while SUSS runs (`Clocking`/`Pacing`, no cap yet) the patch replaces HyStart's ACK-
//! train test by its own: on a blue ACK of a train (ACKs at most 2 ms apart), if the train scaled
//! by the red share, (now - HyStart's round start) x 2^jumps, exceeds (min RTT + ack delay) / 2,
//! the cap is cwnd + blue_cnt (2^jumps - 1), the window the round's red ACKs would bring; SUSS
//! stops measuring and slow start ends once cwnd passes the cap. In `Off` the standard ACK-train
//! test runs. HyStart's delay test runs throughout.
//!
//! Interpretations (docs/algorithms/suss.md has them all):
//! - The initial window is the scenario's (`iw`), where the patch assumes `TCP_INIT_CWND` = 10.
//! - The guard delays the first paced send: the send that switches pacing on goes at once and
//!   reports a rate of MSS / guard, so the simulator's next departure is the patch's
//!   `suss_pacing_start_ns`; from the following send on the rate is SUSS's.
//! - Red ACKs in `Pacing` do not grow the window (the patch: cwnd -= acked before slow start adds
//!   it back, the same whenever Linux deems the flow cwnd-limited, as it does in slow start).
//! - "In flight" is the event's in-flight bytes in whole segments; at a loss the event's flight
//!   size (RFC 5681 FlightSize), where the patch reads `tcp_packets_in_flight` (pipe).
//! - A timeout turns SUSS off for the connection (the patch does so only below 40 packets and
//!   otherwise leaves its state to run on); its cap is forgotten and the standard HyStart runs
//!   in the next slow start, after CUBIC's reset.
//! - A round whose blue part ends on its first ACK (no train to time) or whose previous train took
//!   0 µs cannot be extrapolated: SUSS makes no more jumps (the patch would divide by zero).
//! - Full-width counters: the patch's bit fields wrap (blue ACK count at 4096, cap at 16384
//!   packets, previous train time at 262 ms); tcpstart's do not.
//! - Left out: the patch's raise of the peer's window (`snd_wnd`, E6; the simulated receiver's
//!   window does not limit slow start unless the scenario says so), its TSO-deferral bypass (D2),
//!   its test-port filter and logging.

use crate::controller::{Capabilities, CcState, CongestionControl};
use crate::cubic::{self, Cubic, CubicConfig, SlowStart};
use crate::events::{AckEvent, CongestionEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::hystart::{self, ack_delay_us, delay_threshold_us};
use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Registration};
use crate::time::{Duration, Instant};

const SUSS_MAX: ParamSpec = ParamSpec {
    name: "suss_max",
    default: 3.0,
    min: 0.0,
    max: 10.0,
    integer: true,
    doc: "most rounds with 4x growth: a speed-up is allowed only in rounds below suss_max + 2 (the patch's module parameter)",
};

const PARAMS: [ParamSpec; 5] = [cubic::PARAMS[0], cubic::PARAMS[1], cubic::PARAMS[2], cubic::PARAMS[3], SUSS_MAX];

pub const CUBIC_SUSS: Registration = Registration {
    info: AlgorithmInfo {
        name: "cubic+suss",
        summary: "Linux CUBIC with SUSS: 4x growth per round while ACK trains predict more exponential growth, the extra packets paced",
        reference: "Arghavani, Zhang, Eyers, Arghavani: SUSS, ACM SIGCOMM 2024; authors' Linux 6.8 patch (github.com/SUSSdeveloper/SUSS)",
        params: &PARAMS,
    },
    build: |p, cfg| Box::new(Suss::new(CubicConfig::from_params(p), cfg, p["suss_max"] as u32)),
    receiver_hook: None,
};

/// The patch's `suss_state`, in its order (its tests compare the numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Clocking = 1,
    Pacing = 2,
    CapExit = 3,
    DelayExit = 4,
    Reduced = 9,
    Off = 10,
}

/// Which part of a round's ACKs the current ACK belongs to (`suss_is_blue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Red,
    Blue,
    /// The ACK that completed the blue part.
    Tail,
}

/// Linux HyStart's round and train state, which the patch shares with its cap test.
#[derive(Clone, Debug, Default)]
struct Train {
    found: bool,
    round_start_us: u64,
    last_ack_us: u64,
    end_seq: u64,
    curr_rtt_us: Option<u64>,
    sample_cnt: u32,
}

impl Train {
    fn reset_round(&mut self, now_us: u64, snd_nxt: u64) {
        *self = Train {
            found: self.found,
            round_start_us: now_us,
            last_ack_us: now_us,
            end_seq: snd_nxt,
            ..Train::default()
        };
    }
}

#[derive(Clone, Debug)]
pub struct Suss {
    cubic: Cubic,
    mss: u64,
    /// Initial window in packets (the patch's `TCP_INIT_CWND`).
    iw: u64,
    suss_max: u32,
    state: State,
    /// Sends are paced (the patch switched `sk_pacing_status` to `SK_PACING_NEEDED`).
    paced: bool,
    /// Gap before the first paced departure, until the send after the switch.
    first_gap: Option<Duration>,
    guard: Duration,
    /// Pacing rate of the red packets, bytes per second (`suss_rate`).
    rate: u64,
    limit: u64,
    round: u32,
    /// SND.NXT at the round's start, and the end of the next blue part.
    head_seq: u64,
    tail_end: u64,
    round_start_us: u64,
    /// The speed-up test has passed in every round so far (`suss_gf`).
    growing: bool,
    part: Part,
    /// Packets acknowledged by this round's blue ACKs.
    blue_cnt: u64,
    prev_delta_t_bat_us: u64,
    jumps: u32,
    /// Round in which the minimum RTT last fell.
    min_update_round: u32,
    cap: Option<u64>,
    train: Train,
    acked_carry: u64,
    /// Highest sequence number sent, for HyStart's round after a timeout.
    snd_nxt: u64,
}

fn micros(t: Instant) -> u64 {
    t.as_nanos() / 1000
}

impl Suss {
    pub fn new(cfg: CubicConfig, cc: &CcConfig, suss_max: u32) -> Self {
        let iw = (cc.initial_cwnd / cc.mss).max(1);
        Suss {
            cubic: Cubic::new(cfg, cc, SlowStart::Standard),
            mss: cc.mss,
            iw,
            suss_max,
            state: State::Clocking,
            paced: false,
            first_gap: None,
            guard: Duration::ZERO,
            rate: 0,
            limit: 0,
            round: 1,
            head_seq: 0,
            tail_end: iw * cc.mss,
            round_start_us: 0,
            growing: true,
            part: Part::Red,
            blue_cnt: 0,
            prev_delta_t_bat_us: 0,
            jumps: 0,
            min_update_round: 0,
            cap: None,
            train: Train::default(),
            acked_carry: 0,
            snd_nxt: 0,
        }
    }

    pub fn suss_state(&self) -> State {
        self.state
    }

    /// Rounds paced with 4x growth so far.
    pub fn jumps(&self) -> u32 {
        self.jumps
    }

    fn cwnd_packets(&self) -> u64 {
        self.cubic.packets().0
    }

    fn set_cwnd(&mut self, cwnd: u64) {
        let ssthresh = self.cubic.packets().1;
        self.cubic.set_packets(cwnd, ssthresh);
    }

    /// Ends slow start at the current window (HyStart's `snd_ssthresh = snd_cwnd`), first
    /// trimming cwnd to the packets in flight after two or more jumps.
    fn exit_slow_start(&mut self, in_flight: u64) {
        if self.jumps > 1 {
            self.set_cwnd(in_flight);
        }
        let cwnd = self.cwnd_packets();
        self.cubic.set_packets(cwnd, cwnd);
    }

    fn stop_pacing(&mut self) {
        self.paced = false;
        self.first_gap = None;
    }

    /// `hystart_update` as the patch modifies it, on an RTT sample in slow start.
    fn hystart_update(&mut self, ev: &AckEvent, delay_us: u64, in_flight: u64) {
        let now_us = micros(ev.now);
        if ev.snd_una > self.train.end_seq {
            self.train.reset_round(now_us, ev.snd_nxt);
        }
        let cwnd = self.cwnd_packets();
        if cwnd < hystart::Config::default().low_window {
            return;
        }
        let delay_min_us = self.cubic.delay_min_us();
        let ack_delta_us = hystart::Config::default().ack_delta.as_micros() as u64;
        let in_train = now_us.saturating_sub(self.train.last_ack_us) <= ack_delta_us;
        let threshold_us = (delay_min_us + ack_delay_us(self.sk_pacing_rate())) >> 1;
        let train_us = now_us.saturating_sub(self.train.round_start_us);
        // suss_cap
        match self.cap {
            Some(cap) if cwnd > cap => {
                self.train.found = true;
                self.state = State::CapExit;
                self.stop_pacing();
                self.exit_slow_start(in_flight);
                return;
            }
            None if self.state < State::CapExit && self.part != Part::Red && in_train => {
                self.train.last_ack_us = now_us;
                if train_us << self.jumps > threshold_us {
                    self.cap = Some(cwnd + self.blue_cnt * ((1 << self.jumps) - 1));
                }
            }
            _ => {}
        }
        // The standard ACK-train test, only once SUSS is off (the socket is not paced then).
        if self.state == State::Off && in_train {
            self.train.last_ack_us = now_us;
            if train_us > threshold_us {
                self.train.found = true;
                let cwnd = self.cwnd_packets();
                self.cubic.set_packets(cwnd, cwnd);
            }
        }
        let curr = self.train.curr_rtt_us.map_or(delay_us, |c| c.min(delay_us));
        self.train.curr_rtt_us = Some(curr);
        if self.train.sample_cnt < hystart::MIN_SAMPLES {
            self.train.sample_cnt += 1;
        } else if curr > delay_min_us + delay_threshold_us(delay_min_us) {
            self.train.found = true;
            if self.state < State::Reduced {
                self.state = State::DelayExit;
                self.stop_pacing();
                if self.jumps > 1 {
                    self.set_cwnd(in_flight);
                }
            }
            let cwnd = self.cwnd_packets();
            self.cubic.set_packets(cwnd, cwnd);
        }
    }

    /// `suss_speedup`: whether the next round may grow 4x, given this round's blue train time
    /// (`None`: the train could not be timed).
    fn speedup(&mut self, delta_t_bat_us: Option<u64>) -> bool {
        let delay_min_us = self.cubic.delay_min_us();
        if self.round == 2 {
            let pass = delay_min_us > 10_000 && delta_t_bat_us.is_some_and(|d| d < delay_min_us >> 2);
            if !pass {
                self.state = State::Off;
            }
            return pass;
        }
        let Some(delta_t_bat_us) = delta_t_bat_us else { return false };
        let delta_t = delta_t_bat_us << (self.round - 2);
        let prev_delta_t = self.prev_delta_t_bat_us << (self.round - 3);
        if prev_delta_t == 0 {
            return false;
        }
        // μ in 1/1024, as the patch computes it; 2 μ Δt is the next round's projected train.
        let mu = (delta_t << 10) / (prev_delta_t << 1);
        let next_train = (mu * delta_t) >> 9;
        if next_train > delay_min_us || self.round >= self.suss_max + 2 {
            return false;
        }
        let Some(curr_rtt) = self.train.curr_rtt_us else { return false };
        let k = u64::from(self.round.saturating_sub(self.min_update_round));
        (k + 1) * curr_rtt <= delay_min_us * (k + 1) + ((delay_min_us * k) >> 3)
    }

    /// `suss_measurements`, before the ACK's growth. Returns true for a red ACK while pacing,
    /// which must not grow the window.
    fn measure(&mut self, ev: &AckEvent, acked: u64) -> bool {
        let now_us = micros(ev.now);
        if self.part == Part::Tail {
            self.part = Part::Red;
        }
        if ev.snd_una > self.head_seq {
            self.part = Part::Blue;
            self.blue_cnt = 0;
            self.round += 1;
            self.round_start_us = now_us;
            self.head_seq = ev.snd_nxt;
            self.stop_pacing();
            self.state = State::Clocking;
        }
        if ev.snd_una >= self.tail_end {
            self.on_blue_tail(now_us, acked);
        }
        if self.part != Part::Red {
            self.blue_cnt += acked;
        }
        self.part == Part::Red && self.state == State::Pacing
    }

    /// The ACK that completes a round's blue part: time the train, decide on 4x growth, plan
    /// the pacing of the red packets.
    fn on_blue_tail(&mut self, now_us: u64, acked: u64) {
        let elapsed_us = now_us.saturating_sub(self.round_start_us);
        self.part = Part::Tail;
        // Saturating: rounds go on being counted after the last jump, however long slow start lasts.
        let blue_pkt = self.iw.saturating_mul(1 << (self.round - 1).min(62));
        let blue_ack = blue_pkt >> 1;
        self.tail_end = self.head_seq.saturating_add(blue_pkt.saturating_mul(self.mss));
        // No train to time when the blue part ended on the round's first ACK.
        let delta_t_bat_us = (self.blue_cnt > 0).then(|| blue_pkt * elapsed_us / (2 * self.blue_cnt));
        if self.growing {
            self.growing = self.speedup(delta_t_bat_us);
        }
        let (true, Some(delta_t_bat_us)) = (self.growing, delta_t_bat_us) else {
            return;
        };
        self.prev_delta_t_bat_us = delta_t_bat_us;
        let red_pkt = (blue_pkt << (self.round - 1)) - blue_pkt;
        let red_ack = (blue_ack << (self.round - 2)) - blue_ack;
        self.limit = self.cwnd_packets() + acked + red_pkt - red_ack;
        let delay_min_us = self.cubic.delay_min_us();
        let duration_us = delay_min_us - (delay_min_us >> (self.round - 1));
        let gap_us = delay_min_us - duration_us;
        if duration_us == 0 || gap_us <= delta_t_bat_us {
            self.state = State::Clocking;
            return;
        }
        // The patch's fixed point: bytes per µs in 1/2^24, then per second.
        let per_us = ((u128::from(red_pkt * self.mss)) << 24) / u128::from(duration_us);
        self.rate = ((per_us * 1_000_000) >> 24) as u64;
        self.state = State::Pacing;
        self.jumps += 1;
        self.guard = Duration::from_micros((gap_us - delta_t_bat_us) >> 1);
    }

    /// Linux's `sk_pacing_rate`: frozen at SUSS's rate while it paces (patch C1).
    fn sk_pacing_rate(&self) -> u64 {
        if self.state == State::Pacing && self.paced {
            self.rate
        } else {
            self.cubic.linux_pacing_rate()
        }
    }

    fn packets_of(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss)
    }
}

impl CongestionControl for Suss {
    fn name(&self) -> &'static str {
        "cubic+suss"
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        self.cubic.on_sent(ev);
        self.snd_nxt = self.snd_nxt.max(ev.seq + u64::from(ev.len));
        // The guard spaced only the departure after the one that switched pacing on.
        self.first_gap = None;
        // Patch D1: a send that fills the window while SUSS paces opens it by two more packets.
        let cwnd = self.cwnd_packets();
        if self.state == State::Pacing && cwnd < self.limit && cwnd <= self.packets_of(ev.bytes_in_flight) {
            self.set_cwnd(cwnd + 2);
            if !self.paced {
                self.paced = true;
                self.first_gap = (!self.guard.is_zero()).then_some(self.guard);
            }
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.snd_nxt = self.snd_nxt.max(ev.snd_nxt);
        let in_flight = self.packets_of(ev.bytes_in_flight);
        if let Some(rtt) = ev.rtt_sample {
            let before = self.cubic.delay_min_us();
            self.cubic.on_rtt_sample(ev, rtt);
            if self.cubic.delay_min_us() != before {
                self.min_update_round = self.round;
            }
            let (cwnd, ssthresh) = self.cubic.packets();
            if !self.train.found && cwnd < ssthresh {
                self.hystart_update(ev, (rtt.as_micros() as u64).max(1), in_flight);
            }
        }
        if self.state >= State::CapExit {
            self.stop_pacing();
        }
        let bytes = ev.bytes_acked + self.acked_carry;
        self.acked_carry = bytes % self.mss;
        let red_while_pacing = ev.bytes_acked > 0
            && self.state < State::CapExit
            && self.cap.is_none()
            && self.measure(ev, bytes / self.mss);
        if red_while_pacing {
            self.cubic.on_ack_after_rtt_sample(&AckEvent { cwnd_limited: false, ..*ev });
        } else {
            self.cubic.on_ack_after_rtt_sample(ev);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        // Patch C3, before CUBIC computes ssthresh from cwnd.
        if self.state < State::Reduced {
            if self.state < State::CapExit {
                self.set_cwnd(self.packets_of(ev.flight_size));
            }
            self.state = State::Reduced;
        }
        self.stop_pacing();
        self.cubic.on_congestion(ev);
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.cubic.on_recovery_exit(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.state = State::Off;
        self.cap = None;
        self.stop_pacing();
        self.cubic.on_rto(ev);
        // CUBIC's reset on TCP_CA_Loss includes HyStart's round.
        self.train = Train::default();
        self.train.reset_round(micros(ev.now), self.snd_nxt);
    }

    fn state(&self) -> CcState {
        let cubic = self.cubic.state();
        if !self.paced {
            return cubic;
        }
        let rate = match self.first_gap {
            Some(gap) => self.mss as f64 / gap.as_secs_f64(),
            None => self.rate as f64,
        };
        CcState { pacing_rate: Some(rate), phase: "suss_pacing", ..cubic }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities { uses_rate_samples: false, ..Capabilities::default() }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    const MSS: u64 = 1000;

    fn suss(suss_max: u32) -> Suss {
        let cfg = CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX };
        Suss::new(CubicConfig::default(), &cfg, suss_max)
    }

    fn at_us(us: u64) -> Instant {
        Instant::from_nanos(us * 1000)
    }

    /// A fake bulk sender over a path of base RTT `rtt_us` whose bottleneck serves one segment
    /// per `slot_us` with an infinite queue: segment i's ACK (one per segment) arrives at
    /// max(sent + RTT, previous ACK + slot). The sender sends what the window allows, spaced by
    /// the controller's pacing rate while it has one, and reports every send and ACK. Runs until
    /// `until_us`; returns the window in packets at each round's first ACK.
    fn drive(cc: &mut dyn CongestionControl, rtt_us: u64, slot_us: u64, until_us: u64) -> Vec<u64> {
        let (mut snd_una, mut snd_nxt, mut last_ack, mut next_send) = (0u64, 0u64, 0u64, 0u64);
        let mut acks: VecDeque<(u64, u64, u64)> = VecDeque::new(); // (arrival, acked to, sent at)
        let (mut round_end, mut rounds) = (0u64, vec![]);
        let mut now = 0;
        loop {
            // Send what the window and the pacing allow.
            while snd_nxt - snd_una + MSS <= cc.state().cwnd {
                let paced = cc.state().pacing_rate;
                if paced.is_some() && now < next_send {
                    break;
                }
                cc.on_sent(&SentEvent {
                    now: at_us(now),
                    seq: snd_nxt,
                    len: MSS as u32,
                    bytes_in_flight: snd_nxt + MSS - snd_una,
                    ..Default::default()
                });
                snd_nxt += MSS;
                last_ack = (now + rtt_us).max(last_ack + slot_us);
                acks.push_back((last_ack, snd_nxt, now));
                if let Some(rate) = cc.state().pacing_rate {
                    next_send = next_send.max(now) + (MSS as f64 / rate * 1e6) as u64;
                }
            }
            let wake = cc.state().pacing_rate.map(|_| next_send).filter(|&t| t > now);
            let next_ack = acks.front().map(|a| a.0);
            now = match (next_ack, wake) {
                (Some(a), Some(w)) => a.min(w),
                (Some(a), None) => a,
                (None, Some(w)) => w,
                (None, None) => return rounds,
            };
            if now > until_us {
                return rounds;
            }
            if next_ack != Some(now) {
                continue;
            }
            let (_, acked_to, sent_at) = acks.pop_front().unwrap();
            if acked_to > round_end {
                rounds.push(cc.state().cwnd / MSS);
                round_end = snd_nxt;
            }
            let prior = snd_nxt - snd_una;
            snd_una = acked_to;
            cc.on_ack(&AckEvent {
                now: at_us(now),
                bytes_acked: MSS,
                rtt_sample: Some(Duration::from_micros(now - sent_at)),
                srtt: Some(Duration::from_micros(rtt_us)),
                prior_in_flight: prior,
                bytes_in_flight: snd_nxt - snd_una,
                cwnd_limited: true,
                snd_una,
                snd_nxt,
                ..Default::default()
            });
        }
    }

    #[test]
    fn round_two_plans_the_red_packets_by_the_patch_formulas() {
        // 100 ms path, ACKs 1 ms apart: the initial window's 10 ACKs span 9 ms, so
        // Δt_bat = 20 x 9000 / (2 x 9) = 10 000 µs < 100 ms / 4. Red packets: 20 x (2 - 1) = 20;
        // limit = 19 + 1 + 20 - 0 = 40; D = 100 - 50 = 50 ms; rate = 20 000 B / 50 ms =
        // 400 000 B/s, 399 999 in the patch's fixed point (20 000 x 2^24 / 50 000 truncates);
        // guard = ((100 - 50) - 10) / 2 = 20 ms.
        let mut cc = suss(3);
        for i in 0..10u64 {
            cc.on_ack(&AckEvent {
                now: at_us(100_000 + 1000 * i),
                bytes_acked: MSS,
                rtt_sample: Some(Duration::from_millis(100)),
                bytes_in_flight: (9 - i + 2 * (i + 1)) * MSS - 2 * MSS,
                cwnd_limited: true,
                snd_una: (i + 1) * MSS,
                snd_nxt: (10 + 2 * i) * MSS,
                ..Default::default()
            });
        }
        assert_eq!(cc.suss_state(), State::Pacing);
        assert_eq!((cc.limit, cc.rate, cc.guard, cc.jumps()), (40, 399_999, Duration::from_millis(20), 1));
        assert_eq!(cc.state().cwnd, 20 * MSS);
        assert_eq!(cc.state().pacing_rate, None, "pacing starts with the first send that fills the window");
        let sent = |cc: &mut Suss, in_flight: u64| {
            cc.on_sent(&SentEvent { len: MSS as u32, bytes_in_flight: in_flight * MSS, ..Default::default() })
        };
        sent(&mut cc, 20);
        assert_eq!(cc.state().cwnd, 22 * MSS);
        // The next departure comes one guard later: MSS / 20 ms.
        assert_eq!(cc.state().pacing_rate, Some(50_000.0));
        assert_eq!(cc.state().phase, "suss_pacing");
        sent(&mut cc, 21);
        assert_eq!((cc.state().cwnd, cc.state().pacing_rate), (22 * MSS, Some(399_999.0)), "window not full: no +2");
        sent(&mut cc, 22);
        assert_eq!(cc.state().cwnd, 24 * MSS);
    }

    #[test]
    fn round_two_turns_suss_off_on_short_paths_and_slow_trains() {
        // Minimum RTT exactly 10 ms (the patch needs more), or a train of 25 ms at 100 ms.
        for (rtt_ms, spacing_us, _why) in [(10, 100, "min RTT"), (100, 2778, "train")] {
            let mut cc = suss(3);
            for i in 0..10u64 {
                cc.on_ack(&AckEvent {
                    now: at_us(rtt_ms * 1000 + spacing_us * i),
                    bytes_acked: MSS,
                    rtt_sample: Some(Duration::from_millis(rtt_ms)),
                    cwnd_limited: true,
                    snd_una: (i + 1) * MSS,
                    snd_nxt: (10 + 2 * i) * MSS,
                    ..Default::default()
                });
            }
            assert_eq!(cc.suss_state(), State::Off, "{_why}");
            assert_eq!(cc.jumps(), 0);
        }
    }

    #[test]
    fn quadruples_for_suss_max_rounds_on_a_fast_path() {
        // 100 ms, one segment per 50 µs (BDP 2000 segments): trains stay short, so rounds 2, 3
        // and 4 pass (round < suss_max + 2 = 5): the windows at the rounds' first ACKs go
        // 10, 40, 160, 640 and then double (1280), where plain slow start (cubic-nohystart)
        // doubles from the start: 10, 20, 40, 80, 160.
        let mut cc = suss(3);
        let rounds = drive(&mut cc, 100_000, 50, 550_000);
        assert_eq!(cc.jumps(), 3);
        let mut plain = Cubic::new(
            CubicConfig::default(),
            &CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX },
            SlowStart::Standard,
        );
        let doubling = drive(&mut plain, 100_000, 50, 550_000);
        assert_eq!(doubling, [10, 20, 40, 80, 160]);
        assert_eq!(rounds, [10, 40, 160, 640, 1280]);
        // suss_max = 1: only rounds 2 (its own test) and below 3 quadruple.
        let mut once = suss(1);
        assert_eq!(drive(&mut once, 100_000, 50, 550_000), [10, 40, 80, 160, 320]);
        assert_eq!(once.jumps(), 1);
    }

    #[test]
    fn the_cap_ends_slow_start_near_the_bdp() {
        // 100 ms, bottleneck slots of 0.2, 0.5 and 1 ms (BDP 500, 200, 100 segments), infinite
        // queue: the red-scaled ACK train outgrows half the minimum RTT in the round that
        // reaches the BDP, so cwnd stops one cap later, within 1.4 BDP, without a loss.
        for (slot_us, bdp, jumps) in [(200, 500, 2), (500, 200, 2), (1000, 100, 1)] {
            let mut cc = suss(3);
            drive(&mut cc, 100_000, slot_us, 1_500_000);
            assert_eq!((cc.suss_state(), cc.jumps()), (State::CapExit, jumps), "slot {slot_us}");
            let ratio = (cc.state().ssthresh / MSS) as f64 / bdp as f64;
            assert!((1.0..1.4).contains(&ratio), "slot {slot_us}: ssthresh {ratio:.2} BDP");
            assert_eq!(cc.state().phase, "congestion_avoidance");
        }
    }

    #[test]
    fn off_after_round_two_it_is_linux_cubic() {
        // 5 ms: the round-2 test fails (min RTT <= 10 ms) and the standard HyStart runs: the
        // same windows as `cubic`, round by round, to the same exit.
        let build = |name| {
            crate::registry::build(
                name,
                &Default::default(),
                &CcConfig { mss: MSS, initial_cwnd: 10 * MSS, initial_ssthresh: u64::MAX },
            )
            .unwrap()
        };
        let (mut with, mut without) = (build("cubic+suss"), build("cubic"));
        let a = drive(with.as_mut(), 5_000, 100, 300_000);
        let b = drive(without.as_mut(), 5_000, 100, 300_000);
        assert_eq!(a, b);
        assert!(a.len() > 10 && without.state().ssthresh < u64::MAX, "HyStart exited: {b:?}");
        assert_eq!((with.state().cwnd, with.state().ssthresh), (without.state().cwnd, without.state().ssthresh));
    }

    #[test]
    fn a_loss_while_pacing_cuts_from_the_data_in_flight() {
        let mut cc = suss(3);
        drive(&mut cc, 100_000, 50, 250_000);
        assert_eq!(cc.suss_state(), State::Pacing);
        // Window 120 (paced ahead), 100 segments outstanding: cwnd = 100, then CUBIC's
        // ssthresh = 100 x 717 / 1024 = 70.
        cc.set_cwnd(120);
        cc.on_congestion(&CongestionEvent { flight_size: 100 * MSS, ..Default::default() });
        assert_eq!((cc.suss_state(), cc.state().pacing_rate), (State::Reduced, None));
        assert_eq!((cc.state().cwnd, cc.state().ssthresh), (70 * MSS, 70 * MSS));
    }

    #[test]
    fn a_timeout_turns_suss_off_for_good() {
        let mut cc = suss(3);
        drive(&mut cc, 100_000, 50, 250_000);
        cc.on_rto(&RtoEvent { flight_size: 100 * MSS, consecutive: 1, ..Default::default() });
        assert_eq!((cc.suss_state(), cc.state().pacing_rate, cc.state().cwnd), (State::Off, None, MSS));
        assert_eq!(cc.state().phase, "slow_start");
    }
}
