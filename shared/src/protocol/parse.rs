//! Parsing at the edge: one text frame into a typed message, or a typed
//! error precise enough to send back in a `bad_message`.

use serde_json::{Map, Value};

use super::{ClientEnvelope, ClientMessage, ErrorCode, ServerEnvelope, ServerMessage, MAX_ID_LEN};

/// What was wrong with an incoming message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolErrorKind {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    /// The JSON is not an object.
    #[error("a message must be a JSON object")]
    NotAnObject,
    /// The object has no string `type`.
    #[error("the message has no \"type\" string")]
    MissingType,
    /// `type` names no message of this protocol.
    #[error("unknown message type {0:?}")]
    UnknownType(String),
    /// `id` is not a string of at most 64 characters.
    #[error("\"id\" must be a string of at most {MAX_ID_LEN} characters")]
    BadId,
    /// A known type whose fields are missing or of the wrong kind.
    #[error("bad {message_type:?} message: {detail}")]
    BadFields {
        /// The message's type.
        message_type: String,
        /// What serde found wrong, e.g. "missing field `round`".
        detail: String,
    },
}

/// An incoming message that could not be understood, with the request id
/// when one could be read, so the `bad_message` error can echo it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct ProtocolError {
    /// The request's id, if it had a valid one.
    pub id: Option<String>,
    /// What was wrong.
    pub kind: ProtocolErrorKind,
}

impl ProtocolError {
    /// The error code to answer with (always `bad_message`).
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadMessage
    }

    /// The `error` reply, with the request's id.
    pub fn to_envelope(&self) -> ServerEnvelope {
        ServerEnvelope::reply(
            self.id.clone(),
            ServerMessage::error(self.code(), self.kind.to_string()),
        )
    }
}

/// An incoming object taken apart: its id, its type and its other fields.
type Opened = (Option<String>, String, Map<String, Value>);

/// Splits an object into its id and the rest, checking the id and the type.
fn open_envelope(text: &str, known: &[&str]) -> Result<Opened, ProtocolError> {
    let fail = |id: Option<String>, kind| ProtocolError { id, kind };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| fail(None, ProtocolErrorKind::InvalidJson(e.to_string())))?;
    let Value::Object(mut map) = value else {
        return Err(fail(None, ProtocolErrorKind::NotAnObject));
    };
    let id = match map.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= MAX_ID_LEN => Some(s),
        Some(_) => return Err(fail(None, ProtocolErrorKind::BadId)),
    };
    let message_type = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        _ => return Err(fail(id, ProtocolErrorKind::MissingType)),
    };
    if !known.contains(&message_type.as_str()) {
        return Err(fail(id, ProtocolErrorKind::UnknownType(message_type)));
    }
    Ok((id, message_type, map))
}

fn decode<T: serde::de::DeserializeOwned>(
    id: Option<String>,
    message_type: String,
    map: Map<String, Value>,
) -> Result<(Option<String>, T), ProtocolError> {
    match serde_json::from_value(Value::Object(map)) {
        Ok(m) => Ok((id, m)),
        Err(e) => Err(ProtocolError {
            id,
            kind: ProtocolErrorKind::BadFields {
                message_type,
                detail: e.to_string(),
            },
        }),
    }
}

/// Parses one text frame from a client.
pub fn parse_client_message(text: &str) -> Result<ClientEnvelope, ProtocolError> {
    let (id, t, map) = open_envelope(text, ClientMessage::TYPES)?;
    decode(id, t, map).map(|(id, message)| ClientEnvelope { id, message })
}

/// Parses one text frame from the server (for clients).
pub fn parse_server_message(text: &str) -> Result<ServerEnvelope, ProtocolError> {
    let (id, t, map) = open_envelope(text, ServerMessage::TYPES)?;
    decode(id, t, map).map(|(id, message)| ServerEnvelope { id, message })
}
