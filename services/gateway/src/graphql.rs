//! GraphQL over HTTP (`POST /graphql`) and WebSocket (`/graphql/ws`, both
//! graphql-transport-ws and the legacy graphql-ws). Every answer is cut
//! from the hub's per-audience feeds, so GraphQL can show no more than the
//! raw feed does. The schema is committed as `schema.graphql`. Plain
//! subscriptions on the WebSocket share their encoded payloads
//! ([`crate::shared`]); the resolvers below serve everything else.

mod ws;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_graphql::http::{WebSocketProtocols as Protocols, ALL_WEBSOCKET_PROTOCOLS};
use async_graphql::{
    Context, EmptyMutation, Error, Json, MergedObject, MergedSubscription, Object, Result, Schema,
    Subscription,
};
use async_graphql_axum::GraphQLResponse;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use futures::Stream;

use mafia_record::GameId;

use crate::app::{game_audience, ApiError, AppState, FeedQuery};
use crate::auth::{caller_of, Caller, ForGame};
pub use crate::graphql_types::*;
use crate::hub::{Ended, Hub, Subscription as HubSubscription};
use crate::messages::{GameFeed, HallFeed};
use crate::shared::{FieldTable, Groups};
use crate::ws::Upgrade;

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
        let (info, events) = hub
            .protocol_or_archive(&game_id, a)
            .await
            .map_err(|e| Error::new(e.to_string()))?
            .ok_or_else(|| Error::new("the game is not finished"))?;
        Ok(Protocol {
            game: info.into(),
            events: events.iter().map(GameEvent::from).collect(),
        })
    }
}

/// Counts a connection's live subscriptions; the guard gives one back.
#[derive(Clone, Default)]
pub(crate) struct SubscriptionCount(Arc<AtomicUsize>);

pub(crate) struct CountGuard(Arc<AtomicUsize>);

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

/// The largest `POST /graphql` body: queries are small, and a body is held
/// in memory whole before it is parsed. Larger ones get 413.
pub const MAX_GRAPHQL_BODY_BYTES: usize = 64 * 1024;

async fn graphql_http(
    State(state): State<GqlState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<GraphQLResponse, Response> {
    let body = body.map_err(body_refused)?;
    let access = caller_of(&state.app.tokens, q.token.as_deref(), &headers)
        .map_err(|e| ApiError::from(e).into_response())?;
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let req = async_graphql::http::receive_body(content_type, &body[..], Default::default())
        .await
        .map_err(|e| {
            ApiError::bad_request(format!("not a GraphQL request: {e}")).into_response()
        })?;
    Ok(state.schema.execute(req.data(access)).await.into())
}

/// A body that did not arrive whole within the deadline is 408, and the
/// connection closes (its unread rest cannot be skipped); others as axum
/// answers them (413 over the limit).
fn body_refused(e: BytesRejection) -> Response {
    let BytesRejection::FailedToBufferBody(failed) = &e else {
        return e.into_response();
    };
    if !crate::limits::is_body_timeout(failed) {
        return e.into_response();
    }
    (
        axum::http::StatusCode::REQUEST_TIMEOUT,
        [(axum::http::header::CONNECTION, "close")],
        failed.body_text(),
    )
        .into_response()
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
    let (response, upgrading) = ws.accept(chosen);
    let closing = state.app.closing.clone();
    tokio::spawn(closing.track(ws::serve(upgrading, state, protocol, url_access)));
    Ok(response)
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
pub(crate) struct GqlState {
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
