//! A one-way link: an optional ACK-compression element, a queue discipline, a transmitter that
//! serialises one packet at a time at the link rate (and no faster than the router's forwarding
//! rate, when capped), and a propagation delay. Random loss and bit errors, when set, drop
//! packets as they leave the transmitter. Packets propagating are in the simulation's
//! [delay lines](crate::delay_line). A link's rate may also change over time, by a
//! [schedule](crate::link_schedule) or a [delivery trace](crate::delivery_trace).

use core::time::Duration;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use tcpstart_cc::Instant;

use crate::ack_compression::AckCompressor;
use crate::delivery_trace::TraceCursor;
use crate::link_schedule::Schedule;
use crate::queue::{Discipline, DropCause, Queued};
use crate::quick_start::QuickStartRouter;

/// What became of a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The transmitter was idle: serialisation starts now and ends at this time.
    Transmitting(Instant),
    Queued,
    Dropped(DropCause),
}

/// Losses a link adds on its own, after the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impairments {
    /// Probability that a packet is lost, whatever its size.
    pub loss: f64,
    /// Bit-error rate: a packet of `b` bits is lost with probability `1 - (1 - ber)^b`.
    pub ber: f64,
    /// Router forwarding rate cap: at most this many packets per second enter the link.
    pub max_pps: Option<f64>,
}

/// What decides when a transmission ends on a link whose rate is not constant.
#[derive(Clone, Debug)]
pub enum Shape {
    Scheduled(std::sync::Arc<Schedule>),
    Traced(TraceCursor),
}

impl Shape {
    fn transmission_end(&mut self, now: u64, bytes: u32, waited: bool) -> u64 {
        match self {
            Shape::Scheduled(s) => s.transmission_end(now, bytes),
            Shape::Traced(c) => c.transmission_end(now, bytes, waited),
        }
    }
}

impl Link {
    /// Bits the link could have sent from the start to `end`: its utilisation's
    /// denominator, by its schedule or its trace when it has one.
    pub fn capacity_bits(&self, end: Instant) -> f64 {
        let ns = end.0;
        match &self.shape {
            None => self.rate_bps * end.as_secs_f64(),
            Some(Shape::Scheduled(s)) => s.bits_until(ns),
            Some(Shape::Traced(c)) => c.trace().bytes_until(ns) as f64 * 8.0,
        }
    }
}

/// Sojourn times (queueing delay before transmission) of the packets a link sent: exact mean and
/// maximum, and percentiles from a histogram with 20 logarithmic bins per decade from 1 us
/// (each percentile is the upper edge of its bin: at most 12 % high).
#[derive(Clone, Debug)]
pub struct SojournStats {
    pub count: u64,
    sum_ns: f64,
    pub max: Duration,
    /// Bin 0: below 1 us; bin i: [10^((i-1)/20), 10^(i/20)) us; the last bin is open-ended.
    /// An array, so that counting a packet in bin 0 (most packets) has no bounds check.
    bins: [u64; SOJOURN_BINS],
    /// The bins of the two latest samples outside bin 0 that fell in different bins, the latest
    /// first, each with its bounds [lo, hi) in ns: consecutive packets of a queue mostly fall in
    /// the same bin, and the packets of bursts on a fast link alternate between two.
    recent: [Bin; 2],
}

#[derive(Clone, Copy, Debug)]
struct Bin {
    index: usize,
    lo: u64,
    hi: u64,
}

impl Bin {
    fn holds(&self, ns: u64) -> bool {
        self.lo <= ns && ns < self.hi
    }
}

const SOJOURN_BINS_PER_DECADE: f64 = 20.0;
const SOJOURN_BINS: usize = 1 + 9 * 20;
/// The shortest sojourn outside bin 0 (1 us), `SOJOURN_EDGES[0]` as a constant for the packet
/// path (a test checks they agree).
const SOJOURN_BIN0_END: u64 = 1000;

/// The histogram bin of a sojourn of `ns` nanoseconds, by its definition.
fn sojourn_bin(ns: u64) -> usize {
    let us = ns as f64 / 1e3;
    let bin = if us < 1.0 { 0 } else { 1 + (us.log10() * SOJOURN_BINS_PER_DECADE).floor() as usize };
    bin.min(SOJOURN_BINS - 1)
}

/// `SOJOURN_EDGES[i]`: the shortest sojourn (ns) in bin `i + 1` or above, found by bisecting
/// [`sojourn_bin`] itself, so a lookup gives exactly its bins without a logarithm per packet.
static SOJOURN_EDGES: std::sync::LazyLock<[u64; SOJOURN_BINS - 1]> = std::sync::LazyLock::new(|| {
    std::array::from_fn(|i| {
        let (mut lo, mut hi) = (0u64, u64::MAX / 2);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if sojourn_bin(mid) > i {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    })
});

impl Default for SojournStats {
    fn default() -> Self {
        SojournStats {
            count: 0,
            sum_ns: 0.0,
            max: Duration::ZERO,
            bins: [0; SOJOURN_BINS],
            recent: [Bin { index: 0, lo: 0, hi: SOJOURN_BIN0_END }; 2],
        }
    }
}

impl SojournStats {
    /// Records a sojourn of `ns` nanoseconds. Inlined into the packet path for bin 0 (a packet
    /// that found the link idle: most packets on most links) and the cached bin; finding a new
    /// bin (rare: consecutive packets wait about as long) is not.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.count += 1;
        // Nanoseconds fit 63 bits for any simulated time (292 years); converting from i64 gives
        // the float of the u64 in one instruction. A packet that found the link idle would add
        // exactly +0.0 to a sum that is never -0.0: skipped.
        if ns != 0 {
            self.sum_ns += ns as i64 as f64;
        }
        if ns > self.max.as_nanos() as u64 {
            self.max = Duration::from_nanos(ns);
        }
        if ns < SOJOURN_BIN0_END {
            // Counted without touching the cached bins, so that the idle arrivals between
            // queued packets do not evict them.
            self.bins[0] += 1;
        } else if self.recent[0].holds(ns) {
            self.bins[self.recent[0].index] += 1;
        } else {
            self.record_in_other_bin(ns);
        }
    }

    /// A sojourn outside bin 0 and the latest bin.
    #[inline(never)]
    fn record_in_other_bin(&mut self, ns: u64) {
        let bin = if self.recent[1].holds(ns) { self.recent[1] } else { Self::find_bin(ns) };
        self.recent = [bin, self.recent[0]];
        self.bins[bin.index] += 1;
    }

    fn find_bin(ns: u64) -> Bin {
        let edges = &*SOJOURN_EDGES;
        let index = edges.partition_point(|&e| e <= ns);
        Bin {
            index,
            lo: index.checked_sub(1).map_or(0, |i| edges[i]),
            hi: edges.get(index).copied().unwrap_or(u64::MAX),
        }
    }

    pub fn mean(&self) -> Duration {
        if self.count == 0 {
            Duration::ZERO
        } else {
            Duration::from_nanos((self.sum_ns / self.count as f64).round() as u64)
        }
    }

    /// The `q`-quantile (0 < q <= 1), never above the maximum seen.
    pub fn quantile(&self, q: f64) -> Duration {
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                if i == 0 {
                    return self.max.min(Duration::from_micros(1));
                }
                let upper_us = 10f64.powf(i as f64 / SOJOURN_BINS_PER_DECADE);
                return Duration::from_nanos((upper_us * 1e3) as u64).min(self.max);
            }
        }
        self.max
    }
}

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets offered to the queue (ACK-compression absorptions excluded).
    pub arrivals: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets the queue discipline dropped, for any cause.
    pub drops: u64,
    /// Arrivals that did not fit the buffer limit.
    pub overflow_drops: u64,
    /// AQM drops: RED's probabilistic drops and CoDel's.
    pub early_drops: u64,
    /// RED drops because the average was above its hard limit.
    pub forced_drops: u64,
    pub random_losses: u64,
    pub bit_errors: u64,
    pub max_queue_packets: usize,
    pub max_queue_bytes: u64,
    pub sojourn: SojournStats,
    /// Integral of the queue length in packets over time (packet-nanoseconds), for the mean.
    queue_area: f64,
    last_change: Instant,
}

impl LinkStats {
    pub fn mean_queue_packets(&self, end: Instant) -> f64 {
        if end.0 == 0 {
            0.0
        } else {
            self.queue_area / end.0 as f64
        }
    }

    /// Fraction of the packets offered to the link that it lost: queue drops, random losses and
    /// bit errors.
    pub fn drop_rate(&self) -> f64 {
        if self.arrivals == 0 {
            0.0
        } else {
            (self.drops + self.random_losses + self.bit_errors) as f64 / self.arrivals as f64
        }
    }

    fn count_drop(&mut self, cause: DropCause) {
        self.drops += 1;
        match cause {
            DropCause::Overflow => self.overflow_drops += 1,
            DropCause::Early => self.early_drops += 1,
            DropCause::Forced => self.forced_drops += 1,
        }
    }
}

pub struct Link {
    pub name: String,
    /// The nominal rate; the [`Shape`], when set, decides the transmissions instead.
    pub rate_bps: f64,
    pub delay: Duration,
    pub shape: Option<Shape>,
    impairments: Impairments,
    /// Some loss is set (random or by bit errors): only then does a packet leaving the
    /// transmitter draw its fate, which the packet path otherwise skips with one test.
    lossy: bool,
    /// Shortest time between two packets entering the link (the forwarding rate cap), in ns.
    min_spacing: u64,
    rng: Pcg64Mcg,
    queue: Discipline,
    /// The discipline's [`Discipline::passes_idle_arrivals`], asked once.
    queue_passes_idle: bool,
    /// What the discipline holds, in packets and bytes, kept here as packets go in and out: the
    /// time series and the statistics read it two or three times per packet, each a virtual call
    /// into the discipline otherwise.
    queued: (usize, u64),
    /// ACK compression in front of the queue, if this router direction has it.
    pub compressor: Option<AckCompressor>,
    /// The Quick-Start router deciding requests at this link's input, if this bottleneck
    /// direction has one.
    pub quick_start: Option<QuickStartRouter>,
    transmitting: Option<Queued>,
    /// Sojourn time of the packet most recently put on the transmitter.
    /// In nanoseconds, as the queue trace takes it (a `Duration` is split into seconds and
    /// nanoseconds by a division).
    pub last_sojourn: Option<u64>,
    /// The size and serialisation time (ns) of the packet most recently put on the transmitter:
    /// most packets on a link have the size of the one before, and this saves the float division.
    /// In nanoseconds, as the packet path adds it to the time (a `Duration` is seconds and
    /// nanoseconds, converted at every addition).
    last_serialisation: (u32, u64),
    /// Host processing jitter (ns, 0: none): each packet holds the transmitter for an extra
    /// uniform draw in [0, jitter) from the link's stream. The packets keep their order, as in a
    /// host that handles them one at a time.
    jitter: u64,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(
        name: String,
        rate_bps: f64,
        delay: Duration,
        impairments: Impairments,
        queue: Discipline,
        seed: u128,
    ) -> Self {
        let min_spacing =
            impairments.max_pps.map_or(Duration::ZERO, |pps| Duration::from_secs_f64(1.0 / pps)).as_nanos() as u64;
        Link {
            name,
            rate_bps,
            delay,
            shape: None,
            min_spacing,
            impairments,
            lossy: impairments.loss > 0.0 || impairments.ber > 0.0,
            rng: Pcg64Mcg::new(seed | 1),
            queue_passes_idle: queue.passes_idle_arrivals(),
            queue,
            queued: (0, 0),
            compressor: None,
            quick_start: None,
            transmitting: None,
            last_sojourn: None,
            // What `serialisation(0)` gives.
            last_serialisation: (0, min_spacing),
            jitter: 0,
            stats: LinkStats::default(),
        }
    }

    /// Sets the host processing jitter (see [`Link::jitter`]); `None` or zero: none.
    pub fn set_jitter(&mut self, jitter: Option<Duration>) {
        self.jitter = jitter.map_or(0, |d| d.as_nanos() as u64);
    }

    #[cold]
    fn draw_jitter(&mut self) -> u64 {
        self.rng.gen_range(0..self.jitter)
    }

    /// Time (ns) the transmitter is busy with a packet: its serialisation at the link rate, or
    /// the forwarding rate's packet spacing if that is longer.
    fn serialisation(&self, bytes: u32) -> u64 {
        ((bytes as f64 * 8.0 * 1e9 / self.rate_bps).round() as u64).max(self.min_spacing)
    }

    pub fn queue_packets(&self) -> usize {
        debug_assert_eq!(self.queued.0, self.queue.len_packets());
        self.queued.0
    }
    pub fn queue_bytes(&self) -> u64 {
        debug_assert_eq!(self.queued.1, self.queue.len_bytes());
        self.queued.1
    }

    /// A packet left the discipline: onto the transmitter, or dropped on the way out.
    fn left_queue(&mut self, pkt: &Queued) {
        self.queued.0 -= 1;
        self.queued.1 -= pkt.bytes as u64;
    }

    fn account_queue(&mut self, now: Instant) {
        let s = &mut self.stats;
        let len = self.queued.0;
        // An empty queue adds exactly +0.0 to the area, so skipping it changes no bit. The
        // conversions go through `i64` (values far below 2^63), which x86-64 does in one
        // instruction and which gives the same float as from `u64`/`usize`.
        if len > 0 {
            s.queue_area += len as i64 as f64 * (now.0 - s.last_change.0) as i64 as f64;
        }
        s.last_change = now;
    }

    /// Puts `pkt` on the transmitter; returns when its transmission ends. `waited`: it was
    /// queued behind the packet that just finished (a delivery trace lets it use what that one
    /// left of their delivery opportunity).
    #[inline(always)]
    fn start(&mut self, now: Instant, pkt: Queued, waited: bool) -> Instant {
        let end = if let Some(shape) = self.shape.as_mut() {
            shape.transmission_end(now.0, pkt.bytes, waited).max(now.0 + self.min_spacing)
        } else {
            let t = match self.last_serialisation {
                (bytes, t) if bytes == pkt.bytes => t,
                _ => self.serialisation(pkt.bytes),
            };
            self.last_serialisation = (pkt.bytes, t);
            now.0 + t
        };
        let end = if self.jitter == 0 { end } else { end + self.draw_jitter() };
        let sojourn = now.0 - pkt.enqueued.0;
        self.stats.sojourn.record(sojourn);
        self.last_sojourn = Some(sojourn);
        self.transmitting = Some(pkt);
        Instant(end)
    }

    /// Offers a packet (`enqueued` is set here). Every packet passes the queue discipline, even
    /// onto an idle link, so an AQM sees every arrival; only a discipline that
    /// [passes idle arrivals](crate::queue::QueueDiscipline::passes_idle_arrivals) (drop-tail)
    /// is skipped then.
    #[inline]
    pub fn offer(&mut self, now: Instant, slot: u32, bytes: u32) -> Offer {
        self.stats.arrivals += 1;
        self.account_queue(now);
        if self.transmitting.is_none() && self.queue_passes_idle {
            // The queue is empty while the transmitter is idle (it takes the head at once).
            return Offer::Transmitting(self.start(now, Queued { slot, bytes, enqueued: now }, false));
        }
        if let Some(cause) = self.queue.enqueue(now, slot, bytes).drop_cause() {
            self.stats.count_drop(cause);
            return Offer::Dropped(cause);
        }
        if self.transmitting.is_none() {
            // The queue was empty (the transmitter takes the head at once), so this is `pkt`.
            let head = self.queue.dequeue(now, &mut Vec::new()).expect("the packet just queued");
            return Offer::Transmitting(self.start(now, head, false));
        }
        self.queued.0 += 1;
        self.queued.1 += bytes as u64;
        let s = &mut self.stats;
        s.max_queue_packets = s.max_queue_packets.max(self.queued.0);
        s.max_queue_bytes = s.max_queue_bytes.max(self.queued.1);
        Offer::Queued
    }

    /// The packet being serialised has left. Returns it, whether it survived random loss and bit
    /// errors, and the next packet with the end of its transmission, if one was waiting. Packets
    /// the discipline dropped on the way out go to `dropped`.
    #[inline]
    pub fn finish(&mut self, now: Instant, dropped: &mut Vec<Queued>) -> (Queued, bool, Option<(Queued, Instant)>) {
        let done = self.transmitting.take().expect("a transmission was in progress");
        self.stats.packets_sent += 1;
        let survived = !self.lossy || self.survives(done.bytes);
        self.account_queue(now);
        self.stats.bytes_sent += done.bytes as u64;
        let before = dropped.len();
        let next = self.queue.dequeue(now, dropped);
        for pkt in &dropped[before..] {
            self.stats.count_drop(DropCause::Early);
            self.left_queue(pkt);
        }
        if let Some(p) = &next {
            self.left_queue(p);
        }
        let next = next.map(|p| (p, self.start(now, p, true)));
        (done, survived, next)
    }

    /// Draws random loss, then bit errors; each draw only when its impairment is set, so a
    /// link's loss pattern does not change when the other is switched on or off elsewhere.
    #[cold]
    fn survives(&mut self, bytes: u32) -> bool {
        let imp = self.impairments;
        if imp.loss > 0.0 && self.rng.gen::<f64>() < imp.loss {
            self.stats.random_losses += 1;
            return false;
        }
        if imp.ber > 0.0 {
            // 1 - (1 - ber)^bits, computed without cancellation for tiny rates.
            let p = -(8.0 * bytes as f64 * (-imp.ber).ln_1p()).exp_m1();
            if self.rng.gen::<f64>() < p {
                self.stats.bit_errors += 1;
                return false;
            }
        }
        true
    }

    /// Packets held by the link: in the ACK-compression element, queued, and on the transmitter.
    pub fn held_packets(&self) -> u64 {
        self.compressor.as_ref().map_or(0, |c| c.holding())
            + self.queue_packets() as u64
            + self.transmitting.is_some() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{DropTail, Fifo, QueueDiscipline};
    use crate::scenario::Limit;

    /// Drop-tail that takes the general path: every arrival through `enqueue` and `dequeue`.
    struct GeneralDropTail(DropTail);

    impl QueueDiscipline for GeneralDropTail {
        fn enqueue(&mut self, now: Instant, slot: u32, bytes: u32) -> crate::queue::Admission {
            self.0.enqueue(now, slot, bytes)
        }
        fn dequeue(&mut self, now: Instant, dropped: &mut Vec<Queued>) -> Option<Queued> {
            self.0.dequeue(now, dropped)
        }
        fn fifo(&self) -> &Fifo {
            self.0.fifo()
        }
    }

    #[test]
    fn idle_arrivals_skip_drop_tail_with_the_same_outcome() {
        let new =
            |queue: Discipline| Link::new("l".into(), 1e9, Duration::from_millis(1), Impairments::default(), queue, 7);
        let limit = Limit::Packets(3);
        let (mut fast, mut general) =
            (new(DropTail::new(limit).into()), new(Discipline::Other(Box::new(GeneralDropTail(DropTail::new(limit))))));
        assert!(fast.queue_passes_idle && !general.queue_passes_idle);
        // Random arrivals (some at the instant a transmission ends) and transmission ends.
        let mut rng = Pcg64Mcg::new(11);
        let (mut now, mut busy_until) = (0u64, None::<u64>);
        let (mut idle_starts, mut drops) = (0, 0);
        for slot in 0..20_000u32 {
            now += rng.gen_range(0..15_000);
            while let Some(end) = busy_until.filter(|&e| e <= now) {
                let (mut d1, mut d2) = (Vec::new(), Vec::new());
                let a = fast.finish(Instant(end), &mut d1);
                assert_eq!(a, general.finish(Instant(end), &mut d2));
                busy_until = a.2.map(|(_, ends)| ends.0);
            }
            let bytes = [40, 1500, 1052][rng.gen_range(0..3)];
            let offer = fast.offer(Instant(now), slot, bytes);
            assert_eq!(offer, general.offer(Instant(now), slot, bytes), "arrival {slot}");
            match offer {
                Offer::Transmitting(ends) => {
                    idle_starts += 1;
                    busy_until = Some(ends.0);
                }
                Offer::Dropped(_) => drops += 1,
                Offer::Queued => {}
            }
            assert_eq!((fast.queue_packets(), fast.queue_bytes()), (general.queue_packets(), general.queue_bytes()));
            assert_eq!(fast.last_sojourn, general.last_sojourn);
        }
        let end = Instant(now);
        let (f, g) = (&fast.stats, &general.stats);
        assert_eq!(
            (f.arrivals, f.packets_sent, f.bytes_sent, f.drops),
            (g.arrivals, g.packets_sent, g.bytes_sent, g.drops)
        );
        assert_eq!((f.max_queue_packets, f.max_queue_bytes), (g.max_queue_packets, g.max_queue_bytes));
        assert_eq!(f.mean_queue_packets(end).to_bits(), g.mean_queue_packets(end).to_bits());
        assert_eq!(
            (f.sojourn.count, f.sojourn.max, f.sojourn.mean()),
            (g.sojourn.count, g.sojourn.max, g.sojourn.mean())
        );
        assert_eq!(f.sojourn.bins, g.sojourn.bins);
        // The mix exercised both paths and the limit.
        assert!(idle_starts > 1000 && drops > 100 && f.sojourn.count > idle_starts as u64, "{idle_starts} {drops}");
    }

    #[test]
    fn sojourn_bins_by_table_are_the_bins_by_logarithm() {
        let mut s = SojournStats::default();
        // Both sides of every edge, and a sweep over six decades in uneven steps.
        let edges = SOJOURN_EDGES.iter().flat_map(|&e| [e.saturating_sub(1), e, e + 1]);
        let sweep = (0..200_000u64).map(|i| i * i * 37 + i);
        // Idle-link sojourns (bin 0) between queued ones, as on a real link.
        let idle = [0, 999, 1_000, 0, 250];
        for (i, ns) in edges.chain(sweep).chain([0, u64::MAX / 4]).enumerate() {
            for ns in [ns, idle[i % idle.len()]] {
                let before = s.bins;
                s.record(ns);
                let counted: Vec<usize> = (0..SOJOURN_BINS).filter(|&b| s.bins[b] != before[b]).collect();
                assert_eq!(counted, vec![sojourn_bin(ns)], "{ns} ns");
            }
        }
        // Spot checks by hand: 1 us opens bin 1; 10 us (log10 = 1) opens bin 21.
        assert_eq!(SOJOURN_EDGES[0], 1_000);
        assert_eq!(SOJOURN_EDGES[0], SOJOURN_BIN0_END);
        assert_eq!(SOJOURN_EDGES[20], 10_000);
    }

    #[test]
    fn sojourn_quantiles_come_within_a_bin_of_the_truth() {
        let mut s = SojournStats::default();
        for ms in 1..=100u64 {
            s.record(ms * 1_000_000);
        }
        assert_eq!(s.mean(), Duration::from_micros(50_500));
        assert_eq!(s.max, Duration::from_millis(100));
        for (q, truth) in [(0.5, 50.0), (0.9, 90.0), (0.99, 99.0)] {
            let got = s.quantile(q).as_secs_f64() * 1e3;
            assert!(got >= truth && got <= truth * 1.125, "q {q}: {got} ms vs {truth} ms");
        }
        let mut zeros = SojournStats::default();
        zeros.record(0);
        assert_eq!(zeros.quantile(0.5), Duration::ZERO);
    }
}
