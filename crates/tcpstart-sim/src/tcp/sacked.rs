//! The byte ranges already SACKed, as disjoint sorted intervals, so that a SACK block costs the
//! segments it newly covers rather than its whole length.
//!
//! A receiver repeats each SACK block, growing, on every ACK until the hole below it is filled;
//! with windows of thousands of segments a block spans thousands of segments, and walking all of
//! them on every ACK made per-ACK work grow with the window. The scoreboard and the delivery-rate
//! sampler walk only the gaps of a block that are not in this set (usually none, or the few
//! segments at its growing edge).

use std::collections::VecDeque;

/// Disjoint, non-touching [start, end) intervals in increasing order. Holds exactly the union of
/// the byte ranges of the SACKed segments (and maybe some below the cumulative ACK). A deque,
/// since there can be thousands of them (every other segment lost) and the cumulative ACK
/// removes them from the front.
#[derive(Debug, Default)]
pub struct SackedRanges {
    ranges: VecDeque<(u64, u64)>,
    /// Reused buffer for the gaps of a block.
    gaps: Vec<(u64, u64)>,
}

impl SackedRanges {
    /// The SACK block [start, end) arrived: calls `mark` on each segment of `segs` (with its
    /// index) that lies wholly inside it and is not covered yet, and adds those segments to the set. `segs` are
    /// consecutive segments of `mss` bytes (the last may be shorter) from `segs[0]`; `span` gives
    /// a segment's [seq, end). Every segment that is not covered yet is visited, since the set
    /// holds only SACKed segments' ranges.
    pub fn mark_block<T>(
        &mut self,
        segs: &mut VecDeque<T>,
        mss: u64,
        start: u64,
        end: u64,
        span: impl Fn(&T) -> (u64, u64),
        mut mark: impl FnMut(usize, &mut T),
    ) {
        let Some(front) = segs.front().map(|s| span(s).0) else { return };
        let mut gaps = std::mem::take(&mut self.gaps);
        self.gaps(start.max(front), end, &mut gaps);
        for &(gap_start, gap_end) in &gaps {
            let mut idx = ((gap_start - front) / mss) as usize;
            while let Some(seg) = segs.get_mut(idx) {
                let (seq, seg_end) = span(seg);
                if seq >= gap_end || seg_end > end {
                    break;
                }
                if seq >= start {
                    mark(idx, seg);
                    self.insert(seq, seg_end);
                }
                idx += 1;
            }
        }
        self.gaps = gaps;
    }

    /// Writes to `gaps` the parts of [start, end) not covered, in increasing order.
    fn gaps(&self, start: u64, end: u64, gaps: &mut Vec<(u64, u64)>) {
        gaps.clear();
        // The first interval that ends after `start`: every one before it is wholly below.
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        let mut cursor = start;
        for &(s, e) in self.ranges.range(first..) {
            if s >= end {
                break;
            }
            if s > cursor {
                gaps.push((cursor, s));
            }
            cursor = cursor.max(e);
        }
        if cursor < end {
            gaps.push((cursor, end));
        }
    }

    /// Adds [start, end), merging it with the intervals it overlaps or touches.
    fn insert(&mut self, start: u64, end: u64) {
        // Intervals from `lo` to `hi` (exclusive) overlap or touch [start, end).
        let lo = self.ranges.partition_point(|&(_, e)| e < start);
        let hi = self.ranges.partition_point(|&(s, _)| s <= end);
        if lo == hi {
            self.ranges.insert(lo, (start, end));
            return;
        }
        let merged = (start.min(self.ranges[lo].0), end.max(self.ranges[hi - 1].1));
        self.ranges[lo] = merged;
        self.ranges.drain(lo + 1..hi);
    }

    /// Forgets the intervals that end at or below `seq` (the cumulative ACK point).
    pub fn forget_below(&mut self, seq: u64) {
        while self.ranges.front().is_some_and(|&(_, e)| e <= seq) {
            self.ranges.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(r: &SackedRanges, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut g = Vec::new();
        r.gaps(start, end, &mut g);
        g
    }

    #[test]
    fn gaps_are_what_is_not_covered() {
        let mut r = SackedRanges::default();
        assert_eq!(gaps(&r, 100, 500), vec![(100, 500)]);
        r.insert(200, 300);
        r.insert(400, 450);
        assert_eq!(gaps(&r, 100, 500), vec![(100, 200), (300, 400), (450, 500)]);
        assert_eq!(gaps(&r, 200, 300), vec![]);
        assert_eq!(gaps(&r, 250, 420), vec![(300, 400)]);
        assert_eq!(gaps(&r, 0, 100), vec![(0, 100)]);
    }

    #[test]
    fn touching_and_overlapping_intervals_merge() {
        let mut r = SackedRanges::default();
        r.insert(100, 200);
        r.insert(300, 400);
        r.insert(500, 600);
        r.insert(200, 300); // touches both neighbours
        assert_eq!(r.ranges, vec![(100, 400), (500, 600)]);
        r.insert(350, 550); // overlaps both
        assert_eq!(r.ranges, vec![(100, 600)]);
        r.insert(700, 800);
        r.insert(50, 60);
        assert_eq!(r.ranges, vec![(50, 60), (100, 600), (700, 800)]);
    }

    #[test]
    fn the_cumulative_ack_forgets_what_lies_below() {
        let mut r = SackedRanges::default();
        r.insert(100, 200);
        r.insert(300, 400);
        r.forget_below(200);
        assert_eq!(r.ranges, vec![(300, 400)]);
        r.forget_below(350); // partly above: kept
        assert_eq!(r.ranges, vec![(300, 400)]);
    }
}
