//! The Python extension module `tcpstart._core`: a thin layer that takes scenarios as JSON text
//! (their one way in, written by `tcpstart.scenario.to_json`), runs the simulator without holding the GIL, and hands results over as columns (never row by row) and
//! the summary as Python objects built straight from Rust's, each part when first asked for.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};

use tcpstart_sim::columns::{Dtype, Schema, Values};
use tcpstart_sim::output::{LinkSummary, Summary};
use tcpstart_sim::trace::{FlowTable, FlowTrace, PacketTrace, QueueTable, QueueTrace};
use tcpstart_sim::{scenario, Progress, ScenarioError, Stopped};

mod controller;

create_exception!(
    _core,
    InvariantError,
    PyRuntimeError,
    "A run broke one of the simulator's invariants (a simulator bug): the message names the invariant, the \
     simulated time and the flow."
);

create_exception!(
    _core,
    ControllerError,
    PyRuntimeError,
    "A controller registered from Python failed: the message names the algorithm, the flow, the simulated \
     time and the callback; the controller's own exception is the __cause__."
);

fn user_error(e: ScenarioError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Validates a scenario given as JSON text; returns it with every default filled in, in user
/// units, as JSON (`toml=False`) or TOML text that reads back as the same scenario.
#[pyfunction]
#[pyo3(signature = (scenario, toml=false))]
fn validate(scenario: &str, toml: bool) -> PyResult<String> {
    let resolved = scenario::resolved_json(scenario).map_err(user_error)?;
    Ok(match toml {
        true => ::toml::to_string(&resolved)
            .map_err(|e| user_error(ScenarioError::new("", format!("cannot be written as TOML: {e}"))))?,
        false => resolved.to_string(),
    })
}

/// The run's scenario as JSON: every flow, host pair and page expanded, in the simulator's
/// units (bits per second, {secs, nanos}); for the tools that translate a scenario to another
/// simulator or a testbed.
#[pyfunction]
fn expand(scenario: &str) -> PyResult<String> {
    let s = scenario::from_json(scenario).map_err(user_error)?;
    Ok(serde_json::to_string(&s).expect("a scenario serialises"))
}

/// The estimated size of a scenario's run (given as JSON text) and its limits, as a dict;
/// `refusal` is the one-line reason a run would be refused, or None. A scenario within its
/// limits is also validated (a ValueError names a bad field); one beyond them is not expanded.
#[pyfunction]
fn estimate<'py>(py: Python<'py>, scenario: &str) -> PyResult<Bound<'py, PyAny>> {
    let raw = scenario::parse(scenario).map_err(user_error)?;
    let (size, limits) = raw.estimate().map_err(user_error)?;
    let refusal = size.within(&limits).err();
    if refusal.is_none() {
        raw.resolve().map_err(user_error)?;
    }
    let mut value = serde_json::to_value(&size).expect("an estimate serialises");
    value["limits"] = serde_json::to_value(limits).expect("limits serialise");
    value["refusal"] = refusal.map(|e| e.to_string()).into();
    to_python(py, &value)
}

/// Every field of a scenario with its table, kind, default, range and meaning, as JSON: the
/// core's one table of fields and defaults.
#[pyfunction]
fn scenario_fields() -> String {
    serde_json::to_string(tcpstart_sim::scenario::defaults::FIELDS).expect("the fields serialise")
}

/// The trace tables and their columns (name, dtype, unit, doc), as JSON.
#[pyfunction]
fn schema() -> String {
    serde_json::to_string(&tcpstart_sim::columns::schemas()).expect("the schemas serialise")
}

/// Lists the algorithms with their parameters, as JSON.
#[pyfunction]
fn algorithms() -> String {
    serde_json::to_string(&tcpstart_cc::algorithms()).expect("the registry serialises")
}

/// A numeric column as its raw bytes with a numpy type code: Python views it in one copy,
/// instead of building one Python object per value.
fn numeric<'py, T: bytemuck::Pod>(py: Python<'py>, code: &str, values: &[T]) -> (String, Bound<'py, PyBytes>) {
    (code.to_string(), PyBytes::new(py, bytemuck::cast_slice(values)))
}

/// A text column, dictionary-encoded: u32 codes into a short list of distinct strings.
fn text<'py, 'a>(py: Python<'py>, values: impl Iterator<Item = &'a str>) -> PyResult<Bound<'py, PyTuple>> {
    let mut categories: Vec<&str> = Vec::new();
    let codes: Vec<u32> = values
        .map(|v| match categories.iter().position(|c| *c == v) {
            Some(i) => i as u32,
            None => {
                categories.push(v);
                categories.len() as u32 - 1
            }
        })
        .collect();
    categorical(py, &codes, categories)
}

/// A dictionary-encoded column of `text`'s form from its codes and categories.
fn categorical<'py>(py: Python<'py>, codes: &[u32], categories: Vec<&str>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            PyString::new(py, "str").into_any(),
            numeric(py, "u4", codes).1.into_any(),
            PyList::new(py, categories)?.into_any(),
        ],
    )
}

/// A coded column (`Values::Coded`) as `text` would make it (categories in the order they first
/// appear), from its byte codes: no string comparison per row.
fn coded<'py>(py: Python<'py>, codes: &[u8], names: &[&'static str]) -> PyResult<Bound<'py, PyTuple>> {
    let mut category = [u32::MAX; 256];
    let mut categories = Vec::new();
    let codes: Vec<u32> = codes
        .iter()
        .map(|&c| {
            let k = &mut category[c as usize];
            if *k == u32::MAX {
                *k = categories.len() as u32;
                categories.push(names[c as usize]);
            }
            *k
        })
        .collect();
    categorical(py, &codes, categories)
}

fn link_names<'py>(py: Python<'py>, indices: &[u32], links: &[LinkSummary]) -> PyResult<Bound<'py, PyTuple>> {
    text(py, indices.iter().map(|&i| links.get(i as usize).map_or("", |l| l.name.as_str())))
}

/// A table's columns as a dict {name: column}, each in `numeric`'s or `text`'s form; a link
/// column by the links' names.
fn hand_over<'py>(
    py: Python<'py>,
    schema: &Schema,
    columns: Vec<Values<'_>>,
    links: &[LinkSummary],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (column, values) in schema.columns.iter().zip(columns) {
        let value = match (column.dtype, values) {
            (Dtype::Link, Values::U32(indices)) => link_names(py, indices, links)?.into_any(),
            (_, Values::F64(v)) => numeric(py, "f8", v).into_pyobject(py)?.into_any(),
            (_, Values::U64(v)) => numeric(py, "u8", v).into_pyobject(py)?.into_any(),
            (_, Values::U32(v)) => numeric(py, "u4", v).into_pyobject(py)?.into_any(),
            (_, Values::Str(v)) => text(py, v.iter().copied())?.into_any(),
            (_, Values::Coded { codes, names }) => coded(py, codes, names)?.into_any(),
        };
        dict.set_item(column.name, value)?;
    }
    Ok(dict)
}

/// A finished run, kept in Rust: Python converts each part only when it is first asked for, so
/// a sweep that reads a few numbers of each run pays nothing for the rest.
#[pyclass(module = "tcpstart._core")]
struct Run {
    /// Typed, so releasing a run frees a few Vecs; a dict only when `summary()` asks.
    summary: Summary,
    flows: Option<FlowTrace>,
    queues: Option<QueueTrace>,
    packets: Option<PacketTrace>,
    pcaps: Vec<(String, Vec<u8>)>,
    /// Wall time of the simulation alone, kept out of the summary, which must be identical from
    /// run to run.
    #[pyo3(get)]
    core_seconds: f64,
}

fn taken(part: &str) -> PyErr {
    PyRuntimeError::new_err(format!("the {part} columns of this run were already handed over"))
}

/// A JSON value as the Python objects `json.loads` would make of its text: the same types
/// (integers stay int, other numbers float) and the same key order.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(PyString::new(py, k), to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

#[pymethods]
impl Run {
    /// The summary (flows, links, classes, udp, sim, invariants) as a new dict, keys sorted.
    ///
    /// Written as JSON text with the GIL released and parsed by the standard library's `json`
    /// (always importable, also in `tcpstart bench`'s children, which start without
    /// site-packages), so the GIL is held only for the parse: a web workload's summary has tens
    /// of thousands of objects (27,100 flows: 146 ms to parse, where building them one by one
    /// from Rust took 375 ms), and a worker thread holding the GIL that long keeps the main
    /// thread from seeing a Ctrl-C.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = py.allow_threads(|| self.summary.to_value().to_string());
        py.import("json")?.getattr("loads")?.call1((text,))
    }

    /// The flow time series as columns, its table built from the recorded runs now (with the
    /// GIL released, as the summary's text is); hands them over once (the Rust copy is freed).
    fn take_flows<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let trace = self.flows.take().ok_or_else(|| taken("flows"))?;
        let f = py.allow_threads(|| trace.table());
        hand_over(py, &FlowTable::SCHEMA, f.columns(), &self.summary.links)
    }

    /// The queue time series as columns, built now; hands them over once.
    fn take_queues<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let trace = self.queues.take().ok_or_else(|| taken("queues"))?;
        let q = py.allow_threads(|| trace.table());
        hand_over(py, &QueueTable::SCHEMA, q.columns(), &self.summary.links)
    }

    /// The packet events as columns, or None when not traced; hands them over once.
    fn take_packets<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(p) = self.packets.take() else { return Ok(None) };
        hand_over(py, &PacketTrace::SCHEMA, p.columns(), &self.summary.links).map(Some)
    }

    /// The pcap files, {link name: bytes}.
    fn pcaps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pcaps = PyDict::new(py);
        for (name, bytes) in &self.pcaps {
            pcaps.set_item(name, PyBytes::new(py, bytes))?;
        }
        Ok(pcaps)
    }
}

/// A flag that stops every run given it within a few milliseconds: the runs of a batch on
/// several threads (tcpstart.batch) share one, and the first to be interrupted sets it.
#[pyclass(module = "tcpstart._core", frozen)]
#[derive(Default)]
struct Stop(Arc<AtomicBool>);

#[pymethods]
impl Stop {
    #[new]
    fn new() -> Self {
        Stop::default()
    }
    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How often a run that looks at Python takes the GIL to do so: Ctrl-C is seen within this
/// (plus the few thousand events between two looks at the clock), and progress is shown as often.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What a batch's runs look at while they go, from the simulator's watch points.
struct Watcher {
    stop: Option<Arc<AtomicBool>>,
    /// Take the GIL now and then: on Python's main thread, the only one that handles signals, or
    /// to call `progress`. Other threads only read `stop`, which costs nothing.
    looks: bool,
    /// Called as progress(index in the batch, simulated seconds, end in seconds or None).
    progress: Option<Py<PyAny>>,
    last_look: std::time::Instant,
    /// What Python raised at a look (KeyboardInterrupt, or the progress callback's error).
    raised: Option<PyErr>,
}

impl Watcher {
    fn watch(&mut self, index: usize, p: Progress) -> ControlFlow<()> {
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            return ControlFlow::Break(());
        }
        if !self.looks || self.last_look.elapsed() < LOOK_EVERY {
            return ControlFlow::Continue(());
        }
        self.last_look = std::time::Instant::now();
        let looked = Python::with_gil(|py| {
            py.check_signals()?;
            if let Some(progress) = &self.progress {
                progress.call1(py, (index, p.now.as_secs_f64(), p.end.map(|e| e.as_secs_f64())))?;
            }
            Ok(())
        });
        match looked {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.raised = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// The Python error of a run that stopped early.
    fn error(&mut self, py: Python<'_>, stopped: Stopped) -> PyErr {
        match stopped {
            Stopped::Broken(v) => InvariantError::new_err(v.to_string()),
            Stopped::Controller(e) => {
                let message = e.to_string();
                let Ok(cause) = e.failure.error.downcast::<PyErr>() else { return ControllerError::new_err(message) };
                // Ctrl-C while the controller's code ran is an interrupt, not its failure.
                if cause.is_instance_of::<PyKeyboardInterrupt>(py) {
                    return *cause;
                }
                let err = ControllerError::new_err(message);
                err.set_cause(py, Some(*cause));
                err
            }
            // Interrupted here, or by another run sharing the stop flag.
            Stopped::Interrupted => self.raised.take().unwrap_or_else(|| PyKeyboardInterrupt::new_err(())),
        }
    }
}

fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    Ok(threading.call_method0("current_thread")?.is(&threading.call_method0("main_thread")?))
}

/// Simulates one checked scenario.
fn simulate(s: scenario::Scenario, watch: impl FnMut(Progress) -> ControlFlow<()>) -> Result<Run, Stopped> {
    let started = std::time::Instant::now();
    let out = tcpstart_sim::run_watched(s, watch)?;
    let core_seconds = started.elapsed().as_secs_f64();
    Ok(Run {
        summary: out.summary,
        flows: Some(out.flows),
        queues: Some(out.queues),
        packets: out.packets,
        pcaps: out.pcaps,
        core_seconds,
    })
}

/// Simulates scenarios, each given as JSON text, one after another without holding the GIL:
/// many small runs on threads (tcpstart.batch) overlap in
/// everything but the hand-over, and a batch pays for releasing and taking back the GIL once.
/// Returns the runs in order and, if a scenario is not valid, the one-line error of the first
/// such (the runs stop there).
///
/// On the main thread the runs take the GIL every 50 ms to let Python handle signals, so Ctrl-C
/// raises KeyboardInterrupt at once; `stop` (a `Stop`) stops them from another thread, raising
/// KeyboardInterrupt too; `progress` is called at those looks. A run that breaks an invariant
/// raises InvariantError; one whose Python controller fails raises ControllerError.
#[pyfunction]
#[pyo3(signature = (scenarios, stop=None, progress=None))]
fn run_all(
    py: Python<'_>,
    scenarios: Vec<String>,
    stop: Option<Bound<'_, Stop>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Vec<Run>, Option<String>)> {
    let mut watcher = Watcher {
        stop: stop.map(|s| s.get().0.clone()),
        looks: progress.is_some() || on_main_thread(py)?,
        progress,
        last_look: std::time::Instant::now(),
        raised: None,
    };
    let (runs, error, stopped) = py.allow_threads(|| {
        // All are checked before the first is simulated, so every check finds the parser's code
        // and data in the caches (after a simulation it finds them evicted: about 3x slower).
        let mut checked = Vec::with_capacity(scenarios.len());
        let mut error = None;
        for text in &scenarios {
            match scenario::from_json(text) {
                Ok(s) => checked.push(s),
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        let mut runs = Vec::with_capacity(checked.len());
        for (i, s) in checked.into_iter().enumerate() {
            match simulate(s, |p| watcher.watch(i, p)) {
                Ok(run) => runs.push(run),
                Err(stopped) => return (runs, error, Some(stopped)),
            }
        }
        (runs, error, None)
    });
    match stopped {
        Some(stopped) => Err(watcher.error(py, stopped)),
        None => Ok((runs, error)),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_fields, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    m.add_function(wrap_pyfunction!(run_all, m)?)?;
    m.add_class::<Run>()?;
    m.add_class::<Stop>()?;
    m.add("InvariantError", m.py().get_type::<InvariantError>())?;
    m.add("ControllerError", m.py().get_type::<ControllerError>())?;
    m.add_function(wrap_pyfunction!(controller::register_controller, m)?)?;
    for event in [
        m.py().get_type::<controller::Established>(),
        m.py().get_type::<controller::Sent>(),
        m.py().get_type::<controller::Ack>(),
        m.py().get_type::<controller::Rate>(),
        m.py().get_type::<controller::Congestion>(),
        m.py().get_type::<controller::RecoveryExit>(),
        m.py().get_type::<controller::Rto>(),
        m.py().get_type::<controller::Segment>(),
    ] {
        m.add(event.name()?, event)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Set by the package's build backend (pgo/maturin_with_profile.py): the commit and PGO use.
    m.add("__build__", option_env!("TCPSTART_BUILD_INFO").unwrap_or("{}"))?;
    m.add("__debug_build__", cfg!(debug_assertions))?;
    Ok(())
}
