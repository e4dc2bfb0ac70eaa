//! `mafia play`: stream a game record to the referee as a judge would.

use crate::connect::Referee;
use crate::session::JudgeSession;
use crate::ClientError;
use mafia_record::{GameId, GameState, Header};
use mafia_rules::Command;
use std::time::{Duration, Instant};

/// A parsed record: the header line and the judge's commands with their times.
#[derive(Debug, Clone)]
pub struct Record {
    pub header: Header,
    /// (line number, at, command).
    pub commands: Vec<(usize, i64, Command)>,
}

/// Parses a record (FORMAT.md) with `mafia_record`'s parser.
pub fn parse_record(text: &str) -> Result<Record, ClientError> {
    let rec = mafia_record::parse(text).map_err(|e| ClientError::Record {
        line: e.line,
        reason: e.kind.to_string(),
    })?;
    Ok(Record {
        header: rec.header().clone(),
        commands: rec
            .commands()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    mafia_record::record::command_line_number(i),
                    c.at,
                    c.cmd.clone(),
                )
            })
            .collect(),
    })
}

#[derive(Debug, Clone)]
pub struct PlayReport {
    pub game_id: GameId,
    /// Commands sent by this run (earlier runs' accepted ones are skipped).
    pub sent: usize,
    pub skipped: usize,
    pub reconnects: u64,
    pub over: bool,
    pub winner: String,
}

/// Opens the record's game and streams its commands. With `speed`, waits
/// between commands as the record's times say, divided by `speed`. A run
/// that was interrupted continues where the referee's log ends.
pub async fn play(
    mut referee: Referee,
    record: &Record,
    speed: Option<f64>,
) -> Result<PlayReport, ClientError> {
    let open_at = record.commands.first().map(|c| c.1).unwrap_or(0);
    let opened = referee.open_game(&record.header, open_at).await?;
    let mut session = JudgeSession::attach(referee, &opened.game_id).await?;
    let skipped = usize::try_from(session.last_acked())
        .unwrap_or(usize::MAX)
        .min(record.commands.len());
    let started = Instant::now();
    let first_at = record.commands.get(skipped).map(|c| c.1).unwrap_or(0);
    let mut sent = 0;
    for (line, at, cmd) in &record.commands[skipped..] {
        if let Some(x) = speed.filter(|x| *x > 0.0) {
            let due = Duration::from_secs_f64(((at - first_at).max(0) as f64 / 1000.0) / x);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                tokio::time::sleep(wait).await;
            }
        }
        match session.submit(*at, cmd).await? {
            Ok(_) => sent += 1,
            Err(r) => {
                return Err(ClientError::Rejected {
                    line: *line,
                    code: r.refusal.code().to_owned(),
                    clause: r.refusal.clause().to_owned(),
                    message: r.refusal.message().to_owned(),
                })
            }
        }
    }
    let state = session.state();
    Ok(PlayReport {
        game_id: opened.game_id,
        sent,
        skipped,
        reconnects: session.reconnects(),
        over: state.is_some_and(|s| s.over),
        winner: state.map_or("", GameState::winner_name).to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"format":"mafia-arena/1","rules":{"id":"classic"},"tournament":"t","round":1,"table":2,"game":3,"seats":[{"seat":1,"player_id":"p1","nickname":"P1"},{"seat":2,"player_id":"p2","nickname":"P2"},{"seat":3,"player_id":"p3","nickname":"P3"},{"seat":4,"player_id":"p4","nickname":"P4"},{"seat":5,"player_id":"p5","nickname":"P5"},{"seat":6,"player_id":"p6","nickname":"P6"},{"seat":7,"player_id":"p7","nickname":"P7"},{"seat":8,"player_id":"p8","nickname":"P8"},{"seat":9,"player_id":"p9","nickname":"P9"},{"seat":10,"player_id":"p10","nickname":"P10"}],"deal":{"seed":1}}"#;

    #[test]
    fn a_record_keeps_each_command_with_its_time_and_line() {
        let text = format!("{HEADER}\n{{\"at\":5,\"cmd\":{{\"type\":\"next_step\"}}}}\n");
        let rec = parse_record(&text).unwrap();
        assert_eq!(rec.header.game_id().unwrap().to_string(), "t.main.r1.t2.g3");
        assert_eq!(rec.commands, vec![(2, 5, Command::NextStep)]);
    }

    #[test]
    fn a_bad_command_line_names_its_line() {
        let text = format!("{HEADER}\n{{\"at\":5,\"cmd\":{{\"type\":\"nope\"}}}}\n");
        match parse_record(&text) {
            Err(ClientError::Record { line, .. }) => assert_eq!(line, 2),
            other => panic!("expected a record error, got {other:?}"),
        }
    }
}
