//! The parsers never panic, whatever they are given: random bytes, random
//! JSON, and sample files with values replaced at random. Each answer is an
//! error, a refusal, or a record the engine replays without a violation.

use mafia_interchange::mafiaratings::import::GameImport;
use mafia_interchange::{mafiaratings, polemica};
use mafia_rules::RuleSetId;
use proptest::prelude::*;
use serde_json::Value;

fn sample(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/samples")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every import either fails, or gives records that replay cleanly up to
/// the refusal (a refused command is never in the record).
fn check(games: Result<Vec<GameImport>, mafia_interchange::SourceError>) {
    for g in games.into_iter().flatten() {
        if let Ok(imp) = g.result {
            let out = imp.record.replay();
            assert!(out.violation.is_none(), "{}: {:?}", g.path, out.violation);
        }
    }
}

fn both(text: &str) {
    for path in [
        "",
        "games[1].players[3].voting[1]",
        "[0].players",
        "players[9].death.time",
        "a[x]",
    ] {
        let _ = mafia_interchange::json::line_of(text, path);
    }
    for base in [RuleSetId::Classic, RuleSetId::Rfm, RuleSetId::Club] {
        check(mafiaratings::import(text, base));
        check(polemica::import(text, base));
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..40).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
        prop_oneof![
            Just("civ"),
            Just("maf"),
            Just("don"),
            Just("sheriff"),
            Just("speaking"),
            Just("voting")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 10, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("players".to_string()),
                    Just("voting".to_string()),
                    Just("nominating".to_string()),
                    Just("shooting".to_string()),
                    Just("death".to_string()),
                    Just("warnings".to_string()),
                    Just("round".to_string()),
                    Just("time".to_string()),
                    Just("votes".to_string()),
                    Just("shots".to_string()),
                    Just("startTime".to_string()),
                    Just("started".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Replaces the value at the `pick`th node (pre-order) with `new`.
fn mutate(v: &mut Value, pick: &mut usize, new: &Value) {
    if *pick == 0 {
        *v = new.clone();
        *pick = usize::MAX;
        return;
    }
    *pick -= 1;
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| mutate(x, pick, new)),
        Value::Object(o) => o.values_mut().for_each(|x| mutate(x, pick, new)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_the_parsers(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        both(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_json_never_panics_the_parsers(v in any_json()) {
        both(&v.to_string());
    }

    #[test]
    fn sample_files_with_a_value_replaced_never_panic_the_parsers(
        which in 0usize..3,
        pick in 0usize..400,
        new in any_json(),
    ) {
        let mut v = sample(["mafiaratings-game.json", "mafiaratings-games.json", "polemica-game.json"][which]);
        let mut p = pick;
        mutate(&mut v, &mut p, &new);
        both(&v.to_string());
    }
}
