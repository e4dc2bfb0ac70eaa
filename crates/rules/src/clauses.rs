//! Where each rule is written, per rule set. A clause is "<file prefix>
//! §<number>" of `shared/rules/sources/`; "text" marks the unnumbered `club`
//! rules.

use crate::params::RuleSetId::{self, *};
use crate::violation::Code;

pub(crate) fn clause(code: Code, rules: RuleSetId) -> &'static str {
    match (code, rules) {
        (Code::GameOver, Rfm) => "000 §1.4",
        (Code::GameOver, Classic) => "001 §1.4",
        (Code::GameOver, Minsk2017) => "002 §1.4",
        (Code::GameOver, Ua) => "003 §1.7",
        (Code::GameOver, Club) => "004 text (end of game)",

        (Code::WrongPhase | Code::NotYourTurn, Rfm) => "000 §1.3",
        (Code::WrongPhase | Code::NotYourTurn, Classic) => "001 §3.3.2",
        (Code::WrongPhase | Code::NotYourTurn, Minsk2017) => "002 §4.3",
        (Code::WrongPhase | Code::NotYourTurn, Ua) => "003 §1.6",
        (Code::WrongPhase | Code::NotYourTurn, Club) => "004 text (order of the game)",

        (Code::PlayerOut, Rfm) => "000 §4.4.5",
        (Code::PlayerOut, Classic) => "001 §3.4.13",
        (Code::PlayerOut, Minsk2017) => "002 §4.4",
        (Code::PlayerOut, Ua) => "003 §4.1",
        (Code::PlayerOut, Club) => "004 text (day)",

        (Code::NominationUsed | Code::AlreadyNominated | Code::SelfNomination, Rfm) => "000 §4.4.2",
        (Code::NominationUsed | Code::AlreadyNominated | Code::SelfNomination, Classic) => {
            "001 §3.4.1"
        }
        (Code::NominationUsed | Code::AlreadyNominated | Code::SelfNomination, Minsk2017) => {
            "002 §4.4.1"
        }
        (Code::NominationUsed | Code::AlreadyNominated | Code::SelfNomination, Ua) => "003 §4.2",
        (Code::NominationUsed | Code::AlreadyNominated | Code::SelfNomination, Club) => {
            "004 text (nominations)"
        }

        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Rfm) => "000 §4.4.2",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Classic) => "001 §3.4.1",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Minsk2017) => "002 §4.4.3",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Ua) => "003 §4.2",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Club) => "004 text (nominations)",

        (Code::WrongNominee | Code::LastNomineeAutomatic, Rfm) => "000 §4.4.7",
        (Code::WrongNominee | Code::LastNomineeAutomatic, Classic) => "001 §3.4.4",
        (Code::WrongNominee | Code::LastNomineeAutomatic, Minsk2017) => "002 §4.5",
        (Code::WrongNominee | Code::LastNomineeAutomatic, Ua) => "003 §4.5",
        (Code::WrongNominee | Code::LastNomineeAutomatic, Club) => "004 text (voting)",

        (Code::AlreadyVoted | Code::VoterOut, Rfm) => "000 §4.4.8",
        (Code::AlreadyVoted | Code::VoterOut, Classic) => "001 §3.4.8",
        (Code::AlreadyVoted | Code::VoterOut, Minsk2017) => "002 §4.6",
        (Code::AlreadyVoted | Code::VoterOut, Ua) => "003 §4.6",
        (Code::AlreadyVoted | Code::VoterOut, Club) => "004 text (voting)",

        (Code::NotAShooter | Code::AlreadyShot, Rfm) => "000 §4.5.3",
        (Code::NotAShooter | Code::AlreadyShot, Classic) => "001 §3.5.4",
        (Code::NotAShooter | Code::AlreadyShot, Minsk2017) => "002 §5.3",
        (Code::NotAShooter | Code::AlreadyShot, Ua) => "003 §5.3",
        (Code::NotAShooter | Code::AlreadyShot, Club) => "004 text (night)",

        (Code::CannotAct, _) => "004 text (Beauty)",

        (Code::BadBestMove, Rfm) => "000 §4.5.10",
        (Code::BadBestMove, Classic) => "001 §3.5.9",
        (Code::BadBestMove, Minsk2017) => "002 §8.3",
        (Code::BadBestMove, Ua) => "003 §5.11",
        (Code::BadBestMove, Club) => "004 text (night)",

        (Code::NotInRuleSet, Rfm) => "000 §5",
        (Code::NotInRuleSet, Classic) => "001 §5",
        (Code::NotInRuleSet, Minsk2017) => "002 §6",
        (Code::NotInRuleSet, Ua) => "003 §7",
        (Code::NotInRuleSet, Club) => "004 text (fouls)",

        (Code::NothingToUndo, Rfm) => "000 §7.1.2",
        (Code::NothingToUndo, Classic) => "001 §1.2",
        (Code::NothingToUndo, Minsk2017) => "002 §1.2",
        (Code::NothingToUndo, Ua) => "003 §1.2",
        (Code::NothingToUndo, Club) => "004 text (judge)",
    }
}
