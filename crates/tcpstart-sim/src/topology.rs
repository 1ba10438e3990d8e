//! The dumbbell: N host pairs, each host on its own access links, sharing one bottleneck link
//! per direction between two routers.
//!
//! ```text
//!  sender i --sender{i}_out--> R1 --bottleneck-----> R2 --receiver{i}_in--> receiver i
//!  sender i <--sender{i}_in--- R1 <--bottleneck_rev-- R2 <-receiver{i}_out-- receiver i
//! ```
//! Link indices: 0 bottleneck, 1 bottleneck_rev, then four per host pair in the order above.
//! "Sender" and "receiver" name the sides: a reverse flow sends its data from receiver i to
//! sender i. Several flows and UDP sources may share a host pair, and so its access links.

use crate::ack_compression::AckCompressor;
use crate::delivery_trace::TraceCursor;
use crate::link::{Impairments, Link, Shape};
use crate::packet::Direction;
use crate::queue::{CoDel, Discipline, DropTail, Red};
use crate::quick_start::QuickStartRouter;
use crate::scenario::{Aqm, Limit, Scenario};

pub const BOTTLENECK: u32 = 0;
pub const BOTTLENECK_REV: u32 = 1;

fn host_link(host: u32, k: u32) -> u32 {
    2 + 4 * host + k
}

pub fn link_names(hosts: usize) -> Vec<String> {
    let mut names = vec!["bottleneck".to_string(), "bottleneck_rev".to_string()];
    for i in 0..hosts {
        names.extend([
            format!("sender{i}_out"),
            format!("sender{i}_in"),
            format!("receiver{i}_in"),
            format!("receiver{i}_out"),
        ]);
    }
    names
}

/// The links a packet crosses, in order, between the hosts of pair `host`: forward from the
/// senders' side to the receivers' side, reverse the other way.
pub fn route(host: u32, way: Direction) -> [u32; 3] {
    match way {
        Direction::Forward => [host_link(host, 0), BOTTLENECK, host_link(host, 2)],
        Direction::Reverse => [host_link(host, 3), BOTTLENECK_REV, host_link(host, 1)],
    }
}

fn discipline(aqm: Aqm, limit: Limit, rate_bps: f64, seed: u128) -> Discipline {
    match aqm {
        Aqm::DropTail => DropTail::new(limit).into(),
        // RED draws from its own stream, apart from the link's loss stream.
        Aqm::Red(p) => Discipline::Other(Box::new(Red::new(limit, p, rate_bps, seed.rotate_left(64)))),
        Aqm::Codel(p) => Discipline::Other(Box::new(CoDel::new(limit, p))),
    }
}

pub fn build_links(s: &Scenario) -> Vec<Link> {
    let net = &s.network;
    let names = link_names(s.hosts.len());
    // Each link draws its random losses from its own stream, so adding a flow does not change
    // the loss pattern other links see.
    let seed = |i: usize| ((s.seed as u128) << 64) ^ (i as u128 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let bottleneck = |i: usize, rate, loss, ber, max_pps, aqm, limit, compression: Option<_>| {
        let imp = Impairments { loss, ber, max_pps };
        let mut link =
            Link::new(names[i].clone(), rate, net.delay, imp, discipline(aqm, limit, rate, seed(i)), seed(i));
        link.compressor = compression.map(AckCompressor::new);
        link
    };
    let mut links = vec![
        bottleneck(0, net.rate_bps, net.loss, net.ber, net.router_pps, net.aqm, net.queue, net.ack_compression),
        bottleneck(
            1,
            net.reverse_rate_bps,
            net.reverse_loss,
            net.reverse_ber,
            net.reverse_router_pps,
            net.reverse_aqm,
            net.reverse_queue,
            net.reverse_ack_compression,
        ),
    ];
    links[BOTTLENECK as usize].quick_start = net.quick_start.map(|spec| QuickStartRouter::new(spec, net.rate_bps));
    // A trace decides its direction's transmissions; otherwise a schedule that changes the rate
    // decides the forward one's (`reverse_rate` stays constant).
    links[0].shape = match (&net.trace, &net.schedule) {
        (Some(t), _) => Some(Shape::Traced(TraceCursor::new(t.clone()))),
        (None, Some(s)) if s.varies_rate() => Some(Shape::Scheduled(s.clone())),
        _ => None,
    };
    links[1].shape = net.reverse_trace.as_ref().map(|t| Shape::Traced(TraceCursor::new(t.clone())));
    for (i, h) in s.hosts.iter().enumerate() {
        for k in 0..4 {
            let idx = 2 + 4 * i + k;
            let mut link = Link::new(
                names[idx].clone(),
                h.access_rate_bps,
                h.access_delay,
                Impairments::default(),
                DropTail::new(net.access_queue).into(),
                seed(idx),
            );
            // The receiver host's processing: its outgoing access link (which never draws losses)
            // draws the jitter from its own stream.
            if k == 3 {
                link.set_jitter(net.ack_jitter);
            }
            links.push(link);
        }
    }
    links
}
