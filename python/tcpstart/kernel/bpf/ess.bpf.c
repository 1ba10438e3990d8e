/* Enhanced Slow-Start (Wang, Ni, Zhu, Wang 2021, sections 3.2-3.5) as the kernel's congestion
 * control: the reading of crates/tcpstart-cc/src/ess.rs, in segments.
 *
 * Calculation cycles: after the first ACK, the next new segment (the one at SND.NXT, sent while
 * that ACK is processed) is the selected packet; the cycle ends with its ACK. The ACKs before it
 * in the cycle are the train: B = train bytes / (train's last ACK - cycle start), t2 = the
 * selected packet's RTT, cwnd_max = B x t2. At a cycle end: t2 > rtt_limit x min RTT, or
 * cwnd >= cwnd_max, leaves slow start (ssthresh = cwnd); otherwise cwnd = cwnd_max and the next
 * cycle starts. Slow start and the NewReno AIMD after it grow with tcpstart's byte-counting
 * limit; a loss or a timeout ends ESS with the kernel's Reno response. */
#include "tcpstart_cc.h"

#define P_RTT_LIMIT 0
#define P_ABC 1

enum { BEFORE_FIRST_ACK, NEXT, RUNNING, ESS_DONE };

struct ess {
	__u32 selection;
	__u32 end_seq;        /* the selected packet is acknowledged when SND.UNA reaches this */
	__u64 start_us;       /* when it left */
	__u64 train_bytes;
	__u64 train_end_us;   /* 0: no train yet */
};

static __always_inline struct ess *ess_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

SEC("struct_ops/ess_init")
void BPF_PROG(ess_init, struct sock *sk)
{
	__builtin_memset(ess_of(sk), 0, sizeof(struct ess));
}

static __always_inline void ess_exit(struct tcp_sock *tp, struct ess *ca)
{
	ca->selection = ESS_DONE;
	tp->snd_ssthresh = tp->snd_cwnd;
}

static __always_inline void end_cycle(struct sock *sk, struct ess *ca)
{
	struct tcp_sock *tp = tcp_of(sk);
	__u64 now = tp->tcp_mstamp, t2 = now - ca->start_us;
	__u64 min_rtt = tp->rtt_min.s[0].v;
	__u64 span = ca->train_end_us > ca->start_us ? ca->train_end_us - ca->start_us : 0;
	__u64 max_segs;

	if (min_rtt && t2 * PARAM_SCALE > param_milli(P_RTT_LIMIT) * min_rtt) {
		ess_exit(tp, ca);
		return;
	}
	ca->selection = NEXT;
	if (!span || !ca->train_bytes)
		return;  /* no train: no estimate this cycle */
	max_segs = ca->train_bytes * t2 / span / tp->mss_cache;
	if (max_segs > tp->snd_cwnd_clamp)
		max_segs = tp->snd_cwnd_clamp;
	if (tp->snd_cwnd >= max_segs)
		ess_exit(tp, ca);
	else
		tp->snd_cwnd = max_segs;
}

SEC("struct_ops/ess_cong_avoid")
void BPF_PROG(ess_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct ess *ca = ess_of(sk);

	/* Exponential growth is kept during ESS: the increase first, then the cycle's end. */
	reno_grow(sk, acked, param(P_ABC));
	if (!acked)
		return;
	if (ca->selection == BEFORE_FIRST_ACK || ca->selection == NEXT) {
		ca->selection = RUNNING;
		ca->end_seq = tp->snd_nxt + tp->mss_cache;
		ca->start_us = tp->tcp_mstamp;
		ca->train_bytes = 0;
		ca->train_end_us = 0;
	} else if (ca->selection == RUNNING) {
		if (!seq_before(tp->snd_una, ca->end_seq)) {
			end_cycle(sk, ca);
			/* The next cycle's selected packet leaves while this ACK is processed. */
			if (ca->selection == NEXT) {
				ca->selection = RUNNING;
				ca->end_seq = tp->snd_nxt + tp->mss_cache;
				ca->start_us = tp->tcp_mstamp;
				ca->train_bytes = 0;
				ca->train_end_us = 0;
			}
		} else {
			ca->train_bytes += (__u64)acked * tp->mss_cache;
			ca->train_end_us = tp->tcp_mstamp;
		}
	}
}

SEC("struct_ops/ess_set_state")
void BPF_PROG(ess_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_RECOVERY || new_state == TCP_CA_LOSS)
		ess_of(sk)->selection = ESS_DONE;
}

TCPST_RENO_LOSS_RESPONSE

SEC(".struct_ops")
struct tcp_congestion_ops ess = {
	.init = (void *)ess_init,
	.cong_avoid = (void *)ess_cong_avoid,
	.set_state = (void *)ess_set_state,
	.ssthresh = (void *)tcpst_ssthresh,
	.undo_cwnd = (void *)tcpst_undo_cwnd,
	.name = TCPST_NAME,
};
