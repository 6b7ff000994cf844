//! The server's wall clock for the daily, challenges and runs: which UTC
//! day it is and how long an attempt has run. In production it is the
//! system's clock; a test sets and moves a manual one (across a UTC
//! midnight, past a run's end) without waiting.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// The wall clock, in milliseconds since the Unix epoch (UTC). Cheap to
/// clone; clones of a manual clock move together.
#[derive(Debug, Clone, Default)]
pub struct WallClock {
    /// A test's clock; `None`: the system's.
    manual: Option<Arc<watch::Sender<u64>>>,
}

impl WallClock {
    /// The system's clock.
    pub fn system() -> WallClock {
        WallClock { manual: None }
    }

    /// A clock that reads `start_ms` until a test moves it.
    pub fn manual(start_ms: u64) -> WallClock {
        WallClock {
            manual: Some(Arc::new(watch::channel(start_ms).0)),
        }
    }

    /// Moves a manual clock forward by `by` (the system's cannot be moved).
    pub fn advance(&self, by: Duration) {
        if let Some(now) = &self.manual {
            let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
            now.send_modify(|now| *now = now.saturating_add(by));
        }
    }

    /// Now, in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        match &self.manual {
            Some(now) => *now.borrow(),
            None => u64::try_from(krypto_core::periods::now_ms()).unwrap_or(0),
        }
    }

    /// Resolves once the clock reads `ms` or later.
    pub async fn sleep_until(&self, ms: u64) {
        match &self.manual {
            Some(now) => {
                let mut readings = now.subscribe();
                // The sender lives as long as `self`, which is borrowed.
                if readings.wait_for(|now| *now >= ms).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            None => {
                let left = ms.saturating_sub(self.now_ms());
                tokio::time::sleep(Duration::from_millis(left)).await;
            }
        }
    }
}
