"""The testbed's delay line: when each packet is written back (no kernel needed: a fake clock).

With a spacing rate (Swift Start and Modified Swift Start flows), no two data packets of a host
pair are written closer than their serialisation time at that rate, as a link delivers them,
whatever the batch they were read in or the lateness of the loop that writes them; and that
spacing never makes the delay line slower than the link it follows.
"""

from __future__ import annotations

from tcpstart.kernel.delayline import Delays, Release

RATE = 50e6
US = 1000
FRAME = 1500  # IP bytes
SER = round(FRAME * 8e9 / RATE)  # 240 us at 50 Mbps
DELAY = 10_000 * US


def packet(forward: bool = True, length: int = FRAME, tag: int = 0) -> bytes:
    """An IPv4 header as the delay line reads it (sender 10.1.0.1 or receiver 10.2.0.1 as
    source), `tag` in the identification field to tell packets apart."""
    src = (10, 1, 0, 1) if forward else (10, 2, 0, 1)
    dst = (10, 2, 0, 1) if forward else (10, 1, 0, 1)
    return bytes([0x45, 0, length >> 8, length & 0xFF, tag >> 8, tag & 0xFF, 0, 0, 64, 6, 0, 0, *src, *dst])


def release(spacing_rate: float | None = RATE * 1.05) -> Release:
    return Release(Delays({"forward_delay_ns": DELAY, "reverse_delay_ns": DELAY, "access_delay_ns": [0],
                           "rate_bps": RATE, "reverse_rate_bps": RATE, "spacing_rate_bps": spacing_rate}))


def drain(r: Release, latency: int = 0) -> list[tuple[int, int]]:
    """Writes every packet as a loop would that wakes `latency` after each due time: (tag,
    write time) in write order."""
    out = []
    while (due := r.next_due()) is not None:
        now = due + latency
        while (got := r.pop(now)) is not None:
            out.append(((got[1][4] << 8) | got[1][5], now))
    return out


def gaps(writes: list[tuple[int, int]]) -> list[int]:
    return [b[1] - a[1] for a, b in zip(writes, writes[1:])]


def test_a_pair_read_in_one_batch_leaves_spaced():
    r = release()
    r.add(packet(tag=1), 0)
    r.add(packet(tag=2), 0)  # both were waiting in the TUN device when the loop woke
    writes = drain(r)
    assert [t for t, _ in writes] == [1, 2]
    assert gaps(writes) == [round(SER / 1.05)], "1 / 1.05 of the frame's serialisation time"


def test_without_spacing_a_batch_leaves_back_to_back():
    r = release(spacing_rate=None)
    r.add(packet(tag=1), 0)
    r.add(packet(tag=2), 0)
    assert gaps(drain(r)) == [0]


def test_acks_are_not_spaced():
    r = release()
    r.add(packet(forward=False, length=52, tag=1), 0)
    r.add(packet(forward=False, length=52, tag=2), 0)
    assert gaps(drain(r)) == [0]


def test_a_late_first_packet_does_not_bring_the_second_closer():
    r = release()
    r.add(packet(tag=1), 0)
    r.add(packet(tag=2), SER)
    first_at = r.next_due() + 200 * US  # the loop wrote the first 200 us late
    assert r.pop(first_at) is not None
    spacing = round(SER / 1.05)
    assert r.pop(first_at + spacing - 1) is None, "the second was due 40 us after the first went"
    assert r.pop(first_at + spacing) is not None


def test_pairs_stay_spaced_when_the_loop_wakes_late():
    # The initial window's four segments, read in one batch, each written late: Modified Swift
    # Start's pairs are segments 1-2 and 3-4.
    r = release()
    for n in range(1, 5):
        r.add(packet(tag=n), 0)
    writes = drain(r, latency=3 * SER)
    assert [t for t, _ in writes] == [1, 2, 3, 4]
    assert min(gaps(writes)) >= round(SER / 1.05)


def test_a_late_second_packet_holds_the_third():
    r = release()
    for n in range(1, 4):
        r.add(packet(tag=n), (n - 1) * SER)
    first = r.next_due()
    assert r.pop(first) is not None
    second = r.next_due()
    assert r.pop(second + 170 * US) is not None  # written 170 us late
    third_at = r.next_due()
    assert third_at == second + 170 * US + round(SER / 1.05), "spaced from the late write, not from when it was due"


def test_wake_up_latency_does_not_slow_a_saturated_link():
    r = release()
    n = 400
    for i in range(n):
        r.add(packet(tag=i), i * SER)  # the bottleneck sends one frame every serialisation time
    writes = drain(r, latency=65 * US)
    assert [t for t, _ in writes] == list(range(n))
    # The last packet leaves within its due time plus a few wake-ups, not 400 x 65 us behind.
    last_due = (n - 1) * SER + DELAY + SER
    assert writes[-1][1] - last_due < 4 * 65 * US
