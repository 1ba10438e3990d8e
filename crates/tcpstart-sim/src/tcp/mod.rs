//! The TCP endpoints.

pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

pub use receiver::Receiver;
pub use sender::Sender;
