//! Traffic beyond single TCP transfers: random distributions, flow start schedules, UDP
//! constant-bit-rate and on/off sources, and the web workload of sessions, pages and objects.
//!
//! Everything random draws from its own seeded stream (see [`stream`]), so a scenario and seed
//! always produce the same traffic, and adding one source does not change what another draws.

pub mod dist;
pub mod schedule;
pub mod udp;
pub mod web;

use rand_pcg::Pcg64Mcg;

/// Named random streams, so two users of randomness never share one.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Start times of `flows[i]`.
    FlowStarts(usize),
    /// Sessions, pages and objects of `web[i]`.
    Web(usize),
    /// On/off durations of UDP source `i` (after `count` expansion).
    Udp(usize),
}

/// A generator for `stream` under the scenario's `seed`.
///
/// Links seed theirs with `(seed << 64) ^ (index + 1) * golden ratio` (topology.rs); the tag in
/// the top bits of the low word keeps these streams away from those.
pub fn stream(seed: u64, stream: Stream) -> Pcg64Mcg {
    let (tag, i) = match stream {
        Stream::FlowStarts(i) => (1u128, i),
        Stream::Web(i) => (2, i),
        Stream::Udp(i) => (3, i),
    };
    let low = (tag << 56) | (i as u128 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03) & ((1 << 56) - 1);
    Pcg64Mcg::new((((seed as u128) << 64) ^ low) | 1)
}
