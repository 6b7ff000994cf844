//! Who a connection is: name rules, secret tokens and the `hello` decision.
//!
//! There are no passwords. The first `hello` with a free name creates the
//! player and hands out a 128-bit token; the server keeps only its SHA-256.
//! Later `hello`s prove the player by that token, so nobody can play (and
//! score on the leaderboards) under someone else's name.
//!
//! The token never travels in a URL. Another device of the same person
//! signs in with a single-use ticket instead, and gets a token of its own
//! ([`crate::db::tickets`]): a short device code the signed-in device shows
//! (`link_device`, minutes to live), or the ticket a `redirect` carries to
//! the room's new node (seconds to live).

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use krypto_core::protocol::{ErrorCode, PlayerId, PROTOCOL_VERSION};

use std::time::SystemTime;

use crate::db::devices::{SignIn, Touched};
use crate::db::scores::{FirstDevice, NewPlayer};
pub(crate) use crate::db::tokens::{
    issue_ticket, new_token, ticket_key, token_hash, unix_ms, DEVICE_CODE_TTL, HANDOVER_TICKET_TTL,
};
use crate::db::{within, Created, Db, DbError, PlayerRow};
use crate::scores::recorder::{RecordError, Recorder};

pub(crate) use krypto_core::names::{Name, MAX_NAME_CHARS};

/// Most players [`KnownPlayers`] remembers (about 200 bytes each).
const MAX_KNOWN: usize = 100_000;

/// What a new player is told while the database is away.
const NO_NEW_PLAYERS: &str =
    "the server cannot create new players right now; try again in a minute";

/// The players this server proved by their token since it started, by
/// token hash: while the database is unavailable, a returning player whose
/// connection dropped can still say hello and go on playing.
#[derive(Debug, Default)]
pub(crate) struct KnownPlayers(Mutex<HashMap<String, PlayerRow>>);

impl KnownPlayers {
    fn get(&self, hash: &str) -> Option<PlayerRow> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(hash)
            .cloned()
    }

    /// Forgets a revoked or expired token.
    pub(crate) fn forget(&self, hash: &str) {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(hash);
    }

    fn remember(&self, hash: &str, player: &PlayerRow) {
        let mut known = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if known.len() < MAX_KNOWN || known.contains_key(hash) {
            known.insert(hash.to_owned(), player.clone());
        }
    }
}

/// A `hello` that was refused, with the code and sentence to send back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HelloError {
    /// The request broke a rule; tell the client.
    #[error("{message}")]
    Refused {
        /// The protocol's error code.
        code: ErrorCode,
        /// A sentence for the person.
        message: String,
    },
    /// The database failed; the client may retry.
    #[error(transparent)]
    Db(#[from] DbError),
}

fn refuse(code: ErrorCode, message: impl Into<String>) -> HelloError {
    HelloError::Refused {
        code,
        message: message.into(),
    }
}

/// Checks a name by the game's rule ([`krypto_core::names`]); control and
/// format characters are named as such first, so the refusal says why.
pub(crate) fn validate_name(raw: &str) -> Result<Name, HelloError> {
    krypto_core::text::check(raw).map_err(|e| refuse(ErrorCode::InvalidName, e.to_string()))?;
    krypto_core::names::validate(raw).map_err(|e| refuse(ErrorCode::InvalidName, e.to_string()))
}

/// Who a successful `hello` proved the connection to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The stored player.
    pub player: PlayerRow,
    /// The token to return in `welcome` (new, or the one the client sent).
    pub token: String,
    /// What signing this device in recorded (default while the database
    /// is away).
    pub device: Touched,
}

/// Who a `hello` says it is: any of a name, a token, a ticket.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Credentials<'a> {
    /// The name asked for (a new player, or a rename).
    pub(crate) name: Option<&'a str>,
    /// The secret from an earlier `welcome`.
    pub(crate) token: Option<&'a str>,
    /// A single-use ticket, instead of a token.
    pub(crate) ticket: Option<&'a str>,
    /// What the device calls itself, as sent (cleaned here).
    pub(crate) device: Option<&'a str>,
}

/// What the rest of the server says about a `hello`, asked only when it
/// matters.
pub(crate) struct HelloRules<'a> {
    /// Whether a player holds a seat in a room: a seated player keeps their
    /// name, or the roster would show a name someone else could then take.
    /// (On a cluster the directory is asked: hence a future.)
    pub(crate) seated: &'a (dyn Fn(PlayerId) -> BoxFuture<'a, bool> + Sync),
    /// Whether this client may create one more account now (asked once, just
    /// before creating one; a yes is counted).
    pub(crate) may_create_account: &'a (dyn Fn() -> BoxFuture<'a, bool> + Sync),
    /// Whether this client may try one more ticket (wrong ones are guesses,
    /// limited like room codes).
    pub(crate) may_try_ticket: &'a (dyn Fn() -> BoxFuture<'a, bool> + Sync),
    /// Counts a ticket that signed nobody in.
    pub(crate) missed_ticket: &'a (dyn Fn() -> BoxFuture<'a, ()> + Sync),
    /// Now, for tickets' and devices' expiry.
    pub(crate) now: SystemTime,
    /// Most devices a player keeps (0: no cap).
    pub(crate) max_devices: usize,
    /// How long a device may go unused (`None`: for ever).
    pub(crate) device_expiry: Option<std::time::Duration>,
}

impl HelloRules<'_> {
    /// The sign-in of `token_hash` for `player`, under these rules.
    fn sign_in<'b>(&self, player: PlayerId, token_hash: &'b str, label: &'b str) -> SignIn<'b> {
        let now_ms = unix_ms(self.now);
        SignIn {
            player,
            token_hash,
            label,
            now_ms,
            max_devices: self.max_devices,
            expired_before_ms: self.device_expiry.map(|ttl| {
                now_ms.saturating_sub(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
            }),
        }
    }
}

/// Where players are kept: read from the database, created through the
/// recorder, remembered in memory for an outage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Players<'a> {
    pub(crate) db: &'a Db,
    pub(crate) recorder: &'a Recorder,
    pub(crate) known: &'a KnownPlayers,
    /// How long a lookup may take before the database is taken for away
    /// (`--database-deadline-ms`).
    pub(crate) deadline: std::time::Duration,
}

/// Decides a `hello`:
///
/// - `protocol` other than 1 → `unsupported_protocol`;
/// - a token the server knows → that player (renamed if the hello names a
///   different, free name; `name_taken` if that name is someone else's,
///   `already_in_room` while the player holds a seat);
/// - a free name (with no token, or a token the server does not know, as
///   after a server reset) → a new player with a fresh token;
/// - a name that exists, without its token → `name_taken` (no token) or
///   `bad_token` (a wrong one);
/// - neither name nor known token → `invalid_name` / `bad_token`;
/// - a new player when this address created too many lately → `rate_limited`;
/// - a `ticket` (and no token): its player, with a fresh token of this
///   device's own; `bad_token` when the ticket is unknown, used or expired,
///   `rate_limited` after too many such.
///
/// A new player is created through the recorder's group commit, marked a
/// bot if the hello said `bot`.
pub(crate) async fn hello(
    players: Players<'_>,
    protocol: u32,
    credentials: Credentials<'_>,
    rules: &HelloRules<'_>,
    bot: bool,
) -> Result<Identity, HelloError> {
    let Credentials {
        name,
        token,
        ticket,
        device,
    } = credentials;
    let label = krypto_core::protocol::device_label(device);
    if protocol != PROTOCOL_VERSION {
        return Err(refuse(
            ErrorCode::UnsupportedProtocol,
            format!("this server speaks protocol {PROTOCOL_VERSION}, not {protocol}"),
        ));
    }
    let Players {
        db,
        recorder,
        known: known_players,
        deadline,
    } = players;
    if let (Some(ticket), None) = (ticket, token) {
        return exchange(players, ticket, &label, rules).await;
    }
    let name = name.map(validate_name).transpose()?;
    let hash = token.and_then(token_hash);
    let known = match &hash {
        Some(hash) => match within(deadline, db.player_by_token_hash(hash)).await {
            Ok(found) => found,
            // The database is away: a player this server already knows
            // plays on; anyone else waits for it.
            Err(e) if e.is_unavailable() => match known_players.get(hash) {
                Some(player) => Some(player),
                None => {
                    return Err(unavailable(
                        e,
                        "the server cannot check your token right now; try again in a minute",
                    ))
                }
            },
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    if let (Some(player), Some(token), Some(hash)) = (known, token, &hash) {
        let device = match db
            .touch_device(rules.sign_in(player.player_id(), hash, &label))
            .await
        {
            Ok(touched) if touched.expired => {
                known_players.forget(hash);
                return Err(refuse(
                    ErrorCode::BadToken,
                    "this device went unused too long and was signed out: \
                     sign in with a device code from another of your devices",
                ));
            }
            Ok(touched) => touched,
            // The outage rule above: a proven player plays on unrecorded.
            Err(e) if e.is_unavailable() => Touched::default(),
            Err(e) => return Err(e.into()),
        };
        for evicted in &device.evicted {
            known_players.forget(evicted);
        }
        known_players.remember(hash, &player);
        let token = token.trim().to_owned();
        return match name {
            Some(name) if name.key != player.name_key => {
                if (rules.seated)(player.player_id()).await {
                    return Err(refuse(
                        ErrorCode::AlreadyInRoom,
                        format!(
                            "you cannot change your name while in a room; you are still {:?}",
                            player.name
                        ),
                    ));
                }
                match db
                    .rename_player(player.player_id(), &name.display, &name.key)
                    .await
                {
                    Ok(Created::Player(player)) => {
                        known_players.remember(hash, &player);
                        Ok(Identity {
                            player,
                            token,
                            device,
                        })
                    }
                    Ok(Created::NameTaken) => Err(name_taken(&name)),
                    Err(e) if e.is_unavailable() => {
                        tracing::warn!(error = %e, "a rename failed: the database is unavailable");
                        Err(refuse(
                            ErrorCode::Internal,
                            "the server cannot change names right now; try again in a minute",
                        ))
                    }
                    Err(e) => Err(e.into()),
                }
            }
            _ => Ok(Identity {
                player,
                token,
                device,
            }),
        };
    }
    let Some(name) = name else {
        return Err(match token {
            Some(_) => refuse(ErrorCode::BadToken, "this token belongs to no player"),
            None => refuse(ErrorCode::InvalidName, "a name is required"),
        });
    };
    let taken = match within(deadline, db.player_by_name_key(&name.key)).await {
        Ok(taken) => taken,
        Err(e) if e.is_unavailable() => return Err(unavailable(e, NO_NEW_PLAYERS)),
        Err(e) => return Err(e.into()),
    };
    if taken.is_some() {
        return Err(match token {
            Some(_) => refuse(
                ErrorCode::BadToken,
                format!("the token is not {:?}'s", name.display),
            ),
            None => name_taken(&name),
        });
    }
    if !(rules.may_create_account)().await {
        return Err(refuse(
            ErrorCode::RateLimited,
            "too many new players from your address: wait a minute",
        ));
    }
    let token = new_token().map_err(|e| {
        tracing::error!(error = %e, "the operating system gave no randomness");
        refuse(ErrorCode::Internal, "could not make a token; try again")
    })?;
    let Some(hash) = token_hash(&token) else {
        return Err(refuse(
            ErrorCode::Internal,
            "could not make a token; try again",
        ));
    };
    let new = NewPlayer {
        name: name.display.clone(),
        name_key: name.key.clone(),
        token_hash: hash,
        bot,
    };
    let hash = new.token_hash.clone();
    // Its first device rides in the same group commit: a rush of new
    // players writes nothing through the read pool.
    let device = FirstDevice {
        token_hash: hash.clone(),
        label,
        at_ms: unix_ms(rules.now),
    };
    match recorder.create_player_on(new, device).await {
        Ok(Created::Player(player)) => {
            known_players.remember(&hash, &player);
            Ok(Identity {
                player,
                token,
                device: Touched::default(),
            })
        }
        Ok(Created::NameTaken) => Err(name_taken(&name)),
        Err(RecordError::Unavailable) => {
            tracing::warn!("a new player was refused: the database is unavailable");
            Err(refuse(ErrorCode::Internal, NO_NEW_PLAYERS))
        }
        Err(e) => {
            tracing::error!(error = %e, "creating a player failed");
            Err(refuse(
                ErrorCode::Internal,
                "the server could not create the player; try again",
            ))
        }
    }
}

/// Signs a device in with a ticket: takes it, and gives the device a token
/// of its own for the ticket's player (a new device, within the cap).
async fn exchange(
    players: Players<'_>,
    ticket: &str,
    label: &str,
    rules: &HelloRules<'_>,
) -> Result<Identity, HelloError> {
    let db = players.db;
    if !(rules.may_try_ticket)().await {
        return Err(refuse(
            ErrorCode::RateLimited,
            "too many wrong codes from your address: wait a minute",
        ));
    }
    let player = match ticket_key(ticket) {
        Some((hash, kind)) => {
            within(
                players.deadline,
                db.take_ticket(&hash, kind, unix_ms(rules.now)),
            )
            .await?
        }
        None => None,
    };
    let Some(player) = player else {
        (rules.missed_ticket)().await;
        return Err(refuse(
            ErrorCode::BadToken,
            "this code is unknown, used or expired: ask the other device for a new one",
        ));
    };
    let unavailable = || refuse(ErrorCode::Internal, "could not make a token; try again");
    let token = new_token().map_err(|e| {
        tracing::error!(error = %e, "the operating system gave no randomness");
        unavailable()
    })?;
    let hash = token_hash(&token).ok_or_else(unavailable)?;
    let device = db
        .touch_device(rules.sign_in(player.player_id(), &hash, label))
        .await?;
    for evicted in &device.evicted {
        players.known.forget(evicted);
    }
    Ok(Identity {
        player,
        token,
        device,
    })
}

/// The refusal of a `hello` the database is needed for, while it is away.
fn unavailable(e: DbError, message: &str) -> HelloError {
    tracing::warn!(error = %e, "a hello was refused: the database is unavailable");
    refuse(ErrorCode::Internal, message)
}

fn name_taken(name: &Name) -> HelloError {
    refuse(
        ErrorCode::NameTaken,
        format!("{:?} belongs to another player", name.display),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_keyed_ignoring_case() {
        let n = validate_name("  Ann   Lee ").unwrap();
        assert_eq!(n.display, "Ann Lee");
        assert_eq!(n.key, "ann lee");
        assert!(validate_name("José_9-x").is_ok());
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in [
            "",
            "   ",
            "a;b",
            "tab\there",
            "x".repeat(21).as_str(),
            "smile😀",
        ] {
            assert!(
                matches!(
                    validate_name(bad),
                    Err(HelloError::Refused {
                        code: ErrorCode::InvalidName,
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
        assert!(validate_name(&"x".repeat(20)).is_ok());
    }
}
