/* Pacing only, the NASA report's second Swift Start kernel (NASA/TM-2004-212938, "Testing with
 * pacing only"), as crates/tcpstart-cc/src/pacing_only.rs reads it: four segments back to back;
 * the first ACK of data gives the RTT from the first data segment, and the six segments slow
 * start would send in the second round trip are paced over it, then slow start. */
#include "paced_start.h"

#define PACED_SEGMENTS 6

static __always_inline int probe_ack(struct sock *sk, struct paced *ca, __u32 acked, __u32 before,
				     __u32 *window, __u32 *end_seq)
{
	struct tcp_sock *tp = tcp_of(sk);

	if (ca->acks++)
		return PROBE_CONTINUE;
	if (!ca->first_sent_us)
		return PROBE_ABORT;
	ca->rtt_us = tp->tcp_mstamp - ca->first_sent_us;
	*window = PACED_SEGMENTS;
	*end_seq = tp->snd_nxt + PACED_SEGMENTS * tp->mss_cache;
	return PROBE_PACE;
}

PACED_START_OPS(pacing_only);
