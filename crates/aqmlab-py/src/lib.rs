//! Thin PyO3 binding of aqmlab-core: a scenario crosses in once, as text (a file's TOML, or
//! JSON) or as a dict read from its Python objects (`read`); result tables come back once,
//! every table through the same column conversion. The run releases the GIL. Errors become
//! named Python exceptions; a Rust panic becomes `InternalError`, never a crash.

use aqmlab_core::scenario::{self, ScenarioErrors};
use aqmlab_core::sim::{self, RunResults, SimError};
use aqmlab_core::table::{Column, Table};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod read;

/// The allocator of the engine's every allocation when run from Python: mimalloc keeps the
/// small objects of one size together (queues' buffers, flows' TCP state, histogram blocks),
/// which at 10 000 flows cut the CPU time of a run by ~15% against the system's malloc
/// (BENCHMARKS.md, 2026-11-26). The benchmarks link it too (benchmarks/alloc.rs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (`mi_option_purge_delay` in mimalloc.h, v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Milliseconds mimalloc keeps freed memory before returning it to the system: a second,
/// mimalloc's own default, set here so that a change of default cannot move our figures.
/// A run frees and allocates as it goes (the packet arena and histograms grow, the arena
/// is freed before the summaries): memory kept for a second is taken again without a page
/// fault, where memory returned at 10 ms (this setting until 2026-11-27) was mapped and
/// zeroed anew, ~2 ms per MB on the development VM. At 10 000 flows the event loop runs 4-5%
/// faster and the peak RSS grows from ~385 to ~515 MB (BENCHMARKS.md, "2026-11-27
/// (midday)"). At 0 a small run faulted on every page it reused (253 000 faults in 500
/// loads of the 100-flow dumbbell against 7 300 at 10 ms).
const PURGE_DELAY_MS: std::ffi::c_long = 1000;

fn setup_allocator() {
    // SAFETY: sets a process-wide integer option, which mimalloc reads on every purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
}

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

/// Parses and validates a scenario (TOML or JSON text); returns the canonical TOML echo.
#[pyfunction]
fn canonical(py: Python<'_>, text: &str) -> PyResult<String> {
    let out = catch_unwind(|| scenario::load(text).map(|s| s.to_toml()));
    match out {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(scenario_err(py, &e)),
        Err(p) => Err(InternalError::new_err(panic_message(p))),
    }
}

/// The scenario a run ran, returned with its results; its canonical TOML text is written
/// when asked (`text()`), not with every run: a plain `aqmlab.run()` of 100 flows does not
/// read it, and writing it was ~0.3 ms of the ~2.5 ms the call spends outside the event loop.
#[pyclass(frozen, module = "aqmlab._core")]
struct CanonicalScenario(scenario::Scenario);

#[pymethods]
impl CanonicalScenario {
    /// The canonical TOML text (`canonical()` of the same scenario).
    fn text(&self) -> String {
        self.0.to_toml()
    }
}

type RunOutput = Result<(scenario::Scenario, RunResults, Timing), SimError>;

/// Wall seconds of each phase of a run, measured here: the engine reads no clock.
#[derive(Default)]
struct Timing {
    /// Reading the text, or a dict's objects (`read`), into the scenario.
    parse: f64,
    validate: f64,
    build: f64,
    /// `Simulator::run`: the event loop and the end-of-run summaries.
    run: f64,
    /// `RunResults::tables`, then their conversion to Python objects.
    tables: f64,
    convert: f64,
}

/// `f()` and its wall time in seconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t0 = Instant::now();
    let out = f();
    (out, t0.elapsed().as_secs_f64())
}

/// What a run reads: scenario text, or a Python dict read from its objects (`read`).
enum Input {
    Text(String),
    /// The scenario read straight from the dict (`read::scenario`), and the seconds it took
    /// (boxed: a scenario is several hundred bytes, the other inputs a few words).
    Scenario(Box<scenario::Scenario>, f64),
    /// The dict's document (`read::document`), and the seconds reading took (both readers).
    Document(toml::Table, f64),
}

/// A run of a document that does not read as a scenario: the caller runs the dict's text
/// instead, whose reading names the problem.
struct NotDirect;

/// A dict as the run's input: its scenario if it reads straight from its objects, else its
/// document; `None` if it has neither (its text then runs).
fn dict_input(d: &Bound<'_, PyDict>) -> Option<Input> {
    let (direct, t) = timed(|| read::scenario(d));
    if let Some(s) = direct {
        return Some(Input::Scenario(Box::new(s), t));
    }
    let (doc, t2) = timed(|| read::document(d));
    doc.map(|doc| Input::Document(doc, t + t2))
}

fn simulate(input: Input, progress: Option<Arc<AtomicU64>>) -> Result<RunOutput, NotDirect> {
    let (s, parse) = timed(|| match input {
        Input::Text(text) => Some((scenario::parse(&text), 0.0)),
        Input::Scenario(s, read) => Some((Ok(*s), read)),
        Input::Document(doc, read) => scenario::parse_document(doc).map(|s| (Ok(s), read)),
    });
    let (s, read) = s.ok_or(NotDirect)?;
    Ok(run_parsed(s, read + parse, progress))
}

fn run_parsed(
    s: Result<scenario::Scenario, ScenarioErrors>,
    parse: f64,
    progress: Option<Arc<AtomicU64>>,
) -> RunOutput {
    let s = s.map_err(SimError::from)?;
    let (checked, validate) = timed(|| s.validate());
    let checked = checked?;
    let (mut sim, build) = timed(|| sim::Simulator::new(&checked));
    if let Some(cell) = progress {
        sim = sim.with_progress(cell);
    }
    let (r, run) = timed(|| sim.run());
    let r = r?;
    let timing = Timing {
        parse,
        validate,
        build,
        run,
        ..Timing::default()
    };
    Ok((s, r, timing))
}

/// Runs a scenario given as TOML or JSON text, or as a dict; returns a dict: `tables`
/// (every result table, see `tables_to_python`), the run's counts, the scenario
/// (`CanonicalScenario`) and the engine version. A dict this cannot read straight from its
/// objects (`read`), or whose document does not read as a scenario, returns `None`:
/// run its text instead (`aqmlab.runner.run` does).
/// With `progress`, the run happens on a separate thread and `progress(simulated_seconds)`
/// is called about five times a second from this one (errors in the callback stop the
/// calls, not the run).
#[pyfunction]
#[pyo3(signature = (scenario, progress=None))]
fn run<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let input = match scenario.cast::<PyDict>() {
        Ok(d) => match dict_input(d) {
            Some(input) => input,
            None => return Ok(None),
        },
        Err(_) => Input::Text(scenario.extract::<String>()?),
    };
    let out = match progress {
        None => py.detach(move || catch_unwind(AssertUnwindSafe(|| simulate(input, None)))),
        Some(callback) => {
            let cell = Arc::new(AtomicU64::new(0));
            let shared = Arc::clone(&cell);
            let worker = std::thread::spawn(move || {
                catch_unwind(AssertUnwindSafe(|| simulate(input, Some(shared))))
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
        Ok(Err(NotDirect)) => Ok(None),
        Ok(Ok(Ok((s, r, timing)))) => to_python(py, s, r, timing).map(Some),
        Ok(Ok(Err(SimError::Scenario(e)))) => Err(scenario_err(py, &e)),
        Ok(Ok(Err(e @ SimError::Conservation(_)))) => {
            Err(ConservationError::new_err(e.to_string()))
        }
        Err(p) => Err(panic_err(p)),
    }
}

/// Panics on purpose: lets the Python tests prove a panic surfaces as InternalError.
#[pyfunction]
fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    let out = py.detach(|| catch_unwind(|| panic!("deliberate panic for the test suite")));
    out.map_err(|p| InternalError::new_err(panic_message(p)))
}

/// What each reader of a scenario dict reads it to, as canonical TOML (unvalidated), or
/// `None` where it does not read: `(straight from the objects, through their document, the
/// dict's JSON text)`, the last from `text`. Lets the Python tests check that the readers
/// agree on whatever they read.
#[pyfunction]
fn _readers_for_test(
    d: &Bound<'_, PyDict>,
    text: &str,
) -> (Option<String>, Option<String>, Option<String>) {
    let toml = |s: scenario::Scenario| s.to_toml();
    (
        read::scenario(d).map(toml),
        read::document(d)
            .and_then(scenario::parse_document)
            .map(toml),
        scenario::parse(text).ok().map(toml),
    )
}

/// Tables with a column of every type, one of them empty, through the one conversion: lets
/// the Python tests check it on what no run returns yet (i64, bool, u64 beyond i64).
#[pyfunction]
fn _tables_for_test(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let mut all = Table::new("all_types");
    all.push("u64", Column::U64(vec![0, 7, 1 << 40]))
        .push("u64_big", Column::U64(vec![0, 1, u64::MAX]))
        .push("i64", Column::I64(vec![-3, 0, i64::MAX]))
        .push("f64", Column::F64(vec![0.5, f64::NAN, -1e300]))
        .push("opt_f64", Column::OptF64(vec![Some(1.5), None, Some(-0.0)]))
        .push(
            "str",
            Column::Str(vec!["a".into(), "a".into(), "b→c".into()]),
        )
        .push("bool", Column::Bool(vec![true, false, true]));
    let mut empty = all.empty_like();
    empty.name = "empty".into();
    let mut names = Table::new("dict");
    names.push(
        "name",
        Column::dict(vec![1, 1, 0, 1], vec!["a".into(), "b→c".into()]),
    );
    tables_to_python(py, vec![all, empty, names])
}

fn to_python<'py>(
    py: Python<'py>,
    s: scenario::Scenario,
    mut r: RunResults,
    mut timing: Timing,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    // Each captured link direction's pcap file, as bytes (`aqmlab_core::capture`).
    let captures = PyList::empty(py);
    for c in std::mem::take(&mut r.captures) {
        let d = PyDict::new(py);
        d.set_item("name", c.name)?;
        d.set_item("link", c.link)?;
        d.set_item("from", c.from)?;
        d.set_item("to", c.to)?;
        d.set_item("packets", c.packets)?;
        d.set_item("pcap", PyBytes::new(py, &c.pcap))?;
        captures.append(d)?;
    }
    out.set_item("captures", captures)?;
    out.set_item("events", r.events)?;
    out.set_item("packets", r.packets)?;
    out.set_item("measured_s", r.measured_s)?;
    // The results are taken apart into their tables (the time series without a copy); each
    // numeric column becomes numpy's view of its vector (`Values`), and only strings and
    // optional floats are copied: at the peak, the run's values are held once plus one
    // table's string columns.
    let (tables, t) = timed(|| r.into_tables());
    timing.tables = t;
    let (tables, t) = timed(|| tables_to_python(py, tables));
    timing.convert = t;
    out.set_item("tables", tables?)?;
    out.set_item("warmup_s", aqmlab_core::units::secs(s.simulation.warmup.0))?;
    out.set_item("reasons", sim::reason_names().to_vec())?;
    out.set_item("scenario", Bound::new(py, CanonicalScenario(s))?)?;
    out.set_item("engine_version", aqmlab_core::VERSION)?;
    let t = PyDict::new(py);
    for (k, v) in [
        ("parse_s", timing.parse),
        ("validate_s", timing.validate),
        ("build_s", timing.build),
        ("run_s", timing.run),
        ("tables_s", timing.tables),
        ("convert_s", timing.convert),
    ] {
        t.set_item(k, v)?;
    }
    out.set_item("timing", t)?;
    Ok(out)
}

/// A numeric column's values, owned here and viewed by numpy without a copy through the
/// array interface (`numpy.asarray` keeps this object as the array's base, so the values
/// live as long as any view of them); the array interface needs no buffer export. At 10 000 flows the time series alone
/// are ~48 MB: copied into fresh Python memory they cost 20-30 ms of page faults and copying
/// on every run, and held the values twice at the peak. Small columns cross the same way:
/// at 100 flows a view cost what the copy did (conversion medians 0.39-0.48 ms against
/// 0.36-0.58, BENCHMARKS.md "2026-11-29 (morning)"). A view keeps its vector's whole allocation: the time
/// series' columns are allocated at their length (`LongSeries`); the summaries' columns,
/// filled row by row, hold at most twice their length, and have a row per queue or flow.
#[pyclass(frozen, module = "aqmlab._core")]
struct Values {
    data: Owned,
}

/// The vectors a view can own, each with numpy's type string for its elements.
enum Owned {
    F64(Vec<f64>),
    I64(Vec<i64>),
    /// Every value fits in i64 (checked by the caller): viewed as int64, the same bytes.
    U64AsI64(Vec<u64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
}

/// numpy's type strings (byte order, kind, size) for this machine's byte order.
const LITTLE: bool = cfg!(target_endian = "little");
const F8: &str = if LITTLE { "<f8" } else { ">f8" };
const I8: &str = if LITTLE { "<i8" } else { ">i8" };
const U8: &str = if LITTLE { "<u8" } else { ">u8" };
const U4: &str = if LITTLE { "<u4" } else { ">u4" };

impl Owned {
    /// The values' address, their count and numpy's type string.
    fn parts(&self) -> (usize, usize, &'static str) {
        match self {
            Owned::F64(v) => (v.as_ptr() as usize, v.len(), F8),
            Owned::I64(v) => (v.as_ptr() as usize, v.len(), I8),
            Owned::U64AsI64(v) => (v.as_ptr() as usize, v.len(), I8),
            Owned::U64(v) => (v.as_ptr() as usize, v.len(), U8),
            Owned::U32(v) => (v.as_ptr() as usize, v.len(), U4),
            // Rust's bool is one byte holding 0 or 1, as numpy's.
            Owned::Bool(v) => (v.as_ptr() as usize, v.len(), "|b1"),
        }
    }
}

#[pymethods]
impl Values {
    /// numpy's array interface, version 3: the values' address, their count and type; the
    /// view is writeable (nothing else holds the vector).
    #[getter(__array_interface__)]
    fn array_interface<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (ptr, len, typestr) = self.data.parts();
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", (len,))?;
        d.set_item("typestr", typestr)?;
        d.set_item("data", (ptr, false))?;
        Ok(d)
    }
}

/// The one conversion of result tables: `{table: {column: values}}`, tables and columns in
/// the engine's order. Numbers and booleans become numpy arrays viewing the engine's
/// vectors (`Values`), strings and optional floats lists. Nothing here knows a table or a
/// column by name.
fn tables_to_python<'py>(py: Python<'py>, tables: Vec<Table>) -> PyResult<Bound<'py, PyDict>> {
    let conv = Converter::new(py)?;
    let out = PyDict::new(py);
    for t in tables {
        let cols = PyDict::new(py);
        for (name, c) in t.columns {
            cols.set_item(name, conv.column(c)?)?;
        }
        out.set_item(&t.name, cols)?;
    }
    Ok(out)
}

/// What every column's conversion needs, looked up once per run rather than per column
/// (a 100-flow run has ~80 columns of a few hundred rows each). A cache sharing one Python
/// string per distinct name across tables was tried and cost more than it saved: probing
/// and then freeing a map of ~2 500 fresh entries outweighs creating the strings.
struct Converter<'py> {
    py: Python<'py>,
    numpy: Bound<'py, PyModule>,
    asarray: Bound<'py, PyAny>,
    object: Bound<'py, PyAny>,
}

impl<'py> Converter<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let numpy = py.import("numpy")?;
        Ok(Converter {
            py,
            asarray: numpy.getattr("asarray")?,
            object: numpy.getattr("dtype")?.call1(("object",))?,
            numpy,
        })
    }

    fn column(&self, c: Column) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        match c {
            Column::F64(v) => self.view(Owned::F64(v)),
            Column::I64(v) => self.view(Owned::I64(v)),
            // As pandas types a list of Python ints: int64 while every value fits.
            Column::U64(v) if v.iter().all(|&x| i64::try_from(x).is_ok()) => {
                self.view(Owned::U64AsI64(v))
            }
            Column::U64(v) => self.view(Owned::U64(v)),
            Column::Bool(v) => self.view(Owned::Bool(v)),
            Column::OptF64(v) => Ok(PyList::new(py, v)?.into_any()),
            // The distinct strings once, as an object array, taken by the codes in numpy:
            // no Python object per row, and the same object column a list of the strings
            // would give.
            Column::Dict { codes, values } => {
                let values = self
                    .numpy
                    .call_method1("array", (PyList::new(py, values)?, &self.object))?;
                values.call_method1("take", (self.view(Owned::U32(codes))?,))
            }
            Column::Str(v) => {
                // Long tables repeat a name on every row of its entity: no lookup within a run.
                let mut items: Vec<Bound<'py, PyString>> = Vec::with_capacity(v.len());
                for (i, x) in v.iter().enumerate() {
                    let item = match items.last() {
                        Some(prev) if v[i - 1] == *x => prev.clone(),
                        _ => PyString::new(py, x),
                    };
                    items.push(item);
                }
                Ok(PyList::new(py, items)?.into_any())
            }
        }
    }

    /// A numpy array viewing `data` in place (`Values`).
    fn view(&self, data: Owned) -> PyResult<Bound<'py, PyAny>> {
        self.asarray.call1((Bound::new(self.py, Values { data })?,))
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    setup_allocator();
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
    // The drop and mark reasons, in the order of every result's `reasons`: for readers of
    // other simulators' output (aqmlab.ns3) that have no result of aqmlab's at hand.
    m.add("REASONS", sim::reason_names().to_vec())?;
    m.add_class::<CanonicalScenario>()?;
    m.add_class::<Values>()?;
    m.add_function(wrap_pyfunction!(canonical, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(_tables_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(_readers_for_test, m)?)?;
    Ok(())
}
