//! The sender's loss recovery against the RFCs' rules, segment by segment, through the harness.

use core::time::Duration;

use super::harness::{span, Harness, MSS};

const RTT: Duration = Duration::from_millis(100);

fn reno(tcp: &str, segments: u64) -> Harness {
    Harness::new("newreno", tcp, segments, RTT)
}

#[test]
fn initial_window_then_one_segment_per_acked_segment_in_slow_start() {
    let mut h = reno("", 100);
    assert_eq!(h.sent(), span(0, 10));
    assert_eq!(h.ack(1, &[]), "10 11");
}

#[test]
fn limited_transmit_sends_a_new_segment_on_each_of_the_first_two_duplicate_acks() {
    // RFC 3042: the first two duplicate ACKs each let one new segment out; the third starts fast
    // retransmit (RFC 5681 3.2), which sends the lost segment whatever the window says.
    let mut h = reno("", 100);
    h.sent();
    assert_eq!(h.ack(0, &[(1, 2)]), "10");
    assert_eq!(h.ack(0, &[(1, 3)]), "11");
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
}

#[test]
fn without_limited_transmit_or_sack_the_first_duplicate_acks_send_nothing() {
    // With SACK a SACKed segment leaves pipe and the window lets the next one out anyway.
    let mut h = reno(r#""limited_transmit": false, "sack": false"#, 100);
    h.sent();
    assert_eq!(h.ack(0, &[(1, 2)]), "");
    assert_eq!(h.ack(0, &[(1, 3)]), "");
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
}

#[test]
fn rfc6675_recovery_sends_new_data_once_pipe_is_below_ssthresh() {
    // FlightSize 10 (the limited-transmit segments 10, 11 left out: RFC 5681 3.2 step 2) gives
    // ssthresh = cwnd = 5. After the third duplicate ACK pipe is 8 (segments 4-11) plus the
    // retransmission: 9. Each further SACK takes one off pipe; new data goes once pipe < 5.
    let mut h = reno("", 100);
    h.sent();
    h.ack(0, &[(1, 2)]);
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
    assert_eq!(h.ack(0, &[(1, 5)]), "", "pipe 8");
    assert_eq!(h.ack(0, &[(1, 6)]), "", "pipe 7");
    assert_eq!(h.ack(0, &[(1, 7)]), "", "pipe 6");
    assert_eq!(h.ack(0, &[(1, 8)]), "", "pipe 5");
    assert_eq!(h.ack(0, &[(1, 9)]), "12", "pipe 4: one new segment");
    assert_eq!(h.ack(0, &[(1, 10)]), "13");
}

#[test]
fn nextseg_rule_1_retransmits_a_lost_segment_before_new_data() {
    // Segments 0 and 2 lost. Three SACKed segments above 0 start recovery (ssthresh 5: FlightSize
    // 12 less the two segments the duplicate ACKs let out); three above 2 make it lost too, but
    // it waits for pipe to fall below cwnd, and then goes before any new data.
    let mut h = reno("", 100);
    h.sent();
    assert_eq!(h.ack(0, &[(1, 2)]), "10");
    assert_eq!(h.ack(0, &[(3, 4), (1, 2)]), "11");
    assert_eq!(h.ack(0, &[(3, 5), (1, 2)]), "0r");
    assert_eq!(h.ack(0, &[(3, 6), (1, 2)]), "", "2 lost; pipe 7: 0r, 6-11");
    assert_eq!(h.ack(0, &[(3, 7), (1, 2)]), "", "pipe 6");
    assert_eq!(h.ack(0, &[(3, 8), (1, 2)]), "", "pipe 5");
    assert_eq!(h.ack(0, &[(3, 9), (1, 2)]), "2r", "pipe 4");
    assert_eq!(h.ack(0, &[(3, 10), (1, 2)]), "12");
}

#[test]
fn nextseg_rule_3_repairs_a_hole_at_the_end_of_the_transfer() {
    // Ten segments, 0 and 8 lost: after 0 is repaired no new data is left and 8 has only one
    // SACKed segment above it, never three: rule 3 retransmits it without a timeout.
    let mut h = reno(r#""limited_transmit": false"#, 10);
    h.sent();
    h.ack(0, &[(1, 2)]);
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
    for end in 5..=8 {
        h.ack(0, &[(1, end)]);
    }
    assert_eq!(h.ack(0, &[(9, 10), (1, 8)]), "8r", "below the highest SACKed segment, never retransmitted");
    // Rule 4's rescue then takes the highest unSACKed segment, 8 again: RFC 6675 does not ask
    // whether rule 3 sent it already.
    assert_eq!(h.ack(8, &[(9, 10)]), "8r");
}

#[test]
fn nextseg_rule_4_sends_one_rescue_retransmission_per_recovery() {
    // Ten segments, 0 and the last one (9) lost: nothing above 9 is ever SACKed, so rules 1 and
    // 3 cannot find it. Once SND.UNA passes the fast retransmission, rule 4 retransmits the
    // highest unSACKed segment, once.
    let mut h = reno(r#""limited_transmit": false"#, 10);
    h.sent();
    h.ack(0, &[(1, 2)]);
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
    for end in 5..=9 {
        h.ack(0, &[(1, end)]);
    }
    assert_eq!(h.ack(9, &[]), "9r", "rescue");
    assert_eq!(h.ack(9, &[]), "", "once per recovery");
}

#[test]
fn prr_lets_out_ssthresh_over_recoverfs_of_what_is_delivered() {
    // RFC 6937: RecoverFS = SND.NXT - SND.UNA = 12 segments (two sent on the first duplicate
    // ACKs), ssthresh 5: while pipe > ssthresh, the sender may have sent CEIL(delivered * 5 / 12)
    // segments, the fast retransmission on the first ACK included.
    let mut h = reno(r#""limited_transmit": false, "recovery": "prr""#, 100);
    h.sent();
    h.ack(0, &[(1, 2)]);
    h.ack(0, &[(1, 3)]);
    assert_eq!(h.ack(0, &[(1, 4)]), "0r");
    let sent: Vec<String> = (5..=9).map(|end| h.ack(0, &[(1, end)])).collect();
    assert_eq!(sent, ["", "12", "", "13", ""]);
}

#[test]
fn a_timeout_retransmits_the_first_segment_and_restarts_from_one_segment() {
    let mut h = reno("", 100);
    h.sent();
    assert_eq!(h.advance(Duration::from_millis(999)), "");
    assert_eq!(h.advance(Duration::from_millis(2)), "0r");
}

#[test]
fn linux_profile_halves_cwnd_where_the_rfc_halves_flight_size() {
    // Six segments, less than the initial window of ten: FlightSize is 6, cwnd 10. Three SACKed
    // segments above 0 start recovery: RFC 5681 ssthresh = 6 / 2 = 3 segments; Linux's
    // tcp_reno_ssthresh = cwnd / 2 = 5.
    for (profile, ssthresh) in [("rfc", 3), ("linux", 5)] {
        let mut h = reno(&format!(r#""profile": "{profile}""#), 6);
        assert_eq!(h.sent(), span(0, 6));
        h.advance(RTT);
        h.ack(0, &[(1, 2)]);
        h.ack(0, &[(1, 3)]);
        assert_eq!(h.ack(0, &[(1, 4)]), "0r");
        assert_eq!(h.sender.sample().ssthresh, ssthresh * super::harness::MSS, "{profile}");
    }
}

#[test]
fn linux_prr_divides_by_the_cwnd_before_recovery() {
    // Initial window 20, two segments let out by the first duplicate ACKs: ssthresh 10 in both
    // profiles, RecoverFS 22 (RFC 6937: SND.NXT - SND.UNA) or 20 (Linux: prior cwnd). While pipe
    // stays above ssthresh the sender may have sent CEIL(delivered * 10 / RecoverFS) segments:
    // the two part at the eleventh segment delivered (5 against 6).
    for (profile, last) in [("rfc", ""), ("linux", "26")] {
        let tcp =
            format!(r#""profile": "{profile}", "limited_transmit": false, "recovery": "prr", "initial_window": 20"#);
        let mut h = reno(&tcp, 100);
        h.sent();
        h.advance(RTT);
        assert_eq!(h.ack(0, &[(1, 2)]), "20");
        assert_eq!(h.ack(0, &[(1, 3)]), "21");
        assert_eq!(h.ack(0, &[(1, 4)]), "0r");
        let sent: Vec<String> = (5..=14).map(|end| h.ack(0, &[(1, end)])).collect();
        assert_eq!(sent, ["", "22", "", "23", "", "24", "", "25", "", last], "{profile}");
    }
}

const MS: Duration = Duration::from_millis(1);

#[test]
fn rack_finds_a_lost_retransmission_where_rfc6675_waits_for_the_timeout() {
    // Segment 0 and its first retransmission are lost. Once a segment sent after that
    // retransmission is SACKed (an RTT later), RACK deems it lost again and sends it once more;
    // RFC 6675 leaves a retransmitted segment to the retransmission timer.
    for (profile, again) in [("linux", true), ("rfc", false)] {
        let mut h = reno(&format!(r#""profile": "{profile}", "recovery": "prr""#), 100);
        h.sent();
        h.advance(RTT);
        h.ack(0, &[(1, 2)]);
        h.advance(MS);
        h.ack(0, &[(1, 3)]);
        h.advance(MS);
        assert_eq!(h.ack(0, &[(1, 4)]), "0r", "{profile}");
        let mut new = Vec::new();
        for end in 5..=10 {
            h.advance(MS);
            new.extend(h.ack(0, &[(1, end)]).split_whitespace().map(|s| s.parse::<u64>().unwrap()));
        }
        let last = *new.last().expect("PRR let new segments out");
        h.advance(RTT);
        let sent = h.ack(0, &[(10, last + 1), (1, 10)]);
        assert_eq!(sent.split_whitespace().any(|s| s == "0r"), again, "{profile}: {sent}");
    }
}

#[test]
fn a_tail_loss_probe_retransmits_the_last_segment_two_rtts_on() {
    // Ten segments, the last two lost; the ACK of the first eight comes an RTT (100 ms) later.
    // Linux probes 2 SRTT + 2 ms after it with the highest unSACKed segment; RFC 6675 has no
    // SACK to act on and waits for the retransmission timer (1 s).
    for (profile, probe) in [("linux", "9r"), ("rfc", "")] {
        let mut h = reno(&format!(r#""profile": "{profile}""#), 10);
        h.sent();
        h.advance(RTT);
        assert_eq!(h.ack(8, &[]), "");
        assert_eq!(h.advance(Duration::from_millis(201)), "", "{profile}");
        assert_eq!(h.advance(Duration::from_millis(2)), probe, "{profile}");
    }
}

#[test]
fn linux_paces_bursts_of_a_millisecond_of_data_at_least_two_segments() {
    // BBR's first window at 2.89 x 10 segments per 100 ms = 289 kB/s: a millisecond holds 282 B,
    // below two segments, so the profile sends pairs; the RFC model one segment at a time.
    // Both without the ten unpaced segments Linux starts with (`unpaced_segments`).
    for (profile, first) in [("linux", "0 1"), ("rfc", "0")] {
        let h = Harness::new("bbr", &format!(r#""profile": "{profile}", "unpaced_segments": 0"#), 100, RTT);
        let mut h = h;
        assert_eq!(h.sent(), first, "{profile}");
    }
}

#[test]
fn linux_counts_a_short_last_segment_as_a_whole_segment_of_the_window() {
    // A window of 10.5 segments and a transfer of 10.5: the RFC model's byte count lets the short
    // eleventh segment (500 B) out with the ten full ones; Linux's window is in packets (ten), so
    // it waits for the first ACK.
    for (profile, first, after) in [("rfc", span(0, 11), ""), ("linux", span(0, 10), "10")] {
        let tcp = format!(r#""profile": "{profile}", "initial_window": "{}B""#, 10 * MSS + MSS / 2);
        let mut h = Harness::with_size("newreno", &tcp, 10 * MSS + MSS / 2, RTT);
        assert_eq!(h.sent(), first, "{profile}");
        h.advance(RTT);
        assert_eq!(h.ack(1, &[]), after, "{profile}");
    }
}
