//! The one-line JSON summary `mafia replay` prints per file. Kept here, not
//! in the CLI, so that services and tests that check records agree on it.

use crate::record::{Record, RecordError};
use mafia_rules::summary::{BestMoveSummary, DepartureSummary, GameResult};
use mafia_rules::EndReason;
use mafia_rules::Seat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a record is not a valid game: a refused command, or a line that
/// could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub line: usize,
    /// A violation's code, or `parse_error` / `bad_header`.
    pub code: String,
    /// The rulebook clause, or the FORMAT.md section for a bad line.
    pub clause: String,
    pub message: String,
}

impl From<&RecordError> for Problem {
    fn from(e: &RecordError) -> Problem {
        Problem {
            line: e.line,
            code: e.code().to_string(),
            clause: e.clause().to_string(),
            message: e.kind.to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayReport {
    pub file: String,
    /// The rule set id; `null` when the header could not be read.
    pub rules: Option<String>,
    /// `unfinished` also for an unreadable file.
    pub result: GameResult,
    pub reason: Option<EndReason>,
    pub departures: Vec<DepartureSummary>,
    pub fouls: BTreeMap<String, u8>,
    pub best_move: Option<BestMoveSummary>,
    /// Seats disqualified in their own last words (`Summary`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disqualified_in_last_words: Vec<Seat>,
    /// Seats sanctioned after the result was fixed; the result stands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sanctioned_after_result: Vec<Seat>,
    pub violation: Option<Problem>,
}

impl ReplayReport {
    /// Reads and replays the text of a record. The game is replayed up to
    /// the first problem, so the summary shows the state at that point.
    pub fn check(file: impl Into<String>, text: &str) -> ReplayReport {
        let file = file.into();
        let (record, parse_error) = match Record::parse_prefix(text) {
            Ok(r) => r,
            Err(e) => return ReplayReport::unreadable(file, rules_named(text), Problem::from(&e)),
        };
        if let Err(e) = record.replayable() {
            return ReplayReport::unreadable(file, rules_named(text), Problem::from(&e));
        }
        let out = record.replay();
        let s = out.game.summary();
        // A refused command always comes before the bad line that ended the
        // parse, since only the lines before it were replayed.
        let violation = match (out.violation, parse_error) {
            (Some(v), _) => Some(Problem {
                line: v.line,
                code: v.violation.code.as_str().to_string(),
                clause: v.violation.clause,
                message: v.violation.message,
            }),
            (None, Some(e)) => Some(Problem::from(&e)),
            (None, None) => None,
        };
        ReplayReport {
            file,
            rules: Some(record.rules().to_string()),
            result: s.result,
            reason: s.reason,
            departures: s.departures,
            fouls: s.fouls,
            best_move: s.best_move,
            disqualified_in_last_words: s.disqualified_in_last_words,
            sanctioned_after_result: s.sanctioned_after_result,
            violation,
        }
    }

    /// The report for a file that could not be read at all.
    pub fn unreadable(file: String, rules: Option<String>, problem: Problem) -> ReplayReport {
        ReplayReport {
            file,
            rules,
            result: GameResult::Unfinished,
            reason: None,
            departures: Vec::new(),
            fouls: BTreeMap::new(),
            best_move: None,
            disqualified_in_last_words: Vec::new(),
            sanctioned_after_result: Vec::new(),
            violation: Some(problem),
        }
    }

    pub fn is_valid(&self) -> bool {
        self.violation.is_none()
    }

    /// The report as one compact JSON line (no newline).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("the report serializes")
    }
}

/// The rule set a header names, when it names a known one, so that a report
/// on a header with another problem (a bad deal) still says which rules.
fn rules_named(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    let v: serde_json::Value = serde_json::from_str(first).ok()?;
    let id = v.pointer("/rules/id")?.as_str()?;
    id.parse::<mafia_rules::RuleSetId>()
        .ok()
        .map(|r| r.to_string())
}
