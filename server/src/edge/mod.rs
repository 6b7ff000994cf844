//! The edge: everything between a socket and a session. The listener takes
//! a connection permit and the address's share before `accept`; HTTP/1.1
//! with the header-read timeout; the routes and their JSON errors; the
//! WebSocket handshake onto a socket whose every frame is metered; one task
//! per WebSocket; the per-address and per-player budgets; the embedded
//! browser client.

pub(crate) mod budgets;
pub(crate) mod forwarded;
pub(crate) mod frame_meter;
pub(crate) mod hosts;
pub(crate) mod http;
pub(crate) mod idle;
pub(crate) mod join_urls;
pub(crate) mod listener;
pub(crate) mod modes_api;
pub(crate) mod serve;
pub(crate) mod transport;
pub(crate) mod web;
pub(crate) mod write_through;
pub(crate) mod ws_upgrade;
