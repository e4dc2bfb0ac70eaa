//! Fault tests of the whole system: the referee, gateway, scoring service
//! and `mafia` judge clients as processes on loopback, on a private Redis
//! with its append-only file; services killed with SIGKILL, Redis killed,
//! shut down and stalled, a referee cut off from Redis by a proxy. See
//! `tests/faults.rs` (CI) and `tests/soak.rs` (`make soak`).

pub mod judges;
pub mod ledger;
pub mod procs;
pub mod proxy;
pub mod redis;
pub mod subscriber;
pub mod tournament;
