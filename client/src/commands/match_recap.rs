//! `krypto match ID`: a match's recap, `GET /api/matches/{id}`, printed
//! round by round — the hand, who won in how long, who missed, and the
//! hand's solutions with the winner's, the shortest and one nobody found.
//! `ID` is the id `match over` printed, or the recap's link (`…/m/ID`).

use std::io::Write;

use krypto_core::protocol::{MatchRecap, RoundRecap};

use super::{http, Outcome};
use crate::cli::{MatchArgs, UsageError};
use crate::play::config;
use crate::play::wording::solve_time;

/// The match id in `text`: a UUID, alone or at the end of a recap's link.
pub fn match_id(text: &str) -> Result<String, UsageError> {
    let last = text
        .trim()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let uuid = last.len() == 36
        && last.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    if uuid {
        Ok(last.to_ascii_lowercase())
    } else {
        Err(UsageError(
            "a match id is a UUID, as `match over` prints it (or the recap's link, …/m/ID)"
                .to_owned(),
        ))
    }
}

/// Fetches and prints the recap. An unknown match is a "no" (status 1).
pub fn run(args: &MatchArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let id = match_id(&args.id)?;
    let settings = config::ConfigDir::locate()?.settings()?;
    let server = config::chosen_server(args.server.as_deref(), settings.server);
    let url = config::api_url(&server, &["api", "matches", &id], &[])?;
    let origin = url.origin().ascii_serialization();
    let missing = format!("No match {id} on {origin}.");
    let recap: MatchRecap = match http::get_one(&url, args.json, &missing, "a match's recap", out)?
    {
        http::Found::Body(recap) => recap,
        http::Found::Printed(outcome) => return Ok(outcome),
    };
    render(&recap, &format!("{origin}/m/{id}"), out)?;
    Ok(Outcome::Yes)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The recap as lines; `link` is its page.
pub fn render(recap: &MatchRecap, link: &str, out: &mut impl Write) -> std::io::Result<()> {
    let rounds = recap.rounds.len();
    writeln!(
        out,
        "Match {} in room {}: {rounds} round{}, {}",
        recap.match_id,
        recap.room,
        plural(rounds),
        recap.status
    )?;
    for s in &recap.standings {
        let rank = s.rank.map_or_else(|| "-".to_owned(), |r| r.to_string());
        let score = s.score.map_or_else(String::new, |p| {
            format!("  {p} point{}", plural(p.unsigned_abs() as usize))
        });
        writeln!(out, "  {rank}. {}{score}", s.name)?;
    }
    for r in &recap.rounds {
        round(r, out)?;
    }
    writeln!(out, "On the web: {link}")
}

fn round(r: &RoundRecap, out: &mut impl Write) -> std::io::Result<()> {
    let cards: Vec<String> = r.cards.iter().map(i64::to_string).collect();
    writeln!(
        out,
        "Round {}: make {} from {}",
        r.number,
        r.objective,
        cards.join(" ")
    )?;
    let time = |ms: u64| solve_time(i64::try_from(ms).unwrap_or(i64::MAX));
    match (&r.winner, r.elapsed_ms) {
        (Some(w), Some(ms)) if r.no_solution => {
            writeln!(out, "  {w} saw there was no solution, in {}", time(ms))?
        }
        (Some(w), Some(ms)) => writeln!(out, "  won by {w} in {}", time(ms))?,
        _ => writeln!(out, "  nobody solved it in time")?,
    }
    for a in &r.attempts {
        let what = match (&a.formula, a.right) {
            (Some(f), true) => format!("right: {f}"),
            (None, true) => "right".to_owned(),
            (_, false) => format!(
                "missed ({})",
                a.verdict.as_deref().unwrap_or("wrong").replace('_', " ")
            ),
        };
        writeln!(out, "  {:>8}  {}  {what}", time(a.elapsed_ms), a.who)?;
    }
    if r.attempts_total > r.attempts.len() as u64 {
        writeln!(out, "  … {} answers in all", r.attempts_total)?;
    }
    if r.solutions_total == 0 {
        return writeln!(out, "  the hand has no solution");
    }
    writeln!(
        out,
        "  {} distinct solution{}:",
        r.solutions_total,
        plural(r.solutions_total as usize)
    )?;
    let m = r.marks;
    let mut picked: Vec<u32> = [m.shortest, m.winner, m.unfound]
        .into_iter()
        .flatten()
        .collect();
    picked.sort_unstable();
    picked.dedup();
    for i in picked {
        let Some(text) = r.solutions.get(i as usize) else {
            continue;
        };
        let mut tags = Vec::new();
        if m.winner == Some(i) {
            tags.push("the winner's");
        }
        if m.shortest == Some(i) {
            tags.push("shortest");
        }
        if m.unfound == Some(i) {
            tags.push("nobody found it");
        }
        writeln!(out, "    {text}  ({})", tags.join(", "))?;
    }
    if r.solutions_total > 1 {
        writeln!(
            out,
            "    (all of them: krypto solve {} {} --all)",
            r.objective,
            cards.join(" ")
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_a_uuid_alone_or_at_the_end_of_its_link() {
        let id = "0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b";
        assert_eq!(match_id(id).ok().as_deref(), Some(id));
        let link = format!("http://192.168.1.5:7878/m/{}/", id.to_uppercase());
        assert_eq!(match_id(&link).ok().as_deref(), Some(id));
        for bad in [
            "",
            "42",
            "../../etc/passwd",
            &format!("{id}x"),
            "0193a1c4-7d2e-7b3a-9f1e_2c4d5e6f7a8b",
        ] {
            assert!(match_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_recap_reads_round_by_round() {
        let json = r#"{"match": "0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b", "room": "ADYPW",
            "status": "finished", "started_at_ms": 1, "finished_at_ms": 2, "settings": {},
            "standings": [{"name": "Ben", "score": 1, "rank": 1}, {"name": "Ann", "score": 0, "rank": 2}],
            "rounds": [{"number": 1, "objective": 15, "cards": [1, 2, 3, 4, 5], "winner": "Ben",
              "elapsed_ms": 5210, "no_solution": false,
              "attempts": [{"who": "Ann", "elapsed_ms": 3100, "right": false, "formula": null, "verdict": "wrong_value"},
                           {"who": "Ben", "elapsed_ms": 5210, "right": true, "formula": "5 + 4 + 3 + 2 + 1", "verdict": null}],
              "attempts_total": 2, "solutions": ["1 + 2 + 3 + 4 + 5", "(1 + 2) × (4 + 5 - 3)"],
              "solutions_total": 2, "marks": {"winner": 0, "shortest": 0, "unfound": 1}}]}"#;
        let recap: MatchRecap = serde_json::from_str(json).expect("a recap");
        let mut out = Vec::new();
        render(&recap, "http://h/m/x", &mut out).expect("written");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            text,
            "Match 0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b in room ADYPW: 1 round, finished\n\
             \x20 1. Ben  1 point\n\
             \x20 2. Ann  0 points\n\
             Round 1: make 15 from 1 2 3 4 5\n\
             \x20 won by Ben in 5.21 s\n\
             \x20   3.10 s  Ann  missed (wrong value)\n\
             \x20   5.21 s  Ben  right: 5 + 4 + 3 + 2 + 1\n\
             \x20 2 distinct solutions:\n\
             \x20   1 + 2 + 3 + 4 + 5  (the winner's, shortest)\n\
             \x20   (1 + 2) × (4 + 5 - 3)  (nobody found it)\n\
             \x20   (all of them: krypto solve 15 1 2 3 4 5 --all)\n\
             On the web: http://h/m/x\n"
        );
    }
}
