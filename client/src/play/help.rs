//! The help text: every screen's keys and the `/commands`, in lines of at
//! most [`HELP_WIDTH`] columns (the overlay's width, and line mode's `/help`).
//! Its example is a real hand and a right answer, checked by a test.

/// The widest help line, in columns.
pub const HELP_WIDTH: usize = 60;

/// The example's hand.
pub const EXAMPLE_CARDS: [i64; 5] = [8, 19, 14, 2, 21];
/// The example's goal.
pub const EXAMPLE_GOAL: i64 = 17;
/// A right answer for the example.
pub const EXAMPLE_FORMULA: &str = "21 + 14 / 2 + 8 - 19";

/// What the game is, with the example.
pub fn rules() -> [String; 4] {
    let cards: Vec<String> = EXAMPLE_CARDS.iter().map(i64::to_string).collect();
    [
        "Make the goal from all the cards, each used once, with".to_owned(),
        "+ - × ÷ and parentheses. The first right answer wins.".to_owned(),
        format!(
            "Cards {}, goal {EXAMPLE_GOAL}: {EXAMPLE_FORMULA}",
            cards.join(" ")
        ),
        "A wrong value locks you out for a few seconds.".to_owned(),
    ]
}

/// Each screen's keys: (screen, lines). "Always" lists only keys that work
/// on every screen, in a round too, where letters go into the formula.
pub const KEYS: [(&str, &[&str]); 7] = [
    (
        "Lobby",
        &[
            "↑↓ pick · Enter join · s watch · j/w join/watch code",
            "c create · p public · r refresh · n more rooms",
        ],
    ),
    (
        "Room",
        &[
            "c chat · x leave · r ready · host: s start · o lock",
            "↑↓ pick a setting · ←→ change it",
        ],
    ),
    (
        "Round",
        &[
            "type a formula (x for ×) · Enter submit · Esc clear",
            "Tab chat · /command Enter · letters go to the formula",
        ],
    ),
    ("Podium", &["s rematch (host) · r ready · Enter/Esc back"]),
    ("Board", &["m metric · p period · r refresh · Esc close"]),
    ("Menus", &["? help · l board · / command · q quit"]),
    (
        "Always",
        &["F1 help · F2 board · Alt-1…6 react · Ctrl-C quit"],
    ),
];

/// The `/commands`.
pub const COMMANDS: [&str; 5] = [
    "/create [public] · /join CODE · /spectate CODE · /rooms",
    "/start · /set key=value · /lock · /unlock · /leave · /quit",
    "/kick NAME · /host NAME · /chat TEXT · /react 🎉 · /ready",
    "/bot add easy|medium|hard · /bot remove NAME · /revoke N",
    "/nosolution · /devices · /challenge · /leaderboard [wins…]",
];

/// The help for line mode (`--plain`): no keys, only what to type.
pub fn plain_lines() -> Vec<String> {
    let mut out: Vec<String> = rules().into();
    out.push(String::new());
    out.push("Type a formula and press Enter to answer the round.".to_owned());
    out.extend(COMMANDS.iter().map(|l| (*l).to_owned()));
    out
}

/// The whole help as lines (screen names in a 7-column margin).
pub fn lines() -> Vec<String> {
    let mut out: Vec<String> = rules().into();
    out.push(String::new());
    for (screen, keys) in KEYS {
        for (i, k) in keys.iter().enumerate() {
            let label = if i == 0 { screen } else { "" };
            out.push(format!("{label:<7}{k}"));
        }
    }
    out.push(String::new());
    out.extend(COMMANDS.iter().map(|l| (*l).to_owned()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use krypto_core::{formula, Rules};

    #[test]
    fn the_example_is_right_for_its_hand() {
        assert!(formula::check(EXAMPLE_FORMULA, &EXAMPLE_CARDS, EXAMPLE_GOAL, Rules::Free).is_ok());
        // The shown line is the checked one.
        assert_eq!(
            rules()[2],
            "Cards 8 19 14 2 21, goal 17: 21 + 14 / 2 + 8 - 19"
        );
    }

    #[test]
    fn every_screen_is_covered_within_sixty_columns() {
        let all = lines();
        for l in &all {
            assert!(
                l.chars().count() <= HELP_WIDTH,
                "{l:?} is wider than {HELP_WIDTH}"
            );
        }
        for screen in [
            "Lobby", "Room", "Round", "Podium", "Board", "Menus", "Always",
        ] {
            assert!(all.iter().any(|l| l.starts_with(screen)), "{screen}");
        }
        let text = all.join("\n");
        for key in ["/nosolution", "Esc", "Enter", "/leaderboard", "rematch"] {
            assert!(text.contains(key), "{key}");
        }
    }

    #[test]
    fn line_mode_help_has_no_keys() {
        let text = plain_lines().join("\n");
        for key in ["F1", "Esc", "↑↓", "Tab", "Ctrl-C"] {
            assert!(!text.contains(key), "{key} in {text}");
        }
        assert!(text.contains("/leaderboard") && text.contains("/quit"));
    }
}
