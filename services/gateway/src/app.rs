//! What every route shares: the state handed to each handler, the
//! server's tuning, and the edge's common steps (where the token comes
//! from, a game id from the URL or a GraphQL argument into a [`GameId`]
//! and an audience, errors as HTTP answers). The raw feed (`server.rs`),
//! GraphQL (`graphql.rs`) and the screens (`assets.rs`) all build on it,
//! and none of them on each other.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use mafia_record::GameId;
use mafia_rules::Audience;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{caller_of, AuthError, Caller, Tokens};
use crate::closing::Closing;
use crate::hub::{Hub, HubError};

/// Tuning for the HTTP side.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// How often the server pings a WebSocket client.
    pub ping_interval: Duration,
    /// A client silent (no pong, no message) for this long is closed.
    pub idle_timeout: Duration,
    /// A single send that cannot complete in this time closes the connection:
    /// a client that stopped reading must not hold a task forever.
    pub send_timeout: Duration,
    /// Snapshots a lagging connection may be cut back to before it is closed.
    pub max_cutbacks: u32,
    /// An HTTP connection that has not sent a whole request head this long
    /// after it connected, or after its last response, is closed: a silent
    /// or trickling client must not hold a descriptor and a task forever.
    pub header_timeout: Duration,
    /// A request body not wholly received this long after its head is cut
    /// off (408 on `POST /graphql`): a trickling body must not hold a
    /// descriptor and a task for minutes.
    pub body_timeout: Duration,
    /// Connections (HTTP and upgraded WebSockets) one client address may
    /// hold at once; more are answered 503 before any upgrade. 0: no cap
    /// (behind a proxy, where every client has the proxy's address).
    pub max_connections_per_address: usize,
    /// Bytes that may wait on one WebSocket (`limits::Sockets::send_budget`);
    /// a client that would take more is closed with 1008.
    pub send_budget: usize,
    /// Routes `/ws/autobahn-echo` (`ws::echo`), an echo endpoint on the
    /// feeds' transport for the Autobahn fuzzing client
    /// (`tests/autobahn/run.sh`); off but for conformance runs.
    pub autobahn_echo: bool,
}

/// The default of [`ServerConfig::max_connections_per_address`]: a hall's
/// screens behind one NAT and a client's reconnects fit many times over.
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            send_timeout: Duration::from_secs(10),
            max_cutbacks: 8,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            send_budget: crate::limits::DEFAULT_SEND_BUDGET,
            autobahn_echo: false,
        }
    }
}

/// What the pages may load from elsewhere.
#[derive(Clone, Debug, Default)]
pub struct PagesConfig {
    /// Origins (`scheme://host[:port]`) players' photos may be loaded from.
    /// A photo anywhere else is not offered, and the pages' content
    /// security policy lets a browser load images from these and the
    /// gateway only: a third party cannot follow the hall and OBS machines.
    pub photo_hosts: Vec<String>,
}

impl PagesConfig {
    /// Whether a photo at `url` may be shown: on the gateway itself (a
    /// path), in the URL itself (`data:image/…`), or at an allowed origin.
    pub fn allows_photo(&self, url: &str) -> bool {
        let on_gateway = url.starts_with('/') && !url.starts_with("//");
        on_gateway
            || url.starts_with("data:image/")
            || self.photo_hosts.iter().any(|h| {
                url.strip_prefix(h.trim_end_matches('/'))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
    }

    /// The `Content-Security-Policy` of every page: images from the
    /// gateway and the allowed photo origins only.
    pub fn content_security_policy(&self) -> String {
        let mut p = String::from("img-src 'self' data:");
        for h in &self.photo_hosts {
            p.push(' ');
            p.push_str(h.trim_end_matches('/'));
        }
        p
    }
}

/// Where the judge console (`console.rs`) finds the referee.
#[derive(Clone, Debug, Default)]
pub struct ConsoleConfig {
    /// The referee's gRPC-web base URL as the judge's browser reaches it,
    /// e.g. `http://10.0.0.2:50051`; `None`: the judge types it in.
    pub referee_url: Option<String>,
    /// The scoring service's gRPC-web base URL, where the console sends a
    /// tournament game's post-game inputs; `None`: the console offers none.
    pub scoring_url: Option<String>,
}

impl ServerConfig {
    pub fn keepalive(&self) -> crate::ws::keepalive::Timing {
        crate::ws::keepalive::Timing {
            ping_interval: self.ping_interval,
            idle_timeout: self.idle_timeout,
            send_timeout: self.send_timeout,
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub hub: Hub,
    pub tokens: Arc<Tokens>,
    pub config: ServerConfig,
    pub closing: Closing,
    /// Pings the feeds' connections and closes the silent and stuck ones.
    pub keepalive: crate::ws::Keepalive,
    /// The per-address cap and the WebSockets' send budget, with their
    /// gauges (`crate::limits`).
    pub sockets: Arc<crate::limits::Sockets>,
    /// Tournament standings, folded off the log (`crate::standings`).
    pub standings: crate::board::Board,
    pub console: ConsoleConfig,
    pub pages: PagesConfig,
    /// When each game's judge console was last heard from (`table_board`).
    pub presence: crate::table_board::Presence,
}

#[derive(Debug, Deserialize)]
pub struct FeedQuery {
    pub token: Option<String>,
    pub from: Option<u64>,
    /// The hall's feed: one tournament's games only.
    pub tournament: Option<String>,
}

/// An error as the HTTP status and a JSON body that says only what the
/// caller may know.
pub struct ApiError(StatusCode, String);

impl ApiError {
    pub fn bad_request(why: String) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, why)
    }

    pub fn unauthorized(why: String) -> ApiError {
        ApiError(StatusCode::UNAUTHORIZED, why)
    }

    pub fn forbidden(why: String) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, why)
    }

    pub fn not_found(why: String) -> ApiError {
        ApiError(StatusCode::NOT_FOUND, why)
    }

    pub fn unavailable(why: String) -> ApiError {
        ApiError(StatusCode::SERVICE_UNAVAILABLE, why)
    }

    pub fn conflict(why: String) -> ApiError {
        ApiError(StatusCode::CONFLICT, why)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::BadToken | AuthError::BadScheme => {
                ApiError(StatusCode::UNAUTHORIZED, e.to_string())
            }
            AuthError::Denied { .. } => ApiError(StatusCode::FORBIDDEN, e.to_string()),
            AuthError::Config(_) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<HubError> for ApiError {
    fn from(e: HubError) -> Self {
        match e {
            HubError::UnknownGame(_) => ApiError(StatusCode::NOT_FOUND, e.to_string()),
            HubError::Log(_) => ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "event log unavailable".into(),
            ),
        }
    }
}

pub fn authorize(
    state: &AppState,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Caller, ApiError> {
    Ok(caller_of(&state.tokens, query, headers)?)
}

/// The game named by `text` and the audience `access` gets for it,
/// checking the game exists (an id that does not parse names no game)
/// before the token's scope, so that a judge token can't probe game ids
/// any better than the public can.
pub fn game_audience(
    hub: &Hub,
    access: &Caller,
    text: &str,
) -> Result<(GameId, Audience), HubOrAuth> {
    let id = match text.parse::<GameId>() {
        Ok(id) if hub.has_game(&id) => id,
        _ => return Err(HubOrAuth::Hub(HubError::UnknownGame(text.to_owned()))),
    };
    let audience = access.audience_for(&id).map_err(HubOrAuth::Auth)?;
    Ok((id, audience))
}

/// Why a caller gets no game: it does not exist, or is not theirs.
#[derive(Debug, thiserror::Error)]
pub enum HubOrAuth {
    #[error(transparent)]
    Hub(HubError),
    #[error(transparent)]
    Auth(AuthError),
}

impl From<HubOrAuth> for ApiError {
    fn from(e: HubOrAuth) -> Self {
        match e {
            HubOrAuth::Hub(e) => e.into(),
            HubOrAuth::Auth(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod pages_tests {
    use super::PagesConfig;

    #[test]
    fn a_photo_is_allowed_on_the_gateway_and_the_configured_origins_only() {
        let pages = PagesConfig {
            photo_hosts: vec!["https://photos.example.org/".into()],
        };
        for ok in [
            "/photos/1.png",
            "data:image/png;base64,iVBORw0KGgo=",
            "https://photos.example.org/p/1.png",
        ] {
            assert!(pages.allows_photo(ok), "{ok}");
        }
        for bad in [
            "https://tracker.example.com/1.png",
            "https://photos.example.org.tracker.com/1.png",
            "//tracker.example.com/1.png",
            "http://photos.example.org/1.png",
        ] {
            assert!(!pages.allows_photo(bad), "{bad}");
        }
        assert_eq!(
            pages.content_security_policy(),
            "img-src 'self' data: https://photos.example.org"
        );
        assert!(!PagesConfig::default().allows_photo("https://photos.example.org/1.png"));
    }
}
