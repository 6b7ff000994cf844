//! Waiting on a deadline that may not be set, for `select!` loops (the
//! bots and the load generator) whose next timed step is optional.

use tokio::time::Instant;

/// Sleeps until `at`, or forever if there is nothing to wait for.
pub async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
