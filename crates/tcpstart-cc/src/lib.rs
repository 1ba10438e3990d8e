//! Sans-IO TCP congestion control for tcpstart.
//!
//! No simulator types, no clocks, no global state: the sender reports events (each carrying the
//! current [`Instant`]) and reads back a window and an optional pacing rate. Each algorithm lives
//! in its own module behind the [`CongestionControl`] trait; [`registry`] names them.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod careful_resume;
pub mod controller;
pub mod cubic;
pub mod ehstcp;
pub mod ess;
pub mod events;
pub mod highspeed;
pub mod hystart;
pub mod hystartpp;
pub mod jump_start;
pub mod modified_swift_start;
pub mod paced_start;
pub mod pacing_only;
pub mod quick_start;
pub mod receiver;
pub mod registry;
pub mod reno;
pub mod scalable;
pub mod stopeg;
pub mod suss;
pub mod swift_start;
pub mod time;

pub use controller::{Capabilities, CcState, CongestionControl, ControllerFailure, PartialAckPolicy};
pub use events::{
    AckEvent, AckTimestamps, CongestionEvent, EstablishedEvent, RateSample, RecoveryExitEvent, RtoEvent, SentEvent,
};
pub use receiver::{ReceiverHook, SegmentArrival};
pub use registry::{
    algorithms, build, build_receiver_hook, register, AlgorithmInfo, BuildController, BuildReceiver, CcConfig,
    ParamError, ParamSpec, Params, Registration,
};
pub use time::{Duration, Instant};
