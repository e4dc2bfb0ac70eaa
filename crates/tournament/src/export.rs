//! Exports for people and spreadsheets: the standings and every scored
//! game's points as CSV and JSON, and a round's seating as a printable,
//! self-contained HTML sheet.
//!
//! Deterministic like the standings: every collection is ordered and every
//! figure fixed point, so the same log gives the same bytes (organisers diff
//! and publish them).

use crate::facts::Outcome;
use crate::ledger::ci_per_shot;
use crate::model::PlayerId;
use crate::points::Points;
use crate::standings::{PointsSplit, StandingRow, Standings, Tie};
use crate::tournament::Tournament;
use mafia_record::{GameId, StageId};
use mafia_rules::{Role, Seat};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExportError {
    #[error("round {round} is not seated in any stage")]
    RoundNotSeated { round: u32 },
    #[error("round {round} of stage {stage} is not seated")]
    RoundNotSeatedInStage { stage: StageId, round: u32 },
}

/// One seat of one scored game, as the per-game exports list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GamePoints {
    pub game: GameId,
    pub stage: StageId,
    pub round: u32,
    pub table: u32,
    pub seat: Seat,
    pub player: PlayerId,
    pub nickname: String,
    pub role: Role,
    pub outcome: Outcome,
    pub points: PointsSplit,
    pub extra_pending: Points,
    pub best_move_hits: Option<u8>,
    pub first_night_killed: bool,
}

/// Every seat of every game that counts, in game-id then seat order.
pub fn game_points(t: &Tournament) -> Vec<GamePoints> {
    let mut out = Vec::new();
    for (g, line) in &t.ledger.lines {
        for l in &line.seats {
            let acc = t.ledger.players.get(&l.player);
            let comp = match (
                &t.scheme.compensation,
                acc.and_then(|a| a.ci.get(&line.stage)),
            ) {
                (Some(c), Some(counts)) if l.compensable() => {
                    let (lost, won) = ci_per_shot(c, counts);
                    if l.outcome == Outcome::Win {
                        won
                    } else {
                        lost
                    }
                }
                _ => Points::ZERO,
            };
            out.push(GamePoints {
                game: g.clone(),
                stage: line.stage.clone(),
                round: g.round,
                table: g.table,
                seat: l.seat,
                player: l.player.clone(),
                nickname: t
                    .players
                    .get(&l.player)
                    .map(|r| r.player.nickname.clone())
                    .unwrap_or_default(),
                role: l.role,
                outcome: l.outcome,
                points: PointsSplit {
                    base: l.base,
                    extra: l.extra,
                    best_move: l.best_move,
                    penalties: l.penalties,
                    compensation: comp,
                    total: l.base + l.extra + l.best_move + l.penalties + comp,
                },
                extra_pending: l.extra_pending,
                best_move_hits: l.best_move_hits,
                first_night_killed: l.first_night_killed,
            });
        }
    }
    out
}

/// A text cell (a name, a nickname, a club, an id) as a spreadsheet must
/// take it: one starting with `=`, `+`, `-`, `@`, a tab or a carriage
/// return is prefixed with `'` (OWASP's CSV injection advice), so
/// `=HYPERLINK(…)` is shown, never run. Every text cell of every CSV the
/// project writes goes through here; figures (`-0.4`) do not, and stay
/// numbers.
pub fn csv_text(s: &str) -> std::borrow::Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// What every CSV the project writes starts with: UTF-8's byte-order mark,
/// without which Excel on Windows reads the file in the locale's code page
/// and garbles Cyrillic. Spreadsheets drop it; strip it to read the first
/// header's name.
pub const BOM: &str = "\u{feff}";

/// A CSV field, quoted only when it must be (RFC 4180).
fn field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn record<I, S>(out: &mut String, fields: I)
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        field(out, f.as_ref());
    }
    out.push_str("\r\n");
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Civilian => "civilian",
        Role::Sheriff => "sheriff",
        Role::Beauty => "beauty",
        Role::Mafia => "mafia",
        Role::Don => "don",
    }
}

fn tie_name(t: Tie) -> &'static str {
    match t {
        Tie::None => "",
        Tie::ByLot => "by_lot",
        Tie::AwaitingLot => "awaiting_lot",
    }
}

pub const STANDINGS_CSV_HEADER: &[&str] = &[
    "rank",
    "player",
    "nickname",
    "club",
    "withdrawn",
    "games",
    "wins",
    "wins_civilian",
    "wins_sheriff",
    "wins_beauty",
    "wins_mafia",
    "wins_don",
    "base",
    "extra",
    "best_move",
    "penalties",
    "compensation",
    "total",
    "extra_pending",
    "tie",
];

fn standing_fields(r: &StandingRow) -> Vec<String> {
    let p = &r.points;
    let w = &r.wins_by_role;
    vec![
        r.rank.to_string(),
        csv_text(r.player.as_str()).into_owned(),
        csv_text(&r.nickname).into_owned(),
        csv_text(r.club.as_deref().unwrap_or_default()).into_owned(),
        r.withdrawn.to_string(),
        r.games.to_string(),
        r.wins.to_string(),
        w.civilian.to_string(),
        w.sheriff.to_string(),
        w.beauty.to_string(),
        w.mafia.to_string(),
        w.don.to_string(),
        p.base.to_string(),
        p.extra.to_string(),
        p.best_move.to_string(),
        p.penalties.to_string(),
        p.compensation.to_string(),
        p.total.to_string(),
        r.extra_pending.to_string(),
        tie_name(r.tie).to_owned(),
    ]
}

/// The standings as CSV: a header line, then one line per player by rank.
/// Points are written as decimals (`1.55`), never in floating point.
pub fn standings_csv(s: &Standings) -> String {
    let mut out = String::from(BOM);
    record(&mut out, STANDINGS_CSV_HEADER);
    for r in &s.rows {
        record(&mut out, standing_fields(r));
    }
    out
}

/// The standings as JSON, newline-terminated.
pub fn standings_json(s: &Standings) -> String {
    let mut out = serde_json::to_string_pretty(s).expect("standings always serialise");
    out.push('\n');
    out
}

pub const GAMES_CSV_HEADER: &[&str] = &[
    "game",
    "stage",
    "round",
    "table",
    "seat",
    "player",
    "nickname",
    "role",
    "outcome",
    "base",
    "extra",
    "best_move",
    "penalties",
    "compensation",
    "total",
    "extra_pending",
    "best_move_hits",
    "first_night_killed",
];

/// Every scored seat as CSV, one line per player per game.
pub fn games_csv(rows: &[GamePoints]) -> String {
    let mut out = String::from(BOM);
    record(&mut out, GAMES_CSV_HEADER);
    for g in rows {
        let p = &g.points;
        record(
            &mut out,
            [
                csv_text(&g.game.to_string()).into_owned(),
                csv_text(g.stage.as_str()).into_owned(),
                g.round.to_string(),
                g.table.to_string(),
                g.seat.number().to_string(),
                csv_text(g.player.as_str()).into_owned(),
                csv_text(&g.nickname).into_owned(),
                role_name(g.role).to_owned(),
                g.outcome.as_str().to_owned(),
                p.base.to_string(),
                p.extra.to_string(),
                p.best_move.to_string(),
                p.penalties.to_string(),
                p.compensation.to_string(),
                p.total.to_string(),
                g.extra_pending.to_string(),
                g.best_move_hits.map(|h| h.to_string()).unwrap_or_default(),
                g.first_night_killed.to_string(),
            ],
        );
    }
    out
}

/// Every scored seat as JSON, newline-terminated.
pub fn games_json(rows: &[GamePoints]) -> String {
    let mut out = serde_json::to_string_pretty(rows).expect("game points always serialise");
    out.push('\n');
    out
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The stage a round number means: the given one, or the first stage (in
/// the order they were added) that has the round seated.
fn round_stage(
    t: &Tournament,
    stage: Option<&StageId>,
    round: u32,
) -> Result<StageId, ExportError> {
    match stage {
        Some(s) if t.round(s, round).is_some() => Ok(s.clone()),
        Some(s) => Err(ExportError::RoundNotSeatedInStage {
            stage: s.clone(),
            round,
        }),
        None => t
            .stages
            .iter()
            .map(|s| &s.id)
            .chain(t.rounds.keys().map(|(s, _)| s))
            .find(|s| t.round(s, round).is_some())
            .cloned()
            .ok_or(ExportError::RoundNotSeated { round }),
    }
}

const SEATING_CSS: &str = "\
body{font-family:sans-serif;margin:1.5em;color:#000;background:#fff}\
h1{font-size:1.4em;margin:0 0 .2em}\
p.sub{margin:0 0 1em;color:#444}\
.tables{display:flex;flex-wrap:wrap;gap:1em}\
section.table{border:1px solid #000;padding:.5em .8em;min-width:16em;break-inside:avoid;page-break-inside:avoid}\
h2{font-size:1.1em;margin:.1em 0 .4em}\
table{border-collapse:collapse;width:100%}\
td,th{border-bottom:1px solid #aaa;padding:.15em .4em;text-align:left}\
td.seat{width:2.5em;text-align:right;font-weight:bold}\
td.club{color:#444;font-size:.9em}\
section.index{margin-top:1.5em;max-width:32em;break-before:page;page-break-before:always}\
@media print{body{margin:0}@page{size:A4;margin:12mm}.tables{gap:6mm}a{color:#000;text-decoration:none}}";

/// A round's seating as one self-contained HTML page (inline CSS, nothing
/// fetched), one box per table that a printer never splits.
pub fn seating_html(
    t: &Tournament,
    stage: Option<&StageId>,
    round: u32,
) -> Result<String, ExportError> {
    let stage = round_stage(t, stage, round)?;
    let r = t
        .round(&stage, round)
        .expect("round_stage found the round seated");
    let stage_name = t
        .stage(&stage)
        .map(|s| s.name.clone())
        .unwrap_or_else(|| stage.to_string());
    let title = format!("{} — {}, round {}", t.name, stage_name, round);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{}</style>\n</head>\n<body>\n\
         <h1>{}</h1>\n<p class=\"sub\">Seating: {} tables</p>\n<div class=\"tables\">\n",
        escape(&title),
        SEATING_CSS,
        escape(&title),
        r.tables.len()
    );
    for (n, table) in &r.tables {
        let judge = table
            .judge
            .as_ref()
            .map(|j| t.judges.get(j).map_or(j.to_string(), |j| j.name.clone()));
        let _ = write!(
            out,
            "<section class=\"table\" data-table=\"{n}\">\n<h2>Table {n}</h2>\n"
        );
        if let Some(j) = judge {
            let _ = writeln!(out, "<p class=\"judge\">Judge: {}</p>", escape(&j));
        }
        out.push_str("<table>\n");
        for (i, p) in table.seats.iter().enumerate() {
            let reg = t.players.get(p);
            let nick = reg.map_or(p.to_string(), |r| r.player.nickname.clone());
            let club = reg.and_then(|r| r.player.club.clone()).unwrap_or_default();
            let _ = writeln!(
                out,
                "<tr data-player=\"{}\"><td class=\"seat\">{}</td><td class=\"nick\">{}</td><td class=\"club\">{}</td></tr>",
                escape(p.as_str()),
                i + 1,
                escape(&nick),
                escape(&club)
            );
        }
        out.push_str("</table>\n</section>\n");
    }
    out.push_str("</div>\n");
    find_your_seat(t, r, &mut out);
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

/// The sheet's index: every seated player by nickname (then id), with his
/// table and seat, so a player at the door finds himself without reading
/// every table.
fn find_your_seat(t: &Tournament, r: &crate::tournament::Round, out: &mut String) {
    let mut rows: Vec<(String, &PlayerId, u32, usize)> = r
        .tables
        .iter()
        .flat_map(|(n, table)| {
            table.seats.iter().enumerate().map(move |(i, p)| {
                let nick = t
                    .players
                    .get(p)
                    .map_or(p.to_string(), |r| r.player.nickname.clone());
                (nick, p, *n, i + 1)
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        a.0.to_lowercase()
            .cmp(&b.0.to_lowercase())
            .then_with(|| a.1.cmp(b.1))
    });
    out.push_str(
        "<section class=\"index\">\n<h2>Find your seat</h2>\n<table>\n<tr><th>Player</th><th>Table</th><th>Seat</th></tr>\n",
    );
    for (nick, p, table, seat) in rows {
        let _ = writeln!(
            out,
            "<tr data-find=\"{}\"><td class=\"nick\">{}</td><td>{table}</td><td class=\"seat\">{seat}</td></tr>",
            escape(p.as_str()),
            escape(&nick)
        );
    }
    out.push_str("</table>\n</section>\n");
}

/// What the public may see of the standings: only what finished, scored
/// games gave (the ledger counts nothing else), without the extras still
/// waiting for the chief judge.
pub fn public_standings(mut s: Standings) -> Standings {
    for r in &mut s.rows {
        r.extra_pending = Points::ZERO;
    }
    s
}

/// The per-game export as the public sees it: no pending extras.
pub fn public_game_points(mut rows: Vec<GamePoints>) -> Vec<GamePoints> {
    for r in &mut rows {
        r.extra_pending = Points::ZERO;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_field_with_a_comma_or_quote_is_quoted_and_doubled() {
        let mut s = String::new();
        record(&mut s, ["plain", "a,b", "say \"hi\""]);
        assert_eq!(s, "plain,\"a,b\",\"say \"\"hi\"\"\"\r\n");
    }

    #[test]
    fn html_special_characters_are_escaped() {
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }
}
