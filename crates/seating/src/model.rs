//! What goes into a seating and what comes out. Rounds, tables and seats are
//! numbered from 1 wherever a person names them (errors, `swap`); the vectors
//! here are in that order, so `rounds[0]` is round 1 and `seats[0]` seat 1.

use serde::{Deserialize, Serialize};

/// Seats at a sports Mafia table.
pub const SEATS: usize = 10;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub id: String,
    pub nickname: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub club: Option<String>,
}

impl Player {
    pub fn new(id: impl Into<String>, nickname: impl Into<String>) -> Player {
        Player {
            id: id.into(),
            nickname: nickname.into(),
            club: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    /// Never at one table (teammates, relatives): a hard rule.
    Separate,
    /// At one table as rarely as possible: a cost, counted in the metrics.
    Avoid,
}

impl std::str::FromStr for PolicyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "separate" => Ok(PolicyKind::Separate),
            "avoid" => Ok(PolicyKind::Avoid),
            other => Err(format!(
                "unknown policy kind `{other}` (expected separate or avoid)"
            )),
        }
    }
}

impl std::fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PolicyKind::Separate => "separate",
            PolicyKind::Avoid => "avoid",
        })
    }
}

/// A rule about two players (by id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairPolicy {
    pub kind: PolicyKind,
    pub a: String,
    pub b: String,
}

impl PairPolicy {
    pub fn separate(a: impl Into<String>, b: impl Into<String>) -> PairPolicy {
        PairPolicy {
            kind: PolicyKind::Separate,
            a: a.into(),
            b: b.into(),
        }
    }

    pub fn avoid(a: impl Into<String>, b: impl Into<String>) -> PairPolicy {
        PairPolicy {
            kind: PolicyKind::Avoid,
            a: a.into(),
            b: b.into(),
        }
    }
}

/// A seating problem: who plays, how many tables and rounds, who judges and
/// which pairs are kept apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatingInput {
    pub players: Vec<Player>,
    pub tables: usize,
    pub rounds: usize,
    /// Table judges, rotated across the tables round by round.
    #[serde(default)]
    pub judges: Vec<String>,
    #[serde(default)]
    pub policies: Vec<PairPolicy>,
}

impl SeatingInput {
    pub fn new(players: Vec<Player>, tables: usize, rounds: usize) -> SeatingInput {
        SeatingInput {
            players,
            tables,
            rounds,
            judges: Vec::new(),
            policies: Vec::new(),
        }
    }
}

/// Every round of a tournament stage, seated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seating {
    pub rounds: Vec<RoundSeating>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSeating {
    pub tables: Vec<TableSeating>,
    /// Players who sit this round out, in roster order.
    #[serde(default)]
    pub resting: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSeating {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// Player ids; `seats[0]` is seat 1.
    pub seats: Vec<String>,
}
