//! `krypto bots`: practice opponents. Each bot is a connection (the same
//! reconnecting task as `krypto play`) and a small player that solves every
//! hand with the solver, then waits a human-like time before answering:
//! longer for hands with few distinct solutions, longer for weaker skill.
//! Easy bots sometimes answer wrong first and sit out the lockout like anyone.
//! They stay for match after match until Ctrl-C, and wait for their host:
//! when the room is gone (a server restart) they keep asking for it.
//!
//! A room on another node of the server is followed there (`redirect`),
//! on joining and on resuming, with the same token; a redirect that is not
//! to a WebSocket, or one too many in a row, stops the bot with a sentence.
//!
//! A bot says so in its `hello` (`bot: true`): every roster marks it, and it
//! is never rated. Its name ends in "-bot" so nobody mistakes it for a person.

use std::time::Duration;

use anyhow::Context;
use krypto_client::lines::Lines;
use krypto_client::load::answers::wrong_formula;
use krypto_client::redirect::{self, Follow};
use krypto_client::wait::sleep_until;
use krypto_core::bot_pace;
use krypto_core::protocol::{
    ClientMessage, ErrorCode, PlayerId, RoomPhase, RoundWin, ServerMessage,
};
use krypto_core::settings::{DealMode, RoomSettings, Variant};
use krypto_core::solver;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::cli::{BotsArgs, Skill};
use crate::play::net::NetEvent;
use crate::play::target;

/// Names of famous mathematicians and computer scientists, none longer
/// than 7 characters so that the longest bot name fits the server's 20.
const NAMES: [&str; 16] = [
    "Ada", "Alan", "Grace", "Emmy", "Kurt", "Hedy", "Edsger", "Barbara", "Donald", "Sophie",
    "Carl", "Mary", "John", "Euclid", "Euler", "Hypatia",
];

/// The `n`th candidate name (0-based) of a bot of `skill`: "Ada-medium-bot",
/// ..., then "Ada2-medium-bot". A bot names its skill, so players know what
/// they are up against, and ends in "-bot" so nobody takes it for a person.
pub fn bot_name(n: usize, skill: Skill) -> String {
    let base = NAMES[n % NAMES.len()];
    let skill = skill_word(skill);
    match n / NAMES.len() {
        0 => format!("{base}-{skill}-bot"),
        k => format!("{base}{}-{skill}-bot", k + 1),
    }
}

fn skill_word(skill: Skill) -> &'static str {
    match skill {
        Skill::Easy => "easy",
        Skill::Medium => "medium",
        Skill::Hard => "hard",
    }
}

/// How often a bot asks again for a room that is not there (yet, or any
/// more: the host may be restarting the server).
const ROOM_RETRY: Duration = Duration::from_secs(5);

/// The skill flag's pace in krypto-core's table.
impl From<Skill> for krypto_core::bot_pace::BotSkill {
    fn from(skill: Skill) -> Self {
        match skill {
            Skill::Easy => Self::Easy,
            Skill::Medium => Self::Medium,
            Skill::Hard => Self::Hard,
        }
    }
}

/// How long a bot thinks (the median, before jitter and pace) before
/// answering a hand with `solutions` distinct solutions: krypto-core's
/// `bot_pace`, the table the fair-play tests read too.
pub fn think_time(skill: Skill, variant: Variant, solutions: usize) -> Duration {
    let solutions = u64::try_from(solutions).unwrap_or(u64::MAX);
    Duration::from_millis(bot_pace::think_ms(skill.into(), variant, solutions))
}

/// Runs the bots until Ctrl-C.
pub fn run(args: &BotsArgs) -> anyhow::Result<bool> {
    // The bots' news never waits for a stdout or stderr nobody reads.
    let (out, out_guard) = Lines::stdout();
    let (err, err_guard) = Lines::stderr();
    let played = play(args, out, err);
    out_guard.close();
    err_guard.close();
    played
}

/// The bots, printing to `out` and `err`, until Ctrl-C.
fn play(args: &BotsArgs, out: Lines, err: Lines) -> anyhow::Result<bool> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let code = args.room.trim().to_uppercase();
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
        for i in 0..args.count as usize {
            let config = BotConfig {
                server: args.server.clone(),
                code: code.clone(),
                skill: args.skill,
                pace: args.pace,
                first_name: i,
                stride: args.count as usize,
            };
            let done = done_tx.clone();
            let (out, err) = (out.clone(), err.clone());
            tokio::spawn(async move {
                if let Err(e) = bot(config, &out, &err).await {
                    err.say(format_args!("bot stopped: {e:#}"));
                }
                let _ = done.send(());
            });
        }
        drop(done_tx);
        let mut left = args.count;
        loop {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => return Ok(true),
                d = done_rx.recv() => {
                    left = left.saturating_sub(1);
                    if d.is_none() || left == 0 {
                        // Every bot gave up (room gone, names taken).
                        return Ok(false);
                    }
                }
            }
        }
    })
}

#[derive(Debug, Clone)]
struct BotConfig {
    server: Option<String>,
    code: String,
    skill: Skill,
    pace: u32,
    /// Index of the first name to try.
    first_name: usize,
    /// How far apart this bot's name candidates are (the number of bots),
    /// so bots never compete for the same fallback name.
    stride: usize,
}

/// An answer the bot will send when its thinking time is up.
#[derive(Debug, Clone)]
struct Plan {
    round: u32,
    at: Instant,
    /// The formula, or `None` for a "no solution" claim.
    formula: Option<String>,
    /// The right answer to try after a deliberate blunder.
    then: Option<String>,
}

/// One bot until it leaves or gives up, its news to `out`, its troubles to
/// `err`.
async fn bot(config: BotConfig, out: &Lines, err: &Lines) -> anyhow::Result<()> {
    let mut rng = StdRng::from_os_rng();
    let mut attempt = 0;
    let mut taken = 0;
    while taken < 8 {
        let name = bot_name(config.first_name + attempt * config.stride, config.skill);
        attempt += 1;
        let mut target = target(config.server.as_deref(), Some(&name))?;
        // Another `krypto bots` run from this config directory plays as
        // this name: its token is in our tokens.toml, so logging in would
        // take its seat. Held until this bot stops.
        let Some(_claim) = target.dir.claim(&name)? else {
            continue;
        };
        target.bot = true;
        let (tx, mut rx) = mpsc::channel::<NetEvent>(crate::play::net::QUEUE);
        let net = target.connect(tx);
        let mut me: Option<PlayerId> = None;
        let mut settings = RoomSettings::default();
        let mut plan: Option<Plan> = None;
        let mut last_round = 0u32;
        let mut in_room = false;
        // When to say "ready" to the host's rematch.
        let mut ready_at: Option<Instant> = None;
        // When to ask for the room again after it was not there.
        let mut retry_at: Option<Instant> = None;
        let mut waiting_said = false;
        // The loop guard, and whether we are on our way to another node
        // (so the node we leave cannot send us on twice).
        let mut follow = Follow::default();
        let mut moving = false;
        loop {
            let wake = [plan.as_ref().map(|p| p.at), retry_at, ready_at]
                .into_iter()
                .flatten()
                .min();
            let event = tokio::select! {
                e = rx.recv() => e,
                () = sleep_until(wake) => {
                    let now = Instant::now();
                    if ready_at.is_some_and(|t| t <= now) {
                        ready_at = None;
                        net.send(ClientMessage::Ready);
                    }
                    if retry_at.is_some_and(|t| t <= now) {
                        retry_at = None;
                        net.send(ClientMessage::JoinRoom {
                            code: config.code.clone(),
                            spectator: false,
                        });
                    }
                    if let Some(p) = plan.take_if(|p| p.at <= now) {
                        let message = match &p.formula {
                            Some(f) => ClientMessage::Submit { round: p.round, formula: f.clone() },
                            None => ClientMessage::ClaimNoSolution { round: p.round },
                        };
                        net.send(message);
                        // Keep the right answer for after the lockout.
                        if let Some(next) = p.then {
                            plan = Some(Plan { round: p.round, at: far_future(), formula: Some(next), then: None });
                        }
                    }
                    continue;
                }
            };
            let Some(event) = event else {
                return Ok(());
            };
            let message = match event {
                NetEvent::Refused { code, message } => {
                    if code == ErrorCode::NameTaken {
                        taken += 1;
                        break; // Try the next name.
                    }
                    anyhow::bail!("{name}: the server refused: {message}");
                }
                NetEvent::Replaced { reason } => {
                    anyhow::bail!(
                        "{name}: another connection took this bot's name over ({reason})"
                    );
                }
                NetEvent::Home { reason } => {
                    out.say(format_args!(
                        "{name}: {reason}; going back to {}",
                        target.server
                    ));
                    continue;
                }
                NetEvent::Disconnected { reason, retry_in } => {
                    in_room = false;
                    out.say(format_args!(
                        "{name}: disconnected ({reason}); retrying in {retry_in:.1?}"
                    ));
                    // The plan went with the connection: the room's state on
                    // coming back deals the same round again.
                    plan = None;
                    last_round = 0;
                    retry_at = None;
                    ready_at = None;
                    continue;
                }
                NetEvent::Message { envelope, .. } => envelope.message,
            };
            match message {
                ServerMessage::Welcome {
                    player_id,
                    name: stored,
                    token,
                    resumed,
                    ..
                } => {
                    me = Some(player_id);
                    moving = false;
                    // Without its token, a bot started again comes back as a
                    // new player, its name taken by its old self: say so.
                    if let Err(e) = target.dir.save_token(&target.server, &stored, &token) {
                        err.say(format_args!("{name}: could not save its token ({e}); started again, it will need another name"));
                    }
                    if !resumed {
                        net.send(ClientMessage::JoinRoom {
                            code: config.code.clone(),
                            spectator: false,
                        });
                    }
                }
                ServerMessage::Redirect { url, code, .. } if !moving => {
                    let url = follow.redirect(&url).map_err(|e| {
                        anyhow::anyhow!("{name}: cannot join room {}: {e}", config.code)
                    })?;
                    out.say(format_args!(
                        "{name}: room {} is on another server: moving there",
                        redirect::shown(&code)
                    ));
                    moving = true;
                    in_room = false;
                    plan = None;
                    retry_at = None;
                    net.follow(url);
                }
                ServerMessage::RoomState(s) => {
                    follow.seated();
                    if !in_room {
                        out.say(format_args!("{name} joined room {}", s.code));
                    }
                    in_room = true;
                    waiting_said = false;
                    retry_at = None;
                    settings = s.settings.clone();
                    // A rematch asked while we were away (or joining).
                    ready_at = s
                        .ready_check
                        .as_ref()
                        .filter(|c| me.is_some_and(|me| !c.ready.contains(&me)))
                        .map(|_| Instant::now() + ready_pause(&mut rng, config.pace));
                    if let Some(r) = s.round.filter(|r| {
                        s.state == RoomPhase::Playing
                            && r.remaining_ms > 0
                            && r.number != last_round
                    }) {
                        last_round = r.number;
                        let hand = Hand {
                            round: r.number,
                            objective: r.objective,
                            cards: &r.cards,
                        };
                        plan = think(&config, &mut rng, &settings, hand, Instant::now()).await;
                    }
                }
                ServerMessage::MatchStarted { settings: s, .. } => {
                    settings = s;
                    ready_at = None;
                }
                ServerMessage::ReadyCheck { ready, .. }
                    if me.is_some_and(|me| !ready.contains(&me)) =>
                {
                    ready_at = Some(Instant::now() + ready_pause(&mut rng, config.pace));
                }
                ServerMessage::RoundStarted {
                    round,
                    objective,
                    cards,
                    ..
                } => {
                    last_round = round;
                    let hand = Hand {
                        round,
                        objective,
                        cards: &cards,
                    };
                    plan = think(&config, &mut rng, &settings, hand, Instant::now()).await;
                }
                ServerMessage::Verdict {
                    round,
                    accepted: false,
                    locked_out_ms,
                    ..
                } => {
                    // Sit out the lockout, then a moment more to "fix" it.
                    if let Some(p) = plan.as_mut().filter(|p| p.round == round) {
                        let lock = Duration::from_millis(locked_out_ms.unwrap_or(0));
                        let fix = scaled(Duration::from_millis(1500), config.pace);
                        p.at = Instant::now() + lock + fix;
                    }
                }
                ServerMessage::RoundWon {
                    win: RoundWin { round, winner, .. },
                    ..
                } => {
                    if plan.as_ref().is_some_and(|p| p.round == round) {
                        plan = None;
                    }
                    if Some(winner) == me {
                        out.say(format_args!("{name} won round {round}"));
                    }
                }
                ServerMessage::RoundTimedOut { round, .. }
                    if plan.as_ref().is_some_and(|p| p.round == round) =>
                {
                    plan = None;
                }
                ServerMessage::PlayerLeft { player, .. } if Some(player) == me => {
                    out.say(format_args!("{name} left room {}", config.code));
                    return Ok(());
                }
                ServerMessage::Error { code, message }
                    if !in_room
                        && matches!(
                            code,
                            ErrorCode::RoomNotFound | ErrorCode::RoomFull | ErrorCode::RoomLocked
                        ) =>
                {
                    // Wait for the host rather than give up: the room may
                    // come back (or open up) in a moment.
                    if !waiting_said {
                        out.say(format_args!(
                            "{name}: cannot join room {} ({message}); asking again every {}s until Ctrl-C",
                            config.code,
                            ROOM_RETRY.as_secs()
                        ));
                        waiting_said = true;
                    }
                    retry_at = Some(Instant::now() + ROOM_RETRY);
                }
                _ => {}
            }
        }
    }
    anyhow::bail!("no free bot name found")
}

/// A dealt hand.
#[derive(Debug, Clone, Copy)]
struct Hand<'a> {
    round: u32,
    objective: i64,
    cards: &'a [i64],
}

/// Solves the hand off the async threads and plans the answer, thinking
/// from `seen` (when the hand was dealt).
async fn think(
    config: &BotConfig,
    rng: &mut StdRng,
    settings: &RoomSettings,
    hand: Hand<'_>,
    seen: Instant,
) -> Option<Plan> {
    let Hand {
        round,
        objective,
        cards,
    } = hand;
    let rules = settings.rules;
    let owned = cards.to_vec();
    let solutions =
        tokio::task::spawn_blocking(move || solver::solve_all(&owned, objective, rules))
            .await
            .ok()?
            .ok()?;
    let pause = think_time(config.skill, settings.variant, solutions.len());
    // People are not clocks: ±30 % around the median.
    let jitter = rng.random_range(bot_pace::JITTER_PERCENT);
    let at = seen + scaled(pause * jitter / 100, config.pace);
    if solutions.is_empty() {
        // Only claim when the room allows unsolvable hands.
        return (settings.deal == DealMode::Any).then_some(Plan {
            round,
            at,
            formula: None,
            then: None,
        });
    }
    let pick = solutions[rng.random_range(0..solutions.len())].to_string();
    let blunder = (rng.random_range(0..100u32) < bot_pace::blunder_percent(config.skill.into()))
        .then(|| wrong_formula(cards, objective, rules))
        .flatten();
    Some(match blunder {
        Some(wrong) => Plan {
            round,
            at,
            formula: Some(wrong),
            then: Some(pick),
        },
        None => Plan {
            round,
            at,
            formula: Some(pick),
            then: None,
        },
    })
}

/// How long a bot takes to say "ready" to a rematch: a person's glance at
/// the screen, 1 to 3 s, at `pace` percent.
fn ready_pause(rng: &mut StdRng, pace: u32) -> Duration {
    scaled(Duration::from_millis(rng.random_range(1000..=3000)), pace)
}

/// `d` at `pace` percent.
fn scaled(d: Duration, pace: u32) -> Duration {
    d * pace / 100
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(24 * 3600)
}

#[cfg(test)]
mod tests {
    use super::*;
    use krypto_core::{formula, Rules};

    const SKILLS: [Skill; 3] = [Skill::Easy, Skill::Medium, Skill::Hard];

    #[test]
    fn names_are_unique_short_enough_and_name_the_skill() {
        for skill in SKILLS {
            let names: Vec<String> = (0..100).map(|n| bot_name(n, skill)).collect();
            let mut sorted = names.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len());
            // The server's own rule, and no one reads them as a person.
            for n in &names {
                assert!(krypto_core::names::validate(n).is_ok(), "{n}");
                assert!(n.ends_with(&format!("-{}-bot", skill_word(skill))), "{n}");
            }
        }
        assert_eq!(bot_name(0, Skill::Medium), "Ada-medium-bot");
        assert_eq!(bot_name(16, Skill::Hard), "Ada2-hard-bot");
    }

    /// Distinct solutions of a typical Krypto hand: the middle of the
    /// medium band (15–30), where the median deal falls.
    const TYPICAL: usize = 22;

    #[test]
    fn a_medium_bot_takes_a_casual_players_time_on_a_typical_hand() {
        let typical = think_time(Skill::Medium, Variant::Krypto, TYPICAL);
        assert!(
            (Duration::from_secs(25)..=Duration::from_secs(45)).contains(&typical),
            "{typical:?}"
        );
        // Faster on easy hands, slower on hard ones and "no solution".
        assert!(think_time(Skill::Medium, Variant::Krypto, 60) < typical);
        assert!(think_time(Skill::Medium, Variant::Krypto, 5) > typical);
        assert!(
            think_time(Skill::Medium, Variant::Krypto, 0)
                > think_time(Skill::Medium, Variant::Krypto, 1)
        );
        // The 24 game's bands: 1 solution is hard, 4 or more easy.
        assert!(
            think_time(Skill::Medium, Variant::TwentyFour, 1)
                > think_time(Skill::Medium, Variant::TwentyFour, 4)
        );
    }

    #[test]
    fn thinking_is_longer_for_harder_hands_and_weaker_skill() {
        for skill in SKILLS {
            assert!(think_time(skill, Variant::Krypto, 2) > think_time(skill, Variant::Krypto, 20));
            assert!(
                think_time(skill, Variant::Krypto, 20) > think_time(skill, Variant::Krypto, 200)
            );
        }
        for solutions in [0, 2, TYPICAL, 200] {
            let [easy, medium, hard] = SKILLS.map(|s| think_time(s, Variant::Krypto, solutions));
            assert!(easy > medium && medium > hard, "{solutions}");
        }
    }

    #[tokio::test]
    async fn a_plan_is_within_thirty_percent_of_the_median_and_centred_on_it() {
        let settings = RoomSettings::default();
        let seen = Instant::now();
        // 1 2 3 4 5 → 15 has many ways: an easy hand.
        let median = think_time(Skill::Medium, Variant::Krypto, 100);
        let mut pauses = Vec::new();
        for seed in 0..101 {
            let mut rng = StdRng::seed_from_u64(seed);
            let plan = think(&config(Skill::Medium), &mut rng, &settings, HAND, seen)
                .await
                .unwrap();
            let pause = plan.at - seen;
            assert!(
                pause >= median * 7 / 10 && pause <= median * 13 / 10,
                "{pause:?}"
            );
            pauses.push(pause);
        }
        pauses.sort();
        let middle = pauses[50];
        assert!(
            middle >= median * 9 / 10 && middle <= median * 11 / 10,
            "{middle:?}"
        );
        // --pace scales it.
        let mut rng = StdRng::seed_from_u64(1);
        let mut fast = config(Skill::Medium);
        fast.pace = 1;
        let plan = think(&fast, &mut rng, &settings, HAND, seen).await.unwrap();
        assert!(plan.at - seen <= median * 13 / 1000);
    }

    const HAND: Hand<'static> = Hand {
        round: 1,
        objective: 15,
        cards: &[1, 2, 3, 4, 5],
    };

    fn config(skill: Skill) -> BotConfig {
        BotConfig {
            server: None,
            code: "ABCDE".into(),
            skill,
            pace: 100,
            first_name: 0,
            stride: 1,
        }
    }

    #[tokio::test]
    async fn easy_bots_sometimes_blunder_first_and_hard_ones_never() {
        let settings = RoomSettings::default();
        let mut blunders = [0u32; 2];
        for (i, skill) in [Skill::Easy, Skill::Hard].into_iter().enumerate() {
            for seed in 0..40 {
                let mut rng = StdRng::seed_from_u64(seed);
                let plan = think(&config(skill), &mut rng, &settings, HAND, Instant::now())
                    .await
                    .unwrap();
                let answer = plan.then.as_ref().or(plan.formula.as_ref()).unwrap();
                // Whatever comes first, the answer it ends with is right.
                assert!(formula::check(answer, &[1, 2, 3, 4, 5], 15, Rules::Free).is_ok());
                if plan.then.is_some() {
                    blunders[i] += 1;
                    let wrong = plan.formula.as_ref().unwrap();
                    assert!(formula::check(wrong, &[1, 2, 3, 4, 5], 15, Rules::Free).is_err());
                }
            }
        }
        assert!(blunders[0] > 0, "an easy bot never blundered in 40 hands");
        assert_eq!(blunders[1], 0);
    }

    #[tokio::test]
    async fn an_unsolvable_hand_is_claimed_only_when_the_room_deals_any() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut settings = RoomSettings::default();
        // 1 1 1 1 1 cannot make 100.
        let hopeless = Hand {
            round: 2,
            objective: 100,
            cards: &[1, 1, 1, 1, 1],
        };
        let hard = config(Skill::Hard);
        let mut think_hopeless = async |settings: &RoomSettings| {
            think(&hard, &mut rng, settings, hopeless, Instant::now()).await
        };
        assert!(think_hopeless(&settings).await.is_none());
        settings.deal = DealMode::Any;
        let claim = think_hopeless(&settings).await.unwrap();
        assert_eq!(claim.formula, None);
        assert_eq!(claim.round, 2);
    }

    #[test]
    fn the_wrong_answer_is_really_wrong() {
        let cards = [1, 2, 3, 4, 5];
        let f = wrong_formula(&cards, 15 + 1, Rules::Free).unwrap_or_default();
        assert!(formula::check(&f, &cards, 16, Rules::Free).is_err());
        // When the sum is right, the product is offered instead.
        let f = wrong_formula(&cards, 15, Rules::Free).unwrap_or_default();
        assert_eq!(f, "1 * 2 * 3 * 4 * 5");
    }
}
