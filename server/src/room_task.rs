//! One task per room (placeholder until `krypto_core::room` lands).

use std::sync::Arc;

use krypto_core::protocol::{PlayerId, RoomSettings};

use crate::client::ClientHandle;
use crate::lobby::RegisterError;
use crate::Shared;

/// Creates a room hosted by `host` and starts its task.
pub fn create(
    _shared: &Arc<Shared>,
    _host: PlayerId,
    _name: String,
    _settings: RoomSettings,
    _client: ClientHandle,
    _id: Option<String>,
) -> Result<(), RegisterError> {
    Err(RegisterError::Full)
}
