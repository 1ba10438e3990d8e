//! How a time series is held while a run records it: as runs of rows rather than rows, packed.
//!
//! A key's (flow's, link's) state is repeated on every grid tick between its changes, so a run
//! of many quiet keys (200 connections over 100 s on a 1 ms grid) has a table of half a million
//! rows but only a tenth as many runs. A run is a key, its first row's time, its row count and
//! the state those rows carry. A state is a few integers (`Stored::WORDS`), and neighbouring
//! runs of one key differ little, so each closed run is written as varints of its differences
//! from the same key's previous run; every `BLOCK` bytes the runs are grouped by key, their
//! fields put in columns and the columns compressed together with DEFLATE (`miniz_oxide`),
//! which finds the repeats and the skew in each field's changes. The table is built from the
//! runs only when it is read.

use miniz_oxide::deflate::compress_to_vec;
use miniz_oxide::inflate::decompress_to_vec;

/// A state a recording holds, as `WORDS` integers.
pub(crate) trait Stored: Copy + Default {
    /// How many integers a state is.
    const WORDS: usize;
    /// The two states write the same row, bit for bit (the sign of a zero included, which `==`
    /// on floats ignores): only then may a run of one continue a run of the other.
    fn identical(&self, other: &Self) -> bool;
    /// Writes the state into `words` (`WORDS` long); `names` holds the strings a state refers
    /// to (phase names), written as their index there. Fields that follow one another are best
    /// written as their difference, which changes less from run to run.
    fn write(&self, names: &mut Names, words: &mut [u64]);
    /// The state `write` wrote.
    fn read(words: &[u64], names: &Names) -> Self;
}

/// `count` rows of a key in `state`, from `first` nanoseconds on, a grid step apart.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Repeat<S> {
    pub first: u64,
    pub count: u64,
    pub state: S,
}

/// Bytes of varints after which the columns are compressed as a block: large enough for
/// DEFLATE to find each field's repeats, small enough to be a fixed cost of every run.
const BLOCK: usize = 64 * 1024;
/// DEFLATE's default level: B1's flow series at 300 s take 10 % less than at the fastest, 1.
const LEVEL: u8 = 6;
/// The columns before a state's words: the key, the row count less one, and the run's time
/// against the tick after the key's previous run (zero for nearly every run).
const HEAD: usize = 3;
/// The most words a state may have.
const MAX_WORDS: usize = 16;

/// Closed runs compressed together.
#[derive(Debug)]
struct Block {
    runs: usize,
    /// The length of each column's varints, in the order they were concatenated.
    lengths: Box<[u32]>,
    /// Where its compressed bytes are in `Recording::packed`.
    packed: core::ops::Range<usize>,
}

/// Bytes appended to chunks of one size, each allocated whole and never moved or freed while
/// the run lasts. Blocks of their own, or a vector that doubles, would leave the buffers they
/// outgrow and the compressor's, freed between them, as holes in the heap (about a third of a
/// megabyte of RSS per 100 k rows on top of the series' bytes).
#[derive(Debug, Default)]
struct Chunks {
    chunks: Vec<Vec<u8>>,
    len: usize,
}

impl Chunks {
    const SIZE: usize = 32 * 1024;

    /// Appends `bytes`; returns where they are.
    fn push(&mut self, mut bytes: &[u8]) -> core::ops::Range<usize> {
        let start = self.len;
        while !bytes.is_empty() {
            if self.chunks.last().is_none_or(|c| c.len() == Self::SIZE) {
                self.chunks.push(Vec::with_capacity(Self::SIZE));
            }
            let chunk = self.chunks.last_mut().expect("a chunk with room");
            let n = bytes.len().min(Self::SIZE - chunk.len());
            chunk.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            self.len += n;
        }
        start..self.len
    }

    /// A copy of the bytes at `range`.
    fn get(&self, range: core::ops::Range<usize>) -> Vec<u8> {
        let mut out = Vec::with_capacity(range.len());
        let mut at = range.start;
        while at < range.end {
            let chunk = &self.chunks[at / Self::SIZE];
            let from = at % Self::SIZE;
            let n = (range.end - at).min(Self::SIZE - from);
            out.extend_from_slice(&chunk[from..from + n]);
            at += n;
        }
        out
    }
}

/// The runs of one series.
#[derive(Debug, Default)]
pub(crate) struct Recording<S: Stored> {
    /// Grid step in nanoseconds (zero: a row at every change, no runs to extend).
    step: u64,
    names: Names,
    /// Per key: its open run, which the next rows may still extend.
    open: Vec<Option<Repeat<S>>>,
    /// Per key: the time and row count of its last closed run, and its words (`WORDS` a key),
    /// which the next closed run is written against.
    last: Vec<(u64, u64)>,
    last_words: Vec<u64>,
    /// The closed runs not yet in a block, each its fields' varints in turn (the key first), and
    /// each run's key and where it starts there.
    pending: Vec<u8>,
    starts: Vec<(u32, u32)>,
    blocks: Vec<Block>,
    packed: Chunks,
    rows: usize,
}

impl<S: Stored> Recording<S> {
    pub fn new(keys: usize, step: u64) -> Self {
        Recording {
            step,
            names: Names::default(),
            open: vec![None; keys],
            last: vec![(0, 0); keys],
            last_words: vec![0; keys * S::WORDS],
            pending: Vec::new(),
            starts: Vec::new(),
            blocks: Vec::new(),
            packed: Chunks::default(),
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

    fn close(&mut self, key: u32, run: Repeat<S>) {
        let k = key as usize;
        let (first, count) = self.last[k];
        let next = first + count * self.step;
        let mut words = [0; MAX_WORDS];
        let words = &mut words[..const {
            assert!(S::WORDS <= MAX_WORDS);
            S::WORDS
        }];
        run.state.write(&mut self.names, words);
        let last = &mut self.last_words[k * S::WORDS..][..S::WORDS];
        let head = [key as u64, run.count - 1, zigzag(run.first.wrapping_sub(next))];
        let changes = words.iter().zip(last.iter()).map(|(w, l)| zigzag(w.wrapping_sub(*l)));
        self.starts.push((key, self.pending.len() as u32));
        for value in head.into_iter().chain(changes) {
            put(&mut self.pending, value);
        }
        last.copy_from_slice(words);
        self.last[k] = (run.first, run.count);
        if self.pending.len() >= BLOCK {
            let (bytes, lengths) = self.pending_columns();
            let packed = self.packed.push(&compress_to_vec(&bytes, LEVEL));
            self.blocks.push(Block { runs: self.starts.len(), lengths, packed });
            self.pending.clear();
            self.starts.clear();
        }
    }

    /// The pending runs' fields as columns, one after another, and each column's length. The
    /// runs are grouped by key (each key's in the order they closed, which is all reading them
    /// back needs): one flow's changes follow a pattern (its bursts of ACKs an RTT apart) that
    /// the other flows' runs, interleaved, would break (B1's flow series 16 % smaller at 300 s).
    fn pending_columns(&self) -> (Vec<u8>, Box<[u32]>) {
        let mut order = self.starts.clone();
        order.sort_by_key(|&(key, _)| key);
        let mut columns = vec![Vec::new(); HEAD + S::WORDS];
        for (_, start) in order {
            let mut at = start as usize;
            for column in &mut columns {
                let (value, used) = get(&self.pending[at..]);
                put(column, value);
                at += used;
            }
        }
        let lengths = columns.iter().map(|c| c.len() as u32).collect();
        (columns.concat(), lengths)
    }

    /// The number of rows in the table.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Every run with its key: each key's in time order (the keys' interleaving is not).
    pub fn runs(&self) -> impl Iterator<Item = (u32, Repeat<S>)> + '_ {
        // Each key's open run comes last: it follows its closed ones.
        let open = self.open.iter().enumerate().filter_map(|(key, run)| run.map(|r| (key as u32, r)));
        Reader::new(self).chain(open)
    }

    /// The bytes the closed runs take.
    #[cfg(test)]
    pub fn packed_bytes(&self) -> usize {
        self.packed.len + self.pending.len()
    }

    /// The grid step in nanoseconds.
    pub fn step(&self) -> u64 {
        self.step
    }
}

/// The columns of a block as read back: one buffer and where each column's next varint is.
struct Columns {
    bytes: Vec<u8>,
    at: Vec<usize>,
    runs: usize,
}

impl Columns {
    fn new(bytes: Vec<u8>, lengths: &[u32], runs: usize) -> Self {
        let at = lengths.iter().scan(0, |start, &n| Some(std::mem::replace(start, *start + n as usize))).collect();
        Columns { bytes, at, runs }
    }

    /// The next value of column `i`.
    fn get(&mut self, i: usize) -> u64 {
        let (value, used) = get(&self.bytes[self.at[i]..]);
        self.at[i] += used;
        value
    }
}

/// Reads the closed runs back, block by block, each against its key's previous one as
/// `Recording::close` wrote it.
struct Reader<'a, S: Stored> {
    recording: &'a Recording<S>,
    /// The next block to read; the pending columns after the last.
    block: usize,
    columns: Columns,
    last: Vec<(u64, u64)>,
    last_words: Vec<u64>,
}

impl<'a, S: Stored> Reader<'a, S> {
    fn new(recording: &'a Recording<S>) -> Self {
        let keys = recording.open.len();
        let columns = Columns { bytes: Vec::new(), at: Vec::new(), runs: 0 };
        Reader { recording, block: 0, columns, last: vec![(0, 0); keys], last_words: vec![0; keys * S::WORDS] }
    }
}

impl<S: Stored> Iterator for Reader<'_, S> {
    type Item = (u32, Repeat<S>);

    fn next(&mut self) -> Option<Self::Item> {
        let r = self.recording;
        while self.columns.runs == 0 {
            self.columns = match r.blocks.get(self.block) {
                Some(b) => {
                    let packed = r.packed.get(b.packed.clone());
                    let bytes = decompress_to_vec(&packed).expect("a block inflates as it was deflated");
                    Columns::new(bytes, &b.lengths, b.runs)
                }
                None if self.block == r.blocks.len() => {
                    let (bytes, lengths) = r.pending_columns();
                    Columns::new(bytes, &lengths, r.starts.len())
                }
                None => return None,
            };
            self.block += 1;
        }
        let columns = &mut self.columns;
        columns.runs -= 1;
        let key = columns.get(0) as usize;
        let count = columns.get(1) + 1;
        let (first, prev_count) = self.last[key];
        let first = (first + prev_count * r.step).wrapping_add(unzigzag(columns.get(2)));
        let words = &mut self.last_words[key * S::WORDS..][..S::WORDS];
        for (i, w) in words.iter_mut().enumerate() {
            *w = w.wrapping_add(unzigzag(columns.get(HEAD + i)));
        }
        self.last[key] = (first, count);
        Some((key as u32, Repeat { first, count, state: S::read(words, &r.names) }))
    }
}

/// Appends `v` as a LEB128 varint: seven bits a byte, low first, the top bit set on all but the
/// last.
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at the start of `bytes`, and its length.
fn get(bytes: &[u8]) -> (u64, usize) {
    let mut v = 0;
    for (i, &b) in bytes.iter().enumerate() {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            return (v, i + 1);
        }
    }
    panic!("a varint runs past its column")
}

/// A signed difference as an unsigned one with small magnitudes small either way.
fn zigzag(d: u64) -> u64 {
    let d = d as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct S {
        x: u64,
        name: &'static str,
    }

    impl Stored for S {
        const WORDS: usize = 2;
        fn identical(&self, other: &Self) -> bool {
            self == other
        }
        fn write(&self, names: &mut Names, words: &mut [u64]) {
            words.copy_from_slice(&[self.x, names.index(self.name)]);
        }
        fn read(words: &[u64], names: &Names) -> Self {
            S { x: words[0], name: names.get(words[1]) }
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
        // Closed runs by key (each key's in the order they closed), then each key's open one.
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
    fn runs_read_back_across_blocks_and_small_changes_pack_small() {
        // Three keys taking turns, each a new state every tick that wanders by a few units,
        // with a time off the grid now and then: several blocks of varints.
        let mut r = Recording::new(3, 100);
        let mut pushed = Vec::new();
        for k in 0..60_000u64 {
            let key = (k % 3) as u32;
            let first = (k / 3) * 100 + if k % 1000 == 7 { 1 } else { 0 };
            let s = S { x: (1 << 40) + (k * 7919) % 30, name: ["a", "b"][(k / 5000) as usize % 2] };
            r.push(key, first, 1, s);
            pushed.push((key, first, s));
        }
        assert!(r.blocks.len() >= 3, "{} blocks", r.blocks.len());
        // Each key's runs in the order pushed (the keys' interleaving is not kept).
        let by_key = |runs: &[(u32, u64, S)], key| runs.iter().filter(|r| r.0 == key).copied().collect::<Vec<_>>();
        let back: Vec<_> = r.runs().map(|(k, run)| (k, run.first, run.state)).collect();
        assert_eq!(back.len(), pushed.len());
        for key in 0..3 {
            assert!(by_key(&back, key) == by_key(&pushed, key), "key {key}: the runs read back differ");
        }
        // Varints took 8 bytes a run (5 for the key, count, time and name, 2-3 for the value).
        assert!(r.packed_bytes() < 60_000 * 4, "{} bytes", r.packed_bytes());
    }

    proptest::proptest! {
        #[test]
        fn varints_read_back_whatever_their_size(values in proptest::collection::vec((0..64u32, proptest::prelude::any::<u64>()), 1..300)) {
            let values: Vec<u64> = values.into_iter().map(|(bits, x)| x >> bits).collect();
            let mut bytes = Vec::new();
            for &v in &values {
                put(&mut bytes, zigzag(v));
            }
            let mut at = 0;
            let back: Vec<u64> = values.iter().map(|_| {
                let (z, used) = get(&bytes[at..]);
                at += used;
                unzigzag(z)
            }).collect();
            proptest::prop_assert_eq!(at, bytes.len());
            proptest::prop_assert_eq!(back, values);
        }
    }

    #[test]
    fn a_zero_step_never_merges() {
        let mut r = Recording::new(1, 0);
        r.push(0, 0, 1, S::default());
        r.push(0, 0, 1, S::default());
        assert_eq!(r.runs().count(), 2);
    }
}
