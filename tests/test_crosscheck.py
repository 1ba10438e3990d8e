"""The ns-3 cross-check, quick subset: tcpstart must stay within 5% of ns-3 on these cases.

Needs ns-3 (`pip install ns3==3.44.post0`) and a C++ compiler; without them the ns-3 tests are
skipped with the reason. The full matrix and its report: `tcpstart crosscheck --docs docs` (docs/validation.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tcpstart.crosscheck import ns3build
from tcpstart.crosscheck.matrix import ALGORITHMS, MATRIX, QUICK, Case, ns3_args, tcpstart_scenario
from tcpstart.crosscheck.report import TOLERANCE, available_algorithms

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("TCPSTART_REPO", str(REPO))

AVAILABLE, WHY = ns3build.available()
needs_ns3 = pytest.mark.skipif(not AVAILABLE, reason=f"ns-3 cross-check skipped: {WHY}")

QUICK_CASES = [c for c in MATRIX if c.name in QUICK]
QUICK_ALGOS = [a for a in ALGORITHMS if a.label in ("NewReno", "LinuxReno")]


@needs_ns3
@pytest.mark.parametrize("algo", QUICK_ALGOS, ids=lambda a: a.label)
@pytest.mark.parametrize("case", QUICK_CASES, ids=lambda c: c.name)
def test_tcpstart_matches_ns3_within_tolerance(case: Case, algo) -> None:
    from tcpstart.crosscheck.runner import compare

    c = compare(case, algo)
    for name, diff in (("completion", c.completion_diff), ("goodput", c.goodput_diff)):
        if diff is not None:
            assert abs(diff) <= TOLERANCE, f"{case.name} {algo.label}: {name} differs by {diff:+.1%}"
    # Same drop-tail queue and the same ACK clock (both acknowledge the first data segment at once,
    # D1) give the same first congestion response, to within serialisation-time details (55 us
    # measured; acknowledging the first segment late put LinuxReno H's 3 ms later).
    assert c.tcpstart.first_loss_time is not None and c.ns3.first_loss_time is not None
    assert abs(c.tcpstart.first_loss_time - c.ns3.first_loss_time) < 1e-4


@needs_ns3
def test_report_has_a_table_per_algorithm_and_the_plots(tmp_path: Path) -> None:
    from tcpstart.crosscheck.report import run_matrix, write_report

    results = run_matrix([QUICK_CASES[0]], QUICK_ALGOS[:1])
    write_report(results, tmp_path / "validation.md", tmp_path / "validation", "tcpstart crosscheck --quick")
    text = (tmp_path / "validation.md").read_text()
    assert "### NewReno" in text and f"| {QUICK_CASES[0].name} |" in text
    assert "![NewReno" in text and (tmp_path / "validation" / "newreno.png").stat().st_size > 10_000


@needs_ns3
def test_a_lost_syn_is_retried_after_the_initial_rto_on_both_sides() -> None:
    """The second flow starts just after NewReno's slow start overflowed the queue, so its SYN is
    dropped (checked in tcpstart's packet table). tcpstart and Linux retry after 1 s; ns-3's default
    `TcpSocket::ConnTimeout` of 3 s put its flow 2 s behind (4.685 s against 2.636 s) before the
    cross-check set it to the initial RTO."""
    import tcpstart as ts
    from tcpstart.crosscheck.runner import run_ns3, run_tcpstart

    algo = ALGORITHMS[0]
    alone = Case("syn", 10, 100, 0.25, flows=1, size=1_000_000)
    scenario = tcpstart_scenario(alone, algo)
    scenario["trace"]["packets"] = True
    packets = ts.run(scenario).packets
    first_drop = packets.filter(packets["event"] == "drop")["t"].min()
    case = Case("syn", 10, 100, 0.25, flows=2, size=1_000_000, stagger=round(first_drop + 2e-4, 4))
    scenario = tcpstart_scenario(case, algo)
    scenario["trace"]["packets"] = True
    packets = ts.run(scenario).packets
    syn_drops = packets.filter((packets["flow"] == 1) & (packets["event"] == "drop") & (packets["len"] == 0))
    assert syn_drops.height == 1
    ours, theirs = run_tcpstart(case, algo), run_ns3(case, algo)
    assert ours.completion is not None and theirs.completion is not None
    assert abs(theirs.completion / ours.completion - 1) < 0.05, (ours.completion, theirs.completion)


def test_both_sides_get_the_same_knobs() -> None:
    case = next(c for c in MATRIX if c.delayed_ack and c.flows > 1)
    algo = ALGORITHMS[0]
    scn = tcpstart_scenario(case, algo)
    args = dict(a[2:].split("=", 1) for a in ns3_args(case, algo))
    assert scn["network"]["queue"] == f"{args['queue'][:-1]}pkt"
    assert scn["tcp"]["mss"] == int(args["mss"]) and scn["tcp"]["initial_window"] == int(args["iw"])
    assert scn["tcp"]["rto_min"] == args["minRto"] and scn["tcp"]["delack_timeout"] == args["delAckTimeout"]
    assert (scn["tcp"]["delack_count"], args["delAckCount"]) == (2, "2")
    # RFC 6675 recovery without PRR on both sides (D3); each side keeps its own timer rule (D4).
    assert (scn["tcp"]["recovery"], args["recovery"]) == ("rfc6675", "TcpClassicRecovery")
    assert scn["tcp"]["rto_restart"] == "every_ack"
    assert len(scn["flows"]) == int(args["flows"])
    # ns-3 adds a 2-byte PPP header to every 1512-byte data segment; its rate is scaled to match.
    assert int(args["rate"][:-3]) == round(case.rate_mbps * 1e6 * 1514 / 1512)


def test_ns3_bic_and_scalable_get_linux_constants() -> None:
    """ns-3's defaults SmoothPart 5 and AIFactor 50 depart from Linux's smooth_part 20 and
    TCP_SCALABLE_AI_CNT 100 (D9); the cross-check sets Linux's values."""
    case = MATRIX[0]
    attrs = {a.label: ns3_args(case, a) for a in ALGORITHMS}
    assert "--ns3::TcpBic::SmoothPart=20" in attrs["BIC"]
    assert "--ns3::TcpScalable::AIFactor=100" in attrs["Scalable"]


def test_missing_ns3_is_reported_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ns3build.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ns3build.Ns3Unavailable, match=r"pip install ns3==3\.44\.post0"):
        ns3build.build()


def test_crosscheck_command_without_ns3_exits_2_with_one_line(monkeypatch, capsys) -> None:
    from tcpstart.cli import main

    monkeypatch.setattr(ns3build.importlib.util, "find_spec", lambda name: None)
    assert main(["crosscheck", "--quick", "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcpstart: error: ") and "pip install ns3" in err and err.count("\n") == 1


def test_only_registered_algorithms_are_checked() -> None:
    from tcpstart import algorithms

    names = {a["name"] for a in algorithms()}
    assert all(a.tcpstart in names for a in available_algorithms(ALGORITHMS))
    assert {"NewReno", "LinuxReno"} <= {a.label for a in available_algorithms(ALGORITHMS)}
