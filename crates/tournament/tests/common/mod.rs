//! A small tournament to score hand-made games in.
#![allow(dead_code)]

use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{Cause, Role, RuleSetId, Seat, Team, When};
use mafia_tournament::facts::{BestMoveFact, DepartureFact};
use mafia_tournament::*;

pub const T0: i64 = 1_780_000_000_000;
pub const MIN: i64 = 60_000;

pub fn seat(n: u8) -> Seat {
    Seat::new(n).unwrap()
}

pub fn pid(n: usize) -> PlayerId {
    PlayerId::new(format!("p{n:02}"))
}

pub fn chief() -> Actor {
    Actor::ChiefJudge
}

pub fn judge() -> Actor {
    Actor::TableJudge(JudgeId::new("j1"))
}

pub fn stage_id(s: &str) -> StageId {
    StageId::new(s).unwrap()
}

/// Seats 1, 2, 4, 6, 8, 10 civilians, 3 the Sheriff, 5 and 9 mafiosi, 7 the Don.
pub const ROLES: [Role; 10] = [
    Role::Civilian,
    Role::Civilian,
    Role::Sheriff,
    Role::Civilian,
    Role::Mafia,
    Role::Civilian,
    Role::Don,
    Role::Civilian,
    Role::Mafia,
    Role::Civilian,
];

pub struct Cup {
    pub t: Tournament,
    pub log: Vec<TournamentEvent>,
    pub now: i64,
}

impl Cup {
    /// `players` players registered, one stage "main" of `rounds` rounds and
    /// `players / 10` tables with coefficient `coef`, judge j1.
    pub fn new(scheme: Scheme, players: usize, rounds: u32) -> Cup {
        Cup::with_stages(scheme, players, &[("main", rounds, Coefficient::ONE)])
    }

    pub fn with_stages(scheme: Scheme, players: usize, stages: &[(&str, u32, Coefficient)]) -> Cup {
        let created = Tournament::create(
            TournamentSpec {
                id: TournamentId::new("cup").unwrap(),
                name: "Cup".into(),
                rules: RuleSetId::Rfm,
                rule_overrides: serde_json::Value::Null,
                scheme,
            },
            &Actor::Organiser,
            T0,
        )
        .unwrap();
        let t = Tournament::from_created(&created).unwrap();
        let mut cup = Cup {
            t,
            log: vec![created],
            now: T0,
        };
        cup.ok(
            Actor::Organiser,
            TournamentCommand::AddJudge {
                judge: Judge {
                    id: JudgeId::new("j1"),
                    name: "Judge One".into(),
                },
            },
        );
        for (id, rounds, coefficient) in stages {
            cup.ok(
                Actor::Organiser,
                TournamentCommand::AddStage {
                    stage: Stage {
                        id: stage_id(id),
                        name: id.to_string(),
                        rounds: *rounds,
                        tables: (players as u32).div_ceil(10).max(1),
                        coefficient: *coefficient,
                    },
                },
            );
        }
        for n in 1..=players {
            cup.ok(
                Actor::Organiser,
                TournamentCommand::RegisterPlayer {
                    player: Player {
                        id: pid(n),
                        nickname: format!("Player {n}"),
                        club: None,
                        photo_url: None,
                    },
                },
            );
        }
        cup
    }

    pub fn run(
        &mut self,
        actor: Actor,
        cmd: TournamentCommand,
    ) -> Result<Vec<TournamentEvent>, TournamentError> {
        self.now += 1000;
        let evs = self.t.command(&cmd, &actor, self.now)?;
        for e in &evs {
            self.t.apply(e);
        }
        self.log.extend(evs.iter().cloned());
        Ok(evs)
    }

    pub fn ok(&mut self, actor: Actor, cmd: TournamentCommand) -> Vec<TournamentEvent> {
        self.run(actor, cmd.clone())
            .unwrap_or_else(|e| panic!("{cmd:?} refused: {e}"))
    }

    pub fn err(&mut self, actor: Actor, cmd: TournamentCommand) -> TournamentError {
        let before = self.t.clone();
        let e = self.run(actor, cmd).expect_err("command accepted");
        assert_eq!(self.t, before, "a refused command changed the state");
        e
    }

    /// Seats `round` of `stage` with players `first..first+10` at table 1, the
    /// next ten at table 2, …, and assigns game 1 of each table to j1.
    pub fn seat_round(&mut self, stage: &str, round: u32, players: &[Vec<usize>]) -> Vec<GameId> {
        self.seat_round_unassigned(stage, round, players);
        (1..=players.len() as u32)
            .map(|table| self.assign(stage, round, table))
            .collect()
    }

    /// Seats a round and assigns none of its games yet.
    pub fn seat_round_unassigned(&mut self, stage: &str, round: u32, players: &[Vec<usize>]) {
        let tables = players
            .iter()
            .enumerate()
            .map(|(i, ps)| SeatedTable {
                table: i as u32 + 1,
                seats: ps.iter().map(|n| pid(*n)).collect(),
                judge: Some(JudgeId::new("j1")),
            })
            .collect();
        self.ok(
            Actor::Organiser,
            TournamentCommand::SeatRound {
                stage: stage_id(stage),
                round,
                tables,
            },
        );
    }

    /// Assigns game 1 of a seated table, as OpenRound does before it opens
    /// the game on the referee.
    pub fn assign(&mut self, stage: &str, round: u32, table: u32) -> GameId {
        let game = self.game_id(stage, round, table);
        self.ok(
            Actor::Organiser,
            TournamentCommand::AssignGame {
                game: game.clone(),
                judge: None,
            },
        );
        game
    }

    pub fn game_id(&self, stage: &str, round: u32, table: u32) -> GameId {
        GameId::new(self.t.id.clone(), stage_id(stage), round, table, 1).unwrap()
    }

    /// Facts for a game at its seated table with the standard roles.
    pub fn facts(&self, game: &GameId, winner: Option<Team>) -> GameFacts {
        let table = self.t.table_of(game).unwrap();
        GameFacts {
            seats: (1..=10u8)
                .map(|n| SeatFact {
                    seat: seat(n),
                    player: table.player_at(seat(n)).clone(),
                    role: ROLES[n as usize - 1],
                    out: None,
                    fouls: 0,
                    small_penalties: 0,
                    big_penalties: 0,
                    yellow_cards: 0,
                    disqualified: false,
                    fouled_out: false,
                })
                .collect(),
            winner,
            reason: match winner {
                Some(Team::Red) => "all_black_out",
                Some(Team::Black) => "black_parity",
                None => "no_departures",
            }
            .into(),
            first_killed: None,
            best_move: None,
            opposite_team_victory: None,
        }
    }

    pub fn record(&mut self, game: &GameId, facts: GameFacts) {
        let ended_at = self.now;
        self.ok(
            Actor::RefereeLog,
            TournamentCommand::RecordResult {
                game: game.clone(),
                facts,
                ended_at,
            },
        );
    }

    pub fn inputs(
        &mut self,
        actor: Actor,
        game: &GameId,
        extras: &[(u8, i64)],
    ) -> Result<Vec<TournamentEvent>, TournamentError> {
        self.run(
            actor,
            TournamentCommand::SubmitJudgeInputs {
                game: game.clone(),
                inputs: extras_input(extras),
            },
        )
    }

    pub fn row(&self, n: usize) -> StandingRow {
        standings(&self.t)
            .rows
            .into_iter()
            .find(|r| r.player == pid(n))
            .unwrap()
    }

    pub fn assert_fold_matches(&self) {
        assert_eq!(Tournament::fold(&self.log).unwrap(), self.t);
    }
}

/// Extras in hundredths by seat.
pub fn extras_input(extras: &[(u8, i64)]) -> JudgeInputs {
    JudgeInputs {
        extras: extras
            .iter()
            .map(|(s, c)| ExtraPoint {
                seat: seat(*s),
                points: Points::c(*c),
            })
            .collect(),
        ..JudgeInputs::default()
    }
}

pub fn shot_night_1(f: &mut GameFacts, s: u8) {
    f.first_killed = Some(seat(s));
    f.seats[s as usize - 1].out = Some(DepartureFact {
        when: When::Night(1),
        cause: Cause::Shot,
    });
}

pub fn best_move(f: &mut GameFacts, s: u8, hits: u8) {
    f.best_move = Some(BestMoveFact {
        seat: seat(s),
        named: [seat(5), seat(7), seat(1)].into_iter().collect(),
        hits,
    });
}

pub fn removed(f: &mut GameFacts, s: u8, day: u8) {
    f.seats[s as usize - 1].out = Some(DepartureFact {
        when: When::Day(day),
        cause: Cause::Disqualified,
    });
}

pub fn ten(from: usize) -> Vec<usize> {
    (from..from + 10).collect()
}
