//! The tournament, driven through the scoring service's gRPC as an
//! organiser would: created, players registered, rounds seated by the
//! seating generator and opened on the referee.

use crate::procs::ORGANISER;
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandRequest, CreateTournamentRequest, OpenRoundRequest, RegisterPlayersCsvRequest,
    SeatRoundRequest, TournamentRef,
};
use mafia_record::{GameId, TournamentId};
use mafia_rules::RuleSetId;
use mafia_tournament::{
    stored, Coefficient, Judge, JudgeId, Scheme, Stage, TournamentCommand, TournamentEvent,
    TournamentSpec,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

pub const TOURNAMENT: &str = "faults-cup";

fn authed<T>(msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {ORGANISER}").parse().unwrap(),
    );
    r
}

/// A client of the scoring service at `url`, once it accepts connections.
pub async fn connect(url: &str) -> ScoringClient<Channel> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match ScoringClient::connect(url.to_owned()).await {
            Ok(c) => return c,
            Err(e) if Instant::now() > deadline => panic!("scoring at {url}: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn command(c: &mut ScoringClient<Channel>, cmd: &TournamentCommand) {
    c.command(authed(CommandRequest {
        tournament: TOURNAMENT.into(),
        command_json: serde_json::to_string(cmd).unwrap(),
    }))
    .await
    .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
}

/// Creates the tournament: one stage of `rounds` rounds at `tables` tables,
/// with ten players a table.
pub async fn create(c: &mut ScoringClient<Channel>, rounds: u32, tables: u32) {
    let spec = TournamentSpec {
        id: TournamentId::new(TOURNAMENT).unwrap(),
        name: "Faults Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    c.create_tournament(authed(CreateTournamentRequest {
        spec_json: serde_json::to_string(&spec).unwrap(),
    }))
    .await
    .unwrap();
    for t in 1..=tables {
        let judge = Judge {
            id: JudgeId::new(format!("j{t}")),
            name: format!("Judge {t}"),
        };
        command(c, &TournamentCommand::AddJudge { judge }).await;
    }
    let stage = Stage {
        id: "main".parse().unwrap(),
        name: "Qualifying".into(),
        rounds,
        tables,
        coefficient: Coefficient::ONE,
    };
    command(c, &TournamentCommand::AddStage { stage }).await;
    let mut csv = String::from("id,nickname,club\n");
    for n in 1..=tables * 10 {
        csv.push_str(&format!("p{n:03},Player {n},Club {}\n", n % 5));
    }
    c.register_players_csv(authed(RegisterPlayersCsvRequest {
        tournament: TOURNAMENT.into(),
        csv,
        csv_bytes: Vec::new(),
    }))
    .await
    .unwrap();
}

/// Seats round `round` with the generator and opens its games on the referee.
pub async fn seat_and_open(c: &mut ScoringClient<Channel>, round: u32) -> Vec<GameId> {
    c.seat_round(authed(SeatRoundRequest {
        tournament: TOURNAMENT.into(),
        stage: "main".into(),
        round,
        seed: 2026,
        policies_json: String::new(),
    }))
    .await
    .unwrap();
    let opened = c
        .open_round(authed(OpenRoundRequest {
            tournament: TOURNAMENT.into(),
            stage: "main".into(),
            round,
            deal_seed: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    opened.game_ids.iter().map(|g| g.parse().unwrap()).collect()
}

/// How many games the service has scored (None while it does not answer).
pub async fn scored(c: &mut ScoringClient<Channel>) -> Option<u32> {
    let r = c
        .get_tournament(TournamentRef {
            tournament: TOURNAMENT.into(),
        })
        .await
        .ok()?;
    Some(r.into_inner().scored_games)
}

/// How many results the tournament's stored log holds for each game: once
/// each, whatever the scoring service lived through.
pub async fn results_stored(log: &mafia_event_log::RedisLog) -> BTreeMap<GameId, u32> {
    let stream = stored::stream_of(&TournamentId::new(TOURNAMENT).unwrap());
    let mut counts = BTreeMap::new();
    for payload in crate::ledger::read_payloads(log, &stream).await {
        if let TournamentEvent::GameResultRecorded { game, .. } =
            stored::decode(&payload).expect("a tournament event")
        {
            *counts.entry(game).or_default() += 1;
        }
    }
    counts
}
