//! One HTTP GET to the server's JSON API (`docs/api.md`), shared by the
//! commands that only read (boards, profiles, recaps). Reading creates
//! nothing: no hello, no token, no config file written.

use std::io::Write;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde_json::Value;
use url::Url;

use super::Outcome;
use crate::cli::UsageError;
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

    /// A 400 as the usage error it is: the request the flags made was
    /// refused.
    pub fn refusal(&self) -> anyhow::Error {
        let why = self
            .error_message()
            .unwrap_or("the server refused the request");
        UsageError(why.to_owned()).into()
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

/// What a GET of one named thing (a player, a match) came to.
#[derive(Debug)]
pub enum Found<T> {
    /// The thing, to render.
    Body(T),
    /// Already printed: the answer as is (`--json`), or that there is no
    /// such thing (a "no").
    Printed(Outcome),
}

/// GETs one named thing at `url`, `what` it is (`"a profile"`). A 404
/// prints `missing` (with `json`, the server's answer as is) and is a "no";
/// with `json` a found thing is printed as is; any other status, or an
/// answer that is not `what`, is an error.
pub fn get_one<T: serde::de::DeserializeOwned>(
    url: &Url,
    json: bool,
    missing: &str,
    what: &str,
    out: &mut impl Write,
) -> anyhow::Result<Found<T>> {
    let answer = get(url)?;
    let outcome = match answer.status {
        200 if !json => {
            let thing = serde_json::from_value(answer.json).with_context(|| {
                let origin = url.origin().ascii_serialization();
                format!("the answer of {origin} is not {what}")
            })?;
            return Ok(Found::Body(thing));
        }
        200 => Outcome::Yes,
        404 if !json => {
            writeln!(out, "{missing}")?;
            return Ok(Found::Printed(Outcome::No));
        }
        404 => Outcome::No,
        _ => return Err(answer.unexpected()),
    };
    writeln!(out, "{}", answer.raw.trim())?;
    Ok(Found::Printed(outcome))
}
