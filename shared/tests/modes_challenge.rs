//! Challenges: codes as links carry them, a challenge taken on the daily's
//! clock, and two results side by side.

#![allow(clippy::unwrap_used)]

use krypto_core::cards::{seeded_rng, Deal};
use krypto_core::modes::challenge::{compare, Challenge, ChallengeCode, CODE_LEN};
use krypto_core::modes::clock::Attempt;
use krypto_core::modes::PENALTY_MS;
use krypto_core::protocol::{ChallengeOutcome, Timed};
use krypto_core::Rules;

fn timed(elapsed_ms: u64, misses: u32) -> Timed {
    Timed { elapsed_ms, misses }
}

#[test]
fn codes_are_short_unambiguous_and_read_in_any_case() {
    let mut rng = seeded_rng(1);
    let codes: Vec<ChallengeCode> = (0..50).map(|_| ChallengeCode::random(&mut rng)).collect();
    for code in &codes {
        assert_eq!(code.as_str().len(), CODE_LEN);
        assert!(!code.as_str().contains(['0', 'O', '1', 'I', 'L']), "{code}");
        assert_eq!(
            code.as_str()
                .to_lowercase()
                .parse::<ChallengeCode>()
                .as_ref(),
            Ok(code)
        );
    }
    assert!(codes.iter().skip(1).any(|c| *c != codes[0]));
    assert_eq!(
        " k7qxm2pd ".parse::<ChallengeCode>().unwrap().as_str(),
        "K7QXM2PD"
    );
    for bad in [
        "",
        "K7QXM2P",
        "K7QXM2PDD",
        "K7QXM2P0",
        "K7QXM2PÉ",
        "../../x",
        "K7QX M2P",
    ] {
        assert!(bad.parse::<ChallengeCode>().is_err(), "{bad:?}");
    }
    // On the wire: a string, refused at parse when it is no code.
    assert_eq!(
        serde_json::from_value::<ChallengeCode>(serde_json::json!("k7qxm2pd")).unwrap(),
        "K7QXM2PD".parse::<ChallengeCode>().unwrap()
    );
    assert!(serde_json::from_value::<ChallengeCode>(serde_json::json!("K7QXM2P0")).is_err());
}

#[test]
fn the_lower_time_wins_penalties_included() {
    assert_eq!(
        compare(timed(41_000, 0), timed(42_000, 0)),
        ChallengeOutcome::Won
    );
    assert_eq!(
        compare(timed(52_000, 1), timed(42_000, 0)),
        ChallengeOutcome::Lost
    );
    assert_eq!(
        compare(timed(42_000, 1), timed(42_000, 0)),
        ChallengeOutcome::Tied
    );
}

#[test]
fn a_challenge_is_timed_like_the_daily() {
    let challenge = Challenge {
        deal: Deal {
            objective: 10,
            hand: vec![1, 2, 3, 4, 5],
        },
        rules: Rules::Integer,
        to_beat: timed(42_000, 0),
    };
    let sent = 5_000_000;
    let mut mine = Attempt::start(sent);
    let deal = &challenge.deal;
    assert!(!mine
        .answer(deal, challenge.rules, "1+2+3+4+5", sent + 10_000)
        .unwrap()
        .is_right());
    // Opened again in another tab: the same clock; a typo (3 twice) costs
    // nothing.
    let mut mine = Attempt::resume(Some(mine), sent + 20_000);
    assert!(mine
        .answer(deal, challenge.rules, "5*4/2/1+3-3", sent + 25_000)
        .is_ok_and(|j| !j.is_right()));
    assert!(mine
        .answer(deal, challenge.rules, "(5+4+3-2)*1", sent + 31_000)
        .unwrap()
        .is_right());
    let result = mine.result().unwrap();
    assert_eq!(result, timed(31_000 + PENALTY_MS, 1));
    assert_eq!(compare(result, challenge.to_beat), ChallengeOutcome::Won);
    // Stored as it is.
    let text = serde_json::to_string(&challenge).unwrap();
    assert_eq!(serde_json::from_str::<Challenge>(&text).unwrap(), challenge);
}
