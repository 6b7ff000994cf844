//! `leaderboard`: a page of a board, served from the copy in memory.

use krypto_core::protocol::{ErrorCode, Metric, Period, ServerMessage};

use super::Session;
use crate::db::DbError;
use crate::scores::leaderboard::{self, BoardError, BoardQuery};

impl Session {
    /// Answers `leaderboard`. Over the WebSocket a limit out of range is
    /// brought into range (the protocol says the server caps it).
    pub(super) async fn leaderboard(
        &mut self,
        id: Option<String>,
        metric: Option<Metric>,
        period: Option<Period>,
        limit: Option<u32>,
        around: Option<String>,
    ) {
        let around = around.filter(|a| !a.trim().is_empty());
        if let Some(Err(e)) = around.as_deref().map(krypto_core::text::check) {
            return self.error(id, ErrorCode::BadMessage, format!("around refused: {e}"));
        }
        let query = BoardQuery {
            metric: metric.unwrap_or_default(),
            period: period.unwrap_or_default(),
            limit: limit
                .unwrap_or(leaderboard::DEFAULT_LIMIT)
                .clamp(1, leaderboard::MAX_LIMIT),
            around,
        };
        // Read within the database deadline, as every read is: a database
        // that does not answer is said so rather than waited on.
        let deadline = self.shared.config.database_deadline;
        let answer = tokio::time::timeout(
            deadline,
            self.shared.boards.board(
                &self.shared.db,
                &query,
                self.shared.config.ranking(),
                crate::scores::periods::now_ms(),
                self.shared.recorder.commits(),
            ),
        )
        .await
        .unwrap_or(Err(BoardError::Db(DbError::Timeout(deadline))));
        match answer {
            Ok(board) => self.reply(
                id,
                ServerMessage::Leaderboard {
                    metric: board.metric,
                    period: board.period,
                    rows: board.rows,
                },
            ),
            Err(e @ BoardError::PlayerNotFound(_)) => {
                self.error(id, ErrorCode::PlayerNotFound, e.to_string())
            }
            Err(BoardError::Db(e)) if e.is_unavailable() => {
                tracing::warn!(error = %e, "leaderboard unreadable: the database is away");
                self.error(
                    id,
                    ErrorCode::Internal,
                    "the leaderboard cannot be read right now (the database does not answer); \
                     try again in a moment",
                )
            }
            Err(BoardError::Db(e)) => {
                tracing::error!(error = %e, "leaderboard failed");
                self.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not read the leaderboard; try again",
                )
            }
        }
    }
}
