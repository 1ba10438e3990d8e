//! Congestion controllers written in Python (`tcpstart.Controller` subclasses): registered by
//! name in tcpstart-cc's run-time registry, built per flow, called through the same
//! `CongestionControl` trait as the Rust ones.
//!
//! The simulator runs without the GIL; a Python controller takes it for each callback only (so
//! other runs of a batch keep going between callbacks). A callback gets one small event object
//! whose fields are converted only when read, and the outputs (cwnd, ssthresh, pacing_rate,
//! phase) are read back once after it. An exception, or an output that is not a window, turns
//! the controller into a failed one: cwnd 0 from then on, which the sender answers by asking
//! for the failure and stopping the run with it.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use tcpstart_cc::registry::leak;
use tcpstart_cc::{
    AlgorithmInfo, BuildReceiver, Capabilities, CcConfig, CcState, CongestionControl, ControllerFailure, Duration,
    Instant, ParamSpec, Params, PartialAckPolicy, ReceiverHook, SegmentArrival,
};

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Event classes: each wraps the Rust event and converts a field when Python reads it. Times
/// are seconds as floats (`Instant::as_secs_f64`, `Duration::as_secs_f64`, as the Rust
/// algorithms compute with them), sizes whole bytes.
macro_rules! event_classes {
    ($($class:ident($rust:ty) as $pyname:literal { $($field:ident: $t:ty = |$e:ident| $conv:expr;)* })*) => {$(
        #[pyclass(frozen, name = $pyname, module = "tcpstart._core")]
        pub struct $class(pub $rust);

        #[pymethods]
        impl $class {
            $(
                #[getter]
                fn $field(&self) -> $t {
                    let $e = &self.0;
                    $conv
                }
            )*
        }
    )*};
}

event_classes! {
    Established(tcpstart_cc::EstablishedEvent) as "EstablishedEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        handshake_rtt: Option<f64> = |e| e.handshake_rtt.map(secs);
        queued_bytes: u64 = |e| e.queued_bytes;
        rwnd: u64 = |e| e.rwnd;
    }
    Sent(tcpstart_cc::SentEvent) as "SentEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        seq: u64 = |e| e.seq;
        len: u32 = |e| e.len;
        is_retransmission: bool = |e| e.is_retransmission;
        bytes_in_flight: u64 = |e| e.bytes_in_flight;
        app_limited: bool = |e| e.app_limited;
    }
    Ack(tcpstart_cc::AckEvent) as "AckEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        bytes_acked: u64 = |e| e.bytes_acked;
        bytes_sacked: u64 = |e| e.bytes_sacked;
        rtt_sample: Option<f64> = |e| e.rtt_sample.map(secs);
        srtt: Option<f64> = |e| e.srtt.map(secs);
        min_rtt: Option<f64> = |e| e.min_rtt.map(secs);
        prior_in_flight: u64 = |e| e.prior_in_flight;
        bytes_in_flight: u64 = |e| e.bytes_in_flight;
        in_recovery: bool = |e| e.in_recovery;
        cwnd_limited: bool = |e| e.cwnd_limited;
        snd_una: u64 = |e| e.snd_una;
        snd_nxt: u64 = |e| e.snd_nxt;
        timestamps: Option<(u64, u64)> = |e| e.timestamps.map(|t| (t.tsval, t.tsecr));
        receiver_echo: Option<u64> = |e| e.receiver_echo;
        rate: Option<Rate> = |e| e.rate.map(Rate);
    }
    Rate(tcpstart_cc::RateSample) as "RateSample" {
        delivered: u64 = |e| e.delivered;
        interval: Option<f64> = |e| e.interval.map(secs);
        send_elapsed: f64 = |e| secs(e.send_elapsed);
        ack_elapsed: f64 = |e| secs(e.ack_elapsed);
        prior_delivered: u64 = |e| e.prior_delivered;
        prior_time: f64 = |e| e.prior_time.as_secs_f64();
        rtt: Option<f64> = |e| e.rtt.map(secs);
        is_app_limited: bool = |e| e.is_app_limited;
        is_retrans: bool = |e| e.is_retrans;
        losses: u64 = |e| e.losses;
        acked_sacked: u64 = |e| e.acked_sacked;
        total_delivered: u64 = |e| e.total_delivered;
        total_lost: u64 = |e| e.total_lost;
        delivered_time: f64 = |e| e.delivered_time.as_secs_f64();
        dupack_credit: u64 = |e| e.dupack_credit;
        delivery_rate: Option<f64> = |e| e.delivery_rate();
    }
    Congestion(tcpstart_cc::CongestionEvent) as "CongestionEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        flight_size: u64 = |e| e.flight_size;
        high_data: u64 = |e| e.high_data;
    }
    RecoveryExit(tcpstart_cc::RecoveryExitEvent) as "RecoveryExitEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        retransmitted_bytes: u64 = |e| e.retransmitted_bytes;
        bytes_in_flight: u64 = |e| e.bytes_in_flight;
    }
    Rto(tcpstart_cc::RtoEvent) as "RtoEvent" {
        now: f64 = |e| e.now.as_secs_f64();
        flight_size: u64 = |e| e.flight_size;
        consecutive: u32 = |e| e.consecutive;
    }
    Segment(tcpstart_cc::SegmentArrival) as "SegmentArrival" {
        now: f64 = |e| e.now.as_secs_f64();
        seq: u64 = |e| e.seq;
        len: u32 = |e| e.len;
        mark: u8 = |e| e.mark;
    }
}

/// Distinct phase names a controller may use: the trace codes a run's phases in a byte.
const MAX_PHASES: usize = 32;

/// Phase names, kept for the life of the process as the Rust algorithms' constants are.
static PHASES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

fn intern_phase(name: &str) -> &'static str {
    let mut set = PHASES.lock().unwrap_or_else(|e| e.into_inner());
    let set = set.get_or_insert_with(HashSet::new);
    match set.get(name) {
        Some(s) => s,
        None => {
            let s = leak(name);
            set.insert(s);
            s
        }
    }
}

/// The callbacks, in the order of `PyController::methods`.
const CALLBACKS: [&str; 7] =
    ["on_established", "on_sent", "on_ack", "on_congestion", "on_recovery_exit", "on_rto", "segment_mark"];
const ESTABLISHED: usize = 0;
const SENT: usize = 1;
const ACK: usize = 2;
const CONGESTION: usize = 3;
const RECOVERY_EXIT: usize = 4;
const RTO: usize = 5;
const MARK: usize = 6;

/// One flow's Python controller.
pub struct PyController {
    name: &'static str,
    obj: Py<PyAny>,
    /// The bound callbacks, looked up once.
    methods: Vec<Py<PyAny>>,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    pacing_rate: Option<f64>,
    phase: &'static str,
    /// The Python string `phase` was read from: the same object again needs no conversion.
    phase_obj: Option<Py<PyAny>>,
    /// The distinct phase names it has used.
    phases: Vec<&'static str>,
    /// From the class's `observes_sends`, `marks_segments`, `uses_rate_samples` and
    /// `partial_ack_ends_recovery`, read when it is built.
    capabilities: Capabilities,
    /// `on_sent` and `segment_mark` are overridden (each is called only then).
    calls_on_sent: bool,
    marks_segments: bool,
    /// Simulated time of the latest callback, for naming the time of a `segment_mark` failure.
    now: Instant,
    failure: Option<ControllerFailure>,
    failed: bool,
}

impl PyController {
    /// Builds the controller of class `cls` for one flow; a constructor that raises gives a
    /// failed controller, which stops the run at its first callback.
    fn build(name: &'static str, cls: &Py<PyAny>, params: &Params, cfg: &CcConfig, specs: &[ParamSpec]) -> Self {
        let mut c = PyController {
            name,
            obj: Python::with_gil(|py| py.None()),
            methods: Vec::new(),
            mss: cfg.mss,
            cwnd: 0,
            ssthresh: 0,
            pacing_rate: None,
            phase: "failed",
            phase_obj: None,
            phases: Vec::new(),
            capabilities: Capabilities { observes_sends: false, uses_rate_samples: false, ..Capabilities::default() },
            calls_on_sent: false,
            marks_segments: false,
            now: Instant::ZERO,
            failure: None,
            failed: false,
        };
        let built = Python::with_gil(|py| -> PyResult<()> {
            let values = param_dict(py, params, specs)?;
            let obj = cls.bind(py).call1((values, cfg.mss, cfg.initial_cwnd, cfg.initial_ssthresh))?;
            c.calls_on_sent = obj.getattr(intern!(py, "observes_sends"))?.is_truthy()?;
            c.marks_segments = obj.getattr(intern!(py, "marks_segments"))?.is_truthy()?;
            c.capabilities.observes_sends = c.calls_on_sent || c.marks_segments;
            c.capabilities.uses_rate_samples = obj.getattr(intern!(py, "uses_rate_samples"))?.is_truthy()?;
            if obj.getattr(intern!(py, "partial_ack_ends_recovery"))?.is_truthy()? {
                c.capabilities.partial_ack_policy = PartialAckPolicy::EndsRecovery;
            }
            c.methods = CALLBACKS.iter().map(|m| obj.getattr(*m).map(Bound::unbind)).collect::<PyResult<_>>()?;
            c.obj = obj.unbind();
            c.read_outputs(py)
        });
        if let Err(e) = built {
            c.fail("__init__", Instant::ZERO, e);
        }
        c
    }

    /// Calls callback `which` with the event `make` builds, then reads the outputs back.
    fn call<E: pyo3::PyClass + Into<PyClassInitializer<E>>>(&mut self, which: usize, now: Instant, event: E) {
        if self.failed {
            return;
        }
        self.now = now;
        let result = Python::with_gil(|py| {
            self.methods[which].call1(py, (Bound::new(py, event)?,))?;
            self.read_outputs(py)
        });
        if let Err(e) = result {
            self.fail(CALLBACKS[which], now, e);
        }
    }

    fn fail(&mut self, event: &'static str, at: Instant, error: PyErr) {
        self.failed = true;
        self.cwnd = 0;
        self.pacing_rate = None;
        self.failure = Some(ControllerFailure { event, at, error: Box::new(error) });
    }

    /// Reads cwnd, ssthresh, pacing_rate and phase, each checked: the sender must get a window
    /// of at least one segment, a finite positive rate, a phase name.
    fn read_outputs(&mut self, py: Python<'_>) -> PyResult<()> {
        let obj = self.obj.bind(py);
        let cwnd = bytes(&obj.getattr(intern!(py, "cwnd"))?, "cwnd")?;
        if cwnd < self.mss {
            return Err(PyValueError::new_err(format!(
                "cwnd must be at least one segment ({} B), got {cwnd}",
                self.mss
            )));
        }
        let ssthresh = bytes(&obj.getattr(intern!(py, "ssthresh"))?, "ssthresh")?;
        let rate = obj.getattr(intern!(py, "pacing_rate"))?;
        let pacing_rate = match rate.is_none() {
            true => None,
            false => match rate.extract::<f64>() {
                Ok(r) if r.is_finite() && r > 0.0 => Some(r),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "pacing_rate must be None or a finite number of bytes per second above 0, got {rate}"
                    )))
                }
            },
        };
        let phase = obj.getattr(intern!(py, "phase"))?;
        if !self.phase_obj.as_ref().is_some_and(|p| p.is(&phase)) {
            let name = phase
                .downcast::<PyString>()
                .map_err(|_| PyValueError::new_err(format!("phase must be a str, got {phase}")))?
                .to_cow()?;
            if name != self.phase {
                self.phase = match self.phases.iter().find(|p| **p == name) {
                    Some(p) => p,
                    None if self.phases.len() == MAX_PHASES => {
                        return Err(PyValueError::new_err(format!(
                            "phase: at most {MAX_PHASES} distinct phase names, got {name:?} after them"
                        )))
                    }
                    None => {
                        let p = intern_phase(&name);
                        self.phases.push(p);
                        p
                    }
                };
            }
            self.phase_obj = Some(phase.unbind());
        }
        (self.cwnd, self.ssthresh, self.pacing_rate) = (cwnd, ssthresh, pacing_rate);
        Ok(())
    }
}

/// A window in bytes: an int from 0, or a float that is finite and not negative (truncated,
/// as `as u64` does; ssthresh may also be infinite, meaning no threshold).
fn bytes(v: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if let Ok(n) = v.extract::<u64>() {
        return Ok(n);
    }
    let bad = || PyValueError::new_err(format!("{what} must be a whole number of bytes from 0, got {v}"));
    let f = v.downcast::<PyFloat>().map_err(|_| bad())?.value();
    match f {
        f if f == f64::INFINITY && what == "ssthresh" => Ok(u64::MAX),
        f if f.is_finite() && f >= 0.0 => Ok(f as u64),
        _ => Err(bad()),
    }
}

impl CongestionControl for PyController {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_established(&mut self, ev: &tcpstart_cc::EstablishedEvent) {
        self.call(ESTABLISHED, ev.now, Established(*ev));
    }
    fn on_sent(&mut self, ev: &tcpstart_cc::SentEvent) {
        if self.calls_on_sent {
            self.call(SENT, ev.now, Sent(*ev));
        }
    }
    fn segment_mark(&mut self, seq: u64) -> u8 {
        if !self.marks_segments || self.failed {
            return 0;
        }
        let mark = Python::with_gil(|py| -> PyResult<u8> {
            let v = self.methods[MARK].call1(py, (seq,))?;
            v.extract::<u8>(py).map_err(|_| {
                PyValueError::new_err(format!("segment_mark must return a whole number from 0 to 255, got {v}"))
            })
        });
        mark.unwrap_or_else(|e| {
            self.fail(CALLBACKS[MARK], self.now, e);
            0
        })
    }
    fn on_ack(&mut self, ev: &tcpstart_cc::AckEvent) {
        self.call(ACK, ev.now, Ack(*ev));
    }
    fn on_congestion(&mut self, ev: &tcpstart_cc::CongestionEvent) {
        self.call(CONGESTION, ev.now, Congestion(*ev));
    }
    fn on_recovery_exit(&mut self, ev: &tcpstart_cc::RecoveryExitEvent) {
        self.call(RECOVERY_EXIT, ev.now, RecoveryExit(*ev));
    }
    fn on_rto(&mut self, ev: &tcpstart_cc::RtoEvent) {
        self.call(RTO, ev.now, Rto(*ev));
    }
    fn state(&self) -> CcState {
        CcState { pacing_rate: self.pacing_rate, ..CcState::window(self.cwnd, self.ssthresh, self.phase) }
    }
    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        self.failure.take()
    }
}

/// One flow's Python receiver-side hook (`Controller.receiver`, a `tcpstart.Receiver`
/// subclass): it sees each arriving data segment and may echo a number on the next ACK.
pub struct PyReceiver {
    obj: Option<Py<PyAny>>,
    failure: Option<ControllerFailure>,
}

impl PyReceiver {
    /// Builds the receiver of class `cls` with the flow's parameters; a constructor that raises
    /// gives a receiver that reports the failure at the first segment.
    fn build(cls: &Py<PyAny>, params: &Params, specs: &[ParamSpec]) -> Self {
        Python::with_gil(|py| match param_dict(py, params, specs).and_then(|values| cls.bind(py).call1((values,))) {
            Ok(obj) => PyReceiver { obj: Some(obj.unbind()), failure: None },
            Err(e) => PyReceiver {
                obj: None,
                failure: Some(ControllerFailure { event: "Receiver.__init__", at: Instant::ZERO, error: Box::new(e) }),
            },
        })
    }
}

impl ReceiverHook for PyReceiver {
    fn on_segment(&mut self, seg: &SegmentArrival) -> Option<u64> {
        let obj = self.obj.as_ref()?;
        let echo = Python::with_gil(|py| -> PyResult<Option<u64>> {
            let v = obj.bind(py).call_method1(intern!(py, "on_segment"), (Bound::new(py, Segment(*seg))?,))?;
            match v.is_none() {
                true => Ok(None),
                false => v.extract::<u64>().map(Some).map_err(|_| {
                    PyValueError::new_err(format!("on_segment must return None or a whole number from 0, got {v}"))
                }),
            }
        });
        echo.unwrap_or_else(|e| {
            self.obj = None;
            self.failure = Some(ControllerFailure { event: "Receiver.on_segment", at: seg.now, error: Box::new(e) });
            None
        })
    }
    fn take_failure(&mut self) -> Option<ControllerFailure> {
        self.failure.take()
    }
}

/// The flow's parameters as the dict a Python controller or receiver is built with (an int
/// where the parameter is `integer`).
fn param_dict<'py>(py: Python<'py>, params: &Params, specs: &[ParamSpec]) -> PyResult<Bound<'py, PyDict>> {
    let values = PyDict::new(py);
    for spec in specs {
        let v = params[spec.name];
        match spec.integer {
            true => values.set_item(spec.name, v as i64)?,
            false => values.set_item(spec.name, v)?,
        }
    }
    Ok(values)
}

/// One parameter as `tcpstart.Param` hands it over: (name, default, min, max, integer, doc).
type RawParam = (String, f64, f64, f64, bool, String);

/// Registers the `tcpstart.Controller` subclass `cls` under `name` (tcpstart.register calls it
/// with the parameters it found on the class), with `receiver`, its receiver-side class, if it
/// has one; a name or parameter table that is not allowed raises ValueError naming it.
#[pyfunction]
#[pyo3(signature = (name, summary, reference, params, cls, receiver=None))]
pub fn register_controller(
    name: &str,
    summary: &str,
    reference: &str,
    params: Vec<RawParam>,
    cls: Py<PyAny>,
    receiver: Option<Py<PyAny>>,
) -> PyResult<()> {
    let specs: &'static [ParamSpec] = Box::leak(
        params
            .iter()
            .map(|(n, default, min, max, integer, doc)| ParamSpec {
                name: leak(n),
                default: *default,
                min: *min,
                max: *max,
                integer: *integer,
                doc: leak(doc),
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let name = leak(name);
    let info = AlgorithmInfo { name, summary: leak(summary), reference: leak(reference), params: specs };
    let cls = Arc::new(cls);
    let build = Arc::new(move |p: &Params, cfg: &CcConfig| -> Box<dyn CongestionControl> {
        Box::new(PyController::build(name, &cls, p, cfg, specs))
    });
    let receiver_hook = receiver.map(|rcls| -> Arc<BuildReceiver> {
        let rcls = Arc::new(rcls);
        Arc::new(move |p: &Params| -> Box<dyn ReceiverHook> { Box::new(PyReceiver::build(&rcls, p, specs)) })
    });
    tcpstart_cc::register(info, build, receiver_hook).map_err(|e| PyValueError::new_err(e.to_string()))
}
