//! What a table judge enters. Every command names the seat it is about, so a
//! key pressed for the wrong seat is caught instead of silently applied.

use crate::seat::{Seat, SeatList, SeatSet};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PenaltyKind {
    /// −0.2 (rfm §5.10).
    Small,
    /// −0.5 (rfm §5.11).
    Big,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Ends the current timed step that needs no decision: a night-0 step
    /// (meeting, signs, free seating) or the free talk.
    NextStep,
    /// Starts the speaker's timer. Optional: a turn can be ended without it.
    StartSpeech {
        seat: Seat,
    },
    /// The speaker said "pass"/"thank you", or his time ran out.
    EndSpeech {
        seat: Seat,
        #[serde(default)]
        timeout: bool,
    },
    Nominate {
        by: Seat,
        target: Seat,
    },
    /// Withdraws `by`'s nomination of today (minsk2017 §4.4.3).
    Withdraw {
        by: Seat,
    },
    Foul {
        seat: Seat,
    },
    /// ua §7.
    TechnicalFoul {
        seat: Seat,
    },
    /// rfm §5.10–5.11.
    Penalty {
        seat: Seat,
        kind: PenaltyKind,
    },
    YellowCard {
        seat: Seat,
    },
    /// A disqualifying foul: removal from the table at once.
    Disqualify {
        seat: Seat,
    },
    /// A violation that gives the game to the other team (ППК).
    OppositeTeamVictory {
        seat: Seat,
    },
    /// club: the players who want a vote today.
    VoteCall {
        yes: SeatSet,
    },
    /// The hands raised against `nominee`.
    Vote {
        nominee: Seat,
        hands: SeatSet,
    },
    /// club roll call: `voter` names his candidate (or abstains).
    Ballot {
        voter: Seat,
        target: Option<Seat>,
    },
    /// The hands raised for "shall all of them leave?".
    Lift {
        hands: SeatSet,
    },
    /// Ends last words (or the rfm testament).
    EndLastWords {
        seat: Seat,
    },
    /// The judge's "mafia, shoot": the shooting count begins. Optional: the
    /// first shot implies it (records written before it existed).
    StartShooting,
    /// A black player's shot; `None` when he did not shoot.
    Shot {
        by: Seat,
        target: Option<Seat>,
    },
    DonCheck {
        target: Option<Seat>,
    },
    SheriffCheck {
        target: Option<Seat>,
    },
    BeautyPick {
        target: Option<Seat>,
    },
    /// The three seats named by the first player killed; fewer when he was
    /// cut short, none when he declined.
    BestMove {
        seat: Seat,
        named: SeatList,
    },
    /// Takes back the last accepted command of the current phase (a judge's
    /// technical error, rfm §7.1.2). History keeps both.
    Undo,
}
