//! How the client says things to a player: durations, counts, the names of
//! phases and boards, and sentences for the server's refusals (a player
//! reads "there is no room ABCDE", never `room_not_found`).

use krypto_core::protocol::{ErrorCode, Metric, RoomPhase, VerdictKind};

/// A room phase in words ("between_rounds" → "between rounds").
pub fn phase_name(p: RoomPhase) -> String {
    p.as_str().replace('_', " ")
}

/// A verdict's kind in words ("wrong value").
pub fn kind_words(k: VerdictKind) -> String {
    k.as_str().replace('_', " ")
}

/// A leaderboard value as people read it: ratings with one decimal, best
/// times in seconds, counts as whole numbers.
pub fn metric_value(metric: Metric, value: f64) -> String {
    match metric {
        Metric::Rating => format!("{value:.1}"),
        Metric::Fastest => format!("{:.2}s", value / 1000.0),
        Metric::Wins | Metric::Rounds => format!("{value:.0}"),
    }
}

/// Milliseconds as seconds, one decimal ("1.5s").
pub fn secs(ms: u128) -> String {
    format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
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

/// A refusal from the server as a sentence: the server's own message (already
/// words) with, where it helps, what to do about it. Never the code.
pub fn refusal(code: ErrorCode, message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    let hint = match code {
        ErrorCode::RoomNotFound => "check the code with whoever invited you",
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
}
