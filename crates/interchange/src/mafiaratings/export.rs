//! Our records as mafiaratings game JSON.

use super::gametime::GameTime;
use super::rules_code;
use mafia_record::Record;
use mafia_rules::params::Night0Step;
use mafia_rules::{Cause, Envelope, Event, Role, Seat, Step, Team, SEATS};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The letters of what an export carries: checks (g, s), full deaths
/// (d, u, t, c), legacy (l), shots (h), votes with the kill-all hands (v,
/// k), nominations (n), warnings with their game times (w, r).
pub const FEATURES: &str = "gsdutclhvknwr";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// Only games the engine accepts to their last line are exported.
    #[error("line {line}: the engine refuses the record here ({message}); fix or replay it first")]
    Refused { line: usize, message: String },
}

/// A game in the site's JSON, and what of ours it could not carry
/// (docs/interchange.md), each named once.
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    pub json: Value,
    pub losses: BTreeSet<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Game {
    table_num: u32,
    game_num: u32,
    event: EventName,
    start_time: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_time: Option<i64>,
    rules: String,
    features: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    moderator: Option<Moderator>,
    players: Vec<PlayerOut>,
}

#[derive(Serialize)]
struct EventName {
    name: String,
}

#[derive(Serialize)]
struct Moderator {
    name: String,
}

#[derive(Serialize)]
struct Death {
    round: u8,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    time: Option<GameTime>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct PlayerOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    name: String,
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    death: Option<Death>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<GameTime>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tech_fouls: Vec<GameTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    don: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sheriff: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    legacy: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    voting: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    nominating: Vec<Option<u8>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shooting: Vec<Option<u8>>,
}

/// Per player and day (the site's round), his votes round by round and his
/// kill-all hand.
#[derive(Default, Clone)]
struct DayVotes {
    rounds: Vec<Option<u8>>,
    lift: Option<bool>,
}

/// Where the replay is, as the site's game time needs it.
struct Cursor {
    day: u8,
    night: u8,
    step: Step,
    vote_round: u8,
    night_last: bool,
    /// This round's nominees and how many of them have had their hands
    /// counted: the one being counted is the site's `nominee`.
    candidates: mafia_rules::SeatList,
    votes_cast: usize,
    /// The day whose votes began last.
    candidates_day: u8,
}

impl Cursor {
    fn time(&self, out: &[Option<Cause>; SEATS]) -> GameTime {
        let day_round = self.day.saturating_sub(1);
        let t = |round, time| GameTime {
            round,
            time,
            speaker: None,
            voting_round: None,
            nominee: None,
            order: None,
        };
        match self.step {
            Step::BeforeDeal => t(0, "start"),
            Step::Night0 { step, .. } => t(
                0,
                match step {
                    Night0Step::Meeting => "arrangement",
                    Night0Step::FreeSeating => "relaxed sitting",
                    Night0Step::DonSign | Night0Step::SheriffAndDonSign => "don",
                    Night0Step::SheriffSign => "sheriff",
                    Night0Step::BeautySign => "start",
                },
            ),
            Step::Speech { seat, tie, .. } => GameTime {
                speaker: Some(seat.number()),
                voting_round: (tie && self.vote_round > 0).then_some(self.vote_round),
                ..t(day_round, if tie { "voting" } else { "speaking" })
            },
            Step::FreeTalk { .. } => t(day_round, "day start"),
            Step::VoteCall | Step::Voting { .. } | Step::RollCall { .. } => GameTime {
                voting_round: (self.vote_round > 0).then_some(self.vote_round),
                nominee: match self.step {
                    Step::Voting { .. } => self.candidates.get(self.votes_cast).map(|s| s.number()),
                    _ => None,
                },
                ..t(day_round, "voting")
            },
            Step::Lift => t(day_round, "voting kill all"),
            Step::LastWords { seat, .. } => GameTime {
                speaker: Some(seat.number()),
                ..t(
                    day_round,
                    if out[seat.index()] == Some(Cause::Shot) {
                        "night kill speaking"
                    } else {
                        "day kill speaking"
                    },
                )
            },
            Step::Night { action, .. } => t(
                self.night,
                match action {
                    mafia_rules::params::NightAction::Shooting => "shooting",
                    mafia_rules::params::NightAction::DonCheck => "don",
                    mafia_rules::params::NightAction::SheriffCheck => "sheriff",
                    mafia_rules::params::NightAction::BeautyPick => "night start",
                },
            ),
            Step::BestMove { .. } => t(self.night, "night end"),
            Step::Ended => t(
                if self.night_last {
                    self.night
                } else {
                    day_round
                },
                "end",
            ),
        }
    }

    fn round(&self) -> u8 {
        if self.step.is_night() {
            self.night
        } else {
            self.day.saturating_sub(1)
        }
    }
}

fn role_name(r: Role, losses: &mut BTreeSet<&'static str>) -> &'static str {
    match r {
        Role::Civilian => "civ",
        Role::Beauty => {
            losses.insert("the Beauty (exported as civ)");
            "civ"
        }
        Role::Sheriff => "sheriff",
        Role::Mafia => "maf",
        Role::Don => "don",
    }
}

fn set_at<T: Clone>(v: &mut Vec<Option<T>>, i: usize, x: Option<T>) {
    if v.len() <= i {
        v.resize(i + 1, None);
    }
    v[i] = x;
}

fn trim<T>(v: &mut Vec<Option<T>>) {
    while v.last().is_some_and(|x| x.is_none()) {
        v.pop();
    }
}

/// The game time with its `order`: counted from 1 within each game time.
fn stamp(order: &mut (Option<GameTime>, u32), mut t: GameTime) -> GameTime {
    if order.0.as_ref() == Some(&t) {
        order.1 += 1;
    } else {
        *order = (Some(t.clone()), 1);
    }
    t.order = Some(order.1);
    t
}

/// The events that stand: those of undone commands left out.
fn standing(events: &[Envelope]) -> Vec<&Envelope> {
    let undone: BTreeSet<u32> = events
        .iter()
        .filter_map(|e| match e.event {
            Event::Undone { cmd, .. } => Some(cmd),
            _ => None,
        })
        .collect();
    events
        .iter()
        .filter(|e| !undone.contains(&e.cmd) && !matches!(e.event, Event::Undone { .. }))
        .collect()
}

/// The record as the site's game JSON.
pub fn export(record: &Record) -> Result<Exported, ExportError> {
    let outcome = record.replay();
    if let Some(v) = &outcome.violation {
        return Err(ExportError::Refused {
            line: v.line,
            message: v.violation.to_string(),
        });
    }
    let mut losses = BTreeSet::new();
    let header = record.header();
    let setup = record.setup();
    let roles = setup.roles();
    let mut players: Vec<PlayerOut> = (0..SEATS)
        .map(|i| {
            let s = &header.seats[i];
            PlayerOut {
                id: s.player_id.parse().ok(),
                name: s.nickname.clone(),
                role: role_name(roles[i], &mut losses),
                ..PlayerOut::default()
            }
        })
        .collect();
    if players.iter().any(|p| p.id.is_none()) {
        losses.insert("player ids that are not numbers (the site's user ids)");
    }
    let mut votes: Vec<BTreeMap<u8, DayVotes>> = vec![BTreeMap::new(); SEATS];
    let mut out: [Option<Cause>; SEATS] = [None; SEATS];
    let mut cur = Cursor {
        day: 0,
        night: 0,
        step: Step::BeforeDeal,
        vote_round: 0,
        night_last: true,
        candidates: mafia_rules::SeatList::default(),
        votes_cast: 0,
        candidates_day: 0,
    };
    let mut winner = None;
    let mut order: (Option<GameTime>, u32) = (None, 0);
    let events = standing(&outcome.events);
    if events.len() < outcome.events.len() {
        losses.insert("undone commands (only what stands is exported)");
    }
    for env in events {
        match env.event {
            Event::DayStarted { day, .. } => {
                cur.day = day;
                cur.night_last = false;
            }
            Event::NightStarted { night, .. } => {
                cur.night = night;
                cur.night_last = true;
            }
            Event::StepStarted { step } => {
                if let Step::Voting { round } | Step::RollCall { round, .. } = step {
                    cur.vote_round = round;
                }
                if matches!(step, Step::Speech { tie: false, .. }) {
                    cur.vote_round = 0;
                }
                cur.step = step;
            }
            Event::Nominated { by, target } => set_at(
                &mut players[by.index()].nominating,
                cur.round() as usize,
                Some(target.number()),
            ),
            Event::Withdrawn { by, .. } => {
                losses.insert("withdrawals (only the standing nomination is kept)");
                // Withdrawn once the votes began (in a tie speech), the
                // nomination was still voted on: the site keeps it.
                if cur.candidates_day != cur.day {
                    set_at(
                        &mut players[by.index()].nominating,
                        cur.round() as usize,
                        None,
                    );
                }
            }
            Event::Candidates { seats } => {
                cur.candidates = seats;
                cur.candidates_day = cur.day;
                cur.votes_cast = 0;
            }
            Event::VotesCast { nominee, hands, .. } => {
                cur.votes_cast += 1;
                for h in hands.iter() {
                    let dv = votes[h.index()].entry(cur.round()).or_default();
                    set_at(
                        &mut dv.rounds,
                        cur.vote_round as usize,
                        Some(nominee.number()),
                    );
                }
            }
            Event::BallotCast { voter, target } => {
                losses.insert("the roll call (each ballot exported as a vote)");
                let dv = votes[voter.index()].entry(cur.round()).or_default();
                set_at(
                    &mut dv.rounds,
                    cur.vote_round as usize,
                    target.map(|t| t.number()),
                );
            }
            Event::VoteCalled { .. } => {
                losses.insert("the vote call");
            }
            Event::LiftVoted { hands, .. } => {
                for s in Seat::all().filter(|s| out[s.index()].is_none()) {
                    votes[s.index()].entry(cur.round()).or_default().lift = Some(hands.contains(s));
                }
            }
            Event::ShotFired { by, target } => set_at(
                &mut players[by.index()].shooting,
                cur.night.saturating_sub(1) as usize,
                target.map(|t| t.number()),
            ),
            Event::DonChecked {
                target: Some(t), ..
            } => players[t.index()].don = Some(cur.night),
            Event::SheriffChecked {
                target: Some(t), ..
            } => players[t.index()].sheriff = Some(cur.night),
            Event::BeautyPicked { .. } => {
                losses.insert("the Beauty's picks");
            }
            Event::BestMoveMade { seat, named, .. } => {
                players[seat.index()].legacy = Some(named.iter().map(|s| s.number()).collect());
            }
            Event::Fouled { seat, .. } => {
                let t = stamp(&mut order, cur.time(&out));
                players[seat.index()].warnings.push(t);
            }
            Event::TechnicalFouled { seat, .. } => {
                let t = stamp(&mut order, cur.time(&out));
                players[seat.index()].tech_fouls.push(t);
            }
            Event::Penalized { .. } => {
                losses.insert("penalty points (small and big)");
            }
            Event::YellowCarded { .. } => {
                losses.insert("yellow cards");
            }
            Event::Disqualified { .. } => {
                losses.insert("a disqualification in a player's own last words");
            }
            Event::Left { seat, cause } => {
                out[seat.index()] = Some(cause);
                let (round, kind, time) = match cause {
                    Cause::Vote | Cause::Lift => (cur.day.saturating_sub(1), "day", None),
                    Cause::Shot => (cur.night, "night", None),
                    Cause::Fouls => (cur.round(), "warnings", None),
                    Cause::TechnicalFouls => (cur.round(), "techFouls", None),
                    Cause::Disqualified => (
                        cur.round(),
                        "kickOut",
                        Some(stamp(&mut order, cur.time(&out))),
                    ),
                };
                players[seat.index()].death = Some(Death { round, kind, time });
            }
            Event::OppositeTeamVictory { seat } if players[seat.index()].death.is_none() => {
                players[seat.index()].death = Some(Death {
                    round: cur.round(),
                    kind: "teamKickOut",
                    time: Some(stamp(&mut order, cur.time(&out))),
                });
            }
            Event::GameEnded { outcome } => {
                winner = Some(match outcome.winner {
                    Some(Team::Red) => "civ",
                    Some(Team::Black) => "maf",
                    None => "tie",
                });
            }
            _ => {}
        }
    }
    for (i, p) in players.iter_mut().enumerate() {
        trim(&mut p.nominating);
        trim(&mut p.shooting);
        let last = votes[i].keys().next_back().copied();
        if let Some(last) = last {
            p.voting = (0..=last)
                .map(|r| match votes[i].get(&r) {
                    None => Value::Null,
                    Some(dv) if dv.rounds.len() <= 1 && dv.lift.is_none() => dv
                        .rounds
                        .first()
                        .copied()
                        .flatten()
                        .map_or(Value::Null, Value::from),
                    Some(dv) => {
                        let mut a: Vec<Value> = dv
                            .rounds
                            .iter()
                            .map(|v| v.map_or(Value::Null, Value::from))
                            .collect();
                        if let Some(l) = dv.lift {
                            a.push(Value::Bool(l));
                        }
                        Value::Array(a)
                    }
                })
                .collect();
        }
    }
    if record.commands().iter().any(|c| {
        matches!(
            c.cmd,
            mafia_rules::Command::StartSpeech { .. }
                | mafia_rules::Command::EndSpeech { timeout: true, .. }
        )
    }) {
        losses.insert("speech starts and timeouts");
    }
    if rules_code::from_code(&rules_code::to_code(&setup.rules.params), setup.rules.id).as_ref()
        != Ok(&setup.rules)
    {
        losses.insert("rule parameters the rules code cannot say");
    }
    losses.insert("command times between the start and the end");
    let first = record.commands().first().map_or(0, |c| c.at);
    let last = record.commands().last().map_or(first, |c| c.at);
    let game = Game {
        table_num: header.table,
        game_num: header.game,
        event: EventName {
            name: header.tournament.clone(),
        },
        start_time: first.div_euclid(1000),
        end_time: winner.map(|_| last.div_euclid(1000)),
        rules: rules_code::to_code(&setup.rules.params),
        features: FEATURES,
        winner,
        moderator: (!header.judge.is_empty()).then(|| Moderator {
            name: header.judge.clone(),
        }),
        players,
    };
    Ok(Exported {
        json: serde_json::to_value(&game).expect("plain data serializes"),
        losses,
    })
}
