//! TCP at segment granularity: a sender (Reno, NewReno, SACK; ECN; RFC 6298's timer or ns-2's) and a
//! receiver (cumulative and SACK acknowledgements, delayed ACKs, ECN echo). Both are pure
//! state machines: time is an argument, segments and ACKs come out as values, and the
//! simulator (`crate::sim`) turns them into packets and timers.

pub mod congestion;
pub mod delivery;
pub mod options;
pub mod pacing;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use receiver::{Ack, Receiver, MAX_SACK_BLOCKS};
pub use rtt::RttRule;
pub use sender::{
    DupackResponse, FrTimer, Halving, PartialAck, PrrBound, RecoverGuard, Recovery, Segment,
    Sender, SenderConfig, SenderStats, Variant,
};
