//! How a time series is held while a run records it: as runs of rows rather than rows, packed.
//!
//! A key's (flow's, link's) state is repeated on every grid tick between its changes, so a run
//! of many quiet keys (200 connections over 100 s on a 1 ms grid) has a table of half a million
//! rows but only a tenth as many runs. A run is a key, its first row's time, its row count and
//! the state those rows carry, and neighbouring runs of one key differ little: each run is
//! written as its differences from the same key's previous run, or from guesses made from its
//! runs before (`PackedState::pack`), each field's in a code whose length follows that field's
//! recent changes (`Encoder`): 4-6 bytes a run in the benchmarks where a flow's state alone
//! takes 104. The table is built from the runs only when it is read.

/// A state a recording packs: written as its differences from the same key's previous state.
pub(crate) trait PackedState: Copy + Default {
    /// The two states write the same row, bit for bit (the sign of a zero included, which `==`
    /// on floats ignores): only then may a run of one continue a run of the other.
    fn identical(&self, other: &Self) -> bool;
    /// What `pack` keeps of a key's states before the previous one to guess the next from (a
    /// field that changes by about as much from run to run as it did a run or a few before,
    /// or in step with another's change): only what the guesses use, since it is kept per key.
    type Past: Copy + Default + core::fmt::Debug;
    /// Appends `self` as differences from `prev`, the same key's previous state, or from
    /// guesses made with `past` (the default before the key's second run). `names` holds the
    /// strings a state refers to (phase names), written as their index there.
    fn pack(&self, prev: &Self, past: &Self::Past, names: &mut Names, out: &mut Encoder);
    /// Reads back what `pack` wrote after `prev` and `past`.
    fn unpack(prev: &Self, past: &Self::Past, names: &Names, input: &mut Decoder) -> Self;
    /// `past` once `prev` has been followed by a newer state: the same after `pack` and after
    /// `unpack`.
    fn remember(past: &mut Self::Past, prev: &Self);
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
pub(crate) struct Recording<S: PackedState> {
    /// Grid step in nanoseconds (zero: a row at every change, no runs to extend).
    step: u64,
    /// The closed runs, each its key, then its row count (with whether it starts on the tick
    /// after the key's previous closed run, else its time against that tick) and its state as
    /// differences from that run's. Each key's runs are in time order.
    packed: Encoder,
    /// The number of closed runs.
    closed_runs: usize,
    names: Names,
    /// Per key: its open run, which the next rows may still extend.
    open: Vec<Option<Repeat<S>>>,
    /// Per key: its last closed run, which the next one is written against, and what the
    /// guesses keep of the runs before it.
    closed: Vec<Repeat<S>>,
    past: Vec<S::Past>,
    /// The order in which the keys closed their runs, which the next run's key is written
    /// against.
    turns: Turns,
    rows: usize,
}

impl<S: PackedState> Recording<S> {
    pub fn new(keys: usize, step: u64) -> Self {
        Recording {
            step,
            packed: Encoder::default(),
            closed_runs: 0,
            names: Names::default(),
            open: vec![None; keys],
            closed: vec![Repeat::default(); keys],
            past: vec![S::Past::default(); keys],
            turns: Turns::new(keys),
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
        let out = &mut self.packed;
        out.fields.slot = 0;
        out.put(self.turns.put(key));
        // The usual run goes on where the key's previous stopped, on the tick after it: then its
        // row count alone, in one code with the bit that says so, where a code for a time of
        // zero took a bit a run besides (B1 at 300 s, a tick a run). Otherwise its time against
        // that tick.
        let next = prev.first + prev.count * self.step;
        let on_time = run.first == next;
        out.put((run.count - 1) << 1 | !on_time as u64);
        match on_time {
            true => out.skip(),
            false => out.put_multiple(run.first, next),
        }
        let past = &mut self.past[key as usize];
        run.state.pack(&prev.state, past, &mut self.names, out);
        S::remember(past, &prev.state);
        *prev = run;
        self.closed_runs += 1;
    }

    /// The number of rows in the table.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Every run with its key: each key's in time order (the keys' interleaving is not).
    pub fn runs(&self) -> impl Iterator<Item = (u32, Repeat<S>)> + '_ {
        let mut prev = vec![Repeat::default(); self.open.len()];
        let mut past = vec![S::Past::default(); self.open.len()];
        let mut input = Decoder::new(&self.packed);
        let mut turns = Turns::new(self.open.len());
        let closed = (0..self.closed_runs).map(move |_| {
            input.fields.slot = 0;
            let key = turns.get(input.get());
            let p: &mut Repeat<S> = &mut prev[key as usize];
            let next = p.first + p.count * self.step;
            let code = input.get();
            let count = (code >> 1) + 1;
            let first = match code & 1 {
                0 => input.skip(next),
                _ => input.get_multiple(next),
            };
            let past = &mut past[key as usize];
            let state = S::unpack(&p.state, past, &self.names, &mut input);
            S::remember(past, &p.state);
            *p = Repeat { first, count, state };
            (key, *p)
        });
        let open = self.open.iter().enumerate().filter_map(|(key, run)| run.map(|r| (key as u32, r)));
        closed.chain(open)
    }

    /// The bytes the closed runs take.
    #[cfg(test)]
    pub fn packed_bytes(&self) -> usize {
        self.packed.bytes.len()
    }

    /// The grid step in nanoseconds.
    pub fn step(&self) -> u64 {
        self.step
    }
}

/// The order in which the latest keys took turns closing runs, which the next run's key is
/// written against, in whichever of three ways has lately been shortest: its difference from
/// the last run's key (one of many flows is often next to the one before), its place counted
/// from the key that closed a run longest ago (where each of a few flows closes a run every
/// tick, as on B1's 30 ms ticks, the next is one of those that have not yet: 3.2 bits a run
/// against 4.9), or counted from the latest (where many keys have finished and the few still
/// running take turns at the back, as B3's connections do: 6.7 bits against 8.1). Only the
/// latest `Turns::KEPT` keys are kept in order, so that a run of thousands of connections
/// (`scenarios/web-200-hosts.toml`) does not search and shift thousands of keys a run; a key
/// that is not among them is written by its difference in either place way, after the places.
#[derive(Debug, Default)]
struct Turns {
    /// The latest keys to close a run (at first the lowest keys), in a ring: the one longest
    /// ago at `head`, so that it leaves without the others moving.
    ring: [u32; Turns::KEPT],
    head: usize,
    len: usize,
    /// Per key: its slot in the ring, `Turns::OUT` while it is not kept (found without a
    /// search: B3's queues and connections, more than are kept, searched all of them a run).
    slots: Vec<u8>,
    /// The key of the last run.
    last: u32,
    /// Per way: eight times the moving average of the bit lengths of its codes (weight 1/8).
    lengths: [u32; 3],
}

impl Turns {
    /// More than B1's ten flows, few enough to shift at every run: against keeping every key,
    /// B3's and B4's flow series take 1.7 % and 0.7 % more bytes, and
    /// `scenarios/web-200-hosts.toml` (4288 connections) spends about 100 instructions a run
    /// on the turns instead of 3 200.
    const KEPT: usize = 16;
    /// The slot of a key not kept.
    const OUT: u8 = u8::MAX;

    fn new(keys: usize) -> Self {
        let mut turns = Turns { len: keys.min(Self::KEPT), slots: vec![Self::OUT; keys], ..Turns::default() };
        for i in 0..turns.len {
            turns.put_at(i, i as u32);
        }
        turns
    }

    /// Puts `key` in the ring's slot `slot`.
    fn put_at(&mut self, slot: usize, key: u32) {
        self.ring[slot] = key;
        self.slots[key as usize] = slot as u8;
    }

    /// The ring's slot of the `i`-th key from the one longest ago.
    fn slot(&self, i: usize) -> usize {
        (self.head + i) % Self::KEPT
    }

    /// The `i`-th key from the one longest ago.
    fn key(&self, i: usize) -> u32 {
        self.ring[self.slot(i)]
    }

    /// The way to use now: the first of the shortest.
    fn best(&self) -> usize {
        let [a, b, c] = self.lengths;
        if a <= b && a <= c {
            0
        } else if b <= c {
            1
        } else {
            2
        }
    }

    /// The three codes of `key` (see the type's docs); it becomes the latest, and the lengths
    /// follow the codes.
    fn take(&mut self, key: u32) -> [u64; 3] {
        let difference = zigzag(key as i64 - self.last as i64);
        let n = self.len;
        let slot = self.slots[key as usize];
        let places = if slot != Self::OUT {
            let at = (slot as usize + Self::KEPT - self.head) % Self::KEPT;
            // The keys after it move forward.
            for i in at..n - 1 {
                self.put_at(self.slot(i), self.key(i + 1));
            }
            self.put_at(self.slot(n - 1), key);
            [at as u64, (n - 1 - at) as u64]
        } else {
            if n == Self::KEPT {
                // The one longest ago leaves: its slot becomes the back.
                self.slots[self.ring[self.head] as usize] = Self::OUT;
                self.put_at(self.head, key);
                self.head = self.slot(1);
            } else {
                self.put_at(self.slot(n), key);
                self.len += 1;
            }
            [n as u64 + difference; 2]
        };
        let codes = [difference, places[0], places[1]];
        for (length, code) in self.lengths.iter_mut().zip(codes) {
            *length = *length - (*length >> 3) + (64 - code.leading_zeros());
        }
        self.last = key;
        codes
    }

    /// The code to write for `key`.
    fn put(&mut self, key: u32) -> u64 {
        let way = self.best();
        self.take(key)[way]
    }

    /// The key `put` wrote as `code`.
    fn get(&mut self, code: u64) -> u32 {
        let n = self.len as u64;
        let after_last = |difference| (self.last as i64 + unzigzag(difference)) as u32;
        let key = match (self.best(), code.checked_sub(n)) {
            (0, _) => after_last(code),
            (_, Some(difference)) => after_last(difference),
            (1, None) => self.key(code as usize),
            (_, None) => self.key((n - 1 - code) as usize),
        };
        self.take(key);
        key
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

/// The codes a run writes at most: its key, time and count and its state's fields.
const SLOTS: usize = 16;

/// What the codes of one field have been like: the next is written with as many plain low bits
/// as recent non-zero values had, less one. A field whose changes are a few hundred units one
/// tick and a few the next costs what its usual change needs, not the bytes its largest would.
/// Where zeros are common among large values (a guess that is exact or far off: a smoothed RTT
/// that settled on the latest sample, or did not), a first bit tells a zero from the rest, so
/// that a zero costs one bit rather than the order's `k + 1`.
#[derive(Clone, Copy, Debug, Default)]
struct Model {
    /// Eight times the moving average of the bit lengths of the field's non-zero codes (weight
    /// 1/8).
    bits: u32,
    /// 256 times the moving average of the share of zeros among the field's codes (weight 1/16).
    zeros: u32,
}

impl Model {
    /// The order of the exp-Golomb code for the next value.
    fn order(&self) -> u32 {
        (self.bits >> 3).saturating_sub(1)
    }

    /// Whether the next value at order `k` starts with the bit that says whether it is zero:
    /// when that bit costs less than it saves, a share of zeros `p` with `p * (k + 1) > 1`
    /// (a zero then costs 1 bit instead of `k + 1`, any other value one more).
    fn flags_zero(&self, k: u32) -> bool {
        self.zeros * (k + 1) > 256
    }

    fn update(&mut self, z: u64) {
        self.zeros = self.zeros - (self.zeros >> 4) + if z == 0 { 16 } else { 0 };
        if z != 0 {
            self.bits = self.bits - (self.bits >> 3) + (64 - z.leading_zeros());
        }
    }
}

/// Writes each field of a run as an exp-Golomb code of order `k` that follows the field's
/// recent values (`Model`): `z >> k` plus one as its bit length less one in unary and its bits
/// below the leading one, then the low `k` bits of `z`. A change of zero costs a bit or two, a
/// change as large as the field's usual ones `2 + k` bits, a rare large one about twice its
/// length. Over varints (7 bits per byte and a continuation bit, a byte at least) this halves
/// the fields that rarely change and saves the unused high bits of the rest: about a third of
/// B1's series at 300 s (see docs/performance.md, "Tenth round").
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    bytes: Blocks,
    /// Bits not yet stored, lowest first (fewer than 64).
    acc: u64,
    len: u32,
    fields: Fields,
}

/// What an encoder and its decoder both keep of each field, updated alike as codes pass.
#[derive(Debug, Default)]
struct Fields {
    models: [Model; SLOTS],
    units: [Unit; SLOTS],
    guesses: [Guesses; SLOTS],
    /// The field being written or read: a run's codes take the slots in order from 0.
    slot: usize,
}

impl Fields {
    fn last_unit(&self) -> u64 {
        self.units[self.slot - 1].0
    }
}

impl Encoder {
    /// Appends the low `n` bits of `v` (`n` at most 56, the bits above zero). The bits are
    /// stored eight bytes at a time: a copy of a fixed size, where one of a byte count cost a
    /// call to `memcpy`.
    #[inline]
    fn bits(&mut self, v: u64, n: u32) {
        let free = 64 - self.len;
        self.acc |= v << self.len;
        if n < free {
            self.len += n;
        } else {
            self.bytes.push(self.acc.to_le_bytes());
            self.acc = v >> free;
            self.len = n - free;
        }
    }

    /// Appends `z` as the next field's code.
    #[inline(always)]
    pub fn put(&mut self, z: u64) {
        let model = &mut self.fields.models[self.fields.slot];
        self.fields.slot += 1;
        let k = model.order();
        let flagged = model.flags_zero(k);
        model.update(z);
        // With the zero bit: 1 for a zero, else 0 and the code of `z - 1`.
        if flagged && z == 0 {
            self.bits(1, 1);
            return;
        }
        let z = z - flagged as u64;
        let high = z >> k;
        if high < 1 << 15 && k <= 24 {
            // y = high + 1 in n bits: n - 1 zeros, its leading one, the rest of y, z's low bits;
            // after the zero bit's 0 when there is one.
            let y = high + 1;
            let n = 64 - y.leading_zeros();
            // Plain masks: n - 1 < 16 and k <= 24.
            let code = 1 << (n - 1) | (y & !(u64::MAX << (n - 1))) << n | (z & !(u64::MAX << k)) << (2 * n - 1);
            let f = flagged as u32;
            self.bits(code << f, 2 * n - 1 + k + f);
        } else {
            if flagged {
                self.bits(0, 1);
            }
            self.put_long(z, k);
        }
    }

    /// `put`'s code for a large value or order, in pieces.
    #[cold]
    fn put_long(&mut self, z: u64, k: u32) {
        let y = (z >> k) as u128 + 1;
        let n = 128 - y.leading_zeros();
        for _ in 0..n - 1 {
            self.bits(0, 1);
        }
        self.bits(1, 1);
        self.put_wide(low(y as u64, n - 1), n - 1);
        self.put_wide(low(z, k), k);
    }

    /// The low `n` bits of `v`, `n` up to 64.
    fn put_wide(&mut self, v: u64, n: u32) {
        self.bits(low(v, n.min(32)), n.min(32));
        if n > 32 {
            self.bits(v >> 32, n - 32);
        }
    }

    /// Appends `x` as its difference from `prev`, a short code for a small change either way.
    #[inline]
    pub fn put_change(&mut self, x: u64, prev: u64) {
        self.put(zigzag(x.wrapping_sub(prev) as i64));
    }

    /// `put_change` for a field whose changes are often whole multiples of some unit (bytes of
    /// whole segments, a packet's serialisation time, the grid step): once the unit is known
    /// (`Unit`), a change that is a multiple is written as the multiple, followed by a bit that
    /// says it was one. A change of zero, a multiple of any unit, needs no such bit: the bit
    /// comes after the code so that the decoder knows whether to read it (B1's run times and
    /// bytes in flight, often unchanged, spent a bit a run on it; docs/performance.md,
    /// "Twelfth round").
    #[inline]
    pub fn put_multiple(&mut self, x: u64, prev: u64) {
        let d = x.wrapping_sub(prev) as i64;
        let m = d.unsigned_abs();
        let unit = self.fields.units[self.fields.slot].0;
        self.fields.units[self.fields.slot].update(m);
        let whole = unit > 1 && m.is_multiple_of(unit);
        let v = if whole { d.signum() * (m / unit) as i64 } else { d };
        self.put(zigzag(v));
        if unit > 1 && v != 0 {
            self.bits(!whole as u64, 1);
        }
    }

    /// The unit the field just written has learnt its changes to be multiples of (one for
    /// none): the segment size for bytes delivered, which other fields' guesses may use.
    pub fn last_unit(&self) -> u64 {
        self.fields.last_unit()
    }

    /// Passes over a field the run does not write (one whose change another field says is
    /// zero), so that the fields after it keep their slots and what those have learnt.
    #[inline]
    pub fn skip(&mut self) {
        self.fields.slot += 1;
    }

    /// Appends `x` as its difference from whichever of the guesses (at most `GUESSES`) has
    /// lately been closest (`Guesses`).
    #[inline]
    pub fn put_either<const N: usize>(&mut self, x: u64, guesses: [u64; N]) {
        let guess = self.fields.guesses[self.fields.slot].pick(x, guesses);
        self.put_change(x, guess);
    }

    /// `put_either` for a field whose changes are multiples of a unit (`put_multiple`).
    #[inline]
    pub fn put_multiple_of_either<const N: usize>(&mut self, x: u64, guesses: [u64; N]) {
        let guess = self.fields.guesses[self.fields.slot].pick(x, guesses);
        self.put_multiple(x, guess);
    }
}

/// Bytes appended eight at a time and never moved: blocks of a fixed size, a new one when the
/// last is full. A series grows for as long as the run lasts, and a vector doubling in the
/// allocator's heap leaves each outgrown buffer behind, resident and mostly unused: B1's native
/// peak RSS at 300 s was 0.2 MB higher with the series in one vector (docs/performance.md,
/// "Twelfth round"). The first block starts small and doubles up to the full size (copied a few
/// times, within a block's size in all): a short run's series take a few kB, not 32 kB each,
/// which a sweep of small runs allocates, keeps and frees by the thousand (docs/performance.md,
/// "Thirteenth round: B5's overhead after the faster core").
#[derive(Debug, Default)]
struct Blocks {
    blocks: Vec<Vec<u8>>,
}

impl Blocks {
    /// Bytes a block holds: a multiple of the eight written at a time.
    const BLOCK: usize = 32 * 1024;
    /// The first block's first capacity: doubling from it reaches `BLOCK` exactly.
    const FIRST: usize = 1024;

    #[inline]
    fn push(&mut self, word: [u8; 8]) {
        match self.blocks.last_mut() {
            Some(last) if last.len() < Self::BLOCK => last.extend_from_slice(&word),
            _ => self.new_block(word),
        }
    }

    #[cold]
    fn new_block(&mut self, word: [u8; 8]) {
        let size = if self.blocks.is_empty() { Self::FIRST } else { Self::BLOCK };
        let mut block = Vec::with_capacity(size);
        block.extend_from_slice(&word);
        self.blocks.push(block);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }
}

// Doubling from `FIRST` must land on `BLOCK`, or the first block would outgrow the others.
const _: () = assert!(Blocks::BLOCK.is_multiple_of(Blocks::FIRST) && (Blocks::BLOCK / Blocks::FIRST).is_power_of_two());

/// Reads what an `Encoder` wrote, the bits it has not stored yet included, from a contiguous copy
/// of its bytes (made once per read of the whole series, which the table built from it dwarfs).
pub(crate) struct Decoder {
    bytes: Vec<u8>,
    tail: u64,
    pos: usize,
    acc: u64,
    len: u32,
    fields: Fields,
}

impl Decoder {
    fn new(e: &Encoder) -> Self {
        Decoder { bytes: e.bytes.blocks.concat(), tail: e.acc, pos: 0, acc: 0, len: 0, fields: Fields::default() }
    }

    /// Tops the bits up to more than 56; past the stored bytes they are the encoder's bits not
    /// yet stored, then zeros. Where eight bytes are left they are read in one load: the bits
    /// of the last, partly taken byte land above `len` and are the stream's own, so taking that
    /// byte again later changes nothing.
    #[inline]
    fn refill(&mut self) {
        if let Some(word) = self.bytes.get(self.pos..self.pos + 8) {
            let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            self.acc |= word << self.len;
            let taken = (63 - self.len) / 8;
            self.pos += taken as usize;
            self.len += 8 * taken;
            return;
        }
        while self.len <= 56 {
            let b = match self.bytes.get(self.pos) {
                Some(&b) => b as u64,
                None => self.tail.checked_shr(8 * (self.pos - self.bytes.len()).min(8) as u32).unwrap_or(0) & 0xff,
            };
            self.acc |= b << self.len;
            self.len += 8;
            self.pos += 1;
        }
    }

    /// The next `n` bits (at most 56).
    #[inline]
    fn bits(&mut self, n: u32) -> u64 {
        self.refill();
        let v = low(self.acc, n);
        self.acc >>= n;
        self.len -= n;
        v
    }

    /// The next `n` bits, `n` up to 64.
    fn wide(&mut self, n: u32) -> u64 {
        let low = self.bits(n.min(32));
        if n > 32 {
            low | self.bits(n - 32) << 32
        } else {
            low
        }
    }

    /// Reads the next field's code, as `Encoder::put` wrote it.
    #[inline(always)]
    pub fn get(&mut self) -> u64 {
        let model = self.fields.models[self.fields.slot];
        let k = model.order();
        let flagged = model.flags_zero(k);
        self.fields.slot += 1;
        self.refill();
        if flagged {
            let zero = self.acc & 1 == 1;
            self.acc >>= 1;
            self.len -= 1;
            if zero {
                self.fields.models[self.fields.slot - 1].update(0);
                return 0;
            }
        }
        // y's n - 1 leading zeros and its leading one; then the rest of y and z's low bits.
        let zeros = self.acc.trailing_zeros();
        let length = 2 * zeros + 1 + k;
        let z = if length <= self.len {
            // Here zeros < 32 and k < 64: plain masks.
            let code = self.acc >> (zeros + 1);
            let y = 1 << zeros | code & !(u64::MAX << zeros);
            // All 64 bits when a refill byte by byte (near the end) filled them.
            self.acc = self.acc.checked_shr(length).unwrap_or(0);
            self.len -= length;
            (y - 1) << k | (code >> zeros) & !(u64::MAX << k)
        } else {
            self.get_long(k)
        } + flagged as u64;
        self.fields.models[self.fields.slot - 1].update(z);
        z
    }

    /// `get` for a code longer than the bits at hand, in pieces.
    #[cold]
    fn get_long(&mut self, k: u32) -> u64 {
        let mut zeros = 0;
        // Bits above `len` may be set (see `refill`): only the first `len` count.
        while self.acc.trailing_zeros() >= self.len {
            zeros += self.len;
            self.acc = self.acc.checked_shr(self.len).unwrap_or(0);
            self.len = 0;
            self.refill();
        }
        let tz = self.acc.trailing_zeros();
        zeros += tz;
        self.acc = self.acc.checked_shr(tz + 1).unwrap_or(0);
        self.len -= tz + 1;
        let y = (1u128 << zeros) | self.wide(zeros) as u128;
        (((y - 1) as u64).checked_shl(k).unwrap_or(0)) | self.wide(k)
    }

    /// Reads a value `Encoder::put_change` wrote after `prev`.
    #[inline]
    pub fn get_change(&mut self, prev: u64) -> u64 {
        prev.wrapping_add(unzigzag(self.get()) as u64)
    }

    /// Reads a value `Encoder::put_multiple` wrote after `prev`.
    #[inline]
    pub fn get_multiple(&mut self, prev: u64) -> u64 {
        let slot = self.fields.slot;
        let unit = self.fields.units[slot].0;
        let v = unzigzag(self.get());
        let whole = unit > 1 && v != 0 && self.bits(1) == 0;
        let d = if whole { v.wrapping_mul(unit as i64) } else { v };
        self.fields.units[slot].update(d.unsigned_abs());
        prev.wrapping_add(d as u64)
    }

    /// `Encoder::last_unit`, alike.
    pub fn last_unit(&self) -> u64 {
        self.fields.last_unit()
    }

    /// Passes over a field as `Encoder::skip` did: its value is `prev`, unchanged.
    #[inline]
    pub fn skip(&mut self, prev: u64) -> u64 {
        self.fields.slot += 1;
        prev
    }

    /// Reads a value `Encoder::put_either` wrote with the same guesses.
    #[inline]
    pub fn get_either<const N: usize>(&mut self, guesses: [u64; N]) -> u64 {
        self.get_guessed(guesses, Self::get_change)
    }

    /// Reads a value `Encoder::put_multiple_of_either` wrote with the same guesses.
    #[inline]
    pub fn get_multiple_of_either<const N: usize>(&mut self, guesses: [u64; N]) -> u64 {
        self.get_guessed(guesses, Self::get_multiple)
    }

    /// Reads a value written after the guess `Guesses` picks, with `get`.
    #[inline]
    fn get_guessed<const N: usize>(&mut self, guesses: [u64; N], get: impl FnOnce(&mut Self, u64) -> u64) -> u64 {
        let slot = self.fields.slot;
        let guess = guesses[self.fields.guesses[slot].better(N)];
        let x = get(self, guess);
        self.fields.guesses[slot].pick(x, guesses);
        x
    }
}

/// The most guesses a field chooses from.
const GUESSES: usize = 3;

/// How close the ways of guessing a field have lately been: moving averages (weight 1/16) of
/// the bit lengths of their misses. A flow's smoothed RTT is best guessed by its previous one
/// where few samples come between two rows (B3's connections on a 1 ms grid), by about the
/// row's own latest RTT sample where a tick spans many ACKs (B1 at 300 s, 30 ms ticks): the
/// wrong guess costs about twice the bits (docs/performance.md, "Tenth round"); a flow's bytes
/// delivered by whichever earlier change the bursts of ACKs repeat ("Twelfth round").
#[derive(Clone, Copy, Debug, Default)]
struct Guesses([u32; GUESSES]);

impl Guesses {
    /// The one of `n` guesses to use now: the first of the closest.
    fn better(&self, n: usize) -> usize {
        (1..n).fold(0, |best, i| if self.0[i] < self.0[best] { i } else { best })
    }

    /// The guess to use for `x`, then the averages updated with every guess's miss.
    fn pick<const N: usize>(&mut self, x: u64, guesses: [u64; N]) -> u64 {
        const { assert!(N <= GUESSES) };
        let guess = guesses[self.better(N)];
        for (average, g) in self.0.iter_mut().zip(guesses) {
            let miss = zigzag(x.wrapping_sub(g) as i64);
            *average = *average - (*average >> 4) + (64 - miss.leading_zeros());
        }
        guess
    }
}

/// The unit a field's changes have lately been whole multiples of; one for none.
#[derive(Clone, Copy, Debug)]
struct Unit(u64);

impl Default for Unit {
    fn default() -> Self {
        Unit(1)
    }
}

impl Unit {
    /// Units smaller than this save too little to be worth the bit that says a change is a
    /// multiple.
    const SMALLEST: u64 = 64;

    /// After a change of magnitude `m`: a multiple keeps the unit; otherwise the unit becomes
    /// their greatest common divisor if that is still large (the segment's 1460 bytes after
    /// multiples of 2920), else `m` itself, which the next changes may be multiples of.
    fn update(&mut self, m: u64) {
        if m == 0 || (self.0 > 1 && m.is_multiple_of(self.0)) {
            return;
        }
        let common = if self.0 > 1 { gcd(self.0, m) } else { 1 };
        self.0 = [common, m].into_iter().find(|&u| u >= Self::SMALLEST).unwrap_or(1);
    }
}

/// The greatest common divisor of two non-zero numbers (Stein's: shifts and subtractions, no
/// division).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            core::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// The low `n` bits of `v` (`n` up to 64).
#[inline]
fn low(v: u64, n: u32) -> u64 {
    v & u64::MAX.checked_shr(64 - n).unwrap_or(0)
}

/// A signed value as an unsigned one with small magnitudes small either way.
fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
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
        type Past = ();
        fn remember(_: &mut (), _: &Self) {}
        fn pack(&self, prev: &Self, _: &(), names: &mut Names, out: &mut Encoder) {
            out.put_change(self.x, prev.x);
            out.put(names.index(self.name));
        }
        fn unpack(prev: &Self, _: &(), names: &Names, input: &mut Decoder) -> Self {
            S { x: input.get_change(prev.x), name: names.get(input.get()) }
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
    fn small_changes_take_a_few_bits_each() {
        let mut r = Recording::new(1, 100);
        for k in 0..1000u64 {
            // A new state every tick, wandering by fewer than 30 units either way.
            r.push(0, k * 100, 1, S { x: (1 << 40) | ((k * 7919) % 30), name: "a" });
        }
        // Once the codes have adapted: key, count (with the time) and name a bit each, the
        // value's change (zigzag below 64, bit length 5 or 6 on average: order 4) at most
        // 2 * 3 - 1 + 4 = 9 bits; varints took a byte each, 5 bytes a run.
        let bytes = r.packed.bytes.len();
        assert!(bytes <= 13 * 1000 / 8 + 20, "{bytes} bytes");
        assert_eq!(r.runs().count(), 1000);
        assert!(r.runs().all(|(_, run)| run.state.x >> 40 == 1));
    }

    proptest::proptest! {
        #[test]
        fn codes_read_back_whatever_their_size(values in proptest::collection::vec((0..96u32, proptest::prelude::any::<u64>()), 1..300)) {
            // Values of every bit length (a shift of a random word) and a third of them zeros, in
            // up to 16 slots whose models adapt to each: small after large, large after small,
            // with and without the bit that tells a zero.
            let values: Vec<u64> = values.into_iter().map(|(bits, x)| x.checked_shr(bits).unwrap_or(0)).collect();
            let mut e = Encoder::default();
            for (i, &v) in values.iter().enumerate() {
                e.fields.slot = i % SLOTS;
                e.put(v);
            }
            let mut d = Decoder::new(&e);
            let back: Vec<u64> = (0..values.len()).map(|i| {
                d.fields.slot = i % SLOTS;
                d.get()
            }).collect();
            proptest::prop_assert_eq!(back, values);
        }
    }

    #[test]
    fn codes_read_back_across_the_blocks_of_storage() {
        // Large values of every length, about 6 bytes each: several blocks.
        let values: Vec<u64> = (0..25_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64)).collect();
        let mut e = Encoder::default();
        for (i, &v) in values.iter().enumerate() {
            e.fields.slot = i % SLOTS;
            e.put(v);
        }
        let full = e.bytes.blocks.len() - 1;
        assert!(full >= 3, "{} bytes", e.bytes.len());
        assert!(e.bytes.blocks[..full].iter().all(|b| b.len() == Blocks::BLOCK && b.capacity() == Blocks::BLOCK));
        let mut d = Decoder::new(&e);
        let back: Vec<u64> = (0..values.len())
            .map(|i| {
                d.fields.slot = i % SLOTS;
                d.get()
            })
            .collect();
        assert!(back == values, "the codes read back differ");
    }

    #[test]
    fn a_code_is_as_long_as_exp_golomb_of_the_adapted_order() {
        let mut e = Encoder::default();
        // Order 0 at first: 0 is "1", 1 is "010", 2 is "011", 5 is "00110".
        for v in [0, 1, 2, 5] {
            e.fields.slot = 0;
            e.fields.models[0] = Model::default();
            e.put(v);
        }
        assert_eq!((e.bytes.len(), e.len), (0, 12), "1 + 3 + 3 + 5 bits");
        // Lowest first: 1; 0, 1 (the leading one), 0; 0, 1, 1; then 0, 0, 1, 0, 1 (5 = 110 - 1).
        assert_eq!(e.acc, 0b1010_0110_0101);
        // After many values of 12 bits the order is 11: a value of 12 bits takes 2 * 2 - 1 + 11.
        let mut e = Encoder::default();
        for _ in 0..100 {
            e.fields.slot = 0;
            e.put(3000);
        }
        assert_eq!(e.fields.models[0].order(), 11);
        let before = e.bytes.len() * 8 + e.len as usize;
        e.fields.slot = 0;
        e.put(3000);
        assert_eq!(e.bytes.len() * 8 + e.len as usize - before, 14);
    }

    #[test]
    fn where_zeros_are_common_among_large_values_a_zero_costs_a_bit() {
        let mut e = Encoder::default();
        let written = |e: &mut Encoder, z| {
            let before = e.bytes.len() * 8 + e.len as usize;
            e.fields.slot = 0;
            e.put(z);
            e.bytes.len() * 8 + e.len as usize - before
        };
        for _ in 0..100 {
            written(&mut e, 0);
            written(&mut e, 3000);
        }
        // Non-zero values of 12 bits: order 11. Half of the values zero, so the zero bit pays
        // (1/2 * 12 > 1): 0 is that bit alone, 3000 the bit and 2999 at order 11, 1 + 3 + 11
        // bits; without the bit, 12 and 14.
        assert_eq!((e.fields.models[0].order(), e.fields.models[0].flags_zero(11)), (11, true));
        assert_eq!((written(&mut e, 0), written(&mut e, 3000)), (1, 15));
        // Rare zeros are not worth the bit: after a run of non-zero values, none.
        for _ in 0..100 {
            written(&mut e, 3000);
        }
        assert!(!e.fields.models[0].flags_zero(11));
        assert_eq!((written(&mut e, 3000), written(&mut e, 0)), (14, 12));
    }

    proptest::proptest! {
        #[test]
        fn multiples_read_back_whatever_their_size(
            changes in proptest::collection::vec((0..4usize, -50..50i64, proptest::prelude::any::<bool>()), 1..300)
        ) {
            // Changes that are multiples of a unit (which itself changes), others just off one,
            // and the extremes: a change of i64::MIN, values wrapping round.
            let units = [1460i64, 12096, 1 << 40, i64::MIN];
            let mut values = vec![0u64];
            for (u, k, off) in changes {
                let change = units[u].wrapping_mul(k).wrapping_add(off as i64);
                values.push(values.last().unwrap().wrapping_add(change as u64));
            }
            let mut e = Encoder::default();
            for w in values.windows(2) {
                e.fields.slot = 0;
                e.put_multiple(w[1], w[0]);
            }
            let mut d = Decoder::new(&e);
            let mut back = vec![0u64];
            for _ in 1..values.len() {
                d.fields.slot = 0;
                let prev = *back.last().unwrap();
                back.push(d.get_multiple(prev));
            }
            proptest::prop_assert_eq!(back, values);
        }
    }

    #[test]
    fn the_unit_follows_the_common_divisor_of_the_changes() {
        assert_eq!((gcd(2920, 4380), gcd(12096, 36288), gcd(7, 5), gcd(1 << 63, 3 << 10)), (1460, 12096, 1, 1 << 10));
        let mut unit = Unit::default();
        let mut after = |m| {
            unit.update(m);
            unit.0
        };
        // Two segments, then three (their divisor is one segment), a multiple, none (no change),
        // then 7 bytes: too small a unit to be worth a bit; then 100 bytes, a unit of its own.
        let units: Vec<u64> = [2920, 4380, 14600, 0, 7, 100].into_iter().map(&mut after).collect();
        assert_eq!(units, [2920, 1460, 1460, 1460, 1, 100]);
    }

    #[test]
    fn a_change_of_whole_segments_costs_its_count_of_segments() {
        let mut e = Encoder::default();
        let mut x = 0u64;
        for k in 0..1000u64 {
            e.fields.slot = 0;
            // Between 1 and 8 segments of 1460 bytes: changes of 11-14 bits.
            let next = x + (1 + (k * 7919) % 8) * 1460;
            e.put_multiple(next, x);
            x = next;
        }
        // Once the unit is known: the bit that says a multiple, then 2..16 (zigzag of 1..8) in
        // an order-2 or 3 exp-Golomb code, at most 2 * 3 - 1 + 3 = 8 bits; the change itself
        // would take 2 * 2 - 1 + 13 = 16 bits or more.
        let bits = e.bytes.len() * 8 + e.len as usize;
        assert!(bits <= 9 * 1000 + 40, "{bits} bits");
    }

    #[test]
    fn a_multiple_takes_a_bit_after_its_code_but_no_change_takes_none() {
        let mut e = Encoder::default();
        let mut written = |x, prev| {
            let before = e.bytes.len() * 8 + e.len as usize;
            e.fields.slot = 0;
            e.put_multiple(x, prev);
            e.bytes.len() * 8 + e.len as usize - before
        };
        // No unit yet: zigzag 5840 at order 0, 2 * 13 - 1 bits; the unit is then 2920, the
        // model's order still 0 (an average bit length of 13, 12 after the zero).
        assert_eq!(written(2920, 0), 25);
        // Unchanged: the code of zero, "1", and no bit.
        assert_eq!(written(2920, 2920), 1);
        // One unit more: zigzag 2 ("011") and the bit that says a multiple.
        assert_eq!(written(5840, 2920), 4);
        // 5 bytes more: no multiple, zigzag 10 ("0001011") and the bit.
        assert_eq!(written(5845, 5840), 8);
    }

    #[test]
    fn the_closer_guess_is_used_once_it_has_been_closer() {
        let mut e = Encoder::default();
        let mut d_guesses = Vec::new();
        // The value is always the second guess plus one; the first guess is a thousand off.
        for k in 0..20u64 {
            e.fields.slot = 0;
            d_guesses.push([k * 7, k * 7 + 1001]);
            e.put_either(k * 7 + 1002, [k * 7, k * 7 + 1001]);
        }
        // Both averages start at zero: the first guess is used once (a miss of 1002, 11 bits
        // for zigzag 2004), then the second (zigzag 2, 2 bits), whose average is then lower.
        assert_eq!(e.fields.guesses[0].better(2), 1);
        let mut dec = Decoder::new(&e);
        let back: Vec<u64> = d_guesses
            .iter()
            .map(|&g| {
                dec.fields.slot = 0;
                dec.get_either(g)
            })
            .collect();
        assert_eq!(back, (0..20).map(|k| k * 7 + 1002).collect::<Vec<u64>>());
        // The first code 2 * 11 - 1 bits (zigzag 2004 at order 0). Then zigzag 2 (3 bits at
        // order 0) while the model's average of bit lengths climbs from 11 to 16 (eight times
        // 2: order 1), 4 bits from the seventh value on: 21 + 5 * 3 + 14 * 4.
        assert_eq!(e.bytes.len() * 8 + e.len as usize, 92);
    }

    #[test]
    fn a_key_is_written_by_its_difference_or_its_place_in_the_turns() {
        let mut turns = Turns::new(4);
        let codes: Vec<[u64; 3]> = [2, 0, 1, 2].into_iter().map(|k| turns.take(k)).collect();
        // Order 0 1 2 3 (last key 0): 2 is 2 ahead (zigzag 4), third from the front, second
        // from the back; then order 0 1 3 2: 0 is 2 behind (zigzag 3), first, fourth from the
        // back; order 1 3 2 0: 1 one ahead; order 3 2 0 1: 2 one ahead, second, third.
        assert_eq!(codes, [[4, 2, 1], [3, 0, 3], [2, 0, 3], [2, 1, 2]]);
        assert_eq!(turns.order(), [3, 0, 1, 2]);
        // Of more keys than are kept, the lowest at first: one beyond them is written past
        // the places, by its difference (from 2 to KEPT + 5: zigzag 2 * (KEPT + 3)), and the
        // one longest ago leaves.
        let mut turns = Turns::new(Turns::KEPT + 10);
        turns.take(2);
        let kept = Turns::KEPT as u64;
        assert_eq!(turns.take(Turns::KEPT as u32 + 5), [2 * (kept + 3), kept + 2 * (kept + 3), kept + 2 * (kept + 3)]);
        let order = turns.order();
        assert_eq!(
            (order.len(), order[0], &order[Turns::KEPT - 2..]),
            (Turns::KEPT, 1, &[2, Turns::KEPT as u32 + 5][..])
        );
    }

    impl Turns {
        /// The keys kept, the one longest ago first.
        fn order(&self) -> Vec<u32> {
            (0..self.len).map(|i| self.key(i)).collect()
        }
    }

    proptest::proptest! {
        #[test]
        fn keys_read_back_whichever_way_they_were_written(keys in proptest::collection::vec(0..300u32, 1..400)) {
            // Keys taking turns in a cycle (counted from the back, each is 6th: that way is the
            // shortest), then in order (their differences are), then at random, among more
            // keys than are kept in order.
            let cycle = [3, 0, 6, 1, 5, 2, 4];
            let keys: Vec<u32> = (0..200).map(|k| cycle[k % 7]).chain(0..300).chain(keys).collect();
            let mut writer = Turns::new(300);
            let codes: Vec<u64> = keys.iter().map(|&k| writer.put(k)).collect();
            let mut reader = Turns::new(300);
            let back: Vec<u32> = codes.into_iter().map(|c| reader.get(c)).collect();
            proptest::prop_assert_eq!(back, keys);
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
