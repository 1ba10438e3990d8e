"""pcap output: well-formed files that Wireshark's dissector reads without complaint."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import tcpstart as ts
from conftest import SCENARIOS

PCAP_MAGICS = {0xA1B2C3D4, 0xA1B23C4D}  # microsecond and nanosecond timestamps


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[ts.Result, Path]:
    result = ts.run(SCENARIOS / "pcap-example.toml")
    folder = tmp_path_factory.mktemp("pcap") / "res"
    result.save(folder)
    return result, folder


def test_pcap_files_have_a_pcap_header(capture) -> None:
    result, folder = capture
    assert set(result.pcaps) == {"bottleneck", "bottleneck_rev"}
    for link in result.pcaps:
        data = (folder / f"{link}.pcap").read_bytes()
        magic_le, magic_be = struct.unpack("<I", data[:4])[0], struct.unpack(">I", data[:4])[0]
        assert magic_le in PCAP_MAGICS or magic_be in PCAP_MAGICS
        assert len(data) > 24 + 16, "no packets captured"


def tshark(pcap: Path, *fields: str, display_filter: str | None = None) -> list[list[str]]:
    args = ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
    if display_filter:
        args += ["-Y", display_filter]
    for f in fields:
        args += ["-e", f]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [line.split("|") for line in proc.stdout.splitlines()]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (apt-get install tshark)")
def test_tshark_reads_the_capture(capture) -> None:
    result, folder = capture
    flow = result.raw_summary["flows"][0]
    size = flow["size"]
    assert flow["retransmissions"] > 0, "the example should overflow its queue"
    data, acks = folder / "bottleneck.pcap", folder / "bottleneck_rev.pcap"

    for pcap in (data, acks):
        assert tshark(pcap, "frame.number", display_filter="_ws.malformed || _ws.expert.severity >= error") == []

    rows = tshark(data, "tcp.flags.syn", "tcp.seq_raw", "tcp.len", "tcp.options.timestamp.tsval")
    syn = [r for r in rows if r[0] == "1"]
    segments = [(int(r[1]), int(r[2]), r[3]) for r in rows if r[2] not in ("", "0")]
    isn = int(syn[0][1]) if syn else min(s for s, _, _ in segments) - 1
    # Data starts right after the SYN's sequence number and reaches the end of the transfer.
    assert min(s for s, _, _ in segments) == isn + 1
    assert max(s + n for s, n, _ in segments) == isn + 1 + size
    # New data goes out in increasing order; what tshark sees as resent the sender counted as resent.
    resent = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order"
    fresh = [int(r[0]) for r in tshark(data, "tcp.seq_raw", display_filter=f"tcp.len > 0 && !({resent})")]
    assert fresh == sorted(set(fresh))
    again = tshark(data, "frame.number", display_filter=f"tcp.len > 0 && ({resent})")
    assert 0 < len(again) <= flow["retransmissions"]
    assert all(tsval for _, _, tsval in segments), "every data segment carries a timestamp"

    rows = tshark(acks, "tcp.ack_raw", "tcp.options.sack_le", "tcp.options.sack_re", "tcp.options.timestamp.tsecr")
    ack_numbers = [int(r[0]) for r in rows if r[0]]
    assert ack_numbers == sorted(ack_numbers), "cumulative ACKs never go back"
    assert ack_numbers[-1] >= isn + 1 + size
    sack_rows = [r for r in rows if r[1]]
    assert sack_rows, "losses should produce SACK blocks"
    for ack, left, right, _ in sack_rows:
        for le, re_ in zip(left.split(","), right.split(",")):
            # A SACK block covers data above the cumulative ACK.
            assert int(ack) < int(le) < int(re_) <= isn + 1 + size + 1
    assert all(tsecr for *_, tsecr in rows), "every ACK echoes a timestamp"
