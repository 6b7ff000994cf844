//! `krypto profile NAME`: `GET /api/players/{name}` on the server's HTTP
//! side (the same port as the WebSocket), printed as a card.

use std::io::Write;

use chrono::{DateTime, Datelike, Utc};
use serde::Deserialize;

use super::{http, Outcome};
use crate::cli::ProfileArgs;
use crate::play::config;
use crate::play::wording::{rating_change, rating_text, solve_time, UNRATED_WHY};

/// A profile as `GET /api/players/{name}` serves it. Every field is
/// optional so that an older or newer server still prints what it has.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Profile {
    name: Option<String>,
    rating: Option<f64>,
    rating_deviation: Option<f64>,
    ranked: Option<bool>,
    min_rated_matches: Option<u32>,
    min_opponents: Option<u32>,
    rated_matches: Option<i64>,
    matches: Option<i64>,
    wins: Option<i64>,
    rounds_won: Option<i64>,
    fastest_ms: Option<i64>,
    recent_matches: Vec<RecentMatch>,
    challenges: Vec<OwnChallenge>,
    runs: Vec<RunDay>,
}

/// A challenge the player sent, with the answers in.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OwnChallenge {
    code: Option<String>,
    date: Option<String>,
    to_beat: Timed,
    answers: Vec<Answer>,
    answers_total: Option<u64>,
}

/// A time and its misses.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Timed {
    elapsed_ms: Option<i64>,
    misses: Option<u64>,
}

/// A friend's answer to a challenge.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Answer {
    name: Option<String>,
    elapsed_ms: Option<i64>,
    misses: Option<u64>,
}

/// The best run of a day.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RunDay {
    date: Option<String>,
    score: Option<i64>,
    misses: Option<i64>,
    best_combo: Option<i64>,
    runs: Option<i64>,
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
    let settings = config::ConfigDir::locate()?.settings()?;
    let server = config::chosen_server(args.server.as_deref(), settings.server);
    let name = args.player.trim();
    let url = config::api_url(&server, &["api", "players", name], &[])?;
    let origin = url.origin().ascii_serialization();
    let missing = format!("No player called {name:?} on {origin}.");
    let profile: Profile = match http::get_one(&url, args.json, &missing, "a profile", out)? {
        http::Found::Body(profile) => profile,
        http::Found::Printed(outcome) => return Ok(outcome),
    };
    render(&profile, Utc::now(), out)?;
    Ok(Outcome::Yes)
}

/// Why `name` is not on the rating board although the server knows them
/// (their rating is provisional), as a sentence; `None` when the profile
/// cannot be read or says nothing of the kind.
pub(super) fn provisional_reason(server: &str, name: &str) -> Option<String> {
    let url = config::api_url(server, &["api", "players", name], &[]).ok()?;
    let answer = http::get(&url).ok()?;
    if answer.status != 200 {
        return None;
    }
    let p: Profile = serde_json::from_value(answer.json).ok()?;
    let rating = p.rating?;
    if p.ranked != Some(false) {
        return None;
    }
    let mut why = format!(
        "{}'s rating {} is provisional",
        p.name.as_deref().unwrap_or(name),
        rating_text(rating, true)
    );
    if let (Some(m), Some(o)) = (p.min_rated_matches, p.min_opponents) {
        why.push_str(&format!(
            ": players are ranked after {m} rated match{} against {o} different people",
            if m == 1 { "" } else { "es" }
        ));
        if let Some(played) = p.rated_matches {
            why.push_str(&format!(" ({played} so far)"));
        }
    }
    Some(why)
}

fn render(p: &Profile, now: DateTime<Utc>, out: &mut impl Write) -> std::io::Result<()> {
    let dash = || "-".to_owned();
    writeln!(out, "{}", p.name.clone().unwrap_or_else(dash))?;
    let provisional = p.ranked == Some(false);
    let rating = match p.rating {
        Some(r) => {
            let mut t = rating_text(r, provisional);
            if let Some(d) = p.rating_deviation {
                t.push_str(&format!(" ± {d:.0}"));
            }
            if provisional {
                t.push_str(" (provisional");
                if let (Some(m), Some(o)) = (p.min_rated_matches, p.min_opponents) {
                    t.push_str(&format!(
                        " until {m} rated match{} against {o} different people",
                        if m == 1 { "" } else { "es" }
                    ));
                }
                t.push(')');
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
    let fastest = p.fastest_ms.map_or_else(dash, solve_time);
    writeln!(out, "  Fastest      {fastest}")?;
    if !p.recent_matches.is_empty() {
        writeln!(out, "Recent matches:")?;
        writeln!(
            out,
            "  {:<20}  {:>7}  {:>6}  {:>5}  {:>4}  Rating",
            "Finished", "Players", "Rounds", "Score", "Rank"
        )?;
        for m in &p.recent_matches {
            let rating = match (m.rating_before, m.rating_after) {
                (Some(b), Some(a)) => rating_change(b, a, false),
                _ => "unrated".to_owned(),
            };
            let when = m
                .finished_at
                .as_deref()
                .map_or_else(dash, |t| readable_time(t, now));
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
    render_challenges(p, out)?;
    render_runs(p, out)?;
    let unrated_shown =
        p.rating.is_none() || p.recent_matches.iter().any(|m| m.rating_after.is_none());
    if unrated_shown {
        writeln!(out, "({UNRATED_WHY})")?;
    }
    Ok(())
}

/// A time with its misses: `6.00 s`, `30.00 s, 1 miss`.
fn timed(elapsed_ms: Option<i64>, misses: Option<u64>) -> String {
    let time = elapsed_ms.map_or_else(|| "-".to_owned(), solve_time);
    match misses.unwrap_or(0) {
        0 => time,
        1 => format!("{time}, 1 miss"),
        n => format!("{time}, {n} misses"),
    }
}

/// The challenges the player sent, each with the answers in.
fn render_challenges(p: &Profile, out: &mut impl Write) -> std::io::Result<()> {
    if p.challenges.is_empty() {
        return Ok(());
    }
    writeln!(out, "Challenges sent:")?;
    for c in &p.challenges {
        let code = c.code.as_deref().unwrap_or("-");
        let total = c.answers_total.unwrap_or(0);
        writeln!(
            out,
            "  {code}  {}  to beat {}  ·  {total} answer{}  (krypto challenge {code})",
            c.date.as_deref().unwrap_or("-"),
            timed(c.to_beat.elapsed_ms, c.to_beat.misses),
            if total == 1 { "" } else { "s" },
        )?;
        for a in &c.answers {
            let beat = matches!((a.elapsed_ms, c.to_beat.elapsed_ms), (Some(a), Some(b)) if a < b);
            writeln!(
                out,
                "    {:<20}  {}{}",
                a.name.as_deref().unwrap_or("-"),
                timed(a.elapsed_ms, a.misses),
                if beat { "  (beat it)" } else { "" }
            )?;
        }
    }
    Ok(())
}

/// The best solo run of each recent day.
fn render_runs(p: &Profile, out: &mut impl Write) -> std::io::Result<()> {
    if p.runs.is_empty() {
        return Ok(());
    }
    writeln!(out, "Solo runs, best of each day:")?;
    writeln!(
        out,
        "  {:<10}  {:>6}  {:>6}  {:>5}  {:>4}",
        "Day", "Solved", "Misses", "Combo", "Runs"
    )?;
    let num = |v: Option<i64>| v.map_or_else(|| "-".to_owned(), |n| n.to_string());
    for r in &p.runs {
        writeln!(
            out,
            "  {:<10}  {:>6}  {:>6}  {:>5}  {:>4}",
            r.date.as_deref().unwrap_or("-"),
            num(r.score),
            num(r.misses),
            num(r.best_combo),
            num(r.runs)
        )?;
    }
    Ok(())
}

/// An RFC 3339 time as people read it, relative to `now` when recent
/// ("today 21:04", "yesterday 09:15", "20 Nov 21:04", "20 Nov 2025"); UTC,
/// as the server records it. Text that is not a time is shown as it is.
fn readable_time(text: &str, now: DateTime<Utc>) -> String {
    let Ok(t) = DateTime::parse_from_rfc3339(text) else {
        return text.chars().take(20).collect();
    };
    let t = t.with_timezone(&Utc);
    let days = (now.date_naive() - t.date_naive()).num_days();
    match days {
        0 => format!("today {}", t.format("%H:%M")),
        1 => format!("yesterday {}", t.format("%H:%M")),
        _ if t.year() == now.year() => t.format("%-d %b %H:%M").to_string(),
        _ => t.format("%-d %b %Y").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_reads_as_a_card() {
        let json = r#"{"player": 7, "name": "Ann", "rating": 1622, "rating_deviation": 93,
            "ranked": true, "rated_matches": 9, "matches": 12,
            "wins": 4, "rounds_won": 31, "fastest_ms": 3205, "future_field": 1,
            "recent_matches": [{"match": 3, "finished_at": "2026-11-20T21:04:00Z",
            "players": 3, "rounds": 10, "score": 5, "rank": 1,
            "rating_before": 1580, "rating_after": 1622}]}"#;
        let p: Profile = serde_json::from_str(json).unwrap_or_default();
        let mut out = Vec::new();
        let now = DateTime::parse_from_rfc3339("2026-11-20T23:00:00Z")
            .unwrap_or_default()
            .with_timezone(&Utc);
        render(&p, now, &mut out).unwrap_or_default();
        let text = String::from_utf8(out).unwrap_or_default();
        assert_eq!(
            text,
            "Ann\n  Rating       1622 ± 93\n  Matches      12 (9 rated)\n  Wins         4\n  Rounds won   31\n  Fastest      3.21 s\nRecent matches:\n  Finished              Players  Rounds  Score  Rank  Rating\n  today 21:04                 3      10      5     1  1580 → 1622 (+42)\n"
        );
    }

    #[test]
    fn a_provisional_rating_has_a_question_mark_and_unrated_is_explained() {
        let json = r#"{"name": "Eli", "rating": 1560, "rating_deviation": 402,
            "ranked": false, "min_rated_matches": 3, "min_opponents": 3,
            "rated_matches": 1, "matches": 2, "wins": 1, "rounds_won": 2, "fastest_ms": 9435,
            "recent_matches": [{"players": 1, "rounds": 3, "score": 3, "rank": 1}]}"#;
        let p: Profile = serde_json::from_str(json).unwrap_or_default();
        let mut out = Vec::new();
        render(&p, Utc::now(), &mut out).unwrap_or_default();
        let text = String::from_utf8(out).unwrap_or_default();
        assert!(
            text.contains("Rating       1560? ± 402 (provisional until 3 rated matches against 3 different people)"),
            "{text}"
        );
        // The board's rounding of the same time.
        assert!(text.contains("Fastest      9.44 s"), "{text}");
        assert!(text.ends_with(&format!("({UNRATED_WHY})\n")), "{text}");
    }

    #[test]
    fn challenges_and_runs_follow_the_matches() {
        let json = r#"{"name": "Ann", "rating": null, "recent_matches": [],
            "challenges": [{"code": "K7QXM2PD", "link": "/c/K7QXM2PD", "date": "2026-03-10",
              "to_beat": {"elapsed_ms": 6000, "misses": 0},
              "answers": [{"name": "Dee", "elapsed_ms": 5000, "misses": 0},
                          {"name": "Cy", "elapsed_ms": 30000, "misses": 1}],
              "answers_total": 2}],
            "runs": [{"date": "2026-03-10", "score": 7, "misses": 2, "best_combo": 5, "runs": 3}]}"#;
        let p: Profile = serde_json::from_str(json).unwrap_or_default();
        let mut out = Vec::new();
        render(&p, Utc::now(), &mut out).unwrap_or_default();
        let text = String::from_utf8(out).unwrap_or_default();
        assert!(
            text.contains(
                "Challenges sent:\n  K7QXM2PD  2026-03-10  to beat 6.00 s  ·  2 answers  (krypto challenge K7QXM2PD)\n    Dee                   5.00 s  (beat it)\n    Cy                    30.00 s, 1 miss\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("Solo runs, best of each day:\n  Day         Solved  Misses  Combo  Runs\n  2026-03-10       7       2      5     3\n"),
            "{text}"
        );
    }

    #[test]
    fn times_read_as_days_and_hours() {
        let now = DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
            .unwrap_or_default()
            .with_timezone(&Utc);
        let t = |s| readable_time(s, now);
        assert_eq!(t("2026-11-22T08:05:00Z"), "today 08:05");
        assert_eq!(t("2026-11-21T23:59:59.123Z"), "yesterday 23:59");
        assert_eq!(t("2026-03-02T07:00:00+00:00"), "2 Mar 07:00");
        assert_eq!(t("2025-12-31T07:00:00Z"), "31 Dec 2025");
        assert_eq!(t("soon"), "soon");
    }
}
