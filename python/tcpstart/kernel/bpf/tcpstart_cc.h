/* What every tcpstart congestion control in BPF shares: the kernel's Reno pieces (kfuncs), the
 * per-run parameters and flow sizes the testbed writes before registering, Reno growth with
 * tcpstart's byte-counting limit, and the placeholder name the loader replaces (a name is
 * global to the kernel, so each run registers its own). */
#ifndef TCPSTART_CC_H
#define TCPSTART_CC_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* 15 characters and the NUL: TCP_CA_NAME_MAX. The loader rewrites these bytes in the object. */
#define TCPST_NAME "tcpst@@@@@@@@@@"

#define TCP_CA_OPEN 0
#define TCP_CA_RECOVERY 3
#define TCP_CA_LOSS 4
#define USEC_PER_SEC 1000000ULL

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;

/* The algorithm's parameters, by index (each algorithm names its own), written by the loader in
 * thousandths (PARAM_SCALE), so that fractional ones (Swift Start's gamma) fit. */
#define PARAM_SCALE 1000
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} tcpst_params SEC(".maps");

/* Each flow's size by its source port: the data the sender has queued when the connection is
 * established (the application has not written yet when the kernel calls init). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} tcpst_flow_bytes SEC(".maps");

/* The parameter in thousandths. */
static __always_inline __u64 param_milli(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&tcpst_params, &i);
	return v ? *v : 0;
}

/* An integer parameter. */
static __always_inline __u64 param(__u32 i)
{
	return param_milli(i) / PARAM_SCALE;
}

/* 0 when the testbed did not say (the flow is then taken as unlimited). */
static __always_inline __u64 flow_size(struct sock *sk)
{
	__u32 port = sk->__sk_common.skc_num;
	__u64 *v = bpf_map_lookup_elem(&tcpst_flow_bytes, &port);
	return v ? *v : 0;
}

static __always_inline struct tcp_sock *tcp_of(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline int seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* include/net/tcp.h tcp_is_cwnd_limited, which BPF cannot call. */
static __always_inline int cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

/* Slow start's part of an ACK (below ssthresh), growing by at most `abc` segments (0 = no
 * limit): 1 when congestion avoidance follows with the `*acked` segments slow start left. */
static __always_inline int slow_start_part(struct tcp_sock *tp, __u32 *acked, __u64 abc)
{
	__u32 counted, rest;

	if (tp->snd_cwnd >= tp->snd_ssthresh)
		return 1;
	counted = abc && *acked > abc ? (__u32)abc : *acked;
	rest = tcp_slow_start(tp, counted);
	if (!rest)
		return 0;
	*acked = rest + (*acked - counted);
	return 1;
}

/* tcpstart's Reno growth per ACK (crates/tcpstart-cc/src/reno.rs) in segments: slow start grows
 * by at most `abc` segments per ACK (0 = no limit, Linux's own), and what reaches past ssthresh
 * goes on to congestion avoidance; there one segment per window of ACKs with abc = 1 (RFC 5681),
 * per window of acknowledged segments otherwise. */
static __always_inline void reno_grow_as(struct sock *sk, __u32 acked, __u64 abc, int limited)
{
	struct tcp_sock *tp = tcp_of(sk);

	if (!limited || !slow_start_part(tp, &acked, abc))
		return;
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, abc == 1 ? 1 : acked);
}

static __always_inline void reno_grow(struct sock *sk, __u32 acked, __u64 abc)
{
	reno_grow_as(sk, acked, abc, cwnd_limited(tcp_of(sk)));
}

/* The kernel's Reno response to loss (ssthresh = half of cwnd, at least 2; undo to the window
 * before), as `tcpst_ssthresh` and `tcpst_undo_cwnd` for a struct_ops table. */
#define TCPST_RENO_LOSS_RESPONSE                                              \
	SEC("struct_ops/tcpst_ssthresh")                                      \
	__u32 BPF_PROG(tcpst_ssthresh, struct sock *sk)                        \
	{                                                                     \
		return tcp_reno_ssthresh(sk);                                 \
	}                                                                     \
	SEC("struct_ops/tcpst_undo_cwnd")                                     \
	__u32 BPF_PROG(tcpst_undo_cwnd, struct sock *sk)                       \
	{                                                                     \
		return tcp_reno_undo_cwnd(sk);                                \
	}

#endif
