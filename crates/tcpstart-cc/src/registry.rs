//! The algorithm registry: names, parameters with defaults and allowed ranges, and construction.
//! Scenario validation and `tcpstart algorithms` both read this one table: the built-in
//! [`REGISTRATIONS`], then the algorithms [`register`]ed at run time (by another crate, or by
//! Python through tcpstart-py).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock};

use serde::Serialize;

use crate::controller::CongestionControl;
use crate::receiver::ReceiverHook;
use crate::{
    bbr, bbr3, bic, careful_resume, cubic, ehstcp, ess, highspeed, hystartpp, jump_start, modified_swift_start,
    pacing_only, quick_start, reno, scalable, stopeg, suss, swift_start,
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
    &bbr3::BBR3,
    &highspeed::HIGHSPEED,
    &scalable::SCALABLE,
    &bic::BIC,
    &ehstcp::EHSTCP,
    &ess::ESS,
    &jump_start::JUMP_START,
    &careful_resume::NEWRENO_CAREFUL_RESUME,
    &quick_start::NEWRENO_QUICK_START,
    &quick_start::CUBIC_QUICK_START,
    &stopeg::STOPEG,
    &swift_start::SWIFT_START,
    &swift_start::SWIFT_START_BBN,
    &pacing_only::PACING_ONLY,
    &modified_swift_start::MODIFIED_SWIFT_START,
];

/// Builds the sender-side part of an algorithm registered at run time.
pub type BuildController = dyn Fn(&Params, &CcConfig) -> Box<dyn CongestionControl> + Send + Sync;
/// Builds the receiver-side part of an algorithm registered at run time.
pub type BuildReceiver = dyn Fn(&Params) -> Box<dyn ReceiverHook> + Send + Sync;

/// An algorithm registered at run time ([`register`]): by a crate outside this one, or by Python.
#[derive(Clone)]
struct Dynamic {
    info: AlgorithmInfo,
    build: Arc<BuildController>,
    receiver_hook: Option<Arc<BuildReceiver>>,
}

/// The algorithms registered at run time, after the built-in ones. Builders are cloned out
/// before they are called, so no lock is held while a controller is built (a Python builder
/// takes the GIL, and a registration from Python holds it while it takes this lock).
static DYNAMIC: RwLock<Vec<Dynamic>> = RwLock::new(Vec::new());

/// What a registration is looked up as: the built-in table's entry, or a run-time one.
enum Found {
    BuiltIn(&'static Registration),
    Dynamic(Dynamic),
}

impl Found {
    fn info(&self) -> AlgorithmInfo {
        match self {
            Found::BuiltIn(r) => r.info,
            Found::Dynamic(d) => d.info,
        }
    }
}

fn dynamic() -> std::sync::RwLockReadGuard<'static, Vec<Dynamic>> {
    // A builder that panicked cannot leave the list half-changed: it is never called under the lock.
    DYNAMIC.read().unwrap_or_else(|e| e.into_inner())
}

/// Every algorithm tcpstart knows: the built-in ones in the order `tcpstart algorithms` lists
/// them, then those registered at run time in their order of registration.
pub fn algorithms() -> Vec<AlgorithmInfo> {
    REGISTRATIONS.iter().map(|r| r.info).chain(dynamic().iter().map(|d| d.info)).collect()
}

/// Registers an algorithm at run time, so that scenarios can name it: how a crate outside
/// tcpstart-cc (or the Python package) adds one without editing [`REGISTRATIONS`]. Its name,
/// texts and parameter table are kept for the life of the process. Registering a name again
/// replaces the earlier run-time registration; the built-in names cannot be taken.
pub fn register(
    info: AlgorithmInfo,
    build: Arc<BuildController>,
    receiver_hook: Option<Arc<BuildReceiver>>,
) -> Result<(), ParamError> {
    let name = info.name;
    let refuse = |message: String| Err(ParamError { key: name.to_string(), message });
    if REGISTRATIONS.iter().any(|r| r.info.name == name) {
        return refuse("is a built-in algorithm; choose another name".into());
    }
    let valid_name = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-+_.".contains(c))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    if !valid_name {
        return refuse("must be letters, digits and - + _ . (starting with a letter or digit)".into());
    }
    for spec in info.params {
        let default_ok = spec.default.is_finite() && spec.min <= spec.default && spec.default <= spec.max;
        if !default_ok || (spec.integer && spec.default.fract() != 0.0) {
            return Err(ParamError {
                key: spec.name.to_string(),
                message: format!(
                    "default {} must lie in its range [{}, {}]{}",
                    spec.default,
                    spec.min,
                    spec.max,
                    if spec.integer { " and be an integer" } else { "" }
                ),
            });
        }
    }
    let entry = Dynamic { info, build, receiver_hook };
    let mut list = DYNAMIC.write().unwrap_or_else(|e| e.into_inner());
    match list.iter_mut().find(|d| d.info.name == name) {
        Some(d) => *d = entry,
        None => list.push(entry),
    }
    Ok(())
}

/// Leaks `s` for the life of the process: the registry's names are `&'static str`, as the
/// built-in ones are, and a run-time registration is made once per algorithm.
pub fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn registration(name: &str) -> Result<Found, ParamError> {
    if let Some(r) = REGISTRATIONS.iter().copied().find(|r| r.info.name == name) {
        return Ok(Found::BuiltIn(r));
    }
    if let Some(d) = dynamic().iter().find(|d| d.info.name == name) {
        return Ok(Found::Dynamic(d.clone()));
    }
    Err(ParamError {
        key: name.to_string(),
        message: format!(
            "unknown algorithm {name:?}{}; available: {}",
            suggestion(name).map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default(),
            algorithms().iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
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
    let known = algorithms();
    let same = known.iter().find(|a| key(a.name) == given);
    let mut containing = known.iter().filter(|a| key(a.name).contains(&given));
    same.or_else(|| match (containing.next(), containing.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    })
    .map(|a| a.name)
}

pub fn find(name: &str) -> Result<AlgorithmInfo, ParamError> {
    registration(name).map(|r| r.info())
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
    Ok(match registration(name)? {
        Found::BuiltIn(r) => (r.build)(&p, cfg),
        Found::Dynamic(d) => (d.build)(&p, cfg),
    })
}

/// Builds the receiver-side part of an algorithm, for the algorithms that have one.
pub fn build_receiver_hook(
    name: &str,
    params: &BTreeMap<String, f64>,
) -> Result<Option<Box<dyn ReceiverHook>>, ParamError> {
    let p = resolve_params(name, params)?;
    Ok(match registration(name)? {
        Found::BuiltIn(r) => r.receiver_hook.map(|make| make(&p)),
        Found::Dynamic(d) => d.receiver_hook.map(|make| make(&p)),
    })
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
    fn built_in_names_and_bad_defaults_cannot_be_registered() {
        let build: Arc<BuildController> = Arc::new(|p, cfg| (REGISTRATIONS[1].build)(p, cfg));
        let info = |name: &'static str, params: &'static [ParamSpec]| AlgorithmInfo {
            name,
            summary: "",
            reference: "",
            params,
        };
        let err = register(info("newreno", &[]), build.clone(), None).unwrap_err();
        assert!(err.message.contains("built-in"), "{}", err.message);
        let err = register(info("has space", &[]), build.clone(), None).unwrap_err();
        assert_eq!(err.key, "has space");
        const BAD: &[ParamSpec] = &[ParamSpec { name: "k", default: 5.0, min: 0.0, max: 1.0, integer: false, doc: "" }];
        let err = register(info("registry-test-bad", BAD), build, None).unwrap_err();
        assert_eq!((err.key.as_str(), err.message.contains("[0, 1]")), ("k", true), "{}", err.message);
        assert!(find("registry-test-bad").is_err());
    }

    #[test]
    fn every_registered_algorithm_builds_with_defaults() {
        for info in algorithms() {
            let cc = build(info.name, &BTreeMap::new(), &cfg()).unwrap();
            assert_eq!(cc.name(), info.name);
            assert!(cc.state().cwnd >= 1000);
        }
    }
}
