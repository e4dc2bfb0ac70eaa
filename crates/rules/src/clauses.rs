//! Where each rule is written, per rule set. A clause is "<file prefix>
//! §<number>" of `shared/rules/sources/`; in `ua` (003) "§4.20" is section
//! 4, item 20. The unnumbered `club` rules (004) are cited by the heading of
//! their section: `004 "<heading>"`.

use crate::params::RuleSetId::{self, *};
use crate::violation::Code;

pub(crate) fn clause(code: Code, rules: RuleSetId) -> &'static str {
    match (code, rules) {
        (Code::GameOver, Rfm) => "000 §1.4",
        (Code::GameOver, Classic) => "001 §1.4",
        (Code::GameOver, Minsk2017) => "002 §1.4",
        (Code::GameOver, Ua) => "003 §1.9",
        (Code::GameOver, Club) => "004 \"ИСХОД ИГРЫ\"",

        (Code::WrongPhase, Rfm) => "000 §1.3",
        (Code::WrongPhase, Classic) => "001 §1.3",
        (Code::WrongPhase, Minsk2017) => "002 §1.3",
        (Code::WrongPhase, Ua) => "003 §1.6",
        (Code::WrongPhase, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Code::NotYourTurn, Rfm) => "000 §4.3.2",
        (Code::NotYourTurn, Classic) => "001 §3.3.2",
        (Code::NotYourTurn, Minsk2017) => "002 §4.3.2",
        (Code::NotYourTurn, Ua) => "003 §3.11",
        (Code::NotYourTurn, Club) => "004 \"Правила поведения «днем»\"",

        (Code::PlayerOut | Code::VoterOut, Rfm) => "000 §3.1",
        (Code::PlayerOut | Code::VoterOut, Classic) => "001 §2.1",
        (Code::PlayerOut | Code::VoterOut, Minsk2017) => "002 §3.1",
        (Code::PlayerOut | Code::VoterOut, Ua) => "003 §2.12",
        (Code::PlayerOut | Code::VoterOut, Club) => "004 \"Удаление из игры\"",

        (Code::NominationUsed, Rfm) => "000 §4.4.3",
        (Code::NominationUsed, Classic) => "001 §3.4.3",
        (Code::NominationUsed, Minsk2017) => "002 §4.4.4",
        (Code::NominationUsed, Ua) => "003 §4.3",

        (Code::AlreadyNominated | Code::SelfNomination, Rfm) => "000 §4.4.2",
        (Code::AlreadyNominated | Code::SelfNomination, Classic) => "001 §3.4.2",
        (Code::AlreadyNominated | Code::SelfNomination, Minsk2017) => "002 §4.4.2",
        (Code::AlreadyNominated | Code::SelfNomination, Ua) => "003 §4.2",

        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Rfm) => "000 §4.4.2",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Classic) => "001 §3.4.1",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Minsk2017) => "002 §4.4.3",
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Ua) => "003 §4.2",

        (
            Code::NominationUsed
            | Code::AlreadyNominated
            | Code::SelfNomination
            | Code::WithdrawalForbidden
            | Code::NothingToWithdraw
            | Code::WrongNominee
            | Code::LastNomineeAutomatic
            | Code::AlreadyVoted,
            Club,
        ) => "004 \"Правила дневного голосования\"",

        (Code::WrongNominee, Rfm) => "000 §4.4.4",
        (Code::WrongNominee, Classic) => "001 §3.4.4",
        (Code::WrongNominee, Minsk2017) => "002 §4.4.5",
        (Code::WrongNominee, Ua) => "003 §4.5",

        (Code::LastNomineeAutomatic, Rfm) => "000 §4.4.10",
        (Code::LastNomineeAutomatic, Classic) => "001 §3.4.8",
        (Code::LastNomineeAutomatic, Minsk2017) => "002 §4.4.9",
        (Code::LastNomineeAutomatic, Ua) => "003 §4.12",

        (Code::AlreadyVoted, Rfm) => "000 §4.4.9",
        (Code::AlreadyVoted, Classic) => "001 §3.4.7",
        (Code::AlreadyVoted, Minsk2017) => "002 §4.4.8",
        (Code::AlreadyVoted, Ua) => "003 §4.10",

        (Code::NotAShooter, Rfm) => "000 §4.5.3",
        (Code::NotAShooter, Classic) => "001 §3.5.3",
        (Code::NotAShooter, Minsk2017) => "002 §4.5.3",
        (Code::NotAShooter, Ua) => "003 §5.3",
        (Code::NotAShooter, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Code::AlreadyShot, Rfm) => "000 §4.5.5",
        (Code::AlreadyShot, Classic) => "001 §3.5.5",
        (Code::AlreadyShot, Minsk2017) => "002 §4.5.5",
        (Code::AlreadyShot, Ua) => "003 §5.5",
        (Code::AlreadyShot, Club) => "004 \"Правила поведения «ночью»\"",

        // Only club has a Beauty; elsewhere the card set has no such role.
        (Code::CannotAct, Rfm) => "000 §1.1",
        (Code::CannotAct, Classic) => "001 §1.1",
        (Code::CannotAct, Minsk2017) => "002 §1.1",
        (Code::CannotAct, Ua) => "003 §1.3",
        (Code::CannotAct, Club) => "004 \"НОЧЬ\"",

        (Code::BadBestMove, Rfm) => "000 §4.5.10",
        (Code::BadBestMove, Classic) => "001 §3.5.9",
        (Code::BadBestMove, Minsk2017) => "002 §8.3",
        (Code::BadBestMove, Ua) => "003 §5.12",
        (Code::BadBestMove, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Code::NotInRuleSet, Rfm) => "000 §5.4",
        (Code::NotInRuleSet, Classic) => "001 §5.3",
        (Code::NotInRuleSet, Minsk2017) => "002 §6.3",
        (Code::NotInRuleSet, Ua) => "003 §7.1",
        (Code::NotInRuleSet, Club) => "004 \"Игрок во время игры получает фол (предупреждение)\"",

        // "An exception is the first game night" / "the Sheriff waking on the
        // first night is forbidden"; classic and minsk2017 give night 0 to
        // the Sheriff's look or sign only; club's Commissar only shows his role.
        (Code::NoSheriffCheckOnNight0, Rfm) => "000 §4.5.9",
        (Code::NoSheriffCheckOnNight0, Classic) => "001 §3.2.3",
        (Code::NoSheriffCheckOnNight0, Minsk2017) => "002 §4.2.4",
        (Code::NoSheriffCheckOnNight0, Ua) => "003 §3.7",
        (Code::NoSheriffCheckOnNight0, Club) => "004 \"НОЧЬ\"",

        // Only rfm refuses a foul after the result; the others accept it
        // and cite where the result stands.
        (Code::NoFoulAfterResult, Rfm) => "000 §5.14",
        (Code::NoFoulAfterResult, Classic) => "001 §6.9",
        (Code::NoFoulAfterResult, Minsk2017) => "002 §1.4",
        (Code::NoFoulAfterResult, Ua) => "003 §1.9",
        (Code::NoFoulAfterResult, Club) => "004 \"ИСХОД ИГРЫ\"",

        (Code::NothingToUndo, Rfm) => "000 §7.1.2",
        (Code::NothingToUndo, Classic) => "001 §1.2",
        (Code::NothingToUndo, Minsk2017) => "002 §1.2",
        (Code::NothingToUndo, Ua) => "003 §1.2",
        (Code::NothingToUndo, Club) => "004 \"Правила подачи и принятия протеста\"",
    }
}
