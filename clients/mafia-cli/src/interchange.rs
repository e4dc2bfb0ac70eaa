//! `mafia import` and `mafia export --to`: games from and to the formats
//! the Mafia world already uses (crates/interchange, docs/interchange.md).
//! One summary line per game; the exit status says whether all were
//! accepted.

use anyhow::{Context, Result};
use mafia_interchange::mafiaratings::import::GameImport;
use mafia_interchange::{json, mafiaratings, polemica, Imported, SourceError};
use mafia_record::Record;
use mafia_rules::RuleSetId;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum From {
    /// szotin/mafiaratings game JSON: a game, an array, or {"games": [...]}.
    Mafiaratings,
    /// Polemica's game JSON: a game or an array of games.
    Polemica,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    Mafiaratings,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    #[arg(long, value_enum)]
    pub from: From,
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Directory for `<game id>.jsonl`; created if missing.
    #[arg(long)]
    pub out: PathBuf,
    /// The preset the source's rules are read against (mafiaratings: the
    /// rules code overrides it where it differs; Polemica names none).
    /// Default: classic for mafiaratings, rfm for Polemica.
    #[arg(long)]
    pub rules: Option<RuleSetId>,
    /// Keep a game the engine refuses, for history: its record ends with the
    /// refused command (so `mafia replay` reports it) and
    /// `<game id>.import.json` says what was refused and where it came from.
    #[arg(long)]
    pub lenient: bool,
}

pub fn import(args: &ImportArgs, out: &mut impl Write) -> Result<bool> {
    let base = args.rules.unwrap_or(match args.from {
        From::Mafiaratings => RuleSetId::Classic,
        From::Polemica => RuleSetId::Rfm,
    });
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut all = true;
    let mut written = BTreeSet::new();
    for file in &args.files {
        let name = file.display();
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                all = false;
                writeln!(out, "{name}: refused: cannot read: {e}")?;
                continue;
            }
        };
        let games = match args.from {
            From::Mafiaratings => mafiaratings::import(&text, base),
            From::Polemica => polemica::import(&text, base),
        };
        let games = match games {
            Ok(g) => g,
            Err(e) => {
                all = false;
                writeln!(out, "{name}: refused: {}", source_error(&text, &e))?;
                continue;
            }
        };
        for GameImport { path, result } in games {
            let at = if path.is_empty() {
                name.to_string()
            } else {
                format!("{name} {path}")
            };
            match result {
                Err(e) => {
                    all = false;
                    writeln!(out, "{at}: refused: {}", source_error(&text, &e))?;
                }
                Ok(imported) => {
                    all &= one(args, (file, &text), &path, &at, imported, &mut written, out)?;
                }
            }
        }
    }
    Ok(all)
}

/// Writes one imported game (or reports its refusal); whether it counts as
/// accepted.
fn one(
    args: &ImportArgs,
    (file, text): (&Path, &str),
    path: &str,
    at: &str,
    imported: Imported,
    written: &mut BTreeSet<String>,
    out: &mut impl Write,
) -> Result<bool> {
    let Imported {
        mut record,
        refusal,
    } = imported;
    let why = |r: &mafia_interchange::Refusal| {
        format!("{}: {} [{}]", place(text, &r.origin.0), r.message, r.code())
    };
    if let (Some(r), false) = (&refusal, args.lenient) {
        writeln!(out, "{at}: refused: {}", why(r))?;
        return Ok(false);
    }
    let id = record
        .header()
        .game_id()
        .map(|g| g.to_string())
        .unwrap_or_else(|_| "game".into());
    // Two games of one run with one id (sources without game numbers) keep
    // both files.
    let mut stem = id.clone();
    let mut n = 1;
    while !written.insert(stem.clone()) {
        n += 1;
        stem = format!("{id}-{n}");
    }
    let replay = record.replay();
    let result = replay.game.summary().result;
    if let Some(r) = &refusal {
        if let Some(c) = &r.command {
            record.push(c.at, c.cmd.clone());
        }
        let note = serde_json::json!({
            "source": file.display().to_string(),
            "path": path,
            "imported": "lenient",
            "origin": r.origin.0,
            "source_line": json::line_of(text, &r.origin.0),
            "code": r.code(),
            "clause": r.violation.as_ref().map(|v| v.clause.clone()),
            "message": r.message,
            "line": r.command.as_ref().map(|_| record.commands().len() + 1),
        });
        let sidecar = args.out.join(format!("{stem}.import.json"));
        std::fs::write(&sidecar, format!("{note:#}\n"))
            .with_context(|| format!("cannot write {}", sidecar.display()))?;
    }
    let target = args.out.join(format!("{stem}.jsonl"));
    std::fs::write(&target, record.to_jsonl())
        .with_context(|| format!("cannot write {}", target.display()))?;
    match &refusal {
        None => writeln!(
            out,
            "{at}: accepted {id} ({}, {} commands) -> {}",
            result.as_str(),
            record.commands().len(),
            target.display()
        )?,
        Some(r) => writeln!(
            out,
            "{at}: accepted (lenient) {id} -> {}: {}",
            target.display(),
            why(r)
        )?,
    }
    Ok(true)
}

/// A path in the source with its line when the text has it:
/// `players[3].voting[1] (line 14)`.
fn place(text: &str, path: &str) -> String {
    match json::line_of(text, path) {
        Some(line) if path.is_empty() => format!("line {line}"),
        Some(line) => format!("{path} (line {line})"),
        None => path.to_string(),
    }
}

fn source_error(text: &str, e: &SourceError) -> String {
    match e {
        SourceError::Json { .. } => e.to_string(),
        SourceError::Shape { path, message } => format!("{}: {message}", place(text, path)),
        SourceError::Unsupported { path, message } => {
            format!("{}: cannot be imported: {message}", place(text, path))
        }
    }
}

/// Each record as the target's JSON in `dir`: `<record name>.json`
/// (`mafia export --to`, whose arguments live in `export.rs`).
pub fn export_games(to: To, files: &[PathBuf], dir: &Path, out: &mut impl Write) -> Result<bool> {
    let To::Mafiaratings = to;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut all = true;
    for file in files {
        let name = file.display();
        let record = match std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|t| Record::parse(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                all = false;
                writeln!(out, "{name}: refused: {e}")?;
                continue;
            }
        };
        match mafiaratings::export(&record) {
            Ok(exported) => {
                let stem = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "game".into());
                let target = dir.join(format!("{stem}.json"));
                std::fs::write(&target, format!("{:#}\n", exported.json))
                    .with_context(|| format!("cannot write {}", target.display()))?;
                let losses: Vec<&str> = exported.losses.iter().copied().collect();
                writeln!(
                    out,
                    "{name}: exported -> {} (not carried: {})",
                    target.display(),
                    losses.join("; ")
                )?;
            }
            Err(e) => {
                all = false;
                writeln!(out, "{name}: refused: {e}")?;
            }
        }
    }
    Ok(all)
}
