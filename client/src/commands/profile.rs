//! `krypto profile NAME`: `GET /api/players/{name}` on the server's HTTP
//! side (the same port as the WebSocket), printed as a card.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::Value;

use super::Outcome;
use crate::cli::ProfileArgs;
use crate::play::config;

/// Fields shown first, in this order, with their labels; any others the
/// server sends follow.
const KNOWN: [(&str, &str); 8] = [
    ("name", "Player"),
    ("rating", "Rating"),
    ("matches", "Matches"),
    ("wins", "Wins"),
    ("rounds", "Rounds won"),
    ("fastest", "Fastest"),
    ("fastest_ms", "Fastest"),
    ("rank", "Rank"),
];

/// Fetches and prints the profile. A player the server does not know is a
/// "no" (status 1); an unreachable server or an HTTP error is an error.
pub fn run(args: &ProfileArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let dir = config::ConfigDir::locate()?;
    let raw = args
        .server
        .clone()
        .or(dir.settings()?.server)
        .unwrap_or_else(|| config::DEFAULT_SERVER.to_owned());
    let base = config::http_base(&raw)?;
    let url = format!("{base}/api/players/{}", encode(args.player.trim()));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut response = agent
        .get(&url)
        .call()
        .with_context(|| format!("cannot reach the server at {base} (is it running?)"))?;
    let status = response.status();
    let body = response
        .body_mut()
        .read_to_string()
        .with_context(|| format!("reading the answer to GET {url}"))?;
    let json: Option<Value> = serde_json::from_str(&body).ok();
    if status.as_u16() == 404 && json.is_some() {
        if args.json {
            writeln!(out, "{body}")?;
        } else {
            writeln!(out, "No player called {:?} on {base}.", args.player.trim())?;
        }
        return Ok(Outcome::No);
    }
    if !status.is_success() {
        let detail = body.trim();
        let detail = if detail.is_empty() {
            "no body: this server may not have the profile API yet".to_owned()
        } else {
            detail.chars().take(200).collect()
        };
        bail!("the server answered HTTP {status} to GET {url} ({detail})");
    }
    let Some(json) = json else {
        bail!("the server's answer to GET {url} is not JSON");
    };
    if args.json {
        writeln!(out, "{body}")?;
        return Ok(Outcome::Yes);
    }
    let Value::Object(map) = json else {
        bail!("the server's answer to GET {url} is not a JSON object");
    };
    for (key, label) in KNOWN {
        if let Some(v) = map.get(key) {
            writeln!(out, "{label:<12} {}", show(key, v))?;
        }
    }
    for (key, v) in &map {
        if !KNOWN.iter().any(|(k, _)| k == key) {
            writeln!(out, "{:<12} {}", key.replace('_', " "), show(key, v))?;
        }
    }
    Ok(Outcome::Yes)
}

/// A value as people read it: times in seconds, ratings with one decimal.
fn show(key: &str, v: &Value) -> String {
    match v {
        Value::Null => "-".to_owned(),
        Value::String(s) => s.clone(),
        Value::Number(n) if key.starts_with("fastest") || key.ends_with("_ms") => n
            .as_f64()
            .map_or_else(|| n.to_string(), |ms| format!("{:.2} s", ms / 1000.0)),
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .map_or_else(|| n.to_string(), |x| format!("{x:.1}")),
        other => other.to_string(),
    }
}

/// Percent-encodes a path segment (names may hold spaces).
fn encode(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_encoded_for_the_path() {
        assert_eq!(encode("Bot Ada"), "Bot%20Ada");
        assert_eq!(encode("a-b_c"), "a-b_c");
    }
}
