//! Thin PyO3 binding of aqmlab-core: a scenario crosses in once as TOML text (Python dicts
//! are written as TOML by the Python layer, so files and dicts share one parser), result
//! columns come back once as plain lists. The run releases the GIL. Errors become named
//! Python exceptions; a Rust panic becomes `InternalError`, never a crash.

use aqmlab_core::scenario::{self, ScenarioErrors};
use aqmlab_core::sim::{self, RunResults, SimError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pyo3::create_exception!(
    aqmlab._core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; `errors` lists every problem as (path, value, message)."
);
pyo3::create_exception!(
    aqmlab._core,
    ConservationError,
    PyRuntimeError,
    "A conservation identity failed at the end of a run: a simulator bug."
);
pyo3::create_exception!(
    aqmlab._core,
    InternalError,
    PyRuntimeError,
    "The engine panicked; the message says where. Please report it with the scenario."
);

pyo3::create_exception!(
    aqmlab._core,
    ResourceError,
    pyo3::exceptions::PyMemoryError,
    "The run would exceed a memory bound (live packets, time-series values) or an allocation \
     failed; nothing of the run is kept. The message says which and what to change."
);

/// A panic payload as the Python exception it stands for.
fn panic_err(p: Box<dyn std::any::Any + Send>) -> PyErr {
    match p.downcast::<aqmlab_core::mem::ResourceExhausted>() {
        Ok(r) => ResourceError::new_err(r.0),
        Err(p) => InternalError::new_err(panic_message(p)),
    }
}

fn scenario_err(py: Python<'_>, e: &ScenarioErrors) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    let list: Vec<(String, String, String)> =
        e.0.iter()
            .map(|x| (x.path.clone(), x.value.clone(), x.message.clone()))
            .collect();
    let first = e.0.first();
    // Attribute setting on a fresh exception instance cannot fail short of memory exhaustion.
    let _ = v.setattr("errors", list);
    let _ = v.setattr("path", first.map(|x| x.path.clone()).unwrap_or_default());
    let _ = v.setattr("value", first.map(|x| x.value.clone()).unwrap_or_default());
    let _ = v.setattr(
        "message",
        first.map(|x| x.message.clone()).unwrap_or_default(),
    );
    err
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".into()
    }
}

/// Parses and validates TOML text; returns the canonical TOML echo.
#[pyfunction]
fn canonical(py: Python<'_>, text: &str) -> PyResult<String> {
    let out = catch_unwind(|| scenario::load(text).map(|s| s.to_toml()));
    match out {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(scenario_err(py, &e)),
        Err(p) => Err(InternalError::new_err(panic_message(p))),
    }
}

type RunOutput = Result<(String, u64, RunResults), SimError>;

fn simulate(text: &str, progress: Option<Arc<AtomicU64>>) -> RunOutput {
    let s = scenario::load(text).map_err(SimError::from)?;
    let mut sim = sim::Simulator::new(&s);
    if let Some(cell) = progress {
        sim = sim.with_progress(cell);
    }
    let r = sim.run()?;
    Ok((s.to_toml(), s.simulation.warmup.0, r))
}

/// Runs a scenario given as TOML text; returns a dict of result columns. With `progress`,
/// the run happens on a separate thread and `progress(simulated_seconds)` is called about
/// five times a second from this one (errors in the callback stop the calls, not the run).
#[pyfunction]
#[pyo3(signature = (text, progress=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = text.to_owned();
    let out = match progress {
        None => py.detach(move || catch_unwind(AssertUnwindSafe(|| simulate(&text, None)))),
        Some(callback) => {
            let cell = Arc::new(AtomicU64::new(0));
            let shared = Arc::clone(&cell);
            let worker = std::thread::spawn(move || {
                catch_unwind(AssertUnwindSafe(|| simulate(&text, Some(shared))))
            });
            let mut report = true;
            while !worker.is_finished() {
                py.detach(|| std::thread::sleep(std::time::Duration::from_millis(200)));
                if report {
                    let t = cell.load(Ordering::Relaxed) as f64 / 1e9;
                    report = callback.call1((t,)).is_ok();
                }
            }
            worker.join().unwrap_or_else(Err)
        }
    };
    match out {
        Ok(Ok((canon, warmup, r))) => to_python(py, &canon, warmup, &r),
        Ok(Err(SimError::Scenario(e))) => Err(scenario_err(py, &e)),
        Ok(Err(e @ SimError::Conservation(_))) => Err(ConservationError::new_err(e.to_string())),
        Err(p) => Err(panic_err(p)),
    }
}

/// Panics on purpose: lets the Python tests prove a panic surfaces as InternalError.
#[pyfunction]
fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    let out = py.detach(|| catch_unwind(|| panic!("deliberate panic for the test suite")));
    out.map_err(|p| InternalError::new_err(panic_message(p)))
}

fn to_python<'py>(
    py: Python<'py>,
    canon: &str,
    warmup: u64,
    r: &RunResults,
) -> PyResult<Bound<'py, PyDict>> {
    let reasons = sim::reason_names();
    let q = PyDict::new(py);
    macro_rules! qcol {
        ($name:ident) => {
            q.set_item(
                stringify!($name),
                r.queues.iter().map(|x| x.$name.clone()).collect::<Vec<_>>(),
            )?;
        };
    }
    qcol!(name);
    qcol!(link);
    qcol!(from);
    qcol!(to);
    qcol!(aqm);
    qcol!(arrivals);
    qcol!(enqueued);
    qcol!(dequeued);
    qcol!(lost_on_link);
    qcol!(mean_queue_pkts);
    qcol!(var_queue_pkts);
    qcol!(mean_queue_bytes);
    qcol!(var_queue_bytes);
    qcol!(max_queue_pkts);
    qcol!(max_queue_bytes);
    qcol!(utilization);
    qcol!(throughput_bps);
    qcol!(mean_sojourn_s);
    qcol!(p50_sojourn_s);
    qcol!(p90_sojourn_s);
    qcol!(p99_sojourn_s);
    qcol!(max_sojourn_s);
    for (k, reason) in reasons.iter().enumerate() {
        q.set_item(
            format!("dropped_{reason}"),
            r.queues.iter().map(|x| x.dropped[k]).collect::<Vec<_>>(),
        )?;
        q.set_item(
            format!("marked_{reason}"),
            r.queues.iter().map(|x| x.marked[k]).collect::<Vec<_>>(),
        )?;
    }

    let f = PyDict::new(py);
    macro_rules! fcol {
        ($name:ident) => {
            f.set_item(
                stringify!($name),
                r.flows.iter().map(|x| x.$name.clone()).collect::<Vec<_>>(),
            )?;
        };
    }
    fcol!(name);
    fcol!(kind);
    fcol!(src);
    fcol!(dst);
    fcol!(sent_pkts);
    fcol!(sent_bytes);
    fcol!(received_pkts);
    fcol!(received_bytes);
    fcol!(dropped_pkts);
    fcol!(lost_pkts);
    fcol!(goodput_bps);
    fcol!(loss_rate);
    fcol!(mean_delay_s);
    fcol!(max_delay_s);
    fcol!(throughput_bps);
    fcol!(retransmits);
    fcol!(timeouts);
    fcol!(fast_recoveries);
    fcol!(ecn_reactions);
    fcol!(marks_received);
    fcol!(acks_sent);
    fcol!(acks_lost);
    fcol!(completion_time_s);

    let dist = PyDict::new(py);
    let (mut dq, mut dn, mut dp) = (vec![], vec![], vec![]);
    for x in &r.queues {
        for (n, p) in x.distribution.iter().enumerate() {
            dq.push(x.name.as_str());
            dn.push(n as u64);
            dp.push(*p);
        }
    }
    dist.set_item("queue", dq)?;
    dist.set_item("n_pkts", dn)?;
    dist.set_item("fraction", dp)?;

    let ts = PyDict::new(py);
    ts.set_item("time_s", &r.timeseries.time_s)?;
    let series = PyList::empty(py);
    for s in &r.timeseries.series {
        series.append((s.queue.as_str(), s.metric.as_str(), &s.values))?;
    }
    ts.set_item("series", series)?;
    let flows = PyList::empty(py);
    for s in &r.timeseries.flows {
        flows.append((s.flow.as_str(), s.metric.as_str(), &s.values))?;
    }
    ts.set_item("flows", flows)?;

    let out = PyDict::new(py);
    out.set_item("queues", q)?;
    out.set_item("flows", f)?;
    out.set_item("queue_dist", dist)?;
    out.set_item("timeseries", ts)?;
    out.set_item("events", r.events)?;
    out.set_item("packets", r.packets)?;
    out.set_item("measured_s", r.measured_s)?;
    out.set_item("warmup_s", aqmlab_core::units::secs(warmup))?;
    out.set_item("reasons", reasons.to_vec())?;
    out.set_item("scenario", canon)?;
    out.set_item("engine_version", aqmlab_core::VERSION)?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("ConservationError", py.get_type::<ConservationError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("ResourceError", py.get_type::<ResourceError>())?;
    // A run that runs out of memory unwinds on purpose: say it once, as the exception.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info
            .payload()
            .downcast_ref::<aqmlab_core::mem::ResourceExhausted>()
            .is_none()
        {
            default_hook(info)
        }
    }));
    m.add("ENGINE_VERSION", aqmlab_core::VERSION)?;
    m.add("SCHEMA_VERSION", scenario::SCHEMA_VERSION)?;
    m.add_function(wrap_pyfunction!(canonical, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
