//! Challenges: a hand someone solved (the daily, a room's round, a run's
//! hand), sent to friends as a link `/c/CODE`. Whoever opens it gets the same
//! hand, timed the same way as the daily (a [`clock::Attempt`] of their
//! own), and then both results side by side.
//!
//! The link holds the challenge's code and nothing else: no token, no
//! name. A code is [`CODE_LEN`] characters of the room codes' alphabet (no
//! 0/O, 1/I/L), so it reads aloud and types on a phone; 31^8 codes
//! (8.5 × 10^11) are far too many to find one by guessing at the server's
//! rate limits. It is a "code" like a room's, not an "id": on the wire
//! `id` is the request id of the envelope.
//!
//! [`clock::Attempt`]: super::clock::Attempt

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::cards::Deal;
use crate::protocol::{ChallengeOutcome, Timed};
use crate::rules::Rules;

/// Characters in a challenge code.
pub const CODE_LEN: usize = 8;

/// The characters of a code: the room codes' alphabet.
pub const CODE_ALPHABET: &[u8; 31] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A text that is not a challenge code.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a challenge code is {CODE_LEN} letters and digits (no 0, O, 1, I or L)")]
pub struct BadChallengeCode;

/// A challenge's code, as in `/c/K7QXM2PD`. Parsing ignores case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ChallengeCode(String);

impl ChallengeCode {
    /// A fresh code from `rng` (the server's secure generator).
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> ChallengeCode {
        let code = (0..CODE_LEN)
            .map(|_| {
                let i = rng.random_range(0..CODE_ALPHABET.len());
                char::from(CODE_ALPHABET[i])
            })
            .collect();
        ChallengeCode(code)
    }

    /// The code, upper case.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for ChallengeCode {
    type Err = BadChallengeCode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let code = text.trim().to_ascii_uppercase();
        let ok = code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b));
        if ok {
            Ok(ChallengeCode(code))
        } else {
            Err(BadChallengeCode)
        }
    }
}

impl TryFrom<String> for ChallengeCode {
    type Error = BadChallengeCode;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<ChallengeCode> for String {
    fn from(code: ChallengeCode) -> String {
        code.0
    }
}

impl fmt::Display for ChallengeCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A challenge as the server keeps it: the hand, the rule set it was
/// solved under, and the challenger's result to beat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// The hand.
    pub deal: Deal,
    /// The rule set it is judged under (a room's round keeps its room's).
    pub rules: Rules,
    /// The challenger's result.
    pub to_beat: Timed,
}

/// How `yours` compares with `theirs`: the lower time (penalties included)
/// wins; equal times tie, whatever the misses (they are in the time
/// already).
pub fn compare(yours: Timed, theirs: Timed) -> ChallengeOutcome {
    match yours.elapsed_ms.cmp(&theirs.elapsed_ms) {
        std::cmp::Ordering::Less => ChallengeOutcome::Won,
        std::cmp::Ordering::Equal => ChallengeOutcome::Tied,
        std::cmp::Ordering::Greater => ChallengeOutcome::Lost,
    }
}
