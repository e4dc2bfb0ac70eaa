//! One upgraded WebSocket connection, shared by its own task and the
//! hub's fan-out. The fan-out writes each frame straight to the socket
//! (`try_write`) when nothing is waiting ahead of it; what the socket does
//! not take waits in a backlog that the connection's task flushes when the
//! socket is writable again. Frames never interleave: every write, from
//! either side, goes through the one lock.
//!
//! The backlog is bounded in bytes (`limits::Sockets::send_budget`, with
//! `limits::FRAME_OVERHEAD` per frame): feed messages past half the budget
//! lag the connection (its task catches it up with a snapshot); the
//! connection's own replies (pongs, acks, catch-ups) past the whole budget
//! mark it over budget, and its task closes it with 1008. A frame into an
//! empty backlog is always taken, so what waits never exceeds the budget
//! and one frame.

use std::collections::VecDeque;
use std::io;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use tokio::net::TcpStream;

use super::frame::{Decoder, Incoming, Violation};
use crate::limits::{Lease, DEFAULT_SEND_BUDGET, FRAME_OVERHEAD};

/// The most one read takes from the socket before the messages it
/// decoded are handled: a client that sends faster than they are handled
/// cannot grow the list of decoded messages without bound.
const MAX_READ_PER_PUMP: usize = 64 * 1024;

struct Out {
    /// Frames not yet written, in order; the front one may be partly sent.
    backlog: VecDeque<Bytes>,
    /// What the backlog holds: its bytes and `FRAME_OVERHEAD` per frame.
    queued: usize,
    /// A reply did not fit the budget: the task closes with 1008.
    over_budget: bool,
    /// When the backlog last moved, or last became non-empty.
    moved: Instant,
    /// When the client last sent anything.
    seen: Instant,
    /// Silent for too long: the task says goodbye.
    idle: bool,
    /// The front of the backlog is partly written: it must go out whole.
    partial: bool,
    /// The backlog reached its limit: the feed dropped this connection,
    /// which must catch up with a fresh snapshot.
    lagged: bool,
    /// The hub closed: no more messages will come.
    ended: bool,
    /// The connection is gone (a write failed or its task ended).
    closed: bool,
    /// The close frame is sent or queued: nothing may follow it.
    said_goodbye: bool,
    /// Something the task watches changed since it last looked.
    changed: bool,
    /// The task, waiting for a change.
    waker: Option<Waker>,
}

impl Out {
    fn new() -> Out {
        let now = Instant::now();
        Out {
            backlog: VecDeque::new(),
            queued: 0,
            over_budget: false,
            moved: now,
            seen: now,
            idle: false,
            partial: false,
            lagged: false,
            ended: false,
            closed: false,
            said_goodbye: false,
            changed: false,
            waker: None,
        }
    }
}

/// What the keepalive found overdue on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overdue {
    /// Nothing.
    No,
    /// The client was silent for about a ping interval.
    Ping,
    /// The client sent nothing for the idle timeout.
    Idle,
    /// Frames wait and none went out for the send timeout.
    Stuck,
    /// Already gone.
    Closed,
}

/// What the connection's task has to act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub backlog: bool,
    pub idle: bool,
    pub lagged: bool,
    pub ended: bool,
    pub closed: bool,
    /// The client would take more than its send budget: close with 1008.
    pub over_budget: bool,
}

pub struct Conn {
    io: TcpStream,
    /// Whether a lag drops the backlog: the raw feed's backlog holds only
    /// feed messages, which the snapshot replaces; GraphQL's holds the
    /// connection's own replies too, which must still go out.
    drop_on_lag: bool,
    /// Its place in its address's count (`None` outside `crate::serve`),
    /// which also holds the send budget and the gauges.
    lease: Option<Lease>,
    /// Also tells the task the backlog, `lagged`, `ended` or `idle`
    /// changed: a waker kept here rather than a `Notify`, so a waiting task
    /// holds no waiter in its future.
    out: Mutex<Out>,
}

/// What [`Conn::pump`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pumped {
    /// Wrote some of the backlog.
    Wrote,
    /// Read bytes from the client.
    Read,
    /// The client broke the protocol: the connection ends with this close
    /// frame.
    Refused(Bytes),
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
    pub fn new(io: TcpStream, lease: Option<Lease>) -> Conn {
        Conn {
            io,
            drop_on_lag: true,
            lease,
            out: Mutex::new(Out::new()),
        }
    }

    /// A connection with replies of its own besides the feed: a lag keeps
    /// what waits and only refuses more feed messages.
    pub fn keeping_backlog(io: TcpStream, lease: Option<Lease>) -> Conn {
        Conn {
            io,
            drop_on_lag: false,
            lease,
            out: Mutex::new(Out::new()),
        }
    }

    /// Bytes (with the per-frame overhead) that may wait on this connection.
    fn budget(&self) -> usize {
        self.lease
            .as_ref()
            .map_or(DEFAULT_SEND_BUDGET, |l| l.sockets().send_budget)
    }

    /// Tells the gauges the backlog went from `before` bytes to `out.queued`.
    fn settle(&self, before: usize, out: &Out) {
        if let Some(l) = &self.lease {
            l.sockets().settle(before, out.queued);
        }
    }

    /// Empties the backlog but a partly written front frame, which must
    /// still go out whole.
    fn drop_backlog(&self, out: &mut Out) {
        let before = out.queued;
        let keep = if out.partial {
            out.backlog.pop_front()
        } else {
            None
        };
        out.queued = keep.as_ref().map_or(0, |f| f.len() + FRAME_OVERHEAD);
        out.backlog = keep.into_iter().collect();
        self.settle(before, out);
    }

    fn enqueue(&self, out: &mut Out, frame: Bytes) {
        let before = out.queued;
        out.queued += frame.len() + FRAME_OVERHEAD;
        out.backlog.push_back(frame);
        self.settle(before, out);
    }

    fn lock(&self) -> MutexGuard<'_, Out> {
        self.out.lock().expect("conn lock")
    }

    /// Marks a change for the task and wakes it, after releasing `out`.
    fn notify(mut out: MutexGuard<'_, Out>) {
        out.changed = true;
        let waker = out.waker.take();
        drop(out);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Sends one whole feed frame, or queues it behind those still
    /// waiting. `limit` is how many frames may wait, and half the budget
    /// how many bytes: over either the connection is marked lagged (its
    /// task catches up with a snapshot) and the frame is not taken. False
    /// when the frame was not taken. `usize::MAX` makes it a
    /// [`Conn::reply`].
    pub fn send(&self, frame: &Bytes, limit: usize) -> bool {
        self.push(frame, limit, false)
    }

    /// Sends or queues a frame the connection owes the client (a pong, an
    /// ack, a catch-up, a ping): never dropped for a lag, but past the
    /// budget the connection is marked over budget, and its task closes it
    /// with 1008. False when the frame was not taken.
    pub fn reply(&self, frame: &Bytes) -> bool {
        self.push(frame, usize::MAX, false)
    }

    /// [`Conn::send`]; `last`: `frame` is the close frame, after which
    /// nothing is taken.
    fn push(&self, frame: &Bytes, limit: usize, last: bool) -> bool {
        let mut out = self.lock();
        // A lag refuses feed messages only (`limit` below `usize::MAX`).
        if out.closed || out.said_goodbye || (out.lagged && limit != usize::MAX) {
            return false;
        }
        if out.over_budget && !last {
            return false;
        }
        out.said_goodbye = last;
        if out.backlog.is_empty() {
            match self.io.try_write(frame) {
                Ok(n) if n == frame.len() => return true,
                Ok(n) => {
                    out.moved = Instant::now();
                    self.enqueue(&mut out, frame.slice(n..));
                    out.partial = n > 0;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    out.moved = Instant::now();
                    self.enqueue(&mut out, frame.clone());
                }
                Err(_) => {
                    out.closed = true;
                    Self::notify(out);
                    return false;
                }
            }
            Self::notify(out);
            return true;
        }
        let after = out.queued + frame.len() + FRAME_OVERHEAD;
        let reply = limit == usize::MAX;
        if reply && !last && after > self.budget() {
            // The client asks for more than it reads (a ping flood, say).
            out.over_budget = true;
            if let Some(l) = &self.lease {
                l.sockets().went_over_budget();
            }
            Self::notify(out);
            return false;
        }
        if !reply && (out.backlog.len() >= limit || after > self.budget() / 2) {
            out.lagged = true;
            if self.drop_on_lag {
                self.drop_backlog(&mut out);
            }
            Self::notify(out);
            return false;
        }
        self.enqueue(&mut out, frame.clone());
        true
    }

    /// Wakes the connection's task (something it watches changed).
    pub fn wake(&self) {
        Self::notify(self.lock());
    }

    /// The client sent something: it is not idle.
    pub fn seen(&self) {
        self.lock().seen = Instant::now();
    }

    /// What is due at `now`: a close when the backlog has not moved for
    /// `send_timeout` or the client was silent for `idle_timeout`, a ping
    /// when it was silent for `ping_after`.
    pub fn overdue(
        &self,
        now: Instant,
        ping_after: Duration,
        idle_timeout: Duration,
        send_timeout: Duration,
    ) -> Overdue {
        let out = self.lock();
        let silent = now.saturating_duration_since(out.seen);
        if out.closed {
            Overdue::Closed
        } else if !out.backlog.is_empty() && now.saturating_duration_since(out.moved) > send_timeout
        {
            Overdue::Stuck
        } else if silent > idle_timeout {
            Overdue::Idle
        } else if silent >= ping_after {
            Overdue::Ping
        } else {
            Overdue::No
        }
    }

    /// The client was silent too long: the task closes with 1000 "idle".
    pub fn mark_idle(&self) {
        let mut out = self.lock();
        out.idle = true;
        Self::notify(out);
    }

    /// Clears `lagged`, so the feed can be joined again.
    pub fn rejoin(&self) {
        self.lock().lagged = false;
    }

    /// The hub closed: the task says goodbye.
    pub fn end(&self) {
        let mut out = self.lock();
        out.ended = true;
        Self::notify(out);
    }

    /// Marks the connection gone, so the fan-out drops it and its task
    /// ends, and shuts the socket: the fan-out may hold the `Conn` until
    /// the game's next event, and the client must not wait for that to see
    /// the end.
    pub fn close(&self) {
        let mut out = self.lock();
        out.closed = true;
        let before = out.queued;
        out.backlog = VecDeque::new();
        out.queued = 0;
        self.settle(before, &out);
        // Already shut by the client, at worst: nothing to do then.
        let _ = socket2::SockRef::from(&self.io).shutdown(std::net::Shutdown::Both);
        Self::notify(out);
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    pub fn status(&self) -> Status {
        let out = self.lock();
        Status {
            backlog: !out.backlog.is_empty(),
            idle: out.idle,
            lagged: out.lagged,
            ended: out.ended,
            closed: out.closed,
            over_budget: out.over_budget,
        }
    }

    /// Resolves when [`Conn::status`] may have changed.
    pub async fn changed(&self) {
        std::future::poll_fn(|cx| self.poll_changed(cx)).await
    }

    fn poll_changed(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut out = self.lock();
        if std::mem::take(&mut out.changed) {
            return Poll::Ready(());
        }
        if !out.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            out.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }

    /// Writes what the socket takes of the backlog; true when it is empty.
    pub fn flush(&self) -> io::Result<bool> {
        let mut out = self.lock();
        let before = out.queued;
        let result = self.flush_locked(&mut out);
        self.settle(before, &out);
        result
    }

    fn flush_locked(&self, out: &mut Out) -> io::Result<bool> {
        let mut wrote = false;
        while let Some(front) = out.backlog.front_mut() {
            match self.io.try_write(front) {
                Ok(n) if n == front.len() => {
                    out.backlog.pop_front();
                    out.queued -= n + FRAME_OVERHEAD;
                    out.partial = false;
                    wrote = true;
                }
                Ok(n) => {
                    front.advance(n);
                    out.queued -= n;
                    out.partial = true;
                    out.moved = Instant::now();
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if wrote {
                        out.moved = Instant::now();
                    }
                    return Ok(false);
                }
                Err(e) => {
                    out.closed = true;
                    return Err(e);
                }
            }
        }
        // An idle connection keeps no queue allocation.
        out.backlog = VecDeque::new();
        out.queued = 0;
        Ok(true)
    }

    /// Reads what the socket has into `decoder`, without waiting; the
    /// messages it completes go to `messages`.
    fn read(&self, decoder: &mut Decoder, messages: &mut Vec<Incoming>) -> Read {
        // On the stack, not in the task: an idle connection holds no buffer.
        let mut buf = [0u8; 4096];
        let mut taken = 0;
        loop {
            match self.io.try_read(&mut buf) {
                Ok(0) => return Read::Eof,
                Ok(n) => {
                    if let Err(v) = decoder.feed(&buf[..n], messages) {
                        return Read::Violation(v);
                    }
                    taken += n;
                    // The rest waits for the next pump, after these are
                    // handled (readiness stays set while bytes remain); a
                    // breach after them fails the connection then.
                    if n < buf.len() || taken >= MAX_READ_PER_PUMP || decoder.failed().is_some() {
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
    ///
    /// Polled readiness rather than `writable()`/`readable()` futures: the
    /// socket keeps the task's wakers, so a task waiting here holds almost
    /// nothing in its future (issue 15: memory per idle connection).
    pub async fn pump(
        &self,
        backlog: bool,
        decoder: &mut Decoder,
        messages: &mut Vec<Incoming>,
    ) -> Pumped {
        std::future::poll_fn(|cx| self.poll_pump(cx, backlog, decoder, messages)).await
    }

    fn poll_pump(
        &self,
        cx: &mut Context<'_>,
        backlog: bool,
        decoder: &mut Decoder,
        messages: &mut Vec<Incoming>,
    ) -> Poll<Pumped> {
        // The messages before the breach are handled: now it fails.
        if let Some(v) = decoder.failed() {
            return Poll::Ready(Pumped::Refused(super::frame::close(v.code, v.why)));
        }
        if backlog {
            match self.io.poll_write_ready(cx) {
                Poll::Ready(Ok(())) => {
                    if self.flush().is_err() {
                        self.close();
                        return Poll::Ready(Pumped::Over);
                    }
                    return Poll::Ready(Pumped::Wrote);
                }
                Poll::Ready(Err(_)) => {
                    self.close();
                    return Poll::Ready(Pumped::Over);
                }
                Poll::Pending => {}
            }
        }
        match self.io.poll_read_ready(cx) {
            Poll::Ready(Ok(())) => Poll::Ready(match self.read(decoder, messages) {
                Read::Messages => Pumped::Read,
                Read::Eof => {
                    self.close();
                    Pumped::Over
                }
                Read::Violation(v) => Pumped::Refused(super::frame::close(v.code, v.why)),
            }),
            Poll::Ready(Err(_)) => {
                self.close();
                Poll::Ready(Pumped::Over)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Sends `frame` as the last one and closes as RFC 6455 §7.1.1 has a
    /// server close: waits, at most `within` in all, for the backlog to go
    /// out, then ends its side of the TCP connection and reads (and drops)
    /// what the client still sends until it ends its side too. A socket
    /// dropped with the client's pong or close frame unread would answer
    /// with a reset, which can reach the client before it has read the
    /// close frame.
    ///
    /// Boxed: inline, its timer and readiness waits would sit in every
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
        {
            let mut out = self.lock();
            if out.over_budget {
                // What it would not read goes: the close frame next.
                self.drop_backlog(&mut out);
            }
        }
        self.push(&frame, usize::MAX, true);
        let handshake = async {
            loop {
                match self.flush() {
                    Ok(true) => break,
                    Err(_) => return,
                    Ok(false) => {
                        if self.io.writable().await.is_err() {
                            return;
                        }
                    }
                }
            }
            if socket2::SockRef::from(&self.io)
                .shutdown(std::net::Shutdown::Write)
                .is_err()
            {
                return;
            }
            let mut sink = [0u8; 512];
            loop {
                if self.io.readable().await.is_err() {
                    return;
                }
                match self.io.try_read(&mut sink) {
                    Ok(0) => return,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => return,
                }
            }
        };
        let _ = tokio::time::timeout(within, handshake).await;
        self.close();
    }
}

/// The close frame of a connection over its send budget.
pub fn over_budget() -> Bytes {
    super::frame::close(super::frame::POLICY_VIOLATION, "over its send budget")
}

impl Drop for Conn {
    fn drop(&mut self) {
        let before = self.out.get_mut().map_or(0, |o| o.queued);
        if let Some(l) = &self.lease {
            l.sockets().settle(before, 0);
        }
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
        (Arc::new(Conn::new(server, None)), client)
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
