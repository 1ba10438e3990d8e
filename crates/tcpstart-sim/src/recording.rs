//! How a time series is held while a run records it: as runs of rows rather than rows, packed.
//!
//! A key's (flow's, link's) state is repeated on every grid tick between its changes, so a run
//! of many quiet keys (200 connections over 100 s on a 1 ms grid) has a table of half a million
//! rows but only a tenth as many runs. A run is a key, its first row's time, its row count and
//! the state those rows carry, and neighbouring runs of one key differ little: each run is
//! written as varints of its differences from the same key's previous run, 5-20 bytes where a
//! flow's state alone takes 104. The table is built from the runs only when it is read.

use integer_encoding::VarInt;

/// A state a recording packs: written as its differences from the same key's previous state.
pub(crate) trait PackedState: Copy + Default {
    /// The two states write the same row, bit for bit (the sign of a zero included, which `==`
    /// on floats ignores): only then may a run of one continue a run of the other.
    fn identical(&self, other: &Self) -> bool;
    /// Appends `self` as differences from `prev`. `names` holds the strings a state refers to
    /// (phase names), written as their index there.
    fn pack(&self, prev: &Self, names: &mut Names, out: &mut Vec<u8>);
    /// Reads back what `pack` wrote after `prev`.
    fn unpack(prev: &Self, names: &Names, input: &mut &[u8]) -> Self;
}

/// `count` rows of a key in `state`, from `first` nanoseconds on, a grid step apart.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Repeat<S> {
    pub first: u64,
    pub count: u64,
    pub state: S,
}

/// The runs of one series.
#[derive(Debug, Default)]
pub(crate) struct Recording<S> {
    /// Grid step in nanoseconds (zero: a row at every change, no runs to extend).
    step: u64,
    /// The closed runs, each its key, then its first time, row count and state as differences
    /// from the key's previous closed run (the time from the tick after it). Each key's runs are
    /// in time order.
    packed: Vec<u8>,
    names: Names,
    /// Per key: its open run, which the next rows may still extend.
    open: Vec<Option<Repeat<S>>>,
    /// Per key: its last closed run, which the next one is written against.
    closed: Vec<Repeat<S>>,
    rows: usize,
}

impl<S: PackedState> Recording<S> {
    pub fn new(keys: usize, step: u64) -> Self {
        Recording {
            step,
            packed: Vec::new(),
            names: Names::default(),
            open: vec![None; keys],
            closed: vec![Repeat::default(); keys],
            rows: 0,
        }
    }

    /// Appends `count` rows of `key` in `state` from `first` on: they extend the key's open run
    /// when they continue it (the same state on the next ticks), or else close it and open one.
    #[inline]
    pub fn push(&mut self, key: u32, first: u64, count: u64, state: S) {
        self.rows += count as usize;
        let open = &mut self.open[key as usize];
        if let Some(run) = open {
            if self.step != 0 && first == run.first + run.count * self.step && run.state.identical(&state) {
                run.count += count;
                return;
            }
        }
        if let Some(done) = open.replace(Repeat { first, count, state }) {
            self.close(key, done);
        }
    }

    #[inline(never)]
    fn close(&mut self, key: u32, run: Repeat<S>) {
        let prev = &mut self.closed[key as usize];
        put(&mut self.packed, key as u64);
        // Against the tick after the previous run: zero for the usual run, one that goes on
        // where the previous stopped.
        put_change(&mut self.packed, run.first, prev.first + prev.count * self.step);
        put(&mut self.packed, run.count);
        run.state.pack(&prev.state, &mut self.names, &mut self.packed);
        *prev = run;
    }

    /// The number of rows in the table.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Every run with its key: each key's in time order (the keys' interleaving is not).
    pub fn runs(&self) -> impl Iterator<Item = (u32, Repeat<S>)> + '_ {
        let mut prev = vec![Repeat::default(); self.open.len()];
        let mut input = &self.packed[..];
        let closed = std::iter::from_fn(move || {
            if input.is_empty() {
                return None;
            }
            let key = get(&mut input) as u32;
            let p: &mut Repeat<S> = &mut prev[key as usize];
            let first = get_change(&mut input, p.first + p.count * self.step);
            let count = get(&mut input);
            let state = S::unpack(&p.state, &self.names, &mut input);
            *p = Repeat { first, count, state };
            Some((key, *p))
        });
        let open = self.open.iter().enumerate().filter_map(|(key, run)| run.map(|r| (key as u32, r)));
        closed.chain(open)
    }

    /// The grid step in nanoseconds.
    pub fn step(&self) -> u64 {
        self.step
    }
}

/// The strings the states of a recording refer to, each written once.
#[derive(Debug, Default)]
pub struct Names(Vec<&'static str>);

impl Names {
    /// The index of `name`, added if new. Names are literals of the algorithms' code, so the
    /// same name is nearly always the same pointer: compared first.
    pub fn index(&mut self, name: &'static str) -> u64 {
        let known = self.0.iter().position(|&n| core::ptr::eq(n, name));
        let i = known.or_else(|| self.0.iter().position(|&n| n == name)).unwrap_or_else(|| {
            self.0.push(name);
            self.0.len() - 1
        });
        i as u64
    }

    pub fn get(&self, index: u64) -> &'static str {
        self.0[index as usize]
    }

    /// In the order they were first indexed.
    pub fn all(&self) -> &[&'static str] {
        &self.0
    }
}

/// Appends `x` as a varint.
#[inline]
pub(crate) fn put(out: &mut Vec<u8>, x: u64) {
    let mut buf = [0u8; 10];
    let n = x.encode_var(&mut buf);
    out.extend_from_slice(&buf[..n]);
}

/// Reads a varint `put` wrote.
#[inline]
pub(crate) fn get(input: &mut &[u8]) -> u64 {
    let (x, n) = u64::decode_var(input).expect("a recording reads back what it wrote");
    *input = &input[n..];
    x
}

/// Appends `x` as its difference from `prev`, a small varint for a small change either way.
#[inline]
pub(crate) fn put_change(out: &mut Vec<u8>, x: u64, prev: u64) {
    let mut buf = [0u8; 10];
    let n = (x.wrapping_sub(prev) as i64).encode_var(&mut buf);
    out.extend_from_slice(&buf[..n]);
}

/// Reads a value `put_change` wrote after `prev`.
#[inline]
pub(crate) fn get_change(input: &mut &[u8], prev: u64) -> u64 {
    let (d, n) = i64::decode_var(input).expect("a recording reads back what it wrote");
    *input = &input[n..];
    prev.wrapping_add(d as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct S {
        x: u64,
        name: &'static str,
    }

    impl PackedState for S {
        fn identical(&self, other: &Self) -> bool {
            self == other
        }
        fn pack(&self, prev: &Self, names: &mut Names, out: &mut Vec<u8>) {
            put_change(out, self.x, prev.x);
            put(out, names.index(self.name));
        }
        fn unpack(prev: &Self, names: &Names, input: &mut &[u8]) -> Self {
            S { x: get_change(input, prev.x), name: names.get(get(input)) }
        }
    }

    #[test]
    fn runs_read_back_as_pushed_with_continuations_merged() {
        let mut r = Recording::new(3, 10);
        let s = |x, name| S { x, name };
        r.push(0, 0, 1, s(5, "a"));
        r.push(0, 10, 3, s(5, "a")); // continues the run: ticks 10, 20, 30
        r.push(2, 5, 1, s(u64::MAX, "b"));
        r.push(0, 45, 1, s(5, "a")); // off the grid: a new run
        r.push(0, 50, 2, s(2, "a")); // another state
        r.push(2, 10, 1, s(0, "a"));
        let runs: Vec<_> = r.runs().map(|(k, run)| (k, run.first, run.count, run.state)).collect();
        // Closed runs in the order they closed, then each key's open one.
        assert_eq!(
            runs,
            [
                (0, 0, 4, s(5, "a")),
                (0, 45, 1, s(5, "a")),
                (2, 5, 1, s(u64::MAX, "b")),
                (0, 50, 2, s(2, "a")),
                (2, 10, 1, s(0, "a")),
            ]
        );
        assert_eq!(r.rows(), 9);
    }

    #[test]
    fn small_changes_take_a_byte_each() {
        let mut r = Recording::new(1, 100);
        for k in 0..1000u64 {
            // A new state every tick, wandering by fewer than 64 units either way.
            r.push(0, k * 100, 1, S { x: (1 << 40) | ((k * 7919) % 30), name: "a" });
        }
        // Key, time, count, value and name: a byte each, but for the first run's value.
        assert!(r.packed.len() <= 5 * 1000 + 6, "{} bytes", r.packed.len());
        assert_eq!(r.runs().count(), 1000);
        assert!(r.runs().all(|(_, run)| run.state.x >> 40 == 1));
    }

    #[test]
    fn a_zero_step_never_merges() {
        let mut r = Recording::new(1, 0);
        r.push(0, 0, 1, S::default());
        r.push(0, 0, 1, S::default());
        assert_eq!(r.runs().count(), 2);
    }
}
