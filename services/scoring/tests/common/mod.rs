//! What the office's tests share: a scoring service on loopback over an
//! embedded log, a client whose calls take the JSON the office sends, and a
//! tournament of 20 players at 2 tables.
#![allow(dead_code)] // each test file uses its own part

use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{CommandReply, CommandRequest, CreateTournamentRequest, TournamentRef};
use mafia_record::GameId;
use mafia_rules::{Role, Seat, Team};
use mafia_scoring::{start, Running, Tokens};
use mafia_tournament::{GameFacts, PlayerId, SeatFact};
use std::sync::Arc;
use tonic::transport::Channel;
use tonic::{Request, Status};

pub const TOKENS: &str = r#"{"tokens":[
  {"role":"organiser","token":"org-token","games":["*"]},
  {"role":"chief_judge","token":"chief-token","games":["*"]},
  {"role":"table_judge","token":"t1-token","games":["cup.*.*.t1.*"]},
  {"role":"table_judge","token":"t2-token","games":["cup.*.*.t2.*"]},
  {"role":"table_judge","token":"named-j1-token","games":["cup.*.*.t1.*"],"name":"j1"},
  {"role":"table_judge","token":"named-j2-token","games":["cup.*.*.t1.*"],"name":"j2"},
  {"role":"broadcast","token":"cast-token","games":["*"]},
  {"role":"organiser","token":"org-t2-token","games":["cup.*.*.t2.*"]},
  {"role":"chief_judge","token":"chief-t2-token","games":["cup.*.*.t2.*"]},
  {"role":"organiser","token":"org-other-token","games":["other.*.*.*.*"]}]}"#;

pub struct Office {
    pub dir: tempfile::TempDir,
    pub log: Arc<dyn EventLog>,
    pub running: Running,
    pub c: ScoringClient<Channel>,
}

impl Office {
    pub async fn start() -> Office {
        let dir = tempfile::tempdir().unwrap();
        let log: Arc<dyn EventLog> = Arc::new(
            EmbeddedLog::open(dir.path().join("events.redb"))
                .await
                .unwrap(),
        );
        let (running, c) = serve(log.clone()).await;
        Office {
            dir,
            log,
            running,
            c,
        }
    }

    /// The service stopped and started again on the same log.
    pub async fn restart(self) -> Office {
        let Office {
            dir, log, running, ..
        } = self;
        running.shutdown().await;
        let (running, c) = serve(log.clone()).await;
        Office {
            dir,
            log,
            running,
            c,
        }
    }

    pub async fn create(&mut self, token: &str, spec_json: &str) -> Result<CommandReply, Status> {
        let req = CreateTournamentRequest {
            spec_json: spec_json.into(),
        };
        self.c
            .create_tournament(as_caller(token, req))
            .await
            .map(|r| r.into_inner())
    }

    pub async fn cmd(
        &mut self,
        token: &str,
        tournament: &str,
        command_json: &str,
    ) -> Result<CommandReply, Status> {
        let req = CommandRequest {
            tournament: tournament.into(),
            command_json: command_json.into(),
        };
        self.c
            .command(as_caller(token, req))
            .await
            .map(|r| r.into_inner())
    }

    pub async fn get(
        &mut self,
        token: &str,
        tournament: &str,
    ) -> Result<mafia_proto::v1::TournamentSummary, Status> {
        self.c
            .get_tournament(as_caller(token, tref(tournament)))
            .await
            .map(|r| r.into_inner())
    }

    /// "cup": rfm, a stage "main" of 3 rounds at 2 tables, judges j1 and
    /// j2, players p01..p20; round 1 seated p01..p10 / p11..p20.
    pub async fn cup(&mut self) {
        self.create("org-token", &spec_json("cup", "Cup"))
            .await
            .unwrap();
        for j in ["j1", "j2"] {
            let add = format!(r#"{{"type":"add_judge","judge":{{"id":"{j}","name":"{j}"}}}}"#);
            self.cmd("org-token", "cup", &add).await.unwrap();
        }
        let stage =
            r#"{"type":"add_stage","stage":{"id":"main","name":"Main","rounds":3,"tables":2}}"#;
        self.cmd("org-token", "cup", stage).await.unwrap();
        for n in 1..=20 {
            let p = format!(
                r#"{{"type":"register_player","player":{{"id":"p{n:02}","nickname":"Player {n}"}}}}"#
            );
            self.cmd("org-token", "cup", &p).await.unwrap();
        }
    }

    pub async fn seat_round_1(&mut self) {
        let table = |t: usize| {
            let seats: Vec<String> = (1..=10)
                .map(|n| format!("\"p{:02}\"", (t - 1) * 10 + n))
                .collect();
            format!(
                r#"{{"table":{t},"seats":[{}],"judge":"j{t}"}}"#,
                seats.join(",")
            )
        };
        let seat = format!(
            r#"{{"type":"seat_round","stage":"main","round":1,"tables":[{},{}]}}"#,
            table(1),
            table(2)
        );
        self.cmd("org-token", "cup", &seat).await.unwrap();
    }

    /// Table `table`'s game 1 assigned and finished, won by red, as the
    /// game follower records it from the referee's log.
    pub async fn finish(&mut self, table: u32, ended_at: i64) {
        let g = game(table);
        let assign = format!(r#"{{"type":"assign_game","game":"{g}"}}"#);
        self.cmd("org-token", "cup", &assign).await.unwrap();
        mafia_scoring::follower::record(&self.running.store, &g, facts(table, Team::Red), ended_at)
            .await
            .unwrap();
    }
}

pub async fn serve(log: Arc<dyn EventLog>) -> (Running, ScoringClient<Channel>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(listener, log, Tokens::from_json(TOKENS).unwrap())
        .await
        .unwrap();
    let client = ScoringClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    (running, client)
}

pub fn as_caller<T>(token: &str, msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    if !token.is_empty() {
        let bearer = format!("Bearer {token}").parse().unwrap();
        r.metadata_mut().insert("authorization", bearer);
    }
    r
}

pub fn tref(tournament: &str) -> TournamentRef {
    TournamentRef {
        tournament: tournament.into(),
    }
}

/// A spec as the office sends it: rfm with its scheme by id.
pub fn spec_json(id: &str, name: &str) -> String {
    let scheme = serde_json::to_string(&mafia_tournament::Scheme::rfm()).unwrap();
    format!(r#"{{"id":"{id}","name":"{name}","rules":"rfm","scheme":{scheme}}}"#)
}

pub fn game(table: u32) -> GameId {
    format!("cup.main.r1.t{table}.g1").parse().unwrap()
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The deal of every table: sheriff 3, mafia 5 and 9, don 7.
fn role(seat: u8) -> Role {
    match seat {
        3 => Role::Sheriff,
        5 | 9 => Role::Mafia,
        7 => Role::Don,
        _ => Role::Civilian,
    }
}

/// Table `table` of round 1 (p01..p10 at table 1), won by `winner`.
pub fn facts(table: u32, winner: Team) -> GameFacts {
    GameFacts {
        seats: (1..=10u8)
            .map(|n| SeatFact {
                seat: Seat::new(n).unwrap(),
                player: PlayerId::new(format!("p{:02}", (table as usize - 1) * 10 + n as usize)),
                role: role(n),
                out: None,
                fouls: 0,
                small_penalties: 0,
                big_penalties: 0,
                yellow_cards: 0,
                disqualified: false,
                fouled_out: false,
            })
            .collect(),
        winner: Some(winner),
        reason: match winner {
            Team::Red => "all_black_out",
            Team::Black => "black_parity",
        }
        .into(),
        first_killed: None,
        best_move: None,
        opposite_team_victory: None,
    }
}
