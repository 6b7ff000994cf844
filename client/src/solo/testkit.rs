//! Inputs for the tests of the state machines here (the daily's session
//! and the practice table take the same ones).

use krypto_core::protocol::{PlayerId, ServerMessage};

use super::session::Input;

/// A server message as the run loop hands it over.
pub fn server(message: ServerMessage) -> Input {
    Input::Server(Box::new(message))
}

/// The server's `welcome` of Ann.
pub fn welcome() -> Input {
    server(ServerMessage::Welcome {
        protocol: 1,
        player_id: PlayerId(1),
        name: "Ann".to_owned(),
        token: "t".repeat(32),
        server_version: "test".to_owned(),
        resumed: false,
        join_urls: Vec::new(),
    })
}
