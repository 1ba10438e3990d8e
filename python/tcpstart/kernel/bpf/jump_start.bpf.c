/* Jump Start (Liu, Allman, Jin, Wang, PFLDnet 2007) as the kernel's congestion control: the
 * reading of crates/tcpstart-cc/src/jump_start.rs (docs/algorithms/jump-start.md), in segments.
 *
 * init (the handshake is over): D = min(receiver window, queued data); cwnd = max(D, IW), paced
 * at D / handshake RTT by the kernel's own pacing (SK_PACING_NEEDED, no fq needed).
 * The first ACK ends the jump: cwnd = ssthresh = what the jump sent (at least IW), pacing off,
 * then NewReno growth with tcpstart's byte-counting limit. The first recovery of data sent in the
 * jump ends with cwnd = ssthresh = (D - R) / 2, R the data retransmitted in it; a timeout is the
 * kernel's (one segment, slow start). */
#include "tcpstart_cc.h"

/* Parameters, as in the Rust registration. */
#define P_UNPACED_WITHIN_IW 0
#define P_ABC 1

struct jump_start {
	__u32 in_jump;
	__u32 iw;              /* segments */
	__u32 jump_seq;        /* SND.NXT when the jump began */
	__u32 jump_end_seq;    /* SND.NXT when it ended */
	__u32 jump_sent;       /* bytes the jump sent */
	__u32 loss_pending;    /* no recovery yet */
	__u32 in_jump_recovery;
	__u32 retrans_at_recovery;
};

static __always_inline struct jump_start *ca_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

SEC("struct_ops/js_init")
void BPF_PROG(js_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct jump_start *ca = ca_of(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u32 srtt = tp->srtt_us >> 3;
	__u64 queued = flow_size(sk);
	__u64 window = (__u64)(tp->snd_wnd / mss ? tp->snd_wnd / mss : 1) * mss;
	__u64 d = queued && queued <= tp->snd_wnd ? queued : window;
	__u32 segments = (d + mss - 1) / mss;

	ca->in_jump = 0;
	ca->iw = tp->snd_cwnd;
	ca->jump_seq = tp->snd_nxt;
	ca->jump_end_seq = tp->snd_nxt;
	ca->jump_sent = 0;
	ca->loss_pending = 1;
	ca->in_jump_recovery = 0;
	/* No RTT sample (a retransmitted SYN): nothing to pace over, slow start from IW. */
	if (srtt == 0 || d == 0)
		return;
	ca->in_jump = 1;
	if (segments > tp->snd_cwnd)
		tp->snd_cwnd = segments;
	if (param(P_UNPACED_WITHIN_IW) && d <= (__u64)ca->iw * mss)
		return;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	sk->sk_pacing_rate = d * USEC_PER_SEC / srtt;
}

static __always_inline void end_jump(struct sock *sk, struct jump_start *ca)
{
	struct tcp_sock *tp = tcp_of(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u32 sent = tp->snd_nxt - ca->jump_seq;
	__u32 cwnd = (sent + mss - 1) / mss;

	if (cwnd < ca->iw)
		cwnd = ca->iw;
	ca->in_jump = 0;
	ca->jump_sent = sent;
	ca->jump_end_seq = tp->snd_nxt;
	tp->snd_cwnd = cwnd;
	tp->snd_ssthresh = cwnd;
	sk->sk_pacing_status = SK_PACING_NONE;
}

SEC("struct_ops/js_in_ack_event")
void BPF_PROG(js_in_ack_event, struct sock *sk, __u32 flags)
{
	struct jump_start *ca = ca_of(sk);

	/* The first ACK means a round trip has passed. */
	if (ca->in_jump)
		end_jump(sk, ca);
}

SEC("struct_ops/js_set_state")
void BPF_PROG(js_set_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct jump_start *ca = ca_of(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;

	if (ca->in_jump)
		end_jump(sk, ca);
	if (new_state == TCP_CA_RECOVERY) {
		/* Only the first recovery, and only if its hole is in data the jump sent. */
		ca->in_jump_recovery = ca->loss_pending && seq_before(tp->snd_una, ca->jump_end_seq);
		ca->loss_pending = 0;
		ca->retrans_at_recovery = tp->total_retrans;
	} else if (new_state == TCP_CA_LOSS) {
		ca->in_jump_recovery = 0;
		ca->loss_pending = 0;
	} else if (new_state == TCP_CA_OPEN && ca->in_jump_recovery) {
		/* The kernel sets cwnd = ssthresh right after this (tcp_end_cwnd_reduction). */
		__u32 r = (tp->total_retrans - ca->retrans_at_recovery) * mss;
		__u32 cwnd = ca->jump_sent > r ? (ca->jump_sent - r) / 2 / mss : 0;

		if (cwnd < 2)
			cwnd = 2;
		ca->in_jump_recovery = 0;
		tp->snd_cwnd = cwnd;
		tp->snd_ssthresh = cwnd;
	}
}

SEC("struct_ops/js_cong_avoid")
void BPF_PROG(js_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	reno_grow(sk, acked, param(P_ABC));
}

TCPST_RENO_LOSS_RESPONSE

SEC(".struct_ops")
struct tcp_congestion_ops jump_start = {
	.init = (void *)js_init,
	.in_ack_event = (void *)js_in_ack_event,
	.set_state = (void *)js_set_state,
	.cong_avoid = (void *)js_cong_avoid,
	.ssthresh = (void *)tcpst_ssthresh,
	.undo_cwnd = (void *)tcpst_undo_cwnd,
	.name = TCPST_NAME,
};
