//! Conversions between protocol messages and the engine/record types.

use crate::v1;
use mafia_record::{
    Accepted, GameState, Header, LoggedEvent, Refusal, Rejected, RulesRef, SeatEntry, FORMAT,
};
use mafia_rules::{
    Audience, Code, Command, Deal, Drawn, Envelope, PenaltyKind, Role, RuleSetId, Seat, SeatList,
    SeatSet, Team, Violation,
};

/// A protocol message that does not describe a valid engine value.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("unknown rule set {0:?}")]
    RuleSet(String),
    #[error("seat {0} is not 1..10")]
    Seat(u32),
    #[error("seat {0} is listed twice")]
    RepeatedSeat(u32),
    #[error("unknown role {0:?}")]
    Role(String),
    #[error("the request has no deal (cards, seed or drawn)")]
    NoDeal,
    #[error("drawn.commitment: {0}")]
    Commitment(serde_json::Error),
    #[error("rules_overrides_json: {0}")]
    Overrides(serde_json::Error),
    #[error("command_json: {0}")]
    Command(serde_json::Error),
    #[error("{0} does not fit in the engine's range")]
    Range(&'static str),
    #[error("the command is empty")]
    NoCommand,
    #[error("the penalty has no kind")]
    NoPenaltyKind,
    #[error("tournament_id: {0}")]
    TournamentId(mafia_record::GameIdError),
    #[error("game_id: {0}")]
    GameId(mafia_record::GameIdError),
    #[error("view_json: {0}")]
    View(serde_json::Error),
    #[error("event {seq}: {error}")]
    Event { seq: u64, error: serde_json::Error },
    #[error("unknown violation code {0:?}")]
    Code(String),
    #[error("the {0} has no {1}")]
    Missing(&'static str, &'static str),
}

pub fn rule_set_id(s: &str) -> Result<RuleSetId, ConvertError> {
    RuleSetId::ALL
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or_else(|| ConvertError::RuleSet(s.to_owned()))
}

fn role_name(r: Role) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn role(s: &str) -> Result<Role, ConvertError> {
    serde_json::from_value(serde_json::Value::String(s.to_owned()))
        .map_err(|_| ConvertError::Role(s.to_owned()))
}

/// The header an `OpenGame` request describes (not yet validated against the
/// rules: call [`Header::setup`]).
pub fn header_from_request(r: &v1::OpenGameRequest) -> Result<Header, ConvertError> {
    let id = rule_set_id(&r.rules)?;
    let overrides = if r.rules_overrides_json.trim().is_empty() {
        serde_json::Value::Object(Default::default())
    } else {
        serde_json::from_str(&r.rules_overrides_json).map_err(ConvertError::Overrides)?
    };
    let seats = r
        .seats
        .iter()
        .map(|s| {
            let seat = u8::try_from(s.seat)
                .ok()
                .and_then(Seat::new)
                .ok_or(ConvertError::Seat(s.seat))?;
            Ok(SeatEntry {
                seat,
                player_id: s.player_id.clone(),
                nickname: s.nickname.clone(),
            })
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    let deal = match &r.deal {
        Some(v1::open_game_request::Deal::Seed(seed)) => Deal::Seed(*seed),
        Some(v1::open_game_request::Deal::Cards(c)) => {
            Deal::Cards(c.roles.iter().map(|s| role(s)).collect::<Result<_, _>>()?)
        }
        Some(v1::open_game_request::Deal::Drawn(d)) => Deal::Drawn(Drawn {
            commitment: match d.commitment.as_str() {
                "" => None,
                c => Some(
                    serde_json::from_value(serde_json::Value::String(c.to_owned()))
                        .map_err(ConvertError::Commitment)?,
                ),
            },
            seed: None,
            salt: None,
        }),
        None => return Err(ConvertError::NoDeal),
    };
    let tournament_id = match r.tournament_id.as_str() {
        "" => None,
        t => Some(t.parse().map_err(ConvertError::TournamentId)?),
    };
    Ok(Header {
        format: FORMAT.to_owned(),
        rules: RulesRef { id, overrides },
        tournament_id,
        tournament: r.tournament.clone(),
        stage: r.stage.clone(),
        round: r.round,
        table: r.table,
        game: r.game,
        judge: r.judge.clone(),
        seats,
        deal,
    })
}

/// The `OpenGame` request for a header (e.g. a record's first line).
pub fn request_from_header(h: &Header, at: i64) -> v1::OpenGameRequest {
    let overrides = if h.rules.overrides.as_object().is_some_and(|o| o.is_empty()) {
        String::new()
    } else {
        h.rules.overrides.to_string()
    };
    v1::OpenGameRequest {
        tournament_id: h
            .tournament_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        tournament: h.tournament.clone(),
        stage: h.stage.clone(),
        round: h.round,
        table: h.table,
        game: h.game,
        judge: h.judge.clone(),
        rules: h.rules.id.as_str().to_owned(),
        rules_overrides_json: overrides,
        seats: h
            .seats
            .iter()
            .map(|s| v1::SeatEntry {
                seat: u32::from(s.seat.number()),
                player_id: s.player_id.clone(),
                nickname: s.nickname.clone(),
            })
            .collect(),
        deal: Some(match &h.deal {
            Deal::Seed(s) => v1::open_game_request::Deal::Seed(*s),
            Deal::Cards(c) => v1::open_game_request::Deal::Cards(v1::DealCards {
                roles: c.iter().map(|r| role_name(*r)).collect(),
            }),
            // The secret is the referee's: never sent, even when revealed.
            Deal::Drawn(d) => v1::open_game_request::Deal::Drawn(v1::DrawnDeal {
                commitment: d.commitment.map(|c| c.to_string()).unwrap_or_default(),
            }),
        }),
        at,
    }
}

pub fn audience_from_proto(a: v1::Audience) -> Option<Audience> {
    match a {
        v1::Audience::Unspecified => None,
        v1::Audience::Public => Some(Audience::Public),
        v1::Audience::Broadcast => Some(Audience::Broadcast),
        v1::Audience::Judge => Some(Audience::Judge),
    }
}

pub fn audience_to_proto(a: Audience) -> v1::Audience {
    match a {
        Audience::Public => v1::Audience::Public,
        Audience::Broadcast => v1::Audience::Broadcast,
        Audience::Judge => v1::Audience::Judge,
    }
}

/// An envelope (already filtered for its audience) as a protocol event.
pub fn event_to_proto(env: &Envelope, client_seq: Option<u64>) -> v1::Event {
    let json = serde_json::to_string(&env.event).unwrap_or_default();
    event_to_proto_encoded(env, client_seq, json)
}

/// As [`event_to_proto`], with the event's JSON already encoded (e.g. by
/// `LoggedEvent::encode` for the log).
pub fn event_to_proto_encoded(env: &Envelope, client_seq: Option<u64>, json: String) -> v1::Event {
    v1::Event {
        seq: u64::from(env.seq),
        cmd: env.cmd,
        at: env.at,
        r#type: env.event.tag().to_owned(),
        json,
        client_seq: client_seq.unwrap_or(0),
    }
}

/// A protocol event back into the stored form.
pub fn event_from_proto(e: &v1::Event) -> Result<LoggedEvent, serde_json::Error> {
    Ok(LoggedEvent {
        client_seq: (e.client_seq != 0).then_some(e.client_seq),
        envelope: Envelope {
            seq: u32::try_from(e.seq).unwrap_or(u32::MAX),
            cmd: e.cmd,
            at: e.at,
            event: serde_json::from_str(&e.json)?,
        },
    })
}

/// A game state as the protocol's: view and prompt as JSON.
pub fn state_to_proto(s: &GameState) -> v1::GameState {
    let winner = match s.result() {
        // As the engine's serde names them (snake_case).
        Some(o) => match o.winner {
            Some(Team::Red) => "red",
            Some(Team::Black) => "black",
            None => "draw",
        },
        None => "",
    };
    v1::GameState {
        game_id: s.game_id.to_string(),
        seq: s.seq,
        last_client_seq: s.last_client_seq,
        over: s.over,
        view_json: to_json(&s.view, 4096),
        prompt_json: s.prompt().map(|p| to_json(&p, 256)).unwrap_or_default(),
        winner: winner.to_owned(),
    }
}

/// A protocol game state back into the domain's; the prompt and the result
/// are read from the view, which holds them too.
pub fn state_from_proto(s: &v1::GameState) -> Result<GameState, ConvertError> {
    Ok(GameState {
        game_id: s.game_id.parse().map_err(ConvertError::GameId)?,
        seq: s.seq,
        last_client_seq: s.last_client_seq,
        over: s.over,
        view: serde_json::from_str(&s.view_json).map_err(ConvertError::View)?,
    })
}

/// JSON into a buffer sized for it up front (a view is a few KiB; growing
/// from empty would copy it several times).
fn to_json<T: serde::Serialize>(value: &T, capacity: usize) -> String {
    let mut buf = Vec::with_capacity(capacity);
    if serde_json::to_writer(&mut buf, value).is_err() {
        return String::new();
    }
    // serde_json writes only valid UTF-8.
    String::from_utf8(buf).unwrap_or_default()
}

pub fn accepted_to_proto(a: &Accepted) -> v1::Accepted {
    v1::Accepted {
        client_seq: a.client_seq,
        events: a
            .events
            .iter()
            .map(|e| event_to_proto(&e.envelope, e.client_seq))
            .collect(),
        state: a.state.as_ref().map(state_to_proto),
        duplicate: a.duplicate,
        replayed: a.replayed,
    }
}

/// As [`accepted_to_proto`], with `event_json[i]` the JSON of
/// `a.events[i]`'s event (encoded once, for the log and the reply).
pub fn accepted_to_proto_encoded(a: &Accepted, event_json: Vec<String>) -> v1::Accepted {
    v1::Accepted {
        client_seq: a.client_seq,
        events: a
            .events
            .iter()
            .zip(event_json)
            .map(|(e, json)| event_to_proto_encoded(&e.envelope, e.client_seq, json))
            .collect(),
        state: a.state.as_ref().map(state_to_proto),
        duplicate: a.duplicate,
        replayed: a.replayed,
    }
}

pub fn accepted_from_proto(a: &v1::Accepted) -> Result<Accepted, ConvertError> {
    Ok(Accepted {
        client_seq: a.client_seq,
        events: a
            .events
            .iter()
            .map(|e| event_from_proto(e).map_err(|error| ConvertError::Event { seq: e.seq, error }))
            .collect::<Result<_, _>>()?,
        state: a.state.as_ref().map(state_from_proto).transpose()?,
        duplicate: a.duplicate,
        replayed: a.replayed,
    })
}

pub fn rejected_to_proto(r: &Rejected) -> v1::Rejected {
    v1::Rejected {
        client_seq: r.client_seq,
        violation: Some(v1::Violation {
            code: r.refusal.code().to_owned(),
            clause: r.refusal.clause().to_owned(),
            message: r.refusal.message().to_owned(),
            message_ru: r.refusal.message_ru().to_owned(),
        }),
    }
}

/// A protocol refusal back into the domain's. The rulebook's file is not
/// on the wire (the clause names it): `source` stays empty.
pub fn rejected_from_proto(r: &v1::Rejected) -> Result<Rejected, ConvertError> {
    let v = r
        .violation
        .as_ref()
        .ok_or(ConvertError::Missing("rejection", "violation"))?;
    let refusal = if v.code == mafia_record::reply::MALFORMED_COMMAND {
        Refusal::Malformed {
            message: v.message.clone(),
            message_ru: v.message_ru.clone(),
        }
    } else if let Some(code) = mafia_record::reply::TimeCode::parse(&v.code) {
        Refusal::Time {
            code,
            message: v.message.clone(),
            message_ru: v.message_ru.clone(),
        }
    } else {
        let code: Code = serde_json::from_value(serde_json::Value::String(v.code.clone()))
            .map_err(|_| ConvertError::Code(v.code.clone()))?;
        Refusal::Rule(Violation {
            code,
            clause: v.clause.clone(),
            source: String::new(),
            message: v.message.clone(),
            message_ru: v.message_ru.clone(),
        })
    };
    Ok(Rejected {
        client_seq: r.client_seq,
        refusal,
    })
}

pub fn command_from_json(s: &str) -> Result<Command, ConvertError> {
    serde_json::from_str(s).map_err(ConvertError::Command)
}

/// A typed protocol command as the engine's command, built directly (no
/// JSON in between); seats are checked as the engine's deserializer checks
/// them for JSON (1..10, no seat listed twice).
pub fn command_from_proto(c: &v1::Command) -> Result<Command, ConvertError> {
    use v1::command::Kind as K;
    let s = |n: u32| {
        u8::try_from(n)
            .ok()
            .and_then(Seat::new)
            .ok_or(ConvertError::Seat(n))
    };
    let opt = |t: Option<u32>| t.map(s).transpose();
    let set = |ns: &[u32]| -> Result<SeatSet, ConvertError> {
        let mut out = SeatSet::EMPTY;
        for &n in ns {
            let seat = s(n)?;
            if out.contains(seat) {
                return Err(ConvertError::RepeatedSeat(n));
            }
            out.insert(seat);
        }
        Ok(out)
    };
    Ok(match c.kind.as_ref().ok_or(ConvertError::NoCommand)? {
        K::NextStep(_) => Command::NextStep,
        K::StartSpeech(a) => Command::StartSpeech { seat: s(a.seat)? },
        K::EndSpeech(a) => Command::EndSpeech {
            seat: s(a.seat)?,
            timeout: a.timeout,
        },
        K::Nominate(a) => Command::Nominate {
            by: s(a.by)?,
            target: s(a.target)?,
        },
        K::Withdraw(a) => Command::Withdraw { by: s(a.seat)? },
        K::Foul(a) => Command::Foul { seat: s(a.seat)? },
        K::TechnicalFoul(a) => Command::TechnicalFoul { seat: s(a.seat)? },
        K::Penalty(a) => Command::Penalty {
            seat: s(a.seat)?,
            kind: match v1::PenaltyKind::try_from(a.kind) {
                Ok(v1::PenaltyKind::Small) => PenaltyKind::Small,
                Ok(v1::PenaltyKind::Big) => PenaltyKind::Big,
                _ => return Err(ConvertError::NoPenaltyKind),
            },
        },
        K::YellowCard(a) => Command::YellowCard { seat: s(a.seat)? },
        K::Disqualify(a) => Command::Disqualify { seat: s(a.seat)? },
        K::OppositeTeamVictory(a) => Command::OppositeTeamVictory { seat: s(a.seat)? },
        K::VoteCall(a) => Command::VoteCall {
            yes: set(&a.seats)?,
        },
        K::Vote(a) => Command::Vote {
            nominee: s(a.nominee)?,
            hands: set(&a.hands)?,
        },
        K::Ballot(a) => Command::Ballot {
            voter: s(a.voter)?,
            target: opt(a.target)?,
        },
        K::Lift(a) => Command::Lift {
            hands: set(&a.seats)?,
        },
        K::EndLastWords(a) => Command::EndLastWords { seat: s(a.seat)? },
        K::Shot(a) => Command::Shot {
            by: s(a.by)?,
            target: opt(a.target)?,
        },
        K::DonCheck(a) => Command::DonCheck {
            target: opt(a.target)?,
        },
        K::SheriffCheck(a) => Command::SheriffCheck {
            target: opt(a.target)?,
        },
        K::BeautyPick(a) => Command::BeautyPick {
            target: opt(a.target)?,
        },
        K::BestMove(a) => {
            let mut named = SeatList::EMPTY;
            for &n in &a.named {
                let seat = s(n)?;
                if named.contains(seat) {
                    return Err(ConvertError::RepeatedSeat(n));
                }
                named.push(seat);
            }
            Command::BestMove {
                seat: s(a.seat)?,
                named,
            }
        }
        K::Undo(_) => Command::Undo,
        K::StartShooting(_) => Command::StartShooting,
    })
}

/// The engine's command as a typed protocol command.
pub fn command_to_proto(c: &Command) -> v1::Command {
    use v1::command::Kind as K;
    let n = |s: Seat| u32::from(s.number());
    let arg = |s: Seat| v1::SeatArg { seat: n(s) };
    let target = |t: Option<Seat>| v1::TargetArg { target: t.map(n) };
    let seats = |s: SeatSet| s.iter().map(n).collect::<Vec<_>>();
    let kind = match *c {
        Command::NextStep => K::NextStep(v1::NoArgs {}),
        Command::StartSpeech { seat } => K::StartSpeech(arg(seat)),
        Command::EndSpeech { seat, timeout } => K::EndSpeech(v1::EndSpeech {
            seat: n(seat),
            timeout,
        }),
        Command::Nominate { by, target } => K::Nominate(v1::Nominate {
            by: n(by),
            target: n(target),
        }),
        Command::Withdraw { by } => K::Withdraw(arg(by)),
        Command::Foul { seat } => K::Foul(arg(seat)),
        Command::TechnicalFoul { seat } => K::TechnicalFoul(arg(seat)),
        Command::Penalty { seat, kind } => K::Penalty(v1::Penalty {
            seat: n(seat),
            kind: match kind {
                PenaltyKind::Small => v1::PenaltyKind::Small,
                PenaltyKind::Big => v1::PenaltyKind::Big,
            } as i32,
        }),
        Command::YellowCard { seat } => K::YellowCard(arg(seat)),
        Command::Disqualify { seat } => K::Disqualify(arg(seat)),
        Command::OppositeTeamVictory { seat } => K::OppositeTeamVictory(arg(seat)),
        Command::VoteCall { yes } => K::VoteCall(v1::Seats { seats: seats(yes) }),
        Command::Vote { nominee, hands } => K::Vote(v1::Vote {
            nominee: n(nominee),
            hands: seats(hands),
        }),
        Command::Ballot { voter, target } => K::Ballot(v1::Ballot {
            voter: n(voter),
            target: target.map(n),
        }),
        Command::Lift { hands } => K::Lift(v1::Seats {
            seats: seats(hands),
        }),
        Command::EndLastWords { seat } => K::EndLastWords(arg(seat)),
        Command::Shot { by, target } => K::Shot(v1::Shot {
            by: n(by),
            target: target.map(n),
        }),
        Command::DonCheck { target: t } => K::DonCheck(target(t)),
        Command::SheriffCheck { target: t } => K::SheriffCheck(target(t)),
        Command::BeautyPick { target: t } => K::BeautyPick(target(t)),
        Command::BestMove { seat, named } => K::BestMove(v1::BestMove {
            seat: n(seat),
            named: named.iter().map(n).collect(),
        }),
        Command::Undo => K::Undo(v1::NoArgs {}),
        Command::StartShooting => K::StartShooting(v1::NoArgs {}),
    };
    v1::Command { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mafia_rules::sim::default_players;
    use mafia_rules::Event;

    fn header(deal: Deal) -> Header {
        Header {
            format: FORMAT.into(),
            rules: RulesRef {
                id: RuleSetId::Ua,
                overrides: serde_json::json!({}),
            },
            tournament_id: Some("cup-2026".parse().unwrap()),
            tournament: "cup".into(),
            stage: "final".into(),
            round: 2,
            table: 3,
            game: 4,
            judge: "J".into(),
            seats: default_players()
                .into_iter()
                .enumerate()
                .map(|(i, p)| SeatEntry {
                    seat: Seat::new(i as u8 + 1).unwrap(),
                    player_id: p.player_id,
                    nickname: p.nickname,
                })
                .collect(),
            deal,
        }
    }

    #[test]
    fn a_header_survives_the_open_game_request_both_ways() {
        let cards = mafia_rules::Setup::new(
            mafia_rules::RuleSet::preset(RuleSetId::Ua),
            default_players(),
            Deal::Seed(9),
        )
        .unwrap()
        .roles()
        .to_vec();
        for deal in [Deal::Seed(7), Deal::Cards(cards)] {
            let h = header(deal);
            let back = header_from_request(&request_from_header(&h, 5)).unwrap();
            assert_eq!(back, h);
            back.setup().unwrap();
        }
    }

    #[test]
    fn an_unknown_rule_set_is_refused() {
        let mut r = request_from_header(&header(Deal::Seed(1)), 0);
        r.rules = "chess".into();
        assert!(matches!(
            header_from_request(&r),
            Err(ConvertError::RuleSet(_))
        ));
    }

    #[test]
    fn every_command_survives_the_typed_form() {
        let s = |n| Seat::new(n).unwrap();
        let set: SeatSet = [s(2), s(5)].into_iter().collect();
        let list: mafia_rules::SeatList = [s(4), s(1), s(9)].into_iter().collect();
        let all = [
            Command::NextStep,
            Command::StartSpeech { seat: s(1) },
            Command::EndSpeech {
                seat: s(2),
                timeout: true,
            },
            Command::Nominate {
                by: s(1),
                target: s(3),
            },
            Command::Withdraw { by: s(4) },
            Command::Foul { seat: s(5) },
            Command::TechnicalFoul { seat: s(6) },
            Command::Penalty {
                seat: s(7),
                kind: PenaltyKind::Big,
            },
            Command::YellowCard { seat: s(8) },
            Command::Disqualify { seat: s(9) },
            Command::OppositeTeamVictory { seat: s(10) },
            Command::VoteCall { yes: set },
            Command::Vote {
                nominee: s(3),
                hands: set,
            },
            Command::Ballot {
                voter: s(1),
                target: None,
            },
            Command::Ballot {
                voter: s(1),
                target: Some(s(2)),
            },
            Command::Lift { hands: set },
            Command::EndLastWords { seat: s(2) },
            Command::Shot {
                by: s(3),
                target: None,
            },
            Command::Shot {
                by: s(3),
                target: Some(s(4)),
            },
            Command::DonCheck { target: Some(s(5)) },
            Command::SheriffCheck { target: None },
            Command::BeautyPick { target: Some(s(6)) },
            Command::BestMove {
                seat: s(1),
                named: list,
            },
            Command::Undo,
        ];
        for c in all {
            assert_eq!(command_from_proto(&command_to_proto(&c)).unwrap(), c);
        }
    }

    #[test]
    fn a_typed_command_with_a_bad_seat_is_refused() {
        let c = v1::Command {
            kind: Some(v1::command::Kind::Foul(v1::SeatArg { seat: 11 })),
        };
        assert!(matches!(
            command_from_proto(&c),
            Err(ConvertError::Seat(11))
        ));
        let twice = v1::Command {
            kind: Some(v1::command::Kind::VoteCall(v1::Seats { seats: vec![3, 3] })),
        };
        assert!(matches!(
            command_from_proto(&twice),
            Err(ConvertError::RepeatedSeat(3))
        ));
        assert!(matches!(
            command_from_proto(&v1::Command::default()),
            Err(ConvertError::NoCommand)
        ));
    }

    #[test]
    fn events_keep_their_type_tag_and_round_trip() {
        let env = Envelope {
            seq: 3,
            cmd: 2,
            at: 10,
            event: Event::Nominated {
                by: Seat::new(1).unwrap(),
                target: Seat::new(2).unwrap(),
            },
        };
        let p = event_to_proto(&env, Some(2));
        assert_eq!(p.r#type, "nominated");
        let back = event_from_proto(&p).unwrap();
        assert_eq!(back.envelope, env);
        assert_eq!(back.client_seq, Some(2));
    }

    #[test]
    fn a_state_and_the_replies_survive_the_protocol() {
        let setup = header(Deal::Seed(3)).setup().unwrap();
        let (mut game, _) = mafia_rules::Game::new(setup, 1);
        let envelopes = game.apply(&Command::NextStep, 2).unwrap();
        let state = GameState {
            game_id: "cup-2026.final.r2.t3.g4".parse().unwrap(),
            seq: u64::from(game.seq()),
            last_client_seq: 1,
            over: false,
            view: game.view(Audience::Judge),
        };
        let wire = state_to_proto(&state);
        assert!(!wire.prompt_json.is_empty());
        assert_eq!(state_from_proto(&wire).unwrap(), state);
        let accepted = Accepted {
            client_seq: 1,
            events: envelopes
                .into_iter()
                .map(|envelope| LoggedEvent {
                    client_seq: Some(1),
                    envelope,
                })
                .collect(),
            state: Some(state),
            duplicate: false,
            replayed: true,
        };
        assert_eq!(
            accepted_from_proto(&accepted_to_proto(&accepted)).unwrap(),
            accepted
        );
        let v = game.apply(&Command::Undo, 3).err();
        for refusal in v
            .map(Refusal::Rule)
            .into_iter()
            .chain([Refusal::malformed("no such command")])
        {
            let r = Rejected {
                client_seq: 2,
                refusal,
            };
            let mut back = rejected_from_proto(&rejected_to_proto(&r)).unwrap();
            // The rulebook's file is not on the wire.
            if let (Refusal::Rule(b), Refusal::Rule(o)) = (&mut back.refusal, &r.refusal) {
                b.source.clone_from(&o.source);
            }
            assert_eq!(back, r);
        }
    }

    #[test]
    fn an_unknown_violation_code_is_refused() {
        let r = v1::Rejected {
            client_seq: 1,
            violation: Some(v1::Violation {
                code: "no_such_code".into(),
                ..Default::default()
            }),
        };
        assert!(matches!(
            rejected_from_proto(&r),
            Err(ConvertError::Code(_))
        ));
    }
}
