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

/// A sans-IO congestion controller: it is told what happened and answers with a window and,
/// optionally, a pacing rate. It owns `cwnd` and `ssthresh`; the sender adds the recovery-time
/// window inflation of RFC 5681 / 6582 on top of it when SACK is off.
///
/// `cwnd`, `pacing_rate`, `in_slow_start` and `phase` may change only in the `on_*` callbacks:
/// the sender reads them once after each callback and uses those values until the next one (so
/// `segment_mark`, for instance, must leave them alone).
pub trait CongestionControl: Send {
    /// Stable identifier used by the registry, the CLI and traces.
    fn name(&self) -> &'static str;

    fn on_established(&mut self, _ev: &EstablishedEvent) {}
    /// The rate, in bytes per second, to ask the path for in the SYN's Quick-Start Request
    /// (RFC 4782); `None`: no request. Asked once, when the first SYN is sent.
    fn quick_start_request(&self) -> Option<f64> {
        None
    }
    fn on_sent(&mut self, _ev: &SentEvent) {}
    fn on_ack(&mut self, ev: &AckEvent);
    /// Loss detected by duplicate ACKs / SACK; sets ssthresh and the window for recovery.
    fn on_congestion(&mut self, ev: &CongestionEvent);
    fn on_recovery_exit(&mut self, ev: &RecoveryExitEvent);
    fn on_rto(&mut self, ev: &RtoEvent);

    /// Bytes allowed in flight.
    fn cwnd(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// Send rate in bytes per second; `None` means send as the window allows.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    fn in_slow_start(&self) -> bool {
        self.cwnd() < self.ssthresh()
    }
    /// Short name of the algorithm's current phase, for traces ("slow_start", "recovery", ...).
    fn phase(&self) -> &'static str;
    fn partial_ack_policy(&self) -> PartialAckPolicy {
        PartialAckPolicy::StayInRecovery
    }
    /// True when the controller sets cwnd during loss recovery itself, as Linux controllers with
    /// a `cong_control` hook do (BBR): the sender's proportional rate reduction (PRR) then leaves
    /// the window to it, as `tcp_cong_control` skips `tcp_cwnd_reduction` for them.
    fn sets_recovery_window(&self) -> bool {
        false
    }
    /// Asked after every ACK: true makes the sender's delivery-rate estimator mark the data now
    /// in flight application-limited, so deliberately low-rate samples do not count as path
    /// bandwidth (Linux BBR sets `tp->app_limited` this way in PROBE_RTT).
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// A mark the sender puts on the segment starting at `seq`, read by a receiver-side hook
    /// (e.g. First/Second of a packet pair). 0 means unmarked.
    fn segment_mark(&mut self, _seq: u64) -> u8 {
        0
    }
    /// False when the controller ignores its segments' departures: `on_sent` does nothing and
    /// `segment_mark` returns 0. The sender asks once, at the start, and then makes neither call
    /// per segment.
    fn observes_sends(&self) -> bool {
        true
    }
    /// False when `on_ack` never reads [`AckEvent::rate`]: the sender asks once, at the start,
    /// and then leaves it `None` instead of building a sample per ACK (its estimator still runs).
    fn uses_rate_samples(&self) -> bool {
        true
    }
    /// The failure of a controller that cannot go on (see [`ControllerFailure`]). Such a
    /// controller reports a cwnd of 0 from the failed callback on and ignores later ones: the
    /// sender asks for the failure only when a window is below one segment, so a controller
    /// that never fails costs nothing per ACK.
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        None
    }
}
