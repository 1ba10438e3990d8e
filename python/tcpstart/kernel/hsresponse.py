"""HighSpeed TCP's response function (RFC 3649 section 5) for the kernel's BPF HighSpeed, which
cannot take logarithms: a(w) and b(w) for every window of w segments, computed here from the
flow's parameters and written by the loader into the object's `hs_response` map.

The same formulas as crates/tcpstart-cc/src/highspeed.rs (`table = 0`): with Low_P = 1.5 /
Low_Window^2 and s(w) = log(w / Low_Window) / log(High_Window / Low_Window), w held within
[Low_Window, High_Window],
    p(w) = exp(s(w) log(High_P / Low_P) + log Low_P),
    b(w) = (High_Decrease - 0.5) s(w) + 0.5,
    a(w) = w^2 p(w) 2 b(w) / (2 - b(w)),
and a = 1, b = 0.5 at or below Low_Window (Reno).
"""

from __future__ import annotations

import math
import struct

ROWS = 65536  # highspeed.bpf.c HS_ROWS: windows up to 65,535 segments (95 MB of 1448 bytes)
MICRO = 1_000_000


def response(low_window: float, high_window: float, high_p: float, high_decrease: float):
    """(a, b): the increase in segments per window of ACKs and the decrease factor at w segments."""
    low_p = 1.5 / (low_window * low_window)

    def s(w: float) -> float:
        w = min(max(w, low_window), high_window)
        return math.log(w / low_window) / math.log(high_window / low_window)

    def b(w: float) -> float:
        return 0.5 if w <= low_window else (high_decrease - 0.5) * s(w) + 0.5

    def a(w: float) -> float:
        if w <= low_window:
            return 1.0
        w = min(w, high_window)
        p = math.exp(s(w) * math.log(high_p / low_p) + math.log(low_p))
        return w * w * p * 2 * b(w) / (2 - b(w))

    return a, b


def tables(params: dict[str, float]) -> dict[bytes, list[bytes]]:
    """The object's `hs_response` rows (struct hs_row: a and b in millionths) for these parameters."""
    a, b = response(params["low_window"], params["high_window"], params["high_p"], params["high_decrease"])
    return {b"hs_response": [struct.pack("II", round(a(w) * MICRO), round(b(w) * MICRO)) for w in range(ROWS)]}
