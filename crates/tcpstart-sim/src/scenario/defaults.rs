//! The one table of the scenario's fields: for every field of every table, its type, default,
//! range and meaning. docs/scenario-reference.md is generated from it (tests/scenario_doc.rs),
//! the Python dataclasses are checked against it (tests/test_scenario_schema.py, through
//! `_core.scenario_fields()`), and tests below check that resolution agrees with it: a field set
//! to its `Value` default resolves exactly as the field left out, and every `Raw*` field has a
//! row. The typed constants at the end are the values resolution uses where a field is unset.

use core::time::Duration;

use serde::Serialize;

/// What an unset field becomes.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unset {
    /// This value, as a JSON literal the field accepts (`"20Mbps"`, `1460`, `true`).
    Value(&'static str),
    /// A value that depends on `tcp.profile`: `rfc` for "rfc" (the default), `linux` for
    /// "linux", each a JSON literal as in `Value`.
    Profile { rfc: &'static str, linux: &'static str },
    /// A rule in words: the value follows from other fields, or the field stays unset.
    Rule(&'static str),
    /// The field must be given.
    Required,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Field {
    /// The table the field belongs to: "" (top level), "network", "network.aqm",
    /// "network.ack_compression", "network.quick_start", "network.schedule", "network.hops", "tcp", "flows", "udp", "web", "trace" or "limits". `aqm` and
    /// `ack_compression` stand for their `reverse_` twins too; `tcp` for `flows[i].tcp` and
    /// `web[i].tcp`.
    pub table: &'static str,
    pub name: &'static str,
    /// rate, time, size, queue, integer, number, probability, boolean, string, table, list.
    pub kind: &'static str,
    pub default: Unset,
    /// Allowed values; empty when any value of the kind is.
    pub range: &'static str,
    pub meaning: &'static str,
}

const fn f(
    table: &'static str,
    name: &'static str,
    kind: &'static str,
    default: Unset,
    range: &'static str,
    meaning: &'static str,
) -> Field {
    Field { table, name, kind, default, range, meaning }
}

use Unset::{Profile, Required, Rule, Value};

const TIME: &str = "0 to 100000s";

pub const FIELDS: &[Field] = &[
    f("", "seed", "integer", Value("1"), "0 to 18446744073709551615", "seed of every random stream (loss, start times, web workloads); same scenario and seed, same output"),
    f("", "duration", "time", Rule("none: the run ends when every transfer has ended"), "1ns to 100000s", "simulated time limit; required when a flow has no size or a UDP source no stop"),
    f("", "algorithm", "string", Value("\"newreno\""), "a registered algorithm (`tcpstart algorithms`)", "algorithm of every flow and web workload that names none"),
    f("", "network", "table", Rule("every field's default"), "", "the dumbbell: bottleneck, access links, hosts, network elements"),
    f("", "tcp", "table", Rule("every field's default"), "", "TCP options of every flow and web object; a flow's own `tcp` table overrides them field by field"),
    f("", "flows", "list", Value("[]"), "", "TCP flows (at least one of flows, udp, web is required)"),
    f("", "udp", "list", Value("[]"), "", "UDP sources"),
    f("", "web", "list", Value("[]"), "", "web workloads"),
    f("", "trace", "table", Rule("every field's default"), "", "what the run records besides the summary"),
    f("", "limits", "table", Rule("every field's default"), "", "what a run may use; a run estimated beyond them is refused before it starts"),
    // [network]
    f("network", "rate", "rate", Value("\"20Mbps\""), "1Kbps to 10000Gbps", "bottleneck rate, left to right"),
    f("network", "reverse_rate", "rate", Rule("`rate`"), "1Kbps to 10000Gbps", "bottleneck rate, right to left (the ACK path of forward flows)"),
    f("network", "rtt", "time", Rule("\"200ms\" when `delay` is not given either"), "1us to 100000s, at least the access links' round trip", "base round-trip time (propagation only) of a host pair's path; give rtt or delay"),
    f("network", "delay", "time", Rule("from `rtt`: rtt / 2 - 2 access_delay"), TIME, "one-way propagation delay of the bottleneck"),
    f("network", "queue", "queue", Value("\"1bdp\""), "1 to 1e9 packets, at least one packet of bytes, or more than 0 to 1e4 bdp", "bottleneck buffer, left to right: packets (a bare number), bytes or bandwidth-delay products (of MSS + 40 byte packets)"),
    f("network", "reverse_queue", "queue", Rule("`queue`"), "as queue", "bottleneck buffer, right to left"),
    f("network", "loss", "probability", Value("0"), "0 to 1, 1 excluded", "probability that the bottleneck loses a packet, left to right"),
    f("network", "reverse_loss", "probability", Value("0"), "0 to 1, 1 excluded", "the same, right to left"),
    f("network", "access_rate", "rate", Rule("10 x `rate`, at least 1Gbps"), "1Kbps to 10000Gbps", "rate of every access link"),
    f("network", "access_delay", "time", Value("\"0s\""), TIME, "one-way delay of every access link"),
    f("network", "access_queue", "queue", Value("10000"), "as queue", "buffer of every access link"),
    f("network", "hops", "list", Value("[]"), "2 to 64 hops", "a parking lot: a chain of routers joined by these hops, in order (`[[network.hops]]`); none: the dumbbell (docs/topologies.md)"),
    f("network", "hosts", "integer", Rule("none: every flow, web session and UDP source gets a host pair of its own"), "1 to 10000", "host pairs that flows, web sessions and UDP sources share (round robin unless they name one)"),
    f("network", "aqm", "table", Value("{\"kind\": \"droptail\"}"), "", "queue discipline of the bottleneck, left to right (docs/network-elements.md)"),
    f("network", "reverse_aqm", "table", Rule("`aqm`"), "", "queue discipline, right to left"),
    f("network", "ber", "probability", Value("0"), "0 to 0.01", "bit-error rate, left to right: a packet of b bits is lost with probability 1 - (1 - ber)^b"),
    f("network", "reverse_ber", "probability", Value("0"), "0 to 0.01", "bit-error rate, right to left"),
    f("network", "router_pps", "number", Rule("none: no cap"), "1 to 1e9", "forwarding cap (packets per second) of the router feeding the bottleneck, left to right"),
    f("network", "reverse_router_pps", "number", Rule("`router_pps`"), "1 to 1e9", "the same, right to left"),
    f("network", "ack_compression", "table", Rule("none"), "", "ACK compression at the router feeding the bottleneck, left to right"),
    f("network", "reverse_ack_compression", "table", Rule("none"), "", "ACK compression, right to left: where the ACKs of forward flows pass"),
    f("network", "ack_jitter", "time", Value("\"0s\""), "0 to 1s", "receiver hosts' processing jitter: each packet a receiver sends (the flows' ACKs) waits an extra uniform draw in [0, ack_jitter), in order; 0 = off"),
    f("network", "quick_start", "table", Rule("none: no Quick-Start router"), "", "a Quick-Start router (RFC 4782) at the bottleneck, deciding the rate requests of the SYNs that cross it (docs/network-elements.md)"),
    f("network", "schedule", "list", Value("[]"), "", "changes of the bottleneck's rate and delay over time, in order of `at` (docs/network-elements.md, \"Time-varying links\")"),
    f("network", "schedule_period", "time", Rule("none: the schedule runs once"), "1us to 100000s, after the last change; needs schedule", "the schedule repeats with this period"),
    f("network", "trace", "string", Rule("none: the bottleneck sends at `rate`"), "a mahimahi delivery trace file", "delivery opportunities of the bottleneck, left to right (a TOML file names it relative to itself)"),
    f("network", "reverse_trace", "string", Rule("none: the bottleneck sends at `reverse_rate`"), "a mahimahi delivery trace file", "delivery opportunities, right to left"),
    // network.aqm
    f("network.aqm", "kind", "string", Required, "\"droptail\", \"red\", \"codel\"", "the discipline; the other fields belong to one kind"),
    f("network.aqm", "min_th", "number", Value("5"), "0 to 1e9 packets", "red: below this average queue nothing is dropped early"),
    f("network.aqm", "max_th", "number", Rule("15, at least `min_th`"), "more than 0, at least min_th, at most 1e9 packets", "red: the drop probability reaches max_p here"),
    f("network.aqm", "weight", "number", Value("0.002"), "more than 0 to 1", "red: EWMA weight of the average queue (ns-3 QW)"),
    f("network.aqm", "max_p", "probability", Value("0.02"), "more than 0 to 1", "red: drop probability at max_th (ns-3 1 / LInterm)"),
    f("network.aqm", "gentle", "boolean", Value("true"), "", "red: between max_th and 2 max_th the probability rises from max_p to 1"),
    f("network.aqm", "wait", "boolean", Value("true"), "", "red: spread drops 1/p to 2/p arrivals apart (ns-3 Wait)"),
    f("network.aqm", "mean_packet_size", "integer", Value("500"), "1 to 65535 bytes", "red: packet size for idle-time decay (ns-3 MeanPktSize)"),
    f("network.aqm", "target", "time", Value("\"5ms\""), "1us to 100s", "codel: acceptable standing queue delay (RFC 8289)"),
    f("network.aqm", "interval", "time", Value("\"100ms\""), "1us to 100s", "codel: how long the delay must stay above target before dropping"),
    // network.ack_compression
    f("network.ack_compression", "mode", "string", Required, "\"release\", \"merge\"", "ACKs arriving within interval are released back to back, or merged into the latest"),
    f("network.ack_compression", "interval", "time", Required, "1ns to 10s", "how long ACKs are held"),
    // network.quick_start
    f("network.quick_start", "threshold", "number", Value("0.8"), "more than 0 to 1", "share of the capacity that offered load and approved rates may take together"),
    f("network.quick_start", "interval", "time", Value("\"1s\""), "1ms to 60s", "how far back the router measures its load, and how long an approval counts"),
    // network.schedule
    f("network.schedule", "at", "time", Required, "0 to 100000s, later than the previous change, before schedule_period", "when the change takes effect"),
    f("network.schedule", "rate", "rate", Rule("as before the change"), "1Kbps to 10000Gbps; not with network.trace", "bottleneck rate, left to right, from `at` on"),
    f("network.schedule", "rtt", "time", Rule("as before the change"), "as network.rtt", "base round-trip time from `at` on; give rtt or delay (a change gives at least one of rate, rtt, delay)"),
    f("network.schedule", "delay", "time", Rule("as before the change"), TIME, "one-way delay of both bottleneck directions from `at` on"),
    f("network.hops", "rate", "rate", Rule("`network.rate`"), "1Kbps to 10000Gbps", "rate of the hop, left to right"),
    f("network.hops", "reverse_rate", "rate", Rule("the hop's `rate` if given, else `network.reverse_rate`"), "1Kbps to 10000Gbps", "rate of the hop, right to left"),
    f("network.hops", "delay", "time", Rule("`network.delay` (from `network.rtt`: the round trip over one hop)"), TIME, "one-way propagation delay of each direction of the hop"),
    f("network.hops", "queue", "queue", Rule("`network.queue`, a bdp of it taken of the hop's rate and the round trip over every hop"), "as network.queue", "buffer of the hop, left to right"),
    f("network.hops", "reverse_queue", "queue", Rule("the hop's `queue` if given, else `network.reverse_queue` (as queue)"), "as network.queue", "buffer of the hop, right to left"),
    // [tcp]
    f("tcp", "profile", "string", Value("\"rfc\""), "\"rfc\", \"linux\"", "whose TCP the endpoints model where the RFCs leave a choice (docs/linux-profile.md); it sets the defaults marked \"with profile\""),
    f("tcp", "mss", "integer", Profile { rfc: "1460", linux: "1448" }, "64 to 65000 bytes", "maximum segment size (payload)"),
    f("tcp", "initial_window", "size", Value("10"), "1 to 100000 segments (a bare number), or mss to 1e10 bytes", "initial congestion window"),
    f("tcp", "initial_ssthresh", "size", Value("\"inf\""), "2 to 1e9 segments, 2 mss to 1e15 bytes, or \"inf\"", "initial slow-start threshold"),
    f("tcp", "sack", "boolean", Value("true"), "", "selective acknowledgements (RFC 2018, recovery by RFC 6675)"),
    f("tcp", "timestamps", "boolean", Value("true"), "", "TCP timestamps option (RFC 7323): RTT samples from every ACK"),
    f("tcp", "window_scaling", "boolean", Value("true"), "", "window scaling; false caps the advertised window at 65535 bytes"),
    f("tcp", "rcv_buf", "size", Value("\"16MB\""), "mss to 1e12 bytes", "receive buffer; the advertised window is this minus the out-of-order data held"),
    f("tcp", "delayed_ack", "boolean", Value("true"), "", "delayed ACKs; false ACKs every segment"),
    f("tcp", "delack_count", "integer", Value("2"), "1 to 64", "ACK every k-th full segment"),
    f("tcp", "delack_timeout", "time", Profile { rfc: "\"200ms\"", linux: "\"40ms\"" }, "1us to 500ms", "longest an ACK waits"),
    f("tcp", "quickack", "integer", Profile { rfc: "0", linux: "16" }, "0 to 100000", "the first N ACKs after data starts are sent at once, one per segment (Linux quick-ACK mode)"),
    f("tcp", "unpaced_segments", "integer", Profile { rfc: "0", linux: "10" }, "0 to 100000", "data segments (retransmissions included) sent before a controller's pacing rate spaces them (Linux: 10)"),
    f("tcp", "rto_initial", "time", Value("\"1s\""), "1us to 100000s", "retransmission timeout before the first RTT sample (RFC 6298)"),
    f("tcp", "rto_min", "time", Profile { rfc: "\"1s\"", linux: "\"200ms\"" }, "1us to 100000s", "lower bound of the retransmission timeout (RFC 6298)"),
    f("tcp", "rto_max", "time", Value("\"60s\""), "rto_min to 100000s", "upper bound of the retransmission timeout"),
    f("tcp", "clock_granularity", "time", Profile { rfc: "\"1ms\"", linux: "\"200ms\"" }, "0 to 1s", "G of RFC 6298's RTO = SRTT + max(G, 4 RTTVAR); Linux's TCP_RTO_MIN has that role (its RTO is SRTT + max(4 mdev, rto_min))"),
    f("tcp", "clock_tick", "time", Value("\"0s\""), "0 to 1s", "tick of the sender's clock (jiffies): it reads time in whole ticks; 0 = exact"),
    f("tcp", "fast_retransmit", "boolean", Value("true"), "", "retransmit after dupthresh duplicate ACKs (RFC 5681)"),
    f("tcp", "limited_transmit", "boolean", Value("true"), "", "send new data on the first two duplicate ACKs (RFC 3042)"),
    f("tcp", "dupthresh", "integer", Value("3"), "1 to 1000", "duplicate ACKs that start fast retransmit"),
    f("tcp", "recovery", "string", Profile { rfc: "\"rfc6675\"", linux: "\"prr\"" }, "\"rfc6675\", \"prr\"", "window during SACK recovery: cwnd = ssthresh at once, or PRR (RFC 6937)"),
    f("tcp", "rto_restart", "string", Rule("\"every_ack\" with sack or profile \"linux\", \"first_partial_ack\" otherwise"), "\"every_ack\", \"first_partial_ack\"", "which ACKs in fast recovery restart the retransmission timer (RFC 6298 5.3, or RFC 6582's impatient variant)"),
    // [[flows]]
    f("flows", "algorithm", "string", Rule("the top-level `algorithm`"), "a registered algorithm", "congestion control of the flow"),
    f("flows", "params", "table", Rule("the algorithm's defaults (`tcpstart algorithms NAME`)"), "per parameter", "parameters of the algorithm"),
    f("flows", "size", "size", Rule("unlimited: a bulk flow that never ends"), "1 to 1e15 bytes, or \"unlimited\"", "bytes to transfer"),
    f("flows", "start", "time", Value("\"0s\""), TIME, "when the (first) flow opens its connection"),
    f("flows", "count", "integer", Value("1"), "1 to 100000", "identical flows this entry stands for"),
    f("flows", "interval", "time", Value("\"0s\""), TIME, "spacing of the count flows' starts (periodic), or their mean spacing (poisson)"),
    f("flows", "arrivals", "string", Value("\"periodic\""), "\"periodic\", \"poisson\"", "poisson: exponential gaps of mean interval (> 0), the first one gap after start"),
    f("flows", "starts", "list", Rule("none"), "1 to 100000 times", "explicit start times, one flow each, instead of start, count, interval and arrivals"),
    f("flows", "access_rate", "rate", Rule("`network.access_rate`"), "1Kbps to 10000Gbps", "the flow's own access links (not with network.hosts)"),
    f("flows", "access_delay", "time", Rule("`network.access_delay`"), TIME, "the flow's own access links (not with network.hosts): a per-flow RTT"),
    f("flows", "drop_transmissions", "list", Value("[]"), "1 and up", "data transmissions of this flow (1-based, retransmissions counted) that the bottleneck drops"),
    f("flows", "tcp", "table", Rule("the top-level `tcp`"), "", "TCP options of this flow, over the top-level ones"),
    f("flows", "class", "string", Rule("the algorithm's name"), "", "label the summary groups flows by"),
    f("flows", "direction", "string", Value("\"forward\""), "\"forward\", \"reverse\"", "forward: data from the senders' side; reverse: from the receivers' side"),
    f("flows", "host", "integer", Rule("round robin"), "0 to network.hosts - 1", "host pair; needs network.hosts"),
    f("flows", "hops", "list", Rule("every hop"), "consecutive hops in order, 0 to the number of network.hops - 1", "the parking lot's hops the flow crosses (needs network.hops); [1]: only the second"),
    // [[udp]]
    f("udp", "rate", "rate", Value("\"1Mbps\""), "1Kbps to 10000Gbps", "sending rate while on, of whole IP packets"),
    f("udp", "packet_size", "integer", Value("1470"), "1 to 65507 bytes", "datagram payload"),
    f("udp", "start", "time", Value("\"0s\""), TIME, "first datagram, and start of the first on period"),
    f("udp", "stop", "time", Rule("none: until duration"), "after start, to 100000s", "nothing is sent at or after stop"),
    f("udp", "on", "time", Rule("none: always on"), "1us to 100000s, with off", "on period length (fixed) or mean (exponential)"),
    f("udp", "off", "time", Rule("none: always on"), "1us to 100000s, with on", "off period length (fixed) or mean (exponential)"),
    f("udp", "on_off", "string", Rule("\"fixed\" when on and off are given"), "\"fixed\", \"exponential\"", "fixed periods, or exponential ones of means on and off"),
    f("udp", "direction", "string", Value("\"forward\""), "\"forward\", \"reverse\"", "forward: from the senders' side; reverse: from the receivers' side"),
    f("udp", "host", "integer", Rule("round robin"), "0 to network.hosts - 1", "host pair; needs network.hosts"),
    f("udp", "class", "string", Value("\"udp\""), "", "label the summary groups sources by"),
    f("udp", "count", "integer", Value("1"), "1 to 100000", "identical sources this entry stands for"),
    f("udp", "hops", "list", Rule("every hop"), "as flows' hops", "the parking lot's hops the datagrams cross (needs network.hops)"),
    f("udp", "tick", "time", Rule("none: each datagram when due"), "1us to 1s", "sender's clock tick: datagrams due since the last tick leave together (\"10ms\": iperf on a 100 Hz kernel)"),
    // [[web]]
    f("web", "sessions", "integer", Value("50"), "1 to 100000", "sessions"),
    f("web", "session_interval", "time", Value("\"5ms\""), TIME, "session s starts at start + s x session_interval"),
    f("web", "start", "time", Value("\"0s\""), TIME, "first session"),
    f("web", "pages", "integer", Value("5"), "1 to 10000 (sessions x pages at most 1e6)", "pages per session"),
    f("web", "page_objects_mean", "number", Value("4"), "0.001 to 1e6", "mean of the Pareto II number of objects per page"),
    f("web", "page_objects_shape", "number", Value("1.5"), "more than 1 to 100", "its shape"),
    f("web", "page_interval", "time", Value("\"500ms\""), TIME, "mean exponential gap from the end of a page to the next"),
    f("web", "object_packets_mean", "number", Value("4"), "0.001 to 1e6", "mean of the Pareto II object size, in MSS packets"),
    f("web", "object_packets_shape", "number", Value("1.2"), "more than 1 to 100", "its shape"),
    f("web", "object_interval", "time", Value("\"50ms\""), TIME, "mean exponential gap between the starts of a page's objects"),
    f("web", "algorithm", "string", Rule("the top-level `algorithm`"), "a registered algorithm", "congestion control of every object's connection"),
    f("web", "params", "table", Rule("the algorithm's defaults"), "per parameter", "parameters of the algorithm"),
    f("web", "tcp", "table", Rule("the top-level `tcp`"), "", "TCP options of every object's connection"),
    f("web", "direction", "string", Value("\"forward\""), "\"forward\", \"reverse\"", "which way the objects go"),
    f("web", "host", "integer", Rule("round robin, per session"), "0 to network.hosts - 1", "host pair of every session; needs network.hosts"),
    f("web", "class", "string", Value("\"web\""), "", "label the summary groups objects by"),
    // [trace]
    f("trace", "interval", "time", Rule("1ms, or duration / 10000 when longer"), "0s, or 1us to 100000s", "grid step of the flow time series (0s: a row at every change)"),
    f("trace", "queue_interval", "time", Rule("1ms, or duration / 10000 when longer"), "0s, or 1us to 100000s", "grid step of the queue time series"),
    f("trace", "packets", "boolean", Value("false"), "", "record every packet event (packets.parquet)"),
    f("trace", "pcap", "list", Value("[]"), "link names", "links whose packets are written to pcap files: bottleneck, bottleneck_rev, sender<i>_out, sender<i>_in, receiver<i>_in, receiver<i>_out"),
    // [limits]
    f("limits", "memory", "size", Rule("TCPSTART_LIMITS' memory, else \"4GB\""), "1e6 to 1e15 bytes", "memory the run's state and output may take"),
    f("limits", "packets", "number", Rule("TCPSTART_LIMITS' packets, else 1e9"), "1 to 1e15", "packets the run may carry over the two bottleneck links"),
];

/// The values resolution gives unset fields (each as the row of `FIELDS` says).
pub const RATE: f64 = 20e6;
pub const RTT: Duration = Duration::from_millis(200);
pub const UDP_RATE: f64 = 1e6;
pub const MSS: u32 = 1460;
/// The Linux profile's: a 1500-byte MTU less 52 bytes of IP and TCP headers with timestamps.
pub const LINUX_MSS: u32 = 1448;
/// The Linux profile's `quickack` (TCP_MAX_QUICKACKS) and `unpaced_segments` (sch_fq's 10).
pub const LINUX_QUICKACK: u32 = 16;
pub const LINUX_UNPACED_SEGMENTS: u32 = 10;
/// `network.quick_start`: a router that lets offered load and approvals fill 80 % of the link,
/// judged over the last second.
pub const QUICK_START_THRESHOLD: f64 = 0.8;
pub const QUICK_START_INTERVAL: Duration = Duration::from_secs(1);
/// 16 MB.
pub const RCV_BUF: u64 = 16_000_000;
pub const ACCESS_QUEUE_PACKETS: f64 = 10_000.0;

/// A time default with the text an error shows for it. Held as a value: parsing each default
/// from its text for the scenario and for every flow was a tenth of a small run's core call.
pub struct TimeDefault {
    pub value: Duration,
    pub text: &'static str,
}

pub const RTO_INITIAL: TimeDefault = TimeDefault { value: Duration::from_secs(1), text: "1s" };
pub const RTO_MIN: TimeDefault = TimeDefault { value: Duration::from_secs(1), text: "1s" };
pub const RTO_MAX: TimeDefault = TimeDefault { value: Duration::from_secs(60), text: "60s" };
/// The Linux profile's: TCP_RTO_MIN (also in clock_granularity's role) and TCP_ATO_MIN.
pub const LINUX_RTO_MIN: TimeDefault = TimeDefault { value: Duration::from_millis(200), text: "200ms" };
pub const LINUX_DELACK_TIMEOUT: TimeDefault = TimeDefault { value: Duration::from_millis(40), text: "40ms" };
pub const DELACK_TIMEOUT: TimeDefault = TimeDefault { value: Duration::from_millis(200), text: "200ms" };
pub const CLOCK_GRANULARITY: TimeDefault = TimeDefault { value: Duration::from_millis(1), text: "1ms" };
pub const CLOCK_TICK: TimeDefault = TimeDefault { value: Duration::ZERO, text: "0s" };

/// The tables in the order the reference lists them, each with its heading.
const TABLES: [(&str, &str); 13] = [
    ("", "Top level"),
    ("network", "`[network]`: the dumbbell"),
    ("network.aqm", "`network.aqm`, `network.reverse_aqm`: queue discipline"),
    ("network.ack_compression", "`network.ack_compression`, `network.reverse_ack_compression`"),
    ("network.quick_start", "`network.quick_start`: Quick-Start router"),
    ("network.schedule", "`[[network.schedule]]`: changes of the bottleneck over time"),
    ("network.hops", "`[[network.hops]]`: the hops of a parking lot"),
    ("tcp", "`[tcp]`, `flows[i].tcp`, `web[i].tcp`: TCP options"),
    ("flows", "`[[flows]]`: TCP flows"),
    ("udp", "`[[udp]]`: UDP sources"),
    ("web", "`[[web]]`: web workloads"),
    ("trace", "`[trace]`: what is recorded"),
    ("limits", "`[limits]`: what a run may use"),
];

/// The fields as Markdown: a section per table, a row per field.
pub fn markdown() -> String {
    let mut out = String::new();
    for (table, heading) in TABLES {
        out.push_str(&format!(
            "### {heading}\n\n| field | type | default | range | meaning |\n|---|---|---|---|---|\n"
        ));
        for f in FIELDS.iter().filter(|f| f.table == table) {
            let default = match f.default {
                Unset::Value(v) => format!("`{v}`"),
                Unset::Profile { rfc, linux } => format!("`{rfc}`; `{linux}` with profile \"linux\""),
                Unset::Rule(r) => r.to_string(),
                Unset::Required => "required".to_string(),
            };
            let cell = |s: &str| s.replace('|', "\\|");
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                f.name,
                f.kind,
                cell(&default),
                cell(f.range),
                cell(f.meaning)
            ));
        }
        out.push('\n');
    }
    out
}

/// The allowed range of the field at `path` ("flows[2].tcp.mss", "network.reverse_aqm.weight"),
/// when its row gives one.
pub fn range_of(path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = path.split('.').map(|p| p.split('[').next().unwrap_or(p)).collect();
    let (table, name) = match parts.as_slice() {
        [name] => ("", *name),
        [_, "tcp", name] => ("tcp", *name),
        ["network", element, name] if element.ends_with("aqm") => ("network.aqm", *name),
        ["network", element, name] if element.ends_with("ack_compression") => ("network.ack_compression", *name),
        ["network", "quick_start", name] => ("network.quick_start", *name),
        ["network", "schedule", name] => ("network.schedule", *name),
        ["network", "hops", name] => ("network.hops", *name),
        [table, name] => (*table, *name),
        _ => return None,
    };
    FIELDS.iter().find(|f| f.table == table && f.name == name).map(|f| f.range).filter(|r| !r.is_empty())
}
