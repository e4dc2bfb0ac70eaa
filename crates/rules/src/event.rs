//! Events: the facts a game is made of. Folding them rebuilds the state, and
//! each one knows which audience may see it.

use crate::command::PenaltyKind;
use crate::params::{Night0Step, NightAction};
use crate::role::Team;
use crate::seat::{Seat, SeatList, SeatSet};
use crate::setup::Roles;
use serde::{Deserialize, Serialize};

/// Who may see something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The hall, the players, spectators: outcomes only until the game ends.
    Public,
    /// The stream: everything, behind a delay the gateway applies.
    Broadcast,
    /// The table judge and the chief judge: everything, live, with prompts.
    Judge,
}

/// The step the game is in. Its data is what the judge's screen needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// A game created but not yet dealt: no cards, nothing to hide, no
    /// command taken (`Game::new` deals). Never stored: no event starts it.
    BeforeDeal,
    Night0 {
        index: u8,
        step: Night0Step,
        secs: u16,
    },
    Speech {
        seat: Seat,
        secs: u16,
        /// A tie speech before a re-vote.
        tie: bool,
        /// A muted player's turn: nominations only, for `secs` (maybe 0).
        nominations_only: bool,
    },
    FreeTalk {
        secs: u16,
    },
    VoteCall,
    /// Hands against nominees, in nomination order.
    Voting {
        round: u8,
    },
    /// club: each living player names his candidate, from `first`.
    RollCall {
        round: u8,
        first: Seat,
    },
    Lift,
    LastWords {
        seat: Seat,
        secs: u16,
        testament: bool,
    },
    Night {
        action: NightAction,
        secs: u16,
    },
    BestMove {
        seat: Seat,
        secs: u16,
    },
    Ended,
}

impl Step {
    pub const fn is_night(&self) -> bool {
        matches!(
            self,
            Step::Night0 { .. } | Step::Night { .. } | Step::BestMove { .. }
        )
    }
}

/// How a player left the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    Vote,
    Lift,
    Shot,
    /// The 4th foul.
    Fouls,
    /// ua: the 2nd technical foul.
    TechnicalFouls,
    Disqualified,
}

impl Cause {
    /// Removals are not votes or shots: no last words, and their own vote policy.
    pub const fn is_removal(self) -> bool {
        matches!(
            self,
            Cause::Fouls | Cause::TechnicalFouls | Cause::Disqualified
        )
    }
    pub const fn as_str(self) -> &'static str {
        match self {
            Cause::Vote => "vote",
            Cause::Lift => "lift",
            Cause::Shot => "shot",
            Cause::Fouls => "fouls",
            Cause::TechnicalFouls => "technical_fouls",
            Cause::Disqualified => "removal",
        }
    }
}

/// Why no vote is held today.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoVote {
    NoNominees,
    SingleNomineeDay1,
    /// A removal cancelled it.
    Cancelled,
    /// club: fewer than half wanted a vote.
    NotWanted,
}

/// Why a lift is not asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LiftDenial {
    Disabled,
    AllPlayers,
    MoreThanHalf,
    Day1Limit,
    Banned,
    TooFewPlayers,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Every black player is out.
    AllBlackOut,
    /// Black players are at least as many as red ones.
    BlackParity,
    /// Nobody left for the rule set's span of phases.
    NoDepartures,
    /// Every remaining player left at once.
    AllOut,
    /// A penalty gave the game to the other team.
    OppositeTeamVictory,
    /// club: four players and three nights without a kill.
    NightsWithoutKill,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Team>,
    pub reason: EndReason,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The cards, seat 1 first.
    Dealt {
        roles: Roles,
    },
    StepStarted {
        step: Step,
    },
    /// Morning. `killed` is the night's result as announced to the table;
    /// `best_move` the numbers named at night, made public now.
    DayStarted {
        day: u8,
        opener: Seat,
        killed: Option<Seat>,
        best_move: Option<SeatList>,
        quiet: u8,
    },
    NightStarted {
        night: u8,
        quiet: u8,
    },
    SpeechStarted {
        seat: Seat,
    },
    SpeechEnded {
        seat: Seat,
        timeout: bool,
    },
    /// A turn passed over: Beauty's silence.
    TurnSkipped {
        seat: Seat,
    },
    Nominated {
        by: Seat,
        target: Seat,
    },
    Withdrawn {
        by: Seat,
        target: Seat,
    },
    Fouled {
        seat: Seat,
        fouls: u8,
    },
    /// The seat's speech of `day` is lost or shortened (3rd foul).
    Muted {
        seat: Seat,
        day: u8,
        carried: bool,
    },
    TechnicalFouled {
        seat: Seat,
        count: u8,
    },
    Penalized {
        seat: Seat,
        kind: PenaltyKind,
    },
    YellowCarded {
        seat: Seat,
    },
    Left {
        seat: Seat,
        cause: Cause,
    },
    /// A player already leaving (in his own last words) is disqualified: he
    /// keeps his departure and loses the rest of his words.
    Disqualified {
        seat: Seat,
    },
    /// Vote cancellations after a removal: today's vote and how many of the
    /// next days' votes will not be held.
    VotesCancelled {
        today: bool,
        next_days: u8,
    },
    VoteSkipped {
        reason: NoVote,
    },
    VoteCalled {
        yes: SeatSet,
        held: bool,
    },
    /// Voting among these nominees begins.
    Candidates {
        seats: SeatList,
    },
    VotesCast {
        nominee: Seat,
        hands: SeatSet,
        automatic: bool,
    },
    BallotCast {
        voter: Seat,
        target: Option<Seat>,
    },
    Tie {
        seats: SeatList,
    },
    LiftDenied {
        seats: SeatList,
        reason: LiftDenial,
    },
    LiftVoted {
        hands: SeatSet,
        passed: bool,
    },
    /// The judge said "mafia, shoot". A night without it began its
    /// shooting at its first `ShotFired`.
    ShootingStarted,
    /// A black player's shot. A second one of his at another seat (rfm
    /// §4.5.5: "shoots at several players") makes the night a miss; taken
    /// just after the count, it is followed by a `NightResult` of no kill.
    ShotFired {
        by: Seat,
        target: Option<Seat>,
    },
    /// The night's outcome (announced publicly in the morning); a later one
    /// of the same night replaces it.
    NightResult {
        killed: Option<Seat>,
    },
    DonChecked {
        target: Option<Seat>,
        sheriff: bool,
    },
    SheriffChecked {
        target: Option<Seat>,
        black: bool,
    },
    BeautyPicked {
        target: Option<Seat>,
    },
    BestMoveMade {
        seat: Seat,
        named: SeatList,
        hits: u8,
        at_night: bool,
    },
    /// The public form of a best move made in last words: no hits.
    BestMoveAnnounced {
        seat: Seat,
        named: SeatList,
    },
    OppositeTeamVictory {
        seat: Seat,
    },
    GameEnded {
        outcome: Outcome,
    },
    RolesRevealed {
        roles: Roles,
    },
    /// The accepted command number `cmd` was taken back. `public`: whether
    /// the public saw anything of it (undoing a shot is nobody's business).
    /// The public's copy has no `cmd` (0 here, left out of its JSON):
    /// command numbers would count hidden commands. A stored undo always
    /// names a command (numbers start at 1), so stored records keep their
    /// shape.
    Undone {
        #[serde(default, skip_serializing_if = "is_zero")]
        cmd: u32,
        public: bool,
    },
    /// A drawn deal's secret, revealed as the game ends (stored after its
    /// last event, by the same command): anyone can check it against the
    /// header's commitment and the `dealt` cards (FORMAT.md).
    DealRevealed(crate::drawn::Sealed),
}

impl Event {
    /// The `type` tag of the event's JSON form (`"nominated"`, …), as serde
    /// writes it; checked against serde for every event of simulated games.
    pub const fn tag(&self) -> &'static str {
        match self {
            Event::Dealt { .. } => "dealt",
            Event::DealRevealed { .. } => "deal_revealed",
            Event::StepStarted { .. } => "step_started",
            Event::DayStarted { .. } => "day_started",
            Event::NightStarted { .. } => "night_started",
            Event::SpeechStarted { .. } => "speech_started",
            Event::SpeechEnded { .. } => "speech_ended",
            Event::TurnSkipped { .. } => "turn_skipped",
            Event::Nominated { .. } => "nominated",
            Event::Withdrawn { .. } => "withdrawn",
            Event::Fouled { .. } => "fouled",
            Event::Muted { .. } => "muted",
            Event::TechnicalFouled { .. } => "technical_fouled",
            Event::Penalized { .. } => "penalized",
            Event::YellowCarded { .. } => "yellow_carded",
            Event::Left { .. } => "left",
            Event::Disqualified { .. } => "disqualified",
            Event::VotesCancelled { .. } => "votes_cancelled",
            Event::VoteSkipped { .. } => "vote_skipped",
            Event::VoteCalled { .. } => "vote_called",
            Event::Candidates { .. } => "candidates",
            Event::VotesCast { .. } => "votes_cast",
            Event::BallotCast { .. } => "ballot_cast",
            Event::Tie { .. } => "tie",
            Event::LiftDenied { .. } => "lift_denied",
            Event::LiftVoted { .. } => "lift_voted",
            Event::ShootingStarted => "shooting_started",
            Event::ShotFired { .. } => "shot_fired",
            Event::NightResult { .. } => "night_result",
            Event::DonChecked { .. } => "don_checked",
            Event::SheriffChecked { .. } => "sheriff_checked",
            Event::BeautyPicked { .. } => "beauty_picked",
            Event::BestMoveMade { .. } => "best_move_made",
            Event::BestMoveAnnounced { .. } => "best_move_announced",
            Event::OppositeTeamVictory { .. } => "opposite_team_victory",
            Event::GameEnded { .. } => "game_ended",
            Event::RolesRevealed { .. } => "roles_revealed",
            Event::Undone { .. } => "undone",
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Event {
    /// The event as `audience` may see it while the game runs: `None` when
    /// hidden. After the game ends the whole history may be shown.
    pub fn for_audience(&self, audience: Audience) -> Option<Event> {
        if audience != Audience::Public {
            return Some(*self);
        }
        match *self {
            Event::BestMoveMade {
                seat,
                named,
                at_night: false,
                ..
            } => Some(Event::BestMoveAnnounced { seat, named }),
            // Command numbers count the hidden night commands too (one shot
            // per living black player, the checks): the public's undo names
            // no command (issue 8: an indirect spoiler).
            Event::Undone { public: true, .. } => Some(Event::Undone {
                cmd: 0,
                public: true,
            }),
            e if e.is_public() => Some(e),
            _ => None,
        }
    }

    /// Whether the public may see this event while the game runs. Once the
    /// game has ended everything is public.
    pub fn is_public(&self) -> bool {
        match self {
            Event::Dealt { .. }
            | Event::ShootingStarted
            | Event::ShotFired { .. }
            | Event::NightResult { .. }
            | Event::DonChecked { .. }
            | Event::SheriffChecked { .. }
            | Event::BeautyPicked { .. } => false,
            // The kill is announced by DayStarted; night steps would reveal
            // who acts (a Don check step exists only while the Don lives).
            Event::Left { cause, .. } => *cause != Cause::Shot,
            Event::StepStarted { step } => {
                !matches!(step, Step::Night { .. } | Step::BestMove { .. })
            }
            // Hits reveal roles; the numbers themselves come with DayStarted
            // or, when made in last words, via the public form below.
            Event::BestMoveMade { .. } => false,
            Event::Undone { public, .. } => *public,
            _ => true,
        }
    }
}

/// An event as stored and sent: its place in the game's history, the judge
/// command that produced it and the time the judge entered that command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// 1, 2, 3, … within the game.
    pub seq: u32,
    /// The accepted command that produced it; 0 for the game's creation.
    pub cmd: u32,
    /// Milliseconds since the Unix epoch, as given by the caller.
    pub at: i64,
    pub event: Event,
}
