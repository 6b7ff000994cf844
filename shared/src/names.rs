//! Player names: one rule for the server that stores them and the clients
//! that ask for them, made so that one player cannot pass for another.
//!
//! A name is normalized (NFKC, so `Ａda` and `𝐀da` are written `Ada`), must
//! show at least one letter, and may not mix scripts the way a spoof does
//! (Latin `A` with Cyrillic `а`). Two names are the same name when their
//! keys are equal: the Unicode confusable skeleton (UTS #39) of the name
//! in any case, so a look-alike in a single other script (`Аdа`, all
//! Cyrillic) or in ASCII itself (`PauI AIIen` for `Paul Allen`, `A1ice1`
//! for `Alicel`) is still taken.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

use crate::text::is_hidden;

/// Longest name, in characters.
pub const MAX_NAME_CHARS: usize = 20;

/// Longest input looked at, in bytes: far more than any name normalizes
/// from, small enough that hostile input costs nothing.
const MAX_INPUT_BYTES: usize = 1024;

/// A checked name: what to show and the key that makes it unique.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// NFKC-normalized, trimmed, inner runs of spaces collapsed to one.
    pub display: String,
    /// The comparison key ([`key`]); two names with the same key are the same name.
    pub key: String,
}

/// Why a name was refused; the message is a sentence for the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty once trimmed, or too long.
    #[error("a name has 1 to {MAX_NAME_CHARS} characters")]
    Length,
    /// A character outside letters, digits, space, `-` and `_`.
    #[error("a name may hold letters, digits, space, - and _, not {0:?}")]
    Character(char),
    /// A control, formatting, zero-width or filler character: it shows as
    /// nothing, so two different names would look the same.
    #[error("a name may not hold invisible characters ({code})", code = code(*.0))]
    Invisible(char),
    /// A letter Unicode restricts in identifiers (obsolete, technical or
    /// rarely used), where look-alikes hide.
    #[error("{0:?} ({code}) is a rarely used letter, not allowed in names", code = code(*.0))]
    Restricted(char),
    /// A combining mark that does not sit on a letter, or one that does not
    /// belong to any letter (strike-throughs, stacked accents).
    #[error("a name may not hold the separate accent or mark {code}; type the accented letter itself", code = code(*.0))]
    Mark(char),
    /// Only digits, spaces, `-` and `_`.
    #[error("a name needs at least one letter")]
    NoLetter,
    /// Letters of scripts that spoofs mix, such as Latin with Cyrillic or
    /// Greek.
    #[error("a name may not mix alphabets (such as Latin with Cyrillic or Greek): letters that look alike would let one player pass for another")]
    MixedScripts,
}

fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Checks a name: 1–20 characters of letters, digits, space, `-` and `_`
/// once normalized (NFKC) and trimmed, with at least one letter, nothing
/// invisible, and no mix of scripts a spoof would use. Runs of spaces become
/// one so "Ann  B" cannot pose as "Ann B".
pub fn validate(raw: &str) -> Result<Name, NameError> {
    if raw.len() > MAX_INPUT_BYTES {
        return Err(NameError::Length);
    }
    // Before normalizing, which turns some fillers into others: name the
    // character that was typed.
    if let Some(c) = raw.chars().find(|&c| is_invisible(c)) {
        return Err(NameError::Invisible(c));
    }
    let normalized: String = raw.nfkc().collect();
    let display = normalized
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let len = display.chars().count();
    if len == 0 || len > MAX_NAME_CHARS {
        return Err(NameError::Length);
    }
    if let Some(c) = display.chars().find(|&c| is_invisible(c)) {
        return Err(NameError::Invisible(c));
    }
    let mut after_letter = false;
    for c in display.chars() {
        if is_combining_mark(c) {
            // Marks Unicode counts as part of a letter (vowel signs, Hebrew
            // points) may follow one; others only stack or strike through.
            if !(after_letter && c.is_alphabetic() && c.identifier_allowed()) {
                return Err(NameError::Mark(c));
            }
        } else if c.is_alphabetic() {
            if !c.identifier_allowed() {
                return Err(NameError::Restricted(c));
            }
            after_letter = true;
        } else if c.is_ascii_digit() || matches!(c, ' ' | '-' | '_') {
            after_letter = false;
        } else {
            return Err(NameError::Character(c));
        }
    }
    if !display
        .chars()
        .any(|c| c.is_alphabetic() && !is_combining_mark(c))
    {
        return Err(NameError::NoLetter);
    }
    // Spaces are no identifier character; the scripts of the whole name count.
    let letters: String = display.chars().filter(|&c| c != ' ').collect();
    if letters.as_str().detect_restriction_level() > RestrictionLevel::ModeratelyRestrictive {
        return Err(NameError::MixedScripts);
    }
    let key = key(&display);
    Ok(Name { display, key })
}

/// Shows as nothing: controls and format characters ([`is_hidden`]) and
/// Unicode's default-ignorable fillers (Hangul fillers U+115F, U+1160,
/// U+3164, U+FFA0; variation selectors; the combining grapheme joiner).
fn is_invisible(c: char) -> bool {
    is_hidden(c) || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// Which [`key`] the stored keys were made with: a server recomputes every
/// stored key at start when this grows (`server/src/db/name_keys.rs`).
/// 1: ASCII kept as typed; 2: the full skeleton, ASCII included.
pub const KEY_VERSION: u32 = 2;

/// The comparison key of a name: the confusable skeleton (UTS #39) of every
/// character, ASCII included, taken in a way that also ignores case. `Ada`,
/// `ada`, `Ａda`, `𝐀da` and `Аda` (Cyrillic А) share one key, and so do
/// `PauI AIIen` and `Paul Allen` (capital I is a look-alike of l), `A1ice1`
/// and `Alicel`, `c0c0` and `coco`, `rn` and `m`.
///
/// Case and confusability are two relations; a key must be one, so it is
/// their union: upper-cased first (`i` and `I` are one letter), then the
/// skeleton (`I` is `l`), lower-cased, and the skeleton again (`m` is
/// `rn`). So `ian`, `Ian` and `lan` share a key too: a name is refused a
/// little more often, never let through as another.
pub fn key(name: &str) -> String {
    let upper = name.nfkc().collect::<String>().to_uppercase();
    let once = skeleton(&upper).collect::<String>().to_lowercase();
    let twice = skeleton(&once).collect::<String>().to_lowercase();
    // Composed (NFC) rather than decomposed as UTS #39 writes skeletons:
    // equally canonical for comparing, and shorter to store.
    twice.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(name: &str) -> NameError {
        match validate(name) {
            Ok(n) => panic!("{name:?} was accepted as {n:?}"),
            Err(e) => e,
        }
    }

    fn accepted(name: &str) -> Name {
        match validate(name) {
            Ok(n) => n,
            Err(e) => panic!("{name:?} was refused: {e}"),
        }
    }

    #[test]
    fn look_alikes_share_a_key() {
        let ada = key("Ada");
        assert_eq!(ada, key("ada"));
        for spoof in ["ada", "ADA", "Аda", "Ａda", "𝐀da", "Ａｄａ", "Αda", "аdа"] {
            assert_eq!(key(spoof), ada, "{spoof:?}");
        }
        assert_ne!(key("Adam"), ada);
        assert_ne!(key("Ádá"), ada);
    }

    #[test]
    fn compatibility_forms_are_normalized_and_then_taken() {
        for (typed, shown) in [
            ("Ａda", "Ada"),
            ("𝐀da", "Ada"),
            ("Ann\u{00A0}Lee", "Ann Lee"),
        ] {
            let n = accepted(typed);
            assert_eq!(n.display, shown, "{typed:?}");
            assert_eq!(n.key, key(shown), "{typed:?}");
        }
        // A decomposed accent is the same name as the composed letter.
        assert_eq!(accepted("Jose\u{301}"), accepted("José"));
    }

    #[test]
    fn a_single_script_look_alike_is_allowed_but_keyed_as_the_original() {
        // All Cyrillic: not a mix, so allowed; but it is Ada's name.
        let n = accepted("Аса");
        assert_eq!(n.key, key("Aca"));
        assert_eq!(n.key, key("aca"));
    }

    #[test]
    fn mixed_script_spoofs_are_refused() {
        for spoof in ["Аda", "Adа", "Ada Аda", "pаypal", "Αda"] {
            assert_eq!(refused(spoof), NameError::MixedScripts, "{spoof:?}");
        }
    }

    #[test]
    fn invisible_characters_are_refused() {
        for (name, c) in [
            ("\u{3164}", '\u{3164}'),
            ("Ada\u{3164}", '\u{3164}'),
            ("\u{115F}\u{1160}", '\u{115F}'),
            ("\u{FFA0}", '\u{FFA0}'),
            ("A\u{200B}da", '\u{200B}'),
            ("Ada\u{200D}", '\u{200D}'),
            ("Ada\u{FE0F}", '\u{FE0F}'),
            ("A\u{034F}da", '\u{034F}'),
            ("\u{202E}adA", '\u{202E}'),
            ("tab\there", '\t'),
        ] {
            assert_eq!(refused(name), NameError::Invisible(c), "{name:?}");
        }
    }

    #[test]
    fn marks_must_belong_to_a_letter() {
        for (name, c) in [
            ("\u{301}\u{301}", '\u{301}'),
            ("A\u{336}d\u{336}a\u{336}", '\u{336}'),
            ("Ada\u{301}\u{301}", '\u{301}'),
            ("\u{5B4}\u{5B4}", '\u{5B4}'),
            ("- \u{93F}", '\u{93F}'),
        ] {
            assert_eq!(refused(name), NameError::Mark(c), "{name:?}");
        }
        // Marks that are part of a letter are fine.
        accepted("देवी");
        accepted("ค\u{E31}น");
        // Unicode restricts Hebrew points in identifiers; the plain letters pass.
        assert_eq!(refused("שָׁלוֹם"), NameError::Mark('\u{5B8}'));
        accepted("שלום");
    }

    #[test]
    fn a_name_needs_a_letter() {
        for name in ["007", "- _ -", "42_"] {
            assert_eq!(refused(name), NameError::NoLetter, "{name:?}");
        }
    }

    #[test]
    fn the_old_rules_still_hold() {
        let n = accepted("  Ann   Lee ");
        assert_eq!(
            (n.display.as_str(), n.key.as_str()),
            ("Ann Lee", key("ann lee").as_str())
        );
        accepted("José_9-x");
        accepted(&"x".repeat(MAX_NAME_CHARS));
        accepted("東京太郎");
        accepted("Αθηνά");
        // Polytonic Greek is restricted in identifiers (UTS #39).
        assert_eq!(refused("Ἀθηνᾶ"), NameError::Restricted('Ἀ'));
        accepted("Иван");
        accepted("Tanaka たなか");
        assert_eq!(refused(""), NameError::Length);
        assert_eq!(refused("   "), NameError::Length);
        assert_eq!(refused(&"x".repeat(MAX_NAME_CHARS + 1)), NameError::Length);
        assert_eq!(refused(&"x".repeat(5000)), NameError::Length);
        assert_eq!(refused("a;b"), NameError::Character(';'));
        assert_eq!(refused("smile😀"), NameError::Character('😀'));
        assert_eq!(refused("٣ab"), NameError::Character('٣'));
    }

    #[test]
    fn names_without_look_alikes_keep_their_lower_case_key() {
        for name in ["José", "東京", "Ñandú", "Ann-Lee_2", "ZZ Top", "Bob"] {
            assert_eq!(accepted(name).key, name.to_lowercase(), "{name:?}");
        }
        // Case is ignored through the upper case: ß is SS.
        assert_eq!(key("Straße"), key("STRASSE"));
    }

    #[test]
    fn ascii_look_alikes_share_a_key() {
        for (spoof, original) in [
            ("PauI AIIen", "Paul Allen"),
            ("A1ice1", "Alicel"),
            ("Alice1", "Alicel"),
            ("c0c0", "coco"),
            ("Sarn", "Sam"),
            ("IAN", "ian"),
            ("Ian", "lan"),
        ] {
            assert_eq!(key(spoof), key(original), "{spoof:?} ~ {original:?}");
            // And so the spoof is refused as a taken name wherever keys are compared.
            assert_eq!(accepted(spoof).key, accepted(original).key, "{spoof:?}");
        }
        assert_ne!(key("Paul"), key("Pavl"));
        assert_ne!(key("Ann"), key("Anne"));
    }

    #[test]
    fn refusals_read_as_sentences() {
        assert_eq!(
            NameError::Invisible('\u{3164}').to_string(),
            "a name may not hold invisible characters (U+3164)"
        );
        assert!(NameError::MixedScripts
            .to_string()
            .contains("Latin with Cyrillic"));
    }
}
