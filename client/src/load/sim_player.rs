//! One simulated player of the load generator during play (not the
//! practice bot of `krypto bots`): its connection's sink, where it
//! comes back to, the round it has read, and its submissions awaiting
//! their verdicts (and which refusals answer a late one).

use std::collections::HashMap;

use krypto_core::protocol::ErrorCode;
use tokio::time::Instant;

use super::connection::Sink;

/// One simulated player during play.
pub(super) struct SimPlayer {
    pub(super) sink: Sink,
    /// Its name and token, to come back with.
    pub(super) name: String,
    pub(super) token: String,
    /// The URL it first connected to.
    pub(super) home: String,
    /// Which of its connections is current (events of older ones are
    /// ignored).
    pub(super) generation: u32,
    /// On its way back to its seat.
    pub(super) moving: bool,
    /// The round being played, from its `round_started` to its end.
    pub(super) round: Option<u32>,
    /// Matches seen started on this connection (rounds restart at 1).
    pub(super) match_no: u32,
    /// When this player next submits.
    pub(super) next_submit: Instant,
    /// Request sequence number of the last submission.
    pub(super) seq: u64,
    /// Submissions awaiting their verdict, by request sequence number.
    pub(super) pending: HashMap<u64, Pending>,
    /// The connection ended (or we closed it).
    pub(super) closed: bool,
}

impl SimPlayer {
    /// A player on a fresh connection's `sink`, first submitting at
    /// `next_submit`.
    pub(super) fn new(
        sink: Sink,
        name: String,
        token: String,
        home: String,
        next_submit: Instant,
    ) -> SimPlayer {
        SimPlayer {
            sink,
            name,
            token,
            home,
            generation: 0,
            moving: false,
            round: None,
            match_no: 0,
            next_submit,
            seq: 0,
            pending: HashMap::new(),
            closed: false,
        }
    }

    /// Whether `code`, refusing submission `sent`, answers a late answer.
    pub(super) fn is_late(&self, sent: &Pending, code: ErrorCode) -> bool {
        is_late_answer(
            code,
            (sent.match_no, sent.round),
            (self.match_no, self.round),
        )
    }
}

/// Whether a refusal with `code` of an answer to round `answered` (match,
/// round) is the right answer to a late answer, given the round the player
/// has read to be live when the refusal arrives (`now`).
///
/// A late answer is sent while its round is ending, before the player has
/// read the end: under load the generator reads its sockets late, and a
/// room's host starts the rematch while the other players of the same task
/// have not yet read `match_over`. The server then answers `wrong_round`
/// (the next round has begun) or `wrong_state` (the rematch is counting
/// down), as the protocol says. It sends a round's end (`round_won`,
/// `round_timed_out`, `match_over`) to every player before it moves on, on
/// the same ordered connection as the refusal, so by the time the refusal
/// arrives the player has read that its round is over. A refusal that
/// arrives while the round still looks live is no race, and stays an error.
fn is_late_answer(code: ErrorCode, answered: (u32, u32), now: (u32, Option<u32>)) -> bool {
    let still_live = now == (answered.0, Some(answered.1));
    matches!(code, ErrorCode::WrongRound | ErrorCode::WrongState) && !still_live
}

/// A submission awaiting its answer.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) sent_at: Instant,
    /// Sent in the steady window: its latency is recorded.
    pub(super) measured: bool,
    /// The match (on this connection) and round it answered.
    pub(super) match_no: u32,
    pub(super) round: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_after_the_round_ended_is_a_late_answer() {
        // Round 3 of match 1 was answered; the player has since read
        // round 4's deal, the round's end, or the rematch.
        for now in [(1, Some(4)), (1, None), (2, None), (2, Some(3))] {
            assert!(
                is_late_answer(ErrorCode::WrongRound, (1, 3), now),
                "{now:?}"
            );
            assert!(
                is_late_answer(ErrorCode::WrongState, (1, 3), now),
                "{now:?}"
            );
        }
    }

    #[test]
    fn a_refusal_while_the_round_looks_live_is_an_error() {
        assert!(!is_late_answer(ErrorCode::WrongRound, (1, 3), (1, Some(3))));
        assert!(!is_late_answer(ErrorCode::WrongState, (1, 3), (1, Some(3))));
        // Other refusals are never a race.
        assert!(!is_late_answer(
            ErrorCode::RateLimited,
            (1, 3),
            (1, Some(4))
        ));
        assert!(!is_late_answer(ErrorCode::NotAPlayer, (1, 3), (2, None)));
    }
}
