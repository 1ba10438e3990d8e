"""tcpstart's start-up algorithms as BPF congestion controls on the kernel testbed: the plan
(anywhere), and kernel runs against the simulator (root, a kernel with BTF and BPF struct_ops,
clang, bpftool and libbpf; skipped with the reason otherwise).

The kernel checks require the simulator's completion time to agree with at least two of five kernel
runs, so that one stray run does not decide (kernel_spread.py; docs/testbed.md, "BPF").
"""

from __future__ import annotations

import os

import pytest

import kernel_spread

from tcpstart.kernel import bpfcc, requirements
from tcpstart.kernel.plan import make_plan
from tcpstart.kernel.startups import CASES, compare_runs, figures, simulate
from tcpstart.scenario import ScenarioError, expanded


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
        make_plan(expanded(scenario("jump-start", "100KB")))
    assert str(e.value) == (
        "flows[0].algorithm: 'jump-start' runs on the kernel as BPF, and it needs clang to build (apt-get install clang)"
    )


@pytest.mark.skipif(bpfcc.missing() is not None, reason=f"no BPF: {bpfcc.missing()}")
def test_the_plan_carries_the_parameters_in_the_objects_order_with_the_registrations_defaults():
    plan = make_plan(expanded(scenario("jump-start", "100KB", params={"abc": 0})))
    # jump_start.bpf.c: index 0 unpaced_within_iw (default 0), 1 abc.
    assert plan.flows[0].bpf_params == (0.0, 0.0)
    assert make_plan(expanded(scenario("jump-start", "100KB"))).flows[0].bpf_params == (0.0, 1.0)
    # The receiver advertises its buffer from the SYN-ACK on (the kernel caps it at 65,535 bytes).
    assert "initrwnd 11050 " in plan.hosts[0].route  # the 16 MB default buffer in segments
    assert plan.hosts[0].sysctls(receiver=False)["net.ipv4.tcp_pacing_ss_ratio"] == "100"


@pytest.mark.skipif(bpfcc.missing() is not None, reason=f"no BPF: {bpfcc.missing()}")
def test_a_parameter_the_bpf_version_lacks_is_refused_unless_at_its_default():
    with pytest.raises(ScenarioError) as e:
        make_plan(expanded(scenario("ess", "100KB", params={"pacing_ss_ratio": 1})))
    assert str(e.value).startswith("flows[0].params.pacing_ss_ratio: the BPF version takes only rtt_limit, abc;")
    assert make_plan(expanded(scenario("ess", "100KB", params={"pacing_ss_ratio": 0}))).flows[0].bpf_params is not None


def test_highspeeds_table_holds_rfc_3649s_response_function():
    import struct

    from tcpstart.kernel.hsresponse import MICRO, ROWS, tables

    rows = tables({"low_window": 38, "high_window": 83000, "high_p": 1e-7, "high_decrease": 0.1})[b"hs_response"]
    assert len(rows) == ROWS

    def a_b(w: int) -> tuple[float, float]:
        a, b = struct.unpack("II", rows[w])
        return a / MICRO, b / MICRO

    # RFC 3649 section 5 and appendix B: a(w), b(w) at Low_Window and at w = 1058.
    assert a_b(38) == (1.0, 0.5) and a_b(10) == (1.0, 0.5)
    assert a_b(1058)[0] == pytest.approx(8.31, abs=0.01) and a_b(1058)[1] == pytest.approx(0.3269, abs=0.0005)
    # Increase grows and decrease shrinks with the window.
    assert a_b(39)[0] > 1.0 and a_b(5000)[0] > a_b(1058)[0] and a_b(5000)[1] < a_b(1058)[1]


@pytest.mark.skipif(bpfcc.missing() is not None, reason=f"no BPF: {bpfcc.missing()}")
def test_linuxs_highspeed_table_is_refused_on_the_kernel_in_one_line():
    with pytest.raises(ScenarioError) as e:
        make_plan(expanded(scenario("highspeed", "1MB", params={"table": 1})))
    assert str(e.value).startswith("flows[0].params.table: must be 0 on the kernel: ") and "\n" not in str(e.value)
    assert make_plan(expanded(scenario("highspeed", "1MB"))).flows[0].bpf_params[1] == 0.0


@pytest.mark.skipif(bpfcc.missing_for("modified-swift-start") is not None, reason="no BPF with cgroup v2")
def test_packet_pair_algorithms_get_a_bottleneck_that_spaces_every_frame():
    # One frame of 1448 + 52 bytes of headers and options, and 14 of Ethernet.
    for algorithm in ("swift-start", "modified-swift-start"):
        assert make_plan(expanded(scenario(algorithm, "1MB"))).peak_bytes == 1514
    assert make_plan(expanded(scenario("jump-start", "1MB"))).peak_bytes == 0


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


kernel = pytest.mark.skipif(
    requirements() is not None or bpfcc.missing() is not None,
    reason=f"kernel BPF testbed unavailable: {requirements() or bpfcc.missing()}",
)

# Comparison scenarios (tcpstart.kernel.startups) whose kernel runs repeat within about 2 % and
# where the simulator's Linux profile was within 1.3 % of the fastest of them on the development
# machine (docs/validation-linux-startups.md), each algorithm at least once; Swift Start's with
# the packet-pair bucket.
CI_CASES = [CASES["jump-start"][0], CASES["jump-start"][1], CASES["jump-start"][3], CASES["pacing-only"][0],
            CASES["swift-start"][0], CASES["modified-swift-start"][2], CASES["ess"][0], CASES["ess"][2],
            CASES["highspeed"][0]]


@kernel
@pytest.mark.parametrize("case", CI_CASES, ids=[f"{c.algorithm}-{c.rate}-{c.rtt}-{c.size}" for c in CI_CASES])
def test_kernel_runs_match_the_simulator(case):
    runs = kernel_spread.undisturbed(case.scenario())
    assert not any(n.startswith(f"tcpst{os.getpid()}_") for n in bpfcc.registered())
    kernel, sim = [figures(r) for r in runs], simulate(case)
    times = [k["completion"] for k in kernel]
    # With at least two of five kernel runs (kernel_spread.py).
    assert kernel_spread.agrees(sim["completion"], times, tolerance=0.05), (sim["completion"], kernel_spread.described(runs))
    windows = [k["first_rtt_window"] for k in kernel]
    assert abs(compare_runs(kernel, sim)["window_diff"]) <= 0.10, (sim["first_rtt_window"], windows)
