//! Any text given to the mafiaratings and Polemica importers: an error or
//! games, never a panic; every record they give replays without a
//! violation (a refused command is reported, never written), and a clean
//! mafiaratings import exports again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mafia_interchange::{mafiaratings, polemica};
use mafia_rules::RuleSetId;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let base = RuleSetId::ALL[(pick >> 1) as usize % RuleSetId::ALL.len()];
    let games = if pick & 1 == 0 {
        mafiaratings::import(text, base)
    } else {
        polemica::import(text, base)
    };
    for g in games.into_iter().flatten() {
        if let Ok(imp) = g.result {
            assert!(imp.record.replay().violation.is_none());
            if imp.refusal.is_none() {
                let _ = mafiaratings::export(&imp.record);
            }
        }
    }
});
