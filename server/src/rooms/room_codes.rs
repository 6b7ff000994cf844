//! Room codes: short enough to read aloud across a room, drawn from an
//! alphabet without look-alikes, and random enough that guessing one is slow
//! (31^5 ≈ 28.6 million codes, and misses are rate-limited).

use rand::Rng;

/// Letters and digits that cannot be mistaken for one another: no 0/O,
/// no 1/I/L.
pub const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Characters in a code (krypto-core's, which the browser's code field
/// is sized by).
pub const CODE_LEN: usize = krypto_core::protocol::ROOM_CODE_LEN;

/// A fresh random code (the caller retries on a collision).
pub fn generate(rng: &mut impl Rng) -> String {
    (0..CODE_LEN)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

/// The canonical form of a code a person typed (trimmed, uppercased);
/// `None` when it cannot be a code at all.
pub fn normalize(input: &str) -> Option<String> {
    let code = input.trim().to_ascii_uppercase();
    let valid = code.len() == CODE_LEN && code.bytes().all(|b| ALPHABET.contains(&b));
    valid.then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_codes_use_only_the_alphabet() {
        let mut rng = rand::rng();
        for _ in 0..1000 {
            let code = generate(&mut rng);
            assert_eq!(code.len(), CODE_LEN);
            assert!(normalize(&code).as_deref() == Some(code.as_str()));
        }
    }

    #[test]
    fn alphabet_has_no_look_alikes() {
        for c in b"0O1IL" {
            assert!(!ALPHABET.contains(c));
        }
    }

    #[test]
    fn typed_codes_are_normalized() {
        assert_eq!(normalize(" abcde ").as_deref(), Some("ABCDE"));
        assert_eq!(normalize("ABCD"), None);
        assert_eq!(normalize("ABCD1"), None);
        assert_eq!(normalize("ABCDÉ"), None);
    }
}
