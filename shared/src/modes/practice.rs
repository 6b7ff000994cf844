//! A practice table: one player, one hand at a time, no clock that counts,
//! nothing recorded, and hints.
//!
//! - **Hands.** Krypto hands under [`RULES`], solvable, in the band of
//!   distinct solutions asked for ([`DifficultyBands`]; `any` takes every
//!   solvable hand). A hand that keeps missing the band after
//!   [`MAX_TRIES`] draws gives way to the first solvable one seen, as a
//!   run's ladder does.
//! - **Hints.** One solution of the hand, chosen when it is dealt
//!   ([`hint_solution`]), taken apart into its steps ([`steps_of`]): each
//!   step combines two numbers (cards, or results of earlier steps) into
//!   one, `8 × 3 = 24`, in the order a person works it out on paper
//!   (left operand's steps first). The first hint is the first step, the
//!   next the next step; the last step makes the objective. Nothing of the
//!   solution leaves the table before a hint is asked for.
//! - **Answers.** Judged by [`judge`], the checker every mode shares; a
//!   wrong answer costs nothing (no penalty, no lockout) and the hand
//!   stays. A right answer shows every distinct solution (the player's own
//!   marked) and deals the next hand; so does a skip, with none marked.
//!
//! No seed is kept and nothing is replayed: practice is never rated, so
//! there is nothing to prove afterwards. The generator is an argument, so
//! tests deal the hands they want.

use std::fmt;

use rand::Rng;
use thiserror::Error;

use super::solutions::marked_solutions;
use super::{judge, Judgement, RULES};
use crate::cards::Deal;
use crate::formula::ast::{Expr, Op};
use crate::protocol::{Difficulty, SolutionEntry, Variant, VerdictError};
use crate::rational::{ArithError, Rational};
use crate::room::DifficultyBands;
use crate::solver::{self, SolveError};

/// Draws tried for a hand in the band asked for before the first solvable
/// one is taken instead.
pub const MAX_TRIES: usize = 500;

/// One step of a solution: two numbers combined into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The left operand: a card or an earlier step's result.
    pub left: Rational,
    /// The operation.
    pub op: Op,
    /// The right operand.
    pub right: Rational,
    /// `left op right`, exactly.
    pub value: Rational,
}

impl fmt::Display for Step {
    /// `8 × 3 = 24`, `7 ÷ 2 = 7/2`, `3 - 5 = -2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} = {}",
            self.left, self.op, self.right, self.value
        )
    }
}

/// The steps of `expr`, in the order they are worked out: a binary node's
/// left operand's steps, then its right operand's, then the node's own.
/// An expression that divides by zero or overflows has no steps.
pub fn steps_of(expr: &Expr) -> Result<Vec<Step>, ArithError> {
    fn walk(expr: &Expr, out: &mut Vec<Step>) -> Result<Rational, ArithError> {
        match expr {
            Expr::Card(v) => Ok(Rational::from_int(*v)),
            Expr::Bin(op, l, r) => {
                let left = walk(l, out)?;
                let right = walk(r, out)?;
                let value = op.apply(left, right)?;
                out.push(Step {
                    left,
                    op: *op,
                    right,
                    value,
                });
                Ok(value)
            }
        }
    }
    let mut out = Vec::new();
    walk(expr, &mut out)?;
    Ok(out)
}

/// The solution hints are taken from, among `solutions` (the solver's
/// distinct solutions, shortest first): the first whose every step stays
/// a whole number, and among those the first that never goes below zero,
/// because those steps are the easiest to follow in one's head; failing
/// that, the first. `None` only for an empty list.
pub fn hint_solution(solutions: &[Expr]) -> Option<&Expr> {
    solutions.iter().min_by_key(|e| match steps_of(e) {
        Ok(steps) => {
            let fraction = steps.iter().any(|s| !s.value.is_integer());
            let negative = steps.iter().any(|s| s.value < Rational::from_int(0));
            (fraction, negative)
        }
        Err(_) => (true, true),
    })
}

/// Why the table refuses a request (the server answers with an `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PracticeError {
    /// Every step of the hint's solution is already shown.
    #[error("every step is shown: the last one makes {objective}")]
    NoMoreHints {
        /// The hand's objective.
        objective: i64,
    },
    /// The answer names another hand than the one on the table.
    #[error("that answer is for hand {given}; the table is on hand {current}")]
    WrongHand {
        /// The hand the answer named.
        given: u32,
        /// The hand being played.
        current: u32,
    },
}

/// A hand at the table, and what is known about it.
#[derive(Debug, Clone)]
pub struct PracticeHand {
    /// Its number at this table (1 for the first).
    pub number: u32,
    /// The hand.
    pub deal: Deal,
    /// The steps of the hint's solution.
    steps: Vec<Step>,
    /// How many steps have been shown.
    shown: usize,
}

impl PracticeHand {
    /// How many steps the hint's solution has (one fewer than the cards).
    pub fn steps(&self) -> u32 {
        u32::try_from(self.steps.len()).unwrap_or(u32::MAX)
    }

    /// How many have been shown.
    pub fn shown(&self) -> u32 {
        u32::try_from(self.shown).unwrap_or(u32::MAX)
    }
}

/// What a judged answer did.
#[derive(Debug, Clone)]
pub enum PracticeOutcome {
    /// Right: every distinct solution, the player's own marked; the next
    /// hand is on the table.
    Solved {
        /// The formula's value, for the `verdict`.
        value: Rational,
        /// The hand solved (with the hints shown on it).
        solved: PracticeHand,
        /// Every distinct solution.
        solutions: Vec<SolutionEntry>,
    },
    /// Wrong, or no attempt at the hand: nothing changes.
    Refused(VerdictError),
}

/// One player's practice table.
#[derive(Debug, Clone)]
pub struct Practice {
    /// The band of the hands dealt.
    difficulty: Difficulty,
    /// The hand on the table.
    hand: PracticeHand,
}

impl Practice {
    /// A table dealing hands of `difficulty`, on its first hand.
    pub fn new<R: Rng + ?Sized>(difficulty: Difficulty, rng: &mut R) -> Practice {
        Practice {
            difficulty,
            hand: deal_hand(1, difficulty, rng),
        }
    }

    /// The band of the hands dealt.
    pub fn difficulty(&self) -> Difficulty {
        self.difficulty
    }

    /// The hand on the table.
    pub fn hand(&self) -> &PracticeHand {
        &self.hand
    }

    /// Shows the next step of the hint's solution.
    pub fn hint(&mut self) -> Result<Step, PracticeError> {
        let step =
            self.hand
                .steps
                .get(self.hand.shown)
                .copied()
                .ok_or(PracticeError::NoMoreHints {
                    objective: self.hand.deal.objective,
                })?;
        self.hand.shown += 1;
        Ok(step)
    }

    /// Judges `formula` as an answer to hand `hand`; when right, deals the
    /// next hand from `rng`.
    pub fn submit<R: Rng + ?Sized>(
        &mut self,
        hand: u32,
        formula: &str,
        rng: &mut R,
    ) -> Result<PracticeOutcome, PracticeError> {
        if hand != self.hand.number {
            return Err(PracticeError::WrongHand {
                given: hand,
                current: self.hand.number,
            });
        }
        match judge(formula, &self.hand.deal, RULES) {
            Judgement::Right { value, .. } => {
                let solved = self.next(rng);
                let solutions = solutions_of(&solved.deal, formula);
                Ok(PracticeOutcome::Solved {
                    value,
                    solved,
                    solutions,
                })
            }
            Judgement::Wrong(error) | Judgement::NotAnAttempt(error) => {
                Ok(PracticeOutcome::Refused(error))
            }
        }
    }

    /// Gives up on the hand on the table: its solutions (none marked), and
    /// the next hand dealt from `rng`. Returns the skipped hand too.
    pub fn skip<R: Rng + ?Sized>(&mut self, rng: &mut R) -> (PracticeHand, Vec<SolutionEntry>) {
        let skipped = self.next(rng);
        let solutions = solutions_of(&skipped.deal, "");
        (skipped, solutions)
    }

    /// Deals the next hand; returns the one it replaces.
    fn next<R: Rng + ?Sized>(&mut self, rng: &mut R) -> PracticeHand {
        let number = self.hand.number.saturating_add(1);
        std::mem::replace(&mut self.hand, deal_hand(number, self.difficulty, rng))
    }
}

/// Every distinct solution of a dealt hand. Dealt hands were solved once
/// already, so the solver cannot fail on them; were it to, the list is
/// empty rather than the table stuck.
fn solutions_of(deal: &Deal, formula: &str) -> Vec<SolutionEntry> {
    marked_solutions(deal, RULES, formula).unwrap_or_default()
}

/// A solvable hand in `difficulty`'s band, with its hint steps.
fn deal_hand<R: Rng + ?Sized>(number: u32, difficulty: Difficulty, rng: &mut R) -> PracticeHand {
    let bands = DifficultyBands::for_variant(Variant::Krypto);
    let mut fallback: Option<(Deal, Vec<Step>)> = None;
    let mut tries = 0;
    loop {
        tries += 1;
        let deal = Deal::krypto(rng);
        let Ok(Some((count, steps))) = solve(&deal) else {
            continue;
        };
        if difficulty == Difficulty::Any || bands.classify(count) == difficulty {
            return PracticeHand {
                number,
                deal,
                steps,
                shown: 0,
            };
        }
        let fallback = fallback.get_or_insert((deal, steps));
        if tries >= MAX_TRIES {
            let (deal, steps) = fallback.clone();
            return PracticeHand {
                number,
                deal,
                steps,
                shown: 0,
            };
        }
    }
}

/// The number of distinct solutions of `deal` and the steps of its hint
/// solution; `None` when it has no solution.
fn solve(deal: &Deal) -> Result<Option<(u64, Vec<Step>)>, SolveError> {
    let all = solver::solve_all(&deal.hand, deal.objective, RULES)?;
    let Some(chosen) = hint_solution(&all) else {
        return Ok(None);
    };
    let steps = steps_of(chosen).map_err(|_| SolveError::Overflow)?;
    Ok(Some((all.len() as u64, steps)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::seeded_rng;
    use crate::formula;

    /// Replays `steps` on the hand's cards: each operand must be a number
    /// still on the table (a card, or an earlier step's result), each
    /// value exact, and the last one the objective.
    fn replay(deal: &Deal, steps: &[Step]) {
        let mut pool: Vec<Rational> = deal.hand.iter().map(|&c| Rational::from_int(c)).collect();
        for step in steps {
            for operand in [step.left, step.right] {
                let at = pool
                    .iter()
                    .position(|&v| v == operand)
                    .unwrap_or_else(|| panic!("{step} uses {operand}, not on the table {pool:?}"));
                pool.remove(at);
            }
            assert_eq!(
                step.op.apply(step.left, step.right),
                Ok(step.value),
                "{step}"
            );
            assert!(RULES.allows(step.value), "{step}");
            pool.push(step.value);
        }
        assert_eq!(pool, vec![Rational::from_int(deal.objective)], "{steps:?}");
    }

    #[test]
    fn a_step_reads_as_written_on_paper() {
        let step = |l, op, r, v| Step {
            left: Rational::from_int(l),
            op,
            right: Rational::from_int(r),
            value: v,
        };
        assert_eq!(
            step(8, Op::Mul, 3, Rational::from_int(24)).to_string(),
            "8 × 3 = 24"
        );
        assert_eq!(
            step(7, Op::Div, 2, Rational::new(7, 2).unwrap()).to_string(),
            "7 ÷ 2 = 7/2"
        );
        assert_eq!(
            step(3, Op::Sub, 5, Rational::from_int(-2)).to_string(),
            "3 - 5 = -2"
        );
    }

    #[test]
    fn steps_go_left_operand_first_and_end_on_the_value() {
        let e = formula::parse("(8 × 3) + (5 - 4) × 2").unwrap().to_expr();
        let steps: Vec<String> = steps_of(&e).unwrap().iter().map(Step::to_string).collect();
        assert_eq!(
            steps,
            ["8 × 3 = 24", "5 - 4 = 1", "1 × 2 = 2", "24 + 2 = 26"]
        );
        assert!(steps_of(&formula::parse("1 ÷ (2 - 2)").unwrap().to_expr()).is_err());
    }

    #[test]
    fn hints_prefer_whole_numbers_then_no_negatives() {
        let parse = |s: &str| formula::parse(s).unwrap().to_expr();
        let list = [
            parse("1 - 3 + 4"),
            parse("3 ÷ 2 × 4 - 4"),
            parse("4 - 3 + 1"),
        ];
        assert_eq!(hint_solution(&list), Some(&list[2]));
        let list = [parse("3 ÷ 2 × 4"), parse("1 - 7 + 12")];
        assert_eq!(hint_solution(&list), Some(&list[1]));
        assert_eq!(hint_solution(&[]), None);
    }

    #[test]
    fn every_hint_is_exact_and_the_last_makes_the_objective() {
        let mut rng = seeded_rng(32);
        for difficulty in [
            Difficulty::Any,
            Difficulty::Easy,
            Difficulty::Medium,
            Difficulty::Hard,
        ] {
            let mut table = Practice::new(difficulty, &mut rng);
            for _ in 0..8 {
                let hand = table.hand().clone();
                assert_eq!(hand.steps(), 4, "five cards, four steps");
                let mut shown = Vec::new();
                while let Ok(step) = table.hint() {
                    shown.push(step);
                    assert_eq!(table.hand().shown() as usize, shown.len());
                }
                assert_eq!(
                    table.hint(),
                    Err(PracticeError::NoMoreHints {
                        objective: hand.deal.objective
                    })
                );
                replay(&hand.deal, &shown);
                table.skip(&mut rng);
            }
        }
    }

    #[test]
    fn hands_are_in_the_band_asked_for() {
        let bands = DifficultyBands::for_variant(Variant::Krypto);
        let mut rng = seeded_rng(7);
        for difficulty in [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard] {
            let mut table = Practice::new(difficulty, &mut rng);
            for _ in 0..5 {
                let deal = table.hand().deal.clone();
                let count = solver::count_solutions(&deal.hand, deal.objective, RULES).unwrap();
                assert_eq!(bands.classify(count as u64), difficulty, "{deal:?}");
                table.skip(&mut rng);
            }
        }
    }

    #[test]
    fn a_right_answer_lists_the_solutions_and_deals_the_next_hand() {
        let mut rng = seeded_rng(1);
        let mut table = Practice::new(Difficulty::Any, &mut rng);
        let hand = table.hand().clone();
        table.hint().unwrap();
        // A wrong answer changes nothing, and costs nothing.
        let wrong = hand
            .deal
            .hand
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(" × 0 + ");
        let refused = table.submit(1, &wrong, &mut rng).unwrap();
        assert!(
            matches!(refused, PracticeOutcome::Refused(_)),
            "{refused:?}"
        );
        assert_eq!(table.hand().number, 1);
        assert!(matches!(
            table.submit(2, "1", &mut rng),
            Err(PracticeError::WrongHand {
                given: 2,
                current: 1
            })
        ));
        let answer = solver::solve_one(&hand.deal.hand, hand.deal.objective, RULES)
            .unwrap()
            .unwrap()
            .to_string();
        match table.submit(1, &answer, &mut rng).unwrap() {
            PracticeOutcome::Solved {
                value,
                solved,
                solutions,
            } => {
                assert_eq!(value, Rational::from_int(hand.deal.objective));
                assert_eq!((solved.number, solved.shown()), (1, 1));
                assert_eq!(solved.deal, hand.deal);
                assert_eq!(solutions.iter().filter(|s| s.yours).count(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(table.hand().number, 2);
        assert_eq!(
            table.hand().shown(),
            0,
            "a new hand starts with no hint shown"
        );
        let (skipped, solutions) = table.skip(&mut rng);
        assert_eq!(skipped.number, 2);
        assert!(!solutions.is_empty());
        assert!(solutions.iter().all(|s| !s.yours));
        assert_eq!(table.hand().number, 3);
    }
}
