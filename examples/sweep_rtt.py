"""Jump Start, CUBIC and NewReno: 5 MB over 100 Mbit/s, RTT 20-600 ms, three replications each."""
import tcpstart as ts

base = ts.Scenario(
    network=ts.Dumbbell(rate="100Mbps", queue="1bdp"),
    flows=[ts.Flow(size="5MB")],
    # Cross traffic (on/off UDP, exponential periods) so that the replications differ.
    udp=[ts.Udp(rate="20Mbps", on="200ms", off="800ms", on_off="exponential", stop="30s")],
)
rtts = ["20ms", "50ms", "100ms", "150ms", "200ms", "300ms", "400ms", "500ms", "600ms"]
sweep = ts.Sweep(base, {"network.rtt": rtts, "flows[0].algorithm": ["jump-start", "cubic", "newreno"]},
                 replications=3, out="tcpstart-out/sweep-rtt")
sweep.run()
print(sweep.summary("completion_time").select("network.rtt", "algorithm", "n", "mean", "ci_low", "ci_high"))
sweep.plot("completion_time", x="network.rtt").savefig("completion_time-vs-rtt.png")
