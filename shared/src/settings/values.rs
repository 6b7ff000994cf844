//! What a setting's values are — a list of names, a whole number in a range
//! (or none), yes or no — and, for each kind once: the check, the editor's
//! step, the text shown, the text read, and the description clients get.

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;

use serde::Serialize;

/// What a client may offer for a setting: the browser builds its controls
/// from this, and the protocol docs' table is written from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Allowed {
    /// One of these names, in the editor's order.
    Choice {
        /// The names, as the wire spells them.
        choices: Vec<&'static str>,
    },
    /// A whole number from `min` to `max`; `null` too when `nullable`.
    Number {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
        /// Whether `null` ("none") is a value.
        nullable: bool,
    },
    /// `true` or `false`.
    Toggle,
}

/// One kind of setting values, for a setting of type `T`.
pub(super) trait Values<T> {
    /// Why `v` is not allowed, if it is not.
    fn check(&self, v: &T) -> Result<(), String>;
    /// The value after (or before) `v`, as an editor steps it.
    fn step(&self, v: &T, forward: bool) -> T;
    /// `v` as an editor shows it.
    fn show(&self, v: &T) -> String;
    /// A value from a person's text (`/set key=value`); the error says what
    /// would have been understood.
    fn parse(&self, text: &str) -> Result<T, String>;
    /// What is allowed, for clients and docs.
    fn allowed(&self) -> Allowed;
}

/// One of a fixed list of named values, in the editor's order; steps wrap
/// around.
pub(super) struct Choices<T: 'static>(pub(super) &'static [T]);

impl<T: Copy + PartialEq + Into<&'static str> + FromStr> Choices<T> {
    /// The names, as the wire spells them.
    fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|v| (*v).into()).collect()
    }

    /// "a, b or c".
    fn listed(&self) -> String {
        let names = self.names();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }
}

impl<T: Copy + PartialEq + Into<&'static str> + FromStr> Values<T> for Choices<T> {
    fn check(&self, v: &T) -> Result<(), String> {
        if self.0.contains(v) {
            Ok(())
        } else {
            let name: &str = (*v).into();
            Err(format!("{name} is not {}", self.listed()))
        }
    }

    fn step(&self, v: &T, forward: bool) -> T {
        let n = self.0.len();
        let i = self.0.iter().position(|x| x == v).unwrap_or(0);
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.0.get(j).copied().unwrap_or(*v)
    }

    fn show(&self, v: &T) -> String {
        let name: &str = (*v).into();
        name.to_owned()
    }

    fn parse(&self, text: &str) -> Result<T, String> {
        T::from_str(text)
            .ok()
            .filter(|v| self.0.contains(v))
            .ok_or_else(|| format!("{text:?} is not {}", self.listed()))
    }

    fn allowed(&self) -> Allowed {
        Allowed::Choice {
            choices: self.names(),
        }
    }
}

/// A whole number in a range, stepped through presets (by one where there
/// are none; a value set between presets steps to its neighbour); at
/// either end it stays put.
pub(super) struct Number {
    /// The values allowed.
    pub(super) range: RangeInclusive<u32>,
    /// The values an editor steps through; empty: every value.
    pub(super) presets: &'static [u32],
    /// After the number when shown (" s").
    pub(super) unit: &'static str,
}

impl Values<u32> for Number {
    fn check(&self, v: &u32) -> Result<(), String> {
        in_range(*v, &self.range, "")
    }

    fn step(&self, v: &u32, forward: bool) -> u32 {
        if self.presets.is_empty() {
            let next = if forward {
                v.saturating_add(1)
            } else {
                v.saturating_sub(1)
            };
            next.clamp(*self.range.start(), *self.range.end())
        } else {
            step_in(self.presets, *v, forward).unwrap_or(*v)
        }
    }

    fn show(&self, v: &u32) -> String {
        format!("{v}{}", self.unit)
    }

    fn parse(&self, text: &str) -> Result<u32, String> {
        text.parse()
            .map_err(|_| format!("{text:?} is not a whole number"))
    }

    fn allowed(&self) -> Allowed {
        Allowed::Number {
            min: i64::from(*self.range.start()),
            max: i64::from(*self.range.end()),
            nullable: false,
        }
    }
}

/// A whole number in a range, or none (`null`); stepping back from the
/// lowest preset gives none, forward from none the lowest preset.
pub(super) struct NumberOrNone {
    /// The numbers allowed.
    pub(super) range: RangeInclusive<i64>,
    /// The numbers an editor steps through, above "none".
    pub(super) presets: &'static [i64],
}

impl Values<Option<i64>> for NumberOrNone {
    fn check(&self, v: &Option<i64>) -> Result<(), String> {
        match v {
            None => Ok(()),
            Some(t) => in_range(*t, &self.range, " (or null for none)"),
        }
    }

    fn step(&self, v: &Option<i64>, forward: bool) -> Option<i64> {
        match (v, forward) {
            (None, true) => self.presets.first().copied(),
            (None, false) => None,
            (Some(t), true) => Some(step_in(self.presets, *t, true).unwrap_or(*t)),
            (Some(t), false) => step_in(self.presets, *t, false),
        }
    }

    fn show(&self, v: &Option<i64>) -> String {
        v.map_or_else(|| "none".to_owned(), |t| t.to_string())
    }

    fn parse(&self, text: &str) -> Result<Option<i64>, String> {
        match text.to_ascii_lowercase().as_str() {
            "none" | "null" | "off" | "no" => Ok(None),
            _ => text
                .parse()
                .map(Some)
                .map_err(|_| format!("{text:?} is not a whole number or none")),
        }
    }

    fn allowed(&self) -> Allowed {
        Allowed::Number {
            min: *self.range.start(),
            max: *self.range.end(),
            nullable: true,
        }
    }
}

/// Yes or no; a step toggles it.
pub(super) struct Toggle;

impl Values<bool> for Toggle {
    fn check(&self, _: &bool) -> Result<(), String> {
        Ok(())
    }

    fn step(&self, v: &bool, _: bool) -> bool {
        !v
    }

    fn show(&self, v: &bool) -> String {
        if *v { "yes" } else { "no" }.to_owned()
    }

    fn parse(&self, text: &str) -> Result<bool, String> {
        match text.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => Ok(true),
            "no" | "false" | "off" => Ok(false),
            _ => Err(format!("{text:?} is not yes or no")),
        }
    }

    fn allowed(&self) -> Allowed {
        Allowed::Toggle
    }
}

/// The reason `v` is out of `range`, if it is.
fn in_range<T: PartialOrd + Display>(
    v: T,
    range: &RangeInclusive<T>,
    or: &str,
) -> Result<(), String> {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{v} is not between {} and {}{or}",
            range.start(),
            range.end()
        ))
    }
}

/// The next preset past `v` in the direction, if there is one.
fn step_in<T: PartialOrd + Copy>(presets: &[T], v: T, forward: bool) -> Option<T> {
    if forward {
        presets.iter().copied().find(|p| *p > v)
    } else {
        presets.iter().rev().copied().find(|p| *p < v)
    }
}
