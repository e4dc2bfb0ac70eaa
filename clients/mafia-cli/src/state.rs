//! `mafia state`: the engine's view of a record after any of its lines, as
//! one audience sees it. Judges settle a dispute from the record with it
//! ("what was on the table before line 48?").

use anyhow::{bail, Context, Result};
use mafia_record::record::command_line_number;
use mafia_record::Record;
use mafia_rules::view::GameView;
use mafia_rules::Audience;
use std::io::Write;
use std::path::Path;

/// Who is looking: the same three audiences as the feed.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Who {
    Public,
    Broadcast,
    Judge,
}

impl From<Who> for Audience {
    fn from(w: Who) -> Audience {
        match w {
            Who::Public => Audience::Public,
            Who::Broadcast => Audience::Broadcast,
            Who::Judge => Audience::Judge,
        }
    }
}

/// The view after line `at` (1 = the header alone; all lines when `None`).
/// A record that breaks before `at` is shown up to the refused line, and the
/// exit status says so.
pub fn state(
    path: &Path,
    at: Option<usize>,
    who: Who,
    json: bool,
    out: &mut impl Write,
) -> Result<bool> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (record, parse_error) =
        Record::parse_prefix(&text).with_context(|| format!("{}", path.display()))?;
    // A sealed deal's cards are nobody's to compute before the game ends.
    record
        .replayable()
        .with_context(|| format!("{}", path.display()))?;
    let all = record.commands().len();
    let take = match at {
        None => all,
        Some(0) => bail!("--at counts lines from 1 (line 1 is the header)"),
        Some(line) => (line - 1).min(all),
    };
    if let (Some(line), Some(e)) = (at, &parse_error) {
        if take < line - 1 {
            eprintln!("mafia: {}: {e} (state shown before it)", path.display());
        }
    }
    let cut = Record::with_commands(record.header().clone(), record.commands()[..take].to_vec())
        .with_context(|| format!("{}", path.display()))?;
    let replayed = cut.replay();
    let view = replayed.game.view(who.into());
    if json {
        writeln!(out, "{}", serde_json::to_string(&view)?)?;
    } else {
        write_text(&view, command_line_number(take) - 1, out)?;
    }
    if let Some(v) = &replayed.violation {
        eprintln!("mafia: {}: {v} (state shown before it)", path.display());
        return Ok(false);
    }
    Ok(true)
}

fn seats_text(seats: impl IntoIterator<Item = mafia_rules::Seat>) -> String {
    let s: Vec<String> = seats.into_iter().map(|s| s.to_string()).collect();
    if s.is_empty() {
        "—".into()
    } else {
        s.join(" ")
    }
}

fn write_text(v: &GameView, line: usize, out: &mut impl Write) -> Result<()> {
    writeln!(
        out,
        "after line {line} ({:?}): seq {}, day {}, night {}, {:?}",
        v.audience, v.seq, v.day, v.night, v.when
    )?;
    match &v.step {
        Some(step) => writeln!(out, "step: {step:?}")?,
        None => writeln!(out, "step: night")?,
    }
    let living = v.seats.iter().filter(|s| s.alive).map(|s| s.seat);
    writeln!(out, "living: {}", seats_text(living))?;
    for s in v.seats.iter().filter(|s| !s.alive) {
        if let Some(d) = &s.departure {
            writeln!(out, "out: {} ({:?}, {:?})", s.seat, d.when, d.cause)?;
        }
    }
    for s in v
        .seats
        .iter()
        .filter(|s| s.fouls > 0 || s.technical_fouls > 0)
    {
        writeln!(
            out,
            "fouls: {} {} (technical {})",
            s.seat, s.fouls, s.technical_fouls
        )?;
    }
    writeln!(out, "nominees: {}", seats_text(v.nominees.iter()))?;
    if !v.candidates.is_empty() {
        let tally: Vec<String> = v
            .candidates
            .iter()
            .zip(&v.tally)
            .map(|(s, n)| format!("{s}: {n}"))
            .collect();
        writeln!(out, "tally: {}", tally.join(", "))?;
    }
    if v.vote_cancelled {
        writeln!(out, "vote cancelled by a removal")?;
    }
    if let Some(p) = &v.prompt {
        match p.secs {
            Some(secs) => writeln!(out, "next: {:?} ({secs} s)", p.expect)?,
            None => writeln!(out, "next: {:?}", p.expect)?,
        }
    }
    if let Some(r) = &v.result {
        writeln!(out, "result: {r:?}")?;
    }
    Ok(())
}
