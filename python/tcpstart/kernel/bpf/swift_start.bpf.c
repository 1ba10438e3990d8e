/* Swift Start with the NASA fixes (Partridge et al., BBN TR-8339; Lawas-Grodek and Tran,
 * NASA/TM-2004-212938), as crates/tcpstart-cc/src/swift_start.rs (variant Nasa) reads it: the
 * first two ACKs of the four-segment initial window are a packet pair; their spacing `delta`
 * and the RTT from the first data segment to the first ACK give the capacity estimate
 * ce = bytes x RTT / delta, and ce / gamma is paced over the second round trip, then slow start.
 * Abort (plain slow start) when the two ACKs cover different amounts (the delayed-ACK timer
 * split the pair), when delta is zero, or when the estimate is not above the window. */
#include "paced_start.h"

#define P_GAMMA 0

static __always_inline int probe_ack(struct sock *sk, struct paced *ca, __u32 acked, __u32 before,
				     __u32 *window, __u32 *end_seq)
{
	struct tcp_sock *tp = tcp_of(sk);
	__u64 gamma = param_milli(P_GAMMA), delta, bytes, w;
	__u32 n = ca->acks++;

	if (n > 1)
		return PROBE_CONTINUE;
	if (n == 0) {
		if (!ca->first_sent_us)
			return PROBE_ABORT;
		ca->t1_us = tp->tcp_mstamp;
		ca->acked1 = acked;
		ca->rtt_us = tp->tcp_mstamp - ca->first_sent_us;
		return PROBE_CONTINUE;
	}
	delta = tp->tcp_mstamp - ca->t1_us;
	if (acked != ca->acked1 || delta == 0 || gamma == 0)
		return PROBE_ABORT;
	bytes = (__u64)acked * tp->mss_cache;
	/* ce / gamma in segments, gamma in thousandths */
	w = bytes * ca->rtt_us * PARAM_SCALE / (delta * gamma) / tp->mss_cache;
	if (w <= before || w > 0xffff)
		return PROBE_ABORT;
	*window = w;
	*end_seq = tp->snd_una + w * tp->mss_cache;
	return PROBE_PACE;
}

PACED_START_OPS(swift_start);
