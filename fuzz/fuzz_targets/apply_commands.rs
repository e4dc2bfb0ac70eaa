//! Arbitrary commands against a game of any rule set: a violation leaves the
//! game unchanged, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mafia_rules::sim::default_players;
use mafia_rules::sim::command_from_bytes;
use mafia_rules::{Deal, Game, RuleSet, RuleSetId, Setup};

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let rules = RuleSetId::ALL[data[0] as usize % RuleSetId::ALL.len()];
    let seed = u64::from_le_bytes(data[1..9].try_into().unwrap());
    let setup = Setup::new(RuleSet::preset(rules), default_players(), Deal::Seed(seed)).unwrap();
    let (mut game, _) = Game::new(setup, 0);
    for (i, chunk) in data[9..].chunks_exact(3).enumerate() {
        let cmd = command_from_bytes(chunk[0], chunk[1], chunk[2]);
        let before = game.clone();
        if game.apply(&cmd, i as i64).is_err() {
            assert_eq!(game, before);
        }
    }
});
