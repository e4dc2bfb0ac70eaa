//! Polemica (polemicagame.com, as in Vyasma-Mafia/polemica-library): its
//! game JSON is a list of events by kind: `votes` (`num` 0 the
//! nominations, 1, 2… the vote rounds, `null` the lift), `shots`, `checks`,
//! and per player `fouls`, `techs` (each with the stage it was given in),
//! `guess` (the best move) and `disqual`. Import only. Its days and nights
//! count like ours: day 1 first, night n after day n.

use crate::drive::drive;
use crate::error::SourceError;
use crate::json::{self, array, field, index, int, int_in, key, object, string};
use crate::mafiaratings::import::time_ms;
use crate::script::{Moment, NightFacts, Origin, Sanction, SanctionKind, Script};
use mafia_record::TournamentId;
use mafia_rules::params::NightAction;
use mafia_rules::{Player, Role, RuleSet, RuleSetId, Seat, Team};
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::mafiaratings::import::GameImport;

/// Imports the games of `text`: one game object, or an array of them.
/// `base` is the rule set they were played under (Polemica names none).
pub fn import(text: &str, base: RuleSetId) -> Result<Vec<GameImport>, SourceError> {
    let value = json::parse(text)?;
    let games: Vec<(String, &Value)> = match &value {
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, g)| (index("", i), g))
            .collect(),
        Value::Object(_) => vec![(String::new(), &value)],
        other => {
            return Err(SourceError::shape(
                "",
                format!(
                    "expected a game or an array of games, found {}",
                    json::kind(other)
                ),
            ))
        }
    };
    Ok(games
        .into_iter()
        .enumerate()
        .map(|(i, (path, g))| GameImport {
            result: script(g, &path, i, base).and_then(|s| drive(&s)),
            path,
        })
        .collect())
}

fn seat(v: &Value, path: &str) -> Result<Seat, SourceError> {
    Ok(Seat::from_index(int_in(v, path, 1, 10)? as usize - 1))
}

fn small(v: &Value, path: &str, lo: i64) -> Result<u8, SourceError> {
    Ok(int_in(v, path, lo, 30)? as u8)
}

/// A stage (`{"type":"speech","day":2,"player":5}`) as the moment it means.
fn stage(v: &Value, path: &str) -> Result<Moment, SourceError> {
    object(v, path)?;
    let t = match field(v, "type") {
        Some(t) => string(t, &key(path, "type"))?,
        None => return Err(SourceError::shape(path, "a stage needs its type")),
    };
    let day = match field(v, "day") {
        Some(d) => small(d, &key(path, "day"), 0)?,
        None => 0,
    };
    let player = match field(v, "player") {
        Some(p) if int(p, &key(path, "player"))? != 0 => Some(seat(p, &key(path, "player"))?),
        _ => None,
    };
    Ok(match (t, player) {
        ("dealing" | "briefing" | "comIntro", _) => Moment::Night0,
        ("speech", Some(seat)) => Moment::Speech { day, seat },
        ("reSpeech", Some(seat)) => Moment::TieSpeech {
            day,
            seat,
            round: None,
        },
        ("voted", Some(seat)) => Moment::LastWords { day, seat },
        ("shooted", Some(seat)) => Moment::LastWords {
            day: day.saturating_add(1),
            seat,
        },
        ("voting" | "toVoting" | "voted", _) => Moment::Voting {
            day,
            round: None,
            nominee: None,
        },
        ("lift" | "toLift" | "liftResult", _) => Moment::Lift { day },
        ("shooting" | "donCheck" | "comCheck", _) if day > 0 => Moment::NightStep {
            night: day,
            action: match t {
                "shooting" => NightAction::Shooting,
                "donCheck" => NightAction::DonCheck,
                _ => NightAction::SheriffCheck,
            },
        },
        ("guess", _) if day > 0 => Moment::NightEnd { night: day },
        (
            "shooting" | "donCheck" | "comCheck" | "checks" | "guess" | "comKill" | "toNight"
            | "shooted",
            _,
        ) => {
            if day == 0 {
                Moment::Night0
            } else {
                Moment::Night { night: day }
            }
        }
        ("gameOver", _) => Moment::End,
        _ => Moment::Day { day: day.max(1) },
    })
}

fn role(v: &Value, path: &str) -> Result<Role, SourceError> {
    Ok(match int(v, path)? {
        0 => Role::Don,
        1 => Role::Mafia,
        2 => Role::Civilian,
        3 => Role::Sheriff,
        n => {
            return Err(SourceError::shape(
                path,
                format!("unknown role {n}; known: 0 Don, 1 mafia, 2 civilian, 3 sheriff"),
            ))
        }
    })
}

fn list<'a>(g: &'a Value, k: &str, path: &str) -> Result<&'a [Value], SourceError> {
    match field(g, k) {
        Some(v) => Ok(array(v, &key(path, k))?.as_slice()),
        None => Ok(&[]),
    }
}

pub fn script(g: &Value, path: &str, n: usize, base: RuleSetId) -> Result<Script, SourceError> {
    object(g, path)?;
    let p = |k: &str| key(path, k);
    let start_ms = match field(g, "started") {
        Some(t) => time_ms(t, &p("started"))?,
        None => return Err(SourceError::shape(path, "the game has no started time")),
    };
    let winner = match field(g, "result") {
        Some(r) => Some(match int(r, &p("result"))? {
            0 => Some(Team::Red),
            1 => Some(Team::Black),
            other => {
                return Err(SourceError::shape(
                    p("result"),
                    format!("unknown result {other}; known: 0 red, 1 black"),
                ))
            }
        }),
        None => None,
    };
    let players_path = p("players");
    let players = match field(g, "players") {
        Some(v) => array(v, &players_path)?,
        None => return Err(SourceError::shape(path, "the game has no players")),
    };
    if players.len() != 10 {
        return Err(SourceError::shape(
            &players_path,
            format!("a game has 10 players, found {}", players.len()),
        ));
    }
    let judge = match field(g, "referee").and_then(|r| field(r, "username")) {
        Some(u) => string(u, &key(&p("referee"), "username"))?.to_string(),
        None => String::new(),
    };
    let game = match field(g, "num") {
        Some(v) => int_in(v, &p("num"), 1, u32::MAX as i64)? as u32,
        None => match field(g, "id") {
            Some(v) => int_in(v, &p("id"), 1, u32::MAX as i64)? as u32,
            None => (n + 1).min(u32::MAX as usize) as u32,
        },
    };
    let table = match field(g, "table") {
        Some(v) => int_in(v, &p("table"), 1, u32::MAX as i64)? as u32,
        None => 1,
    };
    let tournament_id = TournamentId::new("polemica".to_string())
        .map_err(|e| SourceError::shape(path, e.to_string()))?;
    let mut s = Script {
        rules: RuleSet::preset(base),
        players: vec![
            Player {
                player_id: String::new(),
                nickname: String::new()
            };
            10
        ],
        roles: [Role::Civilian; 10],
        origin_roles: Origin(players_path.clone()),
        start_ms,
        end_ms: None,
        tournament: match field(g, "name") {
            Some(v) => string(v, &p("name"))?.to_string(),
            None => "polemica".into(),
        },
        tournament_id: Some(tournament_id),
        round: 1,
        table,
        game,
        judge,
        days: BTreeMap::new(),
        nights: BTreeMap::new(),
        sanctions: Vec::new(),
        best_move: None,
        guesses: Vec::new(),
        departures: Vec::new(),
        winner,
        origin_winner: Origin(p("result")),
    };
    let mut placed = [false; 10];
    for (i, pv) in players.iter().enumerate() {
        let pp = index(&players_path, i);
        object(pv, &pp)?;
        let q = |k: &str| key(&pp, k);
        let me = match field(pv, "position") {
            Some(v) => seat(v, &q("position"))?,
            None => return Err(SourceError::shape(&pp, "a player needs his position")),
        };
        if std::mem::replace(&mut placed[me.index()], true) {
            return Err(SourceError::shape(
                q("position"),
                format!("seat {me} is listed twice"),
            ));
        }
        let name = match field(pv, "username") {
            Some(u) => string(u, &q("username"))?.to_string(),
            None => format!("Player {me}"),
        };
        let id = match field(pv, "player") {
            Some(Value::Object(o)) => match o.get("id").filter(|v| !v.is_null()) {
                Some(id) => Some(int(id, &key(&q("player"), "id"))?),
                None => None,
            },
            Some(v) => Some(int(v, &q("player"))?),
            None => None,
        };
        s.players[me.index()] = Player {
            player_id: match id {
                Some(id) => format!("polemica:{id}"),
                None => format!("seat-{me}"),
            },
            nickname: name,
        };
        s.roles[me.index()] = match field(pv, "role") {
            Some(r) => role(r, &q("role"))?,
            None => return Err(SourceError::shape(&pp, "a player needs his role")),
        };
        for (k, kind) in [
            ("fouls", SanctionKind::Foul),
            ("techs", SanctionKind::TechnicalFoul),
        ] {
            for (j, f) in list(pv, k, &pp)?.iter().enumerate() {
                let fp = index(&q(k), j);
                let at = match field(f, "stage") {
                    Some(st) => stage(st, &key(&fp, "stage"))?,
                    None => return Err(SourceError::shape(&fp, "a foul needs its stage")),
                };
                s.sanctions.push(Sanction {
                    seat: me,
                    kind,
                    at,
                    origin: Origin(fp),
                });
            }
        }
        if let Some(d) = field(pv, "disqual") {
            s.sanctions.push(Sanction {
                seat: me,
                kind: SanctionKind::Disqualify,
                at: stage(d, &q("disqual"))?,
                origin: Origin(q("disqual")),
            });
        }
        if let Some(guess) = field(pv, "guess") {
            let gp = q("guess");
            object(guess, &gp)?;
            let mafs = list(guess, "mafs", &gp)?;
            if !mafs.is_empty() {
                let named = mafs
                    .iter()
                    .enumerate()
                    .map(|(k, x)| seat(x, &index(&key(&gp, "mafs"), k)))
                    .collect::<Result<Vec<_>, _>>()?;
                s.guesses.push((me, named, Origin(key(&gp, "mafs"))));
            }
        }
    }
    for (i, v) in list(g, "votes", path)?.iter().enumerate() {
        let vp = index(&p("votes"), i);
        object(v, &vp)?;
        let day = match field(v, "day") {
            Some(d) => small(d, &key(&vp, "day"), 1)?,
            None => return Err(SourceError::shape(&vp, "a vote needs its day")),
        };
        let voter = match field(v, "voter") {
            Some(x) => seat(x, &key(&vp, "voter"))?,
            None => return Err(SourceError::shape(&vp, "a vote needs its voter")),
        };
        let candidate = match field(v, "candidate") {
            Some(c) if int(c, &key(&vp, "candidate"))? != 0 => {
                Some(seat(c, &key(&vp, "candidate"))?)
            }
            _ => None,
        };
        let f = s.days.entry(day).or_default();
        match field(v, "num") {
            Some(num) => {
                let num = int_in(num, &key(&vp, "num"), 0, 30)? as usize;
                if num == 0 {
                    if let Some(target) = candidate {
                        if f.nominations
                            .insert(voter, (target, Origin(vp.clone())))
                            .is_some()
                        {
                            return Err(SourceError::shape(
                                vp,
                                format!("player {voter} nominates twice on day {day}"),
                            ));
                        }
                    }
                } else {
                    while f.rounds.len() < num {
                        f.rounds.push(BTreeMap::new());
                    }
                    f.rounds[num - 1].insert(voter, (candidate, Origin(vp)));
                }
            }
            None => {
                let lift = f
                    .lift
                    .get_or_insert_with(|| (Default::default(), Origin(vp.clone())));
                if candidate.is_some() {
                    lift.0.insert(voter);
                }
            }
        }
    }
    for (i, v) in list(g, "shots", path)?.iter().enumerate() {
        let sp = index(&p("shots"), i);
        object(v, &sp)?;
        let (Some(nv), Some(by)) = (field(v, "night"), field(v, "shooter")) else {
            return Err(SourceError::shape(
                &sp,
                "a shot needs its night and shooter",
            ));
        };
        let night = small(nv, &key(&sp, "night"), 1)?;
        let by = seat(by, &key(&sp, "shooter"))?;
        let target = match field(v, "victim") {
            Some(t) if int(t, &key(&sp, "victim"))? != 0 => Some(seat(t, &key(&sp, "victim"))?),
            _ => None,
        };
        let nf: &mut NightFacts = s.nights.entry(night).or_default();
        if nf.shots.insert(by, (target, Origin(sp.clone()))).is_some() {
            return Err(SourceError::shape(
                sp,
                format!("player {by} shoots twice in night {night}"),
            ));
        }
    }
    for (i, v) in list(g, "checks", path)?.iter().enumerate() {
        let cp = index(&p("checks"), i);
        object(v, &cp)?;
        let (Some(nv), Some(rv), Some(pv)) =
            (field(v, "night"), field(v, "role"), field(v, "player"))
        else {
            return Err(SourceError::shape(
                &cp,
                "a check needs its night, role and player",
            ));
        };
        let night = small(nv, &key(&cp, "night"), 1)?;
        let target = seat(pv, &key(&cp, "player"))?;
        let nf = s.nights.entry(night).or_default();
        let slot = match role(rv, &key(&cp, "role"))? {
            Role::Don => &mut nf.don_check,
            Role::Sheriff => &mut nf.sheriff_check,
            _ => {
                return Err(SourceError::shape(
                    key(&cp, "role"),
                    "only the Don and the Sheriff check",
                ))
            }
        };
        if slot.is_some() {
            return Err(SourceError::shape(
                cp,
                format!("two checks of one role in night {night}"),
            ));
        }
        *slot = Some((target, Origin(cp)));
    }
    zero_voting(&s)?;
    Ok(s)
}

/// Polemica's "zero voting": a first-day vote with one leader may leave
/// everyone at the table (its `zeroVoting` variants). The engine has no such
/// rule, so a game where the first day's leader still votes or nominates on
/// a later day cannot be replayed: said here rather than as the engine's
/// refusal of his next vote.
fn zero_voting(s: &Script) -> Result<(), SourceError> {
    let Some(day1) = s.days.get(&1) else {
        return Ok(());
    };
    let Some(last) = day1.rounds.last() else {
        return Ok(());
    };
    let mut tally: BTreeMap<Seat, usize> = BTreeMap::new();
    for (t, _) in last.values() {
        if let Some(t) = t {
            *tally.entry(*t).or_default() += 1;
        }
    }
    let max = tally.values().copied().max().unwrap_or(0);
    let leaders: Vec<Seat> = tally
        .iter()
        .filter(|(_, n)| **n == max)
        .map(|(s, _)| *s)
        .collect();
    let [leader] = leaders[..] else {
        return Ok(());
    };
    let acts_later = s.days.range(2..).any(|(_, d)| {
        d.nominations.contains_key(&leader) || d.rounds.iter().any(|r| r.contains_key(&leader))
    });
    if acts_later {
        let origin = last
            .values()
            .next()
            .map_or(String::new(), |(_, o)| o.0.clone());
        return Err(SourceError::unsupported(
            origin,
            format!(
                "player {leader} leads the first day's vote and still plays on: Polemica's zero voting (a first-day vote that removes nobody) has no rule in the engine"
            ),
        ));
    }
    Ok(())
}
