//! The WebSocket handshake (RFC 6455 §4.2) for the feeds that run on the
//! gateway's own framing: checks the request as axum's `WebSocketUpgrade`
//! does, answers 101, and hands the connection's task the plain
//! `TcpStream` back from hyper (which [`crate::serve`] makes possible by
//! serving HTTP/1 on `TokioIo<TcpStream>`).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::limits::Lease;

/// A request to upgrade to a WebSocket.
pub struct Upgrade {
    key: HeaderValue,
    on_upgrade: hyper::upgrade::OnUpgrade,
    /// The connection's place in its address's count, which the upgraded
    /// socket keeps (`crate::serve` puts it in every request).
    lease: Option<Lease>,
    /// The subprotocols the client offered, in its order.
    pub protocols: Vec<String>,
}

/// Why a request cannot be upgraded.
#[derive(Debug)]
pub struct Refused(StatusCode, &'static str);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let mut response = (self.0, self.1).into_response();
        if self.1 == WRONG_VERSION {
            // RFC 6455 §4.4: the versions the server speaks go with the refusal.
            response.headers_mut().insert(
                header::SEC_WEBSOCKET_VERSION,
                HeaderValue::from_static("13"),
            );
        }
        response
    }
}

const WRONG_VERSION: &str = "`Sec-WebSocket-Version` header did not include '13'";

/// RFC 6455 §4.2.1: the key is 16 bytes, base64-encoded.
fn key_is_valid(key: &HeaderValue) -> bool {
    use base64::Engine;
    key.len() == 24
        && base64::engine::general_purpose::STANDARD
            .decode(key.as_bytes())
            .is_ok_and(|k| k.len() == 16)
}

fn has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.as_bytes()
            .split(|&b| b == b',')
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
    })
}

/// Checks an opening handshake as RFC 6455 §4.2.1 has a server check it;
/// the key, when it is good.
pub fn check(method: &Method, headers: &HeaderMap) -> Result<HeaderValue, Refused> {
    let bad = |why| Refused(StatusCode::BAD_REQUEST, why);
    if method != Method::GET {
        return Err(Refused(StatusCode::METHOD_NOT_ALLOWED, "not a GET"));
    }
    // An opening handshake names its host.
    if !headers.contains_key(header::HOST) {
        return Err(bad("`Host` header missing"));
    }
    if !has_token(headers, header::CONNECTION, "upgrade") {
        return Err(bad("Connection header did not include 'upgrade'"));
    }
    if !has_token(headers, header::UPGRADE, "websocket") {
        return Err(bad("`Upgrade` header did not include 'websocket'"));
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v.as_bytes() != b"13")
    {
        return Err(bad(WRONG_VERSION));
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .cloned()
        .ok_or(bad("`Sec-WebSocket-Key` header missing"))?;
    if !key_is_valid(&key) {
        return Err(bad("`Sec-WebSocket-Key` is not 16 bytes in base64"));
    }
    Ok(key)
}

/// Middleware over every route: a request to upgrade to a WebSocket is
/// [`check`]ed before its handler runs, so routes on another WebSocket
/// stack (the standings channel, on axum's) refuse what this one does.
pub async fn refuse_bad_handshakes(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if has_token(request.headers(), header::UPGRADE, "websocket") {
        if let Err(refused) = check(request.method(), request.headers()) {
            return refused.into_response();
        }
    }
    next.run(request).await
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = Refused;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Refused> {
        let key = check(&parts.method, &parts.headers)?;
        let on_upgrade = parts
            .extensions
            .remove::<hyper::upgrade::OnUpgrade>()
            .ok_or(Refused(
                StatusCode::UPGRADE_REQUIRED,
                "WebSocket request couldn't be upgraded since no upgrade state was present",
            ))?;
        let protocols = parts
            .headers
            .get_all(header::SEC_WEBSOCKET_PROTOCOL)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|p| p.trim().to_owned())
            .collect();
        Ok(Upgrade {
            key,
            on_upgrade,
            lease: parts.extensions.get::<Lease>().cloned(),
            protocols,
        })
    }
}

impl Upgrade {
    /// Answers 101 (with `protocol`, if one was chosen). The socket comes
    /// from the returned [`Upgrading`] once hyper has sent the answer: the
    /// connection's task awaits it itself, so the task's future is the
    /// connection's own, with nothing wrapped around it twice.
    pub fn accept(self, protocol: Option<&'static str>) -> (Response, Upgrading) {
        let accept =
            tokio_tungstenite::tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let mut response = Response::builder()
            .status(StatusCode::SWITCHING_PROTOCOLS)
            .header(header::CONNECTION, "upgrade")
            .header(header::UPGRADE, "websocket")
            .header(header::SEC_WEBSOCKET_ACCEPT, accept);
        if let Some(p) = protocol {
            response = response.header(header::SEC_WEBSOCKET_PROTOCOL, p);
        }
        let response = response
            .body(axum::body::Body::empty())
            .expect("a valid response");
        (response, Upgrading(self.on_upgrade, self.lease))
    }
}

/// An upgrade answered, its socket not yet handed back by hyper.
pub struct Upgrading(hyper::upgrade::OnUpgrade, Option<Lease>);

impl Upgrading {
    /// The plain socket back from hyper, with the bytes it read past the
    /// request and its lease (for its `Conn`); `None` when the upgrade
    /// failed.
    pub async fn socket(self) -> Option<(TcpStream, Bytes, Option<Lease>)> {
        let upgraded = match self.0.await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!(error = %e, "upgrade failed");
                return None;
            }
        };
        match upgraded.downcast::<TokioIo<TcpStream>>() {
            Ok(parts) => Some((parts.io.into_inner(), parts.read_buf, self.1)),
            Err(_) => {
                tracing::error!(
                    "a WebSocket feed was upgraded outside mafia_gateway::serve; closed"
                );
                None
            }
        }
    }
}
