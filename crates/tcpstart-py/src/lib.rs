//! The Python extension module `tcpstart._core`: a thin layer that takes scenario JSON, runs the
//! simulator without holding the GIL, and returns results as columns (never row by row).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use tcpstart_sim::{scenario, ScenarioError};

fn user_error(e: ScenarioError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Validates a scenario and returns it resolved (defaults filled in) as JSON.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    let s = scenario::from_json(scenario_json).map_err(user_error)?;
    Ok(serde_json::to_string(&s).expect("a resolved scenario serialises"))
}

/// Lists the algorithms with their parameters, as JSON.
#[pyfunction]
fn algorithms() -> String {
    serde_json::to_string(tcpstart_cc::algorithms()).expect("the registry serialises")
}

/// A numeric column as its raw bytes with a numpy type code: Python views it in one copy,
/// instead of building one Python object per value.
fn numeric<'py, T: bytemuck::Pod>(py: Python<'py>, code: &str, values: &[T]) -> (String, Bound<'py, PyBytes>) {
    (code.to_string(), PyBytes::new(py, bytemuck::cast_slice(values)))
}

/// A text column, dictionary-encoded: u32 codes into a short list of distinct strings.
fn text<'py>(py: Python<'py>, values: impl Iterator<Item = &'py str>) -> PyResult<Bound<'py, PyTuple>> {
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
    PyTuple::new(
        py,
        [
            PyString::new(py, "str").into_any(),
            numeric(py, "u4", &codes).1.into_any(),
            PyList::new(py, categories)?.into_any(),
        ],
    )
}

fn link_names<'py>(py: Python<'py>, indices: &[u32], names: &'py [String]) -> PyResult<Bound<'py, PyTuple>> {
    text(py, indices.iter().map(|&i| names.get(i as usize).map_or("", String::as_str)))
}

/// Runs a scenario; returns {"summary": json, "flows": columns, "queues": columns,
/// "packets": columns or None, "pcaps": {link: bytes}, "core_seconds": wall time of the simulation}.
/// A column is (numpy type code, bytes) or ("str", u32 codes as bytes, distinct strings).
#[pyfunction]
fn run(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyDict>> {
    // Parsing and writing the summary happen without the GIL too, so that many small runs on
    // threads (tcpstart.batch) overlap in everything but building the Python objects.
    let (out, summary, core_seconds) = py
        .allow_threads(|| {
            let s = scenario::from_json(scenario_json)?;
            let started = std::time::Instant::now();
            let out = tcpstart_sim::run(s);
            let core_seconds = started.elapsed().as_secs_f64();
            let summary = out.summary.to_string();
            Ok((out, summary, core_seconds))
        })
        .map_err(user_error)?;
    let result = PyDict::new(py);
    // Kept out of the summary, which must be identical from run to run.
    result.set_item("core_seconds", core_seconds)?;
    result.set_item("summary", summary)?;

    let f = &out.flows;
    let flows = PyDict::new(py);
    flows.set_item("t", numeric(py, "f8", &f.t))?;
    flows.set_item("flow", numeric(py, "u4", &f.flow))?;
    flows.set_item("cwnd", numeric(py, "u8", &f.cwnd))?;
    flows.set_item("ssthresh", numeric(py, "u8", &f.ssthresh))?;
    flows.set_item("inflight", numeric(py, "u8", &f.inflight))?;
    flows.set_item("srtt", numeric(py, "f8", &f.srtt))?;
    flows.set_item("rtt", numeric(py, "f8", &f.rtt))?;
    flows.set_item("pacing_rate", numeric(py, "f8", &f.pacing_rate))?;
    flows.set_item("delivered", numeric(py, "u8", &f.delivered))?;
    flows.set_item("retransmissions", numeric(py, "u8", &f.retransmissions))?;
    flows.set_item("phase", text(py, f.phase.iter().copied())?)?;
    result.set_item("flows", flows)?;

    let q = &out.queues;
    let queues = PyDict::new(py);
    queues.set_item("t", numeric(py, "f8", &q.t))?;
    queues.set_item("link", link_names(py, &q.link, &out.link_names)?)?;
    queues.set_item("packets", numeric(py, "u8", &q.packets))?;
    queues.set_item("bytes", numeric(py, "u8", &q.bytes))?;
    queues.set_item("sojourn", numeric(py, "f8", &q.sojourn))?;
    result.set_item("queues", queues)?;

    match &out.packets {
        Some(p) => {
            let packets = PyDict::new(py);
            packets.set_item("t", numeric(py, "f8", &p.t))?;
            packets.set_item("flow", numeric(py, "u4", &p.flow))?;
            packets.set_item("event", text(py, p.event.iter().copied())?)?;
            packets.set_item("seq", numeric(py, "u8", &p.seq))?;
            packets.set_item("ack", numeric(py, "u8", &p.ack))?;
            packets.set_item("len", numeric(py, "u4", &p.len))?;
            packets.set_item("link", link_names(py, &p.link, &out.link_names)?)?;
            result.set_item("packets", packets)?;
        }
        None => result.set_item("packets", py.None())?,
    }

    let pcaps = PyDict::new(py);
    for (name, bytes) in &out.pcaps {
        pcaps.set_item(name, PyBytes::new(py, bytes))?;
    }
    result.set_item("pcaps", pcaps)?;
    Ok(result.unbind())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
