"""Congestion controllers written in Python: subclass `Controller`, `register` it, name it.

    class FixedWindow(ts.Controller):
        "A window of `segments` segments, whatever happens."
        name = "fixed"
        segments = ts.Param(10, min=1, max=1000, integer=True, doc="window in segments")

        def on_ack(self, ev):
            self.cwnd = self.segments * self.mss

    ts.register(FixedWindow)
    ts.run(ts.Scenario(network=..., flows=[ts.Flow("fixed", params={"segments": 20})]))

A registered controller is an algorithm like the built-in ones: scenarios, `compare`, sweeps
and `ts.algorithms()` know its name, and its parameters are checked against their ranges. The
callbacks and their events are those of the Rust `CongestionControl` trait
(crates/tcpstart-cc/src/controller.rs, events.rs); docs/tutorial-own-algorithm.md walks through one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from tcpstart import _core

if TYPE_CHECKING:
    from tcpstart._core import (
        AckEvent,
        CongestionEvent,
        EstablishedEvent,
        RecoveryExitEvent,
        RtoEvent,
        SegmentArrival,
        SentEvent,
    )

# A Python controller failed: the message names the algorithm, the flow, the simulated time and
# the callback, and the controller's own exception (with its traceback) is the __cause__.
ControllerError = _core.ControllerError


@dataclass(frozen=True)
class Param:
    """A tunable parameter of a Controller, declared as a class attribute. Scenarios set it in
    `params = {...}`; validation checks it lies in [min, max] (and is whole when `integer`), and
    the controller reads it as an attribute of the same name (an int when `integer`)."""

    default: float
    min: float = float("-inf")
    max: float = float("inf")
    integer: bool = False
    doc: str = ""


class Receiver:
    """The receiver-side part of a Python algorithm, for schemes that measure something where the
    data arrives and echo it to the sender (Modified Swift Start times a marked packet pair).

    Set it as the controller's `receiver` class attribute. The receiver of each flow is built
    with the flow's parameters (as attributes, like the controller's) and sees every arriving
    data segment in `on_segment`; a number it returns rides on the next ACK the receiver sends
    and reaches the sender's controller as `AckEvent.receiver_echo` (the last one wins when
    several segments return one before an ACK leaves). The sender's controller marks segments
    with `Controller.segment_mark`; the receiver reads the mark as `seg.mark`. An exception, or
    a return that is not None or a whole number from 0, stops the run with a ControllerError.
    """

    def __init__(self, params: dict[str, Any]) -> None:
        for key, value in params.items():
            setattr(self, key, value)

    def on_segment(self, seg: SegmentArrival) -> Optional[int]:
        """A data segment arrived (seg.now, seg.seq, seg.len, seg.mark); returns the value to
        echo on the next ACK, or None."""
        return None


class Controller:
    """Base class of congestion controllers written in Python.

    Set `name` (the algorithm's name in scenarios), declare parameters as `Param` class
    attributes, and override the callbacks you need; each gets one event object (fields as in
    the Rust events: sizes in bytes, times in seconds). After every callback the simulator
    reads `cwnd` and `ssthresh` (bytes), `pacing_rate` (bytes per second, or None for no
    pacing) and `phase` (a short name shown in traces). A window below one segment, NaN or
    negative, or an exception, stops the run with a ControllerError.

    Class attributes the simulator reads once per flow: `partial_ack_ends_recovery` (True:
    Reno's recovery, any new ACK ends it; False: NewReno's), `uses_rate_samples` (True: `on_ack`
    events carry `rate`, a delivery-rate sample; off by default, it costs time), `receiver` (a
    `Receiver` subclass: the algorithm's receiver-side part, if it has one). `on_sent` and
    `segment_mark` are called only when a subclass overrides them.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    partial_ack_ends_recovery: ClassVar[bool] = False
    uses_rate_samples: ClassVar[bool] = False
    receiver: ClassVar[Optional[type[Receiver]]] = None

    def __init__(self, params: dict[str, Any], mss: int, initial_cwnd: int, initial_ssthresh: int) -> None:
        for key, value in params.items():
            setattr(self, key, value)
        self.mss = mss
        self.initial_cwnd = initial_cwnd
        self.cwnd: int = max(initial_cwnd, mss)
        # 2**64 - 1: no threshold yet.
        self.ssthresh: int = initial_ssthresh
        self.pacing_rate: Optional[float] = None
        self.phase = "slow_start"

    @property
    def observes_sends(self) -> bool:
        """Whether `on_sent` is overridden: only then is it called, once per segment sent."""
        return type(self).on_sent is not Controller.on_sent

    @property
    def marks_segments(self) -> bool:
        """Whether `segment_mark` is overridden: only then is it called, once per segment sent."""
        return type(self).segment_mark is not Controller.segment_mark

    def on_established(self, ev: EstablishedEvent) -> None:
        """The handshake completed (ev.handshake_rtt, ev.queued_bytes, ev.rwnd)."""

    def on_sent(self, ev: SentEvent) -> None:
        """A data segment left (ev.seq, ev.len, ev.is_retransmission, ev.bytes_in_flight)."""

    def segment_mark(self, seq: int) -> int:
        """A mark (0 to 255; 0: none) for the data segment starting at byte `seq`, about to be
        sent: what the `receiver` reads as `seg.mark` (a packet pair's first and second, say)."""
        return 0

    def on_ack(self, ev: AckEvent) -> None:
        """An ACK arrived, duplicates included (ev.bytes_acked, ev.rtt_sample, ev.in_recovery, ...)."""
        raise NotImplementedError(f"{type(self).__name__} must define on_ack")

    def on_congestion(self, ev: CongestionEvent) -> None:
        """Loss detected by duplicate ACKs or SACK: fast recovery begins (ev.flight_size)."""
        raise NotImplementedError(f"{type(self).__name__} must define on_congestion")

    def on_recovery_exit(self, ev: RecoveryExitEvent) -> None:
        """Fast recovery ended (ev.retransmitted_bytes)."""

    def on_rto(self, ev: RtoEvent) -> None:
        """The retransmission timer expired (ev.flight_size, ev.consecutive)."""
        raise NotImplementedError(f"{type(self).__name__} must define on_rto")


def params_of(cls: type) -> dict[str, Param]:
    """The Param class attributes of a Controller subclass and its bases, by name."""
    found: dict[str, Param] = {}
    for klass in reversed(cls.__mro__):
        found.update({k: v for k, v in vars(klass).items() if isinstance(v, Param)})
    return found


# The classes registered in this process, by name: what the Ray backend ships to its workers.
_registered: dict[str, type[Controller]] = {}


def registered() -> dict[str, type[Controller]]:
    """The Controller classes registered in this process, by name."""
    return dict(_registered)


def register(cls: type[Controller]) -> type[Controller]:
    """Registers a Controller subclass under its `name`, so scenarios can name it; registering a
    name again replaces the earlier class (the built-in names cannot be taken). Returns the class,
    so it also works as a decorator. Raises ValueError naming what is wrong."""
    if not (isinstance(cls, type) and issubclass(cls, Controller)):
        raise ValueError(f"register: expects a subclass of tcpstart.Controller, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str):
        raise ValueError(f"{cls.__name__}.name: must be the algorithm's name (a str), got {name!r}")
    summary = cls.summary or (cls.__doc__ or "").strip().split("\n")[0]
    reference = cls.reference or f"Python class {cls.__module__}.{cls.__qualname__}"
    specs = []
    for key, p in params_of(cls).items():
        try:
            bounds = (float(p.default), float(p.min), float(p.max))
        except (TypeError, ValueError):
            raise ValueError(f"{cls.__name__}.{key}: default, min and max must be numbers, got {p}") from None
        specs.append((key, *bounds, bool(p.integer), p.doc))
    receiver = cls.receiver
    if receiver is not None and not (isinstance(receiver, type) and issubclass(receiver, Receiver)):
        raise ValueError(f"{cls.__name__}.receiver: must be a subclass of tcpstart.Receiver or None, got {receiver!r}")
    _core.register_controller(name, summary, reference, specs, cls, receiver)
    _registered[name] = cls
    return cls
