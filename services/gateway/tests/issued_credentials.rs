//! Credentials issued at runtime, across the whole system on one private
//! Redis: issued through the scoring service, a table judge's credential
//! is honoured within seconds, with no restart, by the referee (open,
//! judge, watch), the scoring service, this process's gateway and a
//! `mafia-gateway` process of its own; revoked, it is refused by all of
//! them, and its open Judge and WatchGame streams and its WebSockets (raw
//! feed, GraphQL, standings, on both gateways) are closed.

use futures::{SinkExt, StreamExt};
use mafia_event_log::testing::RedisServer;
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};
use mafia_proto::v1;
use mafia_proto::v1::referee_client::RefereeClient;
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_record::{StageId, TournamentId};
use mafia_rules::RuleSetId;
use mafia_tournament::{
    Coefficient, Judge, JudgeId, PlayerId, Scheme, SeatedTable, Stage, TournamentCommand,
    TournamentSpec,
};
use std::future::Future;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tonic::transport::Channel;
use tonic::{Code, Request};

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const TOKENS: &str = r#"{"tokens":[{"role":"organiser","token":"org-token","name":"Olga"}]}"#;
const GAME: &str = "cup.main.r1.t1.g1";

fn with_token<T>(token: &str, msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// Waits (at most 20 s) until `f` gives `Some`.
async fn eventually<T, F: Future<Output = Option<T>>>(what: &str, mut f: impl FnMut() -> F) -> T {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(v) = f().await {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("not within 20 s: {what}"))
}

/// A `mafia-gateway` process on the same Redis, killed when dropped.
struct GatewayProcess {
    child: Child,
    addr: SocketAddr,
}

impl GatewayProcess {
    fn start(url: &str, prefix: &str) -> GatewayProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-gateway"))
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
            .args(["--redis-url", url, "--redis-prefix", prefix])
            .env("MAFIA_TOKENS", TOKENS)
            .env_remove("MAFIA_TOKENS_FILE")
            .env_remove("MAFIA_FEED_SHARDS")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.starts_with("hall screen:") {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "no address");
        }
        let addr = line
            .trim()
            .trim_start_matches("hall screen:")
            .trim()
            .trim_start_matches("http://")
            .trim_end_matches("/hall")
            .parse()
            .unwrap();
        // Its later lines go nowhere, without blocking it.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        GatewayProcess { child, addr }
    }
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET `path` with `?token=`: the status.
async fn status(addr: SocketAddr, path: &str, token: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "GET {path}?token={token} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out[9..12].parse().unwrap()
}

async fn ws(addr: SocketAddr, path: &str, protocol: Option<&str>) -> Ws {
    let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
    if let Some(p) = protocol {
        req.headers_mut()
            .insert("sec-websocket-protocol", p.parse().unwrap());
    }
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

/// The close code `ws` ends with, skipping other messages.
async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("no close within 20 s");
        match m {
            Some(Ok(Message::Close(c))) => return c.map(|c| c.code.into()),
            Some(Ok(_)) => {}
            None | Some(Err(_)) => return None,
        }
    }
}

async fn command(c: &mut ScoringClient<Channel>, cmd: &TournamentCommand) {
    c.command(with_token(
        "org-token",
        v1::CommandRequest {
            tournament: "cup".into(),
            command_json: serde_json::to_string(cmd).unwrap(),
        },
    ))
    .await
    .unwrap();
}

/// "cup", its judge anna seated at table 1 of round 1, its game assigned.
async fn set_up(c: &mut ScoringClient<Channel>) {
    let spec = TournamentSpec {
        id: TournamentId::new("cup").unwrap(),
        name: "Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    c.create_tournament(with_token(
        "org-token",
        v1::CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec).unwrap(),
        },
    ))
    .await
    .unwrap();
    let judge = Judge {
        id: JudgeId::new("anna"),
        name: "Anna".into(),
    };
    command(c, &TournamentCommand::AddJudge { judge }).await;
    let stage = Stage {
        id: StageId::new("main").unwrap(),
        name: "Main".into(),
        rounds: 1,
        tables: 1,
        coefficient: Coefficient::ONE,
    };
    command(c, &TournamentCommand::AddStage { stage }).await;
    let mut csv = String::from("id,nickname\n");
    for n in 1..=10 {
        csv.push_str(&format!("p{n:02},Player {n}\n"));
    }
    c.register_players_csv(with_token(
        "org-token",
        v1::RegisterPlayersCsvRequest {
            tournament: "cup".into(),
            csv,
            csv_bytes: Vec::new(),
        },
    ))
    .await
    .unwrap();
    let seat = TournamentCommand::SeatRound {
        stage: StageId::new("main").unwrap(),
        round: 1,
        tables: vec![SeatedTable {
            table: 1,
            seats: (1..=10)
                .map(|n| PlayerId::new(format!("p{n:02}")))
                .collect(),
            judge: Some(JudgeId::new("anna")),
        }],
    };
    command(c, &seat).await;
    let assign = TournamentCommand::AssignGame {
        game: GAME.parse().unwrap(),
        judge: None,
    };
    command(c, &assign).await;
}

fn open_request() -> v1::OpenGameRequest {
    let cards = [
        "civilian", "civilian", "sheriff", "civilian", "mafia", "civilian", "don", "civilian",
        "mafia", "civilian",
    ];
    v1::OpenGameRequest {
        tournament_id: "cup".into(),
        tournament: "Cup".into(),
        stage: "main".into(),
        round: 1,
        table: 1,
        game: 1,
        rules: RuleSetId::Rfm.as_str().into(),
        seats: (1..=10)
            .map(|n| v1::SeatEntry {
                seat: n,
                player_id: format!("p{n:02}"),
                nickname: format!("Player {n}"),
            })
            .collect(),
        deal: Some(v1::open_game_request::Deal::Cards(v1::DealCards {
            roles: cards.iter().map(|c| c.to_string()).collect(),
        })),
        at: 1_700_000_000_000,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_issued_credential_works_everywhere_and_once_revoked_is_refused_and_its_streams_closed()
{
    let server = RedisServer::from_env_or_spawn().expect("a redis-server for tests");
    let prefix = server.scoped_prefix("credentials");
    let connect = || async {
        Arc::new(
            RedisLog::connect_with(server.url(), RedisLogConfig::with_prefix(prefix.as_str()))
                .await
                .unwrap(),
        ) as Arc<dyn EventLog>
    };
    let tokens = || Tokens::from_json(TOKENS).unwrap();

    // Each service with its own log connection and token table, as
    // separate processes have; and one more gateway as a process.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let scoring = mafia_scoring::start(listener, connect().await, tokens())
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let referee = mafia_referee::server::start(
        listener,
        connect().await,
        mafia_referee::RefereeOptions {
            tokens: tokens(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let gateway_log = connect().await;
    let hub = Hub::start(gateway_log.clone(), HubConfig::default())
        .await
        .unwrap();
    let gateway_tokens = tokens();
    tokio::spawn(mafia_access::follow::run(
        gateway_tokens.clone(),
        gateway_log.clone(),
        std::future::pending(),
    ));
    let state = app_state(hub, gateway_tokens, ServerConfig::default());
    tokio::spawn(mafia_gateway::board::follow(
        state.standings.clone(),
        gateway_log,
        std::future::pending(),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway = listener.local_addr().unwrap();
    tokio::spawn(mafia_gateway::serve(
        listener,
        state,
        std::future::pending(),
    ));
    let process = GatewayProcess::start(server.url(), prefix.as_str());

    let mut sc = ScoringClient::connect(format!("http://{}", scoring.addr))
        .await
        .unwrap();
    let mut rc = RefereeClient::connect(format!("http://{}", referee.addr))
        .await
        .unwrap();
    set_up(&mut sc).await;
    let issued = sc
        .issue_credential(with_token(
            "org-token",
            v1::IssueCredentialRequest {
                tournament: "cup".into(),
                role: "table_judge".into(),
                name: "anna".into(),
                scopes: vec![],
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let token = issued.token.clone();
    let id = issued.credential.unwrap().id;

    // Honoured everywhere within seconds, with no restart.
    eventually("the referee opens with it", || {
        let mut rc = rc.clone();
        let token = token.clone();
        async move {
            match rc.open_game(with_token(&token, open_request())).await {
                Ok(_) => Some(()),
                Err(e) if e.code() == Code::Unauthenticated => None,
                Err(e) => panic!("{e:?}"),
            }
        }
    })
    .await;
    eventually("the scoring service knows it", || {
        let mut sc = sc.clone();
        let token = token.clone();
        async move {
            let r = sc
                .get_standings(with_token(
                    &token,
                    v1::TournamentRef {
                        tournament: "cup".into(),
                    },
                ))
                .await;
            r.ok().map(drop)
        }
    })
    .await;
    for addr in [gateway, process.addr] {
        eventually("a gateway knows it", || {
            let token = token.clone();
            async move { (status(addr, "/api/games", &token).await == 200).then_some(()) }
        })
        .await;
    }
    // Out of its scope it is refused, not downgraded.
    let mut other = open_request();
    other.table = 2;
    let e = rc.open_game(with_token(&token, other)).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");

    // Its long-lived streams: a Judge stream attached, a watcher, and
    // WebSockets on both gateways.
    let (mut judge_tx, judge_rx) = futures::channel::mpsc::channel(4);
    judge_tx
        .send(v1::JudgeCommand {
            kind: Some(v1::judge_command::Kind::Attach(v1::Attach {
                game_id: GAME.into(),
                last_acked_seq: 0,
                omit_state: true,
            })),
        })
        .await
        .unwrap();
    let mut judging = rc
        .judge(with_token(&token, judge_rx))
        .await
        .unwrap()
        .into_inner();
    let attached = judging.message().await.unwrap().unwrap();
    assert!(matches!(
        attached.kind,
        Some(v1::referee_reply::Kind::Attached(_))
    ));
    let mut watching = rc
        .watch_game(with_token(
            &token,
            v1::WatchGameRequest {
                game_id: GAME.into(),
                audience: v1::Audience::Judge as i32,
                from_seq: 0,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let mut sockets = vec![
        ws(gateway, &format!("/ws/hall?token={token}"), None).await,
        ws(process.addr, &format!("/ws/hall?token={token}"), None).await,
        ws(gateway, &format!("/ws/standings/cup?token={token}"), None).await,
    ];
    let mut gql = ws(gateway, "/graphql/ws", Some("graphql-transport-ws")).await;
    gql.send(Message::Text(
        serde_json::json!({"type":"connection_init","payload":{"token":token}})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    loop {
        let m = gql.next().await.unwrap().unwrap();
        if m.to_text().unwrap().contains("connection_ack") {
            break;
        }
    }
    sockets.push(gql);

    // Revoked through the scoring service.
    let list = sc
        .revoke_credential(with_token(
            "org-token",
            v1::RevokeCredentialRequest {
                tournament: "cup".into(),
                id: id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let revoked = list.credentials.iter().find(|c| c.id == id).unwrap();
    assert_eq!(revoked.revoked_by, "Olga");

    // Its open streams end, unauthenticated; its sockets close with 1008.
    let e = tokio::time::timeout(Duration::from_secs(20), judging.message())
        .await
        .expect("the judge stream ends")
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    assert!(e.message().contains("revoked"), "{e:?}");
    let e = loop {
        match tokio::time::timeout(Duration::from_secs(20), watching.message())
            .await
            .expect("the watch ends")
        {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the watch ended without a status"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    for s in &mut sockets {
        assert_eq!(close_code(s).await, Some(1008));
    }

    // Refused everywhere from then on.
    let e = rc
        .get_game(with_token(
            &token,
            v1::GetGameRequest {
                game_id: GAME.into(),
                audience: v1::Audience::Judge as i32,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let e = sc
        .get_standings(with_token(
            &token,
            v1::TournamentRef {
                tournament: "cup".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    for addr in [gateway, process.addr] {
        eventually("a gateway refuses it", || {
            let token = token.clone();
            async move { (status(addr, "/api/games", &token).await == 401).then_some(()) }
        })
        .await;
    }
    drop(process);
    scoring.shutdown().await;
}
