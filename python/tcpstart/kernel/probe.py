"""Per-ACK sender state from the kernel's `tcp:tcp_probe` tracepoint, through a tracefs instance.

Each run gets its own instance (`/sys/kernel/tracing/instances/tcpst-<pid>-<run>`), so that its
buffer, clock (`mono`, the CLOCK_MONOTONIC of the senders' timestamps) and filter (the data
connections' own source ports) touch nothing else on the machine. The tracepoint fires at the
top of `tcp_rcv_established`: each record is the state *before* that ACK is processed, i.e.
after the previous one.
"""

from __future__ import annotations

import contextlib
import errno
import re
import time
from dataclasses import dataclass

from tcpstart.kernel.netns import TRACEFS, TestbedError

LINE = re.compile(
    r"\s(\d+\.\d+): tcp_probe: .*?src=[\d.]+:(\d+) .*?data_len=(\d+) snd_nxt=(0x[0-9a-f]+) "
    r"snd_una=(0x[0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+) snd_wnd=(\d+) srtt=(\d+)"
)


@dataclass
class ProbeRecord:
    t: float
    port: int
    data_len: int
    snd_nxt: int
    snd_una: int
    cwnd: int  # segments
    ssthresh: int  # segments; >= 0x7fffffff is "infinite"
    snd_wnd: int  # the receiver's advertised window, bytes
    srtt_us: int


def mount_tracefs() -> None:
    if not (TRACEFS / "instances").is_dir():
        TRACEFS.mkdir(parents=True, exist_ok=True)
        import subprocess

        p = subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], capture_output=True, text=True)
        if p.returncode != 0 or not (TRACEFS / "instances").is_dir():
            raise TestbedError(f"tracefs: cannot mount it at {TRACEFS}: {p.stderr.strip()}")


class Probe:
    def __init__(self, name: str, ports: list[int], buffer_kb: int = 16384) -> None:
        mount_tracefs()
        self.dir = TRACEFS / "instances" / name
        self.dir.mkdir()
        event = self.dir / "events" / "tcp" / "tcp_probe"
        if not event.is_dir():
            self.close()
            raise TestbedError("tcp_probe: this kernel has no tcp:tcp_probe tracepoint")
        (self.dir / "tracing_on").write_text("0")
        (self.dir / "trace_clock").write_text("mono")
        (self.dir / "buffer_size_kb").write_text(str(buffer_kb))
        (event / "filter").write_text(" || ".join(f"sport == {p}" for p in ports))
        (event / "enable").write_text("1")
        self.event = event

    def start(self) -> None:
        (self.dir / "tracing_on").write_text("1")

    def stop(self) -> list[ProbeRecord]:
        (self.dir / "tracing_on").write_text("0")
        text = (self.dir / "trace").read_text()
        lost = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", text)
        if lost and lost[1] != lost[2]:
            raise TestbedError(f"tcp_probe: the trace buffer overflowed ({lost[1]} of {lost[2]} records kept)")
        return parse(text)

    def close(self, patience: float = 30.0) -> None:
        """Removes the instance. The kernel refuses (EBUSY) while the instance is still in use;
        interrupted runs at a load average of 35 left theirs behind with 5 s of retries, so removal
        is retried for `patience` seconds (a free instance goes at the first try); what still
        remains is `netns.cleanup()`'s."""
        with contextlib.suppress(OSError):
            (self.dir / "tracing_on").write_text("0")
            if getattr(self, "event", None) is not None:
                (self.event / "enable").write_text("0")
        deadline = time.monotonic() + patience
        while True:
            try:
                self.dir.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as e:
                if e.errno != errno.EBUSY or time.monotonic() > deadline:
                    return
                time.sleep(0.05)


def parse(text: str) -> list[ProbeRecord]:
    out = []
    for m in LINE.finditer(text):
        out.append(
            ProbeRecord(
                t=float(m[1]),
                port=int(m[2]),
                data_len=int(m[3]),
                snd_nxt=int(m[4], 16),
                snd_una=int(m[5], 16),
                cwnd=int(m[6]),
                ssthresh=int(m[7]),
                snd_wnd=int(m[8]),
                srtt_us=int(m[9]),
            )
        )
    return out
