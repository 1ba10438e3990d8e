//! The algorithm registry: names, parameters with defaults and allowed ranges, and construction.
//! Scenario validation and `tcpstart algorithms` both read this one table.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::controller::CongestionControl;
use crate::receiver::ReceiverHook;
use crate::{
    bbr, bic, careful_resume, cubic, ehstcp, ess, highspeed, hystartpp, jump_start, modified_swift_start, pacing_only,
    reno, scalable, stopeg, suss, swift_start,
};

/// One tunable parameter of an algorithm.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The RFC, paper or source file the implementation follows.
    pub reference: &'static str,
    pub params: &'static [ParamSpec],
}

/// What every controller needs from the connection it serves.
#[derive(Clone, Copy, Debug)]
pub struct CcConfig {
    pub mss: u64,
    pub initial_cwnd: u64,
    pub initial_ssthresh: u64,
}

/// A parameter problem, naming the parameter and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The offending key: the algorithm name, or the parameter name.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

/// Parameters after resolution: every parameter of the algorithm with its given or default value.
pub type Params = BTreeMap<&'static str, f64>;

/// Builds the receiver-side part of an algorithm from its parameters.
pub type BuildReceiverHook = fn(&Params) -> Box<dyn ReceiverHook>;

/// One registered algorithm: its description and how to build its sender (and receiver) parts.
/// Each algorithm module defines its own `Registration` constants; [`REGISTRATIONS`] lists them.
pub struct Registration {
    pub info: AlgorithmInfo,
    pub build: fn(&Params, &CcConfig) -> Box<dyn CongestionControl>,
    /// The receiver-side part, for algorithms that measure something at the receiver.
    pub receiver_hook: Option<BuildReceiverHook>,
}

/// Every algorithm tcpstart knows, in the order `tcpstart algorithms` lists them.
pub const REGISTRATIONS: &[&Registration] = &[
    &reno::RENO,
    &reno::NEWRENO,
    &hystartpp::RENO_HYSTARTPP,
    &hystartpp::NEWRENO_HYSTARTPP,
    &cubic::CUBIC,
    &cubic::CUBIC_NOHYSTART,
    &hystartpp::CUBIC_HYSTARTPP,
    &suss::CUBIC_SUSS,
    &bbr::BBR,
    &highspeed::HIGHSPEED,
    &scalable::SCALABLE,
    &bic::BIC,
    &ehstcp::EHSTCP,
    &ess::ESS,
    &jump_start::JUMP_START,
    &careful_resume::NEWRENO_CAREFUL_RESUME,
    &stopeg::STOPEG,
    &swift_start::SWIFT_START,
    &swift_start::SWIFT_START_BBN,
    &pacing_only::PACING_ONLY,
    &modified_swift_start::MODIFIED_SWIFT_START,
];

const ALGORITHMS: &[AlgorithmInfo] = &{
    let mut infos = [REGISTRATIONS[0].info; REGISTRATIONS.len()];
    let mut i = 0;
    while i < REGISTRATIONS.len() {
        infos[i] = REGISTRATIONS[i].info;
        i += 1;
    }
    infos
};

pub fn algorithms() -> &'static [AlgorithmInfo] {
    ALGORITHMS
}

fn registration(name: &str) -> Result<&'static Registration, ParamError> {
    REGISTRATIONS.iter().copied().find(|r| r.info.name == name).ok_or_else(|| ParamError {
        key: name.to_string(),
        message: format!(
            "unknown algorithm {name:?}{}; available: {}",
            suggestion(name).map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default(),
            ALGORITHMS.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
        ),
    })
}

/// The registered name a mistyped one most likely meant: the same letters and digits, ignoring
/// case and punctuation ("Cubic", "jumpstart", "NEW_RENO"), or the one name that contains them.
fn suggestion(name: &str) -> Option<&'static str> {
    let key = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    let given = key(name);
    if given.is_empty() {
        return None;
    }
    let same = ALGORITHMS.iter().find(|a| key(a.name) == given);
    let mut containing = ALGORITHMS.iter().filter(|a| key(a.name).contains(&given));
    same.or_else(|| match (containing.next(), containing.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    })
    .map(|a| a.name)
}

pub fn find(name: &str) -> Result<&'static AlgorithmInfo, ParamError> {
    registration(name).map(|r| &r.info)
}

/// Checks `params` against the algorithm's table and returns every parameter with its value
/// (the given one or the default).
pub fn resolve_params(name: &str, params: &BTreeMap<String, f64>) -> Result<Params, ParamError> {
    let info = find(name)?;
    for key in params.keys() {
        if !info.params.iter().any(|p| p.name == key) {
            let allowed: Vec<_> = info.params.iter().map(|p| p.name).collect();
            return Err(ParamError {
                key: key.clone(),
                message: format!(
                    "unknown parameter of {name}; allowed: {}",
                    if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }
                ),
            });
        }
    }
    let mut out = BTreeMap::new();
    for spec in info.params {
        let value = params.get(spec.name).copied().unwrap_or(spec.default);
        let in_range = value.is_finite() && value >= spec.min && value <= spec.max;
        if !in_range || (spec.integer && value.fract() != 0.0) {
            let kind = if spec.integer { "an integer" } else { "a number" };
            return Err(ParamError {
                key: spec.name.to_string(),
                message: format!("must be {kind} in [{}, {}], got {value}", spec.min, spec.max),
            });
        }
        out.insert(spec.name, value);
    }
    Ok(out)
}

/// Builds the sender-side controller named `name`.
pub fn build(
    name: &str,
    params: &BTreeMap<String, f64>,
    cfg: &CcConfig,
) -> Result<Box<dyn CongestionControl>, ParamError> {
    let p = resolve_params(name, params)?;
    Ok((registration(name)?.build)(&p, cfg))
}

/// Builds the receiver-side part of an algorithm, for the algorithms that have one.
pub fn build_receiver_hook(
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<Option<Box<dyn ReceiverHook>>, ParamError> {
    let p = resolve_params(name, params)?;
    Ok(registration(name)?.receiver_hook.map(|make| make(&p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> CcConfig {
        CcConfig { mss: 1000, initial_cwnd: 10_000, initial_ssthresh: u64::MAX }
    }

    #[test]
    fn unknown_algorithm_lists_the_available_ones() {
        let err = build("vegas", &BTreeMap::new(), &cfg()).err().unwrap();
        assert_eq!(err.key, "vegas");
        assert!(err.message.contains("newreno"), "{}", err.message);
    }

    #[test]
    fn a_mistyped_name_gets_a_suggestion() {
        let message = |name: &str| build(name, &BTreeMap::new(), &cfg()).err().unwrap().message;
        assert!(message("Cubic").starts_with("unknown algorithm \"Cubic\" (did you mean \"cubic\"?)"));
        assert!(message("jumpstart").contains("did you mean \"jump-start\"?"));
        assert!(message("modified").contains("did you mean \"modified-swift-start\"?"));
        // "swift" is in three names: no guess.
        assert!(!message("swift").contains("did you mean"));
        assert!(!message("vegas").contains("did you mean"));
    }

    #[test]
    fn out_of_range_parameter_names_the_range() {
        let params = BTreeMap::from([("abc".to_string(), 100.0)]);
        let err = build("newreno", &params, &cfg()).err().unwrap();
        assert_eq!(err.key, "abc");
        assert!(err.message.contains("[0, 64]"), "{}", err.message);
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let params = BTreeMap::from([("gamma".to_string(), 4.0)]);
        let err = build("reno", &params, &cfg()).err().unwrap();
        assert_eq!(err.key, "gamma");
    }

    #[test]
    fn every_registered_algorithm_builds_with_defaults() {
        for info in algorithms() {
            let cc = build(info.name, &BTreeMap::new(), &cfg()).unwrap();
            assert_eq!(cc.name(), info.name);
            assert!(cc.cwnd() >= 1000);
        }
    }
}
