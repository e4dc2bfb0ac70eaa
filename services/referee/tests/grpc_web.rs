//! gRPC-web (what the judge console in a browser speaks) over plain
//! HTTP/1.1 on loopback: a Judge call made of one request body (Attach and
//! Submits as gRPC-web frames), its replies and trailers in the response
//! body, CORS for the configured origin only, and TCP_NODELAY still set.

mod common;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use common::*;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use mafia_proto::convert::request_from_header;
use mafia_proto::v1;
use mafia_referee::RunningReferee;
use prost::Message;

const CONSOLE_ORIGIN: &str = "http://console.test:8080";

async fn web_referee(b: &Backend) -> RunningReferee {
    let mut opts = options();
    opts.web_origins = vec![CONSOLE_ORIGIN.to_owned()];
    start(b.log().await, opts).await
}

/// A gRPC-web request body: each message as a data frame.
fn frames(msgs: &[Vec<u8>]) -> Bytes {
    let mut b = BytesMut::new();
    for m in msgs {
        b.put_u8(0);
        b.put_u32(m.len() as u32);
        b.put_slice(m);
    }
    b.freeze()
}

/// The response body's data frames and its trailer frame's text.
fn split_frames(mut body: Bytes) -> (Vec<Bytes>, String) {
    let (mut data, mut trailers) = (Vec::new(), String::new());
    while body.remaining() >= 5 {
        let flag = body.get_u8();
        let len = body.get_u32() as usize;
        let payload = body.split_to(len);
        if flag & 0x80 != 0 {
            trailers.push_str(&String::from_utf8_lossy(&payload));
        } else {
            data.push(payload);
        }
    }
    (data, trailers)
}

struct WebReply {
    status: u16,
    headers: hyper::HeaderMap,
    body: Bytes,
}

/// One HTTP/1.1 request on a fresh connection.
async fn http1(r: &RunningReferee, req: Request<Full<Bytes>>) -> WebReply {
    let tcp = tokio::net::TcpStream::connect(r.addr).await.unwrap();
    let (mut send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let resp = send.send_request(req).await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    WebReply {
        status,
        headers,
        body,
    }
}

fn grpc_web_call(method: &str, token: &str, body: Bytes) -> Request<Full<Bytes>> {
    Request::post(format!("/mafia.v1.Referee/{method}"))
        .header("host", "referee")
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .header("origin", CONSOLE_ORIGIN)
        .header("authorization", format!("Bearer {token}"))
        .body(Full::new(body))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_call_over_grpc_web_http1_is_attached_acked_and_trailed() {
    let b = Backend::embedded();
    let r = web_referee(&b).await;
    let (header, commands, _) = simulated(3, 5);

    let open = request_from_header(&header, 1_000);
    let reply = http1(
        &r,
        grpc_web_call("OpenGame", TABLE3, frames(&[open.encode_to_vec()])),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.headers["access-control-allow-origin"], CONSOLE_ORIGIN,
        "the console's origin may read the reply"
    );
    let (data, trailers) = split_frames(reply.body);
    assert!(trailers.contains("grpc-status:0"), "{trailers}");
    let opened = v1::OpenGameResponse::decode(data[0].clone()).unwrap();
    assert!(opened.created);

    // Attach and two Submits in one body: the browser's way of using the
    // bidi stream, which the referee ends once the body ends.
    let body = frames(&[
        attach(&opened.game_id, 0).encode_to_vec(),
        submit(1, 2_000, &commands[0].1).encode_to_vec(),
        submit(2, 3_000, &commands[1].1).encode_to_vec(),
    ]);
    let reply = http1(&r, grpc_web_call("Judge", TABLE3, body)).await;
    assert_eq!(reply.status, 200);
    let (data, trailers) = split_frames(reply.body);
    assert!(trailers.contains("grpc-status:0"), "{trailers}");
    let replies: Vec<v1::RefereeReply> = data
        .into_iter()
        .map(|d| v1::RefereeReply::decode(d).unwrap())
        .collect();
    assert!(matches!(
        replies[0].kind,
        Some(v1::referee_reply::Kind::Attached(_))
    ));
    let acked: Vec<u64> = replies[1..]
        .iter()
        .map(|r| match &r.kind {
            Some(v1::referee_reply::Kind::Accepted(a)) => a.client_seq,
            other => panic!("not an ack: {other:?}"),
        })
        .collect();
    assert_eq!(acked, [1, 2]);

    // The same body again (a stale tab re-sending): acked as duplicates.
    let body = frames(&[
        attach(&opened.game_id, 2).encode_to_vec(),
        submit(2, 3_000, &commands[1].1).encode_to_vec(),
    ]);
    let reply = http1(&r, grpc_web_call("Judge", TABLE3, body)).await;
    let (data, _) = split_frames(reply.body);
    let again = v1::RefereeReply::decode(data[1].clone()).unwrap();
    match again.kind {
        Some(v1::referee_reply::Kind::Accepted(a)) => assert!(a.duplicate),
        other => panic!("not a duplicate ack: {other:?}"),
    }
    r.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_web_call_with_another_tables_token_is_denied_in_trailers() {
    let b = Backend::embedded();
    let r = web_referee(&b).await;
    let (header, _, _) = simulated(4, 6);
    let open = request_from_header(&header, 1_000);
    let reply = http1(
        &r,
        grpc_web_call("OpenGame", TABLE3, frames(&[open.encode_to_vec()])),
    )
    .await;
    // gRPC-web carries an error in the headers of an empty response.
    let status = reply
        .headers
        .get("grpc-status")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_else(|| split_frames(reply.body).1);
    assert!(
        status.contains(&(tonic::Code::PermissionDenied as i32).to_string()),
        "{status}"
    );
    r.shutdown().await;
}

fn preflight(origin: &str) -> Request<Full<Bytes>> {
    Request::options("/mafia.v1.Referee/Judge")
        .header("host", "referee")
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type,x-grpc-web",
        )
        .body(Full::new(Bytes::new()))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_preflight_admits_the_consoles_origin_only() {
    let b = Backend::embedded();
    let r = web_referee(&b).await;
    let ok = http1(&r, preflight(CONSOLE_ORIGIN)).await;
    assert_eq!(ok.headers["access-control-allow-origin"], CONSOLE_ORIGIN);
    let allowed = ok.headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("authorization") && allowed.contains("x-grpc-web"));
    let other = http1(&r, preflight("http://elsewhere.test")).await;
    assert!(other.headers.get("access-control-allow-origin").is_none());
    r.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_origin_that_is_not_an_origin_is_refused_at_start() {
    let b = Backend::embedded();
    let mut opts = options();
    opts.web_origins = vec!["console.test/path".to_owned()];
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = mafia_referee::server::start(listener, b.log().await, opts)
        .await
        .err()
        .expect("refused");
    assert!(err.to_string().contains("console.test/path"), "{err}");
}
