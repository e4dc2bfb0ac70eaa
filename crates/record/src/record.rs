//! The game record: a header line, then one judge command per line
//! (FORMAT.md). Parsing, canonical writing and replay.

use crate::header::{Header, HeaderError};
use mafia_rules::{Command, Envelope, Game, RuleSetId, Setup, Violation};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One judge command as recorded: when it was entered and what it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandLine {
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    pub cmd: Command,
}

/// A parsed record. The header is validated on construction, so every
/// `Record` can be replayed; the commands may still break the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    header: Header,
    setup: Setup,
    commands: Vec<CommandLine>,
}

/// Why a record could not be read, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct RecordError {
    pub line: usize,
    pub kind: RecordErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordErrorKind {
    #[error("the record is empty; line 1 must be the header")]
    Empty,
    #[error("blank line; every line must hold one JSON object")]
    Blank,
    #[error("truncated line: the JSON ends early ({0})")]
    Truncated(String),
    #[error("not JSON: {0}")]
    Syntax(String),
    #[error("bad header: {0}")]
    HeaderShape(String),
    #[error("bad header: {0}")]
    UnknownRuleSet(#[from] mafia_rules::params::UnknownRuleSet),
    #[error("bad header: {0}")]
    Header(#[from] HeaderError),
    #[error("bad command: {0}")]
    Command(String),
    #[error("bad header: the deal is sealed; its seed and salt, revealed when the game ends (the `deal_revealed` event), go into the header's `deal.drawn` to replay it")]
    SealedDeal,
}

impl RecordError {
    /// The stable code `mafia replay` prints: `bad_header` for a header
    /// that is JSON but not a valid header, `parse_error` for a line that is
    /// not JSON at all or a command that does not fit the command schema.
    pub fn code(&self) -> &'static str {
        match self.kind {
            RecordErrorKind::Empty
            | RecordErrorKind::HeaderShape(_)
            | RecordErrorKind::UnknownRuleSet(_)
            | RecordErrorKind::Header(_)
            | RecordErrorKind::SealedDeal => "bad_header",
            _ => "parse_error",
        }
    }

    /// The part of FORMAT.md the line breaks, in the place where a rule
    /// violation names its rulebook clause.
    pub fn clause(&self) -> &'static str {
        if self.line == 1 {
            "FORMAT.md §Header"
        } else {
            "FORMAT.md §Commands"
        }
    }
}

/// A command the engine refused, with the line it is on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {violation}")]
pub struct LineViolation {
    pub line: usize,
    pub violation: Violation,
}

/// The result of replaying a record: the game as far as it got, every event
/// produced (the game's creation included), and the first refused command.
#[derive(Clone, Debug)]
pub struct ReplayOutcome {
    pub game: Game,
    pub events: Vec<Envelope>,
    pub violation: Option<LineViolation>,
}

/// The line a command at `index` (0-based) is on: the header is line 1.
pub const fn command_line_number(index: usize) -> usize {
    index + 2
}

impl Record {
    /// A record with no commands yet.
    pub fn new(header: Header) -> Result<Record, HeaderError> {
        let setup = header.setup()?;
        Ok(Record {
            header,
            setup,
            commands: Vec::new(),
        })
    }

    pub fn with_commands(
        header: Header,
        commands: Vec<CommandLine>,
    ) -> Result<Record, HeaderError> {
        let mut r = Record::new(header)?;
        r.commands = commands;
        Ok(r)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The validated engine setup the header describes.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn rules(&self) -> RuleSetId {
        self.setup.rules.id
    }

    pub fn commands(&self) -> &[CommandLine] {
        &self.commands
    }

    pub fn push(&mut self, at: i64, cmd: Command) {
        self.commands.push(CommandLine { at, cmd });
    }

    /// Parses a whole record; the first bad line is an error.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        match Record::parse_prefix(text)? {
            (r, None) => Ok(r),
            (_, Some(e)) => Err(e),
        }
    }

    /// Parses the header and then as many command lines as are good: the
    /// record so far and the error that stopped it, if any. Only a bad header
    /// is an outright error, since without it nothing can be replayed.
    pub fn parse_prefix(text: &str) -> Result<(Record, Option<RecordError>), RecordError> {
        let mut lines = split_lines(text);
        let Some(first) = lines.next() else {
            return Err(RecordError {
                line: 1,
                kind: RecordErrorKind::Empty,
            });
        };
        let header = parse_header(first).map_err(|kind| RecordError { line: 1, kind })?;
        let mut record = Record::new(header).map_err(|e| RecordError {
            line: 1,
            kind: e.into(),
        })?;
        for (i, line) in lines.enumerate() {
            let n = command_line_number(i);
            match parse_command(line) {
                Ok(c) => record.commands.push(c),
                Err(kind) => return Ok((record, Some(RecordError { line: n, kind }))),
            }
        }
        Ok((record, None))
    }

    /// The canonical text: compact JSON, one object per line, each line
    /// ending in a newline. Parsing it gives back an equal record.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::with_capacity(256 + self.commands.len() * 48);
        push_json(&mut out, &self.header);
        for c in &self.commands {
            push_json(&mut out, c);
        }
        out
    }

    /// Whether the cards can be known from the header: a drawn deal must be
    /// revealed (its seed and salt, checked against its commitment when
    /// the header was read) before its commands can be replayed.
    pub fn replayable(&self) -> Result<(), RecordError> {
        if self.setup.deal.is_sealed() {
            return Err(RecordError {
                line: 1,
                kind: RecordErrorKind::SealedDeal,
            });
        }
        Ok(())
    }

    /// Creates the game and applies the commands in order, stopping at the
    /// first the engine refuses. The game's creation is timed at the first
    /// command (the header carries no time of its own). A sealed deal is
    /// dealt as its placeholder: check [`Record::replayable`] first.
    pub fn replay(&self) -> ReplayOutcome {
        let start = self.commands.first().map_or(0, |c| c.at);
        let (mut game, mut events) = Game::new(self.setup.clone(), start);
        let mut violation = None;
        for (i, c) in self.commands.iter().enumerate() {
            match game.apply(&c.cmd, c.at) {
                Ok(evs) => events.extend(evs),
                Err(v) => {
                    violation = Some(LineViolation {
                        line: command_line_number(i),
                        violation: v,
                    });
                    break;
                }
            }
        }
        ReplayOutcome {
            game,
            events,
            violation,
        }
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_jsonl())
    }
}

/// See [`Record::parse`].
pub fn parse(text: &str) -> Result<Record, RecordError> {
    Record::parse(text)
}

/// See [`Record::to_jsonl`].
pub fn write(record: &Record) -> String {
    record.to_jsonl()
}

/// See [`Record::replay`].
pub fn replay(record: &Record) -> ReplayOutcome {
    record.replay()
}

fn push_json<T: Serialize>(out: &mut String, value: &T) {
    // Serializing these plain data types cannot fail: no maps with
    // non-string keys, no failing Serialize impls.
    out.push_str(&serde_json::to_string(value).expect("record types serialize"));
    out.push('\n');
}

/// The lines of a record. The final newline ends the last line rather than
/// starting an empty one; a CR before a newline is tolerated.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(move |_| !empty)
}

/// Parses a line as JSON, telling a truncated line from other syntax errors.
fn parse_json(line: &str) -> Result<serde_json::Value, RecordErrorKind> {
    if line.trim().is_empty() {
        return Err(RecordErrorKind::Blank);
    }
    serde_json::from_str(line).map_err(|e| {
        let msg = message_of(&e);
        match e.classify() {
            serde_json::error::Category::Eof => RecordErrorKind::Truncated(msg),
            _ => RecordErrorKind::Syntax(msg),
        }
    })
}

/// serde_json's message with its position made to fit a one-line record:
/// the line is ours to report, the column is kept.
fn message_of(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(m) if e.column() > 0 => format!("{m} at column {}", e.column()),
        Some(m) => m.to_string(),
        None => full,
    }
}

fn parse_header(line: &str) -> Result<Header, RecordErrorKind> {
    let value = parse_json(line)?;
    // Named before the generic shape check so that the message lists the
    // rule sets instead of serde's "unknown variant".
    if let Some(id) = value.pointer("/rules/id").and_then(|v| v.as_str()) {
        id.parse::<RuleSetId>()?;
    }
    serde_json::from_value(value).map_err(|e| RecordErrorKind::HeaderShape(message_of(&e)))
}

fn parse_command(line: &str) -> Result<CommandLine, RecordErrorKind> {
    let value = parse_json(line)?;
    serde_json::from_value(value).map_err(|e| RecordErrorKind::Command(message_of(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::{RulesRef, SeatEntry, FORMAT};
    use mafia_rules::{Code, Deal, RuleSetId, Seat};

    fn header(rules: RuleSetId) -> Header {
        Header {
            format: FORMAT.into(),
            rules: RulesRef {
                id: rules,
                overrides: serde_json::json!({}),
            },
            tournament_id: None,
            tournament: "Test Cup".into(),
            stage: "final".into(),
            round: 1,
            table: 2,
            game: 3,
            judge: "Judge".into(),
            seats: (1..=10)
                .map(|i| SeatEntry {
                    seat: Seat::new(i).unwrap(),
                    player_id: format!("p{i}"),
                    nickname: format!("Nick {i}"),
                })
                .collect(),
            deal: Deal::Seed(7),
        }
    }

    fn seat(n: u8) -> Seat {
        Seat::new(n).unwrap()
    }

    #[test]
    fn written_record_parses_back_byte_for_byte() {
        let mut r = Record::new(header(RuleSetId::Minsk2017)).unwrap();
        r.push(1_000, Command::NextStep);
        r.push(
            2_000,
            Command::Nominate {
                by: seat(3),
                target: seat(7),
            },
        );
        let text = r.to_jsonl();
        assert!(text.ends_with('\n'));
        assert_eq!(text.lines().count(), 3);
        assert!(text.contains(r#"{"at":2000,"cmd":{"type":"nominate","by":3,"target":7}}"#));
        let back = Record::parse(&text).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.to_jsonl(), text);
    }

    #[test]
    fn a_custom_preset_round_trips_with_its_overrides() {
        let rules = mafia_rules::RuleSet::with_overrides(
            RuleSetId::Classic,
            &serde_json::json!({"speech_secs": 45, "fouls": {"critical_secs": null}}),
        )
        .unwrap();
        let setup = mafia_rules::Setup::new(
            rules.clone(),
            mafia_rules::sim::default_players(),
            Deal::Seed(3),
        )
        .unwrap();
        let r = Record::new(Header::for_setup(
            &setup,
            &"club-night.main.r1.t1.g1".parse().unwrap(),
        ))
        .unwrap();
        let text = r.to_jsonl();
        assert!(text.contains(r#""overrides":{"fouls":{"critical_secs":null},"speech_secs":45}"#));
        let back = Record::parse(&text).unwrap();
        assert_eq!(back.setup().rules, rules);
        assert_eq!(back.to_jsonl(), text);
    }

    #[test]
    fn a_missing_final_newline_and_crlf_are_tolerated() {
        let mut r = Record::new(header(RuleSetId::Rfm)).unwrap();
        r.push(5, Command::NextStep);
        let text = r.to_jsonl();
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(Record::parse(text.trim_end()).unwrap(), r);
        assert_eq!(Record::parse(&crlf).unwrap(), r);
    }

    #[test]
    fn an_empty_record_is_a_header_error() {
        let e = Record::parse("").unwrap_err();
        assert_eq!((e.line, e.code()), (1, "bad_header"));
    }

    #[test]
    fn a_truncated_command_line_names_its_line() {
        let r = Record::new(header(RuleSetId::Ua)).unwrap();
        let text = format!(
            "{}{}\n{}",
            r.to_jsonl(),
            r#"{"at":1,"cmd":{"type":"next_step"}}"#,
            r#"{"at":2,"cmd":{"ty"#
        );
        let e = Record::parse(&text).unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.code(), "parse_error");
        assert!(matches!(e.kind, RecordErrorKind::Truncated(_)), "{e}");
    }

    #[test]
    fn unknown_fields_and_bad_seats_are_rejected_with_their_line() {
        let r = Record::new(header(RuleSetId::Classic)).unwrap();
        for bad in [
            r#"{"at":1,"cmd":{"type":"next_step"},"by":"me"}"#,
            r#"{"at":1,"cmd":{"type":"foul","seat":11}}"#,
            r#"{"at":1,"cmd":{"type":"foul","seat":2,"extra":1}}"#,
            r#"{"at":1,"cmd":{"type":"dance"}}"#,
            r#"not json"#,
            "",
        ] {
            let text = format!("{}{bad}\n", r.to_jsonl());
            let e = Record::parse(&text).unwrap_err();
            assert_eq!((e.line, e.code()), (2, "parse_error"), "{bad}: {e}");
        }
        let e = Record::parse(&format!(
            "{}{}\n",
            r.to_jsonl(),
            r#"{"at":1,"cmd":{"type":"foul","seat":11}}"#
        ))
        .unwrap_err();
        assert!(e.to_string().contains("seat 11 is outside 1–10"), "{e}");
    }

    #[test]
    fn header_problems_are_bad_header_on_line_one() {
        let good = serde_json::to_value(header(RuleSetId::Club)).unwrap();
        let mut unknown = good.clone();
        unknown["rules"]["id"] = "mafia".into();
        let mut seat11 = good.clone();
        seat11["seats"][9]["seat"] = 11.into();
        let mut two_dons = good.clone();
        two_dons["deal"] = serde_json::json!({"cards": [
            "civilian", "civilian", "civilian", "civilian", "civilian",
            "civilian", "sheriff", "mafia", "don", "don"]});
        let mut format = good.clone();
        format["format"] = "mafia-arena/9".into();
        let mut extra = good;
        extra["colour"] = "red".into();
        for (v, needle) in [
            (unknown, "unknown rule set \"mafia\""),
            (seat11, "seat 11 is outside 1–10"),
            (two_dons, "does not match the tray"),
            (format, "unsupported record format"),
            (extra, "unknown field `colour`"),
        ] {
            let e = Record::parse(&format!("{v}\n")).unwrap_err();
            assert_eq!((e.line, e.code()), (1, "bad_header"));
            assert!(e.to_string().contains(needle), "{e}");
        }
    }

    #[test]
    fn replay_stops_at_the_first_refused_command_with_its_line() {
        let mut r = Record::new(header(RuleSetId::Minsk2017)).unwrap();
        r.push(1, Command::NextStep);
        r.push(
            2,
            Command::Shot {
                by: seat(1),
                target: None,
            },
        );
        r.push(3, Command::NextStep);
        let out = r.replay();
        let v = out.violation.unwrap();
        assert_eq!(v.line, 3);
        assert_eq!(v.violation.code, Code::WrongPhase);
        assert_eq!(out.game.commands(), 1);
    }

    #[test]
    fn replaying_a_simulated_game_rebuilds_it() {
        use rand::SeedableRng;
        for id in RuleSetId::ALL {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
            let sim = mafia_rules::sim::simulate(id, &mut rng, 1_000);
            let mut h = header(id);
            h.deal = sim.setup.deal.clone();
            h.seats = sim
                .setup
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| SeatEntry {
                    seat: Seat::from_index(i),
                    player_id: p.player_id.clone(),
                    nickname: p.nickname.clone(),
                })
                .collect();
            let commands = sim
                .commands
                .iter()
                .map(|(at, cmd)| CommandLine {
                    at: *at,
                    cmd: cmd.clone(),
                })
                .collect();
            let r = Record::with_commands(h, commands).unwrap();
            let again = Record::parse(&r.to_jsonl()).unwrap();
            let out = again.replay();
            assert!(out.violation.is_none());
            assert_eq!(out.game.summary(), sim.game.summary());
            assert_eq!(out.events.len(), sim.events.len());
        }
    }
}
