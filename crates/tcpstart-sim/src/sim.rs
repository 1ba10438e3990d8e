//! The simulation: hosts, links and the event loop that moves packets between them.

use std::ops::ControlFlow;

use tcpstart_cc::{registry, CcConfig, Instant};

use crate::event::{Event, EventQueue, Fired, TimerKind};
use crate::invariant::{ControllerError, Stopped};
use crate::link::{Link, Offer};
use crate::milestones::Milestones;
use crate::packet::{Direction, Packet, PacketKind};
use crate::pcap::PcapWriter;
use crate::pool::PacketPool;
use crate::queue::Queued;
use crate::scenario::Scenario;
use crate::tcp::{Receiver, Sender};
use crate::topology::{build_links, route, Paths, BOTTLENECK, BOTTLENECK_REV};
use crate::trace::{FlowTrace, PacketEvent, PacketTrace, QueueTrace};
use crate::traffic::udp::UdpSource;
use crate::traffic::{stream, Stream};

/// One TCP connection: both ends and the timer events scheduled for them.
struct Connection {
    sender: Sender,
    receiver: Receiver,
    /// Earliest pending event per timer kind, in [`TIMERS`] order. Timers are cancelled
    /// lazily: an event that fires early finds no due deadline and does nothing.
    scheduled: [Option<Instant>; 3],
    drops: u64,
    /// Drops of this flow's data segments (the rest of `drops` are handshake packets and ACKs).
    data_drops: u64,
    /// Data packets of this flow that reached the bottleneck, for scripted drops.
    bottleneck_data: u64,
    /// The sender has finished and its buffers were released.
    finished: bool,
}

impl Connection {
    /// When each of the connection's timers, in [`TIMERS`] order, next needs to run.
    fn poll_at(&self) -> [Option<Instant>; 3] {
        let sender = self.sender.poll_at();
        [sender.retransmit, self.receiver.poll_at(), sender.pacing]
    }
}

/// Packet accounting for the conservation check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// ACKs absorbed by an ACK-compression element that merges.
    pub merged: u64,
    pub propagating: u64,
}

pub struct Simulation {
    pub scenario: Scenario,
    events: EventQueue,
    pub links: Vec<Link>,
    pool: PacketPool,
    conns: Vec<Connection>,
    /// UDP sources; packets of source `j` carry the id `conns.len() + j` in `Packet::flow`.
    pub udp: Vec<UdpSource>,
    /// By flow or UDP source id: the links its packets cross each way, looked up at every hop.
    paths: Paths,
    /// Links 0 to `hop_links - 1` are the chain's hops (the dumbbell's two bottleneck links).
    hop_links: u32,
    /// Objects of each web page that have not completed yet.
    page_remaining: Vec<u32>,
    /// Connections finished, and UDP sources that will still send, so the end of a run without
    /// a duration is found without scanning every flow on every event.
    finished: usize,
    udp_active: usize,
    /// UDP datagrams sent and neither delivered nor dropped yet.
    udp_in_network: u64,
    scratch: Vec<Packet>,
    /// Reused buffers: packets a queue dropped on dequeue, ACKs an element released or absorbed.
    dequeue_drops: Vec<Queued>,
    released: Vec<u32>,
    absorbed: Vec<u32>,
    pub counters: Counters,
    pub flow_trace: FlowTrace,
    pub queue_trace: QueueTrace,
    pub packet_trace: Option<PacketTrace>,
    /// Capture writers by link index, for the links the scenario asked to capture.
    pub captures: Vec<Option<PcapWriter>>,
    /// Some link is captured: only then is the capture list looked up per packet.
    capturing: bool,
    /// Some flow has scripted drops: only then are data packets counted at the bottleneck.
    scripted_drops: bool,
    /// Some flow asks for Quick-Start or some link has a Quick-Start router: only then do the
    /// bottlenecks look at packets for it.
    quick_start: bool,
    end: Instant,
    /// The first invariant a sender broke, or the first controller that failed.
    violation: Option<Stopped>,
}

/// How far a run has got, shown to its watcher.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub now: Instant,
    /// The scenario's duration; none when the run ends as its flows finish.
    pub end: Option<Instant>,
    pub events: u64,
}

/// Events between two looks of a run's watcher and of the invariant checks' findings: about
/// 0.1 ms of wall time (B1 handles about 40 million events a second), so an interrupt is seen at
/// once, and a counter and a branch an event are all the loop pays.
pub const WATCH_EVERY: u32 = 4096;

/// A connection's timers, in the order of [`Connection::scheduled`].
const TIMERS: [TimerKind; 3] = [TimerKind::Retransmit, TimerKind::DelayedAck, TimerKind::Pacing];

/// The place of `kind` in [`TIMERS`], which lists the kinds in their declaration order.
fn timer_index(kind: TimerKind) -> usize {
    let idx = kind as usize;
    debug_assert_eq!(TIMERS[idx], kind);
    idx
}

impl Simulation {
    pub fn new(scenario: Scenario) -> Self {
        let links = build_links(&scenario);
        let mut events = EventQueue::new(links.iter().map(|l| l.delay));
        let mut conns = Vec::with_capacity(scenario.flows.len());
        let mut quick_start = links.iter().any(|l| l.quick_start.is_some());
        for (i, f) in scenario.flows.iter().enumerate() {
            let cfg = CcConfig {
                mss: f.tcp.mss as u64,
                initial_cwnd: f.tcp.initial_window,
                initial_ssthresh: f.tcp.initial_ssthresh,
            };
            let cc = registry::build(&f.algorithm, &f.params, &cfg).expect("scenario validation checked the algorithm");
            quick_start |= cc.capabilities().quick_start_request.is_some();
            // The receiver's clock is offset from the sender's so one-way delays computed from
            // timestamps are as unsynchronised as on a real path.
            let clock_offset = 1_000_000_000 * (i as u64 + 1);
            conns.push(Connection {
                sender: Sender::new(i as u32, f.tcp.clone(), cc, f.size, Milestones::new(f.bdp(&scenario.network))),
                receiver: Receiver::new(
                    f.tcp.clone(),
                    clock_offset,
                    registry::build_receiver_hook(&f.algorithm, &f.params)
                        .expect("scenario validation checked the algorithm"),
                ),
                scheduled: [None; 3],
                drops: 0,
                data_drops: 0,
                bottleneck_data: 0,
                finished: false,
            });
            if f.page.is_none() {
                events.schedule(Instant::ZERO + f.start, Event::FlowStart { flow: i as u32 });
            }
        }
        for page in &scenario.pages {
            if let Some(at) = page.start {
                schedule_page(&mut events, &scenario, page, Instant::ZERO + at);
            }
        }
        let mut udp: Vec<UdpSource> = scenario
            .udp
            .iter()
            .enumerate()
            .map(|(j, spec)| UdpSource::new(spec.clone(), stream(scenario.seed, Stream::Udp(j))))
            .collect();
        let mut udp_active = 0;
        for (j, src) in udp.iter_mut().enumerate() {
            if let Some(at) = src.first_send() {
                udp_active += 1;
                events.schedule(at, Event::UdpSend { source: j as u32 });
            }
        }
        let page_remaining = scenario.pages.iter().map(|p| p.objects).collect();
        let hops = scenario.network.chain().len() as u32;
        let every_hop = [0, hops - 1];
        let ends = (scenario.flows.iter().map(|f| (f.host, f.direction, f.hops)))
            .chain(udp.iter().map(|u| (u.spec.host, u.spec.direction, u.spec.hops)));
        let mut paths = Paths::default();
        for (host, data, span) in ends {
            let span = span.unwrap_or(every_hop);
            paths.push(&route(hops, host, span, data), &route(hops, host, span, data.flip()));
        }
        let captures: Vec<_> =
            links.iter().map(|l| scenario.trace.pcap.contains(&l.name).then(PcapWriter::new)).collect();
        let scripted_drops = scenario.flows.iter().any(|f| !f.drop_transmissions.is_empty());
        // A schedule's delay changes apply to both bottleneck directions.
        if let Some(schedule) = scenario.network.schedule.as_ref().filter(|s| s.varies_delay()) {
            for link in [BOTTLENECK, BOTTLENECK_REV] {
                events.vary_delay(link, schedule.clone());
            }
        }
        Simulation {
            capturing: captures.iter().any(Option::is_some),
            captures,
            scripted_drops,
            quick_start,
            flow_trace: FlowTrace::new(scenario.flows.len(), scenario.trace.interval),
            queue_trace: QueueTrace::new(links.len(), scenario.trace.queue_interval),
            packet_trace: scenario.trace.packets.then(PacketTrace::default),
            scenario,
            events,
            links,
            pool: PacketPool::default(),
            conns,
            udp,
            paths,
            hop_links: 2 * hops,
            page_remaining,
            finished: 0,
            udp_active,
            udp_in_network: 0,
            scratch: Vec::new(),
            dequeue_drops: Vec::new(),
            released: Vec::new(),
            absorbed: Vec::new(),
            counters: Counters::default(),
            end: Instant::ZERO,
            violation: None,
        }
    }

    pub fn now(&self) -> Instant {
        self.events.now()
    }
    pub fn end_time(&self) -> Instant {
        self.end
    }
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }
    pub fn sender(&self, flow: usize) -> &Sender {
        &self.conns[flow].sender
    }
    pub fn flow_drops(&self, flow: usize) -> u64 {
        self.conns[flow].drops
    }
    pub fn flow_data_drops(&self, flow: usize) -> u64 {
        self.conns[flow].data_drops
    }
    pub fn pool_live(&self) -> u64 {
        self.pool.live()
    }

    /// Runs until the scenario's duration, or until every TCP flow has finished and every UDP
    /// source has stopped and its last datagram has been delivered or dropped. Every
    /// [`WATCH_EVERY`] events it stops if an invariant was broken, and shows `watch` how far it
    /// has got; it stops if `watch` says so. The watcher only looks: the run is the same with any.
    ///
    /// The watcher is a `dyn` (called every few thousand events) so that this loop, not its
    /// caller, is where `dispatch` is inlined.
    pub fn run(&mut self, watch: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Result<(), Stopped> {
        let limit = self.scenario.duration.map(|d| Instant::ZERO + d);
        let mut countdown = WATCH_EVERY;
        loop {
            if limit.is_none() && self.finished == self.conns.len() && self.udp_active == 0 && self.udp_in_network == 0
            {
                break;
            }
            let Some((now, ev)) = self.events.pop_until(limit) else { break };
            self.dispatch(now, ev);
            countdown -= 1;
            if countdown == 0 {
                countdown = WATCH_EVERY;
                self.check()?;
                let progress = Progress { now, end: limit, events: self.events.processed() };
                if watch(progress).is_break() {
                    return Err(Stopped::Interrupted);
                }
            }
        }
        self.check()?;
        self.end = match limit {
            Some(l) => l,
            None => self.events.now(),
        };
        let conns = &self.conns;
        self.flow_trace.flush(self.end, |flow| conns[flow as usize].sender.sample());
        self.queue_trace.flush(self.end);
        Ok(())
    }

    /// The first broken invariant found by the checks made while the run goes.
    fn check(&mut self) -> Result<(), Stopped> {
        match self.violation.take().or_else(|| self.events.take_violation().map(Stopped::Broken)) {
            Some(v) => Err(v),
            None => Ok(()),
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Instant, fired: Fired) {
        let ev = match fired {
            Fired::Arrival { slot } => return self.arrive(now, slot),
            Fired::Event(ev) => ev,
        };
        match ev {
            Event::FlowStart { flow } => {
                let mut out = std::mem::take(&mut self.scratch);
                self.conns[flow as usize].sender.start(now, &mut out);
                self.after_sender(now, flow, &mut out);
                self.scratch = out;
            }
            Event::TransmitDone { link } => self.transmit_done(now, link),
            Event::Timer { flow, timer } => self.timer(now, flow, timer),
            Event::UdpSend { source } => self.udp_send(now, source),
            Event::AckRelease { link, flow } => self.release_acks(now, link, flow),
        }
    }

    fn udp_send(&mut self, now: Instant, source: u32) {
        let src = &mut self.udp[source as usize];
        let len = src.spec.packet_size;
        src.stats.sent_packets += 1;
        src.stats.sent_bytes += len as u64;
        match src.next_send() {
            Some(at) => self.events.schedule(at, Event::UdpSend { source }),
            None => self.udp_active -= 1,
        }
        self.udp_in_network += 1;
        let pkt = Packet { kind: PacketKind::Udp, len, ..Packet::default() };
        let id = (self.conns.len() + source as usize) as u32;
        self.send_from_host(now, id, &pkt);
    }

    /// The links a packet of flow or UDP source `id` crosses when travelling `dir` on its path.
    #[cfg(test)]
    fn path(&self, id: u32, dir: Direction) -> &[u32] {
        self.paths.get(id, dir)
    }

    /// A connection has just finished: free what it no longer needs, and start the next web
    /// page when this was the last object of one.
    fn on_finished(&mut self, now: Instant, flow: u32) {
        let conn = &mut self.conns[flow as usize];
        conn.finished = true;
        self.flow_trace.close(now, flow, conn.sender.sample());
        conn.sender.release_buffers();
        conn.receiver.release_buffers();
        self.finished += 1;
        let Some(p) = self.scenario.flows[flow as usize].page else { return };
        self.page_remaining[p as usize] -= 1;
        if self.page_remaining[p as usize] > 0 {
            return;
        }
        if let Some((next, gap)) = self.scenario.pages[p as usize].next {
            schedule_page(&mut self.events, &self.scenario, &self.scenario.pages[next as usize], now + gap);
        }
    }

    fn timer(&mut self, now: Instant, flow: u32, kind: TimerKind) {
        let conn = &mut self.conns[flow as usize];
        let idx = timer_index(kind);
        if conn.scheduled[idx] == Some(now) {
            conn.scheduled[idx] = None;
        }
        self.flow_trace.before(now, flow, || conn.sender.sample());
        let mut out = std::mem::take(&mut self.scratch);
        match kind {
            TimerKind::Retransmit => conn.sender.on_rto_timer(now, &mut out),
            TimerKind::Pacing => conn.sender.on_pacing_timer(now, &mut out),
            TimerKind::DelayedAck => conn.receiver.on_delack_timer(now, &mut out),
        }
        self.after_sender(now, flow, &mut out);
        self.scratch = out;
    }

    /// Sends what an endpoint of `flow` appended to `out`, each packet the way its kind goes.
    fn send_all(&mut self, now: Instant, flow: u32, out: &mut Vec<Packet>) {
        // Each packet read in place: taken by value, it was copied out of the buffer first.
        for pkt in out.iter() {
            self.send_from_host(now, flow, pkt);
        }
        out.clear();
    }

    /// Sends what an endpoint produced (a timer's, the sender's), records the sender's state and
    /// re-arms the flow's timers.
    fn after_sender(&mut self, now: Instant, flow: u32, out: &mut Vec<Packet>) {
        self.send_all(now, flow, out);
        let sender = &self.conns[flow as usize].sender;
        self.flow_trace.record(now, flow, sender.phase(), || sender.sample());
        self.sync_timers(flow);
        let conn = &mut self.conns[flow as usize];
        if conn.sender.violation.is_some() {
            self.violation = self.violation.take().or(conn.sender.violation.take());
        }
        if !conn.finished && conn.sender.is_done() {
            self.on_finished(now, flow);
        }
    }

    fn sync_timers(&mut self, flow: u32) {
        let conn = &mut self.conns[flow as usize];
        for (idx, deadline) in conn.poll_at().into_iter().enumerate() {
            arm_timer(&mut self.events, conn, flow, idx, deadline);
        }
    }

    /// After the flow's receiver handled a segment: sends its answer. Its sender is as it was:
    /// its deadlines and phase are unchanged and it cannot have finished, so of `after_sender`
    /// only the time series' record (which then only notes the time) and the delayed-ACK timer
    /// remain.
    fn after_receiver(&mut self, now: Instant, flow: u32, out: &mut Vec<Packet>) {
        self.send_all(now, flow, out);
        let conn = &mut self.conns[flow as usize];
        let sender = &conn.sender;
        // What is left out holds already, since the sender's last event went through
        // `after_sender`: its end was handled and its deadlines have events at or before them.
        debug_assert!(conn.finished || !sender.is_done(), "flow {flow}: finished unnoticed");
        debug_assert!(
            [TimerKind::Retransmit, TimerKind::Pacing].into_iter().all(|kind| {
                let idx = timer_index(kind);
                conn.poll_at()[idx].is_none_or(|d| conn.scheduled[idx].is_some_and(|s| s <= d))
            }),
            "flow {flow}: a sender deadline without its timer event"
        );
        self.flow_trace.record(now, flow, sender.phase(), || sender.sample());
        if let Some(failure) = conn.receiver.hook_failure.take() {
            let e = ControllerError { algorithm: sender.algorithm(), flow, failure };
            self.violation.get_or_insert(Stopped::Controller(Box::new(e)));
        }
        let deadline = conn.receiver.poll_at();
        arm_timer(&mut self.events, conn, flow, timer_index(TimerKind::DelayedAck), deadline);
    }

    fn send_from_host(&mut self, now: Instant, flow: u32, pkt: &Packet) {
        let dir = pkt.dir();
        // Truncated on purpose: the id only fills a capture's 16-bit IP identification.
        let slot = self.pool.insert(*pkt, flow, self.counters.created as u16);
        self.counters.created += 1;
        if let Some(tr) = self.packet_trace.as_mut() {
            let pkt = &self.pool.get(slot);
            let ev = match (dir, pkt.retransmission) {
                (Direction::Forward, false) => PacketEvent::Send,
                (Direction::Forward, true) => PacketEvent::Retransmit,
                (Direction::Reverse, _) => PacketEvent::AckSend,
            };
            tr.record(now, ev, pkt, None);
        }
        let first = self.paths.hop(flow, dir, 0).expect("a path has links");
        self.offer(now, first, slot);
    }

    #[inline(always)]
    fn offer(&mut self, now: Instant, link: u32, slot: u32) {
        // Data segments only travel their flow's data direction, so either bottleneck is theirs
        // (resolution allows scripted drops on the dumbbell only).
        if self.scripted_drops && link < self.hop_links && self.scripted_drop(slot) {
            self.drop_packet(now, slot, link);
            return;
        }
        // Every hop without a Quick-Start router refuses requests, as RFC 4782's routers do.
        if self.quick_start && link < self.hop_links {
            self.quick_start_hop(now, link, slot);
        }
        let route = *self.pool.route(slot);
        if route.kind == PacketKind::Ack {
            if let Some(element) = self.links[link as usize].compressor.as_mut() {
                let flow = route.flow;
                if let Some(due) = element.hold(now, flow, slot) {
                    self.events.schedule(due, Event::AckRelease { link, flow });
                }
                return;
            }
        }
        self.enter_link(now, link, slot, route.wire_bytes);
    }

    /// Quick-Start at a bottleneck: its router counts every packet's bytes towards its load and
    /// decides the requests of SYNs; a bottleneck without one refuses them (see
    /// [`crate::quick_start`]).
    fn quick_start_hop(&mut self, now: Instant, link: u32, slot: u32) {
        let route = *self.pool.route(slot);
        let router = self.links[link as usize].quick_start.as_mut();
        if let Some(r) = router {
            r.observe(now, route.wire_bytes);
        }
        if route.kind != PacketKind::Syn {
            return;
        }
        let Some(asked) = self.pool.read(slot).quick_start() else { return };
        let code = self.links[link as usize].quick_start.as_mut().map_or(0, |r| r.decide(now, asked));
        self.pool.set_quick_start(slot, Some(code));
    }

    /// The ACK-compression element of `link` ends a batch of `flow`.
    fn release_acks(&mut self, now: Instant, link: u32, flow: u32) {
        let (mut released, mut absorbed) = (std::mem::take(&mut self.released), std::mem::take(&mut self.absorbed));
        let element = self.links[link as usize].compressor.as_mut().expect("a release comes from an element");
        element.release(flow, &mut released, &mut absorbed);
        for slot in absorbed.drain(..) {
            self.pool.free(slot);
            self.counters.merged += 1;
        }
        for slot in released.drain(..) {
            self.enter_link(now, link, slot, self.pool.route(slot).wire_bytes);
        }
        (self.released, self.absorbed) = (released, absorbed);
    }

    /// Hands the packet in `slot`, `bytes` on the wire, to the link's queue discipline and
    /// transmitter.
    fn enter_link(&mut self, now: Instant, link: u32, slot: u32, bytes: u32) {
        let l = &mut self.links[link as usize];
        // An idle link's queue trace holds its empty queue and the sojourn of the packet it sent
        // last (see `transmit_done`). A packet that finds it idle waits no time, so after one
        // that waited none, the trace's state stays as it was: most packets on an access link.
        let idle_after_idle = l.last_sojourn == Some(0);
        match l.offer(now, slot, bytes) {
            Offer::Transmitting(ends) => {
                self.events.schedule(ends, Event::TransmitDone { link });
                self.capture(now, link, slot);
                if idle_after_idle {
                    self.queue_trace.unchanged(link, 0, 0, Some(0));
                    return;
                }
            }
            Offer::Queued => {}
            Offer::Dropped(_) => self.drop_packet(now, slot, link),
        }
        let l = &self.links[link as usize];
        self.queue_trace.record(now, link, l.queue_packets() as u64, l.queue_bytes(), l.last_sojourn);
    }

    fn scripted_drop(&mut self, slot: u32) -> bool {
        let route = self.pool.route(slot);
        if route.kind != PacketKind::Data {
            return false;
        }
        let conn = &mut self.conns[route.flow as usize];
        conn.bottleneck_data += 1;
        self.scenario.flows[route.flow as usize].drop_transmissions.binary_search(&conn.bottleneck_data).is_ok()
    }

    /// Packets are captured as their first bit goes onto the link.
    fn capture(&mut self, now: Instant, link: u32, slot: u32) {
        if !self.capturing {
            return;
        }
        if let Some(w) = self.captures[link as usize].as_mut() {
            w.record(now, &self.pool.get(slot));
        }
    }

    fn drop_packet(&mut self, now: Instant, slot: u32, link: u32) {
        let pkt = self.pool.remove(slot);
        self.counters.dropped += 1;
        match self.conns.get_mut(pkt.flow as usize) {
            Some(conn) => {
                conn.drops += 1;
                conn.data_drops += (pkt.kind == PacketKind::Data) as u64;
            }
            None => {
                self.udp_in_network -= 1;
                self.udp[pkt.flow as usize - self.conns.len()].stats.lost_packets += 1;
            }
        }
        if let Some(tr) = self.packet_trace.as_mut() {
            tr.record(now, PacketEvent::Drop, &pkt, Some(link));
        }
    }

    fn transmit_done(&mut self, now: Instant, link: u32) {
        let l = &mut self.links[link as usize];
        let (done, survived, next) = l.finish(now, &mut self.dequeue_drops);
        // The queue trace was last given this link's state when the packet now done started, or
        // since, as packets arrived: with no packet to send next and none dropped on the way
        // out, no packet was queued since then, so that state (an empty queue, that packet's
        // sojourn) is still the link's. The trace is independent of what follows.
        if next.is_some() || !self.dequeue_drops.is_empty() {
            self.queue_trace.record(now, link, l.queue_packets() as u64, l.queue_bytes(), l.last_sojourn);
        } else {
            self.queue_trace.unchanged(link, 0, 0, l.last_sojourn);
        }
        // Only an AQM drops on the way out; the buffer is moved out only then.
        if !self.dequeue_drops.is_empty() {
            let mut dequeue_drops = std::mem::take(&mut self.dequeue_drops);
            for dropped in dequeue_drops.drain(..) {
                self.drop_packet(now, dropped.slot, link);
            }
            self.dequeue_drops = dequeue_drops;
        }
        if let Some((pkt, ends)) = next {
            self.events.schedule(ends, Event::TransmitDone { link });
            self.capture(now, link, pkt.slot);
        }
        if survived {
            self.counters.propagating += 1;
            self.events.propagate(link, now, done.slot);
        } else {
            self.drop_packet(now, done.slot, link);
        }
    }

    /// The packet in `slot` has crossed a link: on to the next one, or into its host.
    fn arrive(&mut self, now: Instant, slot: u32) {
        self.counters.propagating -= 1;
        let route = self.pool.route_mut(slot);
        route.hop += 1;
        let (hop, flow, dir) = (route.hop as usize, route.flow, route.kind.dir());
        if let Some(next) = self.paths.hop(flow, dir, hop) {
            self.offer(now, next, slot);
            return;
        }
        self.counters.delivered += 1;
        if self.pool.route(slot).kind == PacketKind::Udp {
            let pkt = self.pool.remove(slot);
            if let Some(tr) = self.packet_trace.as_mut() {
                tr.record(now, PacketEvent::Arrive, &pkt, None);
            }
            self.udp_in_network -= 1;
            let stats = &mut self.udp[flow as usize - self.conns.len()].stats;
            stats.delivered_packets += 1;
            stats.delivered_bytes += pkt.len as u64;
            return;
        }
        let sender = &self.conns[flow as usize].sender;
        self.flow_trace.before(now, flow, || sender.sample());
        if let Some(tr) = self.packet_trace.as_mut() {
            match dir {
                Direction::Forward => tr.record(now, PacketEvent::Arrive, &self.pool.get(slot), None),
                Direction::Reverse if self.pool.route(slot).kind == PacketKind::Ack => {
                    tr.record(now, PacketEvent::AckArrive, &self.pool.get(slot), None)
                }
                Direction::Reverse => {}
            }
        }
        // The host reads the packet in its slot, which is freed before anything is sent, so the
        // reply may take it.
        let mut out = std::mem::take(&mut self.scratch);
        let conn = &mut self.conns[flow as usize];
        match dir {
            Direction::Forward => conn.receiver.on_packet(now, &self.pool.read(slot), &mut out),
            Direction::Reverse => conn.sender.on_packet(now, &self.pool.read(slot), &mut out),
        }
        self.pool.free(slot);
        match dir {
            Direction::Forward => self.after_receiver(now, flow, &mut out),
            Direction::Reverse => self.after_sender(now, flow, &mut out),
        }
        self.scratch = out;
    }

    /// Packets inside links: queued, on a transmitter, or propagating.
    pub fn packets_in_network(&self) -> u64 {
        self.links.iter().map(|l| l.held_packets()).sum::<u64>() + self.counters.propagating
    }
}

/// Schedules a timer event for `deadline` unless one at or before it is pending already (an
/// event that finds its deadline gone or later does nothing).
#[inline(always)]
fn arm_timer(events: &mut EventQueue, conn: &mut Connection, flow: u32, idx: usize, deadline: Option<Instant>) {
    if let Some(d) = deadline {
        if conn.scheduled[idx].is_none_or(|s| d < s) {
            conn.scheduled[idx] = Some(d);
            events.schedule(d, Event::Timer { flow, timer: TIMERS[idx] });
        }
    }
}

/// Schedules the objects of `page`, which starts at `at`.
fn schedule_page(events: &mut EventQueue, scenario: &Scenario, page: &crate::traffic::web::Page, at: Instant) {
    for flow in page.first_flow..page.first_flow + page.objects {
        events.schedule(at + scenario.flows[flow as usize].start, Event::FlowStart { flow });
    }
}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use super::*;

    #[test]
    fn paths_follow_each_flows_host_pair_and_direction() {
        let scenario = crate::scenario::from_json(
            r#"{"duration": "1s", "network": {"rate": "10Mbps", "rtt": "40ms", "hosts": 2},
                "flows": [{"host": 1}, {"host": 0, "direction": "reverse"}],
                "udp": [{"rate": "1Mbps", "host": 1, "direction": "reverse"}]}"#,
        )
        .unwrap();
        let sim = Simulation::new(scenario);
        // Links: 0 bottleneck, 1 bottleneck_rev, then per pair i: 2 + 4i sender_out,
        // 3 + 4i sender_in, 4 + 4i receiver_in, 5 + 4i receiver_out.
        let (fwd, rev) = (Direction::Forward, Direction::Reverse);
        assert_eq!([sim.path(0, fwd), sim.path(0, rev)], [[6, 0, 8], [9, 1, 7]], "forward flow on pair 1");
        assert_eq!([sim.path(1, fwd), sim.path(1, rev)], [[5, 1, 3], [2, 0, 4]], "reverse flow on pair 0");
        assert_eq!(sim.path(2, fwd), [9, 1, 7], "reverse UDP source on pair 1");
    }

    fn scenario(json: &str) -> Scenario {
        crate::scenario::from_json(json).unwrap()
    }

    const ONE_FLOW: &str = r#"{"duration": "2s", "network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{}]}"#;

    #[test]
    fn a_watcher_sees_the_run_go_forward_and_changes_nothing() {
        let plain = crate::run(scenario(ONE_FLOW));
        let mut seen = Vec::new();
        let watched = crate::run_watched(scenario(ONE_FLOW), |p| {
            seen.push(p);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(watched.summary, plain.summary);
        let events = plain.summary.sim.events;
        assert_eq!(seen.len() as u64, events / WATCH_EVERY as u64, "one look every {WATCH_EVERY} of {events} events");
        assert!(seen.windows(2).all(|w| w[0].now <= w[1].now && w[1].events == w[0].events + WATCH_EVERY as u64));
        assert!(seen.iter().all(|p| p.end == Some(Instant::ZERO + Duration::from_secs(2))));
    }

    #[test]
    fn a_watcher_stops_the_run() {
        let mut looks = 0;
        let stopped = crate::run_watched(scenario(ONE_FLOW), |_| {
            looks += 1;
            if looks == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(matches!(stopped.err(), Some(Stopped::Interrupted)));
        assert_eq!(looks, 3);
    }

    /// A controller that sets a zero window from its third ACK on: a bug the checks must catch.
    struct ZeroWindow {
        acks: u32,
    }

    impl tcpstart_cc::CongestionControl for ZeroWindow {
        fn name(&self) -> &'static str {
            "zero-window"
        }
        fn on_ack(&mut self, _: &tcpstart_cc::AckEvent) {
            self.acks += 1;
        }
        fn on_congestion(&mut self, _: &tcpstart_cc::CongestionEvent) {}
        fn on_recovery_exit(&mut self, _: &tcpstart_cc::RecoveryExitEvent) {}
        fn on_rto(&mut self, _: &tcpstart_cc::RtoEvent) {}
        fn state(&self) -> tcpstart_cc::CcState {
            let cwnd = if self.acks < 3 { 14_600 } else { 0 };
            tcpstart_cc::CcState::window(cwnd, u64::MAX, "broken")
        }
    }

    #[test]
    fn a_controller_that_breaks_the_window_stops_the_run() {
        let s = scenario(ONE_FLOW);
        let f = s.flows[0].clone();
        let mut sim = Simulation::new(s);
        sim.conns[0].sender = Sender::new(0, f.tcp, Box::new(ZeroWindow { acks: 0 }), f.size, Milestones::new(0));
        let Err(Stopped::Broken(v)) = sim.run(&mut |_| ControlFlow::Continue(())) else { panic!("the run went on") };
        assert_eq!((v.invariant, v.flow), ("window", Some(0)));
        // The third ACK comes back at the earliest two RTTs (handshake, first window) in.
        assert!(v.at >= Instant::ZERO + Duration::from_millis(80) && v.at < Instant::ZERO + Duration::from_secs(1));
        assert!(v.detail.contains("zero-window set cwnd to 0 B"), "{}", v.detail);
        assert!(v.to_string().starts_with("invariant 'window' broken at 0.0"), "{v}");
    }

    #[test]
    fn lost_packets_break_conservation() {
        let mut sim = Simulation::new(scenario(ONE_FLOW));
        sim.run(&mut |_| ControlFlow::Continue(())).unwrap();
        assert!(crate::output::invariants(&sim).ok);
        sim.counters.created += 1;
        let inv = crate::output::invariants(&sim);
        assert!(!inv.ok);
        let v = crate::output::conservation_violation(&sim, &inv);
        assert_eq!((v.invariant, v.flow, v.at), ("packet conservation", None, Instant::ZERO + Duration::from_secs(2)));
        let created = format!("{} packets created", inv.packets_created);
        assert!(v.detail.starts_with(&created), "{}", v.detail);
    }
}
