//! The krypto client's library: what more than one binary (and the tests)
//! use.
//!
//! - [`load`]: the load generator behind `krypto-load`, and the soak test's
//!   entry point ([`load::run`]).
//! - [`lines`]: printing from a long-running command without ever waiting
//!   for a stdout or stderr nobody reads.
//! - [`redirect`]: following a `redirect` to the node that holds a room
//!   (checked URLs, the loop guard).
//! - [`wait`]: sleeping until a deadline that may not be set.

pub mod lines;
pub mod load;
pub mod redirect;
pub mod wait;
