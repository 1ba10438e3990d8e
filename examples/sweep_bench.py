"""The 10,000-run campaign of docs/campaigns.md: makespan, rerun, peak memory, Ray's overhead.

    python examples/sweep_bench.py [--runs 10000] [--ray] [--measure] [--memory 1000,10000,100000]

Each measurement runs in a child process of its own, so that its peak RSS is its own. The
campaign: single-flow 1 MB transfers over 20 Mbit/s with a 1-BDP queue and 0.05 % random loss,
RTT 10-200 ms (50 values) x 4 algorithms x (runs / 200) replications. `--measure` runs the same
scenarios the way a reproduction does (tcpstart.sweep.measure: a group per run, each Result
reduced by reading its time series where it was simulated), on local threads and, with
`--ray`, on a local Ray instance.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings


def campaign(runs: int, out: str):
    import tcpstart as ts

    base = ts.Scenario(network=ts.Dumbbell(rate="20Mbps", queue="1bdp", loss=0.0005), flows=[ts.Flow(size="1MB")])
    axes = {"network.rtt": ts.Range("10ms", "200ms", 50), "flows[0].algorithm": ["cubic", "newreno", "bbr", "jump-start"]}
    return ts.Sweep(base, axes, replications=max(1, runs // 200), out=out)


def first_loss(key: int, results: list) -> float:
    """A reproduction's kind of measure (swift_start_nasa's): the time of the flow's first
    retransmission, read from its time series (inf when none)."""
    r = results[0]
    f = r.flows.filter(r.flows["retransmissions"] > 0)
    return float(f["t"][0]) if f.height else float("inf")


def cpu_seconds() -> float:
    """CPU time of this process so far, all threads: on a machine whose other users make wall
    times vary, the work a campaign adds is better seen here."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(mode: str, runs: int, out: str) -> dict:
    warnings.simplefilter("ignore")
    sweep = campaign(runs, out)
    result: dict = {"mode": mode, "runs": runs}
    cpu = cpu_seconds()
    if mode == "core":
        # The simulations alone: the campaign's scenarios through run_many, 1000 at a time.
        import tcpstart as ts

        plan = sweep.plan
        scenarios = [plan.scenario(cell, seed, 0) for _, _, seed, cell in plan.runs()]
        cpu = cpu_seconds()
        started = time.perf_counter()
        for i in range(0, len(scenarios), 1000):
            ts.run_many(scenarios[i : i + 1000])
        result["seconds"] = time.perf_counter() - started
    else:
        backend = "local"
        if mode.endswith("ray"):
            import ray

            ray.init(include_dashboard=False, log_to_driver=False, logging_level="warning")
            backend = "ray"
        if mode.startswith("measure"):
            from tcpstart.sweep.measure import measure_groups, measuring

            groups = [(i, [sweep.plan.scenario(cell, seed, 0)]) for i, (_, _, seed, cell) in enumerate(sweep.plan.runs())]
            cpu = cpu_seconds()
            started = time.perf_counter()
            with measuring(store=out, backend=backend):
                measured = measure_groups(groups, first_loss, "measure", batch=16)
            result.update(seconds=time.perf_counter() - started, measured=len(measured))
        else:
            stats = sweep.run(backend=backend)
            result.update(seconds=stats.seconds, simulated=stats.simulated, cached=stats.cached)
    result["cpu_seconds"] = cpu_seconds() - cpu
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10000)
    parser.add_argument("--ray", action="store_true", help="also on a local Ray instance")
    parser.add_argument("--measure", action="store_true", help="only the runs as a reproduction makes them (tcpstart.sweep.measure)")
    parser.add_argument("--dir", help="where the campaigns go (default: a temporary folder); its file system sets the store's speed")
    parser.add_argument("--memory", help="only the peak RSS of first runs of these sizes, e.g. 1000,10000,100000")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "RUNS", "OUT"))
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.child[2])))
        return

    def measure(mode: str, runs: int, out: str) -> dict:
        done = subprocess.run([sys.executable, __file__, "--child", mode, str(runs), out], capture_output=True, text=True, check=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(json.dumps(r), flush=True)
        return r

    if args.memory:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            for runs in map(int, args.memory.split(",")):
                r = measure("first", runs, f"{tmp}/memory-{runs}")
                print(f"{runs} runs: peak RSS {r['peak_rss_mb']:.1f} MB, {r['seconds']:.1f} s")
        return

    def rate(r: dict) -> str:
        return f"{r['seconds']:.2f} s, {r['runs'] / r['seconds']:.0f} runs/s, {r['cpu_seconds']:.1f} s CPU in the driver"

    if args.measure:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            core = measure("core", args.runs, f"{tmp}/core")
            local = measure("measure", args.runs, f"{tmp}/measure-local")
            print(f"simulation alone (run_many): {rate(core)}")
            print(f"measured runs, local threads: {rate(local)} ({local['seconds'] / core['seconds'] - 1:+.1%} over the simulations)")
            if args.ray:
                ray = measure("measure-ray", args.runs, f"{tmp}/measure-ray")
                print(f"measured runs, Ray (local instance): {rate(ray)} ({ray['seconds'] / local['seconds'] - 1:+.1%} against local threads)")
        return

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        core = measure("core", args.runs, f"{tmp}/core")
        first = measure("first", args.runs, f"{tmp}/local")
        rerun = measure("rerun", args.runs, f"{tmp}/local")
        small = measure("first", args.runs // 10, f"{tmp}/small")
        print(f"simulation alone (run_many): {core['seconds']:.2f} s")
        print(f"campaign, local: {first['seconds']:.2f} s ({first['seconds'] / core['seconds'] - 1:+.1%} over the simulations)")
        print(f"rerun: {rerun['seconds']:.2f} s ({rerun['seconds'] / first['seconds']:.1%} of the first run)")
        print(f"peak RSS: {first['peak_rss_mb']:.0f} MB for {args.runs} runs, {small['peak_rss_mb']:.0f} MB for {args.runs // 10}")
        if args.ray:
            ray = measure("ray", args.runs, f"{tmp}/ray")
            print(f"campaign, Ray (local instance): {ray['seconds']:.2f} s ({ray['seconds'] / core['seconds'] - 1:+.1%} over the simulations)")


if __name__ == "__main__":
    main()
