//! Times whole-variant censuses once each (they take about a second, too
//! long for criterion's repeated sampling): `cargo bench -p krypto-core --bench census`.
//! An argument filters by name, e.g. `-- countdown`.

use std::time::Instant;

use krypto_core::solver::census::{run, CensusConfig, DeckMode, Variant};
use krypto_core::Rules;

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut configs: Vec<(String, CensusConfig)> = Vec::new();
    for rules in [Rules::Integer, Rules::International, Rules::Free] {
        configs.push((
            format!("krypto unbounded {rules}"),
            CensusConfig {
                rules,
                ..CensusConfig::defaults(Variant::Krypto)
            },
        ));
    }
    configs.push((
        "krypto deck free".into(),
        CensusConfig {
            deck: DeckMode::Krypto,
            ..CensusConfig::defaults(Variant::Krypto)
        },
    ));
    configs.push((
        "24 unbounded free".into(),
        CensusConfig::defaults(Variant::TwentyFour),
    ));
    configs.push((
        "countdown positive".into(),
        CensusConfig::defaults(Variant::Countdown),
    ));
    for (name, cfg) in configs {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let start = Instant::now();
        match run(&cfg, &|_, _| {}) {
            Ok(r) => println!(
                "{name:<28} {:>8.3} s  hands {:>7}  games {:>9}  unsolvable {:>8}  p(solvable) {}",
                start.elapsed().as_secs_f64(),
                r.hands,
                r.games,
                r.unsolvable,
                r.solvable_probability
                    .map_or("-".to_string(), |p| format!("{p:.6}")),
            ),
            Err(e) => println!("{name:<28} error: {e}"),
        }
    }
}
