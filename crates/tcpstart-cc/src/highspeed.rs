//! HighSpeed TCP (RFC 3649; Linux `net/ipv4/tcp_highspeed.c`).
//!
//! State machine (Reno's, see [`crate::reno`]): `slow_start` (cwnd < ssthresh, RFC 5681 slow
//! start) -> `congestion_avoidance` -> `recovery` on a loss detected by duplicate ACKs or SACK ->
//! `congestion_avoidance` when recovery ends (cwnd = ssthresh); a timeout sets ssthresh the same
//! way and cwnd = 1 segment, back into slow start. What changes is the window arithmetic in
//! congestion avoidance, with w = cwnd in segments:
//! - w <= Low_Window (38): standard TCP, a = 1 and b = 0.5 (Reno's congestion avoidance, with its
//!   `abc` setting);
//! - above: per ACK cwnd += a(w) / w segments (RFC 3649 section 5, "w = w + a(w)/w" per ACK; Linux
//!   adds a(w) = ai + 1 to its counter per ACK, whatever the ACK covers);
//! - on loss: cwnd = ssthresh = (1 - b(w)) x cwnd (RFC 3649 section 5; Linux `hstcp_ssthresh`), at
//!   least two segments. The decrease applies to cwnd, not to FlightSize.
//!
//! Response function, RFC 3649 section 5 (`table = 0`, the default):
//! - p(w) = exp(log(w / Low_Window) / log(High_Window / Low_Window) x log(High_P / Low_P) + log Low_P),
//!   with Low_P = 1.5 / Low_Window^2, which is w = 0.12 / p^0.835 for the default constants;
//! - b(w) = (High_Decrease - 0.5) x log(w / Low_Window) / log(High_Window / Low_Window) + 0.5;
//! - a(w) = w^2 x p(w) x 2 b(w) / (2 - b(w)).
//!
//! Linux table (`table = 1`): the 72 rows of RFC 3649 appendix B as Linux stores them. a(w) is
//! the row index + 1 and b(w) = md / 256 of the first row whose bound is >= w.
//!
//! Where the two differ (values: the `tests` below):
//! - a(w) is a step function in Linux, constant between row bounds: at a bound it is the RFC's
//!   value rounded down, just above it up to one segment more (a(39) is 2 in the table and 1.02
//!   by the formula); at w = 1058 the table gives 8 and the formula 8.31; at 83 000, 71 and 72.5.
//! - b(w) is quantised to 1/256 and taken from the row bounding w from above, so Linux decreases
//!   slightly less than the formula (w = 1058: 83/256 = 0.324 against 0.327).
//! - Above High_Window the formula would extrapolate (b turns negative past about 10^8 segments); we
//!   hold a(w), b(w) at their High_Window values, as Linux saturates at its last row (89 053).
//! - Linux updates its row index only in congestion avoidance, so a loss in slow start uses the
//!   index of the last congestion-avoidance ACK (0 for a first loss: a plain halving). We evaluate
//!   b(w) at the window of the loss in both modes.
//! - Linux counts per ACK in packets; here the counter is in bytes (a(w) x MSS of credit per ACK,
//!   one MSS of growth per cwnd bytes of credit), the same growth for whole-segment windows.
//!
//! RFC 3649 recommends Limited Slow-Start (RFC 3742); Linux does not implement it and neither do we.

use crate::registry::{AlgorithmInfo, CcConfig, ParamSpec, Params, Registration};
use crate::reno::{Aimd, AimdRule, Reno, RenoVariant, ABC};

/// RFC 3649 appendix B as stored in Linux `tcp_highspeed.c`: (upper cwnd bound in segments,
/// decrease factor x 256). Row i applies to table[i-1].0 < w <= table[i].0 with a(w) = i + 1.
const LINUX_TABLE: [(u32, u8); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

/// HighSpeed's parameters (Reno's `abc`, then the response function), shared with `ehstcp`.
pub(crate) const HIGHSPEED_PARAMS: [ParamSpec; 6] = [
    ABC,
    ParamSpec {
        name: "table",
        default: 0.0,
        min: 0.0,
        max: 1.0,
        integer: true,
        doc: "0 = RFC 3649 section 5 formulas for a(w), b(w); 1 = Linux tcp_highspeed.c table (RFC 3649 appendix B rows, a(w) = row index + 1)",
    },
    ParamSpec {
        name: "low_window",
        default: 38.0,
        min: 4.0,
        max: 1000.0,
        integer: true,
        doc: "Low_Window in segments: at or below it a = 1, b = 0.5 (Reno)",
    },
    ParamSpec {
        name: "high_window",
        default: 83000.0,
        min: 1001.0,
        max: 1e8,
        integer: true,
        doc: "High_Window in segments: the window reached at loss rate High_P (formula mode)",
    },
    ParamSpec {
        name: "high_p",
        default: 1e-7,
        min: 1e-12,
        max: 1e-4,
        integer: false,
        doc: "High_P: loss rate at which the window is High_Window (formula mode)",
    },
    ParamSpec {
        name: "high_decrease",
        default: 0.1,
        min: 0.01,
        max: 0.5,
        integer: false,
        doc: "High_Decrease: b(High_Window) (formula mode)",
    },
];

pub const HIGHSPEED: Registration = Registration {
    info: AlgorithmInfo {
        name: "highspeed",
        summary:
            "HighSpeed TCP: AIMD whose increase a(w) grows and decrease b(w) shrinks with the window above 38 segments",
        reference: "RFC 3649 section 5; Linux net/ipv4/tcp_highspeed.c",
        params: &HIGHSPEED_PARAMS,
    },
    build: |p, cfg| Box::new(from_params(p, cfg)),
    receiver_hook: None,
};

/// The HighSpeed response function: a(w) and b(w) for a window of w segments.
#[derive(Clone, Copy, Debug)]
pub struct Response {
    linux_table: bool,
    low_window: f64,
    high_window: f64,
    high_p: f64,
    high_decrease: f64,
}

impl Response {
    /// RFC 3649's constants, formula mode.
    pub const RFC3649: Response =
        Response { linux_table: false, low_window: 38.0, high_window: 83000.0, high_p: 1e-7, high_decrease: 0.1 };

    pub(crate) fn from_params(p: &Params) -> Self {
        Response {
            linux_table: p["table"] == 1.0,
            low_window: p["low_window"],
            high_window: p["high_window"],
            high_p: p["high_p"],
            high_decrease: p["high_decrease"],
        }
    }

    /// Linux's table instead of the formulas.
    pub fn with_linux_table(self) -> Self {
        Response { linux_table: true, ..self }
    }

    /// Position of log w between log Low_Window and log High_Window, in [0, 1].
    fn scale(&self, w: f64) -> f64 {
        let w = w.clamp(self.low_window, self.high_window);
        (w / self.low_window).ln() / (self.high_window / self.low_window).ln()
    }

    fn row(w: f64) -> usize {
        LINUX_TABLE.iter().position(|&(bound, _)| w <= bound as f64).unwrap_or(LINUX_TABLE.len() - 1)
    }

    /// Loss rate at which the response function gives w (RFC 3649 section 5).
    pub fn p(&self, w: f64) -> f64 {
        let low_p = 1.5 / (self.low_window * self.low_window);
        (self.scale(w) * (self.high_p / low_p).ln() + low_p.ln()).exp()
    }

    /// Increase in segments per window of ACKs.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            1.0
        } else if self.linux_table {
            (Self::row(w) + 1) as f64
        } else {
            let w = w.min(self.high_window);
            let b = self.b(w);
            w * w * self.p(w) * 2.0 * b / (2.0 - b)
        }
    }

    /// Decrease factor: a loss leaves (1 - b(w)) x cwnd.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            0.5
        } else if self.linux_table {
            LINUX_TABLE[Self::row(w)].1 as f64 / 256.0
        } else {
            (self.high_decrease - 0.5) * self.scale(w) + 0.5
        }
    }

    /// The window after a loss at `cwnd` bytes: (1 - b(w)) x cwnd.
    pub(crate) fn decreased(&self, cwnd: u64, mss: u64) -> u64 {
        let b = self.b(cwnd as f64 / mss as f64);
        cwnd - (cwnd as f64 * b) as u64
    }

    /// One ACK of HighSpeed congestion avoidance: Reno's at or below Low_Window, otherwise
    /// a(w) x MSS of credit towards one MSS of growth per cwnd bytes (cwnd += a(w)/w segments).
    pub(crate) fn avoid(&self, r: &mut Reno, bytes_acked: u64) {
        let w = r.cwnd as f64 / r.mss as f64;
        if w <= self.low_window {
            r.congestion_avoidance(bytes_acked);
        } else {
            let credit = (self.a(w) * r.mss as f64).round() as u64;
            r.additive_increase(credit, r.cwnd);
        }
    }
}

impl AimdRule for Response {
    const NAME: &'static str = "highspeed";
    fn avoid(&self, r: &mut Reno, bytes_acked: u64) {
        Response::avoid(self, r, bytes_acked);
    }
    fn decreased(&self, r: &Reno) -> u64 {
        Response::decreased(self, r.cwnd, r.mss)
    }
}

/// HighSpeed TCP: Reno's machinery around the HighSpeed response function.
pub type HighSpeed = Aimd<Response>;

fn from_params(p: &Params, cfg: &CcConfig) -> HighSpeed {
    Aimd::new(Reno::from_params(RenoVariant::NewReno, p, cfg), Response::from_params(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::CongestionControl;
    use crate::events::{CongestionEvent, RtoEvent};
    use crate::reno::testing::ack;

    const MSS: u64 = 1000;

    fn hstcp(response: Response, cwnd_segments: u64) -> HighSpeed {
        // ssthresh at the window: congestion avoidance from the first ACK.
        let reno = Reno::new(RenoVariant::NewReno, MSS, cwnd_segments * MSS, cwnd_segments * MSS, 1);
        HighSpeed::new(reno, response)
    }

    fn close(x: f64, want: f64, tol: f64) -> bool {
        (x - want).abs() <= tol
    }

    /// RFC 3649 section 5 values, recomputed by hand from the formulas (research notes, test
    /// vectors): w = 38 -> a 1.00, b 0.500; w = 1058 -> a 8.31, b 0.3269; w = 83000 -> a 72.52, b 0.100.
    /// RFC 3649 appendix B rounds the same rows to a = 1, 8, 72 and b = 0.50, 0.33, 0.10.
    #[test]
    fn rfc_formula_matches_rfc3649_numbers() {
        let r = Response::RFC3649;
        for (w, a, b) in [(38.0, 1.00, 0.5000), (1058.0, 8.31, 0.3269), (83000.0, 72.52, 0.1000)] {
            assert!(close(r.a(w), a, 0.01), "a({w}) = {}", r.a(w));
            assert!(close(r.b(w), b, 0.0005), "b({w}) = {}", r.b(w));
        }
        // Low_P = 1.5 / 38^2 and High_P anchor the response function at its two ends.
        assert!(close(r.p(38.0), 1.0388e-3, 1e-7) && close(r.p(83000.0), 1e-7, 1e-12));
    }

    /// Linux table rows (tcp_highspeed.c): w = 38 is row 0 (a 1, md 128); 851 < 1058 <= 1058 is
    /// row 7 (a 8, md 83); 79517 < 83000 <= 84035 is row 70 (a 71, md 25).
    #[test]
    fn linux_table_matches_kernel_rows() {
        let r = Response::RFC3649.with_linux_table();
        for (w, a, md) in [(38.0, 1.0, 128.0), (39.0, 2.0, 112.0), (1058.0, 8.0, 83.0), (83000.0, 71.0, 25.0)] {
            assert_eq!((r.a(w), r.b(w)), (a, md / 256.0), "w = {w}");
        }
        assert_eq!(r.a(1e7), 72.0, "saturates at the last row");
    }

    #[test]
    fn formula_is_held_at_high_window_beyond_it() {
        let r = Response::RFC3649;
        assert_eq!((r.a(1e9), r.b(1e9)), (r.a(83000.0), r.b(83000.0)));
    }

    /// Linux example (research notes): cwnd 1000 segments, row 7, ssthresh = 1000 - (1000 x 83 >> 8) = 676.
    #[test]
    fn loss_applies_b_of_the_window_to_cwnd() {
        let mut cc = hstcp(Response::RFC3649.with_linux_table(), 1000);
        cc.on_congestion(&CongestionEvent { flight_size: 400 * MSS, ..Default::default() });
        // In bytes the product is not floored to whole segments: 675.78 segments.
        assert!(cc.state().ssthresh.abs_diff(676 * MSS) < MSS, "{}", cc.state().ssthresh);
        assert_eq!(cc.state().cwnd, cc.state().ssthresh);
        let mut rfc = hstcp(Response::RFC3649, 1058);
        rfc.on_congestion(&CongestionEvent::default());
        assert!(
            rfc.state().cwnd.abs_diff((1058.0 * MSS as f64 * (1.0 - 0.3269452)) as u64) <= 1,
            "{}",
            rfc.state().cwnd
        );
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        let mut cc = hstcp(Response::RFC3649, 30);
        let mut reno = Reno::new(RenoVariant::NewReno, MSS, 30 * MSS, 30 * MSS, 1);
        for _ in 0..20 {
            cc.on_ack(&ack(MSS));
            reno.on_ack(&ack(MSS));
        }
        assert_eq!(cc.state().cwnd, reno.state().cwnd);
        cc.on_congestion(&CongestionEvent::default());
        assert_eq!(cc.state().ssthresh, cc.state().cwnd);
        assert_eq!(cc.state().cwnd, reno.state().cwnd / 2, "b = 0.5");
    }

    #[test]
    fn above_low_window_grows_a_of_w_segments_per_window_of_acks() {
        // Linux table at w = 1000: a = 8, so 1000 ACKs add 8 segments.
        let mut cc = hstcp(Response::RFC3649.with_linux_table(), 1000);
        for _ in 0..1000 {
            cc.on_ack(&ack(MSS));
        }
        assert!(cc.state().cwnd >= 1007 * MSS && cc.state().cwnd <= 1008 * MSS, "{}", cc.state().cwnd);
        // Per ACK, not per byte: the same number of delayed ACKs covering two segments grows the same.
        let mut delayed = hstcp(Response::RFC3649.with_linux_table(), 1000);
        for _ in 0..1000 {
            delayed.on_ack(&ack(2 * MSS));
        }
        assert_eq!(delayed.state().cwnd, cc.state().cwnd);
    }

    #[test]
    fn timeout_collapses_to_one_segment_with_hstcp_ssthresh() {
        let mut cc = hstcp(Response::RFC3649.with_linux_table(), 1000);
        cc.on_rto(&RtoEvent { consecutive: 1, ..Default::default() });
        assert_eq!(cc.state().cwnd, MSS);
        assert!(cc.state().ssthresh.abs_diff(676 * MSS) < MSS, "{}", cc.state().ssthresh);
        assert_eq!(cc.state().phase, "slow_start");
    }
}
