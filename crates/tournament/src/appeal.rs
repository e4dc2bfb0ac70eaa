//! Appeals against a game (rfm §7, minsk2017 §8.6) and their audit trail.

use crate::model::{Actor, PlayerId};
use crate::points::Points;
use mafia_record::GameId;
use mafia_rules::Team;
use serde::{Deserialize, Serialize};

/// A points correction, e.g. rfm §7.1.1.4: a wrong removal's -1.2 taken back
/// is `+1.2`. Counted with the player's penalties.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Correction {
    pub player: PlayerId,
    pub points: Points,
    #[serde(default)]
    pub note: String,
}

/// How the chief judge decides an appeal. As JSON (written with `kind`;
/// read also as the words `"rejected"` and `"replay"`):
/// `{"kind":"rejected"}`, `{"kind":"result_changed","winner":"red"}`
/// (`"black"`, or `null` for a draw), `{"kind":"points_corrected",
/// "corrections":[{"player":"p07","points":1.2,"note":"…"}]}`,
/// `{"kind":"replay"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppealDecision {
    Rejected,
    /// rfm §7.1: the result is changed; `winner: null` makes it a draw.
    ResultChanged {
        winner: Option<Team>,
    },
    PointsCorrected {
        corrections: Vec<Correction>,
    },
    /// rfm §7.2: the game is replayed; this one no longer counts.
    Replay,
}

/// The decisions' shapes, quoted when a decision does not read.
const SHAPES: &str = r#"a decision is {"kind":"rejected"}, {"kind":"result_changed","winner":"red"|"black"|null}, {"kind":"points_corrected","corrections":[{"player":ID,"points":1.2,"note":TEXT}]} or {"kind":"replay"}"#;

/// `AppealDecision` as the log and the API write it.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Tagged {
    // Braces: a unit variant would let unknown fields through.
    Rejected {},
    ResultChanged { winner: Option<Team> },
    PointsCorrected { corrections: Vec<Correction> },
    Replay {},
}

impl<'de> Deserialize<'de> for AppealDecision {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        let tagged = match v {
            serde_json::Value::String(word) => match word.as_str() {
                "rejected" => Tagged::Rejected {},
                "replay" => Tagged::Replay {},
                _ => return Err(D::Error::custom(format!("decision {word:?}: {SHAPES}"))),
            },
            v => Tagged::deserialize(v).map_err(|e| D::Error::custom(format!("{e}: {SHAPES}")))?,
        };
        Ok(match tagged {
            Tagged::Rejected {} => AppealDecision::Rejected,
            Tagged::ResultChanged { winner } => AppealDecision::ResultChanged { winner },
            Tagged::PointsCorrected { corrections } => {
                AppealDecision::PointsCorrected { corrections }
            }
            Tagged::Replay {} => AppealDecision::Replay,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decided {
    pub decision: AppealDecision,
    pub reason: String,
    pub by: Actor,
    pub at: i64,
}

/// An appeal with who filed it, when, and how it was decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appeal {
    pub id: u32,
    pub game: GameId,
    pub player: Option<PlayerId>,
    pub event_seq: Option<u32>,
    pub text: String,
    pub filed_by: Actor,
    pub filed_at: i64,
    pub decided: Option<Decided>,
}
