//! Broken invariants: what the checks that run in every build report, and why a run stops early.
//!
//! The checks are the cheap ones: packet conservation at the end of a run, event times that
//! never go backwards, finite windows of at least one segment and finite positive pacing rates
//! after every controller callback, and the scoreboard's byte counts against the sequence space
//! after every ACK. A violation is a simulator or controller bug; the run stops at the next
//! watch point (a few thousand events) and gives no output, so no result built on it is kept.

use std::fmt;

use tcpstart_cc::Instant;

/// The first broken invariant of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// What broke: "packet conservation", "time order", "window", "pacing rate", "scoreboard".
    pub invariant: &'static str,
    /// The flow whose state broke it; none for the network-wide checks.
    pub flow: Option<u32>,
    /// Simulated time of the check that found it.
    pub at: Instant,
    /// The values that disagree.
    pub detail: String,
}

impl Violation {
    pub fn new(invariant: &'static str, flow: Option<u32>, at: Instant, detail: String) -> Box<Self> {
        Box::new(Violation { invariant, flow, at, detail })
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant '{}' broken at {:.9} s", self.invariant, self.at.as_secs_f64())?;
        if let Some(flow) = self.flow {
            write!(f, " in flow {flow}")?;
        }
        write!(f, ": {} (a simulator bug; please report it with the scenario)", self.detail)
    }
}

impl std::error::Error for Violation {}

/// A controller from outside tcpstart (a Python one, say) could not go on: the run stops with
/// its error, named by algorithm, flow, simulated time and callback. Not a simulator bug.
#[derive(Debug)]
pub struct ControllerError {
    pub algorithm: &'static str,
    pub flow: u32,
    pub failure: tcpstart_cc::ControllerFailure,
}

impl fmt::Display for ControllerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ControllerError { algorithm, flow, failure } = self;
        write!(
            f,
            "algorithm '{algorithm}' failed in flow {flow} at {:.9} s, in {}: {}",
            failure.at.as_secs_f64(),
            failure.event,
            failure.error
        )
    }
}

impl std::error::Error for ControllerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.failure.error.as_ref())
    }
}

/// Why a run ended without output.
#[derive(Debug)]
pub enum Stopped {
    /// Its watcher asked it to stop (an interrupt).
    Interrupted,
    Broken(Box<Violation>),
    /// A controller's own code failed (see [`ControllerError`]).
    Controller(Box<ControllerError>),
}

impl From<Box<Violation>> for Stopped {
    fn from(v: Box<Violation>) -> Self {
        Stopped::Broken(v)
    }
}
