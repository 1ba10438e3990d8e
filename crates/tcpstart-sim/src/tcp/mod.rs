//! The TCP endpoints.

pub mod delivery_rate;
#[cfg(test)]
pub mod harness;
pub mod linux_ack;
pub mod prr;
pub mod rack;
pub mod receiver;
#[cfg(test)]
mod recovery_tests;
pub mod rtt;
pub mod sack_blocks;
pub mod sacked;
pub mod scoreboard;
pub mod sender;

pub use receiver::Receiver;
pub use sender::Sender;
