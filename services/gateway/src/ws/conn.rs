//! One upgraded WebSocket connection, shared by its own task and the
//! hub's fan-out. The fan-out writes each frame straight to the socket
//! (`try_write`) when nothing is waiting ahead of it; what the socket does
//! not take waits in a backlog that the connection's task flushes when the
//! socket is writable again. Frames never interleave: every write, from
//! either side, goes through the one lock.

use std::collections::VecDeque;
use std::io;
use std::sync::Mutex;

use bytes::{Buf, Bytes};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::frame::{Decoder, Incoming, Violation};

#[derive(Default)]
struct Out {
    /// Frames not yet written, in order; the front one may be partly sent.
    backlog: VecDeque<Bytes>,
    /// The front of the backlog is partly written: it must go out whole.
    partial: bool,
    /// The backlog reached its limit: the feed dropped this connection,
    /// which must catch up with a fresh snapshot.
    lagged: bool,
    /// The hub closed: no more messages will come.
    ended: bool,
    /// The connection is gone (a write failed or its task ended).
    closed: bool,
}

/// What the connection's task has to act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub backlog: bool,
    pub lagged: bool,
    pub ended: bool,
    pub closed: bool,
}

pub struct Conn {
    io: TcpStream,
    /// Whether a lag drops the backlog: the raw feed's backlog holds only
    /// feed messages, which the snapshot replaces; GraphQL's holds the
    /// connection's own replies too, which must still go out.
    drop_on_lag: bool,
    out: Mutex<Out>,
    /// Tells the task the backlog, `lagged` or `ended` changed.
    wake: Notify,
}

/// What [`Conn::pump`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pumped {
    /// Wrote some of the backlog.
    Wrote,
    /// Read bytes from the client.
    Read,
    /// The connection is over.
    Over,
}

/// What a read found.
pub enum Read {
    /// Messages decoded (maybe none: the bytes so far end mid-frame).
    Messages,
    /// The client closed its side.
    Eof,
    Violation(Violation),
}

impl Conn {
    /// A feed connection: a lag drops what waits.
    pub fn new(io: TcpStream) -> Conn {
        Conn {
            io,
            drop_on_lag: true,
            out: Mutex::new(Out::default()),
            wake: Notify::new(),
        }
    }

    /// A connection with replies of its own besides the feed: a lag keeps
    /// what waits and only refuses more feed messages.
    pub fn keeping_backlog(io: TcpStream) -> Conn {
        Conn {
            io,
            drop_on_lag: false,
            out: Mutex::new(Out::default()),
            wake: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Out> {
        self.out.lock().expect("conn lock")
    }

    /// Sends one whole frame, or queues it behind those still waiting.
    /// `limit` is how many frames may wait: over it the connection is
    /// marked lagged (its task catches up with a snapshot) and the frame
    /// is not taken. False when the frame was not taken.
    pub fn send(&self, frame: &Bytes, limit: usize) -> bool {
        let mut out = self.lock();
        // A lag refuses feed messages only (`limit` below `usize::MAX`).
        if out.closed || (out.lagged && limit != usize::MAX) {
            return false;
        }
        if out.backlog.is_empty() {
            match self.io.try_write(frame) {
                Ok(n) if n == frame.len() => return true,
                Ok(n) => {
                    out.backlog.push_back(frame.slice(n..));
                    out.partial = n > 0;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    out.backlog.push_back(frame.clone());
                }
                Err(_) => {
                    out.closed = true;
                    drop(out);
                    self.wake.notify_one();
                    return false;
                }
            }
            drop(out);
            self.wake.notify_one();
            return true;
        }
        if out.backlog.len() >= limit {
            out.lagged = true;
            if self.drop_on_lag {
                // Only a partly written frame must still go out, whole.
                let keep = if out.partial {
                    out.backlog.pop_front()
                } else {
                    None
                };
                out.backlog = keep.into_iter().collect();
            }
            drop(out);
            self.wake.notify_one();
            return false;
        }
        out.backlog.push_back(frame.clone());
        true
    }

    /// Wakes the connection's task (something it watches changed).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Clears `lagged`, so the feed can be joined again.
    pub fn rejoin(&self) {
        self.lock().lagged = false;
    }

    /// The hub closed: the task says goodbye.
    pub fn end(&self) {
        self.lock().ended = true;
        self.wake.notify_one();
    }

    /// Marks the connection gone, so the fan-out drops it.
    pub fn close(&self) {
        let mut out = self.lock();
        out.closed = true;
        out.backlog = VecDeque::new();
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    pub fn status(&self) -> Status {
        let out = self.lock();
        Status {
            backlog: !out.backlog.is_empty(),
            lagged: out.lagged,
            ended: out.ended,
            closed: out.closed,
        }
    }

    /// Resolves when [`Conn::status`] may have changed.
    pub async fn changed(&self) {
        self.wake.notified().await
    }

    /// Writes what the socket takes of the backlog; true when it is empty.
    pub fn flush(&self) -> io::Result<bool> {
        let mut out = self.lock();
        while let Some(front) = out.backlog.front_mut() {
            match self.io.try_write(front) {
                Ok(n) if n == front.len() => {
                    out.backlog.pop_front();
                    out.partial = false;
                }
                Ok(n) => {
                    front.advance(n);
                    out.partial = true;
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => {
                    out.closed = true;
                    return Err(e);
                }
            }
        }
        // An idle connection keeps no queue allocation.
        out.backlog = VecDeque::new();
        Ok(true)
    }

    /// Reads what the socket has into `decoder`, without waiting; the
    /// messages it completes go to `messages`.
    fn read(&self, decoder: &mut Decoder, messages: &mut Vec<Incoming>) -> Read {
        // On the stack, not in the task: an idle connection holds no buffer.
        let mut buf = [0u8; 4096];
        loop {
            match self.io.try_read(&mut buf) {
                Ok(0) => return Read::Eof,
                Ok(n) => {
                    if let Err(v) = decoder.feed(&buf[..n], messages) {
                        return Read::Violation(v);
                    }
                    if n < buf.len() {
                        return Read::Messages;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Read::Messages,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Read::Eof,
            }
        }
    }

    /// Waits for the socket to take more of the backlog (when there is
    /// one) or to bring bytes from the client, and does that: flushes, or
    /// reads into `decoder` (the messages it completes go to `messages`).
    /// A client that broke the protocol is closed with its code.
    pub async fn pump(
        &self,
        backlog: bool,
        decoder: &mut Decoder,
        messages: &mut Vec<Incoming>,
        within: std::time::Duration,
    ) -> Pumped {
        let writable = async {
            if backlog {
                self.io.writable().await
            } else {
                std::future::pending().await
            }
        };
        tokio::select! {
            w = writable => {
                if w.is_err() || self.flush().is_err() {
                    self.close();
                    return Pumped::Over;
                }
                Pumped::Wrote
            }
            r = self.io.readable() => {
                if r.is_err() {
                    self.close();
                    return Pumped::Over;
                }
                match self.read(decoder, messages) {
                    Read::Messages => Pumped::Read,
                    Read::Eof => {
                        self.close();
                        Pumped::Over
                    }
                    Read::Violation(v) => {
                        self.finish(super::frame::close(v.code, v.why), within).await;
                        Pumped::Over
                    }
                }
            }
        }
    }

    /// Sends `frame` as the last one and waits, at most `within`, for the
    /// backlog to go out before the socket is shut.
    ///
    /// Boxed: inline, its timer and write readiness would sit in every
    /// connection task's future for the whole connection, idle or not,
    /// for the one time it closes.
    pub fn finish(
        &self,
        frame: Bytes,
        within: std::time::Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(self.finish_now(frame, within))
    }

    async fn finish_now(&self, frame: Bytes, within: std::time::Duration) {
        self.send(&frame, usize::MAX);
        let flushed = async {
            loop {
                match self.flush() {
                    Ok(true) | Err(_) => return,
                    Ok(false) => {
                        if self.io.writable().await.is_err() {
                            return;
                        }
                    }
                }
            }
        };
        let _ = tokio::time::timeout(within, flushed).await;
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::Message;

    /// A server-side `Conn` and its client, over loopback.
    async fn pair() -> (Arc<Conn>, tokio::net::TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let client = socket.connect(addr).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (Arc::new(Conn::new(server)), client)
    }

    use std::sync::Arc;

    #[tokio::test]
    async fn a_client_that_stops_reading_lags_its_connection_and_every_frame_it_gets_is_whole() {
        let (conn, client) = pair().await;
        let body = "x".repeat(64 * 1024);
        let frame = super::super::frame::text(body.as_bytes());
        // The kernel takes a few MiB at most; then four frames wait, and
        // the fifth is refused.
        let mut taken = 0;
        while conn.send(&frame, 4) {
            taken += 1;
            assert!(taken < 10_000, "the socket never filled");
        }
        let status = conn.status();
        assert!(status.lagged);
        // Feed messages are refused while lagged; control frames are not.
        assert!(!conn.send(&frame, 4));
        let finished = {
            let conn = conn.clone();
            tokio::spawn(async move {
                conn.finish(
                    super::super::frame::close(1008, "too slow"),
                    std::time::Duration::from_secs(30),
                )
                .await
            })
        };
        let mut ws =
            tokio_tungstenite::WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        let mut texts = 0;
        loop {
            match ws
                .next()
                .await
                .expect("a close frame")
                .expect("whole frames")
            {
                Message::Text(t) => {
                    assert_eq!(t.len(), body.len());
                    texts += 1;
                }
                Message::Close(Some(c)) => {
                    assert_eq!(u16::from(c.code), 1008);
                    break;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        // What waited behind a partly written frame was dropped; the
        // client got what the socket took, whole.
        assert!(texts <= taken && texts + 4 >= taken, "{texts} of {taken}");
        finished.await.unwrap();
        assert!(conn.is_closed());
    }
}
