"""The testbed's traffic: real sockets sending the scenario's finite transfers.

`python -m tcpstart.kernel.transfer receive CONFIG.json` runs in a receiver's namespace: it
accepts the connections of its host pair's flows and reads exactly each flow's size, then
closes. `... send CONFIG.json` runs in a sender's namespace: each flow waits for its start time
(CLOCK_MONOTONIC, the clock of the trace), sets its algorithm on the socket (TCP_CONGESTION, so
the namespace's default never matters), connects from its own port, sends its bytes and waits
for the receiver's close, so that the socket stays ESTABLISHED (and traced) until every byte is
acknowledged. A sender that shut its side down would leave the tail untraced: the `tcp_probe`
tracepoint fires in `tcp_rcv_established` only.

A sender's socket lingers 0 s (SO_LINGER): its close, at the end or when the process is ended,
aborts the connection (RST) and frees the socket at once. An orphaned socket would otherwise live
on in FIN-WAIT or LAST-ACK, retransmitting into a deleted namespace for minutes, and with it the
reference to its congestion control: the kernel frees an unregistered BPF algorithm's struct_ops
map only when the last socket using it is gone. By then every byte is acknowledged (the sender
waits for the receiver's close), so the abort loses nothing.

While a flow runs, a thread samples its TCP_INFO (and BBR's TCP_CC_INFO) every millisecond:
retransmissions, pacing rate, packets in flight and BBR's pacing gain, which `tcp_probe` does
not carry. The sender prints one JSON object per flow.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import threading
import time

from tcpstart.kernel.delayline import die_with_parent

PORT = 5201
TCP_CC_INFO = 26
# struct tcp_info (include/uapi/linux/tcp.h): byte offsets of the fields read here.
INFO = {
    "ca_state": (1, "B"),
    "unacked": (24, "I"),
    "sacked": (28, "I"),
    "lost": (32, "I"),
    "retrans": (36, "I"),
    "snd_cwnd": (80, "I"),
    "total_retrans": (100, "I"),
    "pacing_rate": (104, "Q"),
    "bytes_acked": (120, "Q"),
    "data_segs_out": (156, "I"),
    "delivered": (192, "I"),
    "total_rto": (240, "H"),
    "total_rto_recoveries": (242, "H"),
}
INFO_SIZE = 248
LINGER_ABORT = struct.pack("ii", 1, 0)  # struct linger {l_onoff = 1, l_linger = 0}: close sends RST


def tcp_info(s: socket.socket) -> dict[str, int]:
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, INFO_SIZE)
    return {k: struct.unpack_from("<" + f, raw, off)[0] for k, (off, f) in INFO.items() if off < len(raw)}


def bbr_pacing_gain(s: socket.socket) -> int | None:
    """BBR's pacing gain in units of 1/256 (tcp_bbr_info), or None for other algorithms."""
    raw = s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    return struct.unpack_from("<5I", raw)[3] if len(raw) >= 20 else None


def netstat() -> dict[str, int]:
    """The namespace's TCP counters (/proc/net/netstat, TcpExt) that the summary uses."""
    lines = open("/proc/net/netstat").read().splitlines()
    out: dict[str, int] = {}
    for head, values in zip(lines[::2], lines[1::2]):
        if head.startswith("TcpExt:"):
            out.update(zip(head.split()[1:], map(int, values.split()[1:])))
    return out


def receive(cfg: dict) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", PORT))
    listener.listen(len(cfg["flows"]) + 1)
    open(cfg["ready"], "w").close()
    sizes = {f["port"]: f["size"] for f in cfg["flows"]}

    def serve(conn: socket.socket, want: int) -> None:
        buf = bytearray(1 << 18)
        got = 0
        while got < want:
            n = conn.recv_into(buf)
            if n == 0:
                break
            got += n
        conn.close()

    threads = []
    for _ in sizes:
        conn, (_, port) = listener.accept()
        t = threading.Thread(target=serve, args=(conn, sizes[port]))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    listener.close()


def _send_flow(flow: dict, t0: float, sample_every: float, out: dict) -> None:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_ABORT)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, flow["algorithm"].encode())
    s.bind(("0.0.0.0", flow["port"]))
    data = memoryview(bytearray(flow["size"]))
    time.sleep(max(0.0, t0 + flow["start"] - time.monotonic()))
    samples: list[tuple] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(sample_every):
            try:
                i = tcp_info(s)
                gain = bbr_pacing_gain(s) if flow["algorithm"] == "bbr" else None
            except OSError:
                return
            inflight = i["unacked"] - i["sacked"] - i["lost"] + i["retrans"]
            samples.append((time.monotonic(), i["total_retrans"], i["pacing_rate"], inflight, gain, i["ca_state"]))

    syn = time.monotonic()
    s.connect((flow["dst"], PORT))
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    s.sendall(data)
    while s.recv(65536):
        pass
    eof = time.monotonic()
    done.set()
    sampler.join()
    info = tcp_info(s)
    s.close()
    out.update(id=flow["id"], syn=syn, eof=eof, info=info, samples=samples)


def send(cfg: dict) -> None:
    # Ready once the interpreter is up; the run's time 0 (CLOCK_MONOTONIC) comes on stdin, after
    # every sender is ready, so that no flow's start depends on how fast its process started.
    open(cfg["ready"], "w").close()
    t0 = float(sys.stdin.readline())
    results: list[dict] = [{} for _ in cfg["flows"]]
    threads = [
        threading.Thread(target=_send_flow, args=(f, t0, cfg["sample_every"], r))
        for f, r in zip(cfg["flows"], results)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"flows": results, "netstat": netstat()}))


def main() -> None:
    die_with_parent()
    # Real-time priority below the delay line's: under a load of compilers, a sender thread
    # otherwise waited up to 70 ms for a core between connect() and its first send.
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(40))
    except OSError:
        pass
    role, path = sys.argv[1], sys.argv[2]
    cfg = json.loads(open(path).read())
    {"send": send, "receive": receive}[role](cfg)


if __name__ == "__main__":
    main()
