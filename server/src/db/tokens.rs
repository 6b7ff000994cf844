//! Secret tokens and single-use tickets, minted here: the database keeps
//! only their SHA-256, so a copy of it signs nobody in. A token proves a
//! player on every `hello`; a ticket ([`super::tickets`]) signs another
//! device in once: a short device code the signed-in device shows, or the
//! ticket a `redirect` carries to a room's new node.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand::rngs::OsRng;
use rand::TryRngCore;
use sha2::{Digest, Sha256};

use super::tickets::TicketKind;
use super::{Db, DbError};

/// Bytes of randomness in a token.
const TOKEN_BYTES: usize = 16;

/// How long a device code may be typed on the other device.
pub(crate) const DEVICE_CODE_TTL: Duration = Duration::from_secs(5 * 60);

/// How long a `redirect`'s ticket may take to reach the room's node.
pub(crate) const HANDOVER_TICKET_TTL: Duration = Duration::from_secs(30);

/// The letters of a device code: no I, O, 0 or 1, which read alike.
const CODE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// Characters in a device code (40 bits), shown as two groups of four.
const CODE_CHARS: usize = 8;

/// A fresh secret token: 128 bits from the operating system, as hex.
pub fn new_token() -> Result<String, rand::rand_core::OsError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    OsRng.try_fill_bytes(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// The stored form of a token: SHA-256 of its 16 bytes, as hex. `None` when
/// the text is not a token at all (then no player can match it).
pub fn token_hash(token: &str) -> Option<String> {
    let bytes = hex::decode(token.trim()).ok()?;
    if bytes.len() != TOKEN_BYTES {
        return None;
    }
    Some(hex::encode(Sha256::digest(&bytes)))
}

/// A fresh device code, `K7QX-M2PD`.
pub(crate) fn new_device_code() -> Result<String, rand::rand_core::OsError> {
    let mut bytes = [0u8; CODE_CHARS];
    OsRng.try_fill_bytes(&mut bytes)?;
    let chars: String = bytes
        .iter()
        .map(|b| char::from(CODE_ALPHABET[usize::from(b % 32)]))
        .collect();
    Ok(format!("{}-{}", &chars[..4], &chars[4..]))
}

/// What a ticket as typed or handed over is: the stored hash and its kind.
/// A handover ticket is a token's 32 hex digits; a device code is eight
/// characters of [`CODE_ALPHABET`], any case, dashes and spaces ignored.
pub(crate) fn ticket_key(raw: &str) -> Option<(String, TicketKind)> {
    if let Some(hash) = token_hash(raw) {
        return Some((hash, TicketKind::Handover));
    }
    let code: String = raw
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let valid = code.len() == CODE_CHARS && code.bytes().all(|b| CODE_ALPHABET.contains(&b));
    valid.then(|| {
        (
            hex::encode(Sha256::digest(code.as_bytes())),
            TicketKind::Device,
        )
    })
}

/// Unix time in milliseconds: tickets are checked on whichever node they
/// reach, so expiry is wall-clock time.
pub(crate) fn unix_ms(at: SystemTime) -> i64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Why a ticket could not be issued.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TicketError {
    /// The operating system gave no randomness.
    #[error("no randomness: {0}")]
    Random(#[from] rand::rand_core::OsError),
    /// Storing it failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Issues a ticket of `kind` for `player`, living `ttl` from `now`: the
/// text to give them (a device code, or a handover ticket's hex). Storing
/// it fails with [`DbError::Timeout`] past `deadline`
/// (`--database-deadline-ms`): a redirect goes out without a ticket rather
/// than wait on a database that does not answer.
pub(crate) async fn issue_ticket(
    db: &Db,
    player: krypto_core::protocol::PlayerId,
    kind: TicketKind,
    now: SystemTime,
    ttl: Duration,
    deadline: Duration,
) -> Result<String, TicketError> {
    let text = match kind {
        TicketKind::Device => new_device_code()?,
        TicketKind::Handover => new_token()?,
    };
    let Some((hash, _)) = ticket_key(&text) else {
        return Err(DbError::Invariant("a fresh ticket that reads as none").into());
    };
    let now_ms = unix_ms(now);
    let expires = unix_ms(now + ttl);
    super::within(
        deadline,
        db.insert_ticket(&hash, player, kind, now_ms, expires),
    )
    .await?;
    Ok(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bits_of_hex_and_hash_stably() {
        let t = new_token().unwrap();
        assert_eq!(t.len(), 32);
        assert_ne!(t, new_token().unwrap());
        let h = token_hash(&t).unwrap();
        assert_eq!(h.len(), 64);
        assert_eq!(token_hash(&t.to_uppercase()), Some(h));
        assert_eq!(token_hash("not hex"), None);
        assert_eq!(token_hash("abcd"), None);
    }

    #[test]
    fn device_codes_read_back_in_any_case_with_or_without_the_dash() {
        let code = new_device_code().unwrap();
        assert_eq!(code.len(), 9);
        assert_eq!(&code[4..5], "-");
        let (hash, kind) = ticket_key(&code).unwrap();
        assert_eq!(kind, TicketKind::Device);
        let typed = code.replace('-', " ").to_lowercase();
        assert_eq!(ticket_key(&typed), Some((hash, TicketKind::Device)));
        assert_eq!(ticket_key("ABCD-EFG"), None, "too short");
        assert_eq!(ticket_key("ABCD-EFG0"), None, "0 is not a code letter");
        let handover = new_token().unwrap();
        assert_eq!(ticket_key(&handover).unwrap().1, TicketKind::Handover);
    }
}
