//! Operating the referee: TLS, Prometheus metrics, graceful shutdown.

mod common;

use common::*;
use mafia_judge_client::{play, ClientConfig, Record, Referee};
use mafia_proto::convert::request_from_header;
use mafia_proto::v1;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn record(table: u32, seed: u64) -> Record {
    let (header, cmds, _) = simulated(table, seed);
    Record {
        header,
        commands: cmds
            .into_iter()
            .enumerate()
            .map(|(i, (at, c))| (i + 2, at, c))
            .collect(),
    }
}

/// A CA's certificate, and a certificate for `referee.test` it signed with
/// its key: (CA PEM, (certificate PEM, key PEM)).
fn ca_and_referee_identity() -> (Vec<u8>, (Vec<u8>, Vec<u8>)) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["referee.test".to_owned()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    let identity = (cert.pem().into_bytes(), key.serialize_pem().into_bytes());
    (ca.pem().into_bytes(), identity)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_trusting_the_ca_plays_a_game_over_tls() {
    let (ca, identity) = ca_and_referee_identity();
    let b = Backend::embedded();
    let mut opts = options();
    opts.tls = Some(identity);
    let r = start(b.log().await, opts).await;
    let mut cfg = ClientConfig::new(vec![format!("https://{}", r.addr)], TABLE3);
    cfg.tls_ca = Some(ca);
    cfg.tls_domain = Some("referee.test".into());
    let report = play(Referee::new(cfg).unwrap(), &record(3, 51), None)
        .await
        .unwrap();
    assert!(report.over);
    // A plaintext client gets nowhere.
    let mut plain = referee(vec![format!("http://{}", r.addr)], TABLE3);
    let refused = match plain.connect().await {
        Err(_) => true,
        Ok(mut c) => c.get_game(v1::GetGameRequest::default()).await.is_err(),
    };
    assert!(refused);
    r.shutdown().await;
}

/// A TLS connection that never finishes its handshake (silent, or a
/// record announced and never sent) is closed after the header timeout, as
/// a plain one that never finishes a request head is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_connection_without_a_whole_handshake_is_closed_after_the_header_timeout() {
    use mafia_proto::testing::closed_by_the_server;
    let b = Backend::embedded();
    let mut opts = short_header_timeout();
    opts.tls = Some(ca_and_referee_identity().1);
    let r = start(b.log().await, opts).await;
    let connect = || async { tokio::net::TcpStream::connect(r.addr).await.unwrap() };
    let bound = std::time::Duration::from_secs(20);
    // A handshake record's header, announcing 512 bytes that never come.
    let (silent, announced) = tokio::join!(
        closed_by_the_server(connect().await, b"", bound),
        closed_by_the_server(connect().await, b"\x16\x03\x01\x02\x00", bound),
    );
    assert!(
        silent.is_some(),
        "the silent connection is open after {bound:?}"
    );
    assert!(
        announced.is_some(),
        "the announcing connection is open after {bound:?}"
    );
    r.shutdown().await;
}

async fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_accepted_and_rejected_commands() {
    let b = Backend::embedded();
    let mut r = start(b.log().await, options()).await;
    let ml = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let maddr = ml.local_addr().unwrap();
    r.serve_metrics(ml);
    let rec = record(3, 61);
    let n = rec.commands.len();
    play(referee(vec![url(&r)], TABLE3), &rec, None)
        .await
        .unwrap();
    let text = http_get(maddr, "/metrics").await;
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.contains(&format!(
            "referee_commands_total{{outcome=\"accepted\",code=\"\"}} {n}"
        )),
        "{text}"
    );
    assert!(text.contains("referee_append_seconds_count"), "{text}");
    assert!(text.contains("referee_open_games 0"), "{text}");
    r.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_tells_open_judge_streams_to_reconnect() {
    let b = Backend::embedded();
    let r = start(b.log().await, options()).await;
    let h = header(3, mafia_rules::RuleSetId::Classic, 3);
    let mut c = raw(&r).await;
    let opened = c
        .open_game(with_token(request_from_header(&h, 1), TABLE3))
        .await
        .unwrap()
        .into_inner();
    let (tx, mut replies) = judge_with(&mut c, TABLE3).await;
    tx.send(attach(&opened.game_id, 0)).await.unwrap();
    assert!(replies.message().await.unwrap().is_some());
    let stopping = tokio::spawn(r.shutdown());
    let err = replies.message().await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unavailable);
    drop((tx, replies, c));
    stopping.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_the_referee_and_health_services() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    let b = Backend::embedded();
    let r = start(b.log().await, options()).await;
    let channel = tonic::transport::Endpoint::from_shared(url(&r))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut c = ServerReflectionClient::new(channel);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut resp = c
        .server_reflection_info(tokio_stream::iter(vec![req]))
        .await
        .unwrap()
        .into_inner();
    let msg = resp.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = msg.message_response else {
        panic!("expected a service list")
    };
    let names: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"mafia.v1.Referee".to_owned()), "{names:?}");
    assert!(
        names.contains(&"grpc.health.v1.Health".to_owned()),
        "{names:?}"
    );
    drop(resp);
    r.shutdown().await;
}
