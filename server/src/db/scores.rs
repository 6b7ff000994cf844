//! What the recorder writes: one type per kind of write, the same for every
//! database. A batch of them is applied with one statement per kind (see
//! [`super::writes`], the same SQL for both backends); what the rows mean
//! for the leaderboards is decided once, in [`super::summary`].

use krypto_core::protocol::PlayerId;
use uuid::Uuid;

use super::{Created, DbError};

/// A player to create.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewPlayer {
    /// Display name.
    pub name: String,
    /// The name's key (unique).
    pub name_key: String,
    /// SHA-256 of the player's token, hex.
    pub token_hash: String,
    /// A program that said `bot` in its hello: never rated, never on a board.
    pub bot: bool,
}

/// A new player's first device, written with the player (their row in
/// `player_tokens`), found by the token's hash: a hello creating a player
/// writes nothing outside the recorder's group commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FirstDevice {
    /// SHA-256 of the player's token, hex (the player's `token_hash`).
    pub token_hash: String,
    /// What the device called itself.
    pub label: String,
    /// When it signed in (Unix ms): added and last used.
    pub at_ms: i64,
}

/// A match that just started.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewMatch {
    /// Its id, minted by the room (UUIDv7).
    pub id: Uuid,
    /// The room it is played in.
    pub room_code: String,
    /// The room settings.
    pub settings: serde_json::Value,
    /// The players seated at the start, in seating order.
    pub players: Vec<PlayerId>,
    /// When (UTC ms).
    pub at_ms: i64,
}

/// A hand dealt in a recorded match.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundStart {
    /// The match.
    pub match_id: Uuid,
    /// 1-based round number.
    pub round: u32,
    /// The value to make.
    pub objective: i64,
    /// The cards.
    pub cards: Vec<i64>,
    /// When it was dealt (UTC ms).
    pub at_ms: i64,
}

/// A judged formula or "no solution" claim.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AttemptRecord {
    /// The match.
    pub match_id: Uuid,
    /// The round.
    pub round: u32,
    /// Who tried.
    pub player: PlayerId,
    /// The formula; `None` for a "no solution" claim.
    pub formula: Option<String>,
    /// Whether it won the round.
    pub accepted: bool,
    /// The refusal's kind (snake_case), if refused.
    pub verdict: Option<String>,
    /// Time since the deal.
    pub elapsed_ms: u64,
    /// When (UTC ms).
    pub at_ms: i64,
    /// The attempt's number in its match, from 1: with the match id, the
    /// key that makes recording it twice (a retried or replayed batch)
    /// change nothing.
    pub seq: u64,
}

/// How a round ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RoundOutcome {
    /// Someone answered first.
    Won {
        /// The winner.
        winner: PlayerId,
        /// The formula; `None` for a right "no solution" claim.
        formula: Option<String>,
        /// Time from the deal to the answer.
        elapsed_ms: u64,
        /// Points awarded.
        points: i64,
    },
    /// The clock ran out.
    TimedOut {
        /// The solution revealed.
        solution: Option<String>,
        /// How many distinct solutions there were.
        solutions: u64,
    },
}

/// A round's result: the whole round, so the row is complete even if its
/// start was never written.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundResult {
    /// The deal.
    pub start: RoundStart,
    /// How it ended.
    pub outcome: RoundOutcome,
    /// When it ended (UTC ms); decides the periods it counts towards.
    pub at_ms: i64,
}

/// A player's place at the end of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FinalPlace {
    /// Who.
    pub player: PlayerId,
    /// Final score.
    pub score: i64,
    /// 1-based; ties share a rank.
    pub rank: u32,
    /// Whether they made at least one attempt in the match: only those who
    /// did are rated (see `scores::ratings::rated_entrants`, above).
    pub attempted: bool,
}

/// A finished match.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MatchEnd {
    /// The match.
    pub match_id: Uuid,
    /// Rounds actually played.
    pub rounds_played: u32,
    /// Final standings.
    pub standings: Vec<FinalPlace>,
    /// When it ended (UTC ms).
    pub at_ms: i64,
}

/// One player's rating change, as shown (`Skill::shown`: 1500 for a new player).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    /// Who.
    pub player: PlayerId,
    /// Before the match.
    pub before: f64,
    /// After the match.
    pub after: f64,
    /// Rated matches after this one (with `opponents`: whether the rating
    /// is still provisional, `scores::leaderboard::Ranking::admits` above).
    pub matches: i64,
    /// Different opponents met in rated matches, this one included.
    pub opponents: i64,
}

/// One thing to record.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Write {
    /// A new player; answered with [`Applied::Player`].
    CreatePlayer(NewPlayer),
    /// The first device of a player created in the same request (none
    /// when no player holds its token).
    FirstDevice(FirstDevice),
    /// A match started.
    StartMatch(NewMatch),
    /// A hand was dealt.
    StartRound(RoundStart),
    /// A formula or claim was judged.
    Attempt(AttemptRecord),
    /// A round ended.
    RoundResult(RoundResult),
    /// A match ended; answered with [`Applied::Ratings`].
    FinishMatch(MatchEnd),
    /// Every player left; the match has no result.
    AbandonMatch {
        /// The match.
        match_id: Uuid,
        /// When (UTC ms).
        at_ms: i64,
    },
}

impl Write {
    /// Whether it can change a leaderboard (a round's result or a match's
    /// end).
    pub fn changes_boards(&self) -> bool {
        matches!(self, Write::RoundResult(_) | Write::FinishMatch(_))
    }
}

/// What a write produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Applied {
    /// Recorded; nothing to report.
    Done,
    /// The new player, or that the name was taken.
    Player(Created),
    /// Rating changes of a finished match (empty if it was not rated).
    Ratings(Vec<RatingChange>),
}

/// The writes of a batch sorted by kind, in the order a backend applies
/// them: players, their first devices, match starts, dealt hands, attempts, round results, match
/// ends, abandonments. Within a batch that order is always safe: a match's
/// start comes before anything about it (its room sends them in that
/// order), and nothing about a match follows its end.
#[derive(Debug, Default)]
pub(crate) struct Grouped<'a> {
    /// New players.
    pub players: Vec<&'a NewPlayer>,
    /// New players' first devices.
    pub devices: Vec<&'a FirstDevice>,
    /// Match starts.
    pub starts: Vec<&'a NewMatch>,
    /// Dealt hands.
    pub rounds: Vec<&'a RoundStart>,
    /// Judged attempts.
    pub attempts: Vec<&'a AttemptRecord>,
    /// Round results.
    pub results: Vec<&'a RoundResult>,
    /// Match ends.
    pub ends: Vec<&'a MatchEnd>,
    /// Abandoned matches and when.
    pub abandons: Vec<(Uuid, i64)>,
}

impl<'a> Grouped<'a> {
    /// Sorts `writes` by kind, keeping their order within a kind.
    pub fn of(writes: &[&'a Write]) -> Grouped<'a> {
        let mut g = Grouped::default();
        for write in writes {
            match write {
                Write::CreatePlayer(p) => g.players.push(p),
                Write::FirstDevice(d) => g.devices.push(d),
                Write::StartMatch(m) => g.starts.push(m),
                Write::StartRound(r) => g.rounds.push(r),
                Write::Attempt(a) => g.attempts.push(a),
                Write::RoundResult(r) => g.results.push(r),
                Write::FinishMatch(m) => g.ends.push(m),
                Write::AbandonMatch { match_id, at_ms } => g.abandons.push((*match_id, *at_ms)),
            }
        }
        g
    }

    /// What each write produced, in the order of `writes`, from the
    /// answers of the player creations and the match ends (each in order).
    pub fn answers(
        writes: &[&Write],
        created: Vec<Created>,
        ratings: Vec<Vec<RatingChange>>,
    ) -> Result<Vec<Applied>, DbError> {
        let mut created = created.into_iter();
        let mut ratings = ratings.into_iter();
        let answers = writes
            .iter()
            .map(|write| match write {
                Write::CreatePlayer(_) => created
                    .next()
                    .map(Applied::Player)
                    .ok_or(DbError::Invariant("a created player without an answer")),
                Write::FinishMatch(_) => ratings
                    .next()
                    .map(Applied::Ratings)
                    .ok_or(DbError::Invariant("a finished match without an answer")),
                _ => Ok(Applied::Done),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if created.next().is_some() || ratings.next().is_some() {
            return Err(DbError::Invariant("more answers than writes"));
        }
        Ok(answers)
    }
}

/// A count as SQL stores it (saturating: no count comes near `i64::MAX`).
pub(crate) fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}
