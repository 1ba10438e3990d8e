//! tcpstart's discrete-event simulator: TCP over dumbbell networks, packet by packet.
//!
//! A run is a plain value: [`run`] takes a validated [`Scenario`] and returns a [`RunOutput`].
//! There is no global state, so any number of simulations can run side by side in one process,
//! and the same scenario and seed always give the same output.

pub mod ack_compression;
pub mod columns;
pub mod delay_line;
pub mod error;
pub mod event;
pub mod link;
pub mod metrics;
pub mod output;
pub mod packet;
pub mod pcap;
pub mod pool;
pub mod queue;
mod recording;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod units;

pub use error::ScenarioError;
pub use output::RunOutput;
pub use scenario::Scenario;
pub use sim::Simulation;

/// Simulates `scenario` to the end and collects its output.
pub fn run(scenario: Scenario) -> RunOutput {
    let mut sim = Simulation::new(scenario);
    sim.run();
    let invariants = output::invariants(&sim);
    let summary = output::summary(&sim, &invariants);
    let pcaps = std::mem::take(&mut sim.captures)
        .into_iter()
        .zip(&sim.links)
        .filter_map(|(w, link)| w.map(|w| (link.name.clone(), w.into_bytes())))
        .collect();
    RunOutput { summary, invariants, flows: sim.flow_trace, queues: sim.queue_trace, packets: sim.packet_trace, pcaps }
}

/// Parses, validates and runs a scenario given as JSON.
pub fn run_json(text: &str) -> Result<RunOutput, ScenarioError> {
    Ok(run(scenario::from_json(text)?))
}
