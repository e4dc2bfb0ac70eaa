//! What the referee answers a table judge, in the engine's and record's
//! types. The gRPC layer (`mafia_proto::convert`) is the only place these
//! become protocol messages, on both the referee's and the judge's side.

use crate::{GameId, LoggedEvent};
use mafia_rules::view::GameView;
use mafia_rules::{Outcome, Prompt, Violation};
use std::fmt;

/// A game's state for one audience.
#[derive(Clone, Debug, PartialEq)]
pub struct GameState {
    pub game_id: GameId,
    /// The last stored event's seq (for every audience; the view's own
    /// `seq` is the public's count for the public).
    pub seq: u64,
    /// The highest client_seq accepted so far (0 before the first command).
    pub last_client_seq: u64,
    /// Nothing more is expected (`Game::is_over`).
    pub over: bool,
    pub view: GameView,
}

impl GameState {
    /// What the judge must enter next; `None` for other audiences.
    pub fn prompt(&self) -> Option<Prompt> {
        self.view.prompt
    }

    /// The result once decided.
    pub fn result(&self) -> Option<Outcome> {
        self.view.result
    }

    /// The winner as the engine's serde names it ("red", "black", "draw");
    /// empty while undecided.
    pub fn winner_name(&self) -> &'static str {
        match self.result() {
            None => "",
            Some(o) => mafia_rules::summary::GameResult::of(Some(o)).as_str(),
        }
    }
}

/// A command stored by the referee.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    pub client_seq: u64,
    /// The events the command produced (judge's view).
    pub events: Vec<LoggedEvent>,
    /// The state after the command; absent on replayed acks after an attach
    /// and on streams attached with `omit_state`.
    pub state: Option<GameState>,
    /// The command had already been applied; this acknowledges it again.
    pub duplicate: bool,
    /// Re-sent after an attach because the judge had not seen it.
    pub replayed: bool,
}

/// A command the referee refused; nothing was stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub client_seq: u64,
    pub refusal: Refusal,
}

/// Why a command was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The engine refused it: it breaks a rule.
    Rule(Violation),
    /// It never reached the engine: it could not be read.
    Malformed { message: String, message_ru: String },
    /// It never reached the engine: its `at` cannot be when it was entered.
    Time {
        code: TimeCode,
        message: String,
        message_ru: String,
    },
}

/// The code a malformed command is refused with on the wire and in metrics.
pub const MALFORMED_COMMAND: &str = "malformed_command";

/// Why a command's time was refused (the referee's check, not the
/// engine's: records replay whatever their times).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeCode {
    /// Earlier than the game's last event.
    Backwards,
    /// Further ahead of the referee's clock than it tolerates.
    Ahead,
}

impl TimeCode {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeCode::Backwards => "time_backwards",
            TimeCode::Ahead => "time_ahead",
        }
    }

    pub fn parse(code: &str) -> Option<TimeCode> {
        [TimeCode::Backwards, TimeCode::Ahead]
            .into_iter()
            .find(|c| c.as_str() == code)
    }
}

impl Refusal {
    /// A command that could not be read, and why.
    pub fn malformed(why: &str) -> Refusal {
        Refusal::Malformed {
            message: format!("malformed command: {why}"),
            message_ru: format!("команда не распознана: {why}"),
        }
    }

    /// A command entered at `at`, earlier than the game's last event (`last`).
    pub fn time_backwards(at: i64, last: i64) -> Refusal {
        Refusal::Time {
            code: TimeCode::Backwards,
            message: format!(
                "the command's time {at} ms is earlier than the game's last event ({last} ms): the judge's clock went back"
            ),
            message_ru: format!(
                "время команды {at} мс раньше последнего события игры ({last} мс): часы судьи ушли назад"
            ),
        }
    }

    /// A command entered at `at`, more than `tolerance_ms` ahead of `now`.
    pub fn time_ahead(at: i64, now: i64, tolerance_ms: i64) -> Refusal {
        Refusal::Time {
            code: TimeCode::Ahead,
            message: format!(
                "the command's time {at} ms is more than {} h ahead of the referee's clock ({now} ms): set the judge's clock",
                tolerance_ms / 3_600_000
            ),
            message_ru: format!(
                "время команды {at} мс опережает часы арбитра ({now} мс) больше чем на {} ч: проверьте часы судьи",
                tolerance_ms / 3_600_000
            ),
        }
    }

    /// The stable machine-readable code (`Code::as_str` for rules).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Rule(v) => v.code.as_str(),
            Refusal::Malformed { .. } => MALFORMED_COMMAND,
            Refusal::Time { code, .. } => code.as_str(),
        }
    }

    /// The rulebook clause; empty for a refusal of the referee's own.
    pub fn clause(&self) -> &str {
        match self {
            Refusal::Rule(v) => &v.clause,
            Refusal::Malformed { .. } | Refusal::Time { .. } => "",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Refusal::Rule(v) => &v.message,
            Refusal::Malformed { message, .. } | Refusal::Time { message, .. } => message,
        }
    }

    pub fn message_ru(&self) -> &str {
        match self {
            Refusal::Rule(v) => &v.message_ru,
            Refusal::Malformed { message_ru, .. } | Refusal::Time { message_ru, .. } => message_ru,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Rule(v) => v.fmt(f),
            Refusal::Malformed { message, .. } | Refusal::Time { message, .. } => {
                f.write_str(message)
            }
        }
    }
}
