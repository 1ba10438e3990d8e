//! The receiver-side seam: some start-up algorithms need the receiver to measure something about
//! arriving data and echo it back in an ACK option (Modified Swift Start returns the arrival gap
//! of a marked packet pair). A hook sees every arriving data segment with its sender mark and may
//! attach one value to the next ACK; the sender hands it to the controller as
//! [`crate::AckEvent::receiver_echo`].

use crate::controller::ControllerFailure;
use crate::time::Instant;

/// A data segment as the receiver sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SegmentArrival {
    pub now: Instant,
    pub seq: u64,
    pub len: u32,
    /// The mark the sender's controller put on the segment ([`crate::CongestionControl::segment_mark`]).
    pub mark: u8,
}

pub trait ReceiverHook: Send {
    /// Called for each arriving data segment; returns a value to echo on the next ACK, if any.
    fn on_segment(&mut self, seg: &SegmentArrival) -> Option<u64>;
    /// The failure of a hook that cannot go on (code outside tcpstart, a Python receiver, raised
    /// an error or returned something that is not an echo), asked after each `on_segment`: the
    /// simulator stops the run with it, as for a failed controller.
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        None
    }
}
