//! The SACK blocks a Linux receiver reports (`tp->selective_acks`; net/ipv4/tcp_input.c
//! `tcp_sack_new_ofo_skb`, `tcp_sack_extend`, `tcp_sack_maybe_coalesce`, `tcp_sack_remove`).
//!
//! At most four blocks, the most recently changed first. An out-of-order segment extends the
//! block it overlaps or touches, which moves to the front and absorbs any other block it now
//! reaches; otherwise it becomes a new front block and the oldest is forgotten beyond four, even
//! though its data stays queued. Blocks that in-order data has reached are removed. An ACK
//! carries the first three (four without timestamps).
//!
//! Where the segment lands also decides whether an ACK held back by SACK compression goes out
//! first: Linux sends it when the segment changes a block at or beyond position
//! `TCP_SACK_BLOCKS_EXPECTED` (2), or starts a new block while two or more exist, so that no
//! block is displaced before the sender has seen it in an ACK.

/// TCP_NUM_SACKS.
const NUM_SACKS: usize = 4;
/// TCP_SACK_BLOCKS_EXPECTED: blocks a sender is taken to see in every ACK ("the max is 4, but
/// this becomes 3 if TCP timestamps are there; given that SACK packets might be lost, be
/// conservative and use 2").
pub const BLOCKS_EXPECTED: usize = 2;

/// [start, end) ranges, most recently changed first.
#[derive(Clone, Debug, Default)]
pub struct SackBlocks {
    blocks: Vec<(u64, u64)>,
}

/// `tcp_sack_extend`: the ranges overlap or touch.
fn touches(block: (u64, u64), start: u64, end: u64) -> bool {
    start <= block.1 && block.0 <= end
}

impl SackBlocks {
    /// Linux's `this_sack` for an out-of-order segment [start, end): the index of the block it
    /// extends, or the number of blocks when it starts a new one.
    pub fn position(&self, start: u64, end: u64) -> usize {
        self.blocks.iter().position(|&b| touches(b, start, end)).unwrap_or(self.blocks.len())
    }

    /// Records an out-of-order segment [start, end).
    pub fn add(&mut self, start: u64, end: u64) {
        let at = self.position(start, end);
        if at < self.blocks.len() {
            let b = self.blocks.remove(at);
            let mut merged = (b.0.min(start), b.1.max(end));
            // `tcp_sack_maybe_coalesce`: the grown front block swallows those it now reaches.
            self.blocks.retain(|&o| {
                let keep = !touches(merged, o.0, o.1);
                if !keep {
                    merged = (merged.0.min(o.0), merged.1.max(o.1));
                }
                keep
            });
            self.blocks.insert(0, merged);
        } else {
            self.blocks.truncate(NUM_SACKS - 1);
            self.blocks.insert(0, (start, end));
        }
    }

    /// In-order data reached `rcv_nxt`: the blocks it covers are gone.
    pub fn advance(&mut self, rcv_nxt: u64) {
        self.blocks.retain(|&(start, _)| start > rcv_nxt);
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(s: &SackBlocks) -> Vec<(u64, u64)> {
        s.iter().collect()
    }

    #[test]
    fn a_new_block_goes_first_and_the_fifth_forgets_the_oldest() {
        let mut s = SackBlocks::default();
        for k in 0..5 {
            assert_eq!(s.position(10 * k + 2, 10 * k + 3), k.min(4) as usize);
            s.add(10 * k + 2, 10 * k + 3);
        }
        assert_eq!(blocks(&s), [(42, 43), (32, 33), (22, 23), (12, 13)]);
    }

    #[test]
    fn an_extended_block_moves_to_the_front_and_swallows_what_it_reaches() {
        let mut s = SackBlocks::default();
        for (a, b) in [(10, 20), (30, 40), (50, 60)] {
            s.add(a, b);
        }
        // Touching (30, 40) at its end: position 1, it moves first.
        assert_eq!(s.position(40, 45), 1);
        s.add(40, 45);
        assert_eq!(blocks(&s), [(30, 45), (50, 60), (10, 20)]);
        // Filling the gap to (50, 60) merges the two.
        s.add(45, 50);
        assert_eq!(blocks(&s), [(30, 60), (10, 20)]);
    }

    #[test]
    fn blocks_reached_by_in_order_data_are_removed() {
        let mut s = SackBlocks::default();
        for (a, b) in [(10, 20), (30, 40)] {
            s.add(a, b);
        }
        s.advance(20);
        assert_eq!(blocks(&s), [(30, 40)]);
        s.advance(40);
        assert!(blocks(&s).is_empty());
    }
}
