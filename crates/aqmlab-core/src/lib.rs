//! aqmlab-core: a deterministic packet-level discrete-event simulator for Active Queue
//! Management research. Pure Rust: no Python, no files, no clock, no global RNG.
//!
//! The layers, top-down:
//!
//! - [`scenario`]: the tagged, versioned TOML schema; parsing and validation at the edge.
//!   Every invalid input is reported with its field path, value and what is allowed.
//! - [`sim`]: builds the network of a validated scenario and runs its events to the end,
//!   then checks the conservation identities and returns summaries and time series, which
//!   `RunResults::tables` lays out as named column tables ([`table`]).
//! - [`link`], [`queue`], [`aqm`]: a link direction is an output queue feeding a wire; the
//!   queue is buffer plumbing around one AQM (decision logic only) with reason-coded counters.
//! - [`traffic`]: open-loop UDP sources (CBR, Poisson, on/off); [`routing`]: shortest-path
//!   forwarding tables; [`capture`]: the pcap files of captured link directions.
//! - [`event`], [`packet`], [`rng`], [`units`], [`record`], [`table`]: the engine's parts:
//!   a (time, sequence)-ordered event heap with cancellable timers, a packet arena, one PCG
//!   stream per component, integer-nanosecond time, streamed statistics, and the named
//!   column tables a run's results leave the engine as.

pub mod aqm;
pub mod capture;
pub mod check;
pub mod diffserv;
pub mod event;
pub mod link;
pub mod mem;
pub mod packet;
pub mod queue;
pub mod record;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod switch;
pub mod table;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use scenario::{load, parse, Scenario, ScenarioError, ScenarioErrors};
pub use sim::{run, RunResults, SimError};

/// The engine version recorded with every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
