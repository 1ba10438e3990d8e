//! The TCP endpoints.

pub mod delivery_rate;
pub mod prr;
pub mod receiver;
pub mod rtt;
pub mod sacked;
pub mod scoreboard;
pub mod sender;

pub use receiver::Receiver;
pub use sender::Sender;
