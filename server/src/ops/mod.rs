//! What the operator sees: the counters `/metrics` shows, log lines through
//! a bounded queue, and the recorder's durability as `/readyz` reports it.

pub mod durability;
pub mod logging;
pub(crate) mod metrics;
