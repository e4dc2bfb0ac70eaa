//! What every gRPC server of ours does at the socket and for browsers: the
//! accepted sockets with TCP_NODELAY and keepalive, the HTTP/2 keepalive,
//! the header timeout, and CORS for gRPC-web callers (the judge console)
//! from the origins an operator admits. [`crate::serve`] applies them.
//! And the signals a server stops on ([`terminated`]).

use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio_stream::wrappers::TcpListenerStream;
use tokio_stream::{Stream, StreamExt};
use tonic::codegen::http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// An admitted origin that is not one.
#[derive(Debug, thiserror::Error)]
#[error("web origin {0:?} is not an origin (scheme://host[:port], or *)")]
pub struct BadOrigin(pub String);

/// How often a gRPC server pings an HTTP/2 peer, and how long it waits for
/// the answer before it closes the connection: a judge's laptop that left
/// the network without closing must not hold its streams for ever.
pub const KEEPALIVE: Duration = Duration::from_secs(30);

/// How long a gRPC server waits for a connection's TLS handshake and first
/// request head, and for an HTTP/1 connection's next request head after an
/// answer: a client that sends nothing, or a head a byte at a time, must
/// not hold a descriptor and a task for ever ([`crate::serve`]).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// The listener's connections with TCP_NODELAY and TCP keepalive set:
/// without no-delay each unary reply's trailer waits ~40 ms for Nagle, and
/// without keepalive a gRPC-web (HTTP/1) caller that vanished in the middle
/// of a call is never noticed, as HTTP/1 has no ping.
pub fn tuned_incoming(listener: TcpListener) -> impl Stream<Item = std::io::Result<TcpStream>> {
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE)
        .with_interval(Duration::from_secs(10))
        .with_retries(3);
    TcpListenerStream::new(listener).map(move |s| {
        s.inspect(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::warn!(error = %e, "could not set TCP_NODELAY");
            }
            if let Err(e) = socket2::SockRef::from(tcp).set_tcp_keepalive(&keepalive) {
                tracing::warn!(error = %e, "could not set TCP keepalive");
            }
        })
    })
}

/// CORS for gRPC-web callers from `origins` (`*` for any): the headers a
/// gRPC-web call sends (the bearer token among them) and the trailers it
/// must read.
pub fn cors(origins: &[String]) -> Result<CorsLayer, BadOrigin> {
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        let list = origins
            .iter()
            .map(|o| {
                let o = o.trim_end_matches('/');
                match o.split_once("://") {
                    Some(("http" | "https", host)) if !host.is_empty() && !host.contains('/') => {
                        HeaderValue::from_str(o).map_err(|_| BadOrigin(o.to_owned()))
                    }
                    _ => Err(BadOrigin(o.to_owned())),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(list)
    };
    let names = |list: &[&'static str]| {
        list.iter()
            .map(|n| HeaderName::from_static(n))
            .collect::<Vec<_>>()
    };
    Ok(CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers(names(&[
            "authorization",
            "content-type",
            "x-grpc-web",
            "x-user-agent",
            "grpc-timeout",
        ]))
        .expose_headers(names(&[
            "grpc-status",
            "grpc-message",
            "grpc-status-details-bin",
        ]))
        .max_age(Duration::from_secs(24 * 3600)))
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM (`docker stop`, systemd). Both
/// handlers are installed when this is called, not when the future is first
/// polled: call it before printing the address a script waits for, so a
/// signal sent at once ends in the orderly shutdown instead of the default
/// action. Call it inside a runtime.
pub fn terminated() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = term.recv() => {}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_a_scheme_and_a_host_or_a_star() {
        assert!(cors(&["http://10.0.0.2:8080".into(), "https://a.b/".into()]).is_ok());
        assert!(cors(&["*".into()]).is_ok());
        for bad in ["10.0.0.2:8080", "ftp://a", "http://", "http://a/b"] {
            let e = cors(&[bad.into()]).unwrap_err();
            assert!(bad.starts_with(&e.0), "{bad}: {e}");
        }
    }
}
