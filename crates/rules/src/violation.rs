//! Violations: why a command was refused, with the rulebook clause it breaks.

use crate::params::RuleSetId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A stable, machine-readable reason for refusing a command. Clients key
/// their translations and tests on these; never rename one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The game has ended; nothing more can be applied.
    GameOver,
    /// The command does not belong to the current step of the game.
    WrongPhase,
    /// The seat named is not the one whose turn it is.
    NotYourTurn,
    /// The seat named is out of the game.
    PlayerOut,
    /// The player has already used his nomination today.
    NominationUsed,
    /// The seat named is already nominated today.
    AlreadyNominated,
    /// Self-nomination is not allowed by this rule set.
    SelfNomination,
    /// This rule set does not allow withdrawing a nomination.
    WithdrawalForbidden,
    /// The player has no nomination to withdraw.
    NothingToWithdraw,
    /// Votes are entered nominee by nominee, in nomination order.
    WrongNominee,
    /// The last nominee's votes are counted automatically.
    LastNomineeAutomatic,
    /// A raised hand belongs to a player who already voted in this round.
    AlreadyVoted,
    /// A raised hand belongs to a player who is out.
    VoterOut,
    /// The shooter is not a black player still in the game.
    NotAShooter,
    /// This black player has already shot tonight.
    AlreadyShot,
    /// The player may not act tonight (the Beauty's pick).
    CannotAct,
    /// The best move names at most three other seats.
    BadBestMove,
    /// This rule set has no such sanction (technical fouls, penalty points).
    NotInRuleSet,
    /// There is no accepted command of the current phase to undo.
    NothingToUndo,
    /// The Sheriff does not check on the meeting night (night 0): each book
    /// forbids it in its own clause, not only by the order of the phases.
    NoSheriffCheckOnNight0,
    /// After the deciding kill or vote no foul is given (rfm §5.14): only
    /// the penalties for insults and obscenity, and disqualification.
    NoFoulAfterResult,
}

impl Code {
    /// Every code, for tables and tests that walk them all.
    pub const ALL: [Code; 21] = [
        Code::GameOver,
        Code::WrongPhase,
        Code::NotYourTurn,
        Code::PlayerOut,
        Code::NominationUsed,
        Code::AlreadyNominated,
        Code::SelfNomination,
        Code::WithdrawalForbidden,
        Code::NothingToWithdraw,
        Code::WrongNominee,
        Code::LastNomineeAutomatic,
        Code::AlreadyVoted,
        Code::VoterOut,
        Code::NotAShooter,
        Code::AlreadyShot,
        Code::CannotAct,
        Code::BadBestMove,
        Code::NotInRuleSet,
        Code::NothingToUndo,
        Code::NoSheriffCheckOnNight0,
        Code::NoFoulAfterResult,
    ];
}

impl Code {
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::GameOver => "game_over",
            Code::WrongPhase => "wrong_phase",
            Code::NotYourTurn => "not_your_turn",
            Code::PlayerOut => "player_out",
            Code::NominationUsed => "nomination_used",
            Code::AlreadyNominated => "already_nominated",
            Code::SelfNomination => "self_nomination",
            Code::WithdrawalForbidden => "withdrawal_forbidden",
            Code::NothingToWithdraw => "nothing_to_withdraw",
            Code::WrongNominee => "wrong_nominee",
            Code::LastNomineeAutomatic => "last_nominee_automatic",
            Code::AlreadyVoted => "already_voted",
            Code::VoterOut => "voter_out",
            Code::NotAShooter => "not_a_shooter",
            Code::AlreadyShot => "already_shot",
            Code::CannotAct => "cannot_act",
            Code::BadBestMove => "bad_best_move",
            Code::NotInRuleSet => "not_in_rule_set",
            Code::NothingToUndo => "nothing_to_undo",
            Code::NoSheriffCheckOnNight0 => "no_sheriff_check_on_night0",
            Code::NoFoulAfterResult => "no_foul_after_result",
        }
    }
}

// `Code::clause` and `Code::clause_on` are in `clauses.rs`: the table of
// clauses depends on the codes, never the other way round.

/// What a refused command was about, where the code alone does not say
/// which clause applies (`Code::WrongPhase`: the clause of the step the
/// command belongs to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    General,
    Speech,
    Nomination,
    /// A vote, a roll call or club's question whether to vote.
    Vote,
    Lift,
    LastWords,
    Shooting,
    DonCheck,
    SheriffCheck,
    BeautyPick,
    BestMove,
}

impl Topic {
    pub const ALL: [Topic; 11] = [
        Topic::General,
        Topic::Speech,
        Topic::Nomination,
        Topic::Vote,
        Topic::Lift,
        Topic::LastWords,
        Topic::Shooting,
        Topic::DonCheck,
        Topic::SheriffCheck,
        Topic::BeautyPick,
        Topic::BestMove,
    ];
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused command: what rule it breaks, where that rule is written, and
/// a message for the judge in English and Russian.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub code: Code,
    /// The source file and clause, e.g. "000 §4.4.2".
    pub clause: String,
    /// The rulebook's file in `shared/rules/sources/`.
    pub source: String,
    pub message: String,
    pub message_ru: String,
}

impl Violation {
    pub fn new(
        code: Code,
        rules: RuleSetId,
        message: impl Into<String>,
        message_ru: impl Into<String>,
    ) -> Violation {
        Violation::on(code, Topic::General, rules, message, message_ru)
    }

    /// A violation about `topic` (see `Code::clause_on`).
    pub fn on(
        code: Code,
        topic: Topic,
        rules: RuleSetId,
        message: impl Into<String>,
        message_ru: impl Into<String>,
    ) -> Violation {
        Violation {
            code,
            clause: code.clause_on(topic, rules).to_string(),
            source: rules.source_file().to_string(),
            message: message.into(),
            message_ru: message_ru.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.clause, self.message)
    }
}

impl std::error::Error for Violation {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matches are exhaustive: a new code or topic missing from `ALL`
    /// fails to compile here.
    #[test]
    fn all_lists_every_code_and_topic_once_in_order() {
        fn code_position(c: Code) -> usize {
            match c {
                Code::GameOver => 0,
                Code::WrongPhase => 1,
                Code::NotYourTurn => 2,
                Code::PlayerOut => 3,
                Code::NominationUsed => 4,
                Code::AlreadyNominated => 5,
                Code::SelfNomination => 6,
                Code::WithdrawalForbidden => 7,
                Code::NothingToWithdraw => 8,
                Code::WrongNominee => 9,
                Code::LastNomineeAutomatic => 10,
                Code::AlreadyVoted => 11,
                Code::VoterOut => 12,
                Code::NotAShooter => 13,
                Code::AlreadyShot => 14,
                Code::CannotAct => 15,
                Code::BadBestMove => 16,
                Code::NotInRuleSet => 17,
                Code::NothingToUndo => 18,
                Code::NoSheriffCheckOnNight0 => 19,
                Code::NoFoulAfterResult => 20,
            }
        }
        fn topic_position(t: Topic) -> usize {
            match t {
                Topic::General => 0,
                Topic::Speech => 1,
                Topic::Nomination => 2,
                Topic::Vote => 3,
                Topic::Lift => 4,
                Topic::LastWords => 5,
                Topic::Shooting => 6,
                Topic::DonCheck => 7,
                Topic::SheriffCheck => 8,
                Topic::BeautyPick => 9,
                Topic::BestMove => 10,
            }
        }
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(code_position(*c), i, "{c}");
        }
        for (i, t) in Topic::ALL.iter().enumerate() {
            assert_eq!(topic_position(*t), i, "{t:?}");
        }
    }
}
