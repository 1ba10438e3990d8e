//! Errors a user can cause: each names the offending field and says what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the field, e.g. `flows[0].tcp.mss`.
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { field: field.into(), message: message.into() }
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
