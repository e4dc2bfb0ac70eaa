//! The scoring service over real gRPC on 127.0.0.1:0, on both backends.

mod common;

use common::{facts, serve, TOKENS};

use mafia_event_log::testing::{RedisServer, ScopedPrefix};
use mafia_event_log::{EmbeddedLog, EventLog, RedisLog, RedisLogConfig};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandRequest, CreateTournamentRequest, ExportKind, ExportRequest, PlayerHistoryRequest,
    RegisterPlayersCsvRequest, TournamentRef,
};
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{Role, RuleSetId, Seat, Team};
use mafia_scoring::{Running, Tokens};
use mafia_tournament::{
    Coefficient, Judge, JudgeId, PlayerId, Scheme, SeatedTable, Stage, TournamentCommand,
    TournamentSpec,
};
use std::sync::Arc;
use tonic::transport::Channel;
use tonic::{Code, Request};

fn with_token<T>(token: &str, msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    if !token.is_empty() {
        r.metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    r
}

fn pid(n: usize) -> PlayerId {
    PlayerId::new(format!("p{n:02}"))
}

fn game(table: u32) -> GameId {
    GameId::new(
        TournamentId::new("cup").unwrap(),
        StageId::new("main").unwrap(),
        1,
        table,
        1,
    )
    .unwrap()
}

async fn command(
    c: &mut ScoringClient<Channel>,
    token: &str,
    cmd: &TournamentCommand,
) -> Result<u64, tonic::Status> {
    c.command(with_token(
        token,
        CommandRequest {
            tournament: "cup".into(),
            command_json: serde_json::to_string(cmd).unwrap(),
        },
    ))
    .await
    .map(|r| r.into_inner().version)
}

async fn standings(c: &mut ScoringClient<Channel>) -> (u64, String) {
    standings_as(c, "").await
}

async fn standings_as(c: &mut ScoringClient<Channel>, token: &str) -> (u64, String) {
    let r = c
        .get_standings(with_token(
            token,
            TournamentRef {
                tournament: "cup".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    (r.version, r.standings_json)
}

async fn history_as(c: &mut ScoringClient<Channel>, token: &str, player: &str) -> String {
    c.player_history(with_token(
        token,
        PlayerHistoryRequest {
            tournament: "cup".into(),
            player: player.into(),
        },
    ))
    .await
    .unwrap()
    .into_inner()
    .history_json
}

async fn summary(c: &mut ScoringClient<Channel>) -> mafia_proto::v1::TournamentSummary {
    c.get_tournament(with_token(
        "",
        TournamentRef {
            tournament: "cup".into(),
        },
    ))
    .await
    .unwrap()
    .into_inner()
}

/// Records table `table`'s game 1 as won by `winner`, as the game follower
/// does from the referee's log: an internal call no gRPC request reaches.
async fn record(running: &Running, table: u32, winner: Team, ended_at: i64) -> bool {
    mafia_scoring::follower::record(&running.store, &game(table), facts(table, winner), ended_at)
        .await
        .unwrap()
}

/// The incident: a table judge "recorded" ten sheriffs and a red win for
/// his own game before anyone had played it, the standings showed it, and
/// the real result was refused later. No caller records a result now; the
/// game played through the referee is what counts.
#[tokio::test]
async fn a_judge_cannot_forge_his_games_result_and_the_played_game_counts() {
    let (_dir, log) = embedded().await;
    let (running, mut c) = serve(log.clone()).await;
    set_up(&mut c).await;
    let before = standings(&mut c).await;
    let mut forged = facts(1, Team::Red);
    for s in &mut forged.seats {
        s.role = Role::Sheriff;
    }
    let rec = TournamentCommand::RecordResult {
        game: game(1),
        facts: forged,
        ended_at: now_ms(),
    };
    for token in ["named-j1-token", "t1-token", "org-token", "chief-token"] {
        let e = command(&mut c, token, &rec).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}: {e:?}");
        assert!(e.message().contains("referee's log"), "{e:?}");
    }
    assert_eq!(standings(&mut c).await, before, "nothing shown");
    play_table_1(log, 7).await;
    running.follower_reached(|p| p.ends_seen >= 1).await;
    assert_eq!(
        summary(&mut c).await.scored_games,
        1,
        "the real game counts"
    );
    running.shutdown().await;
}

/// A chief judge and an organiser scoped to table 2 act on table 2's games
/// only: not on table 1's appeal, approval or seating, not on anything of
/// the whole tournament, not on another tournament; and their reads of
/// pending extras cover only their games.
#[tokio::test]
async fn a_grant_of_one_table_acts_and_reads_on_that_table_only() {
    use mafia_tournament::{AppealDecision, ApprovalItem, ExtraPoint, JudgeInputs, Points};
    let (_dir, log) = embedded().await;
    let (running, mut c) = serve(log).await;
    set_up(&mut c).await;
    let ended = now_ms() - 1_000;
    record(&running, 1, Team::Red, ended).await;
    record(&running, 2, Team::Red, ended).await;
    let seat1 = Seat::new(1).unwrap();
    let extra = JudgeInputs {
        extras: vec![ExtraPoint {
            seat: seat1,
            points: Points::from_f64(1.6),
        }],
        ..JudgeInputs::default()
    };
    let inputs = TournamentCommand::SubmitJudgeInputs {
        game: game(1),
        inputs: extra,
    };
    command(&mut c, "named-j1-token", &inputs).await.unwrap();
    for t in [1, 2] {
        let file = TournamentCommand::FileAppeal {
            game: game(t),
            player: None,
            event_seq: None,
            text: format!("table {t}"),
        };
        command(&mut c, "org-token", &file).await.unwrap();
    }
    let decide = |appeal| TournamentCommand::DecideAppeal {
        appeal,
        decision: AppealDecision::Rejected,
        reason: "seen on video".into(),
    };
    let approve = TournamentCommand::Approve {
        game: game(1),
        item: ApprovalItem::ExtraValue {
            seat: seat1,
            points: Points::from_f64(1.6),
        },
    };
    let swap = TournamentCommand::SwapSeats {
        stage: StageId::new("main").unwrap(),
        round: 2,
        a: mafia_tournament::Place {
            table: 1,
            seat: seat1,
        },
        b: mafia_tournament::Place {
            table: 2,
            seat: seat1,
        },
    };
    let seat_round_2 = TournamentCommand::SeatRound {
        stage: StageId::new("main").unwrap(),
        round: 2,
        tables: (1..=2u32)
            .map(|t| SeatedTable {
                table: t,
                seats: (1..=10).map(|n| pid((t as usize - 1) * 10 + n)).collect(),
                judge: None,
            })
            .collect(),
    };
    let stage = TournamentCommand::AddStage {
        stage: Stage {
            id: StageId::new("final").unwrap(),
            name: "Final".into(),
            rounds: 1,
            tables: 1,
            coefficient: Coefficient::ONE,
        },
    };
    let v = summary(&mut c).await.version;
    for (token, cmd, what) in [
        ("chief-t2-token", &decide(1), "game cup.main.r1.t1.g1"),
        ("chief-t2-token", &approve, "game cup.main.r1.t1.g1"),
        ("chief-t2-token", &swap, "table 1 of round 2"),
        (
            "chief-t2-token",
            &TournamentCommand::PublishStandings,
            "whole tournament cup",
        ),
        ("org-t2-token", &seat_round_2, "table 1 of round 2"),
        ("org-t2-token", &stage, "whole tournament cup"),
        ("org-other-token", &stage, "whole tournament cup"),
    ] {
        let e = command(&mut c, token, cmd).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token} {cmd:?}: {e:?}");
        assert!(e.message().contains(what), "{token}: {e:?} lacks {what:?}");
    }
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");
    let spec = |id: &str| TournamentSpec {
        id: TournamentId::new(id).unwrap(),
        name: "Other".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    let e = c
        .create_tournament(with_token(
            "org-t2-token",
            CreateTournamentRequest {
                spec_json: serde_json::to_string(&spec("cup2")).unwrap(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // Table 2's appeal is his to decide.
    command(&mut c, "chief-t2-token", &decide(2)).await.unwrap();
    // The +1.6 waiting on table 1 shows to the chief judge of the whole
    // tournament, in the standings and the player's history, and to no one
    // scoped to table 2.
    let pending = |json: &str| -> f64 {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let lines = v.as_array().cloned().unwrap_or_else(|| vec![v]);
        lines
            .iter()
            .map(|l| l["extra_pending"].as_f64().unwrap_or(0.0))
            .sum()
    };
    for (token, seen) in [("chief-token", 1.6), ("chief-t2-token", 0.0)] {
        let row = row(&standings_as(&mut c, token).await.1, "p01");
        assert_eq!(row["extra_pending"], seen, "{token}: {row}");
        let hist = history_as(&mut c, token, "p01").await;
        assert_eq!(pending(&hist), seen, "{token}: {hist}");
    }
    running.shutdown().await;
}

/// Creates "cup" (rfm), judges j1/j2, one stage of 2 tables, 20 players from
/// CSV, seats round 1 and assigns both games.
async fn set_up(c: &mut ScoringClient<Channel>) {
    register(c).await;
    seat_round_1(c).await;
    for t in 1..=2 {
        let assign = TournamentCommand::AssignGame {
            game: game(t),
            judge: None,
        };
        command(c, "org-token", &assign).await.unwrap();
    }
}

/// "cup" with its judges, its stage of 3 rounds at 2 tables and 20 players.
async fn register(c: &mut ScoringClient<Channel>) {
    let spec = TournamentSpec {
        id: TournamentId::new("cup").unwrap(),
        name: "Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    c.create_tournament(with_token(
        "org-token",
        CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec).unwrap(),
        },
    ))
    .await
    .unwrap();
    for j in ["j1", "j2"] {
        let cmd = TournamentCommand::AddJudge {
            judge: Judge {
                id: JudgeId::new(j),
                name: j.into(),
            },
        };
        command(c, "org-token", &cmd).await.unwrap();
    }
    let stage = TournamentCommand::AddStage {
        stage: Stage {
            id: StageId::new("main").unwrap(),
            name: "Main".into(),
            rounds: 3,
            tables: 2,
            coefficient: Coefficient::ONE,
        },
    };
    command(c, "org-token", &stage).await.unwrap();
    let mut csv = String::from("id,nickname,club\n");
    for n in 1..=20 {
        csv.push_str(&format!("p{n:02},Player {n},Club {}\n", n % 3));
    }
    c.register_players_csv(with_token(
        "org-token",
        RegisterPlayersCsvRequest {
            tournament: "cup".into(),
            csv,
            csv_bytes: Vec::new(),
        },
    ))
    .await
    .unwrap();
}

/// Round 1 by hand: p01..p10 at table 1 (judge j1), p11..p20 at table 2 (j2).
async fn seat_round_1(c: &mut ScoringClient<Channel>) {
    let seat = TournamentCommand::SeatRound {
        stage: StageId::new("main").unwrap(),
        round: 1,
        tables: (1..=2u32)
            .map(|t| SeatedTable {
                table: t,
                seats: (1..=10).map(|n| pid((t as usize - 1) * 10 + n)).collect(),
                judge: Some(JudgeId::new(format!("j{t}"))),
            })
            .collect(),
    };
    command(c, "org-token", &seat).await.unwrap();
}

async fn refused_commands_change_nothing_and_name_their_rule(log: Arc<dyn EventLog>) {
    let (running, mut c) = serve(log).await;
    set_up(&mut c).await;
    let before = standings(&mut c).await;

    // A player registered twice (in a CSV: the line is named).
    let e = c
        .register_players_csv(with_token(
            "org-token",
            RegisterPlayersCsvRequest {
                tournament: "cup".into(),
                csv: "p21,New\np03,Again\n".into(),
                csv_bytes: Vec::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("line 2") && e.message().contains("already registered"),
        "{}",
        e.message()
    );
    // A CSV with a broken line.
    let e = c
        .register_players_csv(with_token(
            "org-token",
            RegisterPlayersCsvRequest {
                tournament: "cup".into(),
                csv: "p21,New\np22,,\n".into(),
                csv_bytes: Vec::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().starts_with("players CSV line 2"),
        "{}",
        e.message()
    );
    // More players than one CSV may register: refused before anything is
    // checked, naming the cap.
    let cap = mafia_scoring::csv::MAX_PLAYERS;
    let e = c
        .register_players_csv(with_token(
            "org-token",
            RegisterPlayersCsvRequest {
                tournament: "cup".into(),
                csv: (0..=cap).map(|n| format!("x{n},X{n}\n")).collect(),
                csv_bytes: Vec::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains(&format!("at most {cap}")), "{e:?}");
    // Seat swaps are the chief judge's, not the organiser's.
    let swap = serde_json::json!({"type":"swap_seats","stage":"main","round":1,
        "a":{"table":1,"seat":1},"b":{"table":2,"seat":1}});
    let e = c
        .command(with_token(
            "org-token",
            CommandRequest {
                tournament: "cup".into(),
                command_json: swap.to_string(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert!(
        e.message().contains("only the chief judge"),
        "{}",
        e.message()
    );
    // A judge input for a game not finished.
    let inputs = serde_json::json!({"type":"submit_judge_inputs","game":game(1).to_string(),
        "inputs":{}});
    let e = c
        .command(with_token(
            "chief-token",
            CommandRequest {
                tournament: "cup".into(),
                command_json: inputs.to_string(),
            },
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(e.code(), Code::FailedPrecondition | Code::InvalidArgument),
        "{e:?}"
    );
    // A result, from anyone: only the referee's log gives one.
    let rec = TournamentCommand::RecordResult {
        game: game(2),
        facts: facts(2, Team::Red),
        ended_at: 1,
    };
    for token in ["t2-token", "org-token", "chief-token"] {
        let e = command(&mut c, token, &rec).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}: {e:?}");
        assert!(e.message().contains("not a client command"), "{e:?}");
    }
    // The broadcast and the public read standings, and command nothing.
    let e = command(&mut c, "cast-token", &TournamentCommand::PublishStandings)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = command(&mut c, "", &TournamentCommand::PublishStandings)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // A bad token.
    let e = command(&mut c, "nope-nope", &TournamentCommand::PublishStandings)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    // Malformed JSON.
    let e = c
        .command(with_token(
            "org-token",
            CommandRequest {
                tournament: "cup".into(),
                command_json: "{".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);

    assert_eq!(
        standings(&mut c).await,
        before,
        "a refused command changed the tournament"
    );
    running.shutdown().await;
}

async fn a_result_counts_once_and_a_restart_gives_the_same_standings(log: Arc<dyn EventLog>) {
    let (running, mut c) = serve(log.clone()).await;
    set_up(&mut c).await;
    assert!(record(&running, 1, Team::Red, 1_780_000_000_000).await);
    let v1 = summary(&mut c).await.version;
    // The same result again (a game seen twice) stores nothing.
    assert!(!record(&running, 1, Team::Red, 1_780_000_000_000).await);
    assert_eq!(summary(&mut c).await.version, v1);
    let (_, json) = standings(&mut c).await;
    let s: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = s["rows"].as_array().expect("standings rows");
    let p01 = rows.iter().find(|r| r["player"] == "p01").unwrap();
    assert_eq!(p01["games"], 1, "{p01}");
    let hist = history_as(&mut c, "", "p01").await;
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&hist)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let before = standings(&mut c).await;
    running.shutdown().await;

    // A new instance on the same log folds the tournament again.
    let (running, mut c) = serve(log).await;
    assert_eq!(standings(&mut c).await, before);
    let summary = c
        .get_tournament(with_token(
            "",
            TournamentRef {
                tournament: "cup".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (summary.players, summary.games, summary.scored_games),
        (20, 2, 1)
    );
    running.shutdown().await;
}

async fn embedded() -> (tempfile::TempDir, Arc<dyn EventLog>) {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(dir.path().join("events.redb"))
        .await
        .unwrap();
    (dir, Arc::new(log))
}

/// The prefix deletes its keys when dropped, so it lives as long as the test.
async fn redis(server: &RedisServer, tag: &str) -> (ScopedPrefix, Arc<dyn EventLog>) {
    let prefix = server.scoped_prefix(tag);
    let log = RedisLog::connect_with(server.url(), RedisLogConfig::with_prefix(prefix.as_str()))
        .await
        .unwrap();
    (prefix, Arc::new(log))
}

#[tokio::test]
async fn embedded_refused_commands_change_nothing_and_name_their_rule() {
    let (_dir, log) = embedded().await;
    refused_commands_change_nothing_and_name_their_rule(log).await;
}

#[tokio::test]
async fn embedded_a_result_counts_once_and_a_restart_gives_the_same_standings() {
    let (_dir, log) = embedded().await;
    a_result_counts_once_and_a_restart_gives_the_same_standings(log).await;
}

#[tokio::test]
async fn redis_refused_commands_change_nothing_and_name_their_rule() {
    let server = RedisServer::from_env_or_spawn().unwrap();
    let (_prefix, log) = redis(&server, "scoring-refused").await;
    refused_commands_change_nothing_and_name_their_rule(log).await;
}

#[tokio::test]
async fn redis_a_result_counts_once_and_a_restart_gives_the_same_standings() {
    let server = RedisServer::from_env_or_spawn().unwrap();
    let (_prefix, log) = redis(&server, "scoring-restart").await;
    a_result_counts_once_and_a_restart_gives_the_same_standings(log).await;
}

/// A game of table 1 played to its end through a real referee on the same
/// log; the header seats the tournament's players.
async fn play_table_1(log: Arc<dyn EventLog>, seed: u64) {
    use rand::SeedableRng;
    let opts = mafia_referee::RefereeOptions {
        tokens: mafia_referee::Tokens::from_json(
            r#"{"tokens":[{"role":"chief_judge","token":"chief-token","games":["*"]}]}"#,
        )
        .unwrap(),
        lease_ttl: std::time::Duration::from_secs(2),
        ..mafia_referee::RefereeOptions::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let referee = mafia_referee::server::start(listener, log, opts)
        .await
        .unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sim = mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, 1_780_000_000_000);
    let mut header = mafia_record::Header::simulated(RuleSetId::Rfm, &game(1), 0);
    // The record's cards as the tray's: a seed of the caller's is refused in
    // a tournament the scoring service holds (its seeds are the referee's).
    header.deal = mafia_rules::Deal::Cards(sim.setup.roles().to_vec());
    for (i, s) in header.seats.iter_mut().enumerate() {
        s.player_id = pid(i + 1).to_string();
        s.nickname = format!("Player {}", i + 1);
    }
    let record = mafia_judge_client::Record {
        header,
        commands: sim
            .commands
            .into_iter()
            .enumerate()
            .map(|(i, (at, c))| (i + 2, at, c))
            .collect(),
    };
    let cfg = mafia_judge_client::ClientConfig::new(
        vec![format!("http://{}", referee.addr)],
        "chief-token",
    );
    let report = mafia_judge_client::play(
        mafia_judge_client::Referee::new(cfg).unwrap(),
        &record,
        None,
    )
    .await
    .unwrap();
    assert!(report.over);
    referee.shutdown().await;
}

/// Table 1's game of round 1, played whole, written straight into the log
/// as the referee would have stored it.
async fn write_table_1(log: &Arc<dyn EventLog>, seed: u64) {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sim = mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, 1_780_000_000_000);
    let mut header = mafia_record::Header::simulated(RuleSetId::Rfm, &game(1), 0);
    header.deal = mafia_rules::Deal::Cards(sim.setup.roles().to_vec());
    for (i, s) in header.seats.iter_mut().enumerate() {
        s.player_id = pid(i + 1).to_string();
        s.nickname = format!("Player {}", i + 1);
    }
    let id = game(1).to_string();
    log.create_game(&id, &serde_json::to_vec(&header).unwrap())
        .await
        .unwrap();
    let payloads: Vec<bytes::Bytes> = sim
        .events
        .iter()
        .map(|e| {
            let logged = mafia_record::LoggedEvent {
                client_seq: None,
                envelope: *e,
            };
            bytes::Bytes::from(serde_json::to_vec(&logged).unwrap())
        })
        .collect();
    log.append(&id, 0, 0, &payloads).await.unwrap();
}

async fn a_game_played_through_the_referee_is_scored_once(log: Arc<dyn EventLog>) {
    let (mut running, mut c) = serve(log.clone()).await;
    let m = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_addr = m.local_addr().unwrap();
    running.serve_metrics(m);
    set_up(&mut c).await;
    play_table_1(log.clone(), 7).await;
    running.follower_reached(|p| p.ends_seen >= 1).await;
    let scored = summary(&mut c).await;
    assert_eq!(scored.scored_games, 1);
    let (_, json) = standings(&mut c).await;
    let s: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p01 = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "p01")
        .unwrap()
        .clone();
    assert_eq!(p01["games"], 1, "{p01}");
    let text = get_metrics(metrics_addr).await;
    assert!(
        text.contains("mafia_scoring_games_scored_total 1\n"),
        "{text}"
    );
    let before = standings(&mut c).await;
    running.shutdown().await;

    // A new instance follows the log from the beginning and sees the game
    // again: it counts once, and the standings are the same bytes.
    let (running, mut c) = serve(log).await;
    let p = running.follower_reached(|p| p.caught_up).await;
    assert_eq!(p.ends_seen, 1, "the new instance saw the game's end again");
    assert_eq!(
        summary(&mut c).await.version,
        scored.version,
        "seen twice, stored once"
    );
    assert_eq!(standings(&mut c).await, before);
    running.shutdown().await;
}

#[tokio::test]
async fn embedded_a_game_played_through_the_referee_is_scored_once() {
    let (_dir, log) = embedded().await;
    a_game_played_through_the_referee_is_scored_once(log).await;
}

#[tokio::test]
async fn redis_a_game_played_through_the_referee_is_scored_once() {
    let server = RedisServer::from_env_or_spawn().unwrap();
    let (_prefix, log) = redis(&server, "scoring-played").await;
    a_game_played_through_the_referee_is_scored_once(log).await;
}

async fn get_metrics(addr: std::net::SocketAddr) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

async fn a_seated_round_opens_on_the_referee_with_the_seated_header(log: Arc<dyn EventLog>) {
    let opts = mafia_referee::RefereeOptions {
        tokens: mafia_referee::Tokens::from_json(TOKENS).unwrap(),
        lease_ttl: std::time::Duration::from_secs(2),
        ..mafia_referee::RefereeOptions::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let referee = mafia_referee::server::start(listener, log.clone(), opts)
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let link = mafia_scoring::RefereeLink {
        url: format!("http://{}", referee.addr),
        token: "org-token".into(),
    };
    let running = mafia_scoring::start_with(
        listener,
        log.clone(),
        Tokens::from_json(TOKENS).unwrap(),
        Some(link),
    )
    .await
    .unwrap();
    let mut c = ScoringClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    set_up(&mut c).await;
    let open = |token: &str| {
        with_token(
            token,
            mafia_proto::v1::OpenRoundRequest {
                tournament: "cup".into(),
                stage: "main".into(),
                round: 1,
                deal_seed: 0,
            },
        )
    };
    let e = c.open_round(open("t1-token")).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // An organiser of table 2 opens nothing of a round that has table 1:
    // the service opens with its own credential only what he may open.
    let e = c.open_round(open("org-t2-token")).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert!(e.message().contains(&game(1).to_string()), "{e:?}");
    for t in [1, 2] {
        assert!(
            log.header(&game(t).to_string()).await.unwrap().is_none(),
            "table {t} opened for a caller who may not open table 1"
        );
    }
    // The organiser chooses no seed: each game's is the referee's.
    let mut chosen = open("org-token");
    chosen.get_mut().deal_seed = 5;
    let e = c.open_round(chosen).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let reply = c.open_round(open("org-token")).await.unwrap().into_inner();
    assert_eq!(
        reply.game_ids,
        vec![game(1).to_string(), game(2).to_string()]
    );
    // Opening again is harmless: the same headers.
    c.open_round(open("chief-token")).await.unwrap();
    let header: mafia_record::Header =
        serde_json::from_slice(&log.header(&game(2).to_string()).await.unwrap().unwrap()).unwrap();
    assert_eq!(
        header.tournament_id,
        Some(TournamentId::new("cup").unwrap())
    );
    assert_eq!(header.judge, "j2");
    let seated: Vec<String> = header.seats.iter().map(|s| s.player_id.clone()).collect();
    let expected: Vec<String> = (11..=20).map(|n| pid(n).to_string()).collect();
    assert_eq!(seated, expected);
    assert_eq!(header.seats[0].nickname, "Player 11");
    two_games_of_a_round_are_dealt_from_seeds_of_their_own(&log).await;
    a_replay_decided_on_appeal_opens_the_tables_next_game(
        &running,
        &mut c,
        &log,
        open("org-token"),
    )
    .await;
    running.shutdown().await;

    // Without a referee link the round cannot open.
    let (running, mut c) = serve(log).await;
    let e = c.open_round(open("org-token")).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    running.shutdown().await;
    referee.shutdown().await;
}

/// Each game's header carries only the commitment to a seed the referee
/// drew for it alone, and no two games of the round commit to one seed.
async fn two_games_of_a_round_are_dealt_from_seeds_of_their_own(log: &Arc<dyn EventLog>) {
    let mut commitments = Vec::new();
    let mut seeds = Vec::new();
    for table in [1, 2] {
        let bytes = log.header(&game(table).to_string()).await.unwrap().unwrap();
        let header: mafia_record::Header = serde_json::from_slice(&bytes).unwrap();
        let mafia_rules::Deal::Drawn(d) = header.deal else {
            panic!("table {table}: {:?}", header.deal)
        };
        assert!(
            d.seed.is_none() && d.salt.is_none(),
            "sealed while it plays"
        );
        commitments.push(d.commitment.unwrap());
        let secret = mafia_referee::sealed::stored(log.as_ref(), &game(table))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(secret.commitment(), d.commitment.unwrap());
        seeds.push(secret.seed());
    }
    assert_ne!(commitments[0], commitments[1]);
    assert_ne!(seeds[0], seeds[1]);
}

/// rfm §7.2: an appeal decided as a replay annuls table 1's game; OpenRound
/// then opens g2 there (same seats, a deal of its own) and leaves table 2's
/// game as it was; a second game at a table with no replay due is refused.
async fn a_replay_decided_on_appeal_opens_the_tables_next_game(
    running: &Running,
    c: &mut ScoringClient<Channel>,
    log: &Arc<dyn EventLog>,
    open: Request<mafia_proto::v1::OpenRoundRequest>,
) {
    let replay = |table: u32| GameId {
        game: 2,
        ..game(table)
    };
    let v = summary(c).await.version;
    let early = TournamentCommand::AssignGame {
        game: replay(2),
        judge: None,
    };
    let e = command(c, "org-token", &early).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("rfm §7.2"), "{e:?}");
    assert_eq!(summary(c).await.version, v, "nothing stored");
    record(running, 1, Team::Red, now_ms() - 1_000).await;
    let file = TournamentCommand::FileAppeal {
        game: game(1),
        player: None,
        event_seq: None,
        text: "the lights went out during the night".into(),
    };
    command(c, "org-token", &file).await.unwrap();
    let decide = TournamentCommand::DecideAppeal {
        appeal: 1,
        decision: mafia_tournament::AppealDecision::Replay,
        reason: "the night could not be played as the rules say".into(),
    };
    command(c, "chief-token", &decide).await.unwrap();
    let reply = c.open_round(open).await.unwrap().into_inner();
    assert_eq!(
        reply.game_ids,
        vec![replay(1).to_string(), game(2).to_string()]
    );
    let header = |id: GameId| {
        let log = log.clone();
        async move {
            let bytes = log.header(&id.to_string()).await.unwrap().unwrap();
            serde_json::from_slice::<mafia_record::Header>(&bytes).unwrap()
        }
    };
    let (first, again) = (header(game(1)).await, header(replay(1)).await);
    let players = |h: &mafia_record::Header| -> Vec<String> {
        h.seats.iter().map(|s| s.player_id.clone()).collect()
    };
    assert_eq!(players(&again), players(&first), "the same seats");
    assert_eq!(again.game, 2);
    assert_ne!(again.deal, first.deal, "a deal of its own");
    assert!(summary(c).await.games >= 3, "the replay is assigned");
}

#[tokio::test]
async fn embedded_a_seated_round_opens_on_the_referee_with_the_seated_header() {
    let (_dir, log) = embedded().await;
    a_seated_round_opens_on_the_referee_with_the_seated_header(log).await;
}

#[tokio::test]
async fn redis_a_seated_round_opens_on_the_referee_with_the_seated_header() {
    let server = RedisServer::from_env_or_spawn().unwrap();
    let (_prefix, log) = redis(&server, "scoring-open").await;
    a_seated_round_opens_on_the_referee_with_the_seated_header(log).await;
}

/// The token's `name` is the judge id: a table judge whose grant covers the
/// game but who is not the judge bound to it is refused, and nothing stored.
#[tokio::test]
async fn a_table_judge_acts_as_the_judge_his_token_names() {
    let (_dir, log) = embedded().await;
    let (running, mut c) = serve(log).await;
    set_up(&mut c).await;
    record(&running, 1, Team::Red, now_ms() - 1_000).await;
    let rec = TournamentCommand::SubmitJudgeInputs {
        game: game(1),
        inputs: mafia_tournament::JudgeInputs::default(),
    };
    let before = summary(&mut c).await.version;
    let e = command(&mut c, "named-j2-token", &rec).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert!(e.message().contains("j2"), "{}", e.message());
    assert_eq!(summary(&mut c).await.version, before, "nothing stored");
    let v = command(&mut c, "named-j1-token", &rec).await.unwrap();
    assert_eq!(v, before + 1);
    running.shutdown().await;
}

/// A game played to its end before the tournament assigned it: the follower
/// sees an end of no tournament's game; the assignment scores it, once, and
/// a restart gives the same standings.
async fn a_game_that_ended_before_it_was_assigned_counts_once_assigned(log: Arc<dyn EventLog>) {
    let (running, mut c) = serve(log.clone()).await;
    register(&mut c).await;
    seat_round_1(&mut c).await;
    // The referee opens only assigned games of a held tournament now; a
    // game played before its assignment is one in the log from before
    // that rule (or opened before the tournament was held).
    write_table_1(&log, 11).await;
    running.follower_reached(|p| p.ends_seen >= 1).await;
    assert_eq!(summary(&mut c).await.scored_games, 0, "not assigned yet");
    let assign = TournamentCommand::AssignGame {
        game: game(1),
        judge: None,
    };
    command(&mut c, "org-token", &assign).await.unwrap();
    let s = summary(&mut c).await;
    assert_eq!((s.games, s.scored_games), (1, 1));
    let before = standings(&mut c).await;
    running.shutdown().await;

    let (running, mut c) = serve(log).await;
    running.follower_reached(|p| p.caught_up).await;
    assert_eq!(summary(&mut c).await.version, s.version, "counted once");
    assert_eq!(standings(&mut c).await, before);
    running.shutdown().await;
}

#[tokio::test]
async fn embedded_a_game_that_ended_before_it_was_assigned_counts_once_assigned() {
    let (_dir, log) = embedded().await;
    a_game_that_ended_before_it_was_assigned_counts_once_assigned(log).await;
}

#[tokio::test]
async fn redis_a_game_that_ended_before_it_was_assigned_counts_once_assigned() {
    let server = RedisServer::from_env_or_spawn().unwrap();
    let (_prefix, log) = redis(&server, "scoring-late-assign").await;
    a_game_that_ended_before_it_was_assigned_counts_once_assigned(log).await;
}

fn seat_request(token: &str, round: u32, seed: u64) -> Request<mafia_proto::v1::SeatRoundRequest> {
    seat_request_with(token, round, seed, "")
}

fn seat_request_with(
    token: &str,
    round: u32,
    seed: u64,
    policies_json: &str,
) -> Request<mafia_proto::v1::SeatRoundRequest> {
    with_token(
        token,
        mafia_proto::v1::SeatRoundRequest {
            tournament: "cup".into(),
            stage: "main".into(),
            round,
            seed,
            policies_json: policies_json.into(),
        },
    )
}

/// SeatRound honours the organiser's pair policies, the request's and the
/// tournament's own (SetPairRules): a `separate` pair never shares a table
/// in any round, and a chief judge's swap that would seat one together is
/// refused; a policy naming someone not registered, or malformed, is
/// refused and stores nothing.
#[tokio::test]
async fn a_separate_pair_given_to_seat_round_never_shares_a_table() {
    let (_dir, log) = embedded().await;
    let (running, mut c) = serve(log).await;
    register(&mut c).await;
    let version = summary(&mut c).await.version;
    let e = c
        .seat_round(seat_request_with(
            "org-token",
            1,
            7,
            "[{\"kind\":\"separate\"}",
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let stranger = r#"[{"kind":"separate","a":"p01","b":"p99"}]"#;
    let e = c
        .seat_round(seat_request_with("org-token", 1, 7, stranger))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("p99"), "{e:?}");
    assert_eq!(summary(&mut c).await.version, version, "nothing stored");
    // The tournament's own rule (teammates), kept for every round and swap.
    let rules = TournamentCommand::SetPairRules {
        rules: vec![mafia_tournament::PairRule {
            kind: mafia_tournament::PairKind::Separate,
            a: pid(5),
            b: pid(6),
        }],
    };
    command(&mut c, "org-token", &rules).await.unwrap();
    let policies =
        r#"[{"kind":"separate","a":"p01","b":"p02"},{"kind":"separate","a":"p03","b":"p04"}]"#;
    let mut round_1 = Vec::new();
    for round in 1..=3 {
        let r = c
            .seat_round(seat_request_with("org-token", round, 7, policies))
            .await
            .unwrap()
            .into_inner();
        let e: serde_json::Value = serde_json::from_str(&r.events_json[0]).unwrap();
        for t in e["tables"].as_array().unwrap() {
            let seats: Vec<&str> = t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            for (a, b) in [("p01", "p02"), ("p03", "p04"), ("p05", "p06")] {
                assert!(
                    !(seats.contains(&a) && seats.contains(&b)),
                    "round {round}: {a} and {b} at one table: {seats:?}"
                );
            }
            if round == 1 {
                round_1.push(seats.iter().map(|p| p.to_string()).collect::<Vec<_>>());
            }
        }
    }
    // The chief judge may not swap p06 into p05's table.
    let table_of = |p: &str| {
        round_1
            .iter()
            .position(|t| t.iter().any(|x| x == p))
            .unwrap()
    };
    let (t5, t6) = (table_of("p05"), table_of("p06"));
    let seat_of = |t: usize, p: &str| round_1[t].iter().position(|x| x == p).unwrap();
    let other = (0..10).find(|&s| round_1[t5][s] != "p05").unwrap();
    let place = |t: usize, s: usize| mafia_tournament::Place {
        table: t as u32 + 1,
        seat: Seat::new(s as u8 + 1).unwrap(),
    };
    let swap = TournamentCommand::SwapSeats {
        stage: StageId::new("main").unwrap(),
        round: 1,
        a: place(t5, other),
        b: place(t6, seat_of(t6, "p06")),
    };
    let v = summary(&mut c).await.version;
    let e = command(&mut c, "chief-token", &swap).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("keeps apart"), "{e:?}");
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");
    running.shutdown().await;
}

/// SeatRound runs the seating generator over the roster: every round seats
/// all 20 players once with a judge per table, the stage's metrics come
/// back, the same seed seats the same rounds, and bad requests store nothing.
#[tokio::test]
async fn a_round_seated_by_the_generator_seats_everyone_once_and_is_deterministic() {
    let mut seated = Vec::new();
    for _ in 0..2 {
        let (_dir, log) = embedded().await;
        let (running, mut c) = serve(log).await;
        register(&mut c).await;
        let mut events = Vec::new();
        for round in 1..=3 {
            let r = c
                .seat_round(seat_request("org-token", round, 42))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(r.events_json.len(), 1);
            let e: serde_json::Value = serde_json::from_str(&r.events_json[0]).unwrap();
            let tables = e["tables"].as_array().unwrap();
            assert_eq!(tables.len(), 2);
            let mut everyone: Vec<String> = tables
                .iter()
                .flat_map(|t| t["seats"].as_array().unwrap().clone())
                .map(|p| p.as_str().unwrap().to_string())
                .collect();
            everyone.sort();
            let expected: Vec<String> = (1..=20).map(|n| pid(n).to_string()).collect();
            assert_eq!(everyone, expected, "round {round}");
            assert!(tables.iter().all(|t| t["judge"].is_string()), "{e}");
            let m: serde_json::Value = serde_json::from_str(&r.metrics_json).unwrap();
            assert_eq!((&m["games_min"], &m["games_max"]), (&3.into(), &3.into()));
            e.as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| *k != "at")
                .for_each(|(k, v)| events.push((k.clone(), v.clone())));
        }
        let version = summary(&mut c).await.version;
        let again = c
            .seat_round(seat_request("org-token", 1, 42))
            .await
            .unwrap_err();
        assert_eq!(again.code(), Code::FailedPrecondition, "{again:?}");
        let judge = c
            .seat_round(seat_request("t1-token", 1, 42))
            .await
            .unwrap_err();
        assert_eq!(judge.code(), Code::PermissionDenied, "{judge:?}");
        let past = c
            .seat_round(seat_request("org-token", 4, 42))
            .await
            .unwrap_err();
        assert_eq!(past.code(), Code::FailedPrecondition, "{past:?}");
        assert_eq!(summary(&mut c).await.version, version, "nothing stored");
        seated.push(events);
        running.shutdown().await;
    }
    assert_eq!(seated[0], seated[1], "same seed, same seating");
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn row(json: &str, player: &str) -> serde_json::Value {
    let s: serde_json::Value = serde_json::from_str(json).unwrap();
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == player)
        .unwrap()
        .clone()
}

/// Judge inputs, the chief judge's approval and an appeal, each through the
/// service's Command call; each refusal names its rule and stores nothing,
/// and the standings follow every accepted step.
async fn export(
    c: &mut ScoringClient<Channel>,
    token: &str,
    kind: ExportKind,
    round: u32,
) -> Result<mafia_proto::v1::ExportReply, tonic::Status> {
    c.export(with_token(
        token,
        ExportRequest {
            tournament: "cup".into(),
            kind: kind as i32,
            round,
            stage: String::new(),
        },
    ))
    .await
    .map(|r| r.into_inner())
}

/// `Export` gives the crate's files under the same rule as GetStandings:
/// the JSON standings are the served standings, pending extras only for
/// the chief judge; a round not seated or no kind is refused.
async fn exports_follow_the_standings_rule(c: &mut ScoringClient<Channel>) {
    for token in ["", "chief-token"] {
        let f = export(c, token, ExportKind::StandingsJson, 0)
            .await
            .unwrap();
        assert_eq!(f.content_type, "application/json");
        assert_eq!(f.file_name, "cup-standings.json");
        let file: serde_json::Value = serde_json::from_slice(&f.content).unwrap();
        let served: serde_json::Value =
            serde_json::from_str(&standings_as(c, token).await.1).unwrap();
        assert_eq!(
            file, served,
            "the export is the standings {token:?} is served"
        );
        let csv = export(c, token, ExportKind::StandingsCsv, 0).await.unwrap();
        assert!(csv.content_type.starts_with("text/csv"), "{csv:?}");
        // UTF-8's byte-order mark, so Excel on Windows shows Cyrillic.
        assert!(csv.content.starts_with(b"\xEF\xBB\xBFrank,"), "{csv:?}");
        assert!(String::from_utf8(csv.content).unwrap().lines().count() > 1);
        let games = export(c, token, ExportKind::GamesJson, 0).await.unwrap();
        let rows: serde_json::Value = serde_json::from_slice(&games.content).unwrap();
        assert_eq!(
            rows.as_array().map(Vec::len),
            Some(10),
            "one row per seat of the scored game"
        );
    }
    let sheet = export(c, "", ExportKind::SeatingHtml, 1).await.unwrap();
    assert!(sheet.content_type.starts_with("text/html"), "{sheet:?}");
    assert!(String::from_utf8(sheet.content).unwrap().contains("<html"));
    let e = export(c, "", ExportKind::SeatingHtml, 9).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    let e = export(c, "", ExportKind::Unspecified, 0).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
}

#[tokio::test]
async fn judge_inputs_approvals_and_appeals_move_the_standings_and_refusals_store_nothing() {
    use mafia_tournament::{AppealDecision, ApprovalItem, ExtraPoint, JudgeInputs, Points};
    let (_dir, log) = embedded().await;
    let (running, mut c) = serve(log).await;
    set_up(&mut c).await;
    let ended = now_ms() - 1_000;
    record(&running, 1, Team::Red, ended).await;
    let seat1 = Seat::new(1).unwrap();
    let inputs = |points: f64| TournamentCommand::SubmitJudgeInputs {
        game: game(1),
        inputs: JudgeInputs {
            extras: vec![ExtraPoint {
                seat: seat1,
                points: Points::from_f64(points),
            }],
            ..JudgeInputs::default()
        },
    };
    let refused = |e: tonic::Status, code: Code, words: &str| {
        assert_eq!(e.code(), code, "{e:?}");
        assert!(
            e.message().contains(words),
            "{:?} lacks {words:?}",
            e.message()
        );
    };

    // An extra point outside the scheme's allowed set.
    let v = summary(&mut c).await.version;
    let e = command(&mut c, "named-j1-token", &inputs(0.37))
        .await
        .unwrap_err();
    refused(e, Code::FailedPrecondition, "0.37");
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");

    // rfm §6.4.2: +1.6 for a winner waits for the chief judge.
    command(&mut c, "named-j1-token", &inputs(1.6))
        .await
        .unwrap();
    let p01 = row(&standings_as(&mut c, "chief-token").await.1, "p01");
    assert_eq!(
        (&p01["extra_pending"], &p01["points"]["extra"]),
        (&1.6.into(), &0.0.into()),
        "{p01}"
    );
    // Only the chief judge sees what waits for him; the public does not.
    let p01 = row(&standings(&mut c).await.1, "p01");
    assert_eq!(p01["extra_pending"], 0.0, "{p01}");
    exports_follow_the_standings_rule(&mut c).await;
    let approve = TournamentCommand::Approve {
        game: game(1),
        item: ApprovalItem::ExtraValue {
            seat: seat1,
            points: Points::from_f64(1.6),
        },
    };
    let v = summary(&mut c).await.version;
    let e = command(&mut c, "named-j1-token", &approve)
        .await
        .unwrap_err();
    refused(e, Code::PermissionDenied, "chief judge");
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");
    command(&mut c, "chief-token", &approve).await.unwrap();
    let p01 = row(&standings(&mut c).await.1, "p01");
    assert_eq!(p01["points"]["extra"], 1.6, "{p01}");
    assert_eq!(p01["wins"], 1, "{p01}");

    // An appeal within the window, decided by the chief judge: the result
    // changes and the standings follow.
    let file = TournamentCommand::FileAppeal {
        game: game(1),
        player: Some(pid(5)),
        event_seq: None,
        text: "the vote was miscounted".into(),
    };
    command(&mut c, "org-token", &file).await.unwrap();
    let decide = TournamentCommand::DecideAppeal {
        appeal: 1,
        decision: AppealDecision::ResultChanged {
            winner: Some(Team::Black),
        },
        reason: "the recount gives the mafia the game".into(),
    };
    let v = summary(&mut c).await.version;
    let e = command(&mut c, "t1-token", &decide).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");
    command(&mut c, "chief-token", &decide).await.unwrap();
    let json = standings(&mut c).await.1;
    assert_eq!(row(&json, "p01")["wins"], 0, "{json}");
    assert_eq!(row(&json, "p05")["wins"], 1, "{json}");
    // The +1.6 was given to a winner; p01 lost after all, so it is void.
    assert_eq!(row(&json, "p01")["points"]["extra"], 0.0, "{json}");

    // An appeal after its window (rfm: 10 minutes after the game).
    record(&running, 2, Team::Red, ended - 3_600_000).await;
    let late = TournamentCommand::FileAppeal {
        game: game(2),
        player: None,
        event_seq: None,
        text: "too late".into(),
    };
    let v = summary(&mut c).await.version;
    let e = command(&mut c, "org-token", &late).await.unwrap_err();
    refused(e, Code::FailedPrecondition, "10");
    assert_eq!(summary(&mut c).await.version, v, "nothing stored");
    running.shutdown().await;
}

/// The service on an embedded log with a 1 s header timeout.
async fn serve_with_a_short_header_timeout() -> (tempfile::TempDir, Running) {
    let (dir, log) = embedded().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let opts = mafia_scoring::ServeOptions {
        connections: mafia_proto::serve::Connections {
            header_timeout: std::time::Duration::from_secs(1),
            ..Default::default()
        },
        ..Default::default()
    };
    let running =
        mafia_scoring::start_with_options(listener, log, Tokens::from_json(TOKENS).unwrap(), opts)
            .await
            .unwrap();
    (dir, running)
}

/// A connection that never finishes a request (silent, trickling a head,
/// or kept alive after its answer) is closed after the header timeout: none
/// holds a descriptor and a task for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_no_whole_request_head_is_closed_after_the_header_timeout() {
    let (_dir, running) = serve_with_a_short_header_timeout().await;
    mafia_proto::testing::assert_http1_connections_without_a_request_are_closed(
        running.addr,
        std::time::Duration::from_secs(20),
    )
    .await;
    running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http2_connection_outlives_the_header_timeout() {
    let (_dir, running) = serve_with_a_short_header_timeout().await;
    mafia_proto::testing::assert_an_idle_http2_connection_is_kept(
        running.addr,
        std::time::Duration::from_secs(3),
    )
    .await;
    running.shutdown().await;
}
