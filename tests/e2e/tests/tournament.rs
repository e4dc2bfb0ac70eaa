//! A whole tournament for real: 20 players, 2 tables, 3 rounds. The referee
//! and the scoring service run as separate processes on one real Redis;
//! each round is seated (`SeatRound`, the seating generator) and opened on
//! the referee (`OpenRound`) through the scoring service, and each opened
//! game is played to its end through the referee by the judge client's
//! simulator (`simulate_game`, random legal commands). The scoring service is
//! killed with SIGKILL mid-tournament and restarted; its standings must be
//! the bytes of the tournament crate's fold of the stored logs, and the
//! results it stored the facts of the stored games, each counted once. A
//! gateway process follows the same log, and the reference `graphql-ws`
//! client subscribed to its `standings` sees the table change after each
//! game, to the fold's totals.

use mafia_event_log::testing::RedisServer;
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandRequest, CreateTournamentRequest, OpenRoundRequest, RegisterPlayersCsvRequest,
    SeatRoundRequest, TournamentRef,
};
use mafia_record::{GameId, Header, LoggedEvent, TournamentId};
use mafia_rules::{Envelope, Event, Game, RuleSetId};
use mafia_tournament::{
    standings, stored, Actor, Coefficient, GameFacts, Judge, JudgeId, Scheme, Stage, Tournament,
    TournamentCommand, TournamentEvent, TournamentSpec,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tonic::transport::Channel;

const ORGANISER: &str = "organiser-e2e-token";
const CHIEF: &str = "chief-e2e-token";
const TOURNAMENT: &str = "open-cup";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bins() -> PathBuf {
    let status = std::process::Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args([
            "build",
            "--bins",
            "-p",
            "mafia-referee",
            "-p",
            "mafia-scoring",
            "-p",
            "mafia-gateway",
        ])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the binaries failed");
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Starts a process and returns it with the address its `listening on` line names.
async fn spawn_listening(cmd: &mut Command) -> (Child, String) {
    spawn_announcing(cmd, "listening on").await
}

/// Starts a process and returns it with the address on its first line
/// that has `marker` (`http://ADDR/…` or `ADDR`).
async fn spawn_announcing(cmd: &mut Command, marker: &str) -> (Child, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the process starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the process prints its address")
            .unwrap()
            .expect("the process did not exit");
        if let Some(rest) = line.split(marker).nth(1) {
            let rest = rest.trim().trim_start_matches("http://");
            break rest.split('/').next().unwrap().to_string();
        }
    };
    // Keep draining stdout so the process never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

struct Setup {
    bin: PathBuf,
    redis_url: String,
    prefix: String,
    tokens: String,
    referee: String,
}

impl Setup {
    async fn scoring(&self) -> (Child, ScoringClient<Channel>) {
        let (child, addr) = spawn_listening(
            Command::new(self.bin.join("mafia-scoring"))
                .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
                .args([
                    "--redis-url",
                    &self.redis_url,
                    "--redis-prefix",
                    &self.prefix,
                ])
                .args(["--referee-url", &format!("http://{}", self.referee)])
                .args(["--referee-token", ORGANISER])
                .env_remove("REDIS_URL")
                .env("MAFIA_TOKENS", &self.tokens),
        )
        .await;
        let client = ScoringClient::connect(format!("http://{addr}"))
            .await
            .expect("the scoring service accepts connections");
        (child, client)
    }
}

fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

fn tref() -> TournamentRef {
    TournamentRef {
        tournament: TOURNAMENT.into(),
    }
}

async fn command(c: &mut ScoringClient<Channel>, cmd: &TournamentCommand) {
    c.command(authed(
        ORGANISER,
        CommandRequest {
            tournament: TOURNAMENT.into(),
            command_json: serde_json::to_string(cmd).unwrap(),
        },
    ))
    .await
    .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
}

async fn create(c: &mut ScoringClient<Channel>) {
    let spec = TournamentSpec {
        id: TournamentId::new(TOURNAMENT).unwrap(),
        name: "Open Cup".into(),
        rules: RuleSetId::Rfm,
        // The simulated tables play a night in seconds: at rfm's public
        // night (50 s) the public's stream, and so its standings, would
        // fall minutes behind the games.
        rule_overrides: serde_json::json!({ "public_night_secs": 1 }),
        scheme: Scheme::rfm(),
    };
    c.create_tournament(authed(
        ORGANISER,
        CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec).unwrap(),
        },
    ))
    .await
    .unwrap();
    for (id, name) in [("j1", "Anna"), ("j2", "Boris")] {
        let judge = Judge {
            id: JudgeId::new(id),
            name: name.into(),
        };
        command(c, &TournamentCommand::AddJudge { judge }).await;
    }
    let stage = Stage {
        id: "main".parse().unwrap(),
        name: "Qualifying".into(),
        rounds: 3,
        tables: 2,
        coefficient: Coefficient::ONE,
    };
    command(c, &TournamentCommand::AddStage { stage }).await;
    let mut csv = String::from("id,nickname,club\n");
    for n in 1..=20 {
        csv.push_str(&format!("p{n:02},Player {n},Club {}\n", n % 4));
    }
    c.register_players_csv(authed(
        ORGANISER,
        RegisterPlayersCsvRequest {
            tournament: TOURNAMENT.into(),
            csv,
            csv_bytes: Vec::new(),
        },
    ))
    .await
    .unwrap();
}

/// Seats the round with the generator and opens its games on the referee.
async fn seat_and_open(c: &mut ScoringClient<Channel>, round: u32) -> Vec<GameId> {
    c.seat_round(authed(
        ORGANISER,
        SeatRoundRequest {
            tournament: TOURNAMENT.into(),
            stage: "main".into(),
            round,
            seed: 2026,
            policies_json: String::new(),
        },
    ))
    .await
    .unwrap();
    let opened = c
        .open_round(authed(
            ORGANISER,
            OpenRoundRequest {
                tournament: TOURNAMENT.into(),
                stage: "main".into(),
                round,
                deal_seed: 0,
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(opened.game_ids.len(), 2);
    opened.game_ids.iter().map(|g| g.parse().unwrap()).collect()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Plays the opened game to its end through the referee: its stored
/// header, random legal commands from the judge client's simulator.
async fn play(log: &RedisLog, referee: &str, game: &GameId, seed: u64) {
    let bytes = log
        .header(&game.to_string())
        .await
        .unwrap()
        .expect("opened");
    let header: Header = serde_json::from_slice(&bytes).unwrap();
    let cfg = mafia_judge_client::ClientConfig::new(vec![format!("http://{referee}")], CHIEF);
    let report = mafia_judge_client::simulate_game(
        mafia_judge_client::Referee::new(cfg).unwrap(),
        &header,
        seed,
        None,
    )
    .await
    .unwrap_or_else(|e| panic!("playing {game}: {e}"));
    assert_eq!(report.games_finished, 1, "{game} played to its end");
}

/// Waits until the service has scored `n` games (polling: the service is
/// another process).
async fn scored(c: &mut ScoringClient<Channel>, n: u32) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = c.get_tournament(tref()).await.unwrap().into_inner();
        assert!(s.scored_games <= n, "more games scored than played: {s:?}");
        if s.scored_games == n {
            return;
        }
        assert!(Instant::now() < deadline, "only {s:?} after a minute");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn read_all(log: &RedisLog, stream: &str) -> Vec<bytes::Bytes> {
    let mut out = Vec::new();
    loop {
        let batch = log.read(stream, out.len() as u64 + 1, 1024).await.unwrap();
        if batch.is_empty() {
            return out;
        }
        out.extend(batch.into_iter().map(|e| e.payload));
    }
}

/// The tournament crate's fold of the stored tournament log.
async fn stored_tournament(log: &RedisLog) -> Tournament {
    let stream = stored::stream_of(&TournamentId::new(TOURNAMENT).unwrap());
    let header = log.header(&stream).await.unwrap().unwrap();
    let events = read_all(log, &stream).await;
    stored::fold_stored(&header, events.iter().map(|b| b.as_ref())).unwrap()
}

/// The tournament as an uninterrupted scorer would have it: the stored
/// organiser's events without any result, then each assigned game's result
/// taken afresh from its game log.
async fn refolded(log: &RedisLog) -> Tournament {
    let stream = stored::stream_of(&TournamentId::new(TOURNAMENT).unwrap());
    let header = log.header(&stream).await.unwrap().unwrap();
    let mut t = Tournament::from_created(&stored::decode(&header).unwrap()).unwrap();
    for bytes in read_all(log, &stream).await {
        let e = stored::decode(&bytes).unwrap();
        if !matches!(e, TournamentEvent::GameResultRecorded { .. }) {
            t.apply(&e);
        }
    }
    let games: Vec<GameId> = t.games.keys().cloned().collect();
    for game in games {
        let key = game.to_string();
        let header: Header =
            serde_json::from_slice(&log.header(&key).await.unwrap().unwrap()).unwrap();
        let envelopes: Vec<Envelope> = read_all(log, &key)
            .await
            .iter()
            .map(|b| serde_json::from_slice::<LoggedEvent>(b).unwrap().envelope)
            .collect();
        let Some(ended_at) = envelopes
            .iter()
            .find(|e| matches!(e.event, Event::GameEnded { .. }))
            .map(|e| e.at)
        else {
            continue; // opened, not played yet
        };
        let g = Game::replay(header.setup().unwrap(), envelopes.iter()).unwrap();
        if !g.is_over() {
            // Decided, its last words still running: the service scores a
            // game once it is over (sanctions in them count, rfm §5.15).
            continue;
        }
        let facts = GameFacts::from_game(&g, &envelopes).unwrap();
        let cmd = TournamentCommand::RecordResult {
            game,
            facts,
            ended_at,
        };
        for e in t.command(&cmd, &Actor::RefereeLog, now_ms()).unwrap() {
            t.apply(&e);
        }
    }
    t
}

async fn standings_json(c: &mut ScoringClient<Channel>) -> String {
    c.get_standings(tref())
        .await
        .unwrap()
        .into_inner()
        .standings_json
}

/// Checks the service's standings against both folds of the logs.
async fn check_standings(c: &mut ScoringClient<Channel>, log: &RedisLog, games: usize) {
    let served = standings_json(c).await;
    let stored = stored_tournament(log).await;
    assert_eq!(
        stored.games.values().filter(|g| g.result.is_some()).count(),
        games
    );
    assert_eq!(served, serde_json::to_string(&standings(&stored)).unwrap());
    let fresh = refolded(log).await;
    assert_eq!(
        served,
        serde_json::to_string(&standings(&fresh)).unwrap(),
        "the stored results are the games' own, each once"
    );
}

/// One table the GraphQL subscriber printed (`js/standings.mjs`).
#[derive(Debug, serde::Deserialize)]
struct Seen {
    version: u64,
    games: u32,
    totals: std::collections::BTreeMap<String, f64>,
}

/// The reference `graphql-ws` client subscribed to the tournament's
/// standings on `gateway`, its tables as they arrive.
async fn standings_subscriber(
    gateway: &str,
) -> (Child, tokio::sync::mpsc::UnboundedReceiver<Seen>) {
    let js = workspace().join("tests/e2e/js");
    if !js.join("node_modules/graphql-ws").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&js)
            .status()
            .await
            .expect("npm runs (install Node.js and npm)");
        assert!(status.success(), "npm ci failed");
    }
    let mut child = Command::new("node")
        .arg(js.join("standings.mjs"))
        .arg(format!("ws://{gateway}/graphql/ws"))
        .arg(TOURNAMENT)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            let seen: Seen = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if tx.send(seen).is_err() {
                return;
            }
        }
    });
    (child, rx)
}

/// Waits for the subscriber's table of `games` scored games, checks its
/// versions only grew on the way, and that its totals are the fold's.
async fn subscriber_sees(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Seen>,
    last_version: &mut u64,
    games: u32,
    log: &RedisLog,
) {
    let seen = loop {
        let s = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no standings of {games} games reached the subscriber"))
            .expect("the subscriber runs");
        // The same version comes again when a result already folded in
        // reaches the public's stream (its end shown after the public
        // night): FEED.md, "Standings".
        assert!(
            s.version >= *last_version,
            "versions never go back: {s:?} after {last_version}"
        );
        *last_version = s.version;
        assert!(s.games <= games, "more games than played: {s:?}");
        if s.games == games {
            break s;
        }
    };
    let fold = standings(&stored_tournament(log).await);
    let fold: serde_json::Value = serde_json::to_value(&fold).unwrap();
    let totals: std::collections::BTreeMap<String, f64> = fold["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap().to_string(),
                r["points"]["total"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen.totals.len(), totals.len(), "{seen:?}");
    for (player, total) in &totals {
        let got = seen.totals[player];
        assert!(
            (got - total).abs() < 1e-9,
            "{player}: {got} on the subscriber, {total} in the fold"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tournament_of_three_rounds_survives_a_kill_of_the_scoring_service() {
    let bin = bins();
    let redis = RedisServer::from_env_or_spawn().expect("a redis-server");
    let prefix = mafia_event_log::testing::unique_prefix("e2e-tournament");
    let tokens = json!({"tokens": [
        {"role": "organiser", "token": ORGANISER, "games": [format!("{TOURNAMENT}.*.*.*.*")]},
        {"role": "chief_judge", "token": CHIEF},
    ]})
    .to_string();
    let (_referee, referee) = spawn_listening(
        Command::new(bin.join("mafia-referee"))
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
            .args(["--store", "redis", "--redis-url", redis.url()])
            .args(["--redis-prefix", &prefix])
            .env("MAFIA_TOKENS", &tokens),
    )
    .await;
    let setup = Setup {
        bin,
        redis_url: redis.url().to_string(),
        prefix: prefix.clone(),
        tokens,
        referee,
    };
    let log = RedisLog::connect_with(redis.url(), RedisLogConfig::with_prefix(&prefix))
        .await
        .unwrap();
    let (mut scoring, mut c) = setup.scoring().await;
    create(&mut c).await;
    let (_gateway, gateway) = spawn_announcing(
        Command::new(setup.bin.join("mafia-gateway"))
            .args(["--listen", "127.0.0.1:0", "--redis-url", redis.url()])
            .args(["--redis-prefix", &prefix])
            .env_remove("REDIS_URL")
            .env("MAFIA_TOKENS", &setup.tokens),
        "hall screen:",
    )
    .await;
    let (_subscriber, mut tables) = standings_subscriber(&gateway).await;
    let mut version = 0;
    subscriber_sees(&mut tables, &mut version, 0, &log).await;

    let mut played = 0;
    let mut standings_seen = vec![standings_json(&mut c).await];
    for round in 1..=3u32 {
        let games = seat_and_open(&mut c, round).await;
        for (i, game) in games.iter().enumerate() {
            if round == 2 && i == 1 {
                // Mid-tournament: the service dies without a chance to
                // flush anything, the game ends while it is down, and a new
                // process catches up from the logs.
                scoring.start_kill().unwrap();
                scoring.wait().await.unwrap();
                play(&log, &setup.referee, game, u64::from(round) * 10 + i as u64).await;
                played += 1;
                let (s, client) = setup.scoring().await;
                (scoring, c) = (s, client);
            } else {
                play(&log, &setup.referee, game, u64::from(round) * 10 + i as u64).await;
                played += 1;
            }
            scored(&mut c, played).await;
            check_standings(&mut c, &log, played as usize).await;
            subscriber_sees(&mut tables, &mut version, played, &log).await;
            let now = standings_json(&mut c).await;
            assert_ne!(
                standings_seen.last(),
                Some(&now),
                "the standings changed after game {game}"
            );
            standings_seen.push(now);
        }
    }
    assert_eq!(played, 6);
    let rows: serde_json::Value = serde_json::from_str(standings_seen.last().unwrap()).unwrap();
    let rows = rows["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    assert!(
        rows.iter().all(|r| r["games"] == 3),
        "everyone played every round"
    );

    // Another restart changes nothing: the same bytes.
    let before = standings_json(&mut c).await;
    scoring.start_kill().unwrap();
    scoring.wait().await.unwrap();
    let (_scoring, mut c) = setup.scoring().await;
    scored(&mut c, 6).await;
    assert_eq!(standings_json(&mut c).await, before);
}
