//! `mafia tournament`'s side of the office (issue 37): what the browser
//! office does, from the command line: list, archive and remove
//! tournaments, preview a players file, edit players and pair rules, plan,
//! publish and swap seatings, and the chief judge's rulings (approve,
//! refuse, confirm a result, file and decide appeals, draw a lot) with the
//! audit trail. Each is one call of the scoring service.

use super::{read_arg, refused, Client};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use mafia_proto::v1::{ListTournamentsRequest, PlanSeatingRequest, RegisterPlayersCsvRequest};
use mafia_record::{GameId, StageId};
use mafia_tournament::{
    AppealDecision, ApprovalItem, Correction, PairKind, PairRule, Place, Player, PlayerId,
    TournamentCommand,
};
use std::io::{Read, Write};
use std::path::Path;

#[derive(Subcommand)]
pub enum PlayerAction {
    /// Register one player.
    Add(PlayerFields),
    /// Change a player's nickname, club or photo (the id stays).
    Edit(PlayerFields),
    /// Withdraw a player: he is seated in no later round.
    Withdraw { id: String },
}

#[derive(clap::Args)]
pub struct PlayerFields {
    id: String,
    #[arg(long)]
    nickname: String,
    #[arg(long)]
    club: Option<String>,
    #[arg(long)]
    photo: Option<String>,
}

/// The file's bytes as saved (any encoding the service reads), or
/// standard input for `-`.
pub fn read_bytes(arg: &Path) -> Result<Vec<u8>> {
    if arg.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b)?;
        return Ok(b);
    }
    std::fs::read(arg).with_context(|| format!("cannot read {}", arg.display()))
}

pub async fn list(c: &mut Client, archived: bool, out: &mut dyn Write) -> Result<()> {
    let req = c.req(ListTournamentsRequest {
        include_archived: archived,
    })?;
    let r = c.grpc.list_tournaments(req).await.map_err(refused)?;
    for t in &r.get_ref().tournaments {
        writeln!(out, "{}", summary_line(t))?;
    }
    Ok(())
}

/// A tournament in one line, as `list` and `show` print it.
pub fn summary_line(t: &mafia_proto::v1::TournamentSummary) -> String {
    let dates = match (t.starts_on.as_str(), t.ends_on.as_str()) {
        ("", "") => String::new(),
        (s, e) => format!(" · {s}–{e}"),
    };
    format!(
        "{} · {}{dates} · rules {} · scheme {} · {} players · {} games, {} scored · version {}{}",
        t.id,
        t.name,
        t.rules,
        t.scheme,
        t.players,
        t.games,
        t.scored_games,
        t.version,
        if t.archived { " · archived" } else { "" }
    )
}

pub async fn remove(c: &mut Client, out: &mut dyn Write) -> Result<()> {
    let req = c.tref()?;
    let r = c.grpc.remove_tournament(req).await.map_err(refused)?;
    writeln!(
        out,
        "{} removed (version {})",
        c.tournament,
        r.get_ref().version
    )?;
    Ok(())
}

/// Prints every line as the service reads it; fails when any is refused.
pub async fn preview(c: &mut Client, file: &Path, out: &mut dyn Write) -> Result<()> {
    let req = c.req(RegisterPlayersCsvRequest {
        tournament: c.tournament.clone(),
        csv: String::new(),
        csv_bytes: read_bytes(file)?,
    })?;
    let p = c
        .grpc
        .preview_players_csv(req)
        .await
        .map_err(refused)?
        .into_inner();
    writeln!(
        out,
        "{} · separated by `{}` · {} lines",
        p.encoding,
        p.separator,
        p.rows.len()
    )?;
    for r in &p.rows {
        if r.error.is_empty() {
            let made = if r.id_made { " (id made)" } else { "" };
            let club = if r.club.is_empty() {
                String::new()
            } else {
                format!(" · {}", r.club)
            };
            writeln!(
                out,
                "line {}: {}{made} · {}{club}",
                r.line, r.id, r.nickname
            )?;
        } else {
            writeln!(out, "line {}: REFUSED {} / {}", r.line, r.error, r.error_ru)?;
        }
    }
    if p.errors > 0 {
        bail!("{} line(s) refused: nothing would be registered", p.errors);
    }
    writeln!(out, "all {} lines would be registered", p.rows.len())?;
    Ok(())
}

pub fn player_command(p: &PlayerAction) -> TournamentCommand {
    let player = |f: &PlayerFields| Player {
        id: PlayerId::new(&f.id),
        nickname: f.nickname.clone(),
        club: f.club.clone(),
        photo_url: f.photo.clone(),
    };
    match p {
        PlayerAction::Add(f) => TournamentCommand::RegisterPlayer { player: player(f) },
        PlayerAction::Edit(f) => TournamentCommand::UpdatePlayer { player: player(f) },
        PlayerAction::Withdraw { id } => TournamentCommand::WithdrawPlayer {
            player: PlayerId::new(id),
        },
    }
}

/// `a,b` pairs as pair rules of one kind.
pub fn pair_rules(separate: &[String], avoid: &[String]) -> Result<TournamentCommand> {
    let mut rules = Vec::new();
    for (kind, pairs) in [(PairKind::Separate, separate), (PairKind::Avoid, avoid)] {
        for pair in pairs {
            let Some((a, b)) = pair.split_once(',') else {
                bail!("a pair is two player ids: A,B (not {pair:?})");
            };
            rules.push(PairRule {
                kind,
                a: PlayerId::new(a.trim()),
                b: PlayerId::new(b.trim()),
            });
        }
    }
    Ok(TournamentCommand::SetPairRules { rules })
}

/// A place as `TABLE:SEAT`.
pub fn place(s: &str) -> Result<Place> {
    let bad = || anyhow::anyhow!("a place is TABLE:SEAT, e.g. 2:7 (not {s:?})");
    let (t, seat) = s.split_once(':').ok_or_else(bad)?;
    let seat: u8 = seat.parse().map_err(|_| bad())?;
    Ok(Place {
        table: t.parse().map_err(|_| bad())?,
        seat: mafia_rules::Seat::new(seat).ok_or_else(bad)?,
    })
}

/// An approval item as JSON, or `extra:SEAT:POINTS`, `sum:POINTS`,
/// `rewarded:COUNT`.
pub fn item(s: &str) -> Result<ApprovalItem> {
    if s.trim_start().starts_with('{') {
        return serde_json::from_str(s).context("not an approval item");
    }
    let parts: Vec<&str> = s.split(':').collect();
    Ok(match parts.as_slice() {
        ["extra", seat, p] => ApprovalItem::ExtraValue {
            seat: seat
                .parse::<u8>()
                .ok()
                .and_then(mafia_rules::Seat::new)
                .context("a seat is 1..10")?,
            points: points(p)?,
        },
        ["sum", p] => ApprovalItem::GameSum { sum: points(p)? },
        ["rewarded", n] => ApprovalItem::Rewarded {
            count: n.parse().context("a count of players")?,
        },
        _ => bail!("an item is extra:SEAT:POINTS, sum:POINTS, rewarded:COUNT or its JSON"),
    })
}

/// `rejected`, `replay`, `result:red|black|draw`,
/// `points:PLAYER=+0.5[,PLAYER=-0.2…]`, or the decision's JSON.
pub fn decision(s: &str) -> Result<AppealDecision> {
    if s.trim_start().starts_with(['{', '"']) {
        return Ok(serde_json::from_str(s)?);
    }
    Ok(match s.split_once(':') {
        None if s == "rejected" => AppealDecision::Rejected,
        None if s == "replay" => AppealDecision::Replay,
        Some(("result", w)) => AppealDecision::ResultChanged {
            winner: match w {
                "red" => Some(mafia_rules::Team::Red),
                "black" => Some(mafia_rules::Team::Black),
                "draw" => None,
                _ => bail!("a result is red, black or draw"),
            },
        },
        Some(("points", list)) => AppealDecision::PointsCorrected {
            corrections: list
                .split(',')
                .map(|c| {
                    let (p, v) = c.split_once('=').context("a correction is PLAYER=POINTS")?;
                    Ok(Correction {
                        player: PlayerId::new(p.trim()),
                        points: points(v)?,
                        note: String::new(),
                    })
                })
                .collect::<Result<_>>()?,
        },
        _ => bail!(
            "a decision is rejected, replay, result:red|black|draw or points:PLAYER=POINTS[,…]"
        ),
    })
}

/// Points as written, e.g. `1.6`, `+0.5`, `-0.2`.
fn points(s: &str) -> Result<mafia_tournament::Points> {
    serde_json::from_str(s.trim().trim_start_matches('+'))
        .with_context(|| format!("{s:?} is not points (e.g. 0.5)"))
}

pub fn game(s: &str) -> Result<GameId> {
    s.parse()
        .map_err(|e| anyhow::anyhow!("game {s:?}: {e} (e.g. cup.main.r1.t2.g1)"))
}

pub struct PlanArgs<'a> {
    pub stage: &'a StageId,
    pub round: u32,
    pub seed: u64,
    pub tables: Option<&'a str>,
    pub json: bool,
}

/// A seating proposal, its metrics beside a random seating's, and every
/// rule it breaks; fails when it breaks one.
pub async fn plan(c: &mut Client, a: PlanArgs<'_>, out: &mut dyn Write) -> Result<()> {
    let tables_json = match a.tables {
        Some(t) => read_arg(t)?,
        None => String::new(),
    };
    let req = c.req(PlanSeatingRequest {
        tournament: c.tournament.clone(),
        stage: a.stage.to_string(),
        round: a.round,
        seed: a.seed,
        tables_json,
    })?;
    let p = c
        .grpc
        .plan_seating(req)
        .await
        .map_err(refused)?
        .into_inner();
    if a.json {
        writeln!(out, "{}", p.tables_json)?;
    } else {
        let tables: Vec<mafia_tournament::SeatedTable> = serde_json::from_str(&p.tables_json)?;
        for t in &tables {
            let judge = t.judge.as_ref().map_or("-", |j| j.as_str());
            let seats: Vec<&str> = t.seats.iter().map(PlayerId::as_str).collect();
            writeln!(
                out,
                "table {} (judge {judge}): {}",
                t.table,
                seats.join(" ")
            )?;
        }
        writeln!(out, "this plan:  {}", super::metrics_line(&p.metrics_json))?;
        writeln!(
            out,
            "random:     {}",
            super::metrics_line(&p.random_metrics_json)
        )?;
    }
    for problem in &p.problems {
        writeln!(out, "PROBLEM: {problem}")?;
    }
    if !p.problems.is_empty() {
        bail!(
            "{} rule(s) broken: seat_round would refuse this",
            p.problems.len()
        );
    }
    Ok(())
}

/// The tournament's audit trail, oldest first.
pub async fn audit(c: &mut Client, out: &mut dyn Write) -> Result<()> {
    let s = c.summary().await?;
    if s.detail_json.is_empty() {
        bail!("the audit trail is for an organiser or chief judge of the whole tournament");
    }
    let detail: serde_json::Value = serde_json::from_str(&s.detail_json)?;
    for e in detail["audit"].as_array().into_iter().flatten() {
        let mut what = e.clone();
        for k in ["at", "by", "game", "reason"] {
            what.as_object_mut().map(|o| o.remove(k));
        }
        writeln!(
            out,
            "{} · {} · {}{} · {}{}",
            e["at"],
            e["by"]["role"].as_str().unwrap_or_default(),
            e["game"]
                .as_str()
                .map(|g| format!("{g} · "))
                .unwrap_or_default(),
            e["action"].as_str().unwrap_or_default(),
            what,
            e["reason"]
                .as_str()
                .map(|r| format!(" · why: {r}"))
                .unwrap_or_default(),
        )?;
    }
    Ok(())
}
