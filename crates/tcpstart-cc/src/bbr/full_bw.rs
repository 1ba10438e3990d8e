//! The "full pipe" estimator both BBR versions use to leave STARTUP (Linux
//! `bbr_check_full_bw_reached`, draft-ietf-ccwg-bbr `BBRCheckFullBWReached`): the pipe is full
//! after three non-app-limited rounds in a row in which the maximum bandwidth grew less than 25 %.
//! Bandwidths are in whatever unit the caller keeps them; growth is judged in fixed point x256
//! as Linux does.

const BBR_SCALE: u32 = 8;
/// 1.25 x 256.
const FULL_BW_THRESH: u64 = (1 << BBR_SCALE) * 5 / 4;
/// Rounds without 25 % growth that fill the pipe.
pub const FULL_BW_CNT: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct FullBw {
    /// The pipe was found full (and stays so until [`FullBw::reset`]).
    pub reached: bool,
    /// The baseline the growth is measured against.
    pub full_bw: u64,
    pub count: u32,
}

impl FullBw {
    /// At the start of a round (`round_start`) whose sample is not application-limited: is the
    /// maximum bandwidth `max_bw` still growing? Returns true in the round it finds the pipe full.
    pub fn on_round(&mut self, max_bw: u64, round_start: bool, app_limited: bool) -> bool {
        if self.reached || !round_start || app_limited {
            return false;
        }
        let bw_thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if max_bw >= bw_thresh {
            self.full_bw = max_bw;
            self.count = 0;
            return false;
        }
        self.count += 1;
        self.reached = self.count >= FULL_BW_CNT;
        self.reached
    }

    /// Forgets the baseline and the count, and whether the pipe was full.
    pub fn reset(&mut self) {
        *self = FullBw::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_rounds_under_25_percent_growth_fill_the_pipe() {
        let mut f = FullBw::default();
        // 1000 -> 1250 is growth (>= 1.25x); 1560 < 1562.5 is not.
        for bw in [1000, 1250, 1562] {
            assert!(!f.on_round(bw, true, false));
        }
        assert_eq!((f.full_bw, f.count), (1562, 0));
        assert!(!f.on_round(1900, true, false));
        assert!(!f.on_round(1900, false, false), "not a round start");
        assert!(!f.on_round(1900, true, true), "app-limited");
        assert!(!f.on_round(1900, true, false));
        assert!(f.on_round(1900, true, false));
        assert!(f.reached && !f.on_round(1900, true, false), "reported once");
    }
}
