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
    out: Mutex<Out>,
    /// Tells the task the backlog, `lagged` or `ended` changed.
    wake: Notify,
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
    pub fn new(io: TcpStream) -> Conn {
        Conn {
            io,
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
        if out.closed || out.lagged {
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
            // Only a partly written frame must still go out, whole.
            let keep = if out.partial {
                out.backlog.pop_front()
            } else {
                None
            };
            out.backlog = keep.into_iter().collect();
            drop(out);
            self.wake.notify_one();
            return false;
        }
        out.backlog.push_back(frame.clone());
        true
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

    pub async fn writable(&self) -> io::Result<()> {
        self.io.writable().await
    }

    pub async fn readable(&self) -> io::Result<()> {
        self.io.readable().await
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
    pub fn read(&self, decoder: &mut Decoder, messages: &mut Vec<Incoming>) -> Read {
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

    /// Sends `frame` as the last one and waits, at most `within`, for the
    /// backlog to go out before the socket is shut.
    pub async fn finish(&self, frame: Bytes, within: std::time::Duration) {
        {
            let mut out = self.lock();
            out.lagged = false;
        }
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
