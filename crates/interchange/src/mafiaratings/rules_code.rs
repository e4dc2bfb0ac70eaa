//! mafiaratings' 13-digit rules code (its `include/rules.php`): one digit per
//! rules option, mapped to the engine's parameters. Digits with no
//! parameter behind them are listed in docs/interchange.md.

use mafia_rules::params::{BestMoveAt, LiftBan, ThirdFoul};
use mafia_rules::{Params, RuleSet, RuleSetId};

/// The site's default code: rotation first, no on-record, no withdrawal,
/// standard first-day voting, same split order, no kill-all, splits on four
/// and nine allowed, no legacy, game-end speech, three fouls lose the
/// speech, no technical fouls.
pub const DEFAULT_CODE: &str = "0002000010000";

pub const LEN: usize = 13;

/// Each digit's name in the site's code, for messages.
pub const NAMES: [&str; LEN] = [
    "rotation",
    "onRecord",
    "onRecordCount",
    "withdraw",
    "firstVoting",
    "splitOrder",
    "killAll",
    "splitOnFour",
    "splitOnNine",
    "legacy",
    "gameEndSpeech",
    "threeFouls",
    "techFouls",
];

const ROTATION: usize = 0;
const WITHDRAW: usize = 3;
const FIRST_VOTING: usize = 4;
const SPLIT_ORDER: usize = 5;
const KILL_ALL: usize = 6;
const SPLIT_ON_FOUR: usize = 7;
const SPLIT_ON_NINE: usize = 8;
const LEGACY: usize = 9;
const THREE_FOULS: usize = 11;
const TECH_FOULS: usize = 12;

fn has_ban(p: &Params, tied: u8, living: u8, before_day: Option<u8>) -> bool {
    p.lift
        .bans
        .iter()
        .any(|b| b.tied == tied && b.living == living && b.before_day == before_day)
}

/// The code that describes `p` as closely as the site can. What it cannot
/// say (docs/interchange.md) is left at the site's default digit.
pub fn to_code(p: &Params) -> String {
    let mut d = [0u8; LEN];
    // The engine opens each day with the next living player after the
    // previous opener: the site's "first" rotation (digit 0).
    d[ROTATION] = 0;
    d[WITHDRAW] = if p.nominations.withdrawal { 0 } else { 2 };
    d[FIRST_VOTING] = 0;
    d[SPLIT_ORDER] = 0;
    d[KILL_ALL] = u8::from(p.lift.all_players_draw);
    d[SPLIT_ON_FOUR] = u8::from(has_ban(p, 2, 4, None));
    d[SPLIT_ON_NINE] = if has_ban(p, 3, 9, None) {
        1
    } else if has_ban(p, 3, 9, Some(3)) {
        2
    } else {
        0
    };
    d[LEGACY] = u8::from(p.best_move.at == BestMoveAt::Never);
    d[THREE_FOULS] = match p.fouls.third_foul {
        ThirdFoul::LoseSpeech => 0,
        ThirdFoul::ShortSpeech => 1,
    };
    d[TECH_FOULS] = u8::from(p.fouls.technical_remove_at.is_some());
    d.iter().map(|x| char::from(b'0' + x)).collect()
}

/// Why a code cannot be read: the digit (0-based) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("digit {} ({}): {message}", .digit + 1, NAMES.get(*.digit).copied().unwrap_or("?"))]
pub struct CodeError {
    pub digit: usize,
    pub message: String,
}

fn bad(digit: usize, message: impl Into<String>) -> CodeError {
    CodeError {
        digit,
        message: message.into(),
    }
}

/// The rule set a code means, starting from the preset `base`: a digit the
/// preset already means changes nothing (so a preset's own code gives the
/// preset back); any other digit overrides the parameter behind it, or is
/// an error when the engine has none.
pub fn from_code(code: &str, base: RuleSetId) -> Result<RuleSet, CodeError> {
    let code = upgrade(code);
    if code.len() != LEN || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(
            0,
            format!("a rules code is {LEN} digits, got {code:?}"),
        ));
    }
    let mut rs = RuleSet::preset(base);
    let own: Vec<u8> = to_code(&rs.params).bytes().map(|b| b - b'0').collect();
    let p = &mut rs.params;
    for (i, b) in code.bytes().enumerate() {
        let v = b - b'0';
        if v == own[i] {
            continue;
        }
        match i {
            ROTATION => {
                return Err(bad(i, "the engine opens each day after the previous opener (\"first\"); \"last\" rotation has no parameter"))
            }
            // On-record colours are not recorded by the engine: no effect
            // on what is replayed.
            1 | 2 => {}
            WITHDRAW => match v {
                0 | 1 => p.nominations.withdrawal = true,
                2 => p.nominations.withdrawal = false,
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            FIRST_VOTING => {
                return Err(bad(i, format!("first-day voting variant {v} has no parameter (only \"standard\")")))
            }
            SPLIT_ORDER => {
                return Err(bad(i, "re-votes in reverse order have no parameter"))
            }
            KILL_ALL => match v {
                0 | 1 => p.lift.all_players_draw = v == 1,
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            SPLIT_ON_FOUR => match v {
                0 => p.lift.bans.retain(|b| !(b.tied == 2 && b.living == 4)),
                1 => p.lift.bans.push(LiftBan {
                    tied: 2,
                    living: 4,
                    before_day: None,
                }),
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            SPLIT_ON_NINE => {
                p.lift.bans.retain(|b| !(b.tied == 3 && b.living == 9));
                match v {
                    0 => {}
                    1 | 2 => p.lift.bans.push(LiftBan {
                        tied: 3,
                        living: 9,
                        before_day: (v == 2).then_some(3),
                    }),
                    _ => return Err(bad(i, format!("unknown value {v}"))),
                }
            }
            LEGACY => match v {
                0 => p.best_move.at = BestMoveAt::Night,
                1 => p.best_move.at = BestMoveAt::Never,
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            // The engine always gives the final last words; without them
            // the record only has one more `end_last_words`.
            10 => {}
            THREE_FOULS => match v {
                0 => p.fouls.third_foul = ThirdFoul::LoseSpeech,
                1 => p.fouls.third_foul = ThirdFoul::ShortSpeech,
                2 => return Err(bad(i, "a third foul without penalty has no parameter")),
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            TECH_FOULS => match v {
                0 => p.fouls.technical_remove_at = None,
                1 => p.fouls.technical_remove_at = Some(2),
                _ => return Err(bad(i, format!("unknown value {v}"))),
            },
            _ => unreachable!("the code has {LEN} digits"),
        }
    }
    Ok(rs)
}

/// Older codes (29 and 12 digits) brought to 13, as the site upgrades them.
fn upgrade(code: &str) -> String {
    if !code.is_ascii() {
        return code.to_string();
    }
    let mut c = code.to_string();
    if c.len() == 29 {
        c.truncate(20);
        c = format!("{}{}", &c[..17], &c[19..]);
        c = format!("{}{}", &c[..12], &c[15..]);
        c = format!("{}{}", &c[..9], &c[10..]);
        c = format!("{}{}", &c[..6], &c[8..]);
        c = format!("{}{}", &c[..4], &c[5..]);
        c = format!("{}{}", &c[..1], &c[3..]);
        c = format!("{}00{}", &c[..2], &c[2..]);
        c = format!("{}0{}", &c[..6], &c[6..]);
        c = format!("{}0{}", &c[..9], &c[9..]);
    }
    if c.len() == 12 {
        c = format!("{}00{}", &c[..11], &c[11..]);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_reads_back_from_its_own_code() {
        for id in RuleSetId::ALL {
            let rs = RuleSet::preset(id);
            let code = to_code(&rs.params);
            assert_eq!(code.len(), LEN);
            assert_eq!(from_code(&code, id).unwrap(), rs, "{id}: {code}");
        }
    }

    #[test]
    fn a_code_overrides_what_differs_from_the_base_preset() {
        // classic with withdrawal, kill-all draw, technical fouls, short speech.
        let rs = from_code("0000001001011", RuleSetId::Classic).unwrap();
        assert!(rs.params.nominations.withdrawal);
        assert!(rs.params.lift.all_players_draw);
        assert_eq!(rs.params.fouls.third_foul, ThirdFoul::ShortSpeech);
        assert_eq!(rs.params.fouls.technical_remove_at, Some(2));
        assert_eq!(rs.params.best_move.at, BestMoveAt::Never);
        assert_eq!(to_code(&rs.params), "0000001001011");
    }

    #[test]
    fn digits_the_engine_has_no_parameter_for_are_named() {
        let e = from_code("0002100010000", RuleSetId::Classic).unwrap_err();
        assert_eq!(e.digit, 4);
        assert!(e.to_string().contains("firstVoting"), "{e}");
        assert!(from_code("12345", RuleSetId::Classic).is_err());
        assert!(from_code("000200001000x", RuleSetId::Classic).is_err());
    }
}
