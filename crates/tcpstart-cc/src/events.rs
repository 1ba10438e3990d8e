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
