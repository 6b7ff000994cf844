//! Text from the network, made safe to show.
//!
//! A server may relay what one player typed to everyone byte for byte, and a
//! terminal obeys what it prints: `ESC ] 52` writes the clipboard, `ESC [ 2J`
//! clears the screen, `\r` and `\n` forge whole lines ("SERVER: you won!").
//! Every string in every message (names, chat, formulas, codes, settings,
//! errors, whatever a newer server adds) is cleaned with
//! [`krypto_core::text::for_display`] once, where it enters, before anything
//! is parsed or shown; the `--json` output alone passes the server's text on
//! as received (JSON escapes it).

use krypto_core::protocol::{parse_server_message, ProtocolError, ServerEnvelope};
use krypto_core::text::for_display;
use serde_json::Value;

/// Removes control and format characters from every string in `value`,
/// keys included.
pub fn clean_json(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(clean) = for_display(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_json),
        Value::Object(map) => {
            if map.keys().any(|k| for_display(k) != k.as_str()) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(for_display(&k).into_owned(), v);
                }
            }
            map.values_mut().for_each(clean_json);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Parses a server message with every string in it cleaned.
pub fn parse(text: &str) -> Result<ServerEnvelope, ProtocolError> {
    match serde_json::from_str::<Value>(text) {
        Ok(mut value) => {
            clean_json(&mut value);
            parse_server_message(&value.to_string())
        }
        // Not JSON: let the parser say so in its own words.
        Err(_) => parse_server_message(text),
    }
}

/// A short text from the network (a close reason, an HTTP body) cleaned.
pub fn clean(text: &str) -> String {
    for_display(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use krypto_core::protocol::ServerMessage;

    /// The payloads of issue 12: clipboard write, screen clear, forged line.
    pub const HOSTILE: [&str; 3] = [
        "\u{1b}]52;c;cm0gLXJmIH4=\u{7}",
        "\u{1b}[2J",
        "gg\r\nSERVER: you won!",
    ];

    #[test]
    fn every_string_of_a_message_is_cleaned() {
        for bad in HOSTILE {
            let raw = serde_json::json!({
                "type": "chat", "from": 2, "name": format!("Ben{bad}"), "text": bad,
            })
            .to_string();
            let ServerMessage::Chat { name, text, .. } = parse(&raw).unwrap().message else {
                panic!("not a chat");
            };
            for s in [&name, &text] {
                assert!(!s.contains(['\u{1b}', '\r', '\n', '\u{7}']), "{s:?}");
            }
        }
        let raw =
            r#"{"type":"error","code":"room_not_found","message":"no room \u001b[2J\u009b31m"}"#;
        let ServerMessage::Error { message, .. } = parse(raw).unwrap().message else {
            panic!("not an error");
        };
        assert_eq!(message, "no room [2J31m");
    }
}
