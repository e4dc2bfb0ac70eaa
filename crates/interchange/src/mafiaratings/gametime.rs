//! The site's game time (`{"round":2,"time":"speaking","speaker":5}`): when
//! in a game a warning, a technical foul or a removal happened.

use crate::script::Moment;
use mafia_rules::params::{Night0Step, NightAction};
use mafia_rules::Seat;
use serde::Serialize;

/// A game time as the site writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameTime {
    pub round: u8,
    pub time: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speaker: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voting_round: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominee: Option<u8>,
    /// The site's count of actions within one game time (1, 2, …): the
    /// order of sanctions given at the same moment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<u32>,
}

/// The moment a game time means, for placing a sanction in the replay.
pub fn moment(
    round: u8,
    time: Option<&str>,
    speaker: Option<Seat>,
    voting_round: u8,
    nominee: Option<Seat>,
) -> Moment {
    let day = round.saturating_add(1);
    let Some(time) = time else {
        return Moment::Round { round };
    };
    match (time, speaker) {
        ("start", _) => Moment::Night0,
        ("arrangement", _) => Moment::Night0Step {
            step: Night0Step::Meeting,
        },
        ("relaxed sitting", _) => Moment::Night0Step {
            step: Night0Step::FreeSeating,
        },
        ("don", _) if round == 0 => Moment::Night0Step {
            step: Night0Step::DonSign,
        },
        ("sheriff", _) if round == 0 => Moment::Night0Step {
            step: Night0Step::SheriffSign,
        },
        (_, _) if round == 0 && is_night(time) => Moment::Night0,
        ("shooting", _) => Moment::NightStep {
            night: round,
            action: NightAction::Shooting,
        },
        ("don", _) => Moment::NightStep {
            night: round,
            action: NightAction::DonCheck,
        },
        ("sheriff", _) => Moment::NightStep {
            night: round,
            action: NightAction::SheriffCheck,
        },
        ("night start", _) => Moment::Night { night: round },
        ("night end", _) => Moment::NightEnd { night: round },
        ("speaking", Some(seat)) => Moment::Speech { day, seat },
        ("voting" | "voting start", Some(seat)) => Moment::TieSpeech {
            day,
            seat,
            round: Some(voting_round),
        },
        ("voting" | "voting start", None) => Moment::Voting {
            day,
            round: Some(voting_round),
            nominee,
        },
        ("voting kill all", _) => Moment::Lift { day },
        ("night kill speaking" | "day kill speaking", Some(seat)) => {
            Moment::LastWords { day, seat }
        }
        ("end", _) => Moment::End,
        _ => Moment::Day { day },
    }
}

fn is_night(time: &str) -> bool {
    matches!(
        time,
        "night start" | "shooting" | "don" | "sheriff" | "night end"
    )
}
