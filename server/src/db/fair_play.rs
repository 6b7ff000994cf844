//! Fair play in the database: each player's window of right answers in
//! rated play, their flag and its evidence, every decision with its time,
//! and a ban's recomputation of every rating without the banned player.
//!
//! The SQL is the same text on both backends; statements that carry many
//! rows or match ids read them from the backend's row source (`{rows}`,
//! [`super::rows`]), like the recorder's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use krypto_core::fair_play::{Answer, Clearance, Flag};
use krypto_core::protocol::PlayerId;
use sqlx::Connection;
use uuid::Uuid;

use super::rows::Rows;
use super::scores::{FinalPlace, MatchEnd};
use super::summary::{plan_finish, PlaceRow, RatingState, Stats, WonRound};
use super::write_backend::WriteBackend;
use super::{on_store, writes, Db, DbError};

/// Where a player stands with fair play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Off every public board, pending review.
    Flagged,
    /// Back on the boards; the answers cleared no longer count.
    Cleared,
    /// Off the boards for good and never rated.
    Banned,
}

impl Standing {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Flagged => "flagged",
            Standing::Cleared => "cleared",
            Standing::Banned => "banned",
        }
    }

    fn parse(text: &str) -> Result<Standing, DbError> {
        match text {
            "flagged" => Ok(Standing::Flagged),
            "cleared" => Ok(Standing::Cleared),
            "banned" => Ok(Standing::Banned),
            _ => Err(DbError::Invariant("an unknown fair-play status")),
        }
    }
}

/// A player's flag as a reviewer reads it.
#[derive(Debug, Clone)]
pub struct FlagRecord {
    /// Who.
    pub player: PlayerId,
    /// Their name.
    pub name: String,
    /// Where they stand.
    pub standing: Standing,
    /// When the flag was raised (UTC ms).
    pub flagged_at: i64,
    /// The flag's signals and evidence.
    pub flag: Flag,
    /// What a reviewer cleared.
    pub cleared: Clearance,
    /// When the last decision was taken (UTC ms).
    pub decided_at: i64,
}

/// A player's right answers and what was cleared of them, for `assess`.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// The latest answers kept, oldest first.
    pub answers: Vec<Answer>,
    /// Their flag's standing, if ever flagged.
    pub standing: Option<Standing>,
    /// What a reviewer cleared.
    pub cleared: Clearance,
}

/// A won round of a rated match, as the signals read it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RatedWin {
    /// Who won it.
    pub winner: i64,
    /// Their formula.
    pub formula: String,
    /// From the deal to the answer, on the room's clock.
    pub elapsed_ms: i64,
    /// When it was recorded (UTC ms).
    pub ended_at: i64,
    /// The hand's cards, as JSON.
    pub cards: String,
    /// The hand's objective.
    pub objective: i64,
    /// The room's settings, as JSON.
    pub settings: String,
}

/// A flag's status and clearance as stored.
type StatusRow = (String, Option<i64>);

type FlagRow = (i64, String, String, i64, String, Option<i64>, i64);

fn ms(at: i64) -> u64 {
    u64::try_from(at).unwrap_or(0)
}

fn stamp(at: u64) -> i64 {
    i64::try_from(at).unwrap_or(i64::MAX)
}

fn flag_record(row: FlagRow) -> Result<FlagRecord, DbError> {
    let (id, name, status, flagged_at, evidence, through, decided_at) = row;
    Ok(FlagRecord {
        player: PlayerId(id),
        name,
        standing: Standing::parse(&status)?,
        flagged_at,
        flag: serde_json::from_str(&evidence)
            .map_err(|_| DbError::Invariant("stored fair-play evidence that does not parse"))?,
        cleared: Clearance {
            through_ms: through.map(ms),
        },
        decided_at,
    })
}

const FLAG_COLUMNS: &str = "SELECT f.player_id, p.name, f.status, f.flagged_at, f.evidence,
        f.cleared_through, f.decided_at
    FROM fair_play_flags f JOIN players p ON p.id = f.player_id";

impl Db {
    /// The won rounds of rated match `match_id` with a formula.
    pub async fn rated_wins(&self, match_id: Uuid) -> Result<Vec<RatedWin>, DbError> {
        const SQL: &str = "SELECT r.winner_id AS winner, r.formula, r.elapsed_ms, r.ended_at,
                r.cards, r.objective, CAST(m.settings AS TEXT) AS settings
            FROM rounds r JOIN matches m ON m.id = r.match_id
            WHERE r.match_id IN (SELECT t.id FROM {rows}) AND r.outcome = 'won'
              AND r.formula IS NOT NULL AND r.winner_id IS NOT NULL
            ORDER BY r.number";
        self.by_match(SQL, match_id).await
    }

    /// Adds `answers` to `player`'s window, keeping the latest `keep`.
    pub async fn add_answers(
        &self,
        player: PlayerId,
        answers: &[Answer],
        keep: u32,
    ) -> Result<(), DbError> {
        const INSERT: &str =
            "INSERT INTO fair_play_answers (player_id, answered_at, answer) VALUES ($1, $2, $3)";
        const TRIM: &str = "DELETE FROM fair_play_answers WHERE player_id = $1 AND id NOT IN
            (SELECT id FROM fair_play_answers WHERE player_id = $1
             ORDER BY answered_at DESC, id DESC LIMIT $2)";
        let mut rows = Vec::with_capacity(answers.len());
        for a in answers {
            let json = serde_json::to_string(a)
                .map_err(|_| DbError::Invariant("an answer that does not serialize"))?;
            rows.push((stamp(a.answered_at_ms), json));
        }
        on_store!(self, s => {
            // In turn with the recorder and the daily's writer (SQLite),
            // the connection taken first so the turn is never held waiting
            // for the pool.
            let mut conn = s.pool.acquire().await?;
            let _turn = s.write_turn().await;
            let mut tx = sqlx::Connection::begin(&mut *conn).await?;
            for (at, json) in &rows {
                sqlx::query(INSERT).bind(player.0).bind(*at).bind(json).execute(&mut *tx).await?;
            }
            sqlx::query(TRIM).bind(player.0).bind(i64::from(keep)).execute(&mut *tx).await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// `player`'s kept answers and their flag's standing.
    pub async fn signals(&self, player: PlayerId) -> Result<Signals, DbError> {
        const ANSWERS: &str = "SELECT answer FROM fair_play_answers WHERE player_id = $1
            ORDER BY answered_at, id";
        const FLAG: &str =
            "SELECT status, cleared_through FROM fair_play_flags WHERE player_id = $1";
        let (texts, flag): (Vec<(String,)>, Option<StatusRow>) = on_store!(self, s => (
            sqlx::query_as(ANSWERS).bind(player.0).fetch_all(&s.pool).await?,
            sqlx::query_as(FLAG).bind(player.0).fetch_optional(&s.pool).await?,
        ));
        let answers = texts
            .iter()
            .map(|(t,)| serde_json::from_str(t))
            .collect::<Result<_, _>>()
            .map_err(|_| DbError::Invariant("a stored answer that does not parse"))?;
        let (standing, cleared) = match flag {
            Some((status, through)) => (
                Some(Standing::parse(&status)?),
                Clearance {
                    through_ms: through.map(ms),
                },
            ),
            None => (None, Clearance::NONE),
        };
        Ok(Signals {
            answers,
            standing,
            cleared,
        })
    }

    /// Flags `player` with `flag` at `at_ms` (a cleared player again; a
    /// flagged or banned one stays as they are) and marks their rated
    /// matches. Whether a new flag was raised.
    pub async fn raise_flag(
        &self,
        player: PlayerId,
        flag: &Flag,
        at_ms: i64,
    ) -> Result<bool, DbError> {
        const UPSERT: &str = "INSERT INTO fair_play_flags
                (player_id, status, flagged_at, evidence, cleared_through, decided_at)
            VALUES ($1, 'flagged', $2, $3, NULL, $2)
            ON CONFLICT (player_id) DO UPDATE SET status = 'flagged',
                flagged_at = excluded.flagged_at, evidence = excluded.evidence,
                decided_at = excluded.decided_at
            WHERE fair_play_flags.status = 'cleared'
            RETURNING player_id";
        const LOG: &str = "INSERT INTO fair_play_decisions (player_id, decision, at, evidence)
            VALUES ($1, 'flagged', $2, $3)";
        let evidence = serde_json::to_string(flag)
            .map_err(|_| DbError::Invariant("evidence that does not serialize"))?;
        Ok(on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            let raised: Option<(i64,)> = sqlx::query_as(UPSERT)
                .bind(player.0).bind(at_ms).bind(&evidence).fetch_optional(&mut *tx).await?;
            if raised.is_some() {
                sqlx::query(LOG).bind(player.0).bind(at_ms).bind(&evidence)
                    .execute(&mut *tx).await?;
                sqlx::query(MARK).bind(player.0).bind(true).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            raised.is_some()
        }))
    }

    /// Every flag not cleared (flagged or banned), oldest first.
    pub async fn flags(&self) -> Result<Vec<FlagRecord>, DbError> {
        let sql = format!(
            "{FLAG_COLUMNS} WHERE f.status <> 'cleared' ORDER BY f.flagged_at, f.player_id"
        );
        let rows: Vec<FlagRow> =
            on_store!(self, s => sqlx::query_as(&sql).fetch_all(&s.pool).await?);
        rows.into_iter().map(flag_record).collect()
    }

    /// The flag of the player named (by name key) `name_key`, if any.
    pub async fn flag_of(&self, name_key: &str) -> Result<Option<FlagRecord>, DbError> {
        let sql = format!("{FLAG_COLUMNS} WHERE p.name_key = $1");
        let row: Option<FlagRow> = on_store!(self, s => sqlx::query_as(&sql).bind(name_key).fetch_optional(&s.pool).await?);
        row.map(flag_record).transpose()
    }

    /// Clears `player`'s flag at `at_ms`: back on the boards, and every
    /// answer up to the evidence's latest no longer counts. Whether they
    /// were flagged (a banned player stays banned).
    pub async fn clear_flag(&self, player: PlayerId, at_ms: i64) -> Result<bool, DbError> {
        const SELECT: &str = "SELECT evidence, cleared_through FROM fair_play_flags
            WHERE player_id = $1 AND status = 'flagged'";
        const UPDATE: &str = "UPDATE fair_play_flags SET status = 'cleared',
                cleared_through = $2, decided_at = $3 WHERE player_id = $1";
        const LOG: &str = "INSERT INTO fair_play_decisions (player_id, decision, at)
            VALUES ($1, 'cleared', $2)";
        Ok(on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            sqlx::query(LOG).bind(player.0).bind(at_ms).execute(&mut *tx).await?;
            let found: Option<(String, Option<i64>)> =
                sqlx::query_as(SELECT).bind(player.0).fetch_optional(&mut *tx).await?;
            match found {
                Some((evidence, through)) => {
                    let flag: Flag = serde_json::from_str(&evidence).map_err(|_| {
                        DbError::Invariant("stored fair-play evidence that does not parse")
                    })?;
                    let cleared = Clearance { through_ms: through.map(ms) }.and(flag.clearance());
                    sqlx::query(UPDATE).bind(player.0)
                        .bind(cleared.through_ms.map(stamp)).bind(at_ms)
                        .execute(&mut *tx).await?;
                    sqlx::query(MARK).bind(player.0).bind(false).execute(&mut *tx).await?;
                    tx.commit().await?;
                    true
                }
                None => {
                    tx.rollback().await?;
                    false
                }
            }
        }))
    }

    /// Bans `player` at `at_ms`, in one transaction: off the boards for
    /// good, never rated again, and every rating, opponent count and board
    /// row recomputed by replaying every finished match in order without
    /// the banned players' participation.
    pub async fn ban(
        &self,
        player: PlayerId,
        evidence: Option<&Flag>,
        at_ms: i64,
    ) -> Result<(), DbError> {
        let evidence = match evidence {
            Some(f) => serde_json::to_string(f)
                .map_err(|_| DbError::Invariant("evidence that does not serialize"))?,
            None => "{\"reasons\":[]}".to_owned(),
        };
        match self {
            Db::Sqlite(s) => {
                let mut c = s.connect().await?;
                ban_in::<sqlx::Sqlite>(&mut c, player, &evidence, at_ms).await
            }
            Db::Postgres(s) => {
                let mut c = s.connect().await?;
                ban_in::<sqlx::Postgres>(&mut c, player, &evidence, at_ms).await
            }
        }
    }

    /// How many flags were raised, cleared and banned, ever.
    pub async fn decision_counts(&self) -> Result<(u64, u64, u64), DbError> {
        const SQL: &str = "SELECT decision, count(*) FROM fair_play_decisions GROUP BY decision";
        let rows: Vec<(String, i64)> =
            on_store!(self, s => sqlx::query_as(SQL).fetch_all(&s.pool).await?);
        let of = |d: &str| {
            rows.iter()
                .find(|(k, _)| k == d)
                .map_or(0, |(_, n)| u64::try_from(*n).unwrap_or(0))
        };
        Ok((of("flagged"), of("cleared"), of("banned")))
    }
}

/// Marks (`$2` true) or unmarks a player's rated matches.
const MARK: &str = "UPDATE match_players SET fair_play_flagged = $2
    WHERE player_id = $1 AND rating_after IS NOT NULL";

/// A player's place in a finished match, as the replay reads it.
#[derive(Debug, sqlx::FromRow)]
struct ReplayPlace {
    match_id: String,
    finished_at: i64,
    rounds_played: i64,
    player_id: i64,
    score: Option<i64>,
    rank: Option<i64>,
    /// The match rated them when it was played.
    was_rated: bool,
    /// A bot or a banned player.
    excluded: bool,
}

/// A won round, with its match, as the replay reads it.
#[derive(Debug, sqlx::FromRow)]
struct ReplayRound {
    match_id: String,
    winner: i64,
    with_formula: bool,
    elapsed_ms: i64,
    at_ms: i64,
}

async fn ban_in<B>(
    conn: &mut B::Connection,
    player: PlayerId,
    evidence: &str,
    at_ms: i64,
) -> Result<(), DbError>
where
    B: WriteBackend
        + super::write_backend::Decodes<ReplayPlace>
        + super::write_backend::Decodes<ReplayRound>,
{
    const FLAG: &str = "INSERT INTO fair_play_flags
            (player_id, status, flagged_at, evidence, cleared_through, decided_at)
        SELECT t.id, 'banned', t.at, t.evidence, NULL, t.at FROM {rows} WHERE true
        ON CONFLICT (player_id) DO UPDATE SET status = 'banned', decided_at = excluded.decided_at";
    const LOG: &str = "INSERT INTO fair_play_decisions (player_id, decision, at, evidence)
        SELECT t.id, 'banned', t.at, t.evidence FROM {rows}";
    const MARK_ROWS: &str = "UPDATE match_players SET fair_play_flagged = true
        WHERE player_id IN (SELECT t.id FROM {rows}) AND rating_after IS NOT NULL";
    const BANNED: &str = "SELECT f.player_id FROM fair_play_flags f
        WHERE f.status = 'banned' AND EXISTS (SELECT 1 FROM {rows})";
    const PLACES: &str = "SELECT CAST(mp.match_id AS TEXT) AS match_id, m.finished_at,
            m.rounds_played, mp.player_id, mp.score, mp.rank,
            mp.rating_after IS NOT NULL AS was_rated,
            (p.bot OR mp.player_id IN (SELECT t.id FROM {rows})) AS excluded
        FROM match_players mp JOIN matches m ON m.id = mp.match_id
            JOIN players p ON p.id = mp.player_id
        WHERE m.status = 'finished' AND mp.finished_at IS NOT NULL
        ORDER BY m.finished_at, CAST(mp.match_id AS TEXT), mp.seat";
    const ROUNDS: &str = "SELECT CAST(r.match_id AS TEXT) AS match_id, r.winner_id AS winner,
            r.formula IS NOT NULL AS with_formula, r.elapsed_ms, r.ended_at AS at_ms
        FROM rounds r JOIN matches m ON m.id = r.match_id
        WHERE r.outcome = 'won' AND m.status = 'finished' AND EXISTS (SELECT 1 FROM {rows})";
    const WIPE: [&str; 3] = [
        "DELETE FROM player_stats WHERE EXISTS (SELECT 1 FROM {rows})",
        "DELETE FROM opponents WHERE EXISTS (SELECT 1 FROM {rows})",
        "DELETE FROM ratings WHERE EXISTS (SELECT 1 FROM {rows})",
    ];
    const PLACE_RATINGS: &str = "UPDATE match_players SET rating_before = t.before,
            rating_after = t.after
        FROM {rows} WHERE match_players.match_id = t.match_id
            AND match_players.player_id = t.player_id";
    const MATCH_RATED: &str =
        "UPDATE matches SET rated = t.rated FROM {rows} WHERE matches.id = t.id";

    let one = |at: i64| {
        let row = [(player.0, at, evidence.to_owned())];
        Rows::of(&row)
            .col("id", |r| r.0)
            .col("at", |r| r.1)
            .col("evidence", |r| r.2.clone())
            .into()
    };
    let mut tx = conn.begin_with(B::BEGIN_WRITE).await?;
    // The decision first: it takes the write lock before anything is read.
    B::execute(&mut tx, LOG, one(at_ms)).await?;
    B::execute(&mut tx, FLAG, one(at_ms)).await?;
    let me = [player.0];
    B::execute(&mut tx, MARK_ROWS, Rows::of(&me).col("id", |i| *i).into()).await?;
    let banned: Vec<(i64,)> =
        B::fetch(&mut tx, BANNED, Rows::of(&me).col("id", |i| *i).into()).await?;
    let banned: Vec<i64> = banned.into_iter().map(|(id,)| id).collect();
    let places: Vec<ReplayPlace> =
        B::fetch(&mut tx, PLACES, Rows::of(&banned).col("id", |i| *i).into()).await?;
    let rounds: Vec<ReplayRound> =
        B::fetch(&mut tx, ROUNDS, Rows::of(&me).col("id", |i| *i).into()).await?;
    for sql in WIPE {
        B::execute(&mut tx, sql, Rows::of(&me).col("id", |i| *i).into()).await?;
    }
    let replay = replay(&places, &rounds)?;
    if !replay.pairs.is_empty() {
        writes::add_opponents::<B>(&mut tx, &replay.pairs).await?;
    }
    if !replay.ratings.is_empty() {
        writes::store_ratings::<B>(&mut tx, &replay.ratings, at_ms).await?;
    }
    if !replay.stats.is_empty() {
        writes::add_stats::<B>(&mut tx, &replay.stats).await?;
    }
    if !replay.places.is_empty() {
        let rows = Rows::of(&replay.places)
            .col("match_id", |p| p.match_id)
            .col("player_id", |p| p.player)
            .col("before", |p| p.rating_before)
            .col("after", |p| p.rating_after);
        B::execute(&mut tx, PLACE_RATINGS, rows.into()).await?;
    }
    if !replay.rated.is_empty() {
        let rows = Rows::of(&replay.rated)
            .col("id", |r| r.0)
            .col("rated", |r| r.1);
        B::execute(&mut tx, MATCH_RATED, rows.into()).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// What replaying every finished match writes.
#[derive(Debug, Default)]
struct Replay {
    ratings: BTreeMap<i64, RatingState>,
    pairs: BTreeSet<(i64, i64)>,
    stats: Stats,
    places: Vec<PlaceRow>,
    rated: Vec<(Uuid, bool)>,
}

/// Replays finished matches in order (`places` ordered by finish, match,
/// seat) with the excluded players (bots, banned) never rated: a player is
/// rated in a match if it rated them when played and they are not excluded;
/// ranks are taken again among those left.
fn replay(places: &[ReplayPlace], rounds: &[ReplayRound]) -> Result<Replay, DbError> {
    let mut out = Replay::default();
    let mut won: HashMap<&str, Vec<WonRound>> = HashMap::new();
    for r in rounds {
        won.entry(r.match_id.as_str()).or_default().push(WonRound {
            winner: r.winner,
            with_formula: r.with_formula,
            elapsed_ms: r.elapsed_ms,
            at_ms: r.at_ms,
        });
    }
    let excluded: HashSet<i64> = places
        .iter()
        .filter(|p| p.excluded)
        .map(|p| p.player_id)
        .collect();
    let mut start = 0;
    while start < places.len() {
        let id = &places[start].match_id;
        let end = places[start..]
            .iter()
            .position(|p| &p.match_id != id)
            .map_or(places.len(), |n| start + n);
        let group = &places[start..end];
        start = end;
        let match_id =
            Uuid::parse_str(id).map_err(|_| DbError::Invariant("a match id that is not a UUID"))?;
        let kept: Vec<&ReplayPlace> = group.iter().filter(|p| !p.excluded).collect();
        let standings = group
            .iter()
            .map(|p| {
                let rank = p.rank.unwrap_or(i64::MAX);
                let better = kept
                    .iter()
                    .filter(|k| k.rank.unwrap_or(i64::MAX) < rank)
                    .count();
                FinalPlace {
                    player: PlayerId(p.player_id),
                    score: p.score.unwrap_or(0),
                    rank: if p.excluded {
                        u32::try_from(rank).unwrap_or(u32::MAX)
                    } else {
                        u32::try_from(better + 1).unwrap_or(u32::MAX)
                    },
                    attempted: p.was_rated && !p.excluded,
                }
            })
            .collect();
        let ended = MatchEnd {
            match_id,
            rounds_played: u32::try_from(group[0].rounds_played).unwrap_or(0),
            standings,
            at_ms: group[0].finished_at,
        };
        let stored: HashMap<i64, RatingState> = out.ratings.iter().map(|(k, v)| (*k, *v)).collect();
        let mut plan = plan_finish(&[&ended], &stored, &excluded);
        let new: Vec<i64> = plan
            .pairs
            .iter()
            .filter(|pair| !out.pairs.contains(pair))
            .map(|pair| pair.0)
            .collect();
        plan.count_new_opponents(new);
        out.pairs.extend(plan.pairs.iter().copied());
        out.ratings
            .extend(plan.ratings.iter().map(|(k, v)| (*k, *v)));
        let rated = plan.rated.first().copied().unwrap_or(false);
        if rated {
            for round in won.get(id.as_str()).into_iter().flatten() {
                out.stats.add_round(round, &excluded);
            }
        }
        for place in &plan.places {
            out.stats.add_place(place, out.ratings.get(&place.player));
        }
        out.places.extend(plan.places);
        out.rated.push((match_id, rated));
    }
    Ok(out)
}
