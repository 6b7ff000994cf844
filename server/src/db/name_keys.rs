//! Name keys are computed by krypto-core (`names::key`), which SQL cannot
//! do; when that computation changes (`names::KEY_VERSION`), the server
//! recomputes every stored key at start, in one transaction, before it
//! serves anyone: a returning player's `hello` compares its name's key with
//! the stored one, and a stale key would read as a rename.
//!
//! Two existing players whose names now share a key (`Paul Allen` and
//! `PauI AIIen`, registered before ASCII look-alikes were caught) both keep
//! their names, tokens and scores. The older account (the lower id, there
//! first) gets the key; the newer one's key becomes `KEY#ID`, which no
//! name can produce (`#` is not allowed in names): nobody can register
//! either look-alike again, the newer player's profile stays reachable by
//! id, and they can rename themselves (the name is then checked as usual).

use std::collections::HashSet;

use krypto_core::names::{key, KEY_VERSION};

use super::{on_store, Db, DbError};

/// What a recomputation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recomputed {
    /// Keys that changed.
    pub changed: usize,
    /// Of those, players whose name collided with an older player's.
    pub collisions: usize,
}

/// Recomputes the stored keys if they are older than [`KEY_VERSION`].
pub async fn recompute(db: &Db) -> Result<Recomputed, DbError> {
    on_store!(db, s => {
        let mut tx = s.pool.begin().await?;
        // Taking the row's write lock first: of nodes starting together,
        // one recomputes and the others find the version current.
        sqlx::query("UPDATE name_key_version SET version = version")
            .execute(&mut *tx)
            .await?;
        let (version,): (i64,) = sqlx::query_as("SELECT version FROM name_key_version")
            .fetch_one(&mut *tx)
            .await?;
        if version >= i64::from(KEY_VERSION) {
            tx.commit().await?;
            return Ok(Recomputed::default());
        }
        let players: Vec<(i64, String, String)> =
            sqlx::query_as("SELECT id, name, name_key FROM players ORDER BY id")
                .fetch_all(&mut *tx)
                .await?;
        let (updates, done) = plan(&players);
        // Out of the way first, so that no intermediate state breaks the
        // keys' uniqueness.
        for (id, _) in &updates {
            sqlx::query("UPDATE players SET name_key = $1 WHERE id = $2")
                .bind(format!("#{id}"))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        for (id, new_key) in &updates {
            sqlx::query("UPDATE players SET name_key = $1 WHERE id = $2")
                .bind(new_key)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("UPDATE name_key_version SET version = $1")
            .bind(i64::from(KEY_VERSION))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done)
    })
}

/// The new key of each player whose key changes, oldest player first
/// served, and the counts.
fn plan(players: &[(i64, String, String)]) -> (Vec<(i64, String)>, Recomputed) {
    let mut taken = HashSet::new();
    let mut updates = Vec::new();
    let mut done = Recomputed::default();
    for (id, name, old) in players {
        let mut new = key(name);
        if !taken.insert(new.clone()) {
            new = format!("{new}#{id}");
            done.collisions += 1;
        }
        if &new != old {
            updates.push((*id, new));
            done.changed += 1;
        }
    }
    (updates, done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_older_player_keeps_a_shared_key() {
        let players = vec![
            (1, "Paul Allen".to_owned(), "paul allen".to_owned()),
            (2, "PauI AIIen".to_owned(), "paui aiien".to_owned()),
            (3, "Ann".to_owned(), "ann".to_owned()),
        ];
        let (updates, done) = plan(&players);
        assert_eq!(updates, vec![(2, format!("{}#2", key("Paul Allen")))]);
        assert_eq!(
            done,
            Recomputed {
                changed: 1,
                collisions: 1
            }
        );
    }
}
