/* HighSpeed TCP (RFC 3649 section 5) as the kernel's congestion control: the reading of
 * crates/tcpstart-cc/src/highspeed.rs, in segments.
 *
 * Slow start and, at or below Low_Window, congestion avoidance are Reno's with tcpstart's
 * byte-counting limit `abc`. Above it each ACK adds a(w) segments of credit and cwnd grows one
 * segment per w segments of credit (w = cwnd), so a(w) segments per window of ACKs. A loss leaves
 * ssthresh = (1 - b(w)) x cwnd, rounded down, at least 2 segments; undo is the kernel's Reno's.
 *
 * a(w) and b(w) (RFC 3649's formulas, which need logarithms BPF does not have) are read from
 * `hs_response`, one row per window in segments, which the loader fills from the flow's
 * parameters (tcpstart.kernel.hsresponse); windows beyond the last row use it. */
#include "tcpstart_cc.h"

#define P_ABC 0
#define P_LOW_WINDOW 2
#define HS_ROWS 65536  /* hsresponse.ROWS */
#define MICRO 1000000ULL

struct hs_row {
	__u32 a_micro;  /* a(w) in millionths of a segment */
	__u32 b_micro;  /* b(w) in millionths */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HS_ROWS);
	__type(key, __u32);
	__type(value, struct hs_row);
} hs_response SEC(".maps");

struct hs {
	__u64 credit;  /* millionths of a segment */
};

static __always_inline struct hs *hs_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct hs_row *response(__u32 w)
{
	__u32 i = w < HS_ROWS ? w : HS_ROWS - 1;

	return bpf_map_lookup_elem(&hs_response, &i);
}

SEC("struct_ops/hs_init")
void BPF_PROG(hs_init, struct sock *sk)
{
	hs_of(sk)->credit = 0;
}

SEC("struct_ops/hs_cong_avoid")
void BPF_PROG(hs_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct hs *ca = hs_of(sk);
	__u64 abc = param(P_ABC), per, inc;
	struct hs_row *r;
	__u32 w;

	if (!cwnd_limited(tp) || !slow_start_part(tp, &acked, abc))
		return;
	w = tp->snd_cwnd;
	if (w <= param(P_LOW_WINDOW)) {
		tcp_cong_avoid_ai(tp, w, abc == 1 ? 1 : acked);
		return;
	}
	r = response(w);
	if (!r)
		return;
	ca->credit += r->a_micro;
	per = (__u64)w * MICRO;
	if (ca->credit < per)
		return;
	inc = ca->credit / per;
	ca->credit -= inc * per;
	tp->snd_cwnd = w + inc < tp->snd_cwnd_clamp ? w + inc : tp->snd_cwnd_clamp;
}

SEC("struct_ops/hs_ssthresh")
__u32 BPF_PROG(hs_ssthresh, struct sock *sk)
{
	__u32 w = tcp_of(sk)->snd_cwnd, s;
	struct hs_row *r = response(w);
	__u64 b = r ? r->b_micro : MICRO / 2;

	s = (__u32)((__u64)w * (MICRO - b) / MICRO);
	return s > 2 ? s : 2;
}

SEC("struct_ops/hs_undo_cwnd")
__u32 BPF_PROG(hs_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops highspeed = {
	.init = (void *)hs_init,
	.cong_avoid = (void *)hs_cong_avoid,
	.ssthresh = (void *)hs_ssthresh,
	.undo_cwnd = (void *)hs_undo_cwnd,
	.name = TCPST_NAME,
};
