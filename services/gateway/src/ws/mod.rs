//! The gateway's own WebSocket transport for the raw feed: the handshake
//! (`upgrade.rs`), whole server frames encoded once per message for every
//! subscriber and the client's frames decoded (`frame.rs`), and the
//! connection the fan-out writes to directly (`conn.rs`), pinged by one
//! shared task (`keepalive.rs`). `echo.rs`: an echo route on the same
//! transport, for Autobahn conformance runs only (`--autobahn-echo`).

pub mod conn;
pub mod echo;
pub mod frame;
pub mod keepalive;
pub mod upgrade;

pub use conn::Conn;
pub use frame::{Decoder, Incoming};
pub use keepalive::Keepalive;
pub use upgrade::Upgrade;
