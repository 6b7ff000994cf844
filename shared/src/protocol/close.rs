//! The WebSocket close codes the server ends a connection with (RFC 6455
//! §7.4), so clients tell "restarting, come back" from "refused".

/// A newer connection of the same player took over.
pub const NORMAL: u16 = 1000;
/// A text frame that is not UTF-8 (RFC 6455 §8.1).
pub const INVALID_DATA: u16 = 1007;
/// Abuse or a broken rule: no hello in time, flooding, code guessing, a peer
/// that stopped answering pings or reading its messages.
pub const POLICY: u16 = 1008;
/// A frame or message over the size limit.
pub const TOO_BIG: u16 = 1009;
/// The server failed to write a message for this connection (a bug, logged
/// on the server): rather than leave the client missing it, the
/// connection ends, and the client reconnects and resumes its seat.
pub const INTERNAL_ERROR: u16 = 1011;
/// The server is shutting down and will be back (its rooms are saved, or
/// handed to another node): clients say "the server is restarting" and
/// reconnect rather than give up.
pub const SERVICE_RESTART: u16 = 1012;
/// A signed-in connection in no room (not seated, not watching, no solo run)
/// that sent nothing for the server's idle time, or the longest-idle such
/// one when the server is full: reconnect when the player wants to play,
/// not at once.
pub const IDLE: u16 = 4000;
