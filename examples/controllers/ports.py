"""Python ports of two built-in algorithms, line for line: NewReno (crates/tcpstart-cc/src/reno.rs)
and Jump Start (jump_start.rs). The tests run them beside the Rust modules and require identical
summaries and traces (tests/test_controllers.py); docs/performance.md times the NewReno port."""

from __future__ import annotations

from typing import Any, Optional

import tcpstart as ts


class NewReno(ts.Controller):
    """NewReno (RFC 6582) in Python: the window arithmetic of reno.rs."""

    name = "py-newreno"
    abc = ts.Param(1, min=0, max=64, integer=True, doc="byte-counting limit L in segments per ACK (RFC 3465)")

    def __init__(self, params: dict[str, Any], mss: int, initial_cwnd: int, initial_ssthresh: int) -> None:
        super().__init__(params, mss, initial_cwnd, initial_ssthresh)
        self.bytes_acked_in_ca = 0
        self.in_recovery = False
        self.phase = self.current_phase()

    def current_phase(self) -> str:
        if self.in_recovery:
            return "recovery"
        return "slow_start" if self.cwnd < self.ssthresh else "congestion_avoidance"

    def set_window(self, cwnd: int, ssthresh: int) -> None:
        self.cwnd = max(cwnd, self.mss)
        self.ssthresh = max(ssthresh, 2 * self.mss)
        self.bytes_acked_in_ca = 0

    def halved(self, flight_size: int) -> int:
        return max(flight_size // 2, 2 * self.mss)

    def slow_start(self, bytes_acked: int) -> int:
        increment = bytes_acked if self.abc == 0 else min(bytes_acked, self.abc * self.mss)
        grow = min(increment, max(self.ssthresh - self.cwnd, 0))
        self.cwnd += grow
        return bytes_acked - grow if grow < increment else 0

    def congestion_avoidance(self, bytes_acked: int) -> None:
        if self.abc == 1:
            self.cwnd += max(self.mss * self.mss // self.cwnd, 1)
        else:
            self.bytes_acked_in_ca += bytes_acked
            per = max(self.cwnd, 1)
            self.cwnd += self.bytes_acked_in_ca // per * self.mss
            self.bytes_acked_in_ca %= per

    def on_ack(self, ev: Any) -> None:
        bytes_acked = ev.bytes_acked
        if not self.in_recovery and bytes_acked:
            usable = bytes_acked if ev.cwnd_limited else 0
            leftover = self.slow_start(usable) if self.cwnd < self.ssthresh else usable
            if self.cwnd >= self.ssthresh and leftover > 0:
                self.congestion_avoidance(leftover)
        self.phase = self.current_phase()

    def on_congestion(self, ev: Any) -> None:
        self.ssthresh = self.halved(ev.flight_size)
        self.cwnd = self.ssthresh
        self.bytes_acked_in_ca = 0
        self.in_recovery = True
        self.phase = "recovery"

    def on_recovery_exit(self, ev: Any) -> None:
        if self.in_recovery:
            self.cwnd = self.ssthresh
            self.in_recovery = False
        self.phase = self.current_phase()

    def on_rto(self, ev: Any) -> None:
        if ev.consecutive <= 1:
            fresh = self.halved(ev.flight_size)
            self.ssthresh = min(self.ssthresh, fresh) if self.in_recovery else fresh
        self.cwnd = self.mss
        self.bytes_acked_in_ca = 0
        self.in_recovery = False
        self.phase = self.current_phase()


class JumpStart(NewReno):
    """Jump Start (Liu et al., PFLDnet 2007) in Python: jump_start.rs over the NewReno port."""

    name = "py-jump-start"
    unpaced_within_iw = ts.Param(0, min=0, max=1, integer=True, doc="1 = no pacing when D fits in the initial window")

    def __init__(self, params: dict[str, Any], mss: int, initial_cwnd: int, initial_ssthresh: int) -> None:
        super().__init__(params, mss, initial_cwnd, initial_ssthresh)
        self.initial_cwnd = max(initial_cwnd, mss)
        self.state = "handshake"
        self.jump_bytes = 0
        self.jump_rate: Optional[float] = None
        self.jump_sent = 0
        self.jump_end_seq = 0
        self.snd_una = 0
        self.jump_loss_pending = True
        self.in_jump_recovery = False

    def show(self) -> None:
        """Sets the outputs that depend on the jump's state."""
        jumping = self.state == "jump"
        self.pacing_rate = self.jump_rate if jumping else None
        self.phase = "jump" if jumping else self.current_phase()

    def end_jump(self) -> None:
        if self.state == "jump":
            self.state = "normal"
            cwnd = max(self.jump_sent, self.initial_cwnd)
            self.set_window(cwnd, cwnd)

    def on_established(self, ev: Any) -> None:
        if self.state != "handshake":
            return
        self.state = "normal"
        rtt = ev.handshake_rtt
        if rtt:
            queued, rwnd = ev.queued_bytes, ev.rwnd
            jump_bytes = queued if queued <= rwnd else max(rwnd // self.mss, 1) * self.mss
            if jump_bytes:
                self.state = "jump"
                self.jump_bytes = jump_bytes
                unpaced = self.unpaced_within_iw == 1 and jump_bytes <= self.initial_cwnd
                self.jump_rate = None if unpaced else float(jump_bytes) / rtt
                # The window in whole segments, as the kernel counts it (ceil(D / MSS) segments).
                window = -(-jump_bytes // self.mss) * self.mss
                self.set_window(max(window, self.initial_cwnd), self.ssthresh)
        self.show()

    def on_sent(self, ev: Any) -> None:
        if self.state != "jump" or ev.is_retransmission:
            return
        self.jump_sent += ev.len
        self.jump_end_seq = max(self.jump_end_seq, ev.seq + ev.len)
        if self.jump_sent >= self.jump_bytes:
            self.end_jump()
        self.show()

    def on_ack(self, ev: Any) -> None:
        self.end_jump()
        self.snd_una = ev.snd_una
        super().on_ack(ev)
        self.show()

    def on_congestion(self, ev: Any) -> None:
        self.end_jump()
        self.in_jump_recovery = self.jump_loss_pending and self.snd_una < self.jump_end_seq
        self.jump_loss_pending = False
        super().on_congestion(ev)
        self.show()

    def on_recovery_exit(self, ev: Any) -> None:
        super().on_recovery_exit(ev)
        if self.in_jump_recovery:
            self.in_jump_recovery = False
            cwnd = max(max(self.jump_sent - ev.retransmitted_bytes, 0) // 2, 2 * self.mss)
            self.set_window(cwnd, cwnd)
        self.show()

    def on_rto(self, ev: Any) -> None:
        self.end_jump()
        self.in_jump_recovery = False
        self.jump_loss_pending = False
        super().on_rto(ev)
        self.show()
