//! mafiaratings game JSON into scripts, and through the engine into records.

use super::gametime::moment;
use super::rules_code;
use crate::drive::{drive, Imported};
use crate::error::SourceError;
use crate::json::{self, array, field, index, int, int_in, key, object, string};
use crate::script::{DayFacts, Left, Moment, NightFacts, Origin, Sanction, SanctionKind, Script};
use mafia_record::TournamentId;
use mafia_rules::{Player, Role, RuleSet, RuleSetId, Seat, SeatSet, Team};
use serde_json::Value;
use std::collections::BTreeMap;

/// One game of a source file: its path in the file and what became of it.
#[derive(Debug)]
pub struct GameImport {
    pub path: String,
    pub result: Result<Imported, SourceError>,
}

/// The games of a file: one game object, an array of games, or an object
/// with a `games` array (the site's export). Each with its path.
pub fn parse_games(value: &Value) -> Result<Vec<(String, &Value)>, SourceError> {
    if let Some(games) = value.get("games") {
        let a = array(games, "games")?;
        return Ok(a
            .iter()
            .enumerate()
            .map(|(i, g)| (index("games", i), g))
            .collect());
    }
    match value {
        Value::Array(a) => Ok(a
            .iter()
            .enumerate()
            .map(|(i, g)| (index("", i), g))
            .collect()),
        Value::Object(_) => Ok(vec![(String::new(), value)]),
        other => Err(SourceError::shape(
            "",
            format!(
                "expected a game, an array of games or {{\"games\": [...]}}, found {}",
                json::kind(other)
            ),
        )),
    }
}

/// Imports every game of `text`; `base` is the preset the rules code is read
/// against (docs/interchange.md). Only a file that is not JSON, or not a game
/// or list of games, is an error as a whole.
pub fn import(text: &str, base: RuleSetId) -> Result<Vec<GameImport>, SourceError> {
    let value = json::parse(text)?;
    let games = parse_games(&value)?;
    Ok(games
        .into_iter()
        .enumerate()
        .map(|(i, (path, g))| GameImport {
            result: script(g, &path, i, base).and_then(|s| drive(&s)),
            path,
        })
        .collect())
}

/// The letters of data the replay cannot do without: nominations, votes,
/// shots, both checks, warnings.
const REQUIRED_FEATURES: [(char, &str); 6] = [
    ('n', "nominations"),
    ('v', "votes"),
    ('h', "shots"),
    ('g', "the Don's checks"),
    ('s', "the Sheriff's checks"),
    ('w', "warnings"),
];

fn seat(v: &Value, path: &str) -> Result<Seat, SourceError> {
    let n = int_in(v, path, 1, 10)?;
    Ok(Seat::from_index(n as usize - 1))
}

fn round(v: &Value, path: &str) -> Result<u8, SourceError> {
    Ok(int_in(v, path, 0, 30)? as u8)
}

/// A time: Unix seconds, or ISO 8601; in milliseconds.
pub fn time_ms(v: &Value, path: &str) -> Result<i64, SourceError> {
    match v {
        Value::Number(_) => Ok(int_in(v, path, 0, 1 << 40)? * 1000),
        Value::String(s) => {
            if let Ok(n) = s.trim().parse::<i64>() {
                if (0..1 << 40).contains(&n) {
                    return Ok(n * 1000);
                }
            }
            crate::time::parse_iso(s)
                .ok_or_else(|| SourceError::shape(path, format!("not a time: {s:?}")))
        }
        other => Err(SourceError::shape(
            path,
            format!("expected a time, found {}", json::kind(other)),
        )),
    }
}

fn role(v: Option<&Value>, path: &str) -> Result<Role, SourceError> {
    let Some(v) = v else {
        return Ok(Role::Civilian);
    };
    Ok(match string(v, path)? {
        "civ" => Role::Civilian,
        "maf" => Role::Mafia,
        "sheriff" | "srf" => Role::Sheriff,
        "don" => Role::Don,
        other => {
            return Err(SourceError::shape(
                path,
                format!("unknown role {other:?}; known: civ, maf, sheriff, don"),
            ))
        }
    })
}

/// A game time's moment and its `order` within it (0 when unsaid).
fn gametime(v: &Value, path: &str) -> Result<(Moment, u32), SourceError> {
    object(v, path)?;
    let r = match field(v, "round") {
        Some(r) => round(r, &key(path, "round"))?,
        None => return Err(SourceError::shape(path, "a game time needs its round")),
    };
    let time = match field(v, "time") {
        Some(t) => Some(string(t, &key(path, "time"))?),
        None => None,
    };
    let speaker = match field(v, "speaker") {
        Some(s) => Some(seat(s, &key(path, "speaker"))?),
        None => None,
    };
    let voting_round = match field(v, "votingRound") {
        Some(x) => int_in(x, &key(path, "votingRound"), 0, 30)? as u8,
        None => 0,
    };
    let nominee = match field(v, "nominee") {
        Some(x) => Some(seat(x, &key(path, "nominee"))?),
        None => None,
    };
    let order = match field(v, "order") {
        Some(x) => int_in(x, &key(path, "order"), 0, u32::MAX as i64)? as u32,
        None => 0,
    };
    Ok((moment(r, time, speaker, voting_round, nominee), order))
}

fn small_u32(v: Option<&Value>, path: &str) -> Result<Option<u32>, SourceError> {
    match v {
        Some(v) => Ok(Some(int_in(v, path, 1, u32::MAX as i64)? as u32)),
        None => Ok(None),
    }
}

/// One game object at `path` (the `n`th of its file) as a script.
pub fn script(g: &Value, path: &str, n: usize, base: RuleSetId) -> Result<Script, SourceError> {
    object(g, path)?;
    let p = |k: &str| key(path, k);
    if let Some(f) = field(g, "features") {
        let letters = string(f, &p("features"))?;
        for (letter, what) in REQUIRED_FEATURES {
            if !letters.contains(letter) {
                return Err(SourceError::unsupported(
                    p("features"),
                    format!("the game has no {what} (no '{letter}' in {letters:?}); it cannot be replayed"),
                ));
            }
        }
    }
    let rules = match field(g, "rules") {
        Some(code) => {
            let code = match code {
                Value::Number(n) => format!("{n:0>13}"),
                other => string(other, &p("rules"))?.to_string(),
            };
            rules_code::from_code(&code, base)
                .map_err(|e| SourceError::unsupported(p("rules"), e.to_string()))?
        }
        None => RuleSet::preset(base),
    };
    let start_ms = match field(g, "startTime").or_else(|| field(g, "start_time")) {
        Some(t) => time_ms(t, &p("startTime"))?,
        None => return Err(SourceError::shape(path, "the game has no startTime")),
    };
    let end_ms = match field(g, "endTime").or_else(|| field(g, "end_time")) {
        Some(t) => Some(time_ms(t, &p("endTime"))?),
        None => None,
    };
    let winner = match field(g, "winner") {
        Some(w) => Some(match string(w, &p("winner"))? {
            "civ" => Some(Team::Red),
            "maf" => Some(Team::Black),
            "tie" => None,
            other => {
                return Err(SourceError::shape(
                    p("winner"),
                    format!("unknown winner {other:?}; known: civ, maf, tie"),
                ))
            }
        }),
        None => None,
    };
    let judge = match field(g, "moderator") {
        Some(m) => match (field(m, "name"), field(m, "id")) {
            (Some(name), _) => string(name, &key(&p("moderator"), "name"))?.to_string(),
            (None, Some(id)) => format!("mr:{}", int(id, &key(&p("moderator"), "id"))?),
            _ => String::new(),
        },
        None => String::new(),
    };
    let event = field(g, "eventId")
        .or_else(|| field(g, "event_id"))
        .map(|e| int(e, &p("eventId")))
        .transpose()?;
    let tournament_id = match event {
        Some(e) => format!("mr-event-{e}"),
        None => "mafiaratings".to_string(),
    };
    let tournament_id = TournamentId::new(tournament_id.clone())
        .map_err(|e| SourceError::shape(p("eventId"), e.to_string()))?;
    let tournament = match field(g, "event").and_then(|e| field(e, "name")) {
        Some(name) => string(name, &key(&p("event"), "name"))?.to_string(),
        None => tournament_id.to_string(),
    };
    let table = small_u32(field(g, "tableNum"), &p("tableNum"))?.unwrap_or(1);
    let id = match field(g, "id") {
        Some(v) => Some(int_in(v, &p("id"), 1, u32::MAX as i64)? as u32),
        None => None,
    };
    let game = small_u32(field(g, "gameNum"), &p("gameNum"))?
        .or(id)
        .unwrap_or((n + 1).min(u32::MAX as usize) as u32);

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
    let mut script = Script {
        rules,
        players: Vec::with_capacity(10),
        roles: [Role::Civilian; 10],
        origin_roles: Origin(players_path.clone()),
        start_ms,
        end_ms,
        tournament,
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
        origin_winner: Origin(p("winner")),
    };
    let mut lifts: BTreeMap<u8, (SeatSet, Origin)> = BTreeMap::new();
    let mut sanctions: Vec<(u32, Sanction)> = Vec::new();
    for (i, pv) in players.iter().enumerate() {
        let pp = index(&players_path, i);
        object(pv, &pp)?;
        let me = Seat::from_index(i);
        let q = |k: &str| key(&pp, k);
        let name = match field(pv, "name").or_else(|| field(pv, "nickname")) {
            Some(n) => string(n, &q("name"))?.to_string(),
            None => format!("Player {}", i + 1),
        };
        let player_id = match field(pv, "id").or_else(|| field(pv, "user_id")) {
            Some(id) => int(id, &q("id"))?.to_string(),
            None => format!("seat-{}", i + 1),
        };
        script.players.push(Player {
            player_id,
            nickname: name,
        });
        script.roles[i] = role(field(pv, "role"), &q("role"))?;
        if let Some(v) = field(pv, "nominating") {
            for (r, t) in array(v, &q("nominating"))?.iter().enumerate() {
                if t.is_null() {
                    continue;
                }
                let tp = index(&q("nominating"), r);
                let target = seat(t, &tp)?;
                day(&mut script, r, &tp)?
                    .nominations
                    .insert(me, (target, Origin(tp)));
            }
        }
        if let Some(v) = field(pv, "voting") {
            for (r, votes) in array(v, &q("voting"))?.iter().enumerate() {
                let vp = index(&q("voting"), r);
                let list: Vec<(String, &Value)> = match votes {
                    Value::Null => continue,
                    Value::Array(a) => a
                        .iter()
                        .enumerate()
                        .map(|(k, x)| (index(&vp, k), x))
                        .collect(),
                    other => vec![(vp.clone(), other)],
                };
                let d = day(&mut script, r, &vp)?;
                for (k, (xp, x)) in list.iter().enumerate() {
                    match x {
                        Value::Bool(yes) if k + 1 == list.len() && k > 0 => {
                            let dn = (r + 1) as u8;
                            let entry = lifts
                                .entry(dn)
                                .or_insert_with(|| (SeatSet::default(), Origin(xp.clone())));
                            if *yes {
                                entry.0.insert(me);
                            }
                        }
                        Value::Null => {}
                        _ => {
                            let target = seat(x, xp)?;
                            while d.rounds.len() <= k {
                                d.rounds.push(BTreeMap::new());
                            }
                            d.rounds[k].insert(me, (Some(target), Origin(xp.clone())));
                        }
                    }
                }
            }
        }
        if let Some(v) = field(pv, "shooting") {
            for (k, t) in array(v, &q("shooting"))?.iter().enumerate() {
                let tp = index(&q("shooting"), k);
                let target = if t.is_null() {
                    None
                } else {
                    Some(seat(t, &tp)?)
                };
                let nf = night(&mut script, k + 1, &tp)?;
                nf.shots.insert(me, (target, Origin(tp)));
            }
        }
        for (k, is_don) in [("don", true), ("sheriff", false)] {
            if let Some(v) = field(pv, k) {
                let rp = q(k);
                let r = round(v, &rp)?;
                let nf = night(&mut script, r as usize, &rp)?;
                let slot = if is_don {
                    &mut nf.don_check
                } else {
                    &mut nf.sheriff_check
                };
                if let Some((other, _)) = slot {
                    return Err(SourceError::shape(
                        rp,
                        format!("player {other} was already checked in night {r}"),
                    ));
                }
                *slot = Some((me, Origin(rp)));
            }
        }
        if let Some(v) = field(pv, "legacy") {
            let lp = q("legacy");
            let named = array(v, &lp)?
                .iter()
                .enumerate()
                .map(|(k, x)| seat(x, &index(&lp, k)))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some((other, _, _)) = &script.best_move {
                return Err(SourceError::shape(
                    lp,
                    format!("player {other} has a legacy already; the engine has one best move"),
                ));
            }
            script.best_move = Some((me, named, Origin(lp)));
        }
        for (k, kind) in [
            ("warnings", SanctionKind::Foul),
            ("techFouls", SanctionKind::TechnicalFoul),
        ] {
            let Some(v) = field(pv, k) else { continue };
            let wp = q(k);
            match v {
                Value::Array(a) => {
                    for (j, t) in a.iter().enumerate() {
                        let tp = index(&wp, j);
                        let (at, order) = gametime(t, &tp)?;
                        sanctions.push((
                            order,
                            Sanction {
                                seat: me,
                                kind,
                                at,
                                origin: Origin(tp),
                            },
                        ));
                    }
                }
                other if int(other, &wp)? == 0 => {}
                _ => {
                    return Err(SourceError::unsupported(
                        wp,
                        "warnings without their game times ('r' feature) cannot be placed in the replay",
                    ))
                }
            }
        }
        if let Some(v) = field(pv, "death") {
            death(&mut script, &mut sanctions, me, v, &q("death"))?;
        }
    }
    for (d, lift) in lifts {
        script.days.entry(d).or_default().lift = Some(lift);
    }
    // Sanctions given at one game time follow its `order`; without one,
    // a player's keep his list's order and players follow seat order.
    sanctions.sort_by_key(|(order, _)| *order);
    script.sanctions = sanctions.into_iter().map(|(_, s)| s).collect();
    Ok(script)
}

fn day<'a>(s: &'a mut Script, r: usize, path: &str) -> Result<&'a mut DayFacts, SourceError> {
    if r >= 30 {
        return Err(SourceError::shape(
            path,
            format!("round {r} is past any game"),
        ));
    }
    Ok(s.days.entry(r as u8 + 1).or_default())
}

fn night<'a>(s: &'a mut Script, n: usize, path: &str) -> Result<&'a mut NightFacts, SourceError> {
    if n == 0 || n >= 30 {
        return Err(SourceError::shape(
            path,
            format!("night {n}: nobody acts in it"),
        ));
    }
    Ok(s.nights.entry(n as u8).or_default())
}

fn death(
    s: &mut Script,
    sanctions: &mut Vec<(u32, Sanction)>,
    me: Seat,
    v: &Value,
    path: &str,
) -> Result<(), SourceError> {
    // Only the full form (round and type) can be checked or replayed.
    let Value::Object(_) = v else { return Ok(()) };
    let (Some(r), Some(t)) = (field(v, "round"), field(v, "type")) else {
        return Ok(());
    };
    let r = round(r, &key(path, "round"))?;
    let t = string(t, &key(path, "type"))?;
    let (at, order) = match field(v, "time") {
        Some(tv) => gametime(tv, &key(path, "time"))?,
        None => (Moment::Round { round: r }, 0),
    };
    let origin = Origin(path.to_string());
    match t {
        "day" => s.departures.push((me, Left::Day(r + 1), origin)),
        "night" => s.departures.push((me, Left::Night(r), origin)),
        "warnings" | "techFouls" => s.departures.push((me, Left::Removed(r), origin)),
        "kickOut" | "giveUp" => {
            sanctions.push((
                order,
                Sanction {
                    seat: me,
                    kind: SanctionKind::Disqualify,
                    at,
                    origin: origin.clone(),
                },
            ));
            s.departures.push((me, Left::Removed(r), origin));
        }
        "teamKickOut" => sanctions.push((
            order,
            Sanction {
                seat: me,
                kind: SanctionKind::OppositeTeamVictory,
                at,
                origin,
            },
        )),
        other => {
            return Err(SourceError::shape(
                key(path, "type"),
                format!("unknown death type {other:?}"),
            ))
        }
    }
    Ok(())
}
