//! The krypto client's library: what more than one binary (and the tests)
//! use.
//!
//! - [`load`]: the load generator behind `krypto-load`, and the soak test's
//!   entry point ([`load::run`]).

pub mod load;
