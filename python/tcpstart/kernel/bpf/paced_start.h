/* The frame the NASA report's start-ups share (crates/tcpstart-cc/src/paced_start.rs): an
 * initial window of four segments, a probe that watches the first ACKs, then one window paced over
 * the measured RTT with no growth while it is sent, then NewReno slow start (RFC 5681 growth,
 * abc = 1). A loss, a retransmission or a timeout before the window is sent means plain slow start.
 *
 * The including file defines, before including this:
 *   static __always_inline int probe_ack(struct sock *sk, struct paced *ca, __u32 acked,
 *                                        __u32 before, __u32 *window, __u32 *end_seq);
 * called for each ACK of new data until the start-up is over (while measuring and while pacing),
 * with the segments it acknowledged and the window (segments) before this ACK's growth; it
 * returns PROBE_CONTINUE, PROBE_ABORT, or PROBE_PACE with the window to pace (segments), its RTT
 * in ca->rtt_us, and the SND.NXT at which pacing ends (0: after one round trip).
 * Its own state lives in `struct paced`'s probe fields. */
#ifndef PACED_START_H
#define PACED_START_H

#include "tcpstart_cc.h"

#define INITIAL_WINDOW_SEGMENTS 4
enum { PS_MEASURING, PS_PACING, PS_DONE };
enum { PROBE_CONTINUE, PROBE_ABORT, PROBE_PACE };

struct paced {
	__u32 stage;
	__u32 end_seq;
	__u32 round_start;     /* SND.NXT when pacing began */
	__u32 seq0;            /* SND.NXT at init: the first data byte */
	__u64 first_sent_us;   /* the first data segment, on the connection's clock */
	/* the probe's */
	__u64 t1_us;
	__u32 acked1;
	__u32 rtt_us;
	__u32 acks;
};

static __always_inline struct paced *paced_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static int probe_ack(struct sock *sk, struct paced *ca, __u32 acked, __u32 before, __u32 *window,
		     __u32 *end_seq);

static __always_inline void paced_done(struct sock *sk, struct paced *ca)
{
	ca->stage = PS_DONE;
	sk->sk_pacing_status = SK_PACING_NONE;
}

SEC("struct_ops/ps_init")
void BPF_PROG(ps_init, struct sock *sk)
{
	struct paced *ca = paced_of(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->stage = PS_MEASURING;
	ca->seq0 = tcp_of(sk)->snd_nxt;
	tcp_of(sk)->snd_cwnd = INITIAL_WINDOW_SEGMENTS;
}

SEC("struct_ops/ps_cwnd_event")
void BPF_PROG(ps_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct paced *ca = paced_of(sk);

	/* The kernel signals the start of transmission with nothing in flight: the first time, that
	 * is the first data segment. */
	if (ev == CA_EVENT_TX_START && !ca->first_sent_us)
		ca->first_sent_us = tcp_of(sk)->tcp_mstamp;
}

SEC("struct_ops/ps_set_state")
void BPF_PROG(ps_set_state, struct sock *sk, __u8 new_state)
{
	struct paced *ca = paced_of(sk);

	if ((new_state == TCP_CA_RECOVERY || new_state == TCP_CA_LOSS) && ca->stage != PS_DONE)
		paced_done(sk, ca);
}

SEC("struct_ops/ps_cong_avoid")
void BPF_PROG(ps_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct paced *ca = paced_of(sk);
	__u32 before = tp->snd_cwnd, window = 0, end_seq = 0;
	int d;

	/* A retransmission (a tail-loss probe's too) before the window is sent: slow start. */
	if (ca->stage != PS_DONE && tp->total_retrans)
		paced_done(sk, ca);
	/* A window with an end is over once SND.NXT has reached it (seen at the next ACK). */
	if (ca->stage == PS_PACING && ca->end_seq && !seq_before(tp->snd_nxt, ca->end_seq))
		paced_done(sk, ca);
	/* No growth while a window is paced; while the probe measures, growth as if cwnd-limited. */
	if (ca->stage == PS_DONE) {
		reno_grow(sk, acked, 1);
		return;
	}
	if (ca->stage == PS_MEASURING)
		reno_grow_as(sk, acked, 1, 1);
	d = probe_ack(sk, ca, acked, before, &window, &end_seq);
	/* A window without an end lasts one round trip. */
	if (ca->stage == PS_PACING && !ca->end_seq && seq_before(ca->round_start, tp->snd_una)) {
		paced_done(sk, ca);
		return;
	}
	if (d == PROBE_ABORT || (d == PROBE_PACE && (!window || !ca->rtt_us))) {
		paced_done(sk, ca);
	} else if (d == PROBE_PACE) {
		if (ca->stage != PS_PACING)
			ca->round_start = tp->snd_nxt;
		ca->stage = PS_PACING;
		ca->end_seq = end_seq;
		tp->snd_cwnd = window;
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = (__u64)window * tp->mss_cache * USEC_PER_SEC / ca->rtt_us;
	}
}

TCPST_RENO_LOSS_RESPONSE

#define PACED_START_OPS(var)                           \
	SEC(".struct_ops")                             \
	struct tcp_congestion_ops var = {              \
		.init = (void *)ps_init,               \
		.cwnd_event = (void *)ps_cwnd_event,   \
		.set_state = (void *)ps_set_state,     \
		.cong_avoid = (void *)ps_cong_avoid,   \
		.ssthresh = (void *)tcpst_ssthresh,       \
		.undo_cwnd = (void *)tcpst_undo_cwnd,     \
		.name = TCPST_NAME,                    \
	}

#endif
