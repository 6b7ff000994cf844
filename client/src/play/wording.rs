//! How the client says things to a player: durations, counts, the names of
//! phases and boards, and sentences for the server's refusals (a player
//! reads "there is no room ABCDE", never `room_not_found`).

use krypto_core::protocol::{ErrorCode, Metric, RoomPhase, Standing, VerdictKind};
use krypto_core::settings::Field;

/// A room phase in words ("between_rounds" → "between rounds").
pub fn phase_name(p: RoomPhase) -> String {
    p.as_str().replace('_', " ")
}

/// A verdict's kind in words ("wrong value").
pub fn kind_words(k: VerdictKind) -> String {
    k.as_str().replace('_', " ")
}

/// A leaderboard value as people read it: ratings and counts as whole
/// numbers, best times in seconds ([`solve_time`]).
pub fn metric_value(metric: Metric, value: f64) -> String {
    match metric {
        // Milliseconds: whole numbers, whatever JSON made of them.
        Metric::Fastest => solve_time(value.round() as i64),
        Metric::Rating | Metric::Wins | Metric::Rounds => format!("{value:.0}"),
    }
}

/// A solve time in seconds to the hundredth, rounded once from the
/// milliseconds, so the board and a profile show the same "9.44 s".
pub fn solve_time(ms: i64) -> String {
    let hundredths = (ms + 5).div_euclid(10);
    format!(
        "{}.{:02} s",
        hundredths.div_euclid(100),
        hundredths.rem_euclid(100)
    )
}

/// A rating as shown ("1562"), with "?" while it is provisional.
pub fn rating_text(rating: f64, provisional: bool) -> String {
    format!("{rating:.0}{}", if provisional { "?" } else { "" })
}

/// A rating change: "1500 → 1562 (+62)".
/// A rating change as shown ("1500 → 1658? (+158)"), the new rating with
/// "?" while it is provisional.
pub fn rating_change(before: f64, after: f64, provisional: bool) -> String {
    format!(
        "{before:.0} → {} ({:+.0})",
        rating_text(after, provisional),
        after - before
    )
}

/// Why a provisional rating ("1933?") moved so far, under the standings.
pub const PROVISIONAL_WHY: &str =
    "? provisional: a new rating moves in big steps until it is ranked";

/// What "unrated" means, wherever it shows.
pub const UNRATED_WHY: &str =
    "unrated: a match rates people (not bots) who answered, if two or more did";

/// What the rating board leaves out, said under it (as the web page does).
pub const PROVISIONAL_NOTE: &str =
    "Provisional ratings (few rated matches or opponents) are not ranked yet.";

/// Whether a standing earns a place on the podium (a medal): the first
/// three ranks, with at least a point. Ties share the place.
pub fn on_podium(s: &Standing) -> bool {
    s.rank <= 3 && s.score > 0
}

/// Milliseconds as seconds, one decimal ("1.5s").
pub fn secs(ms: u128) -> String {
    format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
}

/// A time taken (a round's win) to the nearest tenth of a second, rounded
/// as the browser and the TV round it, so every screen shows the same
/// "15.0s" for 14,960 ms. (Countdowns use [`secs`], which never shows a
/// wait as over before it is.)
pub fn time_taken(ms: u128) -> String {
    secs((ms + 50) / 100 * 100)
}

/// The total time of `s`'s right answers ("41.2s"), shown where it breaks
/// a tie: under `everyone` scoring (the server sends it) when another of
/// `standings` has the same points. Where another's rounds to the same
/// tenth, the milliseconds ("41.230s"), as the browser does, so two players
/// ranked apart never show the same time.
pub fn tiebreak_time(standings: &[Standing], s: &Standing) -> Option<String> {
    let ms = s.solve_ms?;
    let tenths = time_taken(u128::from(ms));
    let mut level = standings
        .iter()
        .filter(|o| o.player != s.player && o.score == s.score)
        .peekable();
    level.peek()?;
    let clash =
        level.any(|o| o.solve_ms.map(|t| time_taken(u128::from(t))) == Some(tenths.clone()));
    Some(if clash {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
    } else {
        tenths
    })
}

/// "s" unless there is one.
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Cards as "1 2 3 4 5".
pub fn join_cards(cards: &[i64]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A room setting as the settings panel and a refusal name it ("Round
/// length", never `round_seconds`); the wire key stays for `/set`.
pub fn setting_label(field: Field) -> &'static str {
    match field {
        Field::Variant => "Game",
        Field::Rules => "Rules",
        Field::Rounds => "Rounds",
        Field::TargetScore => "Target score",
        Field::RoundSeconds => "Round length",
        Field::LockoutSeconds => "Lockout",
        Field::WrongPenalty => "Miss penalty",
        Field::Deal => "Deal",
        Field::Difficulty => "Hands",
        Field::MaxPlayers => "Seats",
        Field::Public => "Public",
        Field::Scoring => "Scoring",
    }
}

/// A refusal from the server as a sentence: the server's own message (already
/// words) with, where it helps, what to do about it. Never the code.
pub fn refusal(code: ErrorCode, message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    let hint = match code {
        ErrorCode::RoomNotFound => "check the code with whoever invited you",
        ErrorCode::RoomUnreachable => "try again in a moment",
        ErrorCode::RoomFull => "every seat is taken; you can still watch it",
        ErrorCode::RoomLocked => "the host has locked it",
        ErrorCode::NameTaken => "choose another name with --name",
        ErrorCode::InvalidName => "choose another name with --name",
        ErrorCode::BadToken => {
            "that name is someone else's on this server; choose another with --name"
        }
        ErrorCode::NotHost => "only the host can do that",
        ErrorCode::RateLimited => "slow down a little",
        ErrorCode::ShuttingDown => "the server is restarting; the client reconnects by itself",
        ErrorCode::UnsupportedProtocol => "this client and the server do not match; update krypto",
        _ => "",
    };
    // "invalid setting round_seconds: …" says the setting as the panel does.
    let relabelled;
    let message = match message.strip_prefix("invalid setting ") {
        Some(rest) if code == ErrorCode::InvalidSettings => {
            let (key, reason) = rest.split_once(':').unwrap_or((rest, ""));
            match key.trim().parse::<Field>() {
                Ok(field) => {
                    relabelled = format!("{}:{reason}", setting_label(field));
                    relabelled.as_str()
                }
                Err(_) => message,
            }
        }
        _ => message,
    };
    let mut text = if message.is_empty() {
        "the server refused".to_owned()
    } else {
        message.to_owned()
    };
    if !hint.is_empty() && !text.to_lowercase().contains(hint) {
        text.push_str(": ");
        text.push_str(hint);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_read_as_sentences_without_codes() {
        let t = refusal(ErrorCode::RoomNotFound, "no room ABCDE");
        assert_eq!(t, "no room ABCDE: check the code with whoever invited you");
        let t = refusal(ErrorCode::NameTaken, "\"Ann\" belongs to another player");
        assert!(t.contains("--name"), "{t}");
        for t in [&t, &refusal(ErrorCode::Internal, "")] {
            assert!(
                !t.contains("room_not_found") && !t.contains("NameTaken"),
                "{t}"
            );
        }
    }

    #[test]
    fn a_room_on_an_unreachable_server_is_said_so_once() {
        let said = "room KXR7P: its server is unreachable right now; try again in a moment";
        let t = refusal(ErrorCode::RoomUnreachable, said);
        assert_eq!(t, said);
        let t = refusal(
            ErrorCode::RoomUnreachable,
            "room KXR7P: its server is unreachable right now",
        );
        assert_eq!(
            t,
            "room KXR7P: its server is unreachable right now: try again in a moment"
        );
    }

    #[test]
    fn a_win_time_is_rounded_as_the_browser_rounds_it() {
        assert_eq!(time_taken(14_960), "15.0s");
        assert_eq!(time_taken(14_949), "14.9s");
        assert_eq!(time_taken(4_250), "4.3s");
        assert_eq!(secs(14_960), "14.9s");
    }

    #[test]
    fn settings_are_named_as_people_read_them() {
        let t = refusal(
            ErrorCode::InvalidSettings,
            "invalid setting round_seconds: must be from 10 to 600",
        );
        assert_eq!(t, "Round length: must be from 10 to 600");
        for field in Field::ALL {
            let label = setting_label(*field);
            assert!(!label.contains('_') && label.len() <= 14, "{label}");
        }
    }

    #[test]
    fn one_rounding_for_times_and_whole_ratings() {
        assert_eq!(solve_time(9435), "9.44 s");
        assert_eq!(metric_value(Metric::Fastest, 9435.0), solve_time(9435));
        assert_eq!(solve_time(999), "1.00 s");
        assert_eq!(solve_time(0), "0.00 s");
        assert_eq!(metric_value(Metric::Rating, 1562.0), "1562");
        assert_eq!(rating_text(1562.0, true), "1562?");
        assert_eq!(rating_change(1500.0, 1438.0, false), "1500 → 1438 (-62)");
        assert_eq!(rating_change(1500.0, 1658.0, true), "1500 → 1658? (+158)");
    }

    #[test]
    fn medals_only_for_real_places() {
        let s =
            |rank, score| Standing::unrated(krypto_core::protocol::PlayerId(1), "Ann", score, rank);
        assert!(on_podium(&s(1, 3)) && on_podium(&s(3, 1)));
        // Everyone on 0 points shares a rank, and no medal.
        assert!(!on_podium(&s(2, 0)) && !on_podium(&s(4, 2)) && !on_podium(&s(1, -1)));
    }
}
