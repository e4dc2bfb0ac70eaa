//! `mafia judge`: a table judge's live console in a terminal, line by line.
//! The judge types the shorthand of [`crate::keys`]; each line is checked
//! by the referee (a rejection shows its rule and clause and changes
//! nothing), and after each one the console shows the table as the referee
//! sees it and what comes next. The session resumes by itself when the
//! connection drops (see [`JudgeSession`]).

use std::io::{BufRead, Write};

use mafia_record::{GameId, GameState};
use mafia_rules::{Expect, RuleSetId};

use crate::connect::Referee;
use crate::keys::{parse_line, seat_numbers, LEGEND};
use crate::session::JudgeSession;
use crate::ClientError;

/// Which game the console judges.
pub enum Target {
    /// A game already opened (its id).
    Game(GameId),
    /// Open the game of this header first (idempotent: a reopened game is
    /// the same game).
    Open(Box<mafia_record::Header>),
}

/// What a console run did, for the caller's exit status.
#[derive(Debug, Default, Clone)]
pub struct ConsoleReport {
    pub game_id: String,
    pub accepted: usize,
    pub rejected: usize,
    pub bad_lines: usize,
    pub over: bool,
    /// Set by the full screen when the game ended.
    pub winner: String,
}

/// Judges one game from `input` until it ends or the input does. `now`
/// stamps each command (ms since the epoch): the wall clock in the binary.
pub async fn run(
    mut referee: Referee,
    target: Target,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    now: &dyn Fn() -> i64,
) -> Result<ConsoleReport, ClientError> {
    let game_id = match target {
        Target::Game(id) => id,
        Target::Open(header) => referee.open_game(&header, now()).await?.game_id,
    };
    let mut session = JudgeSession::attach(referee, &game_id).await?;
    let mut report = ConsoleReport {
        game_id: game_id.to_string(),
        ..ConsoleReport::default()
    };
    let io = |e: std::io::Error| ClientError::Protocol(format!("terminal: {e}"));
    writeln!(out, "judging {game_id}; `?` shows the keys").map_err(io)?;
    render(session.state(), out).map_err(io)?;
    let mut line = String::new();
    loop {
        let state = session.state();
        if let Some(s) = state.filter(|s| s.over) {
            report.over = true;
            writeln!(out, "game over: {}", s.winner_name()).map_err(io)?;
            break;
        }
        let prompt = state.and_then(GameState::prompt);
        write!(out, "> ").map_err(io)?;
        out.flush().map_err(io)?;
        line.clear();
        if input.read_line(&mut line).map_err(io)? == 0 {
            break;
        }
        if line.trim() == "?" {
            for (keys, what) in LEGEND {
                writeln!(out, "  {keys:<18} {what}").map_err(io)?;
            }
            continue;
        }
        let commands = match parse_line(&line, prompt.as_ref().map(|p| &p.expect)) {
            Ok(c) => c,
            Err(e) => {
                report.bad_lines += 1;
                writeln!(out, "? {e}").map_err(io)?;
                continue;
            }
        };
        for cmd in commands {
            match session.submit(now(), &cmd).await? {
                Ok(_) => report.accepted += 1,
                Err(r) => {
                    let v = &r.refusal;
                    report.rejected += 1;
                    writeln!(
                        out,
                        "✗ {} ({}): {}",
                        v.code(),
                        RuleSetId::named_clause(v.clause()),
                        v.message()
                    )
                    .map_err(io)?;
                    break;
                }
            }
        }
        render(session.state(), out).map_err(io)?;
    }
    Ok(report)
}

/// The table in a few lines: seats (out, fouls), the step, nominees and
/// the prompt with its time limit.
fn render(state: Option<&GameState>, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(state) = state else { return Ok(()) };
    let view = &state.view;
    let mut seats = String::new();
    for s in &view.seats {
        let mark = if s.alive { "" } else { "✝" };
        let fouls = if s.fouls > 0 {
            format!("·{}", s.fouls)
        } else {
            String::new()
        };
        seats.push_str(&format!("{}{mark}{fouls} ", s.seat.number()));
    }
    writeln!(out, "seats: {}", seats.trim_end())?;
    if !view.nominees.is_empty() {
        writeln!(
            out,
            "nominees: {}",
            seat_numbers(view.nominees.iter(), ", ")
        )?;
    }
    if let Some(p) = state.prompt() {
        let secs = p.secs.map(|s| format!(" ({s} s)")).unwrap_or_default();
        writeln!(out, "next: {}{secs}", describe(&p.expect))?;
    }
    Ok(())
}

/// What the referee expects, in the judge's words.
pub fn describe(e: &Expect) -> String {
    let seats = |it: &mut dyn Iterator<Item = mafia_rules::Seat>| seat_numbers(it, ", ");
    match e {
        Expect::Night0 { step } => format!("night 0: {step:?} (Enter when done)"),
        Expect::Speech {
            seat,
            nominations_only,
            may_nominate,
            may_withdraw,
            ..
        } => {
            let kind = if *nominations_only {
                "nominations only"
            } else {
                "speech"
            };
            // Only the keys the referee would accept now.
            let nominate = if *may_nominate { "n T nominates, " } else { "" };
            let withdraw = if *may_withdraw { "w withdraws, " } else { "" };
            format!(
                "seat {} — {kind} ({nominate}{withdraw}Enter ends)",
                seat.number()
            )
        }
        Expect::FreeTalk => "free talk (Enter ends)".into(),
        Expect::VoteCall { .. } => "who wants a vote? (vc S S…)".into(),
        Expect::Vote { nominee, .. } => {
            format!("vote against seat {} (v H H…)", nominee.number())
        }
        Expect::Ballot { voter, .. } => format!("seat {}'s ballot (b T)", voter.number()),
        Expect::Lift { seats: s } => format!("lift {}? (l H H…)", seats(&mut s.iter())),
        Expect::LastWords { seat, .. } => {
            format!("seat {}'s last words (Enter ends)", seat.number())
        }
        Expect::BeautyPick { beauty } => {
            format!("the Beauty (seat {}) picks (bp T)", beauty.number())
        }
        Expect::Shots { pending, started } => {
            let start = if *started { "" } else { "ms, then " };
            format!(
                "night: {start}shots by {} (k T)",
                seats(&mut pending.iter())
            )
        }
        Expect::DonCheck { don } => format!("the Don (seat {}) checks (d T)", don.number()),
        Expect::SheriffCheck { sheriff } => {
            format!("the Sheriff (seat {}) checks (c T)", sheriff.number())
        }
        Expect::BestMove { seat } => format!("seat {}'s best move (bm A B C)", seat.number()),
        Expect::GameOver => "the game is over".into(),
    }
}
