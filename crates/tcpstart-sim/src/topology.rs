//! The path: a chain of routers joined by hops, each hop one link per direction, with host
//! pairs on access links at its ends. The dumbbell (no `network.hops`) is a chain of one hop,
//! the bottleneck; a parking lot (`[[network.hops]]`) is a chain of several, and each flow
//! enters it at one router and leaves it at another (`flows[i].hops`).
//!
//! ```text
//!  sender i --sender{i}_out--> R_a --hop{a}-->     ... --hop{b}-->     R_b+1 --receiver{i}_in--> receiver i
//!  sender i <--sender{i}_in--- R_a <--hop{a}_rev-- ... <--hop{b}_rev-- R_b+1 <-receiver{i}_out-- receiver i
//! ```
//! Link indices: 2k is hop k left to right and 2k + 1 right to left (the dumbbell's 0
//! `bottleneck` and 1 `bottleneck_rev`), then four per host pair, in the order above, after
//! the 2N hop links. "Sender" and "receiver" name the sides: a reverse flow sends its data from
//! receiver i to sender i. Several flows and UDP sources may share a host pair, and so its
//! access links, whichever routers they enter and leave at.

use crate::ack_compression::AckCompressor;
use crate::delivery_trace::TraceCursor;
use crate::link::{Impairments, Link, Shape};
use crate::packet::Direction;
use crate::queue::{CoDel, Discipline, DropTail, Red};
use crate::quick_start::QuickStartRouter;
use crate::scenario::{Aqm, Limit, Scenario};

pub const BOTTLENECK: u32 = 0;
pub const BOTTLENECK_REV: u32 = 1;

/// The link of hop `k` in direction `way`.
pub fn hop_link(k: u32, way: Direction) -> u32 {
    2 * k + way as u32
}

fn host_link(hops: u32, host: u32, k: u32) -> u32 {
    2 * hops + 4 * host + k
}

/// The links' names by index, for a chain of `hops` hops (1: the dumbbell) and `hosts` pairs.
pub fn link_names(hops: usize, hosts: usize) -> Vec<String> {
    let mut names = match hops {
        1 => vec!["bottleneck".to_string(), "bottleneck_rev".to_string()],
        _ => (0..hops).flat_map(|k| [format!("hop{k}"), format!("hop{k}_rev")]).collect(),
    };
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

/// The links a packet crosses, in order, between the hosts of pair `host` over hops `first` to
/// `last` of a chain of `hops`: forward from the senders' side to the receivers' side, reverse
/// the other way.
pub fn route(hops: u32, host: u32, [first, last]: [u32; 2], way: Direction) -> Vec<u32> {
    let chain = first..=last;
    let (enter, leave) = match way {
        Direction::Forward => (host_link(hops, host, 0), host_link(hops, host, 2)),
        Direction::Reverse => (host_link(hops, host, 3), host_link(hops, host, 1)),
    };
    let middle: Vec<u32> = match way {
        Direction::Forward => chain.map(|k| hop_link(k, way)).collect(),
        Direction::Reverse => chain.rev().map(|k| hop_link(k, way)).collect(),
    };
    [vec![enter], middle, vec![leave]].concat()
}

/// Every flow's and UDP source's links in both directions, in one buffer: read at every hop a
/// packet makes, so a lookup is two loads (where the path starts, then the link) whatever the
/// paths' lengths; each path ends with [`Paths::END`], so its length is not read.
#[derive(Default)]
pub struct Paths {
    links: Vec<u32>,
    /// By flow or source id, then `Direction as usize`: where its path starts in `links`.
    starts: Vec<[u32; 2]>,
}

impl Paths {
    /// Marks a path's end; no link has this index.
    const END: u32 = u32::MAX;

    /// Adds the next id's path, given for both directions (each of at least one link).
    pub fn push(&mut self, forward: &[u32], reverse: &[u32]) {
        let mut add = |path: &[u32]| {
            let start = self.links.len() as u32;
            self.links.extend_from_slice(path);
            self.links.push(Self::END);
            start
        };
        let starts = [add(forward), add(reverse)];
        self.starts.push(starts);
    }

    /// The links a packet of `id` crosses travelling `dir`.
    pub fn get(&self, id: u32, dir: Direction) -> &[u32] {
        let rest = &self.links[self.starts[id as usize][dir as usize] as usize..];
        &rest[..rest.iter().position(|&l| l == Self::END).expect("every path ends")]
    }

    /// The `hop`-th link (0-based) of that path, if it has one (`hop` at most its length).
    #[inline(always)]
    pub fn hop(&self, id: u32, dir: Direction, hop: usize) -> Option<u32> {
        let link = self.links[self.starts[id as usize][dir as usize] as usize + hop];
        (link != Self::END).then_some(link)
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
    let chain = net.chain();
    let names = link_names(chain.len(), s.hosts.len());
    // Each link draws its random losses from its own stream, so adding a flow does not change
    // the loss pattern other links see.
    let seed = |i: usize| ((s.seed as u128) << 64) ^ (i as u128 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let hop_link = |i: usize, rate, delay, loss, ber, max_pps, aqm, limit, compression: Option<_>| {
        let imp = Impairments { loss, ber, max_pps };
        let mut link = Link::new(names[i].clone(), rate, delay, imp, discipline(aqm, limit, rate, seed(i)), seed(i));
        link.compressor = compression.map(AckCompressor::new);
        link
    };
    // Every hop has the bottleneck's elements (AQM, losses, forwarding cap, ACK compression);
    // only rate, delay and queue are a hop's own.
    let mut links = Vec::with_capacity(2 * chain.len() + 4 * s.hosts.len());
    for (k, hop) in chain.iter().enumerate() {
        links.push(hop_link(
            2 * k,
            hop.rate_bps,
            hop.delay,
            net.loss,
            net.ber,
            net.router_pps,
            net.aqm,
            hop.queue,
            net.ack_compression,
        ));
        links.push(hop_link(
            2 * k + 1,
            hop.reverse_rate_bps,
            hop.delay,
            net.reverse_loss,
            net.reverse_ber,
            net.reverse_router_pps,
            net.reverse_aqm,
            hop.reverse_queue,
            net.reverse_ack_compression,
        ));
    }
    // Quick-Start routers, schedules and traces belong to the dumbbell (resolution refuses
    // them with network.hops).
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
            let idx = host_link(chain.len() as u32, i as u32, k) as usize;
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

#[cfg(test)]
mod tests {
    use super::*;

    const FWD: Direction = Direction::Forward;
    const REV: Direction = Direction::Reverse;

    #[test]
    fn the_dumbbell_keeps_its_names_and_indices() {
        assert_eq!(
            link_names(1, 1),
            ["bottleneck", "bottleneck_rev", "sender0_out", "sender0_in", "receiver0_in", "receiver0_out"]
        );
        assert_eq!(route(1, 1, [0, 0], FWD), [6, 0, 8]);
        assert_eq!(route(1, 1, [0, 0], REV), [9, 1, 7]);
    }

    #[test]
    fn a_parking_lots_routes_cross_their_hops_in_order_each_way() {
        // Three hops: links 0-5, then pair i's four from 6 + 4i.
        let names = link_names(3, 2);
        assert_eq!(&names[..6], ["hop0", "hop0_rev", "hop1", "hop1_rev", "hop2", "hop2_rev"]);
        assert_eq!(&names[10..], ["sender1_out", "sender1_in", "receiver1_in", "receiver1_out"]);
        // The long flow on pair 0 crosses every hop; a cross flow on pair 1 only the middle one.
        assert_eq!(route(3, 0, [0, 2], FWD), [6, 0, 2, 4, 8]);
        assert_eq!(route(3, 0, [0, 2], REV), [9, 5, 3, 1, 7]);
        assert_eq!(route(3, 1, [1, 1], FWD), [10, 2, 12]);
        assert_eq!(route(3, 1, [1, 1], REV), [13, 3, 11]);
        assert_eq!(route(3, 1, [1, 2], REV), [13, 5, 3, 11]);
    }

    #[test]
    fn paths_of_different_lengths_share_one_buffer() {
        let mut paths = Paths::default();
        paths.push(&[6, 0, 2, 4, 8], &[9, 5, 3, 1, 7]);
        paths.push(&[10, 2, 12], &[13, 3, 11]);
        assert_eq!(paths.get(1, REV), [13, 3, 11]);
        assert_eq!(paths.get(0, FWD), [6, 0, 2, 4, 8]);
        assert_eq!((paths.hop(0, REV, 4), paths.hop(0, REV, 5)), (Some(7), None));
        assert_eq!((paths.hop(1, FWD, 0), paths.hop(1, FWD, 2), paths.hop(1, FWD, 3)), (Some(10), Some(12), None));
    }
}
