"""Ctrl-C stops every kind of run at once, leaving no output behind (issue 17, point 3).

Each test starts a run of minutes in a child process, waits until it is simulating, sends SIGINT
and times the exit. Before the core looked at signals, such a run went on to its end.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import IO

import pytest

# Minutes of simulation: B1 (1 Gbps, ten flows) for 20000 s.
LONG = """\
duration = "20000s"
[network]
rate = "1Gbps"
rtt = "20ms"
queue = "1bdp"
[[flows]]
algorithm = "newreno"
count = 10
"""

# Generous for a busy machine; an uninterruptible run takes minutes.
PROMPTLY = 1.0


def _start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], _Lines, _Lines]:
    """Starts `python ARGS`; returns it with its stdout and stderr lines."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # These runs are meant to be too long: raise the run-size limit that would refuse them.
        env={**os.environ, "TCPSTART_LIMITS": "packets=1e12"},
        # A child inherits an ignored SIGINT (tests started in a background job), and Python then
        # leaves it ignored: the child starts with the default, which Python turns into
        # KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    return proc, _Lines(proc.stdout), _Lines(proc.stderr)  # type: ignore[arg-type]


class _Lines:
    """The lines a child writes to one of its pipes, read as they come by a thread of their own."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        """Returns the first line from now on that holds `text`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} within {timeout} s; before: {self.seen}") from None
            self.seen.append(line)
            if text in line:
                return line


def _interrupt(proc: subprocess.Popen[str], says: _Lines, line: str) -> tuple[int, float]:
    """Sends SIGINT; returns the exit status and the seconds until the process said `line` (the
    moment it stopped: the exit after it is the interpreter's teardown, which takes seconds
    itself on a busy machine)."""
    try:
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        says.wait_for(line, timeout=30)
        took = time.monotonic() - sent
        return proc.wait(timeout=30), took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _no_output(folder: Path) -> None:
    """Nothing but the scenario in `folder`: no result folder, no temporary one."""
    assert sorted(p.name for p in folder.iterdir()) == ["long.toml"]


@pytest.fixture
def long_run(tmp_path: Path) -> Path:
    (tmp_path / "long.toml").write_text(LONG)
    return tmp_path


def _stopped_at_once(proc: subprocess.Popen[str], err: _Lines, folder: Path, promptly: float = PROMPTLY) -> None:
    status, took = _interrupt(proc, err, "tcpstart: interrupted")
    assert status == 130
    assert took < promptly, f"stopped {took:.2f} s after SIGINT"
    assert not any("Traceback" in line for line in err.seen)
    _no_output(folder)


def test_ctrl_c_stops_tcpstart_run_at_once(long_run: Path) -> None:
    proc, _, err = _start(["-m", "tcpstart", "run", "long.toml", "--out", "out"], long_run)
    # A run of minutes says so on stderr after its first second: it is simulating then.
    line = err.wait_for("this run will take about")
    assert line.startswith("tcpstart: long.toml: this run will take about ")
    _stopped_at_once(proc, err, long_run)


def test_ctrl_c_stops_tcpstart_compare_at_once(long_run: Path) -> None:
    args = ["--algos", "cubic,newreno", "--rate", "1Gbps", "--rtt", "20ms", "--size", "unlimited", "--duration", "20000s"]
    proc, _, err = _start(["-m", "tcpstart", "compare", *args, "--out", "out"], long_run)
    err.wait_for("tcpstart: compare: this will take about")
    _stopped_at_once(proc, err, long_run)


def test_ctrl_c_stops_tcpstart_reproduce_at_once(long_run: Path) -> None:
    # The full reproductions run for many minutes, mostly in run_many's worker threads.
    proc, out, err = _start(["-m", "tcpstart", "reproduce", "all", "--out", "out"], long_run)
    out.wait_for("ehstcp")  # the first paper
    time.sleep(2.0)
    # Its 2.5 Gbps runs are the largest any entry point interrupts. The simulations stop at
    # once; the worker threads then finish measuring the group of runs they hold, converting
    # summaries of thousands of web objects and flow tables. Those are built with the GIL
    # released (`Run.summary`, `Run.take_flows`), so the main thread sees the Ctrl-C and cleans
    # up between them; a conversion that held the GIL throughout would delay it by seconds.
    _stopped_at_once(proc, err, long_run)


# The Python API in a child process: prints what it was stopped by.
API = textwrap.dedent(
    """
    import sys
    import tcpstart as ts
    try:
        if sys.argv[1] == "run":
            ts.run("long.toml")
        else:
            print("simulating", flush=True)
            ts.run_many(["long.toml"] * 4, workers=2)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        sys.exit(7)
    """
)


@pytest.mark.parametrize("call", ["run", "run_many"])
def test_ctrl_c_raises_keyboard_interrupt_in_the_api_at_once(long_run: Path, call: str) -> None:
    proc, out, err = _start(["-c", API, call], long_run)
    if call == "run":
        err.wait_for("this run will take about")
    else:
        # run_many shows no per-run progress: its runs have started a second after it was called.
        out.wait_for("simulating")
        time.sleep(1.0)
    status, took = _interrupt(proc, out, "KeyboardInterrupt")
    assert status == 7, err.seen
    assert took < PROMPTLY, f"stopped {took:.2f} s after SIGINT"
    _no_output(long_run)


def test_a_run_under_a_second_shows_nothing(long_run: Path) -> None:
    from tcpstart import progress

    shown = progress.RunProgress("short")
    shown(0, 0.5, 1.0)
    assert (shown.shown, shown.bar) == (False, None)


def test_a_run_of_minutes_says_so_after_its_first_second(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tcpstart import progress

    clock = iter([100.0, 101.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    watch = progress.RunProgress("big.toml")
    # One simulated second in the first wall second of a 600 s run: 10 minutes.
    watch(0, 1.0, 600.0)
    err = capsys.readouterr().err
    assert err.startswith("tcpstart: big.toml: this run will take about 10 min (600 s simulated at 1 simulated s")
    assert watch.bar is None, "no bar when stderr is not a terminal"
