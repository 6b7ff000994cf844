//! One HTTP GET to the server's JSON API (`docs/api.md`), shared by
//! `krypto leaderboard` and `krypto profile`. Reading creates nothing: no
//! hello, no token, no config file written.

use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde_json::Value;
use url::Url;

use crate::play::untrusted;

/// Longest wait for the whole request.
const PATIENCE: Duration = Duration::from_secs(10);

/// A JSON answer.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body as received (for `--json`).
    pub raw: String,
    /// The body parsed, every string cleaned of control characters.
    pub json: Value,
}

impl Answer {
    /// The API's error sentence (`{"error": {"message": ...}}`), if any.
    pub fn error_message(&self) -> Option<&str> {
        self.json.get("error")?.get("message")?.as_str()
    }

    /// The error for a status the command has no meaning for.
    pub fn unexpected(&self) -> anyhow::Error {
        anyhow!(
            "the server answered HTTP {}: {}",
            self.status,
            self.error_message().unwrap_or("no reason given")
        )
    }
}

/// GETs `url`; an unreachable server or an answer that is not JSON is an
/// error, an HTTP error status with a JSON body is an answer.
pub fn get(url: &Url) -> anyhow::Result<Answer> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(PATIENCE))
        .build()
        .into();
    let origin = url.origin().ascii_serialization();
    let mut response = agent
        .get(url.as_str())
        .call()
        .with_context(|| format!("cannot reach the server at {origin} (is it running?)"))?;
    let status = response.status().as_u16();
    let raw = response
        .body_mut()
        .read_to_string()
        .with_context(|| format!("reading the answer of {origin}"))?;
    let Ok(mut json) = serde_json::from_str::<Value>(&raw) else {
        bail!(
            "the server at {origin} answered HTTP {status} without JSON: is it a krypto server \
             with the HTTP API?"
        );
    };
    untrusted::clean_json(&mut json);
    Ok(Answer { status, raw, json })
}
