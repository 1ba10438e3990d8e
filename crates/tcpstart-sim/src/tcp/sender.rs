//! The TCP sender: handshake, segmentation, RFC 6298 retransmission timer with Karn's rule, fast
//! retransmit and recovery (NewReno partial ACKs of RFC 6582 or Reno's, with window inflation),
//! SACK-based recovery (RFC 6675, segment form, with all four NextSeg rules, and optionally PRR,
//! RFC 6937), limited transmit (RFC 3042), timestamps and pacing. The window arithmetic is the
//! congestion controller's; loss recovery is ours.
//!
//! SACK recovery sends, whenever the window allows, what RFC 6675's NextSeg returns: (1) the
//! lowest segment deemed lost and not retransmitted; (2) new data; (3) the lowest unSACKed,
//! never-retransmitted segment below the highest SACKed byte (how holes with fewer than
//! `dupthresh` SACKed segments above them, typically at the end of a transfer, are repaired
//! without a timeout); (4) once per recovery, after the cumulative ACK has passed the fast
//! retransmission, a "rescue" retransmission of the highest unSACKed segment.

use core::time::Duration;

use tcpstart_cc::{
    AckEvent, AckTimestamps, Capabilities, CcState, CongestionControl, CongestionEvent, EstablishedEvent, Instant,
    PartialAckPolicy, RecoveryExitEvent, RtoEvent, SentEvent,
};

use tcpstart_cc::quick_start::{code_for_rate, rate_of_code};

use crate::invariant::{ControllerError, Stopped, Violation};
use crate::milestones::{Milestones, WindowState};
use crate::packet::{Packet, PacketKind};
use crate::scenario::{Profile, RecoveryWindow, RtoRestart, TcpConfig};
use crate::tcp::delivery_rate::DeliveryRate;
use crate::tcp::prr::Prr;
use crate::tcp::rack::Rack;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
    Done,
}

/// An episode of fast recovery.
#[derive(Clone, Copy, Debug)]
struct Recovery {
    /// Highest sequence sent when recovery began; acknowledging it ends recovery.
    point: u64,
    /// Window inflation of RFC 5681 / 6582 (bytes; SACK recovery uses `pipe` instead).
    inflation: i64,
    retransmitted_bytes: u64,
    partial_acks: u32,
    /// RFC 6675 RescueRxt: NextSeg rule 4 may fire once SND.UNA is beyond it. Set to the end of
    /// the fast retransmission on entry (step 4.3), to the recovery point after the rescue.
    rescue_rxt: u64,
    /// `tcp.recovery = "prr"` with SACK, unless the controller sets the window itself.
    prr: Option<Prr>,
}

/// Linux's TCP_TIMEOUT_MIN (2 jiffies at HZ = 1000): added to the probe and reordering timers.
const TIMEOUT_MIN: Duration = Duration::from_millis(2);

/// Segments Linux puts in one paced TSO/GSO burst at `rate` bytes per second
/// (`tcp_tso_autosize`, BBR's `bbr_tso_segs_goal`): the data of 2^-10 s (`sk_pacing_shift` 10),
/// at least 2 (1 below 1.2 Mbit/s with BBR; taken as 2 throughout), at most 64 KB. The pacing gap
/// after the burst covers all its bytes, so the rate holds over a burst.
fn tso_segments(rate: f64, mss: u64) -> u32 {
    let bytes = (rate / 1024.0).min(65_536.0);
    ((bytes / mss as f64) as u32).max(2)
}

/// What the Linux profile's second timer waits for (Linux keeps it in the retransmission
/// timer's slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    /// RFC 8985 tail loss probe.
    Tail,
    /// RACK's reordering window of a segment not yet deemed lost.
    Reorder,
}

/// What NextSeg chose to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NextSeg {
    /// Rule 1 or 3 (and every retransmission outside SACK recovery).
    Retransmit(usize),
    /// Rule 2.
    New,
    /// Rule 4.
    Rescue(usize),
}

/// Counters and milestones of one connection, for the run summary.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub syn_at: Option<Instant>,
    pub established_at: Option<Instant>,
    pub done_at: Option<Instant>,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub bytes_retransmitted: u64,
    pub fast_recoveries: u64,
    pub timeouts: u64,
    /// Checks failed: a window of zero or less than one segment.
    pub invalid_windows: u64,
}

/// When a sender next needs to run with no packet arriving, per timer it keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderTimers {
    /// The retransmission timer, or in the Linux profile the probe or reordering timer in its
    /// slot: [`Sender::on_rto_timer`].
    pub retransmit: Option<Instant>,
    /// The next paced departure: [`Sender::on_pacing_timer`].
    pub pacing: Option<Instant>,
}

/// One point of the per-flow time series.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSample {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub inflight: u64,
    pub srtt: Option<Duration>,
    pub rtt: Option<Duration>,
    pub pacing_rate: Option<f64>,
    pub delivered: u64,
    pub retransmissions: u64,
    pub phase: &'static str,
}

pub struct Sender {
    flow: u32,
    cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    /// The controller's state as read after its latest callback: it changes only in callbacks
    /// (the trait's contract).
    cc_state: CcState,
    /// Read once, at the start.
    caps: Capabilities,
    state: State,
    /// Bytes to send; `u64::MAX` for an unlimited flow.
    size: u64,
    snd_una: u64,
    /// Next new byte to send (the highest sequence sent so far).
    snd_max: u64,
    board: Scoreboard,
    rate: DeliveryRate,
    rtt: RttEstimator,
    dupacks: u32,
    /// New data sent on duplicate ACKs before recovery (RFC 3042 limited transmit); RFC 5681 3.2
    /// step 2 leaves it out of the FlightSize that sets ssthresh.
    limited_transmit_bytes: u64,
    recovery: Option<Recovery>,
    /// RFC 6582 `recover`: no new fast retransmit until the cumulative ACK passes it.
    recover: Option<u64>,
    consecutive_rtos: u32,
    rwnd: u64,
    syn_sent_at: Instant,
    syn_retransmitted: bool,
    /// The peer's latest timestamp value, echoed on our segments.
    peer_tsval: u64,
    next_send_at: Instant,
    /// Last time sending stopped because the window was full.
    window_blocked_at: Option<Instant>,
    rto_deadline: Option<Instant>,
    pace_deadline: Option<Instant>,
    /// Linux profile with SACK: RACK-TLP's loss detection, its timer and the probe outstanding
    /// (`tlp_high_seq`).
    rack: Option<Rack>,
    probe_deadline: Option<Instant>,
    probe: Probe,
    tlp_high: Option<u64>,
    pub stats: SenderStats,
    /// Told of every change of the window; the summary reads it.
    milestones: Milestones,
    /// The first invariant this connection broke; the simulation collects it after each event
    /// the sender handled.
    pub violation: Option<Stopped>,
}

impl Sender {
    pub fn new(
        flow: u32,
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        size: Option<u64>,
        milestones: Milestones,
    ) -> Self {
        let rtt = RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max, cfg.clock_granularity);
        let caps = cc.capabilities();
        Sender {
            flow,
            board: Scoreboard::new(cfg.mss, caps.uses_rate_samples),
            rate: DeliveryRate::new(cfg.mss, caps.uses_rate_samples),
            rtt,
            cc_state: cc.state(),
            caps,
            cc,
            state: State::Idle,
            size: size.unwrap_or(u64::MAX),
            snd_una: 0,
            snd_max: 0,
            dupacks: 0,
            limited_transmit_bytes: 0,
            recovery: None,
            recover: None,
            consecutive_rtos: 0,
            rwnd: cfg.rcv_buf,
            syn_sent_at: Instant::ZERO,
            syn_retransmitted: false,
            peer_tsval: 0,
            next_send_at: Instant::ZERO,
            window_blocked_at: None,
            rto_deadline: None,
            pace_deadline: None,
            rack: (cfg.profile == Profile::Linux && cfg.sack).then(Rack::default),
            probe_deadline: None,
            probe: Probe::Tail,
            tlp_high: None,
            stats: SenderStats::default(),
            milestones,
            violation: None,
            cfg,
        }
    }

    /// When the sender next needs its timers to run. A timer that runs early, or after the
    /// time moved, does nothing.
    pub fn poll_at(&self) -> SenderTimers {
        let retransmit = match (self.rto_deadline, self.probe_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        SenderTimers { retransmit, pacing: self.pace_deadline }
    }

    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una
    }

    pub fn sample(&self) -> FlowSample {
        FlowSample {
            cwnd: self.window(),
            ssthresh: self.cc_state.ssthresh,
            inflight: self.board.bytes_in_flight(),
            srtt: self.rtt.srtt(),
            rtt: self.rtt.latest(),
            pacing_rate: self.cc_state.pacing_rate,
            delivered: self.snd_una,
            retransmissions: self.stats.retransmissions,
            phase: self.phase(),
        }
    }

    pub fn milestones(&self) -> &Milestones {
        &self.milestones
    }

    /// The name of the flow's algorithm.
    pub fn algorithm(&self) -> &'static str {
        self.cc.name()
    }

    /// The phase a trace row shows: the controller's while the connection is established.
    pub fn phase(&self) -> &'static str {
        match self.state {
            State::Idle | State::SynSent => "handshake",
            State::Established => self.cc_state.phase,
            State::Done => "done",
        }
    }

    /// The window the sender obeys: PRR's during a PRR recovery, else the controller's cwnd plus
    /// recovery inflation.
    fn window(&self) -> u64 {
        match self.recovery {
            Some(Recovery { prr: Some(prr), .. }) => prr.cwnd,
            Some(r) => (self.cc_state.cwnd as i64 + r.inflation).max(0) as u64,
            None => self.cc_state.cwnd,
        }
    }

    /// Opens the connection with a SYN.
    pub fn start(&mut self, now: Instant, out: &mut Vec<Packet>) {
        self.state = State::SynSent;
        self.stats.syn_at = Some(now);
        self.send_syn(now, out);
    }

    /// The sender's own clock: simulated time floored to whole `clock_tick`s, as a kernel that
    /// counts jiffies reads it. Everything the sender measures or reports goes through it.
    fn clock(&self, now: Instant) -> Instant {
        let tick = self.cfg.clock_tick.as_nanos() as u64;
        if tick == 0 {
            now
        } else {
            Instant(now.0 - now.0 % tick)
        }
    }

    fn send_syn(&mut self, now: Instant, out: &mut Vec<Packet>) {
        self.syn_sent_at = self.clock(now);
        let ts = self.cfg.timestamps.then_some((self.syn_sent_at.0, 0));
        let mut syn = Packet { flow: self.flow, kind: PacketKind::Syn, ..Packet::default() }.with_ts(ts);
        // Only the first SYN asks for a Quick-Start rate: a retransmitted one gives no RTT to
        // size the window with.
        if !self.syn_retransmitted {
            syn.set_quick_start(self.caps.quick_start_request.map(|bytes_per_s| code_for_rate(bytes_per_s * 8.0)));
        }
        out.push(syn);
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Handles a SYN-ACK or an ACK from the receiver.
    pub fn on_packet(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) {
        match (self.state, pkt.kind) {
            (State::SynSent, PacketKind::SynAck) => self.on_synack(now, pkt, out),
            (State::Established, PacketKind::Ack) => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_synack(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) {
        self.state = State::Established;
        self.stats.established_at = Some(now);
        self.rwnd = pkt.rwnd;
        self.peer_tsval = pkt.ts().map_or(0, |t| t.0);
        // Karn's rule applies to the handshake too: a retransmitted SYN gives no sample.
        let clock = self.clock(now);
        let handshake_rtt = (!self.syn_retransmitted).then(|| clock - self.syn_sent_at);
        match handshake_rtt {
            Some(r) => self.rtt.sample(r),
            None => self.rtt.reset_after_syn_retransmission(),
        }
        self.rto_deadline = None;
        let queued_bytes = self.size;
        let quick_start_rate =
            pkt.quick_start().filter(|_| !self.syn_retransmitted).map(|code| rate_of_code(code) / 8.0);
        self.with_cc(now, |cc| {
            cc.on_established(&EstablishedEvent {
                now: clock,
                handshake_rtt,
                queued_bytes,
                rwnd: pkt.rwnd,
                quick_start_rate,
            })
        });
        self.try_send(now, out);
        self.arm_probe(now, None);
    }

    fn on_ack(&mut self, now: Instant, pkt: &Packet, out: &mut Vec<Packet>) {
        let clock = self.clock(now);
        self.rwnd = pkt.rwnd;
        if let Some((tsval, _)) = pkt.ts() {
            self.peer_tsval = tsval;
        }
        let mut newly_sacked = 0;
        let min_rtt = self.rtt.min_rtt();
        if self.cfg.sack {
            for &(start, end) in &pkt.sack[..pkt.sack_count as usize] {
                newly_sacked += self.board.sack(start, end, |s, tx| {
                    self.rate.on_sacked(s, tx);
                    if let Some(rack) = self.rack.as_mut() {
                        rack.on_delivered(clock, s, min_rtt);
                    }
                });
            }
        }
        let prior_in_flight = self.board.bytes_in_flight() + newly_sacked;
        // RFC 6937 DeliveredData: change in SND.UNA plus (signed) change in SACKed bytes.
        let mut delivered_data = newly_sacked;
        let advanced = pkt.ack > self.snd_una;
        let mut is_dup = false;
        let mut rtt_sample = None;
        let mut bytes_acked = 0;
        if advanced {
            let acked = self.board.ack_to(pkt.ack, |s, tx| {
                self.rate.on_acked(s, tx);
                if let Some(rack) = self.rack.as_mut().filter(|_| !s.sacked) {
                    rack.on_delivered(clock, s, min_rtt);
                }
            });
            if self.tlp_high.is_some_and(|h| pkt.ack >= h) {
                self.tlp_high = None;
            }
            bytes_acked = acked.bytes;
            delivered_data += acked.bytes - acked.previously_sacked;
            newly_sacked = newly_sacked.saturating_sub(acked.previously_sacked);
            self.rate.on_cumulative_ack(acked.bytes - acked.previously_sacked, self.cfg.sack);
            self.snd_una = pkt.ack;
            self.dupacks = 0;
            self.limited_transmit_bytes = 0;
            // RFC 7323 RTTM: with timestamps every advancing ACK gives a sample, retransmission
            // or not; without them, Karn's rule admits only never-retransmitted segments.
            rtt_sample = match pkt.ts() {
                Some((_, tsecr)) if self.cfg.timestamps => Some(clock - Instant(tsecr)),
                _ => acked.rtt_send_time.map(|sent| clock - sent),
            };
            if let Some(r) = rtt_sample {
                self.rtt.sample(r);
                self.consecutive_rtos = 0;
            }
        } else if pkt.ack == self.snd_una && self.snd_max > self.snd_una && (!self.cfg.sack || newly_sacked > 0) {
            self.dupacks += 1;
            is_dup = true;
            if !self.cfg.sack {
                self.rate.on_dupack();
            }
        }
        let mut reorder_wait = None;
        if let Some(mut rack) = self.rack {
            let reo_wnd = self.reo_wnd();
            reorder_wait = rack.on_ack(clock, &mut self.board, reo_wnd);
            self.rack = Some(rack);
        } else if self.cfg.sack {
            self.board.detect_sack_losses(self.cfg.dupthresh);
        }

        let window_before = self.window();
        let mut ev = AckEvent {
            now: clock,
            bytes_acked,
            bytes_sacked: newly_sacked,
            rtt_sample,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            prior_in_flight,
            bytes_in_flight: self.board.bytes_in_flight(),
            in_recovery: self.recovery.is_some(),
            cwnd_limited: prior_in_flight + self.cfg.mss as u64 > window_before || self.recently_window_blocked(now),
            snd_una: self.snd_una,
            snd_nxt: self.snd_max,
            timestamps: pkt.ts().map(|(tsval, tsecr)| AckTimestamps { tsval, tsecr }),
            receiver_echo: pkt.echo(),
            rate: None,
        };
        // Written into the event in place: the sample is larger than the compiler moves without a
        // call to `memcpy`.
        if self.caps.uses_rate_samples {
            let ts_rtt = rtt_sample.filter(|_| self.cfg.timestamps && pkt.ts().is_some());
            ev.rate = Some(self.rate.sample(now, self.board.lost_total(), self.rtt.min_rtt(), ts_rtt));
        } else {
            self.rate.end_ack_unsampled();
        }
        self.with_cc(now, |cc| cc.on_ack(&ev));
        if self.cc_state.marks_app_limited {
            self.rate.mark_app_limited(self.board.bytes_in_flight());
        }

        if advanced {
            self.update_retransmit_timer(now);
        }
        self.update_recovery(now, advanced, is_dup, bytes_acked, delivered_data, out);
        self.check_scoreboard(now);

        if self.snd_una >= self.size {
            self.finish(now);
            return;
        }
        self.try_send(now, out);
        self.arm_probe(now, reorder_wait);
    }

    /// RACK's reordering window (`tcp_rack_reo_wnd`; a simulated path never reorders): none in
    /// recovery, after a timeout until its data is acknowledged, or once dupthresh segments are
    /// SACKed; else min RTT / 4, at most SRTT.
    fn reo_wnd(&self) -> Duration {
        let in_loss = self.recover.is_some_and(|r| self.snd_una < r);
        let sacked_segments = self.board.sacked_bytes() / self.cfg.mss as u64;
        match (self.rtt.min_rtt(), self.rtt.srtt()) {
            (Some(min_rtt), Some(srtt)) if !in_loss && sacked_segments < self.cfg.dupthresh as u64 => {
                (min_rtt / 4).min(srtt)
            }
            _ => Duration::ZERO,
        }
    }

    /// The Linux profile's second timer after an ACK or a send (`tcp_rack_mark_lost`'s
    /// reordering timer, else `tcp_schedule_loss_probe`): RACK's wait for a segment not yet deemed
    /// lost; or, in the open state with data out and no probe outstanding, a tail loss probe
    /// 2 SRTT on (plus 200 ms for a single segment, for the peer's delayed ACK; plus
    /// TCP_TIMEOUT_MIN else), never after the retransmission timer.
    fn arm_probe(&mut self, now: Instant, reorder_wait: Option<Duration>) {
        if self.rack.is_none() {
            return;
        }
        self.probe_deadline = None;
        if self.board.is_empty() || self.state != State::Established {
            return;
        }
        if let Some(wait) = reorder_wait {
            self.probe = Probe::Reorder;
            self.probe_deadline = Some(now + wait + TIMEOUT_MIN);
            return;
        }
        let open = self.recovery.is_none() && self.recover.is_none_or(|r| self.snd_una >= r);
        if !open || self.tlp_high.is_some() {
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => 2 * srtt + if self.board.len() == 1 { self.cfg.rto_min } else { TIMEOUT_MIN },
            None => self.cfg.rto_initial,
        };
        let at = now + pto;
        self.probe = Probe::Tail;
        self.probe_deadline = Some(self.rto_deadline.map_or(at, |r| r.min(at)));
    }

    /// The tail loss probe (`tcp_send_loss_probe`): a new segment if the receiver's window
    /// allows one (whatever cwnd says), else a retransmission of the highest unSACKed segment;
    /// then the retransmission timer starts afresh.
    fn send_probe(&mut self, now: Instant, out: &mut Vec<Packet>) {
        let len = (self.cfg.mss as u64).min(self.size.saturating_sub(self.snd_max));
        if len > 0 && self.snd_max + len - self.snd_una <= self.rwnd {
            self.send_segment(now, None, out);
        } else if let Some(idx) = self.board.highest_unsacked() {
            self.send_segment(now, Some(idx), out);
        }
        self.tlp_high = Some(self.snd_max);
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// RACK's reordering timer (`tcp_rack_reo_timeout`): segments whose wait is over are lost;
    /// a loss starts recovery (counted as one segment delivered, as Linux's `tcp_cwnd_reduction`
    /// call there) and the retransmissions go out.
    fn reorder_timeout(&mut self, now: Instant, out: &mut Vec<Packet>) {
        let Some(rack) = self.rack else { return };
        let reo_wnd = self.reo_wnd();
        let wait = rack.detect(self.clock(now), &mut self.board, reo_wnd);
        if self.board.has_lost() && self.recovery.is_none() && self.recovery_allowed() {
            self.enter_recovery(now, self.cfg.mss as u64, out);
        }
        self.try_send(now, out);
        self.rto_deadline = Some(now + self.rtt.rto());
        self.arm_probe(now, wait);
    }

    fn recently_window_blocked(&self, now: Instant) -> bool {
        let horizon = self.rtt.srtt().unwrap_or(self.rtt.rto());
        self.window_blocked_at.is_some_and(|t| now - t <= horizon)
    }

    fn update_retransmit_timer(&mut self, now: Instant) {
        if self.board.is_empty() {
            self.rto_deadline = None;
            return;
        }
        // RFC 6582 "impatient" variant: within one recovery only the first partial ACK restarts
        // the timer, so a long chain of single retransmissions falls back to a timeout. The full
        // ACK that ends the recovery restarts it as any new ACK does (RFC 6298 5.3); else the
        // deadline set at the first partial ACK could expire right after a long recovery.
        let restart = self.recovery.is_none_or(|r| {
            r.partial_acks == 0 || self.snd_una >= r.point || self.cfg.rto_restart == RtoRestart::EveryAck
        });
        if restart {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn update_recovery(
        &mut self,
        now: Instant,
        advanced: bool,
        is_dup: bool,
        bytes_acked: u64,
        delivered_data: u64,
        out: &mut Vec<Packet>,
    ) {
        let mss = self.cfg.mss as u64;
        if let Some(mut rec) = self.recovery {
            if self.snd_una >= rec.point {
                self.exit_recovery(now, rec);
            } else if self.cfg.sack {
                rec.partial_acks += advanced as u32;
                if let Some(prr) = rec.prr.as_mut() {
                    prr.on_ack(delivered_data, self.board.bytes_in_flight(), self.cc_state.ssthresh, mss);
                }
                self.recovery = Some(rec);
            } else if advanced {
                if self.caps.partial_ack_policy == PartialAckPolicy::EndsRecovery {
                    self.exit_recovery(now, rec);
                    return;
                }
                // RFC 6582 3.2 step 5: retransmit the next hole, deflate by what was acked, add
                // back one segment if at least one was acked.
                rec.partial_acks += 1;
                rec.inflation -= bytes_acked as i64;
                if bytes_acked >= mss {
                    rec.inflation += mss as i64;
                }
                self.recovery = Some(rec);
                self.board.mark_lost(0);
                self.retransmit_first_lost(now, out);
            } else if is_dup {
                rec.inflation += mss as i64;
                self.recovery = Some(rec);
            }
            return;
        }
        let first_lost = || self.cfg.sack && self.board.get(0).is_some_and(|s| s.lost);
        // RACK: any segment deemed lost (Linux `tcp_time_to_recover`: lost_out).
        let trigger = match self.rack {
            Some(_) => self.board.has_lost(),
            None => self.dupacks >= self.cfg.dupthresh || first_lost(),
        };
        // Most ACKs trigger nothing: the recovery rules are asked only when one does.
        if !(self.cfg.fast_retransmit && trigger) {
            return;
        }
        if self.recovery_allowed() && !self.board.is_empty() {
            self.enter_recovery(now, delivered_data, out);
        }
    }

    /// Whether a new recovery may start (RFC 6582's `recover`; Reno without SACK forgets).
    fn recovery_allowed(&self) -> bool {
        match (self.recover, self.caps.partial_ack_policy) {
            // Reno has no memory of earlier recoveries.
            (_, PartialAckPolicy::EndsRecovery) if !self.cfg.sack => true,
            (Some(r), _) if self.cfg.sack => self.snd_una >= r,
            (Some(r), _) => self.snd_una > r,
            (None, _) => true,
        }
    }

    /// What the controller is told was in flight at a loss: RFC 5681's FlightSize, or, in the
    /// Linux profile, cwnd, from which Linux's `ssthresh()` hooks compute (`tcp_reno_ssthresh`:
    /// cwnd / 2); the two part in a recovery soon after another, where cwnd is ssthresh and
    /// FlightSize still holds the previous window's data.
    fn loss_base(&self, flight_size: u64) -> u64 {
        match self.cfg.profile {
            Profile::Rfc => flight_size,
            Profile::Linux => self.window(),
        }
    }

    fn enter_recovery(&mut self, now: Instant, delivered_data: u64, out: &mut Vec<Packet>) {
        let mss = self.cfg.mss as u64;
        let flight_size = self.loss_base(self.snd_max - self.snd_una - self.limited_transmit_bytes);
        // Linux's PRR divides by the cwnd before the reduction (tp->prior_cwnd); RFC 6937 by
        // FlightSize.
        let recover_fs = match self.cfg.profile {
            Profile::Rfc => self.snd_max - self.snd_una,
            Profile::Linux => self.window(),
        };
        self.stats.fast_recoveries += 1;
        self.recover = Some(self.snd_max);
        let high_data = self.snd_max;
        let clock = self.clock(now);
        self.with_cc(now, |cc| cc.on_congestion(&CongestionEvent { now: clock, flight_size, high_data }));
        // Without SACK the dupthresh segments that left the network inflate the window.
        let inflation = if self.cfg.sack { 0 } else { (self.cfg.dupthresh as u64 * mss) as i64 };
        // RACK has marked what is lost already; else the first segment is the fast retransmission.
        if self.rack.is_none() {
            self.board.mark_lost(0);
        }
        let use_prr = self.cfg.sack && self.cfg.recovery == RecoveryWindow::Prr && !self.cc_state.sets_recovery_window;
        // The ACK that starts recovery counts as the first of PRR's.
        let prr = use_prr.then(|| {
            let mut prr = Prr::new(recover_fs);
            prr.on_ack(delivered_data, self.board.bytes_in_flight(), self.cc_state.ssthresh, mss);
            prr
        });
        let first_end = self.board.get(0).map_or(self.snd_una, |s| s.seq + s.len as u64);
        self.recovery = Some(Recovery {
            point: high_data,
            inflation,
            retransmitted_bytes: 0,
            partial_acks: 0,
            rescue_rxt: first_end,
            prr,
        });
        // The fast retransmission goes out whatever the window says (RFC 5681 3.2 step 2).
        self.retransmit_first_lost(now, out);
    }

    fn exit_recovery(&mut self, now: Instant, rec: Recovery) {
        self.recovery = None;
        let ev = RecoveryExitEvent {
            now: self.clock(now),
            retransmitted_bytes: rec.retransmitted_bytes,
            bytes_in_flight: self.board.bytes_in_flight(),
        };
        self.with_cc(now, |cc| cc.on_recovery_exit(&ev));
    }

    fn retransmit_first_lost(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if let Some(idx) = self.board.next_lost() {
            self.send_segment(now, Some(idx), out);
        }
    }

    /// The retransmission timer expired.
    pub fn on_rto_timer(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.probe_deadline.is_some_and(|d| d <= now) && self.state == State::Established {
            self.probe_deadline = None;
            match self.probe {
                Probe::Tail => {
                    self.send_probe(now, out);
                    self.arm_probe(now, None);
                }
                Probe::Reorder => self.reorder_timeout(now, out),
            }
            return;
        }
        if self.rto_deadline.is_none_or(|d| d > now) {
            return;
        }
        match self.state {
            State::SynSent => {
                self.syn_retransmitted = true;
                self.stats.timeouts += 1;
                self.rtt.back_off();
                self.send_syn(now, out);
            }
            State::Established if !self.board.is_empty() => {
                self.stats.timeouts += 1;
                self.consecutive_rtos += 1;
                let ev = RtoEvent {
                    now: self.clock(now),
                    flight_size: self.loss_base(self.snd_max - self.snd_una),
                    consecutive: self.consecutive_rtos,
                };
                self.with_cc(now, |cc| cc.on_rto(&ev));
                self.rtt.back_off();
                self.board.mark_all_lost();
                self.rate.on_timeout(self.board.lost_total());
                self.recovery = None;
                self.dupacks = 0;
                self.recover = Some(self.snd_max);
                self.tlp_high = None;
                self.probe_deadline = None;
                self.next_send_at = now;
                // RFC 6298 5.4: retransmit the earliest unacknowledged segment now.
                self.retransmit_first_lost(now, out);
                self.rto_deadline = Some(now + self.rtt.rto());
                self.try_send(now, out);
            }
            _ => self.rto_deadline = None,
        }
    }

    pub fn on_pacing_timer(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
            self.try_send(now, out);
        }
    }

    /// RFC 6675 NextSeg (section 4); rules 3 and 4 only in SACK recovery, where it is defined.
    fn next_seg(&mut self) -> Option<NextSeg> {
        if let Some(idx) = self.board.next_lost() {
            return Some(NextSeg::Retransmit(idx));
        }
        if self.snd_max < self.size {
            return Some(NextSeg::New);
        }
        // Linux has neither rule: RACK and the tail loss probe find those losses.
        let rec = self.recovery.filter(|_| self.cfg.sack && self.rack.is_none())?;
        if let Some(idx) = self.board.next_rule3() {
            return Some(NextSeg::Retransmit(idx));
        }
        // Rule 4: "If HighACK is greater than RescueRxt": HighACK = SND.UNA - 1 and RescueRxt is
        // the last byte of a segment, so SND.UNA must lie beyond the segment's end.
        if self.snd_una > rec.rescue_rxt {
            return self.board.highest_unsacked().map(NextSeg::Rescue);
        }
        None
    }

    /// Sends whatever the window, the receiver window, pacing and the application allow.
    fn try_send(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if self.state != State::Established {
            return;
        }
        let mss = self.cfg.mss as u64;
        // Segments of the current paced burst still to go out at once (Linux profile).
        let mut burst = 0;
        loop {
            let Some(next) = self.next_seg() else {
                self.rate.check_app_limited(self.board.bytes_in_flight(), self.window(), false);
                return;
            };
            let (retransmit, len) = match next {
                NextSeg::Retransmit(idx) | NextSeg::Rescue(idx) => {
                    (Some(idx), self.board.get(idx).map_or(0, |s| s.len as u64))
                }
                NextSeg::New => (None, mss.min(self.size - self.snd_max)),
            };
            let window = self.window();
            // RFC 3042 limited transmit: one new segment for each of the first two duplicate ACKs,
            // as long as FlightSize stays within cwnd + 2 SMSS. It is measured on FlightSize, not
            // on the in-flight count: with SACK that count already drops by the segment each
            // duplicate ACK reports, and allowing both would send two segments per duplicate ACK.
            let limited_transmit = self.cfg.limited_transmit
                && self.recovery.is_none()
                && retransmit.is_none()
                && self.dupacks > 0
                && self.snd_max + len - self.snd_una <= window + self.dupacks.min(2) as u64 * mss;
            let within_window = match self.cfg.profile {
                Profile::Rfc => self.board.bytes_in_flight() + len <= window,
                // Linux counts the window in packets (`tcp_cwnd_test`: packets in flight below
                // snd_cwnd), so a short segment takes a whole segment of it. Only the last
                // segment of a transfer is short, so the bytes in flight round up to packets.
                Profile::Linux => (self.board.bytes_in_flight().div_ceil(mss) + 1) * mss <= window,
            };
            if !within_window && !limited_transmit {
                self.window_blocked_at = Some(now);
                return;
            }
            if retransmit.is_none() && self.snd_max + len - self.snd_una > self.rwnd {
                return;
            }
            if self.cc_state.pacing_rate.is_some() && now < self.next_send_at && burst == 0 {
                self.pace_deadline = Some(self.next_send_at);
                return;
            }
            if retransmit.is_none() && self.dupacks > 0 && self.recovery.is_none() {
                self.limited_transmit_bytes += len;
            }
            if let (NextSeg::Rescue(_), Some(rec)) = (next, self.recovery.as_mut()) {
                // Once per recovery. RFC 6675 leaves HighRxt alone here; in segment form only this
                // segment is marked retransmitted, so those below it stay open to rule 3.
                rec.rescue_rxt = rec.point;
            }
            self.send_segment(now, retransmit, out);
            if let (Profile::Linux, Some(rate)) = (self.cfg.profile, self.cc_state.pacing_rate) {
                burst = if burst == 0 { tso_segments(rate, mss) - 1 } else { burst - 1 };
            }
        }
    }

    /// Sends a retransmission of segment `lost`, or the next new segment.
    fn send_segment(&mut self, now: Instant, lost: Option<usize>, out: &mut Vec<Packet>) {
        let clock = self.clock(now);
        let tx = self.rate.on_sent(now, self.board.is_empty());
        let (seq, len, retransmission) = match lost {
            Some(idx) => {
                let s = self.board.get(idx).copied().expect("lost segment exists");
                self.board.on_retransmit(idx, clock, tx);
                self.stats.retransmissions += 1;
                self.stats.bytes_retransmitted += s.len as u64;
                if let Some(r) = self.recovery.as_mut() {
                    r.retransmitted_bytes += s.len as u64;
                }
                (s.seq, s.len, true)
            }
            None => {
                let seq = self.snd_max;
                let len = (self.cfg.mss as u64).min(self.size - seq) as u32;
                self.board.push_new(seq, len, clock, tx);
                self.snd_max += len as u64;
                (seq, len, false)
            }
        };
        if let Some(prr) = self.recovery.as_mut().and_then(|r| r.prr.as_mut()) {
            prr.on_sent(len as u64);
        }
        let mark = if self.caps.observes_sends { self.cc.segment_mark(seq) } else { 0 };
        self.stats.segments_sent += 1;
        if self.caps.observes_sends {
            let bytes_in_flight = self.board.bytes_in_flight();
            let app_limited = self.rate.is_app_limited();
            self.with_cc(now, |cc| {
                cc.on_sent(&SentEvent {
                    now: clock,
                    seq,
                    len,
                    is_retransmission: retransmission,
                    bytes_in_flight,
                    app_limited,
                })
            });
        } else {
            // The controller is as it was, but the sender's window may not be (PRR, inflation).
            self.check_window(now);
            let state = self.window_state();
            self.milestones.observe(now, state, state);
        }
        // The pacing rate counts payload bytes, as Linux's departure-time pacing does
        // (`tcp_update_skb_after_send` spaces skbs by their payload length): rate-based
        // controllers measure delivery in payload bytes, so the two agree.
        // No gap after a connection's first `unpaced_segments` data segments (Linux: 10).
        let paced = self.stats.segments_sent >= self.cfg.unpaced_segments as u64;
        if let Some(rate) = self.cc_state.pacing_rate.filter(|_| paced) {
            let gap = Duration::from_secs_f64(len as f64 / rate);
            self.next_send_at = self.next_send_at.max(now) + gap;
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        // Built here, at the push, rather than before the controller's callbacks (which change
        // nothing it reads): held across them, it was built on the stack and copied, 27
        // instructions a segment, where now its fields are stored into the output directly.
        out.push(
            Packet {
                flow: self.flow,
                kind: PacketKind::Data,
                seq,
                len,
                ack: 0,
                rwnd: self.cfg.rcv_buf,
                retransmission,
                mark,
                ..Packet::default()
            }
            .with_ts(self.cfg.timestamps.then_some((clock.0, self.peer_tsval))),
        );
    }

    /// Frees the scoreboard's storage once the transfer is over, so a run with thousands of
    /// finished flows holds no per-segment memory for them.
    pub fn release_buffers(&mut self) {
        debug_assert!(self.is_done());
        self.board = Scoreboard::new(self.cfg.mss, self.caps.uses_rate_samples);
    }

    fn finish(&mut self, now: Instant) {
        self.state = State::Done;
        self.stats.done_at = Some(now);
        self.rto_deadline = None;
        self.pace_deadline = None;
        self.probe_deadline = None;
    }

    /// Runs a controller callback, checks the window it left and tells the milestones.
    fn with_cc(&mut self, now: Instant, f: impl FnOnce(&mut dyn CongestionControl)) {
        let before = self.window_state();
        f(self.cc.as_mut());
        self.cc_state = self.cc.state();
        self.check_window(now);
        self.milestones.observe(now, before, self.window_state());
    }

    fn window_state(&self) -> WindowState {
        WindowState { window: self.window(), slow_start: self.cc_state.in_slow_start }
    }

    /// The controller's window and pacing rate are ones the sender can obey.
    fn check_window(&mut self, now: Instant) {
        if self.cc_state.cwnd < self.cfg.mss as u64
            || self.cc_state.pacing_rate.is_some_and(|r| !(r.is_finite() && r > 0.0))
        {
            self.stats.invalid_windows += 1;
            self.invalid_window(now);
        }
    }

    #[cold]
    #[inline(never)]
    fn invalid_window(&mut self, now: Instant) {
        let (mss, cwnd) = (self.cfg.mss, self.cc_state.cwnd);
        let v = match self.cc_state.pacing_rate {
            Some(r) if !(r.is_finite() && r > 0.0) => {
                ("pacing rate", format!("{} set a pacing rate of {r} B/s", self.cc.name()))
            }
            _ => ("window", format!("{} set cwnd to {cwnd} B, below one segment ({mss} B)", self.cc.name())),
        };
        if let Some(failure) = self.cc.take_failure() {
            let e = ControllerError { algorithm: self.cc.name(), flow: self.flow, failure };
            self.violation.get_or_insert(Stopped::Controller(Box::new(e)));
        }
        self.violation.get_or_insert_with(|| Violation::new(v.0, Some(self.flow), now, v.1).into());
    }

    /// The scoreboard's byte counts against the sequence space, after an ACK. Each outstanding
    /// byte is SACKed or has copies in flight, one plus at most one per retransmission of it, so
    /// `in_flight + sacked` is bounded by the outstanding bytes plus every byte ever retransmitted:
    /// loose, but it holds by construction and catches a count that went below zero and wrapped.
    fn check_scoreboard(&mut self, now: Instant) {
        let outstanding = self.snd_max.checked_sub(self.snd_una);
        let (flight, sacked) = (self.board.bytes_in_flight(), self.board.sacked_bytes());
        let bound = outstanding.map(|o| o + self.stats.bytes_retransmitted);
        let empty_but_counted = self.board.is_empty() && (flight | sacked) != 0;
        if bound.is_none_or(|b| flight.checked_add(sacked).is_none_or(|total| total > b)) || empty_but_counted {
            self.scoreboard_broken(now, flight, sacked);
        }
    }

    #[cold]
    #[inline(never)]
    fn scoreboard_broken(&mut self, now: Instant, flight: u64, sacked: u64) {
        let detail = format!(
            "{flight} B in flight and {sacked} B SACKed, with SND.UNA {} and SND.MAX {} ({} B retransmitted, {} segments held)",
            self.snd_una,
            self.snd_max,
            self.stats.bytes_retransmitted,
            if self.board.is_empty() { "no" } else { "some" },
        );
        self.violation.get_or_insert_with(|| Violation::new("scoreboard", Some(self.flow), now, detail).into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender() -> Sender {
        let s =
            crate::scenario::from_json(r#"{"network": {"rate": "10Mbps", "rtt": "40ms"}, "flows": [{"size": "1MB"}]}"#)
                .unwrap();
        let f = &s.flows[0];
        let cfg = tcpstart_cc::CcConfig { mss: 1460, initial_cwnd: 14_600, initial_ssthresh: u64::MAX };
        let cc = tcpstart_cc::registry::build(&f.algorithm, &f.params, &cfg).unwrap();
        Sender::new(3, f.tcp.clone(), cc, f.size, Milestones::new(0))
    }

    #[test]
    fn a_scoreboard_that_disagrees_with_the_sequence_space_is_a_violation() {
        let mut s = sender();
        let mut out = Vec::new();
        s.send_segment(Instant(1_000), None, &mut out);
        s.check_scoreboard(Instant(1_000));
        assert!(s.violation.is_none(), "one segment of 1460 B in flight, SND.MAX 1460");
        // Fabricated: the segment sent is forgotten by the sequence space, not by the scoreboard.
        s.snd_max = 0;
        s.check_scoreboard(Instant(2_000));
        let Some(Stopped::Broken(v)) = s.violation else { panic!("1460 B in flight with nothing outstanding") };
        assert_eq!((v.invariant, v.flow, v.at), ("scoreboard", Some(3), Instant(2_000)));
        assert!(v.detail.starts_with("1460 B in flight and 0 B SACKed, with SND.UNA 0 and SND.MAX 0"), "{}", v.detail);
    }
}
