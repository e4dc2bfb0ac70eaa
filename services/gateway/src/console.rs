//! The table judge's web console (`/judge-console`, issue 9): the page, its
//! script, style and generated protobuf codec, all embedded in the binary,
//! and the one JSON route it needs from the gateway, the games its token may
//! judge. The console itself talks gRPC-web to the referee (which alone
//! checks and stores commands); the gateway only tells the page where the
//! referee's gRPC-web endpoint is (`ConsoleConfig`), written into the page.

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use mafia_access::Role;
use mafia_rules::Audience;
use serde_json::json;

use crate::app::{authorize, ApiError, AppState, ConsoleConfig, FeedQuery};

const PAGE: &str = include_str!("../assets/console.html");
/// Path, content type, content.
pub const CONSOLE_ASSETS: &[(&str, &str, &str)] = &[
    (
        "/assets/console.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/console.js"),
    ),
    (
        "/assets/console_proto.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/console_proto.js"),
    ),
    (
        "/assets/console.css",
        "text/css; charset=utf-8",
        include_str!("../assets/console.css"),
    ),
];

/// The placeholder in `console.html` replaced by the referee's URL.
const REFEREE_SLOT: &str = "{{REFEREE_URL}}";

/// The page as served: the referee's URL written in (attribute-escaped).
pub fn page(config: &ConsoleConfig) -> String {
    let url = config.referee_url.as_deref().unwrap_or("");
    let escaped = url
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    PAGE.replace(REFEREE_SLOT, &escaped)
}

/// Bytes of the console's first load: its page, script, codec and style.
pub fn first_load_bytes(config: &ConsoleConfig) -> usize {
    page(config).len() + CONSOLE_ASSETS.iter().map(|a| a.2.len()).sum::<usize>()
}

pub fn routes() -> Router<AppState> {
    crate::assets::embedded(CONSOLE_ASSETS)
        .route("/judge-console", get(console_page))
        .route("/judge-console/api/games", get(console_games))
}

async fn console_page(State(state): State<AppState>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        page(&state.console),
    )
        .into_response()
}

/// The games the caller may judge, newest last, with whether each is over,
/// and the token's scope (what the console offers to open). Only judges'
/// tokens: the others are refused (403), a bad token 401.
async fn console_games(
    State(state): State<AppState>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let caller = authorize(&state, q.token.as_deref(), &headers)?;
    if !matches!(caller.role(), Some(Role::ChiefJudge | Role::TableJudge)) {
        return Err(ApiError::forbidden(
            "the judge console takes a table judge's or the chief judge's token".into(),
        ));
    }
    let games: Vec<serde_json::Value> = state
        .hub
        .games()
        .into_iter()
        .filter(|g| caller.may_judge(&g.game_id).is_ok())
        .map(|g| {
            let over = state
                .hub
                .state(&g.game_id, Audience::Judge)
                .is_ok_and(|s| s.over);
            json!({"info": g, "over": over})
        })
        .collect();
    let scope: Vec<String> = match &caller {
        mafia_access::Caller::Known(g) => g.games.iter().map(ToString::to_string).collect(),
        mafia_access::Caller::Public => Vec::new(),
    };
    Ok(Json(json!({
        "role": caller.name(),
        "holder": caller.holder(),
        "scope": scope,
        "games": games,
    })))
}
