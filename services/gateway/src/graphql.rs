//! GraphQL over HTTP (`POST /graphql`) and WebSocket (`/graphql/ws`, both
//! graphql-transport-ws and the legacy graphql-ws). Every answer is cut
//! from the hub's per-audience feeds, so GraphQL can show no more than the
//! raw feed does. The schema is committed as `schema.graphql`. Plain
//! subscriptions on the WebSocket share their encoded payloads
//! ([`crate::shared`]); the resolvers below serve everything else.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_graphql::http::{WebSocketProtocols as Protocols, WsMessage, ALL_WEBSOCKET_PROTOCOLS};
use async_graphql::{
    Context, Data, EmptyMutation, Error, Json, MergedObject, MergedSubscription, Object, Result,
    Schema, Subscription,
};
use async_graphql_axum::GraphQLResponse;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use futures::Stream;
use serde_json::Value;

use mafia_record::GameId;

use crate::app::{game_audience, token_of, ApiError, AppState, FeedQuery};
use crate::auth::{caller_of, AuthError, Caller, ForGame};
pub use crate::graphql_types::*;
use crate::hub::{Ended, Hub, Subscription as HubSubscription};
use crate::messages::{GameFeed, HallFeed};
use crate::shared::{self, complete_message, Envelope, FieldTable, Groups, Plan};
use crate::ws::conn::Pumped;
use crate::ws::frame as ws_frame;
use crate::ws::{Conn, Decoder, Incoming, Upgrade};

/// Deepest query accepted; the schema itself is four levels deep.
pub const MAX_DEPTH: usize = 8;
/// Most complex query accepted (one per field by default).
pub const MAX_COMPLEXITY: usize = 256;
/// Subscriptions one WebSocket connection may hold at once.
pub const MAX_SUBSCRIPTIONS_PER_CONNECTION: usize = 32;
/// Most events one `events` query returns.
pub const MAX_EVENTS: usize = 1000;

pub type GatewaySchema = Schema<QueryRoot, EmptyMutation, SubscriptionRoot>;

/// The query root: one part per module (games, and the standings the
/// scoring service writes).
#[derive(MergedObject, Default)]
pub struct QueryRoot(GameQuery, crate::standings::StandingsQuery);

/// The subscription root, merged like [`QueryRoot`].
#[derive(MergedSubscription, Default)]
pub struct SubscriptionRoot(GameSubscription, crate::standings::StandingsSubscription);

/// The schema, wired to `hub` and the standings `board`.
pub fn schema(hub: Hub, board: crate::board::Board) -> GatewaySchema {
    Schema::build(
        QueryRoot::default(),
        EmptyMutation,
        SubscriptionRoot::default(),
    )
    .data(hub)
    .data(board)
    .limit_depth(MAX_DEPTH)
    .limit_complexity(MAX_COMPLEXITY)
    .limit_recursive_depth(32)
    .finish()
}

/// The shared subscriptions' table of types and fields, read from the
/// schema's own SDL.
pub fn field_table() -> FieldTable {
    FieldTable::from_sdl(&sdl()).expect("the schema's SDL parses")
}

/// The SDL committed as `services/gateway/schema.graphql`.
pub fn sdl() -> String {
    Schema::build(
        QueryRoot::default(),
        EmptyMutation,
        SubscriptionRoot::default(),
    )
    .finish()
    .sdl()
}

fn access<'a>(ctx: &'a Context<'_>) -> &'a Caller {
    static PUBLIC: Caller = Caller::Public;
    ctx.data_opt::<Caller>().unwrap_or(&PUBLIC)
}

fn hub<'a>(ctx: &'a Context<'_>) -> &'a Hub {
    ctx.data_unchecked::<Hub>()
}

/// The game named by `game_id` and the caller's audience for it; unknown
/// games first, so scope errors say nothing about which games exist.
fn audience(ctx: &Context<'_>, game_id: &str) -> Result<(GameId, mafia_rules::Audience)> {
    game_audience(hub(ctx), access(ctx), game_id).map_err(|e| Error::new(e.to_string()))
}

/// The games the caller may list (a table judge: its own).
fn visible_games(ctx: &Context<'_>) -> Vec<GameInfo> {
    let visible = access(ctx).hall().1;
    hub(ctx)
        .games()
        .into_iter()
        .filter(|t| visible.as_ref().is_none_or(|v| v.contains(&t.game_id)))
        .map(GameInfo::from)
        .collect()
}

/// The games' part of the query root.
#[derive(Default)]
pub struct GameQuery;

#[Object]
impl GameQuery {
    /// Every game, sorted by id.
    async fn games(&self, ctx: &Context<'_>) -> Vec<GameInfo> {
        visible_games(ctx)
    }

    /// The tournaments with games, their rounds and games.
    async fn tournaments(&self, ctx: &Context<'_>) -> Vec<Tournament> {
        let mut out: Vec<Tournament> = Vec::new();
        for t in visible_games(ctx) {
            let i = match out.iter().position(|x| x.name == t.tournament) {
                Some(i) => i,
                None => {
                    out.push(Tournament {
                        name: t.tournament.clone(),
                        rounds: Vec::new(),
                    });
                    out.len() - 1
                }
            };
            let rounds = &mut out[i].rounds;
            match rounds.iter_mut().find(|r| r.number == t.round) {
                Some(r) => r.games.push(t),
                None => rounds.push(Round {
                    number: t.round,
                    games: vec![t],
                }),
            }
        }
        for t in &mut out {
            t.rounds.sort_by_key(|r| r.number);
            for r in &mut t.rounds {
                r.games.sort_by_key(|x| (x.table, x.game));
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// One live game as the caller may see it.
    async fn game(&self, ctx: &Context<'_>, id: String) -> Result<GameState> {
        let (id, a) = audience(ctx, &id)?;
        let s = hub(ctx)
            .state(&id, a)
            .map_err(|e| Error::new(e.to_string()))?;
        Ok(GameState {
            game: s.info.into(),
            seq: s.seq,
            over: s.over,
            view: Json(s.view),
        })
    }

    /// A game's events after sequence `after` (0: from the start), in the
    /// caller's audience and numbering; for a finished game, its protocol.
    async fn events(
        &self,
        ctx: &Context<'_>,
        game_id: String,
        #[graphql(default = 0)] after: u64,
        #[graphql(default = 200)] first: usize,
    ) -> Result<Vec<GameEvent>> {
        let (game_id, a) = audience(ctx, &game_id)?;
        let evs = hub(ctx)
            .events(&game_id, a, after, first.min(MAX_EVENTS))
            .map_err(|e| Error::new(e.to_string()))?;
        Ok(evs.iter().map(GameEvent::from).collect())
    }

    /// The protocol of a finished game, every event in the engine's
    /// numbering; an error while the game runs (for the broadcast: until
    /// its delayed stream has reached the end).
    async fn protocol(&self, ctx: &Context<'_>, game_id: String) -> Result<Protocol> {
        let (game_id, a) = audience(ctx, &game_id)?;
        let hub = hub(ctx);
        let events = hub
            .protocol(&game_id, a)
            .map_err(|e| Error::new(e.to_string()))?
            .ok_or_else(|| Error::new("the game is not finished"))?;
        let info = hub
            .state(&game_id, a)
            .map_err(|e| Error::new(e.to_string()))?
            .info;
        Ok(Protocol {
            game: info.into(),
            events: events.iter().map(GameEvent::from).collect(),
        })
    }
}

/// Counts a connection's live subscriptions; the guard gives one back.
#[derive(Clone, Default)]
struct SubscriptionCount(Arc<AtomicUsize>);

struct CountGuard(Arc<AtomicUsize>);

impl Drop for CountGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn take_slot(ctx: &Context<'_>) -> Result<Option<CountGuard>> {
    let Some(count) = ctx.data_opt::<SubscriptionCount>() else {
        return Ok(None);
    };
    let n = count.0.fetch_add(1, Ordering::AcqRel);
    let guard = CountGuard(count.0.clone());
    if n >= MAX_SUBSCRIPTIONS_PER_CONNECTION {
        return Err(Error::new(format!(
            "at most {MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection"
        )));
    }
    Ok(Some(guard))
}

/// Turns a hub subscription into a stream of typed messages, re-subscribing
/// (from a fresh snapshot) when the hub cut it back.
fn messages<T, F>(
    first: HubSubscription,
    resubscribe: F,
    guard: Option<CountGuard>,
) -> impl Stream<Item = T>
where
    T: serde::de::DeserializeOwned,
    F: Fn() -> Option<HubSubscription> + Send + 'static,
{
    let state = (
        first,
        std::collections::VecDeque::new(),
        resubscribe,
        guard,
        true,
    );
    futures::stream::unfold(
        state,
        |(mut sub, mut queue, resub, guard, first)| async move {
            if first {
                queue.extend(std::mem::take(&mut sub.initial));
            }
            loop {
                if let Some(b) = queue.pop_front() {
                    let Ok(m) = serde_json::from_slice::<T>(&b) else {
                        tracing::error!("the hub sent a message that is not its own");
                        continue;
                    };
                    return Some((m, (sub, queue, resub, guard, false)));
                }
                match sub.recv().await {
                    Ok(b) => queue.push_back(b),
                    Err(Ended::Lagged) => {
                        sub = resub()?;
                        queue.extend(std::mem::take(&mut sub.initial));
                    }
                    Err(Ended::Closed) => return None,
                }
            }
        },
    )
}

/// The games' part of the subscription root.
#[derive(Default)]
pub struct GameSubscription;

#[Subscription]
impl GameSubscription {
    /// A game's state: a snapshot, then deltas. With `from` (the last
    /// sequence the client has), only what came after it.
    async fn game(
        &self,
        ctx: &Context<'_>,
        id: String,
        from: Option<u64>,
    ) -> Result<impl Stream<Item = FeedMessage>> {
        let (game_id, a) = audience(ctx, &id)?;
        let guard = take_slot(ctx)?;
        let hub = hub(ctx).clone();
        let sub = hub
            .subscribe(&game_id, a, from)
            .map_err(|e| Error::new(e.to_string()))?;
        let resub = move || hub.subscribe(&game_id, a, None).ok();
        Ok(futures::StreamExt::map(
            messages::<GameFeed, _>(sub, resub, guard),
            FeedMessage::from,
        ))
    }

    /// Every game's state for the hall screen: all of them first, then
    /// each change; a game opened since comes first with its `info`.
    async fn games(&self, ctx: &Context<'_>) -> Result<impl Stream<Item = HallMessage>> {
        let (a, only) = access(ctx).hall();
        let guard = take_slot(ctx)?;
        let hub = hub(ctx).clone();
        let sub = hub.subscribe_hall(a, only.clone());
        let resub = move || Some(hub.subscribe_hall(a, only.clone()));
        Ok(futures::StreamExt::map(
            messages::<HallFeed, _>(sub, resub, guard),
            HallMessage::from,
        ))
    }

    /// A game's events after sequence `after`, then each new one: a client
    /// that reconnects with its last sequence misses nothing.
    async fn events(
        &self,
        ctx: &Context<'_>,
        game_id: String,
        #[graphql(default = 0)] after: u64,
    ) -> Result<impl Stream<Item = GameEvent>> {
        let (game_id, a) = audience(ctx, &game_id)?;
        let guard = take_slot(ctx)?;
        let hub = hub(ctx).clone();
        let sub = hub
            .subscribe(&game_id, a, Some(after))
            .map_err(|e| Error::new(e.to_string()))?;
        let starts_with_snapshot = sub.initial.first().is_some_and(|b| {
            matches!(
                serde_json::from_slice::<GameFeed>(b),
                Ok(GameFeed::Snapshot { .. })
            )
        });
        // Too old for the live history: the retained events fill the gap
        // instead of a snapshot.
        let backlog: Vec<GameEvent> = if starts_with_snapshot && after < sub.seq {
            hub.events(&game_id, a, after, usize::MAX)
                .unwrap_or_default()
                .iter()
                .map(GameEvent::from)
                .collect()
        } else {
            Vec::new()
        };
        let seen = backlog.last().map_or(after, |e| e.seq.max(after));
        let resub = move || hub.subscribe(&game_id, a, None).ok();
        let live = futures::StreamExt::filter_map(
            messages::<GameFeed, _>(sub, resub, guard),
            move |m| async move {
                match m {
                    GameFeed::Delta { seq, event, .. } if seq > seen => {
                        Some(GameEvent::from(&event))
                    }
                    _ => None,
                }
            },
        );
        Ok(futures::StreamExt::chain(
            futures::stream::iter(backlog),
            live,
        ))
    }
}

#[derive(serde::Deserialize)]
struct InitPayload {
    token: Option<String>,
    #[serde(alias = "Authorization", alias = "authorization")]
    auth: Option<String>,
}

/// The largest `POST /graphql` body: queries are small, and a body is held
/// in memory whole before it is parsed. Larger ones get 413.
pub const MAX_GRAPHQL_BODY_BYTES: usize = 64 * 1024;

async fn graphql_http(
    State(state): State<GqlState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<GraphQLResponse, ApiError> {
    let access = state
        .app
        .tokens
        .check(token_of(q.token.as_deref(), &headers))?;
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let req = async_graphql::http::receive_body(content_type, &body[..], Default::default())
        .await
        .map_err(|e| ApiError::bad_request(format!("not a GraphQL request: {e}")))?;
    Ok(state.schema.execute(req.data(access)).await.into())
}

/// The WebSocket protocol the client asked for (as async-graphql-axum's
/// extractor picks it).
fn ws_protocol(headers: &HeaderMap) -> Option<Protocols> {
    headers
        .get(axum::http::header::SEC_WEBSOCKET_PROTOCOL)
        .and_then(|v| v.to_str().ok())
        .and_then(|all| {
            all.split(',')
                .find_map(|p| p.trim().parse::<Protocols>().ok())
        })
}

async fn graphql_ws(
    State(state): State<GqlState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    ws: Upgrade,
) -> Result<Response, ApiError> {
    let Some(protocol) = ws_protocol(&headers) else {
        return Ok(axum::http::StatusCode::BAD_REQUEST.into_response());
    };
    // A token in the URL or header is checked before the upgrade, so a bad
    // one is a plain 401; otherwise it may come in connection_init.
    let url_access = match caller_of(&state.app.tokens, q.token.as_deref(), &headers)? {
        Caller::Public => None,
        known => Some(known),
    };
    // The first of ours the client offered, as axum's `protocols` picks.
    let chosen = ALL_WEBSOCKET_PROTOCOLS
        .into_iter()
        .find(|p| ws.protocols.iter().any(|c| c == p));
    Ok(ws.on_upgrade(chosen, move |socket, early| {
        let closing = state.app.closing.clone();
        closing.track(serve_ws(socket, early, state, protocol, url_access))
    }))
}

/// The largest message a GraphQL client may send; more is closed with 1009.
const MAX_CLIENT_MESSAGE: usize = 64 * 1024;

/// Messages from the client waiting for async-graphql; more is a flood.
const MAX_PENDING_CLIENT_MESSAGES: usize = 64;

/// The client's messages on their way to async-graphql: a bounded queue
/// that, unlike a channel, holds no block while empty (most connections
/// send a few messages when they start, then nothing).
#[derive(Default)]
struct Inbox(Mutex<(std::collections::VecDeque<Bytes>, Option<std::task::Waker>)>);

impl Inbox {
    /// False when the queue is full: the client floods.
    fn push(&self, msg: Bytes) -> bool {
        let mut q = self.0.lock().expect("inbox lock");
        if q.0.len() >= MAX_PENDING_CLIENT_MESSAGES {
            return false;
        }
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

/// One GraphQL WebSocket connection. async-graphql speaks the protocol
/// (init, ping, queries, errors, unusual operations); plain subscriptions
/// to `game`, `games` and `events` are intercepted and served from
/// shared groups ([`crate::shared`]), so only their envelope is built per
/// subscriber.
async fn serve_ws(
    socket: tokio::net::TcpStream,
    early: Bytes,
    state: GqlState,
    protocol: Protocols,
    url_access: Option<Caller>,
) {
    use futures::StreamExt;

    let count = SubscriptionCount::default();
    let mut data = Data::default();
    data.insert(count.clone());
    let access_slot: Arc<Mutex<Option<Caller>>> = Arc::default();
    let inbox = Arc::new(Inbox::default());
    let input = {
        let inbox = inbox.clone();
        futures::stream::poll_fn(move |cx| inbox.poll_next(cx))
    };
    let tokens = state.app.tokens.clone();
    let slot = access_slot.clone();
    let mut gql = Box::pin(
        async_graphql::http::WebSocket::new(state.schema.clone(), input, protocol)
            .connection_data(data)
            .on_connection_init(move |payload| async move {
                let mut data = Data::default();
                let access = match url_access {
                    Some(a) => a,
                    None => {
                        let p: Option<InitPayload> = serde_json::from_value(payload).ok();
                        let checked = match p {
                            Some(InitPayload { token: Some(t), .. }) => tokens.check(Some(&t)),
                            Some(InitPayload { auth: Some(a), .. }) => {
                                tokens.check_authorization(Some(&a))
                            }
                            _ => Ok(Caller::Public),
                        };
                        checked.map_err(|e: AuthError| Error::new(e.to_string()))?
                    }
                };
                *slot.lock().expect("lock") = Some(access.clone());
                data.insert(access);
                Ok(data)
            }),
    );
    let kind = match protocol {
        Protocols::GraphQLWS => Envelope::Next,
        Protocols::SubscriptionsTransportWS => Envelope::Data,
    };
    let conn = Arc::new(Conn::keeping_backlog(socket));
    let send_timeout = state.app.config.send_timeout;
    let finish = |code: u16, reason: &str| conn.finish(ws_frame::close(code, reason), send_timeout);
    let mut decoder = Decoder::new(MAX_CLIENT_MESSAGE);
    let mut incoming = Vec::new();
    if let Err(v) = decoder.feed(&early, &mut incoming) {
        finish(v.code, v.why).await;
        return;
    }
    drop(early);
    // The shared subscriptions, by id, each with its slot of the cap.
    let mut owned: HashMap<String, (shared::Shared, CountGuard)> = HashMap::new();
    let closing = state.app.closing.clone();
    // When the backlog last moved (or was last empty).
    let mut last_written = tokio::time::Instant::now();
    loop {
        for m in incoming.drain(..) {
            let bytes = match m {
                Incoming::Text(b) | Incoming::Binary(b) => b,
                Incoming::Ping(p) => {
                    conn.send(&ws_frame::pong(&p), usize::MAX);
                    continue;
                }
                Incoming::Pong(_) => continue,
                Incoming::Close(code) => {
                    finish(code.map_or(1000, |(c, _)| c), "").await;
                    return;
                }
            };
            let access = access_slot.lock().expect("lock").clone();
            match intercept(&bytes, access.as_ref(), &state.groups, &count, kind, &conn) {
                Intercept::Start(id, started) => {
                    if let Some((old, _)) = owned.insert(id, started) {
                        old.stop();
                    }
                }
                Intercept::Stop(id) if owned.contains_key(&id) => {
                    if let Some((old, _)) = owned.remove(&id) {
                        old.stop();
                    }
                    conn.send(&ws_frame::text(&complete_message(&id)), usize::MAX);
                }
                Intercept::Stop(_) | Intercept::Forward => {
                    if !inbox.push(bytes) {
                        finish(1008, "too many messages").await;
                        return;
                    }
                }
            }
        }
        let status = conn.status();
        if status.closed {
            for (s, _) in owned.values() {
                s.stop();
            }
            return;
        }
        if status.lagged || owned.values().any(|(s, _)| s.member().needs_restart()) {
            // Cut back: every shared subscription behind starts again
            // from a fresh catch-up (all of them when the connection lagged).
            conn.rejoin();
            owned = owned
                .into_iter()
                .filter_map(|(id, (s, slot))| {
                    if !status.lagged && !s.member().needs_restart() {
                        return Some((id, (s, slot)));
                    }
                    let next = s.restart();
                    if next.is_none() {
                        conn.send(&ws_frame::text(&complete_message(&id)), usize::MAX);
                    }
                    next.map(|n| (id, (n, slot)))
                })
                .collect();
            continue;
        }
        if !status.backlog {
            last_written = tokio::time::Instant::now();
        }
        // A client that has not taken what waits for it in `send_timeout`
        // is gone.
        let stuck = async {
            if status.backlog {
                tokio::time::sleep_until(last_written + send_timeout).await
            } else {
                std::future::pending().await
            }
        };
        tokio::select! {
            _ = closing.started() => {
                finish(crate::closing::GOING_AWAY, "server shutting down").await;
                return;
            }
            _ = conn.changed() => {}
            _ = stuck => {
                conn.close();
                return;
            }
            p = conn.pump(status.backlog, &mut decoder, &mut incoming, send_timeout) => match p {
                Pumped::Over => return,
                Pumped::Wrote => last_written = tokio::time::Instant::now(),
                Pumped::Read => {}
            },
            m = gql.next(), if !status.backlog => match m {
                Some(WsMessage::Text(t)) => {
                    conn.send(&ws_frame::text(t.as_bytes()), usize::MAX);
                }
                Some(WsMessage::Close(code, reason)) => {
                    finish(code, &reason).await;
                    return;
                }
                None => {
                    conn.close();
                    return;
                }
            },
        }
    }
}

enum Intercept {
    /// A shared subscription, started.
    Start(String, (shared::Shared, CountGuard)),
    /// `complete`/`stop` for this id.
    Stop(String),
    /// For async-graphql.
    Forward,
}

/// Starts a shared subscription when the message is a `subscribe`/`start`
/// that can be shared; everything else goes to async-graphql, which gives
/// every error its usual form.
fn intercept(
    bytes: &[u8],
    access: Option<&Caller>,
    groups: &Groups,
    count: &SubscriptionCount,
    kind: Envelope,
    conn: &Arc<Conn>,
) -> Intercept {
    #[derive(serde::Deserialize)]
    struct ClientMessage {
        #[serde(rename = "type")]
        ty: String,
        id: Option<String>,
        payload: Option<Value>,
    }
    let Ok(m) = serde_json::from_slice::<ClientMessage>(bytes) else {
        return Intercept::Forward;
    };
    let (Some(id), Some(access)) = (m.id, access) else {
        return Intercept::Forward;
    };
    match m.ty.as_str() {
        "subscribe" | "start" => {}
        "complete" | "stop" => return Intercept::Stop(id),
        _ => return Intercept::Forward,
    }
    let Some(plan) = m
        .payload
        .as_ref()
        .and_then(|p| Plan::parse(p, groups.fields()))
    else {
        return Intercept::Forward;
    };
    // The per-connection cap: over it, async-graphql says so.
    let n = count.0.fetch_add(1, Ordering::AcqRel);
    let guard = CountGuard(count.0.clone());
    if n >= MAX_SUBSCRIPTIONS_PER_CONNECTION {
        return Intercept::Forward;
    }
    let Some(started) = shared::start(groups, plan, access, conn, &id, kind) else {
        return Intercept::Forward;
    };
    Intercept::Start(id, (started, guard))
}

/// The playground: a page of its own, served from the binary, since
/// GraphiQL loads React from a CDN and halls are often offline.
async fn playground() -> Html<&'static str> {
    Html(include_str!("../assets/playground.html"))
}

/// The schema as SDL, the same text as the committed schema.graphql.
async fn schema_sdl() -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        sdl(),
    )
        .into_response()
}

#[derive(Clone)]
struct GqlState {
    app: AppState,
    schema: GatewaySchema,
    groups: Groups,
}

/// `/graphql` (POST queries, GET GraphiQL) and `/graphql/ws`.
pub fn routes(app: AppState) -> Router {
    let schema = schema(app.hub.clone(), app.standings.clone());
    let groups = Groups::new(app.hub.clone(), Arc::new(field_table()));
    Router::new()
        .route(
            "/graphql",
            get(playground)
                .post(graphql_http)
                .layer(axum::extract::DefaultBodyLimit::max(MAX_GRAPHQL_BODY_BYTES)),
        )
        .route("/graphql/ws", get(graphql_ws))
        .route("/graphql/schema.graphql", get(schema_sdl))
        .with_state(GqlState {
            app,
            schema,
            groups,
        })
}
