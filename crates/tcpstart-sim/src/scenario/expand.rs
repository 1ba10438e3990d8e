//! Expansion: a resolved scenario's entries as the run's flows, pages and UDP sources: `count`
//! and schedules drawn, web sessions generated, host pairs handed out. Everything was checked
//! by resolution, so nothing here fails; the random draws come from streams seeded by the
//! scenario's seed and the entry's index, so the same scenario expands the same way.

use super::resolve::{Resolved, Schedule};
use super::{FlowSpec, Host, Scenario};
use crate::traffic::schedule::start_times;
use crate::traffic::udp::UdpSpec;
use crate::traffic::web::{generate, Page};
use crate::traffic::{stream, Stream};

/// Hands out host pairs. Without `network.hosts` every caller gets a pair of its own (with its
/// own access links); with it, callers share `hosts` pairs, chosen by `host` or round robin (one
/// counter over flows, then web sessions, then UDP sources).
struct HostPlan {
    shared: Option<u32>,
    next: u32,
    default: Host,
    hosts: Vec<Host>,
}

impl HostPlan {
    fn new(shared: Option<u32>, default: Host) -> Self {
        HostPlan { shared, next: 0, default, hosts: vec![default; shared.unwrap_or(0) as usize] }
    }

    /// A host pair: `host` if given, with access links `own` if the entry sets its own
    /// (resolution allows that only without shared pairs).
    fn assign(&mut self, host: Option<u32>, own: Option<Host>) -> (u32, Host) {
        let Some(n) = self.shared else {
            let h = own.unwrap_or(self.default);
            self.hosts.push(h);
            return (self.hosts.len() as u32 - 1, h);
        };
        let h = host.unwrap_or_else(|| {
            let h = self.next;
            self.next = (self.next + 1) % n;
            h
        });
        (h, self.hosts[h as usize])
    }
}

impl Resolved {
    /// The run's scenario: flows of the `[[flows]]` entries in order, then every web object;
    /// host pairs to flows, then web sessions, then UDP sources.
    pub fn expand(self) -> Scenario {
        let seed = self.seed;
        let mut hosts = HostPlan::new(self.hosts, self.access);
        let mut flows = Vec::new();
        for (i, entry) in self.flows.into_iter().enumerate() {
            let starts = match entry.schedule {
                Schedule::Listed(starts) => starts,
                Schedule::Drawn { arrivals, start, interval, count } => {
                    start_times(arrivals, start, interval, count, &mut stream(seed, Stream::FlowStarts(i)))
                }
            };
            let own = entry
                .own_access
                .then_some(Host { access_rate_bps: entry.flow.access_rate_bps, access_delay: entry.flow.access_delay });
            for start in starts {
                let (host, access) = hosts.assign(entry.host, own);
                flows.push(FlowSpec {
                    start,
                    host,
                    access_rate_bps: access.access_rate_bps,
                    access_delay: access.access_delay,
                    ..entry.flow.clone()
                });
            }
        }
        let mut pages: Vec<Page> = Vec::new();
        for (i, web) in self.web.iter().enumerate() {
            for session in generate(&web.spec, &mut stream(seed, Stream::Web(i))) {
                let (host, access) = hosts.assign(web.host, None);
                let first_page = pages.len();
                for (k, page) in session.pages.iter().enumerate() {
                    let idx = pages.len() as u32;
                    if k > 0 {
                        pages[idx as usize - 1].next = Some((idx, page.gap_before));
                    }
                    pages.push(Page {
                        first_flow: flows.len() as u32,
                        objects: page.objects.len() as u32,
                        start: (pages.len() == first_page).then_some(session.start),
                        next: None,
                    });
                    flows.extend(page.objects.iter().map(|o| FlowSpec {
                        algorithm: web.algorithm.clone(),
                        params: web.params.clone(),
                        size: Some(o.packets.saturating_mul(web.tcp.mss as u64)),
                        start: o.offset,
                        access_rate_bps: access.access_rate_bps,
                        access_delay: access.access_delay,
                        drop_transmissions: Vec::new(),
                        tcp: web.tcp.clone(),
                        class: web.class.clone(),
                        host,
                        direction: web.direction,
                        page: Some(idx),
                        hops: None,
                    }));
                }
            }
        }
        let mut udp = Vec::new();
        for entry in &self.udp {
            for _ in 0..entry.count {
                let (host, _) = hosts.assign(entry.host, None);
                udp.push(UdpSpec { host, ..entry.spec.clone() });
            }
        }
        Scenario {
            seed,
            duration: self.duration,
            network: self.network,
            hosts: hosts.hosts,
            flows,
            pages,
            udp,
            trace: self.trace,
        }
    }
}
