//! Windowed running max (or min) over a time or round count, after Linux `lib/win_minmax.c`
//! (Kathleen Nichols' algorithm): three samples, the best, second best and third best in
//! successive sub-windows of the window, so the estimate in a window of length `win` is kept
//! in O(1) memory and time. BBR uses it as its bottleneck-bandwidth max filter, indexed by
//! packet-timed round count with a window of 10 rounds.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    /// When the sample was taken (a round count for BBR's bandwidth filter).
    t: u64,
    v: u64,
}

/// A windowed maximum; [`WinMinmax::get`] is the largest value seen within the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WinMinmax {
    s: [Sample; 3],
}

impl WinMinmax {
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forgets everything and starts over from `v` at `t` (Linux `minmax_reset`).
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Adds sample `v` taken at `t` to a max filter of window `win` (Linux `minmax_running_max`).
    pub fn running_max(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = Sample { t, v };
        // A new max, or nothing left in the window: forget earlier samples.
        if v >= self.s[0].v || t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Ages the three samples: the best expires after `win`; the second and third are
    /// refreshed once a quarter and a half of the window passed without a new candidate.
    fn subwin_update(&mut self, win: u64, val: Sample) -> u64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best expired: promote the others, and once more if the second also expired.
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed with no second choice: take one from the later part.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Likewise for the third choice after half the window.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_max_replaces_everything() {
        let mut m = WinMinmax::default();
        m.reset(0, 5);
        assert_eq!(m.running_max(10, 1, 9), 9);
        assert_eq!(m.running_max(10, 2, 3), 9);
    }

    #[test]
    fn max_expires_after_the_window_and_the_next_best_takes_over() {
        // Window 10 rounds: 100 at round 0, 50 at round 3, then 20 every round. Hand-traced
        // through Linux minmax_running_max: 50 becomes the second choice (a quarter window
        // passed), 100 expires at round 11, 50 at round 14.
        let mut m = WinMinmax::default();
        m.reset(0, 100);
        assert_eq!(m.running_max(10, 3, 50), 100);
        for t in 4..=10 {
            assert_eq!(m.running_max(10, t, 20), 100, "round {t} is still inside the window");
        }
        for t in 11..=13 {
            assert_eq!(m.running_max(10, t, 20), 50, "round {t}: 100 expired, 50 is not 10 rounds old");
        }
        assert_eq!(m.running_max(10, 14, 20), 20);
    }

    #[test]
    fn sample_after_an_empty_window_resets() {
        let mut m = WinMinmax::default();
        m.reset(0, 100);
        // Nothing was recorded for more than a window: the old max is forgotten at once.
        assert_eq!(m.running_max(10, 30, 7), 7);
    }
}
