//! Roles and teams.

use serde::{Deserialize, Serialize};

/// A card dealt to a seat. `club`'s Commissar plays the Sheriff's part and is
/// the `Sheriff` here; only the label differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Civilian,
    Sheriff,
    Beauty,
    Mafia,
    Don,
}

impl Role {
    pub const fn team(self) -> Team {
        match self {
            Role::Civilian | Role::Sheriff | Role::Beauty => Team::Red,
            Role::Mafia | Role::Don => Team::Black,
        }
    }

    /// The letter of the paper protocol (minsk2017 §9): К, Ч, Ш, Д; К for Beauty too.
    pub const fn protocol_letter(self) -> &'static str {
        match self {
            Role::Civilian | Role::Beauty => "К",
            Role::Sheriff => "Ш",
            Role::Mafia => "Ч",
            Role::Don => "Д",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Team {
    Red,
    Black,
}

impl Team {
    pub const fn opposite(self) -> Team {
        match self {
            Team::Red => Team::Black,
            Team::Black => Team::Red,
        }
    }
}
