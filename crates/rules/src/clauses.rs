//! Where each rule is written, per rule set. A clause is "<file prefix>
//! §<number>" of `shared/rules/sources/`; in `ua` (003) "§4.20" is section
//! 4, item 20. The unnumbered `club` rules (004) are cited by the heading of
//! their section: `004 "<heading>"`.

use crate::params::RuleSetId::{self, *};
use crate::violation::{Code, Topic};

impl Code {
    /// The clause of the rule set's source that the code enforces.
    pub fn clause(self, rules: RuleSetId) -> &'static str {
        self.clause_on(Topic::General, rules)
    }

    /// The clause for the code refused about `topic`: a command out of its
    /// step cites the clause of the step it belongs to.
    pub fn clause_on(self, topic: Topic, rules: RuleSetId) -> &'static str {
        clause(self, topic, rules)
    }
}

fn clause(code: Code, topic: Topic, rules: RuleSetId) -> &'static str {
    let specific = match code {
        Code::WrongPhase => step_clause(topic, rules),
        // Out of turn in a nomination ("nominating outside one's minute is
        // forbidden", rfm §4.4.2), in last words, or in club's roll call
        // ("the vote starts with player 1 …"): that step's clause. A speech
        // out of turn keeps the speaking order.
        Code::NotYourTurn if matches!(topic, Topic::Nomination | Topic::LastWords) => {
            step_clause(topic, rules)
        }
        Code::NotYourTurn if topic == Topic::Vote && rules == Club => step_clause(topic, rules),
        // club has no nominations: its players decide whether to vote at all.
        Code::NotInRuleSet if topic == Topic::Nomination && rules == Club => {
            Some("004 \"Правила дневного голосования\"")
        }
        _ => None,
    };
    specific.unwrap_or_else(|| code_clause(code, rules))
}

/// The clause of the step a command belongs to, for one given out of it.
fn step_clause(topic: Topic, rules: RuleSetId) -> Option<&'static str> {
    Some(match (topic, rules) {
        (Topic::General, _) => return None,

        // "The judge announces the day … each player has one minute."
        (Topic::Speech, Rfm) => "000 §4.3.1",
        (Topic::Speech, Classic) => "001 §3.3.1",
        (Topic::Speech, Minsk2017) => "002 §4.3.1",
        (Topic::Speech, Ua) => "003 §3.10",
        (Topic::Speech, Club) => "004 \"Правила поведения «днем»\"",

        // "During his minute a player may nominate any player."
        (Topic::Nomination, Rfm) => "000 §4.4.2",
        (Topic::Nomination, Classic) => "001 §3.4.2",
        (Topic::Nomination, Minsk2017) => "002 §4.4.2",
        (Topic::Nomination, Ua) => "003 §4.2",
        (Topic::Nomination, Club) => "004 \"Правила дневного голосования\"",

        // "After the day's discussion the vote is held."
        (Topic::Vote, Rfm) => "000 §4.4.1",
        (Topic::Vote, Classic) => "001 §3.4.1",
        (Topic::Vote, Minsk2017) => "002 §4.4.1",
        (Topic::Vote, Ua) => "003 §4.1",
        (Topic::Vote, Club) => "004 \"Правила дневного голосования\"",

        // A tie among the same nominees again: the lift question.
        (Topic::Lift, Rfm) => "000 §4.4.13.3",
        (Topic::Lift, Classic) => "001 §3.4.12.3",
        (Topic::Lift, Minsk2017) => "002 §4.4.13",
        (Topic::Lift, Ua) => "003 §4.18",
        (Topic::Lift, Club) => "004 \"Голосование\"",

        // "The player who left has a last word of one minute."
        (Topic::LastWords, Rfm) => "000 §4.4.14",
        (Topic::LastWords, Classic) => "001 §3.4.13",
        (Topic::LastWords, Minsk2017) => "002 §4.4.14",
        (Topic::LastWords, Ua) => "003 §4.19",
        (Topic::LastWords, Club) => "004 \"Голосование\"",

        // "In this and the following nights the mafia may shoot."
        (Topic::Shooting, Rfm) => "000 §4.5.2",
        (Topic::Shooting, Classic) => "001 §3.5.2",
        (Topic::Shooting, Minsk2017) => "002 §4.5.2",
        (Topic::Shooting, Ua) => "003 §5.2",
        (Topic::Shooting, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Topic::DonCheck, Rfm) => "000 §4.5.7",
        (Topic::DonCheck, Classic) => "001 §3.5.6",
        (Topic::DonCheck, Minsk2017) => "002 §4.5.6",
        (Topic::DonCheck, Ua) => "003 §5.7",
        (Topic::DonCheck, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Topic::SheriffCheck, Rfm) => "000 §4.5.8",
        (Topic::SheriffCheck, Classic) => "001 §3.5.7",
        (Topic::SheriffCheck, Minsk2017) => "002 §4.5.7",
        (Topic::SheriffCheck, Ua) => "003 §5.8",
        (Topic::SheriffCheck, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        // Only club's card set has a Beauty.
        (Topic::BeautyPick, Club) => "004 \"НОЧЬ\"",
        (Topic::BeautyPick, _) => code_clause(Code::CannotAct, rules),

        // "The player killed in the second night may leave a best move."
        (Topic::BestMove, Rfm) => "000 §4.5.10",
        (Topic::BestMove, Classic) => "001 §3.5.9",
        (Topic::BestMove, Minsk2017) => "002 §8.3",
        (Topic::BestMove, Ua) => "003 §5.11",
        (Topic::BestMove, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",
    })
}

fn code_clause(code: Code, rules: RuleSetId) -> &'static str {
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
        (Code::WrongPhase, Club) => "004 \"Общие правила проведения игр Турнира\"",

        (Code::NotYourTurn, Rfm) => "000 §4.3.2",
        (Code::NotYourTurn, Classic) => "001 §3.3.2",
        (Code::NotYourTurn, Minsk2017) => "002 §4.3.2",
        (Code::NotYourTurn, Ua) => "003 §3.11",
        // "The discussion opens with player 1 and goes round."
        (Code::NotYourTurn, Club) => "004 \"ПЕРВЫЙ ДЕНЬ\"",

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
        // classic is silent on withdrawal: an accepted nomination stands.
        (Code::WithdrawalForbidden | Code::NothingToWithdraw, Classic) => "001 §3.4.2",
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

        // "Accepted only as three numbers without any other words."
        (Code::BadBestMove, Rfm) => "000 §6.6.6",
        (Code::BadBestMove, Classic) => "001 §3.5.9",
        (Code::BadBestMove, Minsk2017) => "002 §8.3",
        (Code::BadBestMove, Ua) => "003 §5.12",
        (Code::BadBestMove, Club) => "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",

        (Code::NotInRuleSet, Rfm) => "000 §5.4",
        (Code::NotInRuleSet, Classic) => "001 §5.3",
        (Code::NotInRuleSet, Minsk2017) => "002 §6.3",
        // ua's sanctions are fouls (§6), technical fouls (§7), removal (§8)
        // and ППК (§9): no penalty points, the only sanction refused there.
        (Code::NotInRuleSet, Ua) => "003 §6",
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
        (Code::NoFoulAfterResult, Minsk2017) => "002 §8.2.5",
        (Code::NoFoulAfterResult, Ua) => "003 §1.9",
        (Code::NoFoulAfterResult, Club) => "004 \"ИСХОД ИГРЫ\"",

        (Code::NothingToUndo, Rfm) => "000 §7.1.2",
        (Code::NothingToUndo, Classic) => "001 §1.2",
        (Code::NothingToUndo, Minsk2017) => "002 §1.2",
        (Code::NothingToUndo, Ua) => "003 §1.2",
        (Code::NothingToUndo, Club) => "004 \"Правила подачи и принятия протеста\"",
    }
}
