//! A referee on loopback over either backend, and helpers to drive it.
#![allow(dead_code)]

use mafia_event_log::testing::{RedisServer, ScopedPrefix};
use mafia_event_log::{EmbeddedLog, EventLog, RedisLog, RedisLogConfig};
use mafia_judge_client::{ClientConfig, Referee};
use mafia_proto::v1;
use mafia_proto::v1::referee_client::RefereeClient;
use mafia_record::Header;
use mafia_referee::{server, RefereeOptions, RunningReferee, Tokens};
use mafia_rules::sim::simulate;
use mafia_rules::{Command, RuleSetId};
use rand::SeedableRng;
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::Channel;

pub const CHIEF: &str = "chief-token";
pub const TABLE3: &str = "table-3-token";
pub const ORGANISER: &str = "organiser-token";
pub const BROADCAST: &str = "broadcast-token";
/// The judge of table 1 of every tournament (`*.*.*.t1.*`, as `make run`
/// makes him).
pub const TABLE1_ANYWHERE: &str = "table-1-anywhere-token";

/// Where a test's events go; dropped at the end of the test.
pub enum Backend {
    Embedded(tempfile::TempDir),
    // The prefix must drop before the server (field order).
    Redis(ScopedPrefix, RedisServer),
}

impl Backend {
    pub fn embedded() -> Backend {
        Backend::Embedded(tempfile::tempdir().expect("temp dir"))
    }

    pub fn redis() -> Backend {
        let server = RedisServer::from_env_or_spawn().expect("a redis-server for tests");
        Backend::Redis(server.scoped_prefix("referee"), server)
    }

    /// A (new) log handle; for embedded, only one may be open at a time.
    pub async fn log(&self) -> Arc<dyn EventLog> {
        match self {
            Backend::Embedded(dir) => Arc::new(
                EmbeddedLog::open(dir.path().join("events.redb"))
                    .await
                    .expect("open embedded log"),
            ),
            Backend::Redis(prefix, server) => Arc::new(
                RedisLog::connect_with(server.url(), RedisLogConfig::with_prefix(prefix.as_str()))
                    .await
                    .expect("connect redis log"),
            ),
        }
    }
}

pub fn options() -> RefereeOptions {
    RefereeOptions {
        tokens: Tokens::from_json(&tokens_json()).expect("test tokens"),
        lease_ttl: Duration::from_secs(2),
        ..RefereeOptions::default()
    }
}

/// [`options`] with a 1 s header timeout.
pub fn short_header_timeout() -> RefereeOptions {
    RefereeOptions {
        connections: mafia_proto::serve::Connections {
            header_timeout: Duration::from_secs(1),
            ..Default::default()
        },
        ..options()
    }
}

/// The test token file: the chief judge, a table judge of table 3 of
/// tournament `cup`, an organiser of `cup` and a broadcast token.
pub fn tokens_json() -> String {
    format!(
        r#"{{"tokens":[{{"role":"chief_judge","token":"{CHIEF}"}},
            {{"role":"table_judge","token":"{TABLE3}","games":["cup.*.*.t3.*"]}},
            {{"role":"table_judge","token":"{TABLE1_ANYWHERE}","games":["*.*.*.t1.*"]}},
            {{"role":"organiser","token":"{ORGANISER}","games":["cup.*.*.*.*"]}},
            {{"role":"broadcast","token":"{BROADCAST}"}}]}}"#
    )
}

pub async fn start(log: Arc<dyn EventLog>, opts: RefereeOptions) -> RunningReferee {
    start_on("127.0.0.1:0", log, opts).await
}

pub async fn start_on(addr: &str, log: Arc<dyn EventLog>, opts: RefereeOptions) -> RunningReferee {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    server::start(listener, log, opts)
        .await
        .expect("start referee")
}

pub fn url(r: &RunningReferee) -> String {
    format!("http://{}", r.addr)
}

pub fn referee(urls: Vec<String>, token: &str) -> Referee {
    let mut cfg = ClientConfig::new(urls, token);
    cfg.retry_budget = Duration::from_secs(20);
    Referee::new(cfg).expect("client config")
}

/// A raw client with `token` (or none) for protocol-level tests.
pub async fn raw(r: &RunningReferee) -> RefereeClient<Channel> {
    RefereeClient::connect(url(r)).await.expect("connect")
}

/// A Judge stream with `token`: where to send its commands, and its replies.
pub async fn judge_with(
    c: &mut RefereeClient<Channel>,
    token: &str,
) -> (
    tokio::sync::mpsc::Sender<v1::JudgeCommand>,
    tonic::Streaming<v1::RefereeReply>,
) {
    let (tx, replies) = try_judge_with(c, token).await;
    (tx, replies.expect("a judge stream"))
}

/// [`judge_with`], the call's refusal kept for the caller to check.
pub async fn try_judge_with(
    c: &mut RefereeClient<Channel>,
    token: &str,
) -> (
    tokio::sync::mpsc::Sender<v1::JudgeCommand>,
    Result<tonic::Streaming<v1::RefereeReply>, tonic::Status>,
) {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let replies = c
        .judge(with_token(
            tokio_stream::wrappers::ReceiverStream::new(rx),
            token,
        ))
        .await
        .map(|r| r.into_inner());
    (tx, replies)
}

pub fn with_token<T>(msg: T, token: &str) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

pub fn header(table: u32, rules: RuleSetId, seed: u64) -> Header {
    let id = format!("cup.main.r1.t{table}.g1")
        .parse()
        .expect("a game id");
    Header::simulated(rules, &id, seed)
}

/// A random legal game at `table`, as a record's header and commands.
pub fn simulated(table: u32, seed: u64) -> (Header, Vec<(i64, Command)>, usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sim = simulate(RuleSetId::Rfm, &mut rng, 1_700_000_000_000);
    let mut h = header(table, RuleSetId::Rfm, 0);
    h.deal = sim.setup.deal.clone();
    (h, sim.commands, sim.events.len())
}

pub fn attach(game_id: &str, last_acked: u64) -> v1::JudgeCommand {
    attach_with(game_id, last_acked, false)
}

/// An `Attach` asking for acks without the state.
pub fn attach_omitting_state(game_id: &str, last_acked: u64) -> v1::JudgeCommand {
    attach_with(game_id, last_acked, true)
}

fn attach_with(game_id: &str, last_acked: u64, omit_state: bool) -> v1::JudgeCommand {
    v1::JudgeCommand {
        kind: Some(v1::judge_command::Kind::Attach(v1::Attach {
            game_id: game_id.into(),
            last_acked_seq: last_acked,
            omit_state,
        })),
    }
}

pub fn submit(seq: u64, at: i64, cmd: &Command) -> v1::JudgeCommand {
    v1::JudgeCommand {
        kind: Some(v1::judge_command::Kind::Submit(v1::Submit {
            client_seq: seq,
            at,
            body: Some(v1::submit::Body::CommandJson(
                serde_json::to_string(cmd).unwrap(),
            )),
        })),
    }
}

/// Generates one `#[tokio::test]` per backend for each `async fn(Backend)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::common::Backend::embedded()).await })*
        }
        mod redis {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::common::Backend::redis()).await })*
        }
    };
}
