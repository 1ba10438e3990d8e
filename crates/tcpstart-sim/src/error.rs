//! Errors a user can cause: each names the offending field and says what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the field, e.g. `flows[0].tcp.mss`.
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    /// `field` is anything that prints as the path, so callers can leave it unformatted until
    /// an error needs it.
    pub fn new(field: impl fmt::Display, message: impl Into<String>) -> Self {
        ScenarioError { field: field.to_string(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
