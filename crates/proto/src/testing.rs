//! Probes of a running gRPC server's connections for the services' tests,
//! over real sockets: what a peer that asks for nothing gets, and that a
//! peer that does ask is still served. Each asks the standard health
//! service, which every server of ours serves without a token.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use prost::bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::codegen::http::Request;

use crate::serve::H2_PREFACE;

/// A gRPC-web health check's request head over HTTP/1.1; its connection is
/// kept alive after the answer.
const GRPC_WEB_HEAD: &[u8] = b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\n\
    host: arena\r\n\
    content-type: application/grpc-web+proto\r\n\
    x-grpc-web: 1\r\n\
    content-length: 5\r\n\r\n";

/// An empty `HealthCheckRequest` (the server as a whole) as one gRPC frame.
const EMPTY_FRAME: &[u8] = &[0; 5];

/// How long a trickling client waits between its bytes.
const TRICKLE: Duration = Duration::from_millis(100);

/// Opens connections to `addr` that never finish a request: one that sends
/// nothing, one that sends an HTTP/1 request head a byte at a time and
/// never ends it, one that does the same with HTTP/2's preface, and one
/// answered a gRPC-web health check over HTTP/1.1 that then stays silent.
/// Panics unless the server closes each within `bound`.
pub async fn assert_http1_connections_without_a_request_are_closed(
    addr: SocketAddr,
    bound: Duration,
) {
    let connect = || async { TcpStream::connect(addr).await.expect("connect") };
    let head_without_its_end = &GRPC_WEB_HEAD[..GRPC_WEB_HEAD.len() - 2];
    let mut kept = connect().await;
    kept.write_all(&[GRPC_WEB_HEAD, EMPTY_FRAME].concat())
        .await
        .expect("send a gRPC-web health check");
    let (silent, trickling, preface, kept) = tokio::join!(
        closed_by_the_server(connect().await, b"", bound),
        closed_by_the_server(connect().await, head_without_its_end, bound),
        closed_by_the_server(connect().await, &H2_PREFACE[..H2_PREFACE.len() - 1], bound),
        closed_by_the_server(kept, b"", bound),
    );
    let answer = kept.as_deref().map(String::from_utf8_lossy);
    let open: Vec<_> = [
        ("silent", silent.is_none()),
        ("trickling", trickling.is_none()),
        ("HTTP/2 preface trickling", preface.is_none()),
        ("kept-alive", answer.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, open)| open.then_some(name))
    .collect();
    assert!(open.is_empty(), "still open after {bound:?}: {open:?}");
    let answer = answer.unwrap_or_default();
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.contains("grpc-status:0"),
        "the kept-alive connection was not answered first: {answer}"
    );
}

/// Sends `trickle` on `tcp` a byte at a time and reads: what the server
/// sent before it closed the connection (or reset it), or `None` if it is
/// still open after `bound`.
pub async fn closed_by_the_server(
    mut tcp: TcpStream,
    mut trickle: &[u8],
    bound: Duration,
) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    let read = async {
        loop {
            tokio::select! {
                read = tcp.read(&mut buf) => match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                },
                () = tokio::time::sleep(TRICKLE), if !trickle.is_empty() => {
                    if tcp.write_all(&trickle[..1]).await.is_err() {
                        return;
                    }
                    trickle = &trickle[1..];
                }
            }
        }
    };
    tokio::time::timeout(bound, read).await.ok()?;
    Some(got)
}

/// Makes a gRPC health check on one HTTP/2 connection to `addr`, leaves
/// the connection idle for `idle`, and makes another on it: the header
/// timeout is not HTTP/2's, whose silence the keepalive pings cover.
pub async fn assert_an_idle_http2_connection_is_kept(addr: SocketAddr, idle: Duration) {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let (mut send, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .expect("HTTP/2 handshake");
    let conn = tokio::spawn(conn);
    for call in ["first", "second"] {
        send.ready()
            .await
            .unwrap_or_else(|e| panic!("no {call} call: {e}"));
        let req = Request::post(format!("http://{addr}/grpc.health.v1.Health/Check"))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(Full::new(Bytes::from_static(EMPTY_FRAME)))
            .expect("a request");
        let resp = send
            .send_request(req)
            .await
            .unwrap_or_else(|e| panic!("the {call} call failed: {e}"));
        assert_eq!(resp.status(), 200, "the {call} call");
        let body = resp.into_body().collect().await.expect("the answer");
        let status = body.trailers().and_then(|t| t.get("grpc-status"));
        assert_eq!(
            status.map(|s| s.as_bytes()),
            Some(&b"0"[..]),
            "the {call} call's status"
        );
        if call == "first" {
            tokio::time::sleep(idle).await;
        }
    }
    drop(send);
    let _ = conn.await;
}
