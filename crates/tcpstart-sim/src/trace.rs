//! Recorders for the time series a run produces, and the columnar tables they become (handed to
//! Python as columns).
//!
//! The flow and queue series are sampled on a fixed grid: at every multiple of `interval` (a
//! tick), each flow that exists gets a row carrying its state at that tick (after every event at
//! that instant), from its start until it finishes. A flow also gets a row at once at its start,
//! when its phase changes (a loss or a recovery is never hidden between two ticks) and when it
//! finishes. A flow that has had no event for [`SILENCE`] ticks (backing off from repeated
//! timeouts) pauses its rows until its next event. A link gets a row per tick while its queue
//! holds packets, and one at the first tick it is empty again. The number of rows is therefore
//! set by the interval and the number of flows, not by how often states change: with the default
//! interval (duration / 10 000) a 300 s run holds as many rows as a 30 s one. An interval of zero
//! writes a row at every change instead.
//!
//! A series is recorded as runs of rows (a key's state repeated on consecutive ticks is one
//! run) and becomes a table, sorted by time, only when it is read (`FlowTrace::table`,
//! `QueueTrace::table`): a run with many quiet connections holds a fraction of its rows until
//! then, and a sweep that reads only summaries never builds them.

use core::cmp::Reverse;
use core::iter::repeat_n;
use core::time::Duration;
use std::collections::binary_heap::{BinaryHeap, PeekMut};

use serde::Serialize;
use tcpstart_cc::Instant;

use crate::columns::{self, table, ColumnData, Scratch, Values};
use crate::recording::{Names, Recording, Stored};
use crate::tcp::sender::FlowSample;

fn secs(d: Option<Duration>) -> f64 {
    d.map_or(f64::NAN, |d| d.as_secs_f64())
}

/// Ticks a key goes on writing after its last event. A connection waiting out a backed-off
/// retransmission timeout (seconds, thousands of 1 ms ticks in a run without a duration) would
/// otherwise repeat one row thousands of times; a busy flow, whose packets come in bursts a few
/// ticks apart, is never silent that long.
pub const SILENCE: u64 = 10;

/// A state a series samples.
trait Sampled: Copy {
    /// The two states would make the same row in an every-change series.
    fn same(&self, other: &Self) -> bool;
    /// Moving from `prev` (None: the key's first record) to `self` is written at once.
    fn urgent(&self, prev: Option<&Self>) -> bool;
    /// Nothing to show: ticks of a quiet state after a quiet row (or before any row) are left out.
    fn quiet(&self) -> bool;
}

/// Rows one key owes: `count` grid ticks `step` apart from `first` carrying `held`, then
/// possibly a row of its own.
struct Due<S> {
    first: Instant,
    step: u64,
    count: u64,
    held: Option<S>,
    at_once: Option<(Instant, S)>,
}

impl<S: Copy> Due<S> {
    fn none() -> Self {
        Due { first: Instant::ZERO, step: 0, count: 0, held: None, at_once: None }
    }

    fn is_empty(&self) -> bool {
        self.count == 0 && self.at_once.is_none()
    }

    /// The rows in order, as runs of one state: the ticks carrying `held`, then the row written
    /// at once.
    fn runs(self) -> impl Iterator<Item = (Run, S)> {
        let Due { first, step, count, held, at_once } = self;
        let ticks = held.filter(|_| count > 0).map(|s| (Run { first: first.as_nanos(), step, count }, s));
        ticks.into_iter().chain(at_once.map(|(now, s)| (Run { first: now.as_nanos(), step: 0, count: 1 }, s)))
    }
}

/// The times of `count` rows `step` nanoseconds apart from `first`.
struct Run {
    first: u64,
    step: u64,
    count: u64,
}

impl Run {
    fn len(&self) -> usize {
        self.count as usize
    }

    /// The rows' times in seconds, as `Instant::as_secs_f64` gives them.
    fn secs(&self) -> impl Iterator<Item = f64> {
        let (first, step) = (self.first, self.step);
        (0..self.count).map(move |k| Instant::from_nanos(first + k * step).as_secs_f64())
    }
}

/// Appends the rows `key` owes to its series.
#[inline]
fn keep<S: Stored>(recording: &mut Recording<S>, key: u32, due: Due<S>) {
    if due.is_empty() {
        return;
    }
    for (run, state) in due.runs() {
        recording.push(key, run.first, run.count, state);
    }
}

/// The table of a series, in time order.
fn table<S: Stored, T: Table<S>>(recording: &Recording<S>) -> T {
    let mut table = T::default();
    table.reserve(recording.rows());
    for (key, r) in recording.runs() {
        table.extend(Run { first: r.first, step: recording.step(), count: r.count }, key, &r.state);
    }
    table.sort();
    table
}

/// The columns a series becomes.
trait Table<S>: Default {
    fn reserve(&mut self, rows: usize);
    /// Appends a run's rows, each column extended in one go.
    fn extend(&mut self, run: Run, key: u32, state: &S);
    /// Puts the rows, appended run by run, in time order.
    fn sort(&mut self);
}

/// An optional duration as an integer that differs little between neighbouring states: zero for
/// none, else one more than its nanoseconds.
fn nanos(d: Option<Duration>) -> u64 {
    d.map_or(0, |d| d.as_nanos() as u64 + 1)
}

fn from_nanos(n: u64) -> Option<Duration> {
    n.checked_sub(1).map(Duration::from_nanos)
}

/// [`nanos`] of an optional duration given in nanoseconds.
fn code(ns: Option<u64>) -> u64 {
    ns.map_or(0, |n| n + 1)
}

/// What the sampler knows of one key (flow or link).
#[derive(Clone, Copy, Debug)]
struct Key<S> {
    /// The state as last recorded; None before the first record and after the key closed. A
    /// record that only touched the key left it as it was (see `touch`).
    state: Option<S>,
    closed: bool,
    /// Time of the last record.
    last: Instant,
    /// The first grid tick not yet passed.
    next: Instant,
    /// The time and state of the key's last row.
    written: Option<(Instant, S)>,
}

/// Decides which rows each key gets (see the module docs).
#[derive(Debug)]
struct Sampler<S> {
    /// Grid step in nanoseconds; zero writes a row at every change.
    step: u64,
    keys: Vec<Key<S>>,
}

impl<S> Default for Sampler<S> {
    fn default() -> Self {
        Sampler { step: 0, keys: Vec::new() }
    }
}

impl<S: Sampled> Sampler<S> {
    fn new(keys: usize, step: Duration) -> Self {
        let key = Key { state: None, closed: false, last: Instant::ZERO, next: Instant::ZERO, written: None };
        Sampler { step: step.as_nanos() as u64, keys: vec![key; keys] }
    }

    /// The first tick at or after `t`.
    fn tick_at_or_after(&self, t: Instant) -> Instant {
        Instant::from_nanos(t.as_nanos().div_ceil(self.step) * self.step)
    }

    /// Passes the ticks of `key` before `until` (exclusive), which carry the state recorded last.
    fn ticks_before(&mut self, key: usize, until: Instant) -> Due<S> {
        let step = self.step;
        let k = &mut self.keys[key];
        let Some(held) = k.state else { return Due::none() };
        if until <= k.next {
            return Due::none();
        }
        let mut first = k.next.as_nanos();
        let mut count = (until.as_nanos() - first).div_ceil(step);
        k.next = Instant::from_nanos(first + count * step);
        if k.written.is_some_and(|(t, w)| t.as_nanos() == first && w.same(&held)) {
            // A row written at once at this very tick (a flow starting at 0) already shows it.
            first += step;
            count -= 1;
        }
        let awake_until = k.last.as_nanos() + SILENCE * step;
        count = count.min((awake_until + step).saturating_sub(first) / step);
        if held.quiet() && k.written.is_none_or(|(_, w)| w.quiet()) {
            count = 0;
        } else if held.quiet() {
            // The first quiet tick shows the state went quiet; the rest would repeat it.
            count = count.min(1);
        }
        if count > 0 {
            k.written = Some((Instant::from_nanos(first + (count - 1) * step), held));
        }
        Due { first: Instant::from_nanos(first), step, count, held: Some(held), at_once: None }
    }

    /// Keeps only the time of a record that writes no row (no tick passed since the key's last
    /// record; `urgent` says whether the new state, compared with the held one, is written at
    /// once): the common case, decided without building a `Due`. The held state is left as it
    /// was. False leaves it to `record`.
    #[inline]
    fn touch(&mut self, now: Instant, key: usize, urgent: impl FnOnce(&S) -> bool) -> bool {
        let step = self.step;
        let k = &mut self.keys[key];
        match &k.state {
            Some(prev) if step != 0 && now <= k.next && !urgent(prev) => {
                k.last = now;
                true
            }
            _ => false,
        }
    }

    /// `touch` that also takes the new state: twice per packet and link for the queues.
    #[inline]
    fn hold(&mut self, now: Instant, key: usize, s: &S) -> bool {
        let held = self.touch(now, key, |prev| s.urgent(Some(prev)));
        if held {
            self.keys[key].state = Some(*s);
        }
        held
    }

    /// Before the key's state changes at `now`: when a tick has passed since its last record,
    /// the ticks before `now` are owed with `current()`, its state unchanged since then (for a
    /// key whose records only touched it, the held state is out of date). None when no tick
    /// passed: the common case, decided inline.
    #[inline]
    fn before(&mut self, now: Instant, key: usize, current: impl FnOnce() -> S) -> Option<Due<S>> {
        let k = &mut self.keys[key];
        if self.step == 0 || now <= k.next || k.state.is_none() {
            return None;
        }
        k.state = Some(current());
        Some(self.ticks_before(key, now))
    }

    fn record(&mut self, now: Instant, key: usize, s: S) -> Due<S> {
        if self.keys[key].closed {
            return Due::none();
        }
        if self.step == 0 {
            let k = &mut self.keys[key];
            if k.written.is_some_and(|(_, w)| w.same(&s)) {
                return Due::none();
            }
            k.written = Some((now, s));
            return Due { at_once: Some((now, s)), ..Due::none() };
        }
        let mut due = self.ticks_before(key, now);
        if self.keys[key].state.is_none() {
            self.keys[key].next = self.tick_at_or_after(now);
        }
        let k = &mut self.keys[key];
        if s.urgent(k.state.as_ref()) {
            k.written = Some((now, s));
            due.at_once = Some((now, s));
        }
        k.state = Some(s);
        k.last = now;
        due
    }

    /// The key, recorded at `now` already, stops existing then with state `last`: its last
    /// state at `now` unless that is already its last row.
    fn close(&mut self, now: Instant, key: usize, last: S) -> Due<S> {
        let mut due = if self.step == 0 { Due::none() } else { self.ticks_before(key, now) };
        let k = &mut self.keys[key];
        if k.state.take().is_some() && !k.written.is_some_and(|(_, w)| w.same(&last)) {
            due.at_once = Some((now, last));
        }
        k.closed = true;
        due
    }

    /// Replaces the held state of every key that has one by `current(key)`.
    fn refresh(&mut self, current: impl Fn(usize) -> S) {
        for (key, k) in self.keys.iter_mut().enumerate() {
            if let Some(s) = &mut k.state {
                *s = current(key);
            }
        }
    }

    /// The ticks still owed by the keys that exist at `end`, up to and including it.
    fn finish(&mut self, end: Instant) -> Vec<(usize, Due<S>)> {
        if self.step == 0 {
            return Vec::new();
        }
        let until = end + Duration::from_nanos(1);
        (0..self.keys.len()).map(|key| (key, self.ticks_before(key, until))).collect()
    }
}

/// The order that sorts rows by time, then by key, keeping each key's own order; None when they
/// are in that order already (as in any run with one flow and one busy link).
fn time_order(t: &[f64], key: &[u32]) -> Option<Vec<u32>> {
    let before = |i: usize, j: usize| (t[i], key[i]) <= (t[j], key[j]);
    if (1..t.len()).all(|i| before(i - 1, i)) {
        return None;
    }
    // Each key's rows are written in time order, so merging the keys' runs gives what a stable
    // sort by (time, key) would, with a comparison per level of a heap of the keys (a few for a
    // handful of keys) instead of per level of a sort of all rows, and a row index per row of
    // memory besides the result, where a sort needs a buffer or a wider key (the merge runs when
    // the run's memory peaks).
    let keys = key.iter().max().map_or(0, |&k| k as usize + 1);
    // The row indices grouped by key (a counting sort), each key's in written order.
    let mut start = vec![0u32; keys + 1];
    for &k in key {
        start[k as usize + 1] += 1;
    }
    for k in 0..keys {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut by_key = vec![0u32; t.len()];
    for (row, &k) in key.iter().enumerate() {
        by_key[next[k as usize] as usize] = row as u32;
        next[k as usize] += 1;
    }
    // A min-heap of each key's next row by (time, key); `next` now walks each key's run.
    next.copy_from_slice(&start);
    let head = |k: u32, next: &[u32]| Reverse((ordered_bits(t[by_key[next[k as usize] as usize] as usize]), k));
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> =
        (0..keys as u32).filter(|&k| start[k as usize] < start[k as usize + 1]).map(|k| head(k, &next)).collect();
    let mut order = Vec::with_capacity(t.len());
    while let Some(mut top) = heap.peek_mut() {
        let k = top.0 .1;
        order.push(by_key[next[k as usize] as usize]);
        next[k as usize] += 1;
        if next[k as usize] < start[k as usize + 1] {
            let later = head(k, &next);
            debug_assert!(later.0 .0 >= top.0 .0, "the rows of key {k} were written out of time order");
            *top = later;
        } else {
            PeekMut::pop(top);
        }
    }
    Some(order)
}

/// The bits of `x` as an integer whose order is `f64::total_cmp`'s.
fn ordered_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Phases are literals, so the same phase is nearly always the same pointer: compared first, it
/// spares the byte comparison on every event.
fn same_phase(a: &str, b: &str) -> bool {
    core::ptr::eq(a, b) || a == b
}

impl Sampled for FlowSample {
    fn same(&self, o: &Self) -> bool {
        let key = |x: &FlowSample| (x.cwnd, x.ssthresh, x.inflight, x.delivered, x.phase);
        key(self) == key(o)
    }
    fn urgent(&self, prev: Option<&Self>) -> bool {
        prev.is_none_or(|p| !same_phase(p.phase, self.phase))
    }
    fn quiet(&self) -> bool {
        false
    }
}

/// The words of a flow's state (`Stored`), in order.
const CWND: usize = 0;
const SSTHRESH: usize = 1;
const INFLIGHT: usize = 2;
const RTT: usize = 3;
const SRTT: usize = 4;
const PACED: usize = 5;
const PACING_RATE: usize = 6;
const DELIVERED: usize = 7;
const RETRANSMISSIONS: usize = 8;
const PHASE: usize = 9;

impl Stored for FlowSample {
    const WORDS: usize = 10;

    fn identical(&self, o: &Self) -> bool {
        let bits = |x: &FlowSample| {
            let counts = (x.cwnd, x.ssthresh, x.inflight, x.delivered, x.retransmissions);
            (counts, x.srtt, x.rtt, x.pacing_rate.map(f64::to_bits))
        };
        bits(self) == bits(o) && same_phase(self.phase, o.phase)
    }

    fn write(&self, names: &mut Names, w: &mut [u64]) {
        w[CWND] = self.cwnd;
        w[SSTHRESH] = self.ssthresh;
        w[INFLIGHT] = self.inflight;
        w[RTT] = nanos(self.rtt);
        // The smoothed RTT follows the samples: as its offset from the latest it changes less
        // from row to row than itself.
        w[SRTT] = nanos(self.srtt).wrapping_sub(w[RTT]);
        w[PACED] = self.pacing_rate.is_some() as u64;
        w[PACING_RATE] = self.pacing_rate.map_or(0, f64::to_bits);
        w[DELIVERED] = self.delivered;
        w[RETRANSMISSIONS] = self.retransmissions;
        w[PHASE] = names.index(self.phase);
    }

    fn read(w: &[u64], names: &Names) -> Self {
        FlowSample {
            cwnd: w[CWND],
            ssthresh: w[SSTHRESH],
            inflight: w[INFLIGHT],
            srtt: from_nanos(w[SRTT].wrapping_add(w[RTT])),
            rtt: from_nanos(w[RTT]),
            pacing_rate: (w[PACED] != 0).then(|| f64::from_bits(w[PACING_RATE])),
            delivered: w[DELIVERED],
            retransmissions: w[RETRANSMISSIONS],
            phase: names.get(w[PHASE]),
        }
    }
}

/// The phase column: a byte per row indexing the names in the order they first appeared, where a
/// `&str` per row took 16 bytes (a sixth of a row). Reads like a `Vec<&'static str>`: `phase[i]`,
/// `iter()`, `len()`; serialised as the names.
#[derive(Debug, Default)]
pub struct Phases {
    names: Names,
    codes: Vec<u8>,
}

impl Phases {
    /// Appends `n` rows of phase `name`.
    fn push_n(&mut self, name: &'static str, n: usize) {
        let code = self.names.index(name);
        // Phase names are constants of the algorithms' code, a few per algorithm.
        let code = u8::try_from(code).expect("at most 256 distinct phase names in a run");
        self.codes.extend(repeat_n(code, n));
    }

    /// Renumbers the names in the order of their first row (rows put in another order keep
    /// their codes, numbered in the order they were appended).
    fn number_by_first_row(&mut self) {
        let old = std::mem::take(&mut self.names);
        let mut new_code = vec![None; old.all().len()];
        for code in &mut self.codes {
            let new = new_code[*code as usize].get_or_insert_with(|| self.names.index(old.get(*code as u64)) as u8);
            *code = *new;
        }
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// A byte per row, indexing `names`.
    pub fn codes(&self) -> &[u8] {
        &self.codes
    }

    /// The phases in the order of their first row.
    pub fn names(&self) -> &[&'static str] {
        self.names.all()
    }

    pub fn iter(&self) -> impl Iterator<Item = &&'static str> {
        self.codes.iter().map(|&c| &self.names.all()[c as usize])
    }
}

impl ColumnData for Phases {
    fn values(&self) -> Values<'_> {
        Values::Coded { codes: &self.codes, names: self.names.all() }
    }

    fn reserve(&mut self, rows: usize) {
        self.codes.reserve(rows);
    }

    fn permute(&mut self, order: &[u32], scratch: &mut Scratch) {
        columns::permute(&mut self.codes, order, scratch.bytes());
        self.number_by_first_row();
    }
}

impl core::ops::Index<usize> for Phases {
    type Output = &'static str;
    fn index(&self, row: usize) -> &&'static str {
        &self.names.all()[self.codes[row] as usize]
    }
}

impl Serialize for Phases {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.iter())
    }
}

table! {
    /// Per-flow state over time, as a table: a row per tick while the flow exists (paused while
    /// it is silent), plus its start, phase changes and end, in time order (by flow within a
    /// time).
    FlowTable "flows" {
        t: Vec<f64>, Float, "s", "time of the row";
        flow: Vec<u32>, Int, "", "flow id, as in the summary";
        cwnd: Vec<u64>, Int, "bytes", "congestion window";
        ssthresh: Vec<u64>, Int, "bytes", "slow-start threshold; none (null in Python, the largest u64 in Rust) while infinite";
        inflight: Vec<u64>, Int, "bytes", "bytes in flight";
        srtt: Vec<f64>, Float, "s", "smoothed RTT (RFC 6298); NaN before the first sample";
        rtt: Vec<f64>, Float, "s", "latest RTT sample; NaN before the first";
        pacing_rate: Vec<f64>, Float, "bytes/s", "pacing rate; NaN when the algorithm does not pace";
        delivered: Vec<u64>, Int, "bytes", "bytes cumulatively acknowledged (SND.UNA)";
        retransmissions: Vec<u64>, Int, "segments", "segments retransmitted so far";
        phase: Phases, Text, "", "the algorithm's phase: `handshake`, `slow_start`, `recovery`, ..., `done` at the end";
    }
}

impl Table<FlowSample> for FlowTable {
    fn reserve(&mut self, rows: usize) {
        FlowTable::reserve(self, rows)
    }

    fn extend(&mut self, run: Run, flow: u32, s: &FlowSample) {
        let n = run.len();
        self.t.extend(run.secs());
        self.flow.extend(repeat_n(flow, n));
        self.cwnd.extend(repeat_n(s.cwnd, n));
        self.ssthresh.extend(repeat_n(s.ssthresh, n));
        self.inflight.extend(repeat_n(s.inflight, n));
        self.srtt.extend(repeat_n(secs(s.srtt), n));
        self.rtt.extend(repeat_n(secs(s.rtt), n));
        self.pacing_rate.extend(repeat_n(s.pacing_rate.unwrap_or(f64::NAN), n));
        self.delivered.extend(repeat_n(s.delivered, n));
        self.retransmissions.extend(repeat_n(s.retransmissions, n));
        self.phase.push_n(s.phase, n);
    }

    fn sort(&mut self) {
        if let Some(order) = time_order(&self.t, &self.flow) {
            self.permute(&order);
        }
    }
}

/// Records the per-flow series during a run (see the module docs for which rows a flow gets).
/// It keeps runs of repeated rows and builds the [`FlowTable`] when asked.
#[derive(Debug, Default)]
pub struct FlowTrace {
    recording: Recording<FlowSample>,
    sampler: Sampler<FlowSample>,
}

impl FlowTrace {
    pub fn new(flows: usize, interval: Duration) -> Self {
        FlowTrace {
            recording: Recording::new(flows, interval.as_nanos() as u64),
            sampler: Sampler::new(flows, interval),
        }
    }

    /// Call before the flow's sender handles an event at `now`, with `current` giving its state
    /// (unchanged since its last `record`): the ticks passed since then are written with it.
    /// Records that write no row need no state at all (below), so the state at a tick is taken
    /// here, once per tick instead of once per event.
    #[inline]
    pub fn before(&mut self, now: Instant, flow: u32, current: impl FnOnce() -> FlowSample) {
        if let Some(due) = self.sampler.before(now, flow as usize, current) {
            keep(&mut self.recording, flow, due);
        }
    }

    /// After one of the flow's events at `now`, in `phase`: `sample` builds its whole state, which
    /// only a row written now needs (its first record, a phase change, or ticks passed without a
    /// `before`).
    #[inline]
    pub fn record(&mut self, now: Instant, flow: u32, phase: &'static str, sample: impl FnOnce() -> FlowSample) {
        if self.sampler.touch(now, flow as usize, |held| !same_phase(held.phase, phase)) {
            return;
        }
        let due = self.sampler.record(now, flow as usize, sample());
        keep(&mut self.recording, flow, due);
    }

    /// The flow, recorded at `now`, finished then in state `last`: its rows end with it.
    pub fn close(&mut self, now: Instant, flow: u32, last: FlowSample) {
        let due = self.sampler.close(now, flow as usize, last);
        keep(&mut self.recording, flow, due);
    }

    /// Writes the ticks up to `end` of the flows still running, with their state `current(flow)`;
    /// call once when the run ends.
    pub fn flush(&mut self, end: Instant, current: impl Fn(u32) -> FlowSample) {
        self.sampler.refresh(|flow| current(flow as u32));
        for (flow, due) in self.sampler.finish(end) {
            keep(&mut self.recording, flow as u32, due);
        }
    }

    /// The number of rows the table has.
    pub fn rows(&self) -> usize {
        self.recording.rows()
    }

    /// The rows, in time order.
    pub fn table(&self) -> FlowTable {
        table(&self.recording)
    }
}

/// A link's queue: packets, bytes, and the sojourn time (ns) of the packet it last started
/// sending.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct QueueState {
    packets: u64,
    bytes: u64,
    sojourn: Option<u64>,
}

impl Sampled for QueueState {
    fn same(&self, o: &Self) -> bool {
        self.packets == o.packets
    }
    fn urgent(&self, _: Option<&Self>) -> bool {
        false
    }
    fn quiet(&self) -> bool {
        self.packets == 0
    }
}

impl Stored for QueueState {
    const WORDS: usize = 3;

    fn identical(&self, o: &Self) -> bool {
        self == o
    }

    fn write(&self, _: &mut Names, w: &mut [u64]) {
        w.copy_from_slice(&[self.packets, self.bytes, code(self.sojourn)]);
    }

    fn read(w: &[u64], _: &Names) -> Self {
        QueueState { packets: w[0], bytes: w[1], sojourn: w[2].checked_sub(1) }
    }
}

table! {
    /// Queue length of the links over time, as a table, with the sojourn time of the packet the
    /// link most recently started sending: a row per link and tick while its queue holds
    /// packets, and one at the first tick it is empty again, in time order (by link within a
    /// time).
    QueueTable "queues" {
        t: Vec<f64>, Float, "s", "time of the row";
        link: Vec<u32>, Link, "", "the link's name (its index in Rust)";
        packets: Vec<u64>, Int, "packets", "packets queued";
        bytes: Vec<u64>, Int, "bytes", "bytes queued";
        sojourn: Vec<f64>, Float, "s", "queueing delay of the packet the link last started sending; NaN before the first";
    }
}

impl Table<QueueState> for QueueTable {
    fn reserve(&mut self, rows: usize) {
        QueueTable::reserve(self, rows)
    }

    fn extend(&mut self, run: Run, link: u32, s: &QueueState) {
        let n = run.len();
        self.t.extend(run.secs());
        self.link.extend(repeat_n(link, n));
        self.packets.extend(repeat_n(s.packets, n));
        self.bytes.extend(repeat_n(s.bytes, n));
        self.sojourn.extend(repeat_n(secs(s.sojourn.map(Duration::from_nanos)), n));
    }

    fn sort(&mut self) {
        if let Some(order) = time_order(&self.t, &self.link) {
            self.permute(&order);
        }
    }
}

/// Records the links' queues during a run; builds the [`QueueTable`] when asked.
#[derive(Debug, Default)]
pub struct QueueTrace {
    recording: Recording<QueueState>,
    sampler: Sampler<QueueState>,
}

impl QueueTrace {
    pub fn new(links: usize, interval: Duration) -> Self {
        QueueTrace {
            recording: Recording::new(links, interval.as_nanos() as u64),
            sampler: Sampler::new(links, interval),
        }
    }

    /// The link's queue after an event at `now`; calls for one link must come in time order.
    /// Inlined into the packet path for its common case, a record that writes no row.
    #[inline]
    /// `sojourn` in nanoseconds.
    pub fn record(&mut self, now: Instant, link: u32, packets: u64, bytes: u64, sojourn: Option<u64>) {
        let state = QueueState { packets, bytes, sojourn };
        if !self.sampler.hold(now, link as usize, &state) {
            self.record_row(now, link, state);
        }
    }

    /// A record the packet path leaves out: the link's queue is empty and as it was last
    /// recorded. Such a record can write no row: a quiet state gets at most one tick row, and the
    /// next record or the flush writes that tick with the same state; only the time of the last
    /// record would move, which limits a quiet key's rows to one tick anyway. Checks the claim
    /// in debug builds; does nothing otherwise.
    #[inline(always)]
    pub fn unchanged(&self, link: u32, packets: u64, bytes: u64, sojourn: Option<u64>) {
        if cfg!(debug_assertions) {
            let state = QueueState { packets, bytes, sojourn };
            let k = &self.sampler.keys[link as usize];
            assert!(state.quiet(), "link {link}: a record left out with {packets} packets queued");
            if self.sampler.step == 0 {
                assert!(k.written.is_some_and(|(_, w)| w.same(&state)), "link {link}: a change left out");
            } else {
                assert_eq!(k.state, Some(state), "link {link}: a change left out");
            }
        }
    }

    #[inline(never)]
    fn record_row(&mut self, now: Instant, link: u32, state: QueueState) {
        let due = self.sampler.record(now, link as usize, state);
        keep(&mut self.recording, link, due);
    }

    /// Writes the ticks up to `end`; call once when the run ends.
    pub fn flush(&mut self, end: Instant) {
        for (link, due) in self.sampler.finish(end) {
            keep(&mut self.recording, link as u32, due);
        }
    }

    /// The number of rows the table has.
    pub fn rows(&self) -> usize {
        self.recording.rows()
    }

    /// The rows, in time order.
    pub fn table(&self) -> QueueTable {
        table(&self.recording)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketEvent {
    /// A data segment (or UDP datagram) left its sender for the first time.
    Send,
    Retransmit,
    /// A data segment (or UDP datagram) reached the receiver.
    Arrive,
    AckSend,
    AckArrive,
    Drop,
}

impl PacketEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            PacketEvent::Send => "send",
            PacketEvent::Retransmit => "retransmit",
            PacketEvent::Arrive => "arrive",
            PacketEvent::AckSend => "ack_send",
            PacketEvent::AckArrive => "ack_arrive",
            PacketEvent::Drop => "drop",
        }
    }
}

table! {
    /// Every packet event, for time-sequence graphs. Off unless asked for: it grows with traffic.
    PacketTrace "packets" {
        t: Vec<f64>, Float, "s", "time of the event";
        flow: Vec<u32>, Int, "", "flow id, as in the summary; a UDP source's is the number of TCP flows plus its index";
        event: Vec<&'static str>, Text, "", "`send`, `retransmit`, `arrive`, `ack_send`, `ack_arrive` or `drop`";
        seq: Vec<u64>, Int, "bytes", "sequence number";
        ack: Vec<u64>, Int, "bytes", "acknowledgment number";
        len: Vec<u32>, Int, "bytes", "payload length";
        link: Vec<u32>, Link, "", "where a packet was dropped; none (empty; the largest u32 in Rust) for events at an end host";
    }
}

impl PacketTrace {
    pub fn record(&mut self, now: Instant, ev: PacketEvent, pkt: &crate::packet::Packet, link: Option<u32>) {
        self.t.push(now.as_secs_f64());
        self.flow.push(pkt.flow);
        self.event.push(ev.as_str());
        self.seq.push(pkt.seq);
        self.ack.push(pkt.ack);
        self.len.push(pkt.len);
        self.link.push(link.unwrap_or(u32::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::Repeat;
    use proptest::prelude::*;

    fn ms(x: f64) -> Instant {
        Instant::from_nanos((x * 1e6).round() as u64)
    }

    fn sample(cwnd: u64, phase: &'static str) -> FlowSample {
        FlowSample {
            cwnd,
            ssthresh: u64::MAX,
            inflight: 0,
            srtt: None,
            rtt: None,
            pacing_rate: None,
            delivered: 0,
            retransmissions: 0,
            phase,
        }
    }

    /// Drives a `FlowTrace` the way the simulator does: each flow's state is held by its
    /// "sender", given to `before` ahead of an event and to `record` (lazily) after it. Counts
    /// the states the trace asked for.
    struct Flows {
        trace: FlowTrace,
        current: Vec<FlowSample>,
        built: usize,
    }

    impl Flows {
        fn new(flows: usize, interval: Duration) -> Self {
            Flows { trace: FlowTrace::new(flows, interval), current: vec![FlowSample::default(); flows], built: 0 }
        }

        fn record(&mut self, now: Instant, flow: u32, s: FlowSample) {
            let (current, built) = (&mut self.current, &mut self.built);
            self.trace.before(now, flow, || {
                *built += 1;
                current[flow as usize]
            });
            current[flow as usize] = s;
            self.trace.record(now, flow, s.phase, || {
                *built += 1;
                s
            });
        }

        fn close(&mut self, now: Instant, flow: u32) {
            self.trace.close(now, flow, self.current[flow as usize]);
        }

        fn flush(&mut self, end: Instant) {
            let current = &self.current;
            self.trace.flush(end, |flow| current[flow as usize]);
        }
    }

    fn rows(tr: &FlowTrace) -> Vec<(f64, u32, u64, &'static str)> {
        let tr = tr.table();
        assert_eq!(tr.t.len(), tr.phase.len());
        (0..tr.t.len()).map(|i| ((tr.t[i] * 1e6).round() / 1e3, tr.flow[i], tr.cwnd[i], tr.phase[i])).collect()
    }

    #[test]
    fn a_flow_has_one_row_per_tick_with_the_state_at_that_tick_and_its_phase_changes_at_once() {
        let mut tr = Flows::new(1, Duration::from_millis(1));
        tr.record(ms(0.5), 0, sample(10, "handshake"));
        tr.record(ms(0.7), 0, sample(10, "slow_start"));
        tr.record(ms(0.9), 0, sample(20, "slow_start"));
        // Two events at the tick itself: the tick shows the state after both.
        tr.record(ms(1.0), 0, sample(30, "slow_start"));
        tr.record(ms(1.0), 0, sample(40, "slow_start"));
        tr.record(ms(2.5), 0, sample(50, "recovery"));
        tr.flush(ms(4.0));
        assert_eq!(
            rows(&tr.trace),
            [
                (0.5, 0, 10, "handshake"),
                (0.7, 0, 10, "slow_start"),
                (1.0, 0, 40, "slow_start"),
                (2.0, 0, 40, "slow_start"),
                (2.5, 0, 50, "recovery"),
                (3.0, 0, 50, "recovery"),
                (4.0, 0, 50, "recovery"),
            ]
        );
    }

    #[test]
    fn the_row_count_depends_on_the_interval_not_on_how_often_the_state_changes() {
        let count = |changes: u64| {
            let mut tr = Flows::new(1, Duration::from_millis(1));
            for k in 0..changes {
                tr.record(Instant::from_nanos(k * 10_000_000 / changes), 0, sample(k + 1, "slow_start"));
            }
            tr.flush(ms(10.0));
            assert_eq!(tr.trace.rows(), tr.trace.table().t.len());
            tr.trace.rows()
        };
        // The first record at 0 and the ticks 1..=10 ms (the one at 0 is the first record's).
        assert_eq!(count(3), 11);
        assert_eq!(count(5000), 11);
    }

    #[test]
    fn a_finished_flow_ends_with_its_last_state_and_has_no_rows_after() {
        let mut tr = Flows::new(2, Duration::from_millis(1));
        tr.record(ms(0.0), 0, sample(10, "slow_start"));
        tr.record(ms(0.2), 1, sample(10, "slow_start"));
        tr.record(ms(1.5), 0, sample(15, "slow_start"));
        tr.close(ms(1.5), 0);
        // Events after the end (a late ACK) add nothing.
        tr.record(ms(2.2), 0, sample(99, "done"));
        tr.flush(ms(3.0));
        assert_eq!(
            rows(&tr.trace),
            [
                (0.0, 0, 10, "slow_start"),
                (0.2, 1, 10, "slow_start"),
                (1.0, 0, 10, "slow_start"),
                (1.0, 1, 10, "slow_start"),
                (1.5, 0, 15, "slow_start"),
                (2.0, 1, 10, "slow_start"),
                (3.0, 1, 10, "slow_start"),
            ]
        );
    }

    #[test]
    fn a_silent_flow_pauses_its_rows_until_its_next_event() {
        let mut tr = Flows::new(1, Duration::from_millis(1));
        tr.record(ms(0.0), 0, sample(10, "slow_start"));
        // A timeout backed off to 1.5 s: rows for SILENCE ticks after the last event, then none.
        tr.record(ms(1500.0), 0, sample(1, "slow_start"));
        tr.flush(ms(1502.0));
        let t: Vec<f64> = rows(&tr.trace).iter().map(|r| r.0).collect();
        let awake: Vec<f64> = (0..=SILENCE).map(|k| k as f64).collect();
        assert_eq!(t, [awake, vec![1500.0, 1501.0, 1502.0]].concat());
    }

    #[test]
    fn a_flows_state_is_built_once_per_tick_passed_and_per_row_written_at_once_not_per_event() {
        let mut tr = Flows::new(1, Duration::from_millis(1));
        // 100 events 0.1 ms apart (ticks 1-9 ms passed), the phase changing once, at 5.05 ms.
        for k in 0..100 {
            let phase = if k < 50 { "slow_start" } else { "recovery" };
            tr.record(Instant::from_nanos(k * 100_000 + 50_000), 0, sample(k + 1, phase));
        }
        // The first record, the phase change, and one `before` for each of the 9 ticks.
        assert_eq!(tr.built, 11);
        tr.flush(ms(10.0));
        let r = rows(&tr.trace);
        // Each tick shows the state after the last event before it: tick k ms after event 10k - 1.
        assert_eq!(r[1], (1.0, 0, 10, "slow_start"));
        assert_eq!(r[5], (5.0, 0, 50, "slow_start"));
        assert_eq!(r[6], (5.05, 0, 51, "recovery"));
        assert_eq!(r[7], (6.0, 0, 60, "recovery"));
        assert_eq!(r.last(), Some(&(10.0, 0, 100, "recovery")));
    }

    #[test]
    fn a_state_repeated_on_consecutive_ticks_is_kept_as_one_run() {
        let mut tr = Flows::new(1, Duration::from_millis(1));
        tr.record(ms(0.0), 0, sample(10, "slow_start"));
        // An event every 0.5 ms that changes nothing shown but the phase, once, at 25.5 ms.
        for k in 1..120 {
            let phase = if k < 51 { "slow_start" } else { "recovery" };
            tr.record(Instant::from_nanos(k * 500_000), 0, sample(10, phase));
        }
        tr.flush(ms(60.0));
        let r = rows(&tr.trace);
        assert_eq!(r.len(), 61 + 1, "ticks 0-60 ms and the phase change at 25.5 ms");
        assert_eq!(
            (r[25], r[26], r[27]),
            ((25.0, 0, 10, "slow_start"), (25.5, 0, 10, "recovery"), (26.0, 0, 10, "recovery"))
        );
        // Ticks 0-25 ms in one run, the change written at once, ticks 26-60 ms in another.
        let runs: Vec<(u64, u64)> = tr.trace.recording.runs().map(|(_, r)| (r.first / 1000, r.count)).collect();
        assert_eq!(runs, [(0, 26), (25_500, 1), (26_000, 35)]);
    }

    fn any_duration() -> impl Strategy<Value = Option<Duration>> {
        proptest::option::of((0..u64::MAX - 1).prop_map(Duration::from_nanos))
    }

    fn any_flow_sample() -> impl Strategy<Value = FlowSample> {
        let counts = (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>());
        let phase = prop::sample::select(vec!["handshake", "slow_start", "recovery", "done"]);
        (counts, any_duration(), any_duration(), proptest::option::of(any::<f64>()), phase).prop_map(
            |((cwnd, ssthresh, inflight, delivered, retransmissions), srtt, rtt, pacing_rate, phase)| FlowSample {
                cwnd,
                ssthresh,
                inflight,
                srtt,
                rtt,
                pacing_rate,
                delivered,
                retransmissions,
                phase,
            },
        )
    }

    /// Packs `states` as one key's runs and reads them back.
    fn round_trip<S: Stored + core::fmt::Debug>(states: &[S]) -> Vec<S> {
        let mut r = Recording::new(1, 0);
        for (k, s) in states.iter().enumerate() {
            r.push(0, k as u64, 1, *s);
        }
        r.runs().map(|(_, run)| run.state).collect()
    }

    proptest! {
        #[test]
        fn flow_states_read_back_bit_for_bit(states in prop::collection::vec(any_flow_sample(), 1..40)) {
            let back = round_trip(&states);
            // Bits, since a NaN pacing rate is not equal to itself.
            let bits = |s: &FlowSample| (s.cwnd, s.ssthresh, s.inflight, s.srtt, s.rtt, s.pacing_rate.map(f64::to_bits), s.delivered, s.retransmissions, s.phase);
            prop_assert_eq!(back.iter().map(bits).collect::<Vec<_>>(), states.iter().map(bits).collect::<Vec<_>>());
        }

        #[test]
        fn queue_states_read_back_exactly(states in prop::collection::vec((any::<u64>(), any::<u64>(), any_duration()), 1..40)) {
            let states: Vec<QueueState> = states.into_iter().map(|(packets, bytes, sojourn)| QueueState { packets, bytes, sojourn: sojourn.map(|d| d.as_nanos() as u64) }).collect();
            prop_assert_eq!(round_trip(&states), states);
        }
    }

    #[test]
    fn phase_codes_follow_the_first_row_of_each_phase() {
        let mut tr = Flows::new(2, Duration::from_millis(1));
        // Flow 0 stays in one state (a run left open to the end); flow 1's runs close first.
        tr.record(ms(0.0), 0, sample(10, "x"));
        for (t, cwnd) in [(0.5, 10), (1.5, 20), (2.5, 30)] {
            tr.record(ms(t), 1, sample(cwnd, "y"));
        }
        tr.flush(ms(3.0));
        let table = tr.trace.table();
        assert_eq!(table.phase.names(), ["x", "y"]);
        assert_eq!(table.phase.iter().take(2).copied().collect::<Vec<_>>(), ["x", "y"]);
    }

    /// Each of two keys' rows on a 10 ns grid, as (time, cwnd, pacing rate's bits).
    fn rows_of(runs: impl Iterator<Item = (u32, Repeat<FlowSample>)>) -> [Vec<(u64, u64, u64)>; 2] {
        let mut rows = [Vec::new(), Vec::new()];
        for (key, r) in runs {
            for k in 0..r.count {
                rows[key as usize].push((r.first + k * 10, r.state.cwnd, r.state.pacing_rate.map_or(1, f64::to_bits)));
            }
        }
        rows
    }

    proptest! {
        #[test]
        fn a_recording_reads_back_every_row_bit_for_bit(
            steps in prop::collection::vec((0..2u32, 0..3u64, 1..4u64, 0..2u64, 0..4usize), 1..60)
        ) {
            let pacing = [None, Some(0.0), Some(-0.0), Some(f64::NAN)];
            let mut r = Recording::new(2, 10);
            let mut pushes = Vec::new();
            let mut next = [0u64; 2];
            for (key, gap, count, cwnd, rate) in steps {
                // On the grid (10 ns apart) after `gap` skipped ticks, or 3 ns off it.
                let first = next[key as usize] + gap * 10 + if gap == 2 { 3 } else { 0 };
                let s = FlowSample { cwnd, pacing_rate: pacing[rate], phase: "p", ..FlowSample::default() };
                r.push(key, first, count, s);
                pushes.push((key, first, count, s));
                next[key as usize] = first + count * 10;
            }
            // Pushes of a few states (pacing rates 0, -0 and NaN among them) on and off the grid.
            let expected = rows_of(pushes.iter().map(|&(key, first, count, state)| (key, Repeat { first, count, state })));
            prop_assert_eq!(rows_of(r.runs()), expected);
        }
    }

    #[test]
    fn a_zero_interval_writes_every_change() {
        let mut tr = Flows::new(1, Duration::ZERO);
        for (t, c) in [(0.1, 10), (0.2, 10), (0.3, 11), (0.35, 12), (5.0, 12)] {
            tr.record(ms(t), 0, sample(c, "slow_start"));
        }
        tr.flush(ms(9.0));
        assert_eq!(
            rows(&tr.trace),
            [(0.1, 0, 10, "slow_start"), (0.3, 0, 11, "slow_start"), (0.35, 0, 12, "slow_start")]
        );
    }

    #[test]
    fn a_link_has_rows_while_its_queue_holds_packets_and_at_the_first_tick_it_is_empty() {
        let mut q = QueueTrace::new(3, Duration::from_millis(1));
        // Link 0 queues from 1.2 ms to 3.4 ms; link 1 queues only between two ticks; link 2 never.
        q.record(ms(0.3), 0, 0, 0, None);
        q.record(ms(0.3), 2, 0, 0, None);
        q.record(ms(1.2), 0, 2, 3000, None);
        q.record(ms(1.4), 1, 1, 1500, None);
        q.record(ms(1.6), 1, 0, 0, Some(200_000));
        q.record(ms(2.0), 0, 5, 7500, Some(100_000));
        q.record(ms(3.4), 0, 0, 0, Some(900_000));
        q.flush(ms(8.0));
        let q = q.table();
        let got: Vec<_> =
            (0..q.t.len()).map(|i| ((q.t[i] * 1e3).round(), q.link[i], q.packets[i], q.bytes[i])).collect();
        assert_eq!(got, [(2.0, 0, 5, 7500), (3.0, 0, 5, 7500), (4.0, 0, 0, 0)]);
        assert_eq!(q.sojourn[0], 100e-6);
    }

    #[test]
    fn the_phase_column_reads_and_serialises_as_the_names_it_was_given() {
        let mut p = Phases::default();
        let names = ["handshake", "slow_start", "recovery", "slow_start", "handshake"];
        for n in names {
            p.push_n(n, 1);
        }
        assert_eq!(p.codes, [0, 1, 2, 1, 0], "a byte per row, one code per distinct name");
        assert_eq!((0..p.len()).map(|i| p[i]).collect::<Vec<_>>(), names);
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), names);
        assert_eq!(serde_json::to_string(&p).unwrap(), serde_json::to_string(&names).unwrap());
    }

    #[test]
    fn merging_the_keys_runs_orders_rows_as_a_stable_sort_by_time_and_key_does() {
        // Five keys writing their rows in time order (with repeated times), interleaved by a
        // fixed pseudo-random choice of the next writer.
        let (mut t, mut key) = (Vec::new(), Vec::new());
        let mut clock = [0u64; 5];
        let mut x = 12345u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = (x >> 33) as usize % 5;
            clock[k] += (x >> 40) % 3;
            t.push(clock[k] as f64 * 1e-4);
            key.push(k as u32 * 7);
        }
        let mut stable: Vec<u32> = (0..t.len() as u32).collect();
        stable.sort_by(|&a, &b| t[a as usize].total_cmp(&t[b as usize]).then(key[a as usize].cmp(&key[b as usize])));
        assert_eq!(time_order(&t, &key), Some(stable));
    }

    #[test]
    fn ordered_bits_sort_as_total_cmp_does() {
        let xs = [3.5, -0.0, 0.0, f64::INFINITY, -2.0, 1e-300, -f64::INFINITY, 2.0, f64::NAN, -1e-300, 3.5];
        for a in xs {
            for b in xs {
                assert_eq!(ordered_bits(a).cmp(&ordered_bits(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn leaving_out_records_of_an_unchanged_empty_queue_changes_no_row() {
        use rand::Rng;
        // Random records of three links (busy spells and idle ones, ticks passed or not), once
        // all of them and once without those that repeat the link's last recorded state with an
        // empty queue, as the packet path leaves them out (`QueueTrace::unchanged`).
        let mut rng = rand_pcg::Pcg64Mcg::new(3);
        for interval in [Duration::ZERO, Duration::from_micros(100), Duration::from_millis(1)] {
            let (mut all, mut some) = (QueueTrace::new(3, interval), QueueTrace::new(3, interval));
            let mut last = [None; 3];
            let (mut now, mut left_out) = (0u64, 0);
            for _ in 0..20_000 {
                now += [0, 300, 20_000, 2_000_000][rng.gen_range(0..4)];
                let link = rng.gen_range(0..3);
                let packets = if rng.gen_bool(0.6) { 0 } else { rng.gen_range(1..4) };
                let sojourn = [None, Some(0), Some(7_000)][rng.gen_range(0..3)];
                let state = (packets, packets * 1500, sojourn);
                all.record(Instant(now), link as u32, state.0, state.1, state.2);
                if packets == 0 && last[link] == Some(state) {
                    some.unchanged(link as u32, state.0, state.1, state.2);
                    left_out += 1;
                } else {
                    some.record(Instant(now), link as u32, state.0, state.1, state.2);
                }
                last[link] = Some(state);
            }
            all.flush(Instant(now + 5_000_000));
            some.flush(Instant(now + 5_000_000));
            let (a, b) = (all.table(), some.table());
            assert!(left_out > 2000 && a.t.len() > 1000, "{interval:?}: {left_out} left out, {} rows", a.t.len());
            assert!((&a.t, &a.link, &a.packets, &a.bytes) == (&b.t, &b.link, &b.packets, &b.bytes), "{interval:?}");
            // No sojourn yet is NaN.
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert!(bits(&a.sojourn) == bits(&b.sojourn), "{interval:?}: sojourns differ");
        }
    }

    #[test]
    fn rows_written_late_are_put_in_time_order() {
        let mut q = QueueTrace::new(2, Duration::from_millis(1));
        q.record(ms(0.5), 1, 1, 100, None);
        q.record(ms(0.5), 0, 1, 100, None);
        // Link 1's ticks 1-3 ms are written only now, after link 0's at 1 ms and 2 ms.
        q.record(ms(2.5), 0, 2, 200, None);
        q.record(ms(3.5), 1, 3, 300, None);
        q.flush(ms(4.0));
        let q = q.table();
        let got: Vec<_> = (0..q.t.len()).map(|i| ((q.t[i] * 1e3).round(), q.link[i], q.packets[i])).collect();
        assert_eq!(
            got,
            [(1.0, 0, 1), (1.0, 1, 1), (2.0, 0, 1), (2.0, 1, 1), (3.0, 0, 2), (3.0, 1, 1), (4.0, 0, 2), (4.0, 1, 3)]
        );
    }
}
