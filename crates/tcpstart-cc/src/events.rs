//! The events a sender reports to its congestion controller.
//!
//! Each event is a small struct rather than a long argument list, so new fields can be added for
//! later algorithms (delivery-rate samples for BBR, one-way delays for eHSTCP, receiver-measured
//! gaps for Modified Swift Start) without touching every implementation. All sizes are bytes.

use crate::time::{Duration, Instant};

/// The three-way handshake completed: the SYN/SYN-ACK exchange gives the first RTT sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct EstablishedEvent {
    pub now: Instant,
    /// RTT measured by the SYN / SYN-ACK exchange (Karn's rule applies: `None` if the SYN was retransmitted).
    pub handshake_rtt: Option<Duration>,
    /// Bytes the application has queued for sending at this moment (`u64::MAX` when unlimited).
    pub queued_bytes: u64,
    /// Receiver window advertised in the SYN-ACK.
    pub rwnd: u64,
    /// The rate the path approved for the SYN's Quick-Start Request (RFC 4782), in bytes per
    /// second, as the SYN-ACK's Quick-Start Response reports it: 0 when a router refused it.
    /// `None` when the SYN carried no request or no valid response came back.
    pub quick_start_rate: Option<f64>,
}

/// A data segment left the sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentEvent {
    pub now: Instant,
    /// First sequence number of the segment (data bytes count from 0).
    pub seq: u64,
    pub len: u32,
    pub is_retransmission: bool,
    /// Bytes in flight after this segment was sent.
    pub bytes_in_flight: u64,
    /// The delivery-rate estimator marks the connection application-limited (Linux `tp->app_limited`).
    pub app_limited: bool,
}

/// Timestamp fields of an arriving ACK, in the clock units of each end (RFC 7323).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckTimestamps {
    /// The receiver's own clock when it sent the ACK (unsynchronised with the sender's clock).
    pub tsval: u64,
    /// The sender clock value the receiver echoed.
    pub tsecr: u64,
}

/// An ACK arrived. Called for every ACK, including duplicates (`bytes_acked == 0`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: Instant,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub bytes_acked: u64,
    /// Bytes newly selectively acknowledged by this ACK's SACK blocks.
    pub bytes_sacked: u64,
    /// RTT sample taken from this ACK, if Karn's rule allows one.
    pub rtt_sample: Option<Duration>,
    /// Smoothed RTT after this sample (RFC 6298), if any sample exists yet.
    pub srtt: Option<Duration>,
    /// Smallest RTT seen on the connection so far (including the handshake).
    pub min_rtt: Option<Duration>,
    /// Bytes in flight before and after this ACK was processed.
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    /// The sender is in fast recovery (loss recovery entered on duplicate ACKs or SACK).
    pub in_recovery: bool,
    /// The sender used its whole window in the last round (growth should only happen when true).
    pub cwnd_limited: bool,
    /// Highest cumulative ACK and the next sequence number to send, after this ACK.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Timestamp option of the ACK, when timestamps are enabled.
    pub timestamps: Option<AckTimestamps>,
    /// Value a receiver-side algorithm part echoed in this ACK (see [`crate::ReceiverHook`]).
    pub receiver_echo: Option<u64>,
    /// The sender's delivery-rate sample for this ACK (`None` for a controller whose
    /// [`crate::CongestionControl::uses_rate_samples`] is false).
    pub rate: Option<RateSample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation, Linux `tcp_rate.c`):
/// what the network delivered between the send of the newest (S)ACKed segment's predecessor
/// snapshot and this ACK. Sizes are bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval` (connection delivered count now minus `prior_delivered`).
    pub delivered: u64,
    /// max(`send_elapsed`, `ack_elapsed`). `None` when the sample is invalid: no snapshot, or an
    /// interval shorter than the minimum RTT (Linux `interval_us = -1`).
    pub interval: Option<Duration>,
    pub send_elapsed: Duration,
    pub ack_elapsed: Duration,
    /// Delivered count and its time when the newest (S)ACKed segment was sent.
    pub prior_delivered: u64,
    pub prior_time: Instant,
    /// RTT of the most recently sent segment this ACK (S)ACKed, by Karn's rule, or from the
    /// timestamp echo when no such segment exists (Linux `rs->rtt_us`).
    pub rtt: Option<Duration>,
    /// The newest (S)ACKed segment was sent while the sender was application-limited.
    pub is_app_limited: bool,
    /// The newest (S)ACKed segment was a retransmission.
    pub is_retrans: bool,
    /// Bytes newly marked lost while processing this ACK.
    pub losses: u64,
    /// Bytes newly (S)ACKed by this ACK (a duplicate ACK without SACK counts one segment, as in Linux).
    pub acked_sacked: u64,
    /// Connection totals after this ACK: bytes delivered, bytes ever marked lost, and the time
    /// the delivered count last grew (Linux `tp->delivered`, `tp->lost`, `tp->delivered_mstamp`).
    pub total_delivered: u64,
    pub total_lost: u64,
    pub delivered_time: Instant,
    /// Without SACK: bytes counted as delivered for duplicate ACKs and not yet covered by the
    /// cumulative ACK (Linux's Reno `sacked_out`); subtract from `bytes_in_flight` for Linux's
    /// `tcp_packets_in_flight`. The sender's RFC 5681 / 6582 window inflation grows and shrinks
    /// by the same amounts, so a controller that sizes cwnd from this in-flight value, as Linux
    /// does, gets Linux's effective limit. Always 0 with SACK.
    pub dupack_credit: u64,
}

impl RateSample {
    /// Delivery rate in bytes per second, for a valid sample.
    pub fn delivery_rate(&self) -> Option<f64> {
        self.interval.filter(|i| !i.is_zero()).map(|i| self.delivered as f64 / i.as_secs_f64())
    }
}

/// Loss detected by duplicate ACKs or SACK: the sender enters fast recovery.
#[derive(Clone, Copy, Debug, Default)]
pub struct CongestionEvent {
    pub now: Instant,
    /// Data outstanding when the loss was detected (RFC 5681 FlightSize).
    pub flight_size: u64,
    /// Highest sequence number sent so far (the recovery point).
    pub high_data: u64,
}

/// The retransmission timer expired.
#[derive(Clone, Copy, Debug, Default)]
pub struct RtoEvent {
    pub now: Instant,
    pub flight_size: u64,
    /// How many times in a row the timer has now fired for the same data.
    pub consecutive: u32,
}

/// Fast recovery ended: the recovery point was cumulatively acknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecoveryExitEvent {
    pub now: Instant,
    /// Bytes retransmitted during this recovery episode.
    pub retransmitted_bytes: u64,
    pub bytes_in_flight: u64,
}
