//! The congestion-controller trait every algorithm implements.

use crate::events::{AckEvent, CongestionEvent, EstablishedEvent, RecoveryExitEvent, RtoEvent, SentEvent};
use crate::time::Instant;

/// Why a controller could not go on: code it runs outside tcpstart (a Python controller) raised
/// an error, or answered with a window that is not one. The sender stops the run with it.
#[derive(Debug)]
pub struct ControllerFailure {
    /// The callback that failed: "on_ack", "on_sent", ..., or "__init__" when building it.
    pub event: &'static str,
    /// Simulated time of that callback.
    pub at: Instant,
    pub error: Box<dyn std::error::Error + Send + Sync>,
}

/// How the sender's loss recovery treats a partial ACK (one that acknowledges new data below the
/// recovery point). This is the only recovery choice an algorithm makes; the recovery machinery
/// itself (retransmissions, window inflation, SACK scoreboard) lives in the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckPolicy {
    /// RFC 5681 Reno: any new ACK ends fast recovery.
    EndsRecovery,
    /// RFC 6582 NewReno: stay in recovery, retransmit the next hole, until the recovery point is acked.
    StayInRecovery,
}

/// What a controller does and needs, read once when its sender is built: the sender then leaves
/// out the calls and the per-segment or per-ACK work that would serve nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capabilities {
    /// How the sender's loss recovery treats a partial ACK.
    pub partial_ack_policy: PartialAckPolicy,
    /// False when the controller ignores its segments' departures: `on_sent` does nothing and
    /// `segment_mark` returns 0, so the sender makes neither call per segment.
    pub observes_sends: bool,
    /// False when `on_ack` never reads [`AckEvent::rate`]: the sender then leaves it `None`
    /// instead of building a sample per ACK (its estimator still runs).
    pub uses_rate_samples: bool,
    /// The rate, in bytes per second, to ask the path for in the SYN's Quick-Start Request
    /// (RFC 4782); `None`: no request. Only the first SYN carries it.
    pub quick_start_request: Option<f64>,
}

impl Default for Capabilities {
    /// What the trait assumes of a controller that says nothing: NewReno's partial ACKs, sends
    /// and rate samples wanted, no Quick-Start.
    fn default() -> Self {
        Capabilities {
            partial_ack_policy: PartialAckPolicy::StayInRecovery,
            observes_sends: true,
            uses_rate_samples: true,
            quick_start_request: None,
        }
    }
}

/// A controller's outputs, as the sender reads them after each of its callbacks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcState {
    /// Bytes allowed in flight.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Send rate in bytes per second; `None` means send as the window allows.
    pub pacing_rate: Option<f64>,
    pub in_slow_start: bool,
    /// Short name of the algorithm's current phase, for traces ("slow_start", "recovery", ...).
    pub phase: &'static str,
    /// The controller sets cwnd during loss recovery itself, as Linux controllers with a
    /// `cong_control` hook do (BBR): the sender's proportional rate reduction (PRR) then leaves
    /// the window to it, as `tcp_cong_control` skips `tcp_cwnd_reduction` for them. Read when
    /// a recovery starts.
    pub sets_recovery_window: bool,
    /// Read after every ACK: true makes the sender's delivery-rate estimator mark the data now
    /// in flight application-limited, so deliberately low-rate samples do not count as path
    /// bandwidth (Linux BBR sets `tp->app_limited` this way in PROBE_RTT).
    pub marks_app_limited: bool,
}

impl CcState {
    /// A window-based controller's state: in slow start below ssthresh, not paced, neither
    /// recovery window nor application-limited marks. Others change fields of it.
    pub fn window(cwnd: u64, ssthresh: u64, phase: &'static str) -> Self {
        CcState {
            cwnd,
            ssthresh,
            pacing_rate: None,
            in_slow_start: cwnd < ssthresh,
            phase,
            sets_recovery_window: false,
            marks_app_limited: false,
        }
    }
}

/// A sans-IO congestion controller: it is told what happened and answers with a window and,
/// optionally, a pacing rate. It owns `cwnd` and `ssthresh`; the sender adds the recovery-time
/// window inflation of RFC 5681 / 6582 on top of it when SACK is off.
///
/// Its [`CcState`] may change only in the `on_*` callbacks: the sender reads it once after each
/// callback and uses it until the next one (so `segment_mark`, for instance, must leave it
/// alone). Its [`Capabilities`] are read once, when the sender is built.
pub trait CongestionControl: Send {
    /// Stable identifier used by the registry, the CLI and traces.
    fn name(&self) -> &'static str;

    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    fn on_established(&mut self, _ev: &EstablishedEvent) {}
    fn on_sent(&mut self, _ev: &SentEvent) {}
    fn on_ack(&mut self, ev: &AckEvent);
    /// Loss detected by duplicate ACKs / SACK; sets ssthresh and the window for recovery.
    fn on_congestion(&mut self, ev: &CongestionEvent);
    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent);
    fn on_rto(&mut self, ev: &RtoEvent);

    fn state(&self) -> CcState;

    /// A mark the sender puts on the segment starting at `seq`, read by a receiver-side hook
    /// (e.g. First/Second of a packet pair). 0 means unmarked.
    fn segment_mark(&mut self, _seq: u64) -> u8 {
        0
    }
    /// The failure of a controller that cannot go on (see [`ControllerFailure`]). Such a
    /// controller reports a cwnd of 0 from the failed callback on and ignores later ones: the
    /// sender asks for the failure only when a window is below one segment, so a controller
    /// that never fails costs nothing per ACK.
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        None
    }
}
