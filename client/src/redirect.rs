//! Following `redirect`: the rules every client of this crate shares (the
//! terminal client, the bots, the load generator).
//!
//! A server of several nodes keeps each room on one node; a `join_room`
//! (or the `hello` of a player whose seat is held there) reaching another
//! node is answered with `redirect { url, code }`. The client connects to
//! `url`, says `hello` with the same token, and asks for `code` again unless
//! that `welcome` resumed its seat.
//!
//! The URL comes from the network, so it is checked before anything
//! connects to it ([`check_url`]): only a krypto node's WebSocket address,
//! `ws://` or `wss://` with a path ending in `/ws`, and no query, fragment
//! or credentials. Anything looser would let a hostile server point every
//! client that trusts it at any host, port, path and query (a LAN device's
//! `/cgi-bin/…?confirm=1`): the WebSocket handshake is a plain GET. And nodes that
//! disagree about where a room lives could bounce a client for ever, so
//! [`Follow`] counts the redirects since the last seat and refuses the
//! [`MAX_IN_A_ROW`]th + 1.
//!
//! Going back to the home server when a node is gone is the connection's
//! business (`play::net`, [`HOME_AFTER_FAILURES`]).

use krypto_core::text::for_display;
use url::Url;

/// Redirects followed in a row without getting a seat before giving up
/// (krypto-core's, which the browser reads too).
pub const MAX_IN_A_ROW: u32 = krypto_core::protocol::MAX_REDIRECTS_IN_A_ROW;

/// Failed connections in a row to a node we were sent to before going back
/// to the home server (at once when nobody listens there, or when the node
/// closes with 1012 because it is handing its rooms over).
pub const HOME_AFTER_FAILURES: u32 = 3;

/// Longest URL a redirect may carry (a sane one is far shorter).
const MAX_URL_LEN: usize = 2048;

/// Why a redirect is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectError {
    /// Not a krypto node's WebSocket URL (or not a URL at all). Holds the
    /// URL as it may be shown: control characters stripped, cut short.
    #[error(
        "the server sent us to {0:?}, which is not a krypto server's address (ws:// or wss://, \
         a path ending in /ws, no query, fragment or credentials): not following it"
    )]
    NotWebSocket(String),
    /// Sent from node to node too many times without a seat.
    #[error(
        "sent from server to server {0} times without getting a seat (the servers disagree \
         about where the room is): giving up"
    )]
    Loop(u32),
}

/// The URL of a redirect, if it is one we may connect to: `ws://` or
/// `wss://` with a host, a path ending in `/ws`, no query, fragment or
/// credentials, of sane length.
pub fn check_url(raw: &str) -> Result<String, RedirectError> {
    let refuse = || RedirectError::NotWebSocket(shown(raw));
    if raw.len() > MAX_URL_LEN || raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse());
    }
    let url = Url::parse(raw).map_err(|_| refuse())?;
    let websocket = matches!(url.scheme(), "ws" | "wss");
    let host = url.host_str().is_some_and(|h| !h.is_empty());
    let credentials = !url.username().is_empty() || url.password().is_some();
    // Checked on the raw text too: `Url` drops an empty `?` or `#`.
    let extras = url.query().is_some() || url.fragment().is_some() || raw.contains(['?', '#']);
    let krypto_path = url.path().ends_with("/ws");
    if !websocket || !host || credentials || extras || !krypto_path {
        return Err(refuse());
    }
    Ok(url.to_string())
}

/// `raw` as it may be shown to a player: no control or format characters,
/// at most 80 characters.
pub fn shown(raw: &str) -> String {
    let clean = for_display(raw);
    let mut out: String = clean.chars().take(80).collect();
    if clean.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// The loop guard: redirects followed since the last seat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Follow {
    in_a_row: u32,
}

impl Follow {
    /// A redirect to `url` arrived: the URL to connect to, or why not. A
    /// refused loop starts the count afresh, so the player's next request
    /// gets a fresh budget.
    pub fn redirect(&mut self, url: &str) -> Result<String, RedirectError> {
        let url = check_url(url)?;
        self.in_a_row += 1;
        if self.in_a_row > MAX_IN_A_ROW {
            self.in_a_row = 0;
            return Err(RedirectError::Loop(MAX_IN_A_ROW));
        }
        Ok(url)
    }

    /// We have a seat (a `room_state` arrived): the chain is over.
    pub fn seated(&mut self) {
        self.in_a_row = 0;
    }

    /// Redirects followed since the last seat.
    pub fn in_a_row(&self) -> u32 {
        self.in_a_row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_websocket_urls_are_followed() {
        for good in [
            "ws://host-b:7878/ws",
            "wss://krypto.example/node-b/ws",
            "ws://127.0.0.1:9/ws",
        ] {
            assert_eq!(check_url(good).as_deref(), Ok(good), "{good}");
        }
        for bad in [
            "http://host-b:7878/ws",
            "https://evil.example/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ws://",
            "ws://user:secret@host-b/ws",
            "ws://host b/ws",
            "ws://host-b:7878/",
            "ws://host-b:7878",
            "ws://host-b:7878/cgi-bin/x",
            "ws://host-b:7878/ws?confirm=1",
            "ws://host-b:7878/ws?",
            "ws://host-b:7878/ws#top",
            "ws://user@host-b/ws",
            "http://192.168.1.1/cgi-bin/x?confirm=1",
            "not a url",
            "",
        ] {
            assert!(
                matches!(check_url(bad), Err(RedirectError::NotWebSocket(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_refused_url_is_shown_without_control_characters() {
        let err = check_url("http://evil\u{1b}[2J\r\nSERVER: you won").unwrap_err();
        let text = err.to_string();
        assert!(!text.contains(['\u{1b}', '\r', '\n']), "{text}");
        assert!(text.contains("not a krypto server's address"), "{text}");
        let long = format!("http://{}", "a".repeat(500));
        assert!(shown(&long).chars().count() <= 81);
    }

    #[test]
    fn five_redirects_in_a_row_are_followed_and_the_sixth_is_not() {
        let mut follow = Follow::default();
        for _ in 0..MAX_IN_A_ROW {
            assert!(follow.redirect("ws://b/ws").is_ok());
        }
        assert_eq!(
            follow.redirect("ws://a/ws"),
            Err(RedirectError::Loop(MAX_IN_A_ROW))
        );
        // The next request starts a new chain.
        assert!(follow.redirect("ws://a/ws").is_ok());
        assert_eq!(follow.in_a_row(), 1);
    }

    #[test]
    fn a_seat_ends_the_chain() {
        let mut follow = Follow::default();
        for _ in 0..MAX_IN_A_ROW {
            assert!(follow.redirect("ws://b/ws").is_ok());
        }
        follow.seated();
        assert!(follow.redirect("ws://a/ws").is_ok());
        // A refused URL is not counted.
        assert!(follow.redirect("http://a/").is_err());
        assert_eq!(follow.in_a_row(), 1);
    }
}
