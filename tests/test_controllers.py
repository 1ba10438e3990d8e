"""Controllers written in Python: ports of NewReno and Jump Start give the Rust modules' results
bit for bit, parameters are checked like the built-in ones, and a controller that fails stops
the run with an error naming the algorithm, the flow, the time and the callback."""

from __future__ import annotations

import copy
import json
import runpy
import traceback
from pathlib import Path
from typing import Any

import pytest

import tcpstart as ts
from tcpstart.scenario import read_scenario_file

ROOT = Path(__file__).resolve().parent.parent
PORTS = runpy.run_path(str(ROOT / "examples/controllers/ports.py"))
ts.register(PORTS["NewReno"])
ts.register(PORTS["JumpStart"])


def renamed(d: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The scenario with algorithm `old` replaced by `new`, where the scenario or a flow names it."""
    d = copy.deepcopy(d)
    if d.get("algorithm") == old:
        d["algorithm"] = new
    for f in d["flows"]:
        if f.get("algorithm", d.get("algorithm", "newreno")) == old:
            f["algorithm"] = new
    return d


def scenario(**network: Any) -> dict[str, Any]:
    return {"seed": 3, "network": {"rate": "20Mbps", "rtt": "60ms", **network}, "flows": []}


def same_runs(d: dict[str, Any], rust: str, python: str) -> None:
    """Runs the scenario with the Rust algorithm and with its Python port: identical summaries
    (but for the algorithm's name) and identical traces."""
    a, b = ts.run(d), ts.run(renamed(d, rust, python))
    assert python in [f["algorithm"] for f in b.raw_summary["flows"]]
    # The name appears as a value (flows) and as a key (classes).
    assert json.dumps(b.raw_summary).replace(f'"{python}"', f'"{rust}"') == json.dumps(a.raw_summary)
    assert b.flows.equals(a.flows), "flow traces differ"
    assert b.queues.equals(a.queues), "queue traces differ"


def newreno_cases() -> dict[str, dict[str, Any]]:
    no_sack = scenario(queue="10pkt")
    no_sack["tcp"] = {"sack": False, "delayed_ack": True}
    no_sack["flows"] = [{"algorithm": "newreno", "size": "500KB", "params": {"abc": 2}, "start": f"{i * 30}ms"} for i in range(3)]
    rto = scenario(loss=0.05, queue="20pkt")
    rto["flows"] = [{"algorithm": "newreno", "size": "1MB", "params": {"abc": 0}}]
    return {
        "dumbbell-newreno": read_scenario_file(ROOT / "scenarios/dumbbell-newreno.toml"),
        "lossy-link": read_scenario_file(ROOT / "scenarios/lossy-link.toml"),
        "two-flows-shared": read_scenario_file(ROOT / "scenarios/two-flows-shared.toml"),
        "no-sack-abc2-three-flows": no_sack,
        "timeouts-abc0": rto,
    }


def jump_start_cases() -> dict[str, dict[str, Any]]:
    single = read_scenario_file(ROOT / "scenarios/jump-start-single.toml")
    overflow = copy.deepcopy(single)
    overflow["flows"][0]["size"] = 1000 * 1460  # D far beyond the 60-packet queue: losses in the jump
    within_iw = copy.deepcopy(single)
    within_iw["flows"][0]["size"] = 2 * 1460
    within_iw["flows"][0]["params"] = {"unpaced_within_iw": 1}
    lossy = scenario(loss=0.01)
    lossy["flows"] = [{"algorithm": "jump-start", "size": "2MB"}]
    shared = scenario(queue="30pkt")
    shared["tcp"] = {"sack": False}
    shared["flows"] = [{"algorithm": "jump-start", "size": "300KB", "start": f"{i * 50}ms"} for i in range(2)]
    return {"single": single, "losses-in-the-jump": overflow, "unpaced-within-iw": within_iw, "lossy": lossy, "shared-no-sack": shared}


@pytest.mark.parametrize("name", list(newreno_cases()))
def test_python_newreno_is_bit_identical_to_rust(name: str) -> None:
    same_runs(newreno_cases()[name], "newreno", "py-newreno")


@pytest.mark.parametrize("name", list(jump_start_cases()))
def test_python_jump_start_is_bit_identical_to_rust(name: str) -> None:
    same_runs(jump_start_cases()[name], "jump-start", "py-jump-start")


def test_the_cases_exercise_recovery_timeouts_and_the_jump() -> None:
    """The comparisons above mean something only if the runs go through every callback."""
    lossy = ts.run(renamed(newreno_cases()["timeouts-abc0"], "newreno", "py-newreno")).raw_summary["flows"][0]
    assert lossy["timeouts"] > 0 and lossy["retransmissions"] > 0
    jump = ts.run(renamed(jump_start_cases()["losses-in-the-jump"], "jump-start", "py-jump-start"))
    assert jump.raw_summary["flows"][0]["retransmissions"] > 0
    assert {"jump", "recovery", "congestion_avoidance"} <= set(jump.flows["phase"].to_list())


def flow_of(algorithm: str, **params: Any) -> dict[str, Any]:
    d = scenario(queue="1bdp")
    d["flows"] = [{"algorithm": algorithm, "size": "300KB", "params": params}]
    return d


def test_registered_algorithms_are_listed_with_their_parameters() -> None:
    listed = {a["name"]: a for a in ts.algorithms()}
    (abc,) = listed["py-newreno"]["params"]
    assert (abc["name"], abc["default"], abc["min"], abc["max"], abc["integer"]) == ("abc", 1.0, 0.0, 64.0, True)
    assert listed["py-newreno"]["summary"].startswith("NewReno (RFC 6582) in Python")


def test_parameters_are_checked_like_the_built_in_ones() -> None:
    with pytest.raises(ts.ScenarioError, match=r"flows\[0\]\.params\.abc: must be an integer in \[0, 64\], got 100"):
        ts.run(flow_of("py-newreno", abc=100))
    with pytest.raises(ts.ScenarioError, match=r"flows\[0\]\.params\.beta: unknown parameter of py-newreno"):
        ts.run(flow_of("py-newreno", beta=1))


def test_a_built_in_name_cannot_be_taken() -> None:
    class Impostor(PORTS["NewReno"]):  # type: ignore[misc, valid-type]
        name = "newreno"

    with pytest.raises(ValueError, match="newreno: is a built-in algorithm"):
        ts.register(Impostor)


class Failing(ts.Controller):
    """Fails on its fifth ACK in the way `how` says."""

    name = "py-failing"
    how = ts.Param(0, min=0, max=4, integer=True, doc="0 raises, 1 NaN, 2 zero, 3 negative, 4 fine")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.acks = 0

    def on_ack(self, ev: Any) -> None:
        self.acks += 1
        if self.acks == 5:
            self.break_it()

    def break_it(self) -> None:
        if self.how == 0:
            self.cwnd = self.cwnd // 0
        self.cwnd = [float("nan"), 0, -1460, self.cwnd][self.how - 1]

    def on_congestion(self, ev: Any) -> None:
        self.cwnd = self.ssthresh = max(ev.flight_size // 2, 2 * self.mss)

    def on_rto(self, ev: Any) -> None:
        self.cwnd = self.mss


ts.register(Failing)


def test_an_exception_names_algorithm_flow_time_and_callback_with_the_users_traceback() -> None:
    with pytest.raises(ts.ControllerError) as caught:
        ts.run(flow_of("py-failing", how=0))
    message = str(caught.value)
    assert message.startswith("algorithm 'py-failing' failed in flow 0 at 0.")
    assert message.endswith(" s, in on_ack: ZeroDivisionError: integer division or modulo by zero")
    cause = caught.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    frames = [f.name for f in traceback.extract_tb(cause.__traceback__)]
    assert frames[-2:] == ["on_ack", "break_it"]


@pytest.mark.parametrize(
    ("how", "says"),
    [
        (1, "cwnd must be a whole number of bytes from 0, got nan"),
        (2, "cwnd must be at least one segment (1460 B), got 0"),
        (3, "cwnd must be a whole number of bytes from 0, got -1460"),
    ],
)
def test_an_invalid_window_is_named_the_same_way(how: int, says: str) -> None:
    with pytest.raises(ts.ControllerError) as caught:
        ts.run(flow_of("py-failing", how=how))
    assert str(caught.value).endswith(f", in on_ack: ValueError: {says}")
    assert "flow 0" in str(caught.value)


def test_a_controller_that_does_not_fail_runs() -> None:
    summary = ts.run(flow_of("py-failing", how=4)).raw_summary["flows"][0]
    assert summary["completion_time"] is not None and summary["bytes_acked"] == 300_000


def test_a_constructor_that_raises_is_named_too() -> None:
    class NoInit(ts.Controller):
        name = "py-no-init"

        def __init__(self, *args: Any) -> None:
            raise RuntimeError("no window for you")

    ts.register(NoInit)
    with pytest.raises(ts.ControllerError, match=r"'py-no-init' failed in flow 0 at 0\.000000000 s, in __init__: RuntimeError: no window for you"):
        ts.run(flow_of("py-no-init"))


def test_a_python_algorithm_runs_in_a_sweep(tmp_path: Path) -> None:
    base = flow_of("newreno")
    sweep = ts.Sweep(base, {"flows[0].algorithm": ["newreno", "py-newreno"]}, out=tmp_path / "sweep")
    sweep.run()
    table = sweep.results()
    by_algorithm = dict(zip(table["algorithm"].to_list(), table["completion_time"].to_list()))
    assert by_algorithm["py-newreno"] == by_algorithm["newreno"]


def test_the_command_line_loads_controllers_and_shows_their_errors(cli: Any, tmp_path: Path) -> None:
    own = tmp_path / "own.py"
    own.write_text(
        "import runpy, tcpstart as ts\n"
        f"ports = runpy.run_path({str(ROOT / 'examples/controllers/ports.py')!r})\n"
        "class Cli(ports['NewReno']):\n"
        "    name = 'py-cli'\n"
        "class Broken(ports['NewReno']):\n"
        "    name = 'py-cli-broken'\n"
        "    def on_congestion(self, ev):\n"
        "        raise KeyError('no recovery here')\n"
        "ts.register(Cli)\n"
        "ts.register(Broken)\n"
    )
    status, out, err = cli("--controllers", own, "compare", "--algos", "newreno,py-cli", "--size", "300KB", "--out", tmp_path / "c")
    assert status == 0, err
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.split()[:1] in (["newreno"], ["py-cli"])}
    assert rows["py-cli"] == rows["newreno"], out
    status, out, err = cli("--controllers", own, "compare", "--algos", "py-cli-broken", "--size", "2MB", "--queue", "10pkt")
    assert status == 2
    assert "in on_congestion\n    raise KeyError('no recovery here')" in err
    assert err.strip().splitlines()[-1].startswith("tcpstart: error: algorithm 'py-cli-broken' failed in flow 0 at ")
    assert cli("--controllers", tmp_path / "missing.py", "algorithms") == (2, "", f"tcpstart: error: --controllers: no such file: {tmp_path / 'missing.py'}\n")
