//! The `everyone` scoring: each right answer within the time scores by its
//! order (3, 2, 1, then 1 each), the round goes on until every seated
//! player has solved it or the time runs out, and the standings break ties
//! by the total time of right answers. `first` keeps today's rule.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use proptest::prelude::*;
use room_support::*;

fn everyone(rounds: u32) -> Room {
    playing_easy_with(|s| {
        s.scoring = Scoring::Everyone;
        s.rounds = rounds;
    })
}

fn scores(r: &Room) -> Vec<(PlayerId, i64)> {
    r.snapshot_for(ADA, 0)
        .players
        .iter()
        .map(|p| (p.id, p.score))
        .collect()
}

#[test]
fn every_right_answer_scores_by_its_order_and_the_round_goes_on() {
    let mut r = everyone(2);
    let fx = r.submit(BOB, 1, RIGHT, R1 + 1_000).unwrap();
    assert!(verdict(&fx, BOB).0);
    assert!(sent_to(&fx, &r, CY).iter().any(|m| matches!(
        m,
        ServerMessage::Solved {
            round: 1,
            player: BOB,
            points: 3,
            score: 3,
            elapsed_ms: 1_000
        }
    )));
    assert!(
        !fx.messages
            .iter()
            .any(|o| matches!(o.message, ServerMessage::RoundWon { .. })),
        "the round goes on"
    );
    assert_eq!(r.phase(), RoomPhase::Playing);
    // Solving twice is refused; the others still play.
    assert_eq!(
        error_code(r.submit(BOB, 1, RIGHT, R1 + 1_500)),
        ErrorCode::WrongState
    );
    r.submit(ADA, 1, RIGHT, R1 + 2_000).unwrap();
    // The last seated player solves: the round ends, won by the first.
    let fx = r.submit(CY, 1, RIGHT, R1 + 3_000).unwrap();
    let (won, _) = round_won(&fx).expect("the round ends once everyone solved it");
    assert_eq!((won.winner, won.elapsed_ms, won.points), (BOB, 1_000, 3));
    assert!(fx
        .events
        .iter()
        .any(|e| matches!(e, RoomEvent::RoundWon(w) if w.winner == BOB)));
    assert_eq!(scores(&r), vec![(ADA, 2), (BOB, 3), (CY, 1)]);
    assert_eq!(r.phase(), RoomPhase::BetweenRounds);
}

#[test]
fn the_last_one_still_solving_leaving_ends_the_round_at_once() {
    let mut r = everyone(2);
    r.submit(BOB, 1, RIGHT, R1 + 1_000).unwrap();
    r.submit(ADA, 1, RIGHT, R1 + 2_000).unwrap();
    let fx = r.leave(CY, R1 + 3_000).unwrap();
    let won = round_won(&fx).map(|(win, _)| win.winner);
    assert_eq!(won, Some(BOB), "the round waited for its timer");
    assert_eq!(r.phase(), RoomPhase::BetweenRounds);
}

#[test]
fn time_running_out_ends_a_round_someone_solved_as_won_by_the_first() {
    let mut r = everyone(1);
    r.submit(CY, 1, RIGHT, R1 + 5_000).unwrap();
    let fx = r.tick(R1 + 90_000);
    let won = round_won(&fx).map(|(win, _)| win.winner);
    assert_eq!(won, Some(CY));
    let result = match_result(&fx);
    assert_eq!(result.standings[0].player, CY);
    assert_eq!(result.standings[0].score, 3);
}

#[test]
fn a_round_nobody_solves_times_out_as_before() {
    let mut r = everyone(1);
    let fx = r.tick(R1 + 90_000);
    assert!(fx
        .messages
        .iter()
        .any(|o| matches!(o.message, ServerMessage::RoundTimedOut { round: 1, .. })));
}

#[test]
fn ties_in_points_are_broken_by_the_total_time_of_right_answers() {
    // Round 1: Bob 3 (1 s), Ada 2 (2 s), Cy 1 (8 s); round 2: Cy 3 (1 s),
    // Ada 2 (3 s), Bob 1 (9 s): all on 4 points.
    let mut r = everyone(2);
    r.submit(BOB, 1, RIGHT, R1 + 1_000).unwrap();
    r.submit(ADA, 1, RIGHT, R1 + 2_000).unwrap();
    r.submit(CY, 1, RIGHT, R1 + 8_000).unwrap();
    let r2 = R1 + 8_000 + BETWEEN_ROUNDS_MS;
    r.tick(r2);
    r.submit(CY, 2, RIGHT, r2 + 1_000).unwrap();
    r.submit(ADA, 2, RIGHT, r2 + 3_000).unwrap();
    let fx = r.submit(BOB, 2, RIGHT, r2 + 9_000).unwrap();
    let result = match_result(&fx);
    let order: Vec<(PlayerId, i64, u32)> = result
        .standings
        .iter()
        .map(|s| (s.player, s.score, s.rank))
        .collect();
    // Ada 5 s, Cy 9 s, Bob 10 s.
    assert_eq!(order, vec![(ADA, 4, 1), (CY, 4, 2), (BOB, 4, 3)]);
    // The standings carry the time that broke the tie, for everyone to see.
    let times: Vec<Option<u64>> = result.standings.iter().map(|s| s.solve_ms).collect();
    assert_eq!(times, vec![Some(5_000), Some(9_000), Some(10_000)]);
    let over = fx
        .messages
        .iter()
        .find_map(|o| match &o.message {
            ServerMessage::MatchOver { standings, .. } => Some(standings.clone()),
            _ => None,
        })
        .expect("match_over sent");
    assert_eq!(over, result.standings);
}

#[test]
fn first_scoring_keeps_one_point_for_the_first_and_shared_ranks() {
    let mut r = playing_easy_with(|s| s.rounds = 1);
    let fx = r.submit(BOB, 1, RIGHT, R1 + 1_000).unwrap();
    let result = match_result(&fx);
    assert_eq!(result.standings[0].score, 1);
    assert_eq!((result.standings[1].rank, result.standings[2].rank), (2, 2));
    // No tiebreak, so no time: absent from the wire.
    assert!(result.standings.iter().all(|s| s.solve_ms.is_none()));
}

proptest! {
    /// Whatever the order and the times of the right answers, each scores
    /// its order's points, and the standings are ordered by points, then
    /// by total time, ranks shared only by exact equals.
    #[test]
    fn points_follow_the_order_and_ranks_the_points_then_the_time(
        order in Just(vec![ADA, BOB, CY]).prop_shuffle(),
        solvers in 0usize..=3,
        gaps in proptest::collection::vec(1u64..5_000, 3),
    ) {
        let mut r = everyone(1);
        let mut now = R1;
        let mut times = std::collections::HashMap::new();
        let mut last = Effects::default();
        for (i, &p) in order.iter().take(solvers).enumerate() {
            now += gaps[i];
            times.insert(p, now - R1);
            last = r.submit(p, 1, RIGHT, now).unwrap();
            prop_assert_eq!(
                scores(&r).iter().find(|(q, _)| *q == p).map(|(_, s)| *s),
                Some(everyone_points(i))
            );
        }
        if solvers < 3 {
            last = r.tick(R1 + 90_000);
        }
        let result = match_result(&last);
        let key = |p: PlayerId, score: i64| (std::cmp::Reverse(score), times.get(&p).copied().unwrap_or(0));
        for pair in result.standings.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            prop_assert!(key(a.player, a.score) <= key(b.player, b.score));
            prop_assert_eq!(a.rank == b.rank, key(a.player, a.score) == key(b.player, b.score));
        }
    }
}
