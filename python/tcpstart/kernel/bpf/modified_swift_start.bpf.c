/* Modified Swift Start (the receiver measures the packet pair), as
 * crates/tcpstart-cc/src/modified_swift_start.rs reads it, in two programs of one object:
 *
 * - `mss_sockops` (sock_ops, attached to the run's cgroup, both ends). The receiver takes the
 *   initial window's segments 1-2 and 3-4 as two pairs. Linux acknowledges each of a
 *   connection's first segments at once (quick-ACK mode), so the ACK it sends for a segment marks
 *   that segment's arrival: when an ACK covers exactly one more segment than the one before, and
 *   that segment is a pair's Second whose First was acknowledged alone just before, the gap
 *   between the two ACKs is the pair's arrival gap. It goes, in microseconds, in an experimental
 *   TCP option (kind 253, ExID 0xEB9F, RFC 6994) on that same ACK; the sender parses it into the
 *   socket's storage. (A sock_ops program does not see data segments that take Linux's header
 *   prediction fast path, so the arrival is read from the ACK the segment triggers.)
 * - the congestion control (paced_start.h): on an ACK carrying a gap, cwnd = RTT x MSS / gap
 *   (no gamma), RTT from the first data segment, paced over one round trip; the second pair's
 *   gap re-plans; an estimate not above the window, a loss or a retransmission first: slow start.
 *
 * Only the testbed's flows of this algorithm take part: the sock_ops program acts on connections
 * whose sender port is in tcpst_flow_bytes. */
#include "paced_start.h"
#include <bpf/bpf_endian.h>

#define OPT_KIND 253
#define OPT_EXID_0 0xEB
#define OPT_EXID_1 0x9F
#define IW_PAIRS 2
#define TCPHDR_ACK 0x10

enum { ROLE_NONE, ROLE_SENDER, ROLE_RECEIVER };

struct pair_state {
	__u32 role;
	__u32 seq0;          /* the first data byte's sequence number */
	__u32 acked;         /* receiver: data acknowledged by its last ACK */
	__u32 first;         /* receiver: the segment (1, 3) whose lone ACK opened a pair, 0: none */
	__u64 first_at_ns;
	__u32 pending_us;    /* receiver: the gap to write on the ACK being sent */
	__u32 echo_us;       /* sender: the last gap received, not yet used */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pair_state);
} tcpst_pairs SEC(".maps");

struct gap_opt {
	__u8 kind, len, exid0, exid1;
	__u32 gap_us;        /* network byte order */
} __attribute__((packed));

static __always_inline int ours(__u32 sender_port)
{
	return bpf_map_lookup_elem(&tcpst_flow_bytes, &sender_port) != 0;
}

/* Receiver: an ACK is about to be sent; note the arrival its new data marks. */
static __always_inline void on_ack_out(struct bpf_sock_ops *skops, struct pair_state *st)
{
	__u32 mss = skops->mss_cache, got = skops->rcv_nxt - st->seq0, n;
	__u64 now;

	if (got == st->acked || !mss)
		return;
	n = got / mss;
	now = bpf_ktime_get_ns();
	if (got == st->acked + mss && got % mss == 0 && n <= IW_PAIRS * 2) {
		if (n % 2) {
			st->first = n;
			st->first_at_ns = now;
		} else if (st->first == n - 1) {
			__u64 gap = (now - st->first_at_ns) / 1000;

			st->pending_us = gap ? gap : 1;
			st->first = 0;
		}
	} else {
		st->first = 0;   /* two segments in one ACK: that pair cannot be measured */
	}
	st->acked = got;
}

SEC("sockops")
int mss_sockops(struct bpf_sock_ops *skops)
{
	struct pair_state *st;
	struct gap_opt opt = {};
	struct bpf_sock *sk = skops->sk;

	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB: {
		int receiver = skops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;

		if (!sk || !ours(receiver ? bpf_ntohl(skops->remote_port) : skops->local_port))
			return 1;
		st = bpf_sk_storage_get(&tcpst_pairs, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!st)
			return 1;
		st->role = receiver ? ROLE_RECEIVER : ROLE_SENDER;
		st->seq0 = skops->rcv_nxt;  /* the sender never uses it */
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | (receiver ?
					  BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG : BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG));
		return 1;
	}
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		/* The sender: an ACK that carries the option (it misses the fast path by its length). */
		if (!sk || !(st = bpf_sk_storage_get(&tcpst_pairs, sk, 0, 0)))
			return 1;
		opt.kind = OPT_KIND;
		opt.len = 4;                 /* search by the 2-byte ExID */
		opt.exid0 = OPT_EXID_0;
		opt.exid1 = OPT_EXID_1;
		if (bpf_load_hdr_opt(skops, &opt, sizeof(opt), 0) == sizeof(opt))
			st->echo_us = bpf_ntohl(opt.gap_us);
		return 1;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		/* The receiver, for each packet it sends (and without one, to size segments: skipped). */
		if (!sk || !(skops->skb_tcp_flags & TCPHDR_ACK) || !(st = bpf_sk_storage_get(&tcpst_pairs, sk, 0, 0)))
			return 1;
		on_ack_out(skops, st);
		if (st->pending_us)
			bpf_reserve_hdr_opt(skops, sizeof(opt), 0);
		return 1;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		if (!sk || !(st = bpf_sk_storage_get(&tcpst_pairs, sk, 0, 0)) || !st->pending_us)
			return 1;
		opt.kind = OPT_KIND;
		opt.len = sizeof(opt);
		opt.exid0 = OPT_EXID_0;
		opt.exid1 = OPT_EXID_1;
		opt.gap_us = bpf_htonl(st->pending_us);
		if (bpf_store_hdr_opt(skops, &opt, sizeof(opt), 0) == 0)
			st->pending_us = 0;
		return 1;
	}
	return 1;
}

static __always_inline int probe_ack(struct sock *sk, struct paced *ca, __u32 acked, __u32 before,
				     __u32 *window, __u32 *end_seq)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct pair_state *st = bpf_sk_storage_get(&tcpst_pairs, sk, 0, 0);
	__u32 gap, pairs, rtt, w, replan;

	if (!st || !st->echo_us)
		return PROBE_CONTINUE;
	gap = st->echo_us;
	st->echo_us = 0;
	/* The pair just acknowledged: the highest whose Second lies below the cumulative ACK. Both
	 * pairs' Firsts left with the initial window, back to back, when transmission started. */
	pairs = (tp->snd_una - ca->seq0) / (2 * tp->mss_cache);
	if (!pairs || pairs > IW_PAIRS || !ca->first_sent_us)
		return PROBE_CONTINUE;
	rtt = tp->tcp_mstamp - ca->first_sent_us;
	w = rtt / gap;
	replan = ca->acks;
	ca->acks = 1;
	if (w <= before)
		return replan ? PROBE_CONTINUE : PROBE_ABORT;
	ca->rtt_us = rtt;
	*window = w;
	*end_seq = 0;
	return PROBE_PACE;
}

PACED_START_OPS(modified_swift_start);
