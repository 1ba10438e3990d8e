//! The web workload of ns-2's `PagePool/WebTraf` as the Jump Start paper (section IV-A) uses it:
//! sessions of pages of objects, each object fetched over its own TCP connection (HTTP/1.0).
//!
//! - `sessions` sessions start `session_interval` apart from `start`.
//! - A session has `pages` pages (a fixed number, as ns-2's `create-session` takes it).
//! - A page has `ceil(X)` objects, X Pareto II with mean `page_objects_mean` and shape
//!   `page_objects_shape` (see [`super::dist`]).
//! - An object is `ceil(Y)` packets of one MSS, Y Pareto II with mean `object_packets_mean`
//!   and shape `object_packets_shape`.
//! - Within a page, the first object starts with the page and each next one an exponential
//!   time (mean `object_interval`) after the previous one started.
//! - The next page starts an exponential time (mean `page_interval`) after the previous page's
//!   last object completed: ns-2's default `interPageOption_ = 1` ("end of a page to the start
//!   of the next"). So only a session's first page has a start time known before the run.
//!
//! Sizes and gaps are drawn when the scenario is validated, so the resolved scenario lists every
//! object; what depends on the network (when later pages start) is decided during the run.
//! Before they are drawn, [`object_count`] counts them without drawing them, so that a workload
//! too large to hold is refused before it is allocated.

use core::time::Duration;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use super::dist::{exponential, Lomax};

#[derive(Clone, Debug)]
pub struct WebSpec {
    pub sessions: u32,
    pub session_interval: Duration,
    pub start: Duration,
    pub pages: u32,
    pub page_objects: Lomax,
    pub page_interval: Duration,
    pub object_packets: Lomax,
    pub object_interval: Duration,
}

/// One object of a page: when it starts after the page starts, and its size in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectPlan {
    pub offset: Duration,
    pub packets: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PagePlan {
    /// Wait after the previous page completed (ignored for a session's first page).
    pub gap_before: Duration,
    pub objects: Vec<ObjectPlan>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionPlan {
    pub start: Duration,
    pub pages: Vec<PagePlan>,
}

/// Draws every session, page and object of `spec`.
pub fn generate(spec: &WebSpec, rng: &mut impl Rng) -> Vec<SessionPlan> {
    let secs = |d: Duration| d.as_secs_f64();
    (0..spec.sessions)
        .map(|s| SessionPlan {
            start: spec.start + spec.session_interval * s,
            pages: (0..spec.pages)
                .map(|_| {
                    let gap_before = Duration::from_secs_f64(exponential(secs(spec.page_interval), rng));
                    let n = spec.page_objects.sample_count(rng);
                    let mut offset = Duration::ZERO;
                    let objects = (0..n)
                        .map(|k| {
                            if k > 0 {
                                offset += Duration::from_secs_f64(exponential(secs(spec.object_interval), rng));
                            }
                            ObjectPlan { offset, packets: spec.object_packets.sample_count(rng) }
                        })
                        .collect();
                    PagePlan { gap_before, objects }
                })
                .collect(),
        })
        .collect()
}

/// The number of objects [`generate`] draws from a generator in the state of `rng`, without
/// drawing them: O(sessions x pages), whatever the pages hold. Every draw of `generate` takes one
/// `u64` from the generator (an f64 from one `u64`, see [`super::dist`]), so after a page's gap
/// and object count, its objects' draws (a size each, a gap before each but the first) are
/// skipped with the generator's jump-ahead.
pub fn object_count(spec: &WebSpec, mut rng: Pcg64Mcg) -> u64 {
    let mut total = 0u64;
    for _ in 0..spec.sessions as u64 * spec.pages as u64 {
        rng.advance(1);
        let n = spec.page_objects.sample_count(&mut rng);
        rng.advance(2 * n as u128 - 1);
        total = total.saturating_add(n);
    }
    total
}

/// A page as the simulator runs it: its objects are the flows `first_flow..first_flow + objects`
/// (their `start` is the offset within the page).
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    pub first_flow: u32,
    pub objects: u32,
    /// Start of a session's first page; later pages wait for the previous one.
    pub start: Option<Duration>,
    /// The page that follows this one when it completes, and the wait before it.
    pub next: Option<(u32, Duration)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{stream, Stream};

    #[test]
    fn object_count_is_what_generate_draws() {
        let spec = |sessions, pages, objects_mean, shape| WebSpec {
            sessions,
            session_interval: Duration::from_millis(5),
            start: Duration::ZERO,
            pages,
            page_objects: Lomax::from_mean(objects_mean, shape),
            page_interval: Duration::from_millis(500),
            object_packets: Lomax::from_mean(4.0, 1.2),
            object_interval: Duration::from_millis(50),
        };
        for (k, s) in [spec(50, 5, 4.0, 1.5), spec(3, 40, 30.0, 1.1), spec(200, 1, 0.5, 3.0)].iter().enumerate() {
            for seed in 1..4 {
                let drawn: usize = generate(s, &mut stream(seed, Stream::Web(k)))
                    .iter()
                    .flat_map(|session| &session.pages)
                    .map(|page| page.objects.len())
                    .sum();
                assert_eq!(object_count(s, stream(seed, Stream::Web(k))), drawn as u64, "spec {k}, seed {seed}");
            }
        }
    }
}
