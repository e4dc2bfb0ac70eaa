//! `/ws/autobahn-echo`: an echo endpoint on the very transport the feeds
//! use (`Upgrade`, `Decoder`, `Conn`, `frame`), for conformance runs of the
//! Autobahn fuzzing client only (`tests/autobahn/run.sh`). Its cases expect
//! every message echoed, which no feed does. `server.rs` routes it only
//! when the gateway runs with `--autobahn-echo` (`ServerConfig::
//! autobahn_echo`): it holds no data, but answers anyone, so it is off in
//! every real deployment.

use std::time::Duration;

use bytes::Bytes;

use super::conn::Pumped;
use super::frame::{self, Decoder, Incoming};
use super::upgrade::Upgrading;
use super::Conn;
use crate::closing::{Closing, GOING_AWAY};

/// The largest message echoed: Autobahn's cases 9.* send up to 16 MiB.
pub const MAX_ECHO_MESSAGE: usize = 16 * 1024 * 1024;

/// Serves one upgraded echo connection until it ends; `send_timeout`
/// bounds its close as the feeds' (`Conn::finish`).
pub async fn run(upgrading: Upgrading, closing: Closing, send_timeout: Duration) {
    let Some((socket, early, lease)) = upgrading.socket().await else {
        return;
    };
    // Replies of its own: a lag never drops what waits.
    let conn = Conn::keeping_backlog(socket, lease);
    if let Some(goodbye) = serve(&closing, &conn, early).await {
        conn.finish(goodbye, send_timeout).await;
    }
}

/// Echoes each message as one frame of its kind and answers pings and the
/// close, as the feeds do; returns the close frame to end with.
async fn serve(closing: &Closing, conn: &Conn, early: Bytes) -> Option<Bytes> {
    let mut decoder = Decoder::new(MAX_ECHO_MESSAGE);
    let mut incoming = Vec::new();
    if let Err(v) = decoder.feed(&early, &mut incoming) {
        return Some(frame::close(v.code, v.why));
    }
    loop {
        for m in incoming.drain(..) {
            match m {
                Incoming::Text(p) => conn.reply(&frame::text(&p)),
                Incoming::Binary(p) => conn.reply(&frame::binary(&p)),
                Incoming::Ping(p) => conn.reply(&frame::pong(&p)),
                Incoming::Pong(_) => true,
                Incoming::Close(code) => {
                    return Some(frame::close(code.map_or(1000, |(c, _)| c), ""));
                }
            };
        }
        let status = conn.status();
        if status.closed {
            return None;
        }
        if status.over_budget {
            return Some(super::conn::over_budget());
        }
        tokio::select! {
            _ = closing.started() => {
                return Some(frame::close(GOING_AWAY, "server shutting down"));
            }
            _ = conn.changed() => {}
            p = conn.pump(status.backlog, &mut decoder, &mut incoming) => match p {
                Pumped::Over => return None,
                Pumped::Refused(goodbye) => return Some(goodbye),
                Pumped::Wrote | Pumped::Read => {}
            },
        }
    }
}
