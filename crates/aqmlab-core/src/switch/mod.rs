//! Crossbar switching: the matching schedulers a crossbar fabric runs ([`sched`]) and a
//! slotted N×N cell switch ([`cells`]) that validates them against switching theory
//! (Karol, Hluchyj and Morgan's head-of-line blocking, PIM's one-iteration throughput,
//! iSLIP's 100% throughput, output queueing). docs/switch/schedulers.md has the model,
//! the derivations and the measured numbers.

pub mod cells;
pub mod sched;
