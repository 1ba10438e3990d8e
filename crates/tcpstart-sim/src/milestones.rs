//! What the run summary reports about a flow's window: its largest value, when slow start ended
//! and at what window, when the window first reached the path's BDP. The sender hands this
//! observer its window before and after every change (a controller callback, a segment sent);
//! what is measured is defined here, not in the TCP endpoint.

use tcpstart_cc::Instant;

/// The sender's window as the milestones see it, before or after one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowState {
    /// The window the sender obeys: the controller's cwnd, or PRR's or the inflated one in
    /// recovery.
    pub window: u64,
    /// The controller says it is in slow start.
    pub slow_start: bool,
}

/// One flow's window milestones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Milestones {
    /// The path's bandwidth-delay product, bytes (`FlowSpec::bdp`).
    bdp: u64,
    /// The largest window after any change.
    pub max_cwnd: u64,
    /// When slow start first ended, and the window just before the change that ended it.
    pub slow_start_exit: Option<(Instant, u64)>,
    /// When the window first reached the BDP.
    pub reached_bdp_at: Option<Instant>,
}

impl Milestones {
    pub fn new(bdp: u64) -> Self {
        Milestones { bdp, max_cwnd: 0, slow_start_exit: None, reached_bdp_at: None }
    }

    /// One change of the sender's window at `now`.
    #[inline]
    pub fn observe(&mut self, now: Instant, before: WindowState, after: WindowState) {
        if before.slow_start && !after.slow_start && self.slow_start_exit.is_none() {
            self.slow_start_exit = Some((now, before.window));
        }
        self.max_cwnd = self.max_cwnd.max(after.window);
        if after.window >= self.bdp && self.reached_bdp_at.is_none() {
            self.reached_bdp_at = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(window: u64, slow_start: bool) -> WindowState {
        WindowState { window, slow_start }
    }

    #[test]
    fn slow_start_ends_once_at_the_window_before_the_change() {
        let mut m = Milestones::new(1_000_000);
        m.observe(Instant(1), state(10, true), state(20, true));
        assert_eq!(m.slow_start_exit, None);
        m.observe(Instant(2), state(40, true), state(20, false));
        // A later slow start (after a timeout) and its end leave the first exit as it was.
        m.observe(Instant(3), state(20, false), state(5, true));
        m.observe(Instant(4), state(8, true), state(4, false));
        assert_eq!(m.slow_start_exit, Some((Instant(2), 40)));
        assert_eq!(m.max_cwnd, 20, "the largest window after a change, not before one");
    }

    #[test]
    fn the_bdp_is_reached_at_the_first_window_at_or_above_it() {
        let mut m = Milestones::new(100);
        m.observe(Instant(5), state(50, true), state(99, true));
        assert_eq!(m.reached_bdp_at, None);
        m.observe(Instant(6), state(99, true), state(100, true));
        m.observe(Instant(7), state(100, true), state(300, true));
        assert_eq!((m.reached_bdp_at, m.max_cwnd), (Some(Instant(6)), 300));
    }
}
