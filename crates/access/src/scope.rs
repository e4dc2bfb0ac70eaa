//! What an action touches, checked against a grant as a whole: one game,
//! every game of one table in one round (its replays included), or every
//! game of a tournament, present and future. A grant allows an action only
//! when one of its patterns covers all of it: a chief judge of table 9
//! rules on table 9's games, not on the tournament's.

use crate::GamePattern;
use mafia_record::{GameId, StageId, TournamentId};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Game(GameId),
    Table {
        tournament: TournamentId,
        stage: StageId,
        round: u32,
        table: u32,
    },
    /// Players, stages, judges, pair rules, lots, publishing: the whole
    /// tournament (a grant `<tournament>.*.*.*.*` or `*`).
    Tournament(TournamentId),
}

impl Scope {
    pub fn tournament(&self) -> &TournamentId {
        match self {
            Scope::Game(g) => &g.tournament,
            Scope::Table { tournament, .. } | Scope::Tournament(tournament) => tournament,
        }
    }

    /// The games it touches, as a pattern.
    pub fn pattern(&self) -> GamePattern {
        match self {
            Scope::Game(g) => GamePattern::exactly(g),
            Scope::Table {
                tournament,
                stage,
                round,
                table,
            } => GamePattern::table(tournament, stage, *round, *table),
            Scope::Tournament(t) => GamePattern::tournament(t),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Game(g) => write!(f, "game {g}"),
            Scope::Table { round, table, .. } => write!(
                f,
                "table {table} of round {round} (games {})",
                self.pattern()
            ),
            Scope::Tournament(t) => write!(
                f,
                "the whole tournament {t} (it needs a grant of {})",
                self.pattern()
            ),
        }
    }
}
