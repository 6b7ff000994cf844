//! How the server's bots seated in a room play, inside the room's task:
//! no socket, no task of their own. When a hand is dealt the room solves it
//! once off the async threads (every distinct solution, as `krypto solve
//! --all`); each bot then plans its answer with `krypto_core::bot_pace`
//! (its skill's time for the hand, sometimes a wrong formula first) at a
//! moment of room time, and the task wakes at the earliest plan as it
//! wakes at the room's own deadlines. Room time is the room's clock, so a
//! test's manual clock drives the bots as it drives the rounds.
//!
//! A bot sits out a lockout like anyone (its `verdict` tells it how long)
//! and is always ready for a rematch (the room sees to that).

use krypto_core::bot_pace::{self, BotSkill};
use krypto_core::protocol::{ClientMessage, PlayerId, RoomSettings, ServerMessage};
use krypto_core::room::{Effects, Recipient, RoomEvent};
use krypto_core::solver;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

/// How long after its lockout ends a bot sends its right answer, in room
/// milliseconds: a person's moment to fix a slip.
const FIX_MS: u64 = 1_500;

/// Solved hands on their way back to the room task: one per deal at most.
pub(super) const SOLVED_QUEUE: usize = 4;

/// A server bot seated in the room, as a stopping server saves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SeatedBot {
    pub(super) id: PlayerId,
    pub(super) skill: BotSkill,
}

/// A dealt hand the bots are to answer.
#[derive(Debug, Clone)]
pub(super) struct Hand {
    round: u32,
    /// Room time of the deal.
    dealt_at: u64,
    cards: Vec<i64>,
    objective: i64,
    settings: RoomSettings,
}

/// A hand with its distinct solutions (`None`: the solver failed on it,
/// and the bots let the round pass).
#[derive(Debug)]
pub(super) struct Solved {
    hand: Hand,
    solutions: Option<Vec<String>>,
}

/// What one bot will send, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    bot: PlayerId,
    round: u32,
    /// Room time to send it; `u64::MAX` while it waits for its verdict.
    at: u64,
    /// A formula, or `None` for "no solution".
    formula: Option<String>,
    /// The right answer after a wrong first one.
    then: Option<String>,
}

/// The server's bots of one room and their plans.
#[derive(Debug)]
pub(super) struct RoomBots {
    seated: Vec<SeatedBot>,
    plans: Vec<Plan>,
    rng: StdRng,
    /// Where solved hands go (the room task reads them).
    solved: mpsc::Sender<Solved>,
}

impl RoomBots {
    /// No bots yet; solved hands are sent to `solved`.
    pub(super) fn new(solved: mpsc::Sender<Solved>) -> Self {
        RoomBots {
            seated: Vec::new(),
            plans: Vec::new(),
            rng: StdRng::from_os_rng(),
            solved,
        }
    }

    /// The bots seated, for saving.
    pub(super) fn seated(&self) -> &[SeatedBot] {
        &self.seated
    }

    /// Whether `id` is one of this room's server bots.
    pub(super) fn is_seated(&self, id: PlayerId) -> bool {
        self.seated.iter().any(|b| b.id == id)
    }

    /// `bot` was seated.
    pub(super) fn seat(&mut self, bot: SeatedBot) {
        if !self.is_seated(bot.id) {
            self.seated.push(bot);
        }
    }

    /// Reads the room's effects (before they are recorded): a deal makes
    /// the bots think (the hand is solved off the async threads), a round's
    /// end drops their plans, a wrong answer's verdict sets the right one
    /// after the lockout, a removal forgets the bot. `now` is the room time
    /// they happened at; `settings` the room's.
    pub(super) fn observe(&mut self, fx: &Effects, now: u64, settings: &RoomSettings) {
        for player in &fx.removed {
            self.seated.retain(|b| b.id != *player);
            self.plans.retain(|p| p.bot != *player);
        }
        for out in &fx.messages {
            let (
                Recipient::Player(bot),
                ServerMessage::Verdict {
                    round,
                    accepted: false,
                    locked_out_ms,
                    ..
                },
            ) = (&out.to, &out.message)
            else {
                continue;
            };
            for plan in &mut self.plans {
                if plan.bot == *bot && plan.round == *round && plan.at == u64::MAX {
                    plan.at = now
                        .saturating_add(locked_out_ms.unwrap_or(0))
                        .saturating_add(FIX_MS);
                }
            }
        }
        for event in &fx.events {
            match event {
                RoomEvent::RoundStarted {
                    round,
                    objective,
                    cards,
                } => {
                    self.plans.clear();
                    if !self.seated.is_empty() {
                        self.solve(Hand {
                            round: *round,
                            dealt_at: now,
                            cards: cards.clone(),
                            objective: *objective,
                            settings: settings.clone(),
                        });
                    }
                }
                RoomEvent::RoundWon(_)
                | RoomEvent::RoundTimedOut { .. }
                | RoomEvent::MatchFinished(_)
                | RoomEvent::MatchAbandoned => self.plans.clear(),
                RoomEvent::MatchStarted { .. } | RoomEvent::Attempt { .. } => {}
            }
        }
    }

    /// Solves `hand` on the blocking threads; the result comes back
    /// through the room task's queue.
    fn solve(&self, hand: Hand) {
        let solved = self.solved.clone();
        tokio::task::spawn_blocking(move || {
            let solutions = solver::solve_all(&hand.cards, hand.objective, hand.settings.rules)
                .ok()
                .map(|all| all.iter().map(ToString::to_string).collect());
            // The room may have closed meanwhile: nobody needs the answer.
            let _ = solved.try_send(Solved { hand, solutions });
        });
    }

    /// The hand is solved: each bot plans its answer, timed from the deal.
    /// `round` is the round being played now: an older hand is dropped.
    pub(super) fn solved(&mut self, solved: Solved, round: Option<u32>) {
        let Solved { hand, solutions } = solved;
        let Some(solutions) = solutions else {
            tracing::warn!(round = hand.round, "bots skip a hand the solver failed on");
            return;
        };
        if round != Some(hand.round) {
            return;
        }
        for bot in &self.seated {
            let answer = bot_pace::answer(
                bot.skill,
                &hand.settings,
                &hand.cards,
                hand.objective,
                &solutions,
                &mut self.rng,
            );
            if let Some(answer) = answer {
                self.plans.push(Plan {
                    bot: bot.id,
                    round: hand.round,
                    at: hand.dealt_at.saturating_add(answer.after_ms),
                    formula: answer.first,
                    then: answer.then,
                });
            }
        }
    }

    /// Room time of the next answer a bot sends.
    pub(super) fn next_at(&self) -> Option<u64> {
        self.plans
            .iter()
            .map(|p| p.at)
            .filter(|&at| at != u64::MAX)
            .min()
    }

    /// The earliest answer due by `now`: the bot, its message and the room
    /// time it was planned for. A wrong first answer leaves the right one
    /// waiting for its verdict.
    pub(super) fn take_due(&mut self, now: u64) -> Option<(PlayerId, ClientMessage, u64)> {
        let i = self
            .plans
            .iter()
            .enumerate()
            .filter(|(_, p)| p.at <= now)
            .min_by_key(|(_, p)| p.at)
            .map(|(i, _)| i)?;
        let plan = self.plans.remove(i);
        let message = match &plan.formula {
            Some(formula) => ClientMessage::Submit {
                round: plan.round,
                formula: formula.clone(),
            },
            None => ClientMessage::ClaimNoSolution { round: plan.round },
        };
        if let Some(then) = plan.then {
            self.plans.push(Plan {
                bot: plan.bot,
                round: plan.round,
                at: u64::MAX,
                formula: Some(then),
                then: None,
            });
        }
        Some((plan.bot, message, plan.at))
    }
}
