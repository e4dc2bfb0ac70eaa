//! The tournament's audit trail: every ruling and every change to the
//! tournament itself, with who gave it, when and why, in log order. It is
//! derived from the log by `apply`, so it is what the log says, nothing
//! kept beside it.

use crate::appeal::AppealDecision;
use crate::inputs::ApprovalItem;
use crate::model::{Actor, PlayerId};
use mafia_record::GameId;
use serde::{Deserialize, Serialize};

/// What was done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum AuditAction {
    Approved {
        item: ApprovalItem,
    },
    Refused {
        item: ApprovalItem,
    },
    ResultConfirmed,
    AppealDecided {
        appeal: u32,
        decision: AppealDecision,
    },
    LotDrawn {
        players: Vec<PlayerId>,
    },
    DatesSet {
        starts_on: Option<String>,
        ends_on: Option<String>,
    },
    Archived,
    Unarchived,
    Removed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Unix ms.
    pub at: i64,
    pub by: Actor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameId>,
    #[serde(flatten)]
    pub action: AuditAction,
    /// Empty where the action takes none (an approval, a confirmation).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}
