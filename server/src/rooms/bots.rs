//! The server's own bots, which a host seats from the waiting room
//! (`add_bot`): a few players in the database marked `bot` (so never rated
//! and on no board, like a `krypto bots` connection), made the first time a
//! host asks and reused by every room after. Their names, such as
//! "Ada (easy bot)", break the naming rules a `hello` is held to, so no
//! person or program can ever sign in as one; nobody knows their token.
//!
//! One room seats each at most once (its names differ by skill and by
//! person), and the same bot may sit in many rooms at once: it has no
//! connection and no seat in the lobby, only a place in each room's roster
//! (how it plays: `task/bots.rs`).

use krypto_core::bot_pace::BotSkill;
use krypto_core::protocol::PlayerId;
use krypto_core::room::MAX_BOTS;
use tokio::sync::OnceCell;

use crate::db::scores::NewPlayer;
use crate::db::tokens::{new_token, token_hash};
use crate::db::{Created, Db, DbError};

/// The names of each skill's bots, as many as a room may seat: famous
/// mathematicians and computer scientists, a different one for each bot of
/// a room.
const NAMES: [[&str; MAX_BOTS as usize]; 3] = [
    ["Ada", "Alan", "Grace", "Emmy"],
    ["Kurt", "Hedy", "Edsger", "Barbara"],
    ["Donald", "Sophie", "Euler", "Hypatia"],
];

/// One of the server's bots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerBot {
    /// Its player id.
    pub(crate) id: PlayerId,
    /// Its name, "Ada (easy bot)".
    pub(crate) name: String,
    /// How it plays.
    pub(crate) skill: BotSkill,
}

/// Why the bots could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BotsError {
    /// The database is away (or refused): asking again later may work.
    #[error("the server's bots are not available right now: {0}")]
    Db(#[from] DbError),
    /// The operating system gave no randomness for the bot's token.
    #[error("the server's bots are not available right now: no randomness for a token")]
    Randomness,
    /// A name of the bots belongs to a player who is no bot (an older
    /// server's naming rules let someone take it).
    #[error("the bot name {0:?} belongs to a person")]
    NameHeld(String),
}

/// The server's bots, made once.
#[derive(Debug, Default)]
pub(crate) struct BotRoster {
    bots: OnceCell<Vec<ServerBot>>,
}

impl BotRoster {
    /// Makes the bots' players if they are not made yet (a failure is
    /// forgotten: the next call tries again).
    pub(crate) async fn ready(&self, db: &Db) -> Result<(), BotsError> {
        self.bots
            .get_or_try_init(|| make_bots(db))
            .await
            .map(|_| ())
    }

    /// The bots of `skill`, in the order a room seats them; none before
    /// [`BotRoster::ready`] succeeded.
    pub(crate) fn of_skill(&self, skill: BotSkill) -> impl Iterator<Item = &ServerBot> {
        self.bots
            .get()
            .into_iter()
            .flatten()
            .filter(move |b| b.skill == skill)
    }
}

/// "Ada (easy bot)".
fn bot_name(base: &str, skill: BotSkill) -> String {
    format!("{base} ({skill} bot)")
}

async fn make_bots(db: &Db) -> Result<Vec<ServerBot>, BotsError> {
    let mut bots = Vec::new();
    for (skill, names) in BotSkill::ALL.into_iter().zip(NAMES) {
        for base in names {
            let name = bot_name(base, skill);
            let name_key = krypto_core::names::key(&name);
            let token = new_token().map_err(|_| BotsError::Randomness)?;
            let token_hash = token_hash(&token).ok_or(BotsError::Randomness)?;
            let new = NewPlayer {
                name: name.clone(),
                name_key: name_key.clone(),
                token_hash,
                bot: true,
            };
            let row = match db.create_player(new).await? {
                Created::Player(row) => row,
                // Made by an earlier run of the server (or another node).
                Created::NameTaken => db
                    .player_by_name_key(&name_key)
                    .await?
                    .ok_or_else(|| BotsError::NameHeld(name.clone()))?,
            };
            if !row.bot {
                return Err(BotsError::NameHeld(name));
            }
            bots.push(ServerBot {
                id: row.player_id(),
                name: row.name,
                skill,
            });
        }
    }
    Ok(bots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_names_fit_the_name_length_but_no_hello_can_take_them() {
        for (skill, names) in BotSkill::ALL.into_iter().zip(NAMES) {
            for base in names {
                let name = bot_name(base, skill);
                assert!(
                    name.chars().count() <= krypto_core::names::MAX_NAME_CHARS,
                    "{name}"
                );
                assert!(krypto_core::names::validate(&name).is_err(), "{name}");
            }
        }
        assert_eq!(bot_name("Ada", BotSkill::Easy), "Ada (easy bot)");
    }
}
