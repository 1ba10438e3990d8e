"""tcpstart's start-up algorithms as BPF congestion controls on the kernel testbed: the plan
(anywhere), and kernel runs against the simulator (root, a kernel with BTF and BPF struct_ops,
clang, bpftool and libbpf; skipped with the reason otherwise).

The kernel checks compare the median of several runs with the simulator, with tolerances wider
than the run-to-run spread measured on the development machine (docs/testbed.md, "BPF").
"""

from __future__ import annotations

import os
from statistics import median

import polars as pl
import pytest

import tcpstart as ts
from tcpstart.kernel import bpfcc, requirements
from tcpstart.kernel.plan import make_plan
from tcpstart.scenario import ScenarioError, validate


def scenario(algorithm: str, size: str, rate: str = "10Mbps", rtt: str = "40ms", queue: str = "1bdp",
             params: dict | None = None, **tcp) -> dict:
    return {
        "network": {"rate": rate, "rtt": rtt, "queue": queue},
        "tcp": {"mss": 1448, "rto_min": "200ms", "delack_timeout": "40ms", "quickack": 16, **tcp},
        "flows": [{"algorithm": algorithm, "size": size, **({"params": params} if params else {})}],
    }


def test_a_machine_without_bpf_refuses_in_one_line_naming_the_flow(monkeypatch):
    monkeypatch.setattr(bpfcc, "missing", lambda: "it needs clang to build (apt-get install clang)")
    with pytest.raises(ScenarioError) as e:
        make_plan(validate(scenario("jump-start", "100KB")))
    assert str(e.value) == (
        "flows[0].algorithm: 'jump-start' runs on the kernel as BPF, and it needs clang to build (apt-get install clang)"
    )


@pytest.mark.skipif(bpfcc.missing() is not None, reason=f"no BPF: {bpfcc.missing()}")
def test_the_plan_carries_the_parameters_in_the_objects_order_with_the_registrations_defaults():
    plan = make_plan(validate(scenario("jump-start", "100KB", params={"abc": 0})))
    # jump_start.bpf.c: index 0 unpaced_within_iw (default 0), 1 abc.
    assert plan.flows[0].bpf_params == (0.0, 0.0)
    assert make_plan(validate(scenario("jump-start", "100KB"))).flows[0].bpf_params == (0.0, 1.0)
    # The receiver advertises its buffer from the SYN-ACK on (the kernel caps it at 65,535 bytes).
    assert "initrwnd 11050 " in plan.hosts[0].route  # the 16 MB default buffer in segments
    assert plan.hosts[0].sysctls(receiver=False)["net.ipv4.tcp_pacing_ss_ratio"] == "100"


def test_each_run_names_its_copy_of_the_object(tmp_path):
    obj = tmp_path / "a.o"
    obj.write_bytes(b"\x7fELF.." + bpfcc.PLACEHOLDER + b"\0..")
    name = bpfcc.run_name(3)
    assert bpfcc.NAME.match(name) and len(name) <= 15
    copy = bpfcc.named_copy(obj, name, tmp_path / "b.o").read_bytes()
    assert copy == b"\x7fELF.." + name.encode().ljust(15, b"\0") + b"\0.."
    obj.write_bytes(b"no placeholder")
    with pytest.raises(OSError, match="placeholder"):
        bpfcc.named_copy(obj, name, tmp_path / "c.o")


def first_rtt_window(result) -> int:
    """Bytes in flight before the first ACK of data: what the sender sent in its first round trip."""
    f = result.flows.filter(pl.col("flow") == 0)
    return int(f.filter(pl.col("delivered") == 0)["inflight"].max())


def completion(result) -> float:
    return result.raw_summary["flows"][0]["completion_time"]


kernel = pytest.mark.skipif(
    requirements() is not None or bpfcc.missing() is not None,
    reason=f"kernel BPF testbed unavailable: {requirements() or bpfcc.missing()}",
)

# Per algorithm, scenarios whose kernel runs repeat within a few percent. Window scaling off makes
# the simulator's SYN-ACK window the kernel's (65,535 bytes unscaled: 45 segments).
CASES = [
    ("jump-start", scenario("jump-start", "60KB", rtt="100ms")),
    ("jump-start", scenario("jump-start", "300KB", window_scaling=False)),
]


@kernel
@pytest.mark.parametrize("algorithm, d", CASES, ids=[f"{a}-{d['flows'][0]['size']}" for a, d in CASES])
def test_kernel_runs_match_the_simulator(algorithm, d):
    runs = ts.testbed(d, runs=3)
    assert bpfcc.registered() == [] or not any(n.startswith(f"tcpst{os.getpid()}_") for n in bpfcc.registered())
    sim = ts.run(d)
    kernel_times = [completion(r) for r in runs]
    typical = median(kernel_times)
    assert completion(sim) == pytest.approx(typical, rel=0.05), (completion(sim), kernel_times)
    windows = sorted(first_rtt_window(r) for r in runs)
    assert first_rtt_window(sim) == pytest.approx(windows[1], rel=0.10), (first_rtt_window(sim), windows)
