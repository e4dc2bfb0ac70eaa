//! ours → mafiaratings → ours on simulated games of every rule set: the
//! game comes back with the same players, rules, outcome, departures,
//! fouls and best move, and exports to the same mafiaratings JSON; what
//! changes is only what docs/interchange.md lists.

use mafia_interchange::mafiaratings::{self, export::Exported};
use mafia_interchange::SourceError;
use mafia_record::{CommandLine, GameId, Header, Record};
use mafia_rules::{Command, RuleSetId};
use rand::SeedableRng;

/// Games per rule set; `MAFIA_ROUND_TRIP_GAMES` runs more.
fn games_per_rule_set() -> u64 {
    std::env::var("MAFIA_ROUND_TRIP_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400)
}

fn simulated(id: RuleSetId, seed: u64) -> Record {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sim = mafia_rules::sim::simulate(id, &mut rng, 1_767_225_600_000);
    let gid: GameId = format!("cup.main.r1.t2.g{}", seed + 1).parse().unwrap();
    let mut header = Header::for_setup(&sim.setup, &gid);
    header.judge = "Judge Dredd".into();
    let commands = sim
        .commands
        .into_iter()
        .map(|(at, cmd)| CommandLine { at, cmd })
        .collect();
    Record::with_commands(header, commands).unwrap()
}

fn round_trip(original: &Record) -> (Exported, Result<Record, String>) {
    let exported = mafiaratings::export(original).unwrap();
    let text = serde_json::to_string_pretty(&exported.json).unwrap();
    let games = mafiaratings::import(&text, original.rules()).unwrap();
    assert_eq!(games.len(), 1);
    let back = match games.into_iter().next().unwrap().result {
        Ok(imp) => match imp.refusal {
            None => Ok(imp.record),
            Some(r) => Err(format!("refused: {r}")),
        },
        Err(e) => Err(format!("source error: {e}")),
    };
    (exported, back)
}

#[test]
fn games_of_every_rule_set_but_club_come_back_from_mafiaratings_as_they_were() {
    for id in RuleSetId::ALL {
        if id == RuleSetId::Club {
            continue;
        }
        for seed in 0..games_per_rule_set() {
            let original = simulated(id, seed);
            let (exported, back) = round_trip(&original);
            let back = back.unwrap_or_else(|e| {
                panic!(
                    "{id} seed {seed}: {e}\n{}\n{}",
                    original.to_jsonl(),
                    serde_json::to_string(&exported.json).unwrap()
                )
            });
            let (a, b) = (original.replay(), back.replay());
            assert!(b.violation.is_none());
            assert_eq!(b.game.summary(), a.game.summary(), "{id} seed {seed}");
            assert_eq!(
                back.setup().rules,
                original.setup().rules,
                "{id} seed {seed}"
            );
            assert_eq!(back.setup().roles(), original.setup().roles());
            let names = |r: &Record| -> Vec<String> {
                r.header()
                    .seats
                    .iter()
                    .map(|s| s.nickname.clone())
                    .collect()
            };
            assert_eq!(names(&back), names(&original));
            assert_eq!(back.header().judge, original.header().judge);
            assert_eq!(back.header().tournament, original.header().tournament);
            assert_eq!(
                (back.header().table, back.header().game),
                (original.header().table, original.header().game)
            );
            // Everything the site carries is the same the second time.
            let again = mafiaratings::export(&back).unwrap();
            assert_same_json(&again.json, &exported.json, &format!("{id} seed {seed}"));
            // The first and the last command keep their time, to the second.
            let secs = |r: &Record, last: bool| {
                let c = if last {
                    r.commands().last()
                } else {
                    r.commands().first()
                };
                c.unwrap().at.div_euclid(1000)
            };
            assert_eq!(secs(&back, false), secs(&original, false));
            if a.game.is_over() {
                assert_eq!(secs(&back, true), secs(&original, true));
            }
        }
    }
}

#[test]
fn a_round_trip_loses_only_commands_the_site_has_no_place_for() {
    // Commands of ours with no counterpart in the site's JSON; everything
    // else comes back one for one (possibly reordered within a turn).
    let lossy = |c: &Command| {
        matches!(
            c,
            Command::StartSpeech { .. }
                | Command::StartShooting
                | Command::Undo
                | Command::Penalty { .. }
                | Command::YellowCard { .. }
                | Command::Withdraw { .. }
        )
    };
    let kind = |c: &Command| {
        serde_json::to_value(c).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    for id in [
        RuleSetId::Rfm,
        RuleSetId::Classic,
        RuleSetId::Minsk2017,
        RuleSetId::Ua,
    ] {
        for seed in 0..20 {
            let original = simulated(id, seed);
            if original
                .commands()
                .iter()
                .any(|c| matches!(c.cmd, Command::Undo | Command::Withdraw { .. }))
            {
                continue; // an undone or withdrawn command changes the count
            }
            let (_, back) = round_trip(&original);
            let back = back.unwrap();
            let count = |r: &Record| {
                let mut m = std::collections::BTreeMap::<String, usize>::new();
                for c in r.commands().iter().filter(|c| !lossy(&c.cmd)) {
                    *m.entry(kind(&c.cmd)).or_default() += 1;
                }
                m
            };
            let mut want = count(&original);
            let got = count(&back);
            // A timed-out speech comes back ended: same count of end_speech.
            want.retain(|_, n| *n > 0);
            assert_eq!(got, want, "{id} seed {seed}");
        }
    }
}

#[test]
fn a_club_game_exports_with_its_losses_named_and_is_refused_back_for_its_beauty() {
    for seed in 0..10 {
        let original = simulated(RuleSetId::Club, seed);
        let (exported, back) = round_trip(&original);
        assert!(exported.losses.contains("the Beauty (exported as civ)"));
        let e = back.unwrap_err();
        assert!(e.contains("players") && e.contains("tray"), "{e}");
    }
    // The refusal is the source's: its path is the players' list.
    let original = simulated(RuleSetId::Club, 1);
    let text = serde_json::to_string(&mafiaratings::export(&original).unwrap().json).unwrap();
    let games = mafiaratings::import(&text, RuleSetId::Club).unwrap();
    match &games[0].result {
        Err(SourceError::Unsupported { path, .. }) => assert_eq!(path, "players"),
        other => panic!("{other:?}"),
    }
}

/// Equal JSON, or a panic naming the first player (or field) that differs.
fn assert_same_json(got: &serde_json::Value, want: &serde_json::Value, what: &str) {
    if got == want {
        return;
    }
    let (gp, wp) = (&got["players"], &want["players"]);
    for i in 0..10 {
        assert_eq!(gp[i], wp[i], "{what}: player {}", i + 1);
    }
    assert_eq!(got, want, "{what}");
}
