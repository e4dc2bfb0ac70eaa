//! The people and the structure of a tournament: players, judges, stages,
//! rounds and their seated tables, and who may act.

use crate::points::Coefficient;
use mafia_record::StageId;
use mafia_rules::{Seat, SEATS};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

macro_rules! text_id {
    ($name:ident) => {
        /// A shared string: ids are cloned into every game line and
        /// accumulator, and a clone must not allocate.
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(Arc<str>);

        impl $name {
            pub fn new(s: impl AsRef<str>) -> Self {
                Self(Arc::from(s.as_ref()))
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self::new(s)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok(Self::new(String::deserialize(d)?))
            }
        }
    };
}

text_id!(PlayerId);
text_id!(JudgeId);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    pub nickname: String,
    #[serde(default)]
    pub club: Option<String>,
    #[serde(default)]
    pub photo_url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judge {
    pub id: JudgeId,
    pub name: String,
}

/// Who gives a command. The chief judge (ГС) approves, swaps seats, decides
/// appeals and draws lots; a table judge acts only on the games bound to him.
/// `RefereeLog` is the referee's log of a game, read by the scoring
/// service's follower: the only giver of `RecordResult`, and of nothing
/// else. No token maps to it, so no person records or forges a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", content = "judge", rename_all = "snake_case")]
pub enum Actor {
    Organiser,
    ChiefJudge,
    TableJudge(JudgeId),
    RefereeLog,
}

impl Actor {
    pub fn is_chief(&self) -> bool {
        matches!(self, Actor::ChiefJudge)
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Organiser => f.write_str("the organiser"),
            Actor::ChiefJudge => f.write_str("the chief judge"),
            Actor::TableJudge(j) => write!(f, "table judge {j}"),
            Actor::RefereeLog => f.write_str("the referee's log"),
        }
    }
}

/// How two players are kept apart when seated (teammates, relatives).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairKind {
    /// Never at one table: the seating generator honours it and a chief
    /// judge's swap that would break it is refused.
    Separate,
    /// At one table as rarely as the seating allows.
    Avoid,
}

/// A rule about two registered players, the tournament's for every round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairRule {
    pub kind: PairKind,
    pub a: PlayerId,
    pub b: PlayerId,
}

/// A stage (qualifying, semi-final, final): its size and point coefficient.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    pub id: StageId,
    pub name: String,
    pub rounds: u32,
    pub tables: u32,
    /// rfm §6.4.9: 1.3 in a final; 1 elsewhere.
    #[serde(default)]
    pub coefficient: Coefficient,
}

/// One table of a round: seat n (1..10) holds `seats[n-1]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatedTable {
    pub table: u32,
    pub seats: Vec<PlayerId>,
    #[serde(default)]
    pub judge: Option<JudgeId>,
}

impl SeatedTable {
    pub fn player_at(&self, seat: Seat) -> &PlayerId {
        &self.seats[seat.index()]
    }

    pub fn is_full(&self) -> bool {
        self.seats.len() == SEATS
    }
}

/// A place in a round's seating: table and seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub table: u32,
    pub seat: Seat,
}
