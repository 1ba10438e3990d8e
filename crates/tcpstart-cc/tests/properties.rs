//! Property tests: any sequence of events leaves every registered controller with a finite
//! window of at least one segment, and a finite positive pacing rate if it paces; marking a
//! segment changes none of what the sender reads after callbacks only.

use std::collections::BTreeMap;

use proptest::prelude::*;
use tcpstart_cc::{
    algorithms, build, AckEvent, CcConfig, CongestionEvent, Duration, Instant, RecoveryExitEvent, RtoEvent, SentEvent,
};

const MSS: u64 = 1448;

#[derive(Clone, Debug)]
enum Step {
    Sent(u32),
    Ack { segments: u64, rtt_ms: u64, limited: bool },
    DupAck,
    Loss,
    RecoveryExit,
    Rto,
    Wait(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (1u32..=MSS as u32).prop_map(Step::Sent),
        (0u64..64, 1u64..2000, any::<bool>()).prop_map(|(segments, rtt_ms, limited)| Step::Ack {
            segments,
            rtt_ms,
            limited
        }),
        Just(Step::DupAck),
        Just(Step::Loss),
        Just(Step::RecoveryExit),
        Just(Step::Rto),
        (1u64..5_000_000_000).prop_map(Step::Wait),
    ]
}

proptest! {
    #[test]
    fn windows_stay_finite_and_at_least_one_segment(steps in proptest::collection::vec(step(), 1..300), iw in 1u64..100) {
        for info in algorithms() {
            let cfg = CcConfig { mss: MSS, initial_cwnd: iw * MSS, initial_ssthresh: u64::MAX };
            let mut cc = build(info.name, &BTreeMap::new(), &cfg).unwrap();
            let mut now = Instant::ZERO;
            let mut in_recovery = false;
            let mut consecutive = 0;
            for s in &steps {
                let flight = cc.state().cwnd;
                match *s {
                    Step::Sent(len) => cc.on_sent(&SentEvent { now, len, bytes_in_flight: flight, ..Default::default() }),
                    Step::Ack { segments, rtt_ms, limited } => {
                        let rtt = Duration::from_millis(rtt_ms);
                        cc.on_ack(&AckEvent {
                            now, bytes_acked: segments * MSS, rtt_sample: Some(rtt), srtt: Some(rtt), min_rtt: Some(rtt),
                            prior_in_flight: flight, in_recovery, cwnd_limited: limited, ..Default::default()
                        });
                        consecutive = 0;
                    }
                    Step::DupAck => cc.on_ack(&AckEvent { now, in_recovery, prior_in_flight: flight, ..Default::default() }),
                    Step::Loss => {
                        cc.on_congestion(&CongestionEvent { now, flight_size: flight, high_data: 0 });
                        in_recovery = true;
                    }
                    Step::RecoveryExit => {
                        cc.on_recovery_exit(&RecoveryExitEvent { now, ..Default::default() });
                        in_recovery = false;
                    }
                    Step::Rto => {
                        consecutive += 1;
                        cc.on_rto(&RtoEvent { now, flight_size: flight, consecutive });
                        in_recovery = false;
                    }
                    Step::Wait(ns) => now = now + Duration::from_nanos(ns),
                }
                prop_assert!(cc.state().cwnd >= MSS, "{}: cwnd {} after {:?}", info.name, cc.state().cwnd, s);
                prop_assert!(cc.state().cwnd < u64::MAX / 2, "{}: cwnd overflow after {:?}", info.name, s);
                prop_assert!(cc.state().ssthresh >= 2 * MSS, "{}: ssthresh {} after {:?}", info.name, cc.state().ssthresh, s);
                if let Some(rate) = cc.state().pacing_rate {
                    prop_assert!(rate.is_finite() && rate > 0.0, "{}: pacing rate {rate}", info.name);
                }
                // The sender reads these only after the `on_*` callbacks (the trait's contract):
                // marking a segment must leave them as they were.
                let before = cc.state();
                let mark = cc.segment_mark(flight);
                let after = cc.state();
                prop_assert_eq!(before, after, "{}: segment_mark({}) gave {}", info.name, flight, mark);
            }
        }
    }
}
