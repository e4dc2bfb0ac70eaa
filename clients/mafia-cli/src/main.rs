//! `mafia`: replay, simulate and print the protocol of game records
//! (FORMAT.md). Other tools parse `mafia replay`'s output, so its JSON shape
//! and exit status are a contract.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use mafia_record::{Header, Problem, Protocol, Record, ReplayReport};
use mafia_rules::sim::simulate;
use mafia_rules::{Game, RuleSetId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod credentials;
mod export;
mod interchange;
mod seat;
mod state;
mod tournament;

/// Simulated games start at 2026-01-01T00:00:00Z, so that a seed gives the
/// same files byte for byte on every run.
const SIM_EPOCH_MS: i64 = 1_767_225_600_000;

/// The seed `mafia demo` plays; fixed so the demo is reproducible.
const DEMO_SEED: u64 = 2017;

#[derive(Parser)]
#[command(
    name = "mafia",
    version,
    about = "Sports Mafia game records: replay, simulate, protocol"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Validate records; print one JSON summary line per file. Exit status 1
    /// if any file has a violation or does not parse.
    Replay {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play random legal games and write one record file per game.
    Simulate {
        /// Rule set: rfm, classic, minsk2017, ua or club.
        #[arg(long)]
        rules: RuleSetId,
        #[arg(long)]
        games: u32,
        #[arg(long)]
        seed: u64,
        /// Directory for `<rules>-<seed>-<i>.jsonl`; created if missing.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the game protocol (minsk2017 §9) of a record.
    Protocol {
        file: PathBuf,
        /// Standalone printable HTML instead of Markdown.
        #[arg(long)]
        html: bool,
    },
    /// The state after a line of a record as an audience sees it: living
    /// seats, fouls, nominees, the tally, the step and (for the judge) what
    /// comes next. Exit status 1 if the record breaks before that line.
    State {
        file: PathBuf,
        /// The last line to apply (1 = the header); the whole record if absent.
        #[arg(long)]
        at: Option<usize>,
        #[arg(long, value_enum, default_value = "judge")]
        audience: state::Who,
        /// One JSON line: the engine's `GameView`.
        #[arg(long)]
        json: bool,
    },
    /// Simulate one game per rule set; print its protocol and replay summary.
    Demo,
    /// Seat a tournament from a players CSV: tables, seats, rests and judges
    /// for every round, with quality metrics beside a random seating.
    Seat(seat::SeatArgs),
    /// A tournament's standings or per-game points (CSV, JSON) or a round's
    /// printable seating sheet (HTML), from its stored log; or, with
    /// `--to mafiaratings FILE... --out DIR`, game records as mafiaratings
    /// game JSON, one line per record (exit status 1 if any is refused).
    Export(export::ExportArgs),
    /// Stream a record to a referee as a table judge would (resumes on its own).
    Play(mafia_judge_client::cli::PlayArgs),
    /// Run N simulated tables against a referee: the demo driver and load generator.
    Sim(mafia_judge_client::cli::SimArgs),
    /// Judge a live game on a referee from the terminal: one shorthand line
    /// per action (`?` lists them), each checked by the referee.
    Judge(mafia_judge_client::cli::JudgeArgs),
    /// Run a tournament on the scoring service, as its organiser or chief
    /// judge: create it, register players, add judges and stages, seat and
    /// open rounds, give any command, read the standings, export results.
    Tournament(tournament::TournamentArgs),
    /// Import games from mafiaratings or Polemica JSON as records, each
    /// replayed by the engine; one line per game (accepted / refused with
    /// the reason and where in the source). Exit status 1 if any is refused.
    Import(interchange::ImportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = match cli.command {
        Cmd::Replay { files } => replay(&files, &mut out),
        Cmd::Simulate {
            rules,
            games,
            seed,
            out: dir,
        } => simulate_to(rules, games, seed, &dir).map(|()| true),
        Cmd::Protocol { file, html } => protocol(&file, html, &mut out),
        Cmd::State {
            file,
            at,
            audience,
            json,
        } => state::state(&file, at, audience, json, &mut out),
        Cmd::Demo => demo(&mut out).map(|()| true),
        Cmd::Seat(args) => seat::seat(&args, &mut out),
        Cmd::Export(args) => export::export(&args, &mut out),
        Cmd::Play(args) => mafia_judge_client::cli::play(&args, &mut out)
            .map(|()| true)
            .map_err(Into::into),
        Cmd::Sim(args) => mafia_judge_client::cli::sim(&args, &mut out)
            .map(|()| true)
            .map_err(Into::into),
        Cmd::Judge(args) => mafia_judge_client::cli::judge(&args, &mut out).map_err(Into::into),
        Cmd::Import(args) => interchange::import(&args, &mut out),
        Cmd::Tournament(args) => tournament::tournament(&args, &mut out),
    };
    match result.and_then(|ok| out.flush().map(|()| ok).map_err(Into::into)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        // A closed pipe (`mafia replay … | head`) is the reader's choice.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mafia: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Reads a record's text. Bytes that are not UTF-8 are a parse error on
/// their line, like any other unreadable line.
fn read_record(path: &Path) -> Result<std::result::Result<String, Problem>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        Problem {
            line,
            code: "parse_error".to_string(),
            clause: if line == 1 {
                "FORMAT.md §Header"
            } else {
                "FORMAT.md §Commands"
            }
            .to_string(),
            message: "the line is not valid UTF-8".to_string(),
        }
    }))
}

fn replay(files: &[PathBuf], out: &mut impl Write) -> Result<bool> {
    let mut all_ok = true;
    for path in files {
        let name = path.display().to_string();
        let report = match read_record(path) {
            Ok(Ok(text)) => ReplayReport::check(name, &text),
            Ok(Err(problem)) => ReplayReport::unreadable(name, None, problem),
            Err(e) => {
                // Still one line for this file, so that a caller reading the
                // lines in order keeps them matched with its file list.
                eprintln!("mafia: {e:#}");
                ReplayReport::unreadable(
                    name,
                    None,
                    Problem {
                        line: 0,
                        code: "io_error".to_string(),
                        clause: String::new(),
                        message: format!("{e:#}"),
                    },
                )
            }
        };
        all_ok &= report.is_valid();
        writeln!(out, "{}", report.to_json_line())?;
    }
    Ok(all_ok)
}

/// The record of one simulated game, numbered `game` in the run.
fn simulated_record(rules: RuleSetId, rng: &mut ChaCha8Rng, game: u32) -> Result<(Record, Game)> {
    let sim = simulate(rules, rng, SIM_EPOCH_MS);
    let id = format!("sim.main.r1.t1.g{}", game.max(1)).parse()?;
    let mut header = Header::for_setup(&sim.setup, &id);
    header.judge = "sim".to_string();
    let mut record = Record::new(header).context("simulated header")?;
    for (at, cmd) in sim.commands {
        record.push(at, cmd);
    }
    Ok((record, sim.game))
}

fn simulate_to(rules: RuleSetId, games: u32, seed: u64, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Keyed by name: printed in alphabetical order.
    let mut results: BTreeMap<&str, u32> = ["red", "black", "draw"]
        .into_iter()
        .map(|r| (r, 0))
        .collect();
    for i in 1..=games {
        let (record, game) = simulated_record(rules, &mut rng, i)?;
        let path = dir.join(format!("{rules}-{seed}-{i}.jsonl"));
        std::fs::write(&path, record.to_jsonl())
            .with_context(|| format!("cannot write {}", path.display()))?;
        *results.entry(game.summary().result.as_str()).or_default() += 1;
    }
    let counts = results
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    eprintln!(
        "simulated {games} {rules} games (seed {seed}) into {}: {counts}",
        dir.display()
    );
    Ok(())
}

fn protocol(path: &Path, as_html: bool, out: &mut impl Write) -> Result<bool> {
    let text = match read_record(path)? {
        Ok(t) => t,
        Err(p) => anyhow::bail!("{}: line {}: {}", path.display(), p.line, p.message),
    };
    let (record, parse_error) =
        Record::parse_prefix(&text).with_context(|| format!("{}", path.display()))?;
    record
        .replayable()
        .with_context(|| format!("{}", path.display()))?;
    let replayed = record.replay();
    let p = Protocol::new(record.header(), &replayed.game, &replayed.events);
    let body = if as_html {
        p.to_html()
    } else {
        p.to_markdown()
    };
    out.write_all(body.as_bytes())?;
    // The protocol up to the problem is still worth printing for the
    // judges; the exit status tells scripts the record is not clean.
    let problem = match (replayed.violation, parse_error) {
        (Some(v), _) => Some(v.to_string()),
        (None, Some(e)) => Some(e.to_string()),
        (None, None) => None,
    };
    if let Some(msg) = &problem {
        eprintln!(
            "mafia: {}: {msg} (protocol shown up to this line)",
            path.display()
        );
    }
    Ok(problem.is_none())
}

fn demo(out: &mut impl Write) -> Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(DEMO_SEED);
    for (i, rules) in RuleSetId::ALL.into_iter().enumerate() {
        let (record, _) = simulated_record(rules, &mut rng, i as u32 + 1)?;
        let replayed = record.replay();
        let p = Protocol::new(record.header(), &replayed.game, &replayed.events);
        if i > 0 {
            writeln!(out, "\n---\n")?;
        }
        writeln!(out, "<!-- rule set: {rules} -->\n")?;
        write!(out, "{}", p.to_markdown())?;
        let report = ReplayReport::check(format!("demo/{rules}.jsonl"), &record.to_jsonl());
        writeln!(
            out,
            "\nReplay summary:\n\n```json\n{}\n```",
            report.to_json_line()
        )?;
    }
    Ok(())
}
