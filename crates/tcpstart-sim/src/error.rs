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

/// A reader's message on one line: the path the toml reader appends on lines of its own
/// ("\nin `seed`\n") dropped, and the control characters of the user's own keys and strings
/// (a field named "\n") written as escapes.
pub fn one_line(message: &str) -> String {
    let message = message.trim_end();
    let message = match message.ends_with('`').then(|| message.rfind("\nin `")).flatten() {
        Some(path) => &message[..path],
        None => message,
    };
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// serde's message for a value of the wrong type, "invalid type: floating point `1e20`,
/// expected u64", said as the range checks say it: "must be a whole number from 0 to
/// 18446744073709551615, got 1e20". Other messages (unknown and missing fields) are already
/// in the user's terms and pass unchanged.
pub fn in_user_terms(message: &str) -> String {
    // serde also reads a table from a list of its fields in order; a list of the wrong length
    // is the only way that shows, and a table is what was meant.
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if rest.contains(", expected struct ") {
            return "must be a table, got a list".into();
        }
    }
    let Some(rest) = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: ")) else {
        return message.to_string();
    };
    let Some((got, expected)) = rest.rsplit_once(", expected ") else { return message.to_string() };
    format!("must be {}, got {}", expected_in_user_terms(expected), got_in_user_terms(got))
}

fn expected_in_user_terms(expected: &str) -> String {
    match expected {
        "u64" => format!("a whole number from 0 to {}", u64::MAX),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        other if other.starts_with("struct ") => "a table".into(),
        other => other.into(),
    }
}

/// serde_json's names of the value given ("floating point `1.5`", "string \"x\"", "map") as the
/// value itself or the kind of value.
fn got_in_user_terms(got: &str) -> String {
    for kind in ["floating point ", "integer ", "boolean "] {
        if let Some(value) = got.strip_prefix(kind) {
            return value.trim_matches('`').to_string();
        }
    }
    match got {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        other => other.strip_prefix("string ").unwrap_or(other).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::in_user_terms;

    #[test]
    fn serde_type_errors_in_user_terms() {
        let cases = [
            (
                "invalid type: floating point `1e20`, expected u64",
                "must be a whole number from 0 to 18446744073709551615, got 1e20",
            ),
            ("invalid value: integer `-1`, expected u32", "must be a whole number from 0 to 4294967295, got -1"),
            ("invalid type: string \"x\", expected f64", "must be a number, got \"x\""),
            ("invalid type: integer `1`, expected a boolean", "must be true or false, got 1"),
            ("invalid type: map, expected a sequence", "must be a list, got a table"),
            ("invalid type: sequence, expected struct RawNetwork", "must be a table, got a list"),
            ("invalid type: null, expected a string", "must be a string, got null"),
            ("invalid length 0, expected struct RawFlow with 15 elements", "must be a table, got a list"),
            (
                "invalid type: boolean `true`, expected a number or a string with a unit",
                "must be a number or a string with a unit, got true",
            ),
            (
                "unknown field `colour`, expected one of `rate`, `rtt`",
                "unknown field `colour`, expected one of `rate`, `rtt`",
            ),
            ("missing field `network`", "missing field `network`"),
        ];
        for (serde, ours) in cases {
            assert_eq!(in_user_terms(serde), ours);
        }
    }

    #[test]
    fn messages_on_one_line() {
        use super::one_line;
        assert_eq!(one_line("unknown field `\n`, expected `a`"), "unknown field `\\n`, expected `a`");
        assert_eq!(
            one_line("invalid type: floating point `NaN`, expected u64\nin `seed`\n"),
            "invalid type: floating point `NaN`, expected u64"
        );
        assert_eq!(one_line("got \"é\t\""), "got \"é\\t\"");
        assert_eq!(one_line("missing field `network`\n"), "missing field `network`");
    }
}
