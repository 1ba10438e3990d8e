// ns-3 dumbbell for cross-checking tcpstart (and for timing ns-3 on the same scenario).
//
//   sender i --access--> R1 ==bottleneck==> R2 --access--> receiver i     (i = 0 .. pairs-1)
//
// By default every flow has a host pair of its own and sends from its sender to its receiver,
// flow i starting at i * stagger. With --hosts=N the flows share N pairs round robin (flow i on
// pair i mod N, as tcpstart's network.hosts), --starts gives each flow its own start time and
// --reverse lets a flow send from its pair's receiver to its sender (tcpstart's direction =
// "reverse"): the benchmark B3's 200 connections on 100 pairs (python/tcpstart/bench_ns3.py).
//
// Every knob that tcpstart has is a command-line argument here, so the Python driver
// (python/tcpstart/crosscheck) can configure both simulators from one scenario description.
// The program prints one JSON object on stdout: per flow completion time, goodput, drops,
// retransmissions, the first loss (time and cwnd), a decimated cwnd trace, its own wall time and
// its peak resident set.
//
// Deliberate choices (each mirrors tcpstart; see docs/validation.md):
// - no traffic-control layer: the point-to-point device queue is the only queue, drop-tail,
//   limited in packets or bytes, and the packet on the transmitter is not counted in it;
// - links get a large MTU so that MSS + headers + options never fragments (tcpstart has no MTU);
// - times (completion, first loss) run from the SYN, as tcpstart's do;
// - "retransmission" = a data segment whose sequence is below the highest one already sent.
//
// Build: python -m tcpstart.crosscheck.build (finds the pip package's headers and libraries).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// This process's peak resident set (VmHWM) in kB, read by the process itself so that a short run
// is measured as well as a long one (a parent polling /proc can miss a run that ends between two
// polls, and the parent's rusage carries the forked interpreter's peak across exec).
long
PeakRssKb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::strtol(line.c_str() + 6, nullptr, 10);
        }
    }
    return -1;
}

struct FlowResult
{
    double start = 0;            // when the SYN leaves (s)
    uint64_t size = 0;           // 0 = unlimited
    uint32_t firstDataSeq = 0;   // sequence number of the first payload byte
    bool sawData = false;
    uint32_t highestSentEnd = 0; // highest sequence sent + 1
    uint64_t acked = 0;
    double doneAt = -1;
    uint64_t segmentsSent = 0;
    uint64_t retransmissions = 0;
    uint64_t drops = 0;
    uint64_t fastRecoveries = 0;
    uint64_t timeouts = 0;
    uint32_t cwnd = 0;
    // cwnd at the start of the current instant: some algorithms (TcpBbr) change cwnd in their
    // CongestionStateSet hook, before the state-change trace fires.
    uint32_t cwndBeforeNow = 0;
    double cwndChangedAt = -1;
    uint32_t inflight = 0;
    double firstLossTime = -1;
    uint32_t firstLossCwnd = 0;
    uint32_t maxCwnd = 0;
    // Decimated cwnd trace: at most one point per interval, the last value of the interval kept.
    std::vector<std::pair<double, uint32_t>> trace;
    double lastTraceAt = -1;
    bool pending = false;
    std::pair<double, uint32_t> pendingPoint;
};

std::vector<FlowResult> g_flows;
double g_traceInterval = 0.001;
bool g_trace = true;
bool g_verbose = false;

double
NowS()
{
    return Simulator::Now().GetSeconds();
}

void
RecordCwnd(FlowResult& f, uint32_t cwnd)
{
    double t = NowS() - f.start;
    if (!g_trace)
    {
        return;
    }
    if (f.lastTraceAt >= 0 && t - f.lastTraceAt < g_traceInterval)
    {
        f.pending = true;
        f.pendingPoint = {t, cwnd};
        return;
    }
    if (f.pending)
    {
        f.trace.push_back(f.pendingPoint);
        f.pending = false;
    }
    f.trace.emplace_back(t, cwnd);
    f.lastTraceAt = t;
}

void
OnCwnd(uint32_t i, uint32_t old, uint32_t cwnd)
{
    FlowResult& f = g_flows[i];
    if (f.cwndChangedAt != NowS())
    {
        f.cwndChangedAt = NowS();
        f.cwndBeforeNow = old;
    }
    f.cwnd = cwnd;
    f.maxCwnd = std::max(f.maxCwnd, cwnd);
    RecordCwnd(f, cwnd);
}

void
OnInflight(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].inflight = v;
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    FlowResult& f = g_flows[i];
    if (g_verbose)
    {
        std::cerr << NowS() << " flow " << i << " state " << TcpSocketState::TcpCongStateName[now]
                  << " cwnd " << f.cwnd << " acked " << f.acked << std::endl;
    }
    if (now != TcpSocketState::CA_RECOVERY && now != TcpSocketState::CA_LOSS)
    {
        return;
    }
    (now == TcpSocketState::CA_RECOVERY ? f.fastRecoveries : f.timeouts)++;
    // The window at the loss is the one the sender had when this instant began (tcpstart: the
    // sample before the one with the retransmission).
    if (f.firstLossTime < 0)
    {
        f.firstLossTime = NowS() - f.start;
        f.firstLossCwnd = f.cwndChangedAt == NowS() ? f.cwndBeforeNow : f.cwnd;
    }
}

void
OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    FlowResult& f = g_flows[i];
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (!f.sawData)
    {
        f.sawData = true;
        f.firstDataSeq = seq;
        f.highestSentEnd = seq;
    }
    f.segmentsSent++;
    if (g_verbose)
    {
        std::cerr << NowS() << " flow " << i << " tx seq " << seq << " len " << len << " cwnd "
                  << f.cwnd << " inflight " << f.inflight << std::endl;
    }
    if (SequenceNumber32(seq) < SequenceNumber32(f.highestSentEnd))
    {
        f.retransmissions++;
    }
    if (SequenceNumber32(seq + len) > SequenceNumber32(f.highestSentEnd))
    {
        f.highestSentEnd = seq + len;
    }
}

void
OnHighestRxAck(uint32_t i, SequenceNumber32, SequenceNumber32 ack)
{
    FlowResult& f = g_flows[i];
    if (!f.sawData || ack <= SequenceNumber32(f.firstDataSeq))
    {
        return;
    }
    f.acked = ack - SequenceNumber32(f.firstDataSeq);
    if (f.size > 0 && f.doneAt < 0 && f.acked >= f.size)
    {
        f.doneAt = NowS();
    }
}

// Each sender binds port kFirstPort + flow, so a TCP header names its flow in either direction.
const uint16_t kFirstPort = 10000;

void
CountDrop(Ptr<Packet> tcpFirst)
{
    TcpHeader tcp;
    tcpFirst->RemoveHeader(tcp);
    uint16_t port = tcp.GetSourcePort() >= kFirstPort ? tcp.GetSourcePort() : tcp.GetDestinationPort();
    if (port >= kFirstPort && port - kFirstPort < g_flows.size())
    {
        if (g_verbose)
        {
            std::cerr << NowS() << " flow " << port - kFirstPort << " drop seq "
                      << tcp.GetSequenceNumber() << " ack " << tcp.GetAckNumber() << std::endl;
        }
        g_flows[port - kFirstPort].drops++;
    }
}

// A device queue drop: the packet carries its PPP and IPv4 headers.
void
OnQueueDrop(Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    copy->RemoveHeader(ppp);
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    CountDrop(copy);
}

// With no queue discipline, the traffic-control layer drops what a stopped (full) device queue
// cannot take: this is where drop-tail drops happen. The packet starts with its IPv4 header.
void
OnTrafficControlDrop(Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    CountDrop(copy);
}

// Writes `size` bytes (or without end when size is 0) into the socket as fast as its buffer takes
// them, like an application that has all its data ready at the start (tcpstart's model).
class Source : public Application
{
  public:
    Source(uint32_t flow, Address peer, uint64_t size, TypeId socketType)
        : m_flow(flow),
          m_peer(peer),
          m_size(size),
          m_socketType(socketType)
    {
    }

  private:
    void StartApplication() override
    {
        Ptr<TcpL4Protocol> tcp = GetNode()->GetObject<TcpL4Protocol>();
        m_socket = DynamicCast<TcpSocketBase>(tcp->CreateSocket(m_socketType));
        uint32_t i = m_flow;
        m_socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
        m_socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
        m_socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
        m_socket->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInflight, i));
        m_socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighestRxAck, i));
        m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), kFirstPort + i));
        m_socket->SetConnectCallback(MakeCallback(&Source::Fill, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&Source::Refill, this));
        g_flows[i].start = NowS();
        m_socket->Connect(m_peer);
    }

    void StopApplication() override
    {
    }

    void Refill(Ptr<Socket> s, uint32_t)
    {
        Fill(s);
    }

    void Fill(Ptr<Socket> s)
    {
        while (m_size == 0 || m_written < m_size)
        {
            uint64_t room = s->GetTxAvailable();
            uint64_t want = m_size == 0 ? room : std::min<uint64_t>(room, m_size - m_written);
            want = std::min<uint64_t>(want, 1 << 20);
            if (want == 0)
            {
                return;
            }
            int sent = s->Send(Create<Packet>(want));
            if (sent <= 0)
            {
                return;
            }
            m_written += sent;
        }
    }

    uint32_t m_flow;
    Address m_peer;
    uint64_t m_size;
    TypeId m_socketType;
    Ptr<TcpSocketBase> m_socket;
    uint64_t m_written = 0;
};

std::string
JsonNumber(double v)
{
    if (v < 0)
    {
        return "null";
    }
    std::ostringstream s;
    s.precision(12);
    s << v;
    return s.str();
}

void
StopWhenAllDone()
{
    for (const FlowResult& f : g_flows)
    {
        if (f.size == 0 || f.doneAt < 0)
        {
            return;
        }
    }
    Simulator::Stop();
}

// A comma-separated list of numbers, one per flow ("" = none given).
bool
ParseList(const std::string& text, uint32_t flows, const char* name, std::vector<double>& out)
{
    out.clear();
    if (text.empty())
    {
        return true;
    }
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        char* end = nullptr;
        double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || v < 0)
        {
            std::cerr << "dumbbell: --" << name << ": not a number >= 0: '" << item << "'" << std::endl;
            return false;
        }
        out.push_back(v);
    }
    if (out.size() != flows)
    {
        std::cerr << "dumbbell: --" << name << " has " << out.size() << " entries for " << flows
                  << " flows" << std::endl;
        return false;
    }
    return true;
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string rate = "20Mbps";
    std::string delay = "50ms";
    std::string reverseRate;
    std::string accessRate = "1Gbps";
    std::string accessDelay = "0ms";
    std::string queue = "100p";
    std::string accessQueue = "10000p";
    uint32_t flows = 1;
    uint32_t hosts = 0;
    std::string starts;
    std::string reverse;
    std::string algo = "TcpNewReno";
    std::string recovery = "TcpPrrRecovery";
    uint64_t size = 1000000;
    double duration = 60;
    double stagger = 0;
    uint32_t mss = 1460;
    uint32_t iw = 10;
    std::string minRto = "1s";
    std::string initialRto = "1s";
    std::string clockGranularity = "1ms";
    uint32_t delAckCount = 2;
    std::string delAckTimeout = "200ms";
    bool sack = true;
    bool timestamps = true;
    bool windowScaling = true;
    bool limitedTransmit = true;
    bool pacing = false;
    uint32_t rcvBuf = 16000000;
    uint32_t sndBuf = 64000000;
    uint32_t seed = 1;
    double traceInterval = 0.001;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rate", "bottleneck rate (ns-3 DataRate, e.g. 20Mbps)", rate);
    cmd.AddValue("reverseRate", "reverse bottleneck rate (default: rate)", reverseRate);
    cmd.AddValue("delay", "one-way bottleneck delay", delay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "one-way access link delay", accessDelay);
    cmd.AddValue("queue", "bottleneck drop-tail limit: <n>p packets or <n>B bytes", queue);
    cmd.AddValue("accessQueue", "access link drop-tail limit", accessQueue);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("hosts", "host pairs shared round robin by the flows; 0 = one pair per flow", hosts);
    cmd.AddValue("starts", "start of each flow (s), comma-separated; replaces stagger", starts);
    cmd.AddValue("reverse", "per flow 1 = send from the receivers' side, comma-separated", reverse);
    cmd.AddValue("algo", "congestion control TypeId name, e.g. TcpNewReno, TcpLinuxReno, TcpCubic", algo);
    cmd.AddValue("recovery", "recovery TypeId name: TcpPrrRecovery or TcpClassicRecovery", recovery);
    cmd.AddValue("size", "bytes per flow; 0 = unlimited", size);
    cmd.AddValue("duration", "simulated time limit (s)", duration);
    cmd.AddValue("stagger", "start of flow i = i * stagger (s)", stagger);
    cmd.AddValue("mss", "segment payload bytes", mss);
    cmd.AddValue("iw", "initial window (segments)", iw);
    cmd.AddValue("minRto", "minimum RTO", minRto);
    cmd.AddValue("initialRto", "initial RTO (RTT estimator's initial estimate)", initialRto);
    cmd.AddValue("clockGranularity", "RTO clock granularity G", clockGranularity);
    cmd.AddValue("delAckCount", "segments per delayed ACK (1 = ACK every segment)", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed ACK timeout", delAckTimeout);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("timestamps", "timestamps option", timestamps);
    cmd.AddValue("windowScaling", "window scaling", windowScaling);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit", limitedTransmit);
    cmd.AddValue("pacing", "enable ns-3 socket pacing (needed by TcpBbr)", pacing);
    cmd.AddValue("rcvBuf", "receive buffer bytes", rcvBuf);
    cmd.AddValue("sndBuf", "send buffer bytes", sndBuf);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("traceInterval", "cwnd trace spacing (s); 0 = every change, <0 = no trace", traceInterval);
    cmd.AddValue("verbose", "log congestion state changes on stderr", g_verbose);
    cmd.Parse(argc, argv);
    if (reverseRate.empty())
    {
        reverseRate = rate;
    }
    g_traceInterval = traceInterval;
    g_trace = traceInterval >= 0;
    std::vector<double> startAt;
    std::vector<double> reversed;
    if (!ParseList(starts, flows, "starts", startAt) ||
        !ParseList(reverse, flows, "reverse", reversed))
    {
        return 2;
    }
    const uint32_t pairs = hosts > 0 ? hosts : flows;

    TypeId ccType;
    if (!TypeId::LookupByNameFailSafe("ns3::" + algo, &ccType))
    {
        std::cerr << "dumbbell: unknown --algo " << algo << std::endl;
        return 2;
    }
    TypeId recoveryType;
    if (!TypeId::LookupByNameFailSafe("ns3::" + recovery, &recoveryType))
    {
        std::cerr << "dumbbell: unknown --recovery " << recovery << std::endl;
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Time(delAckTimeout)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(windowScaling));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Time(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Time(clockGranularity)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Time(initialRto)));
    // A lost SYN (or SYN-ACK) is retried after the initial RTO, doubled per retry, as tcpstart and
    // Linux (TCP_TIMEOUT_INIT) do; ns-3's own default is 3 s.
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Time(initialRto)));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(pacing));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(recoveryType));

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(pairs);
    NodeContainer receivers;
    receivers.Create(pairs);
    InternetStackHelper stack;
    stack.InstallAll();

    // Large MTU: tcpstart has no fragmentation, and MSS + 40 + options must fit one frame.
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bottleneck.SetDeviceAttribute("Mtu", UintegerValue(65000));
    bottleneck.SetChannelAttribute("Delay", StringValue(delay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(queue));
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    // The reverse direction may have its own rate (tcpstart's reverse_rate).
    core.Get(1)->SetAttribute("DataRate", StringValue(reverseRate));

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetDeviceAttribute("Mtu", UintegerValue(65000));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(accessQueue));

    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.252");
    std::vector<NetDeviceContainer> all;
    all.push_back(core);
    address.Assign(core);
    std::vector<Ipv4Address> senderAddress;
    std::vector<Ipv4Address> receiverAddress;
    for (uint32_t i = 0; i < pairs; ++i)
    {
        address.NewNetwork();
        NetDeviceContainer left = access.Install(senders.Get(i), routers.Get(0));
        senderAddress.push_back(address.Assign(left).GetAddress(0));
        address.NewNetwork();
        NetDeviceContainer right = access.Install(routers.Get(1), receivers.Get(i));
        Ipv4InterfaceContainer r = address.Assign(right);
        receiverAddress.push_back(r.GetAddress(1));
        all.push_back(left);
        all.push_back(right);
    }
    // Address assignment installs a default queue discipline (fq_codel); remove it so that the
    // device's drop-tail queue is the only one, as in tcpstart.
    TrafficControlHelper tch;
    for (auto& devices : all)
    {
        tch.Uninstall(devices);
        for (uint32_t d = 0; d < devices.GetN(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devices.Get(d));
            dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnQueueDrop));
        }
    }
    for (NodeList::Iterator n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        if (!(*n)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                "TcDrop",
                MakeCallback(&OnTrafficControlDrop)))
        {
            std::cerr << "dumbbell: no TrafficControlLayer TcDrop trace" << std::endl;
            return 1;
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_flows.resize(flows);
    const uint16_t port = 5000;
    // One sink per receiving host, however many flows it receives.
    std::vector<bool> sinkOn(2 * pairs, false);
    for (uint32_t i = 0; i < flows; ++i)
    {
        g_flows[i].size = size;
        const uint32_t pair = i % pairs;
        const bool back = !reversed.empty() && reversed[i] != 0;
        Ptr<Node> from = back ? receivers.Get(pair) : senders.Get(pair);
        Ptr<Node> to = back ? senders.Get(pair) : receivers.Get(pair);
        Ipv4Address toAddress = back ? senderAddress[pair] : receiverAddress[pair];
        if (!sinkOn[2 * pair + back])
        {
            sinkOn[2 * pair + back] = true;
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), port));
            ApplicationContainer s = sink.Install(to);
            s.Start(Seconds(0));
        }
        Ptr<Source> app = CreateObject<Source>(i, InetSocketAddress(toAddress, port), size, ccType);
        from->AddApplication(app);
        app->SetStartTime(Seconds(startAt.empty() ? i * stagger : startAt[i]));
    }
    // Finite transfers end the run when all are done (checked every millisecond of simulated time).
    std::function<void()> poll;
    poll = [&]() {
        StopWhenAllDone();
        Simulator::Schedule(MilliSeconds(1), poll);
    };
    if (size > 0)
    {
        Simulator::Schedule(MilliSeconds(1), poll);
    }
    Simulator::Stop(Seconds(duration));

    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    auto runEnd = std::chrono::steady_clock::now();
    double end = NowS();
    Simulator::Destroy();

    std::ostringstream out;
    out.precision(12);
    out << "{\"end_time\": " << end << ", \"flows\": [";
    for (uint32_t i = 0; i < flows; ++i)
    {
        FlowResult& f = g_flows[i];
        if (f.pending)
        {
            f.trace.push_back(f.pendingPoint);
        }
        double completion = f.doneAt >= 0 ? f.doneAt - f.start : -1;
        double active = completion >= 0 ? completion : end - f.start;
        double goodput = active > 0 ? f.acked * 8.0 / active : 0;
        out << (i ? ", " : "") << "{\"id\": " << i << ", \"start\": " << f.start
            << ", \"completed\": " << (f.doneAt >= 0 ? "true" : "false")
            << ", \"completion_time\": " << JsonNumber(completion) << ", \"goodput_bps\": " << goodput
            << ", \"bytes_acked\": " << f.acked << ", \"segments_sent\": " << f.segmentsSent
            << ", \"retransmissions\": " << f.retransmissions << ", \"drops\": " << f.drops
            << ", \"fast_recoveries\": " << f.fastRecoveries << ", \"timeouts\": " << f.timeouts
            << ", \"max_cwnd\": " << f.maxCwnd
            << ", \"first_loss_time\": " << JsonNumber(f.firstLossTime)
            << ", \"first_loss_cwnd\": " << (f.firstLossTime >= 0 ? std::to_string(f.firstLossCwnd) : "null")
            << ", \"cwnd\": [";
        for (size_t k = 0; k < f.trace.size(); ++k)
        {
            out << (k ? ", " : "") << "[" << f.trace[k].first << ", " << f.trace[k].second << "]";
        }
        out << "]}";
    }
    auto wallEnd = std::chrono::steady_clock::now();
    out << "], \"wall_time_s\": " << std::chrono::duration<double>(wallEnd - wallStart).count()
        << ", \"run_wall_time_s\": " << std::chrono::duration<double>(runEnd - runStart).count()
        << ", \"peak_rss_kb\": " << PeakRssKb() << "}";
    std::cout << out.str() << std::endl;
    return 0;
}
