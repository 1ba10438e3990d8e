//! The Python extension module `tcpstart._core`: a thin layer that takes scenario JSON, runs the
//! simulator without holding the GIL, and returns results as columns (never row by row).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

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

fn names(indices: &[u32], names: &[String]) -> Vec<String> {
    indices.iter().map(|&i| names.get(i as usize).cloned().unwrap_or_default()).collect()
}

/// Runs a scenario; returns {"summary": json, "flows": columns, "queues": columns,
/// "packets": columns or None, "pcaps": {link: bytes}}.
#[pyfunction]
fn run(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyDict>> {
    let s = scenario::from_json(scenario_json).map_err(user_error)?;
    let out = py.allow_threads(|| tcpstart_sim::run(s));
    let result = PyDict::new(py);
    result.set_item("summary", out.summary.to_string())?;

    let f = &out.flows;
    let flows = PyDict::new(py);
    flows.set_item("t", &f.t)?;
    flows.set_item("flow", &f.flow)?;
    flows.set_item("cwnd", &f.cwnd)?;
    flows.set_item("ssthresh", &f.ssthresh)?;
    flows.set_item("inflight", &f.inflight)?;
    flows.set_item("srtt", &f.srtt)?;
    flows.set_item("rtt", &f.rtt)?;
    flows.set_item("pacing_rate", &f.pacing_rate)?;
    flows.set_item("delivered", &f.delivered)?;
    flows.set_item("retransmissions", &f.retransmissions)?;
    flows.set_item("phase", &f.phase)?;
    result.set_item("flows", flows)?;

    let q = &out.queues;
    let queues = PyDict::new(py);
    queues.set_item("t", &q.t)?;
    queues.set_item("link", names(&q.link, &out.link_names))?;
    queues.set_item("packets", &q.packets)?;
    queues.set_item("bytes", &q.bytes)?;
    result.set_item("queues", queues)?;

    match &out.packets {
        Some(p) => {
            let packets = PyDict::new(py);
            packets.set_item("t", &p.t)?;
            packets.set_item("flow", &p.flow)?;
            packets.set_item("event", &p.event)?;
            packets.set_item("seq", &p.seq)?;
            packets.set_item("ack", &p.ack)?;
            packets.set_item("len", &p.len)?;
            packets.set_item("link", names(&p.link, &out.link_names))?;
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
