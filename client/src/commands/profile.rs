//! `krypto profile NAME`: `GET /api/players/{name}` on the server's HTTP
//! side (the same port as the WebSocket), printed as a card.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use serde::Deserialize;
use serde_json::Value;

use super::Outcome;
use crate::cli::ProfileArgs;
use crate::play::config;

/// A profile as `GET /api/players/{name}` serves it. Every field is
/// optional so that an older or newer server still prints what it has.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Profile {
    name: Option<String>,
    rating: Option<f64>,
    mu: Option<f64>,
    sigma: Option<f64>,
    ranked: Option<bool>,
    rated_matches: Option<i64>,
    matches: Option<i64>,
    wins: Option<i64>,
    rounds_won: Option<i64>,
    fastest_ms: Option<i64>,
    recent_matches: Vec<RecentMatch>,
}

/// One of the player's last matches.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RecentMatch {
    finished_at: Option<String>,
    players: Option<i64>,
    rounds: Option<i64>,
    score: Option<i64>,
    rank: Option<i64>,
    rating_before: Option<f64>,
    rating_after: Option<f64>,
}

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
    let profile: Profile = serde_json::from_value(json)
        .with_context(|| format!("the server's answer to GET {url} is not a profile"))?;
    render(&profile, out)?;
    Ok(Outcome::Yes)
}

fn render(p: &Profile, out: &mut impl Write) -> std::io::Result<()> {
    let dash = || "-".to_owned();
    writeln!(out, "{}", p.name.clone().unwrap_or_else(dash))?;
    let rating = match p.rating {
        Some(r) => {
            let mut t = format!("{r:.1}");
            if let (Some(mu), Some(sigma)) = (p.mu, p.sigma) {
                t.push_str(&format!(" (mu {mu:.1}, sigma {sigma:.1})"));
            }
            if p.ranked == Some(false) {
                t.push_str(", not ranked yet");
            }
            t
        }
        None => "unrated".to_owned(),
    };
    let num = |v: Option<i64>| v.map_or_else(dash, |n| n.to_string());
    writeln!(out, "  Rating       {rating}")?;
    writeln!(
        out,
        "  Matches      {} ({} rated)",
        num(p.matches),
        num(p.rated_matches)
    )?;
    writeln!(out, "  Wins         {}", num(p.wins))?;
    writeln!(out, "  Rounds won   {}", num(p.rounds_won))?;
    let fastest = p.fastest_ms.map_or_else(dash, |ms| {
        format!("{}.{:02} s", ms / 1000, (ms % 1000) / 10)
    });
    writeln!(out, "  Fastest      {fastest}")?;
    if !p.recent_matches.is_empty() {
        writeln!(out, "Recent matches:")?;
        writeln!(
            out,
            "  {:<20}  {:>7}  {:>6}  {:>5}  {:>4}  Rating",
            "Finished (UTC)", "Players", "Rounds", "Score", "Rank"
        )?;
        for m in &p.recent_matches {
            let rating = match (m.rating_before, m.rating_after) {
                (Some(b), Some(a)) => format!("{b:.1} -> {a:.1}"),
                _ => "unrated".to_owned(),
            };
            let when: String = m
                .finished_at
                .clone()
                .unwrap_or_else(dash)
                .chars()
                .take(20)
                .collect();
            writeln!(
                out,
                "  {when:<20}  {:>7}  {:>6}  {:>5}  {:>4}  {rating}",
                num(m.players),
                num(m.rounds),
                num(m.score),
                num(m.rank)
            )?;
        }
    }
    Ok(())
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
    fn a_profile_reads_as_a_card() {
        let json = r#"{"player": 7, "name": "Ann", "rating": 22.46, "mu": 27.1,
            "sigma": 1.55, "ranked": true, "rated_matches": 9, "matches": 12,
            "wins": 4, "rounds_won": 31, "fastest_ms": 3205, "future_field": 1,
            "recent_matches": [{"match": 3, "finished_at": "2026-11-20T21:04:00Z",
            "players": 3, "rounds": 10, "score": 5, "rank": 1,
            "rating_before": 20.0, "rating_after": 22.46}]}"#;
        let p: Profile = serde_json::from_str(json).unwrap_or_default();
        let mut out = Vec::new();
        render(&p, &mut out).unwrap_or_default();
        let text = String::from_utf8(out).unwrap_or_default();
        assert_eq!(
            text,
            "Ann\n  Rating       22.5 (mu 27.1, sigma 1.6)\n  Matches      12 (9 rated)\n  Wins         4\n  Rounds won   31\n  Fastest      3.20 s\nRecent matches:\n  Finished (UTC)        Players  Rounds  Score  Rank  Rating\n  2026-11-20T21:04:00Z        3      10      5     1  20.0 -> 22.5\n"
        );
    }

    #[test]
    fn names_are_encoded_for_the_path() {
        assert_eq!(encode("Bot Ada"), "Bot%20Ada");
        assert_eq!(encode("a-b_c"), "a-b_c");
    }
}
