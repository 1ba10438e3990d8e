"""The receiver-side hook of Python controllers: segments marked by the sender's controller reach
a Python `Receiver`, whose answers ride back on ACKs as `receiver_echo`; a receiver that fails
stops the run naming the algorithm, the flow, the time and the callback."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any, Optional

import polars as pl
import pytest

import tcpstart as ts

ROOT = Path(__file__).resolve().parent.parent
NewReno = runpy.run_path(str(ROOT / "examples/controllers/ports.py"))["NewReno"]
ts.register(NewReno)

FIRST, SECOND = 1, 2
MSS = 1460
# What the controllers of the latest run heard back: (pair's first sequence number, echo).
ECHOES: list[tuple[int, int]] = []


class PairGap(ts.Receiver):
    """The arrival gap (ns) of a marked packet pair, as Modified Swift Start's receiver measures
    it (crates/tcpstart-cc/src/modified_swift_start.rs, PairGapHook), plus the pair's start."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.first: Optional[tuple[int, float]] = None

    def on_segment(self, seg: Any) -> Optional[int]:
        if seg.mark == FIRST:
            self.first = (seg.seq, seg.now)
            return None
        if seg.mark == SECOND and self.first is not None:
            start, at = self.first
            self.first = None
            # The pair's start in the high bits, its gap in nanoseconds in the low 32.
            return start << 32 | round((seg.now - at) * 1e9)
        return None


class PairedNewReno(NewReno):
    """NewReno that marks its first `pairs` segment pairs and keeps what the receiver echoes."""

    name = "py-paired-newreno"
    receiver = PairGap
    pairs = ts.Param(8, min=0, max=1000, integer=True, doc="segment pairs to mark")

    def segment_mark(self, seq: int) -> int:
        index = seq // self.mss
        if index >= 2 * self.pairs:
            return 0
        return FIRST if index % 2 == 0 else SECOND

    def on_ack(self, ev: Any) -> None:
        if ev.receiver_echo is not None:
            ECHOES.append((ev.receiver_echo >> 32, ev.receiver_echo & 0xFFFFFFFF))
        super().on_ack(ev)


ts.register(PairedNewReno)


def _scenario(algorithm: str, **params: Any) -> dict[str, Any]:
    return {
        "seed": 4,
            "network": {"rate": "10Mbps", "rtt": "80ms"},
        "tcp": {"delayed_ack": False, "mss": MSS},
        "flows": [{"algorithm": algorithm, "size": "200KB", "params": params}],
        "trace": {"packets": True},
    }


def test_marked_pairs_are_timed_at_the_receiver_and_echoed_to_the_sender() -> None:
    ECHOES.clear()
    result = ts.run(_scenario("py-paired-newreno", pairs=8))
    # The receiver's arrivals, from the packet trace: each pair's gap, independently.
    arrivals = result.packets.filter((pl.col("event") == "arrive") & (pl.col("len") > 0)).sort("t")
    at = dict(zip(arrivals["seq"].to_list(), arrivals["t"].to_list()))
    expected = [(2 * i * MSS, round((at[(2 * i + 1) * MSS] - at[2 * i * MSS]) * 1e9)) for i in range(8)]
    assert sorted(ECHOES) == expected
    assert all(gap > 0 for _, gap in ECHOES)


def test_a_receiver_that_echoes_nothing_changes_nothing() -> None:
    # Echoes do change timing: the option makes the ACKs that carry one larger.
    plain = ts.run(_scenario("py-newreno")).raw_summary["flows"][0]
    unmarked = ts.run(_scenario("py-paired-newreno", pairs=0)).raw_summary["flows"][0]
    assert {**unmarked, "algorithm": "py-newreno", "class": "py-newreno"} == plain


class Broken(PairGap):
    def on_segment(self, seg: Any) -> Optional[int]:
        if seg.mark == SECOND:
            return self.how()
        return None

    def how(self) -> Any:
        return [lambda: 1 // 0, lambda: -1, lambda: "soon"][int(self.mode)]()


class BrokenPairs(PairedNewReno):
    name = "py-broken-pairs"
    receiver = Broken
    mode = ts.Param(0, min=0, max=2, integer=True, doc="how the receiver fails")


ts.register(BrokenPairs)


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        (0, "ZeroDivisionError: integer division or modulo by zero"),
        (1, "ValueError: on_segment must return None or a whole number from 0, got -1"),
        (2, "ValueError: on_segment must return None or a whole number from 0, got soon"),
    ],
)
def test_a_failing_receiver_stops_the_run_naming_where(mode: int, says: str) -> None:
    with pytest.raises(ts.ControllerError) as caught:
        ts.run(_scenario("py-broken-pairs", mode=mode))
    message = str(caught.value)
    assert message.startswith("algorithm 'py-broken-pairs' failed in flow 0 at 0."), message
    assert message.endswith(f" s, in Receiver.on_segment: {says}"), message


def test_a_receiver_that_is_not_a_receiver_class_is_refused() -> None:
    class Odd(NewReno):
        name = "py-odd-receiver"
        receiver = PairGap.on_segment  # type: ignore[assignment]

    with pytest.raises(ValueError, match=r"^Odd\.receiver: must be a subclass of tcpstart\.Receiver or None"):
        ts.register(Odd)
