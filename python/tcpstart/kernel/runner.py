"""One scenario on the kernel: the network up, the delay line, trace and samplers started, the
transfers run, everything measured, and all of it removed again, whatever happens.

Teardown runs in `finally` with SIGINT and SIGTERM blocked, and SIGTERM is turned into an
exception while a run is in progress, so an interrupted run leaves no namespace, process or trace
instance behind; `netns.cleanup()` removes what a killed run (SIGKILL) could not.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from tcpstart.kernel import bpfcc, disturbance
from tcpstart.kernel.capture import Captures
from tcpstart.kernel.netns import Links, Network, TestbedError, netns_exec, sh
from tcpstart.kernel.plan import PEAK_OVER, Plan
from tcpstart.kernel.probe import Probe

READY_TIMEOUT = 15.0
# From telling the (started) senders the scenario's time 0 to that time.
START_MARGIN = 0.05


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the main thread while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(*_: object) -> None:
        raise KeyboardInterrupt("SIGTERM")

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """No SIGINT/SIGTERM while the block runs (they are delivered after): teardown completes."""
    mask = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, mask)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def links_of(plan: Plan) -> Links:
    tx_route, rx_route, tx_sys, rx_sys = [], [], [], []
    for h in plan.hosts:
        tx_route.append(h.route)
        rx_route.append(h.route + ("" if h.delayed_ack else " quickack 1"))
        tx_sys.append(h.sysctls(receiver=False))
        rx_sys.append(h.sysctls(receiver=True))
    return Links(
        hosts=len(plan.hosts),
        mtu=plan.mtu,
        forward_rate_bps=plan.kernel_rate(plan.rate_bps),
        reverse_rate_bps=plan.kernel_rate(plan.reverse_rate_bps),
        forward_queue=plan.kernel_queue(plan.queue),
        reverse_queue=plan.kernel_queue(plan.reverse_queue),
        burst_bytes=plan.burst_bytes,
        peak_bytes=plan.peak_bytes,
        peak_rate_bps=plan.kernel_rate(plan.rate_bps) * PEAK_OVER,
        tx_route=tx_route,
        rx_route=rx_route,
        tx_sysctls=tx_sys,
        rx_sysctls=rx_sys,
    )


def _python(
    ns: str | None, module: str, *args: str, stdout: Path | None = None, stderr: Path | None = None, stdin: Any = None,
    cgroup: str | None = None,
) -> subprocess.Popen:
    """`python -m module args` in a namespace (None: this one), with this interpreter and its import
    path; in `cgroup` when given (joined before `ip netns exec`, which mounts a sysfs of the
    namespace's own, without the cgroup tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    with contextlib.ExitStack() as files:
        out = files.enter_context(stdout.open("w")) if stdout else subprocess.DEVNULL
        err = files.enter_context(stderr.open("w")) if stderr else subprocess.DEVNULL
        command = [sys.executable, "-m", module, *args]
        if ns:
            command = netns_exec(ns, *command)
        if cgroup:
            command = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, *command]
        return subprocess.Popen(
            command, stdout=out, stderr=err, env=env,
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
        )


def _wait_for(path: Path, proc: subprocess.Popen, what: str, err: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while not path.exists():
        if proc.poll() is not None:
            raise TestbedError(f"{what} ended at start: {_last_line(err)}")
        if time.monotonic() > deadline:
            raise TestbedError(f"{what} did not start within {READY_TIMEOUT:g} s")
        time.sleep(0.01)


def _last_line(path: Path) -> str:
    try:
        lines = [x for x in path.read_text().splitlines() if x.strip()]
    except OSError:
        return "no output"
    return lines[-1] if lines else "no output"


def _write(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj))
    return path


def _qdisc_totals(ns: str) -> dict[str, int]:
    """Final counters of the root qdisc on the bottleneck veth."""
    for q in json.loads(sh(*netns_exec(ns, "tc", "-s", "-j", "qdisc", "show", "dev", "bn"))):
        if q.get("root"):
            return {k: int(q.get(k, 0)) for k in ("bytes", "packets", "drops")}
    return {"bytes": 0, "packets": 0, "drops": 0}


def ports_for(run_tag_number: int, flows: int) -> list[int]:
    """Source ports of this run's flows: distinct per process and run, so that the trace filter
    of one run never matches another's connections."""
    base = 20000 + ((os.getpid() * 31 + run_tag_number * 7) % 2000) * 20
    return [base + i for i in range(flows)]


class _Helpers:
    """The helper processes of one run, each started with a JSON config in the run's work folder."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.procs: list[subprocess.Popen] = []

    def start(self, ns: str | None, module: str, name: str, cfg: dict[str, Any], *args: str, stdout: bool = False,
              stdin: Any = None, ready: bool = False, cgroup: str | None = None) -> subprocess.Popen:
        """Starts `python -m module [args] CONFIG` in `ns`; with `ready`, waits until it says it is up
        (its config then names the file it creates)."""
        if ready:
            cfg = {**cfg, "ready": str(self.work / f"{name}.ready")}
        config = _write(self.work / f"{name}.cfg", cfg)
        err = self.work / f"{name}.err"
        p = _python(ns, module, *args, str(config), stdout=self.work / f"{name}.json" if stdout else None,
                    stderr=err, stdin=stdin, cgroup=cgroup)
        self.procs.append(p)
        if ready:
            _wait_for(self.work / f"{name}.ready", p, f"{module} ({name})", err)
        return p

    def stop(self, procs: list[subprocess.Popen]) -> None:
        """SIGTERM, then waits: the process writes what it measured on its way out."""
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=5)

    def kill_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            with contextlib.suppress(Exception):
                p.wait(timeout=10)

    def read(self, name: str) -> Any:
        return json.loads((self.work / f"{name}.json").read_text())


def _by_host(plan: Plan) -> dict[int, list]:
    """The flows of each host pair that has any."""
    out: dict[int, list] = {}
    for f in plan.flows:
        out.setdefault(f.host, []).append(f)
    return out


def run_once(plan: Plan, run: int) -> dict[str, Any]:
    """Runs the plan once; returns the raw measurements (see result.build)."""
    tag = f"tcpst-{os.getpid()}-{run}"
    ports = ports_for(run, len(plan.flows))
    for f, port in zip(plan.flows, ports):
        f.port = port
    work = Path(tempfile.mkdtemp(prefix=f"{tag}-"))
    net = Network(tag, len(plan.hosts))
    helpers = _Helpers(work)
    probe: Probe | None = None
    captures: Captures | None = None
    root = bpfcc.cgroup_root()
    cgroup = root / tag if root else None
    joins: str | None = None
    try:
        with sigterm_interrupts():
            if _register_bpf(plan, helpers, work, cgroup):
                joins = str(cgroup)
            with signals_blocked():
                net.up(links_of(plan))
            delay_cfg = {
                "tun": "dl",
                "forward_delay_ns": round(plan.delay_s * 1e9),
                "reverse_delay_ns": round(plan.delay_s * 1e9),
                "access_delay_ns": [round(a * 1e9) for a in plan.access_delay_s],
                "rate_bps": plan.rate_bps,
                "reverse_rate_bps": plan.reverse_rate_bps,
                # The data keep the pair bucket's spacing past the delay line (delayline.Delays.spacing).
                "spacing_rate_bps": plan.rate_bps * PEAK_OVER if plan.peak_bytes else None,
            }
            delays = [
                helpers.start(ns, "tcpstart.kernel.delayline", f"delay-{name}",
                              {**delay_cfg, "stats": str(work / f"delay-{name}.json")}, ready=True)
                for ns, name in ((net.r2, "fwd"), (net.r1, "rev"))
            ]
            with signals_blocked():  # an interrupt inside would leave its trace instance unowned
                probe = Probe(tag, ports)
            hosts = _by_host(plan)
            for h, mine in hosts.items():
                cfg = {"flows": [{"port": f.port, "size": f.size} for f in mine]}
                helpers.start(net.rx(h), "tcpstart.kernel.transfer", f"rx{h}", cfg, "receive", ready=True, cgroup=joins)
            samplers = [
                helpers.start(ns, "tcpstart.kernel.qstats", f"q{name}",
                              {"dev": "bn", "interval": plan.queue_interval, "out": str(work / f"q{name}.jsonl")})
                for ns, name in ((net.r1, "fwd"), (net.r2, "rev"))
            ]
            senders = []
            for h, mine in hosts.items():
                flows = [{"id": f.id, "port": f.port, "size": f.size, "start": f.start, "algorithm": f.kernel_algorithm,
                          "dst": f"10.2.{h}.1"} for f in mine]
                p = helpers.start(net.tx(h), "tcpstart.kernel.transfer", f"tx{h}", {"sample_every": 0.001, "flows": flows},
                                  "send", stdout=True, stdin=subprocess.PIPE, ready=True, cgroup=joins)
                senders.append((p, f"tx{h}"))
            captures = Captures(plan.pcap, net, work)
            probe.start()
            t0 = time.monotonic() + START_MARGIN
            cpu_before = disturbance.cpu_times()
            for p, _ in senders:
                assert p.stdin is not None
                p.stdin.write(f"{t0!r}\n".encode())
                p.stdin.close()
            _wait_for_senders(plan, senders, t0, work)
            end = time.monotonic()
            steal = disturbance.steal_share(cpu_before, disturbance.cpu_times())
            helpers.stop(samplers)
            records = probe.stop()
            totals = {"bottleneck": _qdisc_totals(net.r1), "bottleneck_rev": _qdisc_totals(net.r2)}
            helpers.stop(delays)
            pcaps = captures.stop()
            return {
                "pcaps": pcaps,
                "t0": t0,
                "end": end,
                "senders": [helpers.read(name) for _, name in senders],
                "records": records,
                "queues": {name: _read_samples(work / f"q{name}.jsonl") for name in ("fwd", "rev")},
                "totals": totals,
                "delay_line": _merged([helpers.read(f"delay-{n}") for n in ("fwd", "rev")]),
                "load": os.getloadavg(),
                "cpu_steal": steal,
            }
    finally:
        with signals_blocked():
            helpers.kill_all()
            if captures is not None:
                captures.kill()
            if probe is not None:
                probe.close()
            net.down()
            if joins:
                with contextlib.suppress(OSError):
                    Path(joins).rmdir()
            for f in work.iterdir():
                f.unlink()
            work.rmdir()


def _register_bpf(plan: Plan, helpers: _Helpers, work: Path, cgroup: Path | None) -> bool:
    """Registers the run's BPF algorithms under names of its own, one per distinct algorithm and
    parameters, and names them as the flows' kernel algorithms. The loader holds them until the
    run ends (kill_all), and the kernel removes them when it exits, however it exits. An
    algorithm with a sock_ops program gets it attached to `cgroup` (created here), which the
    run's senders and receivers join; returns whether it was created."""
    settings: dict[tuple[str, tuple[float, ...]], list] = {}
    for f in plan.flows:
        if f.bpf_params is not None:
            settings.setdefault((f.algorithm, f.bpf_params), []).append(f)
    if not settings:
        return False
    algorithms = []
    for k, ((algorithm, params), flows) in enumerate(settings.items()):
        name = bpfcc.run_name(k)
        obj = bpfcc.named_copy(bpfcc.build(algorithm), name, work / f"{name}.o")
        for f in flows:
            f.kernel_algorithm = name
        algorithms.append({"algorithm": algorithm, "object": str(obj), "params": list(params), "sizes": {str(f.port): f.size for f in flows},
                           "sock_ops": bpfcc.BPF_ALGORITHMS[algorithm].sock_ops})
    needs_cgroup = any(a["sock_ops"] for a in algorithms)
    if needs_cgroup:
        if cgroup is None:  # make_plan refuses such an algorithm without cgroup v2
            raise TestbedError("a sock_ops program needs cgroup v2 mounted")
        cgroup.mkdir()
    helpers.start(None, bpfcc.LOADER, "bpf", {"algorithms": algorithms, "cgroup": str(cgroup) if needs_cgroup else None},
                  ready=True)
    return needs_cgroup


def _wait_for_senders(plan: Plan, senders: list[tuple[subprocess.Popen, str]], t0: float, work: Path) -> None:
    deadline = t0 + _time_limit(plan)
    for p, name in senders:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise TestbedError(
                f"the transfers did not finish within {_time_limit(plan):.0f} s (scenario duration or "
                "ten times the ideal time)"
            ) from None
        if p.returncode != 0:
            raise TestbedError(f"a sender failed: {_last_line(work / f'{name}.err')}")


def _merged(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """The two delay lines' statistics as one: counts and CPU summed, lateness over all packets."""
    n = sum(s["forwarded"] for s in stats)
    out = {k: sum(s[k] for s in stats) for k in ("forwarded", "late_over_100us", "late_over_1ms", "cpu_user_s", "cpu_system_s")}
    out["mean_late_us"] = sum(s["mean_late_us"] * s["forwarded"] for s in stats) / n if n else 0.0
    out["max_late_us"] = max(s["max_late_us"] for s in stats)
    return out


def _time_limit(plan: Plan) -> float:
    if plan.duration:
        return plan.duration
    ideal = sum(f.size for f in plan.flows) * 8 / plan.rate_bps + max(f.start for f in plan.flows)
    return 10 * ideal + 20 * 2 * plan.delay_s + 30


def _read_samples(path: Path) -> list[list[float]]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return []

