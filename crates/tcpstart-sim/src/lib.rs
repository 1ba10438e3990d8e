//! tcpstart's discrete-event simulator: TCP over dumbbell networks, packet by packet.
//!
//! A run is a plain value: [`run`] takes a validated [`Scenario`] and returns a [`RunOutput`].
//! There is no global state, so any number of simulations can run side by side in one process,
//! and the same scenario and seed always give the same output.

pub mod ack_compression;
pub mod columns;
mod delay_line;
pub mod delivery_trace;
pub mod error;
pub mod event;
pub mod invariant;
pub mod link;
pub mod link_schedule;
pub mod metrics;
pub mod milestones;
pub mod output;
pub mod packet;
pub mod pcap;
pub mod pool;
pub mod queue;
pub mod quick_start;
mod recording;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod units;

use std::ops::ControlFlow;

pub use error::ScenarioError;
pub use invariant::{ControllerError, Stopped, Violation};
pub use output::RunOutput;
pub use scenario::Scenario;
pub use sim::{Progress, Simulation};

/// Simulates `scenario` to the end and collects its output.
///
/// # Panics
/// When the run breaks an invariant (a simulator bug), with the message of its [`Violation`],
/// or a controller registered at run time fails, with its [`ControllerError`].
pub fn run(scenario: Scenario) -> RunOutput {
    match run_watched(scenario, |_| ControlFlow::Continue(())) {
        Ok(out) => out,
        Err(Stopped::Broken(v)) => panic!("{v}"),
        Err(Stopped::Controller(e)) => panic!("{e}"),
        Err(Stopped::Interrupted) => unreachable!("nothing interrupts a run without a watcher"),
    }
}

/// Simulates `scenario` to the end, showing `watch` its progress every few thousand events (see
/// [`sim::WATCH_EVERY`]); stops when `watch` breaks or an invariant does. The output does not
/// depend on the watcher.
pub fn run_watched(
    scenario: Scenario,
    mut watch: impl FnMut(Progress) -> ControlFlow<()>,
) -> Result<RunOutput, Stopped> {
    let mut sim = Simulation::new(scenario);
    sim.run(&mut watch)?;
    let invariants = output::invariants(&sim);
    if !invariants.ok {
        return Err(Stopped::Broken(output::conservation_violation(&sim, &invariants)));
    }
    let summary = output::summary(&sim, &invariants);
    let pcaps = std::mem::take(&mut sim.captures)
        .into_iter()
        .zip(&sim.links)
        .filter_map(|(w, link)| w.map(|w| (link.name.clone(), w.into_bytes())))
        .collect();
    Ok(RunOutput {
        summary,
        invariants,
        flows: sim.flow_trace,
        queues: sim.queue_trace,
        packets: sim.packet_trace,
        pcaps,
    })
}
