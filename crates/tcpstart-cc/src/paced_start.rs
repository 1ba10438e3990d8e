//! The machinery shared by the paced start-ups (Swift Start and its BBN original, pacing-only,
//! Modified Swift Start): an initial window of four segments, a *probe* that watches the first
//! round and decides on a window, that window paced over the next round trip, then NewReno.
//!
//! State machine of [`PacedStart`]:
//!
//! ```text
//!   measuring (slow start) --probe: Pace(plan)--> pacing (cwnd = plan.window, rate = window / rtt)
//!   pacing --the segment reaching plan.end_seq sent (or, without an end_seq, an ACK of a paced
//!            segment), a retransmission or a loss--> done (NewReno)
//!   pacing --probe: Pace(new plan)--> pacing (a later estimate replaces the window)
//!   measuring --probe: Abort, or a loss (unless the probe ignores losses)--> done
//! ```
//!
//! While measuring, ACKs grow the window as in slow start (RFC 5681, one segment per ACK, as the
//! FreeBSD 4.1 sender the NASA report used). While pacing, ACKs do not grow it: a paced round
//! ends with `cwnd` = the planned window, so the ACKs that arrived meanwhile release only what
//! they acknowledged instead of a burst (the NASA report's "decreased snd_cwnd to account for the
//! ACKed packets"). An *endless* plan (the BBN original's flaw) never ends: ACKs keep growing the
//! window in slow start and the sender keeps pacing at cwnd / rtt.
//!
//! Each algorithm is a [`Probe`] wrapped in [`PacedStart`]; its module registers it.

use crate::controller::{CcState, CongestionControl};
use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::registry::CcConfig;
use crate::reno::{Reno, RenoVariant};
use crate::time::Duration;

/// Initial window of every paced start-up, in segments: the BBN code and the NASA report
/// (`net.inet.tcp.local_slowstart_flightsize` = 4) and Modified Swift Start ("Slow-Start Initial
/// Count 4") all start with four segments, whatever the scenario's initial window says.
pub const INITIAL_WINDOW_SEGMENTS: u64 = 4;

/// A window to pace over one round trip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacePlan {
    /// Bytes the window is set to while pacing.
    pub window: u64,
    /// Round trip over which the window is spread: the rate is `window / rtt`.
    pub rtt: Duration,
    /// Pacing ends once a segment reaching this sequence number has been sent (the NASA fix:
    /// "stop pacing when a number of packets up to the value of ce_cwnd had been sent"); `None`:
    /// it ends with the first ACK of a paced segment, one round trip after pacing began
    /// (Modified Swift Start: "until the sender receives an other ACK that indicates the end of
    /// the second RTT").
    pub end_seq: Option<u64>,
    /// Never stop pacing, and keep growing the window per ACK (the BBN original).
    pub endless: bool,
}

/// What a probe wants after an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    Continue,
    /// Give up the estimate: plain slow start from here on.
    Abort,
    Pace(PacePlan),
}

/// The windows around an ACK: before and after the ACK's slow-start growth.
#[derive(Clone, Copy, Debug)]
pub struct Windows {
    pub before: u64,
    pub after: u64,
}

/// The algorithm-specific part: what to measure in the first round and which window to pace.
pub trait Probe: Send {
    fn name(&self) -> &'static str;
    fn on_established(&mut self, _ev: &EstablishedEvent) {}
    fn on_sent(&mut self, _ev: &SentEvent) -> Decision {
        Decision::Continue
    }
    /// Called for every ACK while measuring or pacing (a later estimate may replace the plan).
    fn on_ack(&mut self, ev: &AckEvent, cwnd: Windows) -> Decision;
    /// Whether a loss (fast retransmit or timeout) while measuring ends the start-up.
    fn aborts_on_loss(&self) -> bool {
        true
    }
    fn segment_mark(&mut self, _seq: u64) -> u8 {
        0
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    Measuring,
    /// `round_start`: the highest sequence sent when pacing began; an ACK beyond it acknowledges a
    /// paced segment, so a round trip has passed.
    Pacing {
        plan: PacePlan,
        round_start: u64,
    },
    Done,
}

/// A paced start-up: probe `P` in front of NewReno.
pub struct PacedStart<P: Probe> {
    probe: P,
    reno: Reno,
    mss: u64,
    stage: Stage,
}

impl<P: Probe> PacedStart<P> {
    pub fn new(probe: P, cfg: &CcConfig) -> Self {
        let iw = INITIAL_WINDOW_SEGMENTS * cfg.mss;
        PacedStart { probe, reno: Self::reno(cfg.mss, iw, cfg.initial_ssthresh), mss: cfg.mss, stage: Stage::Measuring }
    }

    /// NewReno with RFC 5681 growth (one segment per ACK in slow start).
    fn reno(mss: u64, cwnd: u64, ssthresh: u64) -> Reno {
        Reno::new(RenoVariant::NewReno, mss, cwnd, ssthresh, 1)
    }

    pub fn probe(&self) -> &P {
        &self.probe
    }

    /// Carries out a probe's decision; `snd_nxt` is the highest sequence sent so far.
    fn apply(&mut self, d: Decision, snd_nxt: u64) {
        match d {
            Decision::Continue => {}
            Decision::Abort => self.stage = Stage::Done,
            Decision::Pace(plan) => {
                let rate = plan.window as f64 / plan.rtt.as_secs_f64();
                if plan.window < self.mss || !rate.is_finite() {
                    // No usable round trip (or a window below one segment): nothing to pace.
                    self.stage = Stage::Done;
                    return;
                }
                self.reno = Self::reno(self.mss, plan.window, self.reno.state().ssthresh);
                let round_start = match self.stage {
                    Stage::Pacing { round_start, .. } => round_start,
                    _ => snd_nxt,
                };
                self.stage = Stage::Pacing { plan, round_start };
            }
        }
    }

    /// A loss: a measurement in progress is given up (unless the probe ignores losses) and a
    /// paced round ends; an endless plan paces on.
    fn lost(&mut self) {
        self.stage = match self.stage {
            Stage::Measuring if self.probe.aborts_on_loss() => Stage::Done,
            Stage::Pacing { plan, .. } if !plan.endless => Stage::Done,
            stage => stage,
        };
    }
}

impl<P: Probe> CongestionControl for PacedStart<P> {
    fn name(&self) -> &'static str {
        self.probe.name()
    }

    fn on_established(&mut self, ev: &EstablishedEvent) {
        self.probe.on_established(ev);
    }

    fn on_sent(&mut self, ev: &SentEvent) {
        match self.stage {
            Stage::Measuring => {
                let d = self.probe.on_sent(ev);
                self.apply(d, ev.seq + ev.len as u64);
            }
            Stage::Pacing { plan, .. } if !plan.endless => {
                if ev.is_retransmission {
                    self.lost();
                } else if plan.end_seq.is_some_and(|end| ev.seq + ev.len as u64 >= end) {
                    self.stage = Stage::Done;
                }
            }
            Stage::Pacing { .. } | Stage::Done => {}
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let before = self.reno.state().cwnd;
        let (probing, grows) = match self.stage {
            Stage::Measuring => (true, true),
            Stage::Pacing { plan, .. } => (true, plan.endless),
            Stage::Done => (false, true),
        };
        if grows {
            // While measuring or pacing the start-up, not the application, holds the window
            // back, so every ACK counts as window-limited (as in the FreeBSD code, which grew
            // snd_cwnd on every ACK).
            let limited = AckEvent { cwnd_limited: ev.cwnd_limited || self.stage != Stage::Done, ..*ev };
            self.reno.on_ack(&limited);
        }
        if !probing {
            return;
        }
        let d = self.probe.on_ack(ev, Windows { before, after: self.reno.state().cwnd });
        if let Stage::Pacing { plan, round_start } = self.stage {
            if !plan.endless && plan.end_seq.is_none() && ev.snd_una > round_start {
                self.stage = Stage::Done;
                return;
            }
        }
        self.apply(d, ev.snd_nxt);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.lost();
        self.reno.on_congestion(ev);
    }

    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent) {
        self.reno.on_recovery_exit(ev);
    }

    fn on_rto(&mut self, ev: &RtoEvent) {
        self.lost();
        self.reno.on_rto(ev);
    }

    fn state(&self) -> CcState {
        let reno = self.reno.state();
        match self.stage {
            Stage::Pacing { plan, .. } => {
                let window = if plan.endless { reno.cwnd } else { plan.window };
                CcState { pacing_rate: Some(window as f64 / plan.rtt.as_secs_f64()), phase: "pacing", ..reno }
            }
            _ => reno,
        }
    }
    fn segment_mark(&mut self, seq: u64) -> u8 {
        if self.stage == Stage::Done {
            0
        } else {
            self.probe.segment_mark(seq)
        }
    }
}
