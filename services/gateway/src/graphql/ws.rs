//! One GraphQL WebSocket connection (graphql-transport-ws, and the older
//! subscriptions-transport-ws).
//!
//! What nearly every subscriber sends is served here: `connection_init`
//! and its ack, `ping`, and plain subscriptions to `game`, `games` and
//! `events`, which run on shared groups ([`crate::shared`]) so that only
//! their envelope is built per subscriber. Anything else (queries, other
//! subscriptions, a second init, malformed messages) goes to async-graphql,
//! which is started for the connection only then, and gives every error
//! its usual form. An idle subscriber holds none of async-graphql's state
//! (issue 15: memory per idle connection), and its `subscribe` is shared
//! even when it follows `connection_init` in the same read.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use async_graphql::http::{WebSocketProtocols as Protocols, WsMessage};
use async_graphql::{Data, Error};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde_json::Value;

use super::{CountGuard, GqlState, SubscriptionCount, MAX_SUBSCRIPTIONS_PER_CONNECTION};
use crate::auth::{AuthError, Caller, Tokens};
use crate::shared::{self, complete_message, Envelope, Groups, Plan};
use crate::ws::conn::Pumped;
use crate::ws::frame as ws_frame;
use crate::ws::upgrade::Upgrading;
use crate::ws::{Conn, Decoder, Incoming};

/// The largest message a GraphQL client may send; more is closed with 1009.
const MAX_CLIENT_MESSAGE: usize = 64 * 1024;

/// Messages from the client waiting for async-graphql; more is a flood.
const MAX_PENDING_CLIENT_MESSAGES: usize = 64;
/// ... and their bytes: four messages of the largest size.
const MAX_PENDING_CLIENT_BYTES: usize = 4 * MAX_CLIENT_MESSAGE;

/// The ack of a `connection_init`, as async-graphql writes it, in both
/// protocols.
const CONNECTION_ACK: &str = r#"{"type":"connection_ack"}"#;

/// The answer to a graphql-transport-ws `ping`, as async-graphql writes it.
const PONG: &str = r#"{"type":"pong"}"#;

#[derive(serde::Deserialize)]
struct InitPayload {
    token: Option<String>,
    #[serde(alias = "Authorization", alias = "authorization")]
    auth: Option<String>,
}

/// Who the connection serves: the token from the URL or header, checked
/// before the upgrade, or else the one in `connection_init`'s payload.
fn init_access(
    tokens: &Tokens,
    url_access: Option<&Caller>,
    payload: Value,
) -> Result<Caller, AuthError> {
    if let Some(a) = url_access {
        return Ok(a.clone());
    }
    match serde_json::from_value::<Option<InitPayload>>(payload)
        .ok()
        .flatten()
    {
        Some(InitPayload { token: Some(t), .. }) => tokens.check(Some(&t)),
        Some(InitPayload { auth: Some(a), .. }) => tokens.check_authorization(Some(&a)),
        _ => Ok(Caller::Public),
    }
}

/// The client's messages on their way to async-graphql: a queue bounded
/// in messages and bytes that, unlike a channel, holds no block while
/// empty. Its bytes waiting are the tuple's last field.
#[derive(Default)]
struct Inbox(
    Mutex<(
        std::collections::VecDeque<Bytes>,
        Option<std::task::Waker>,
        usize,
    )>,
);

impl Inbox {
    /// False when the queue is full: the client floods.
    fn push(&self, msg: Bytes) -> bool {
        let mut q = self.0.lock().expect("inbox lock");
        if q.0.len() >= MAX_PENDING_CLIENT_MESSAGES || q.2 + msg.len() > MAX_PENDING_CLIENT_BYTES {
            return false;
        }
        q.2 += msg.len();
        q.0.push_back(msg);
        if let Some(w) = q.1.take() {
            w.wake();
        }
        true
    }

    fn poll_next(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Bytes>> {
        let mut q = self.0.lock().expect("inbox lock");
        match q.0.pop_front() {
            Some(msg) => {
                q.2 -= msg.len();
                if q.0.is_empty() {
                    q.0 = std::collections::VecDeque::new();
                }
                std::task::Poll::Ready(Some(msg))
            }
            None => {
                q.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

type GqlStream = Pin<Box<dyn Stream<Item = WsMessage> + Send>>;

/// async-graphql's side of the connection, once something needs it.
struct Fallback {
    stream: GqlStream,
    inbox: Arc<Inbox>,
    /// It was handed the `connection_init` this connection already
    /// acknowledged: its own ack of it is not sent again.
    swallow_ack: bool,
}

/// What one connection keeps between messages.
struct Session {
    state: GqlState,
    protocol: Protocols,
    url_access: Option<Caller>,
    /// Set by an accepted `connection_init`.
    access: Option<Caller>,
    /// That `connection_init`, for an async-graphql started later.
    init: Option<Bytes>,
    count: SubscriptionCount,
    fallback: Option<Fallback>,
    /// The shared subscriptions, by id, each with its slot of the cap.
    owned: HashMap<String, (shared::Shared, CountGuard)>,
}

/// What a client message asks of the session.
enum Step {
    /// Handled here.
    Done,
    /// The client floods async-graphql: close with 1008.
    Flood,
}

impl Session {
    fn kind(&self) -> Envelope {
        match self.protocol {
            Protocols::GraphQLWS => Envelope::Next,
            Protocols::SubscriptionsTransportWS => Envelope::Data,
        }
    }

    fn handle(&mut self, bytes: Bytes, conn: &Arc<Conn>) -> Step {
        #[derive(serde::Deserialize)]
        struct ClientMessage {
            #[serde(rename = "type")]
            ty: String,
            id: Option<String>,
            payload: Option<Value>,
        }
        let Ok(m) = serde_json::from_slice::<ClientMessage>(&bytes) else {
            return self.forward(bytes);
        };
        if self.fallback.is_some() && m.ty != "subscribe" && m.ty != "start" {
            // Ordered behind what async-graphql is already answering.
            return self.forward_or_stop(m.ty.as_str(), m.id, bytes, conn);
        }
        match m.ty.as_str() {
            "connection_init" if self.access.is_none() => {
                let payload = m.payload.unwrap_or_default();
                match init_access(&self.state.app.tokens, self.url_access.as_ref(), payload) {
                    Ok(access) => {
                        self.access = Some(access);
                        self.init = Some(bytes);
                        conn.reply(&ws_frame::text(CONNECTION_ACK.as_bytes()));
                        Step::Done
                    }
                    // async-graphql refuses it in the protocol's own way.
                    Err(_) => self.forward(bytes),
                }
            }
            "ping" => {
                conn.reply(&ws_frame::text(PONG.as_bytes()));
                Step::Done
            }
            "pong" => Step::Done,
            "subscribe" | "start" => match (m.id, self.access.clone()) {
                (Some(id), Some(access)) => {
                    match self.start(&id, m.payload.as_ref(), &access, conn) {
                        Some(started) => {
                            if let Some((old, _)) = self.owned.insert(id, started) {
                                old.stop();
                            }
                            Step::Done
                        }
                        None => self.forward(bytes),
                    }
                }
                _ => self.forward(bytes),
            },
            other => self.forward_or_stop(other, m.id, bytes, conn),
        }
    }

    /// `complete`/`stop` of a shared subscription is answered here; the
    /// rest goes to async-graphql.
    fn forward_or_stop(
        &mut self,
        ty: &str,
        id: Option<String>,
        bytes: Bytes,
        conn: &Arc<Conn>,
    ) -> Step {
        if let ("complete" | "stop", Some(id)) = (ty, id) {
            if let Some((old, _)) = self.owned.remove(&id) {
                old.stop();
                conn.reply(&ws_frame::text(&complete_message(&id)));
                return Step::Done;
            }
        }
        self.forward(bytes)
    }

    /// A shared subscription for `payload`, when it can be one.
    fn start(
        &self,
        id: &str,
        payload: Option<&Value>,
        access: &Caller,
        conn: &Arc<Conn>,
    ) -> Option<(shared::Shared, CountGuard)> {
        let groups: &Groups = &self.state.groups;
        let plan = payload.and_then(|p| Plan::parse(p, groups.fields()))?;
        // The per-connection cap: over it, async-graphql says so.
        let n = self.count.0.fetch_add(1, Ordering::AcqRel);
        let guard = CountGuard(self.count.0.clone());
        if n >= MAX_SUBSCRIPTIONS_PER_CONNECTION {
            return None;
        }
        let started = shared::start(groups, plan, access, conn, id, self.kind())?;
        Some((started, guard))
    }

    /// Hands `bytes` to async-graphql, starting it first if need be.
    fn forward(&mut self, bytes: Bytes) -> Step {
        let fallback = match &mut self.fallback {
            Some(f) => f,
            None => self.fallback.insert(self.start_fallback()),
        };
        if fallback.inbox.push(bytes) {
            Step::Done
        } else {
            Step::Flood
        }
    }

    fn start_fallback(&self) -> Fallback {
        let mut data = Data::default();
        data.insert(self.count.clone());
        let inbox = Arc::new(Inbox::default());
        let input = {
            let inbox = inbox.clone();
            futures::stream::poll_fn(move |cx| inbox.poll_next(cx))
        };
        let tokens = self.state.app.tokens.clone();
        let url_access = self.url_access.clone();
        let stream =
            async_graphql::http::WebSocket::new(self.state.schema.clone(), input, self.protocol)
                .connection_data(data)
                .on_connection_init(move |payload| async move {
                    let access = init_access(&tokens, url_access.as_ref(), payload)
                        .map_err(|e| Error::new(e.to_string()))?;
                    let mut data = Data::default();
                    data.insert(access);
                    Ok(data)
                });
        let mut fallback = Fallback {
            stream: Box::pin(stream),
            inbox,
            swallow_ack: false,
        };
        if let Some(init) = &self.init {
            fallback.inbox.push(init.clone());
            fallback.swallow_ack = true;
        }
        fallback
    }

    /// The next message async-graphql has for the client (never, when it
    /// is not running).
    async fn next_fallback(&mut self) -> Option<WsMessage> {
        loop {
            let Some(f) = &mut self.fallback else {
                return std::future::pending().await;
            };
            let m = f.stream.next().await;
            if f.swallow_ack {
                f.swallow_ack = false;
                if matches!(&m, Some(WsMessage::Text(t)) if t == CONNECTION_ACK) {
                    continue;
                }
            }
            return m;
        }
    }

    fn stop_all(&self) {
        for (s, _) in self.owned.values() {
            s.stop();
        }
    }

    /// Cuts back every shared subscription that fell behind (all of them
    /// when the connection lagged) to a fresh catch-up.
    fn restart_behind(&mut self, lagged: bool, conn: &Arc<Conn>) {
        self.owned = std::mem::take(&mut self.owned)
            .into_iter()
            .filter_map(|(id, (s, slot))| {
                if !lagged && !s.member().needs_restart() {
                    return Some((id, (s, slot)));
                }
                let next = s.restart(conn);
                if next.is_none() {
                    conn.reply(&ws_frame::text(&complete_message(&id)));
                }
                next.map(|n| (id, (n, slot)))
            })
            .collect();
    }
}

/// Serves the connection until it closes.
pub(super) async fn serve(
    upgrading: Upgrading,
    state: GqlState,
    protocol: Protocols,
    url_access: Option<Caller>,
) {
    let Some((socket, early, lease)) = upgrading.socket().await else {
        return;
    };
    let conn = Arc::new(Conn::keeping_backlog(socket, lease));
    let send_timeout = state.app.config.send_timeout;
    let mut session = Session {
        state,
        protocol,
        url_access,
        access: None,
        init: None,
        count: SubscriptionCount::default(),
        fallback: None,
        owned: HashMap::new(),
    };
    let goodbye = session.serve(&conn, early).await;
    session.stop_all();
    if let Some(goodbye) = goodbye {
        conn.finish(goodbye, send_timeout).await;
    }
}

impl Session {
    /// Serves until the connection ends; returns the close frame to end
    /// with. The only await is the one `select!`, so the future keeps one
    /// set of locals (issue 15: memory per idle connection).
    async fn serve(&mut self, conn: &Arc<Conn>, early: Bytes) -> Option<Bytes> {
        let mut decoder = Decoder::new(MAX_CLIENT_MESSAGE);
        let mut incoming = Vec::new();
        if let Err(v) = decoder.feed(&early, &mut incoming) {
            return Some(ws_frame::close(v.code, v.why));
        }
        drop(early);
        self.state.app.keepalive.keep(conn);
        let closing = self.state.app.closing.clone();
        // Watched once the connection's caller is known (its URL, or its
        // `connection_init`).
        let mut revoked = None;
        loop {
            if !incoming.is_empty() {
                conn.seen();
            }
            for m in incoming.drain(..) {
                let bytes = match m {
                    Incoming::Text(b) | Incoming::Binary(b) => b,
                    Incoming::Ping(p) => {
                        conn.reply(&ws_frame::pong(&p));
                        continue;
                    }
                    Incoming::Pong(_) => continue,
                    Incoming::Close(code) => {
                        return Some(ws_frame::close(code.map_or(1000, |(c, _)| c), ""));
                    }
                };
                if let Step::Flood = self.handle(bytes, conn) {
                    return Some(ws_frame::close(1008, "too many messages"));
                }
            }
            let status = conn.status();
            if status.closed {
                return None;
            }
            if status.idle {
                return Some(ws_frame::close(1000, "idle"));
            }
            if status.over_budget {
                return Some(crate::ws::conn::over_budget());
            }
            if status.lagged || self.owned.values().any(|(s, _)| s.member().needs_restart()) {
                conn.rejoin();
                self.restart_behind(status.lagged, conn);
                continue;
            }
            if revoked.is_none() {
                revoked = self
                    .access
                    .as_ref()
                    .map(|a| self.state.app.tokens.until_revoked(a));
            }
            tokio::select! {
                _ = closing.started() => {
                    return Some(ws_frame::close(crate::closing::GOING_AWAY, "server shutting down"));
                }
                _ = async { match revoked.as_mut() { Some(r) => r.await, None => std::future::pending().await } } => {
                    return Some(ws_frame::close(crate::auth::REVOKED_CLOSE, crate::auth::REVOKED_REASON));
                }
                _ = conn.changed() => {}
                p = conn.pump(status.backlog, &mut decoder, &mut incoming) => match p {
                    Pumped::Over => return None,
                    Pumped::Refused(goodbye) => return Some(goodbye),
                    Pumped::Wrote | Pumped::Read => {}
                },
                m = self.next_fallback(), if !status.backlog => match m {
                    Some(WsMessage::Text(t)) => {
                        conn.reply(&ws_frame::text(t.as_bytes()));
                    }
                    Some(WsMessage::Close(code, reason)) => {
                        return Some(ws_frame::close(code, &reason));
                    }
                    None => {
                        conn.close();
                        return None;
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inbox_is_bounded_in_messages_and_in_bytes() {
        let inbox = Inbox::default();
        let big = Bytes::from(vec![b' '; MAX_CLIENT_MESSAGE]);
        for _ in 0..4 {
            assert!(inbox.push(big.clone()));
        }
        assert!(!inbox.push(Bytes::from_static(b"{}")));
        let waker = futures::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        assert!(inbox.poll_next(&mut cx).is_ready());
        assert!(inbox.push(Bytes::from_static(b"{}")));
        let small = Inbox::default();
        for _ in 0..MAX_PENDING_CLIENT_MESSAGES {
            assert!(small.push(Bytes::from_static(b"{}")));
        }
        assert!(!small.push(Bytes::from_static(b"{}")));
    }
}
