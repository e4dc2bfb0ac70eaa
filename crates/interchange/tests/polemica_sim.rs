//! Simulated games of every rule set but club written in Polemica's form
//! (by a writer in this test: the crate has no Polemica export) import back
//! to the same game: the same summary. Games the form cannot hold are left
//! out: draws (Polemica has no draw result), opposite-team victories, and
//! sanctions during the votes (its stage does not say whose hands were
//! being counted: docs/interchange.md).

use mafia_interchange::{mafiaratings, polemica};
use mafia_record::{CommandLine, GameId, Header, Record};
use mafia_rules::RuleSetId;
use rand::SeedableRng;
use serde_json::{json, Value};

fn simulated(id: RuleSetId, seed: u64) -> Record {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sim = mafia_rules::sim::simulate(id, &mut rng, 1_767_225_600_000);
    let gid: GameId = format!("cup.main.r1.t1.g{}", seed + 1).parse().unwrap();
    let commands = sim
        .commands
        .into_iter()
        .map(|(at, cmd)| CommandLine { at, cmd })
        .collect();
    Record::with_commands(Header::for_setup(&sim.setup, &gid), commands).unwrap()
}

/// A mafiaratings game time as a Polemica stage.
fn stage(t: &Value) -> Value {
    let r = t["round"].as_u64().unwrap();
    let speaker = &t["speaker"];
    match t["time"].as_str().unwrap() {
        "speaking" => json!({"type": "speech", "day": r + 1, "player": speaker}),
        "voting" if !speaker.is_null() => {
            json!({"type": "reSpeech", "day": r + 1, "player": speaker})
        }
        "voting" => json!({"type": "voting", "day": r + 1}),
        "voting kill all" => json!({"type": "lift", "day": r + 1}),
        "night kill speaking" => json!({"type": "shooted", "day": r, "player": speaker}),
        "day kill speaking" => json!({"type": "voted", "day": r + 1, "player": speaker}),
        "shooting" if r > 0 => json!({"type": "shooting", "day": r}),
        "don" if r > 0 => json!({"type": "donCheck", "day": r}),
        "sheriff" if r > 0 => json!({"type": "comCheck", "day": r}),
        "night end" => json!({"type": "guess", "day": r}),
        "end" => json!({"type": "gameOver", "day": r + 1}),
        _ => json!({"type": "dealing", "day": 0}),
    }
}

/// The game in Polemica's form, or `None` when the form cannot hold it.
fn to_polemica(mr: &Value) -> Option<Value> {
    let result = match mr["winner"].as_str()? {
        "civ" => 0,
        "maf" => 1,
        _ => return None,
    };
    let (mut votes, mut shots, mut checks, mut players) = (vec![], vec![], vec![], vec![]);
    for (i, p) in mr["players"].as_array().unwrap().iter().enumerate() {
        let me = i + 1;
        let role = match p["role"].as_str().unwrap() {
            "don" => 0,
            "maf" => 1,
            "sheriff" => 3,
            _ => 2,
        };
        let times = |k: &str| -> Vec<Value> {
            p[k].as_array().map_or(vec![], |a| {
                a.iter().map(|t| json!({"stage": stage(t)})).collect()
            })
        };
        let mut player = json!({"position": me, "username": p["name"], "role": role,
            "fouls": times("warnings"), "techs": times("techFouls")});
        match p["death"]["type"].as_str() {
            Some("teamKickOut") => return None,
            Some("kickOut") => player["disqual"] = stage(&p["death"]["time"]),
            _ => {}
        }
        if let Some(l) = p.get("legacy") {
            player["guess"] = json!({"mafs": l});
        }
        players.push(player);
        for (r, t) in p["nominating"].as_array().into_iter().flatten().enumerate() {
            if !t.is_null() {
                votes.push(json!({"day": r + 1, "num": 0, "voter": me, "candidate": t}));
            }
        }
        for (r, v) in p["voting"].as_array().into_iter().flatten().enumerate() {
            let list = match v {
                Value::Array(a) => a.clone(),
                Value::Null => continue,
                x => vec![x.clone()],
            };
            for (k, x) in list.iter().enumerate() {
                match x {
                    Value::Bool(up) => votes.push(json!({"day": r + 1, "num": null, "voter": me,
                        "candidate": if *up { json!(1) } else { Value::Null }})),
                    Value::Null => {}
                    t => {
                        votes.push(json!({"day": r + 1, "num": k + 1, "voter": me, "candidate": t}))
                    }
                }
            }
        }
        for (n, t) in p["shooting"].as_array().into_iter().flatten().enumerate() {
            shots.push(json!({"night": n + 1, "shooter": me, "victim": if t.is_null() { json!(0) } else { t.clone() }}));
        }
        for (k, role) in [("don", 0), ("sheriff", 3)] {
            if let Some(n) = p.get(k) {
                checks.push(json!({"night": n, "role": role, "player": me}));
            }
        }
    }
    let text = players.iter().map(|p| p.to_string()).collect::<String>();
    if text.contains(r#""type":"voting""#) {
        return None;
    }
    Some(
        json!({"num": mr["gameNum"], "table": mr["tableNum"], "started": "2026-01-01T00:00:00.000",
        "result": result, "players": players, "votes": votes, "shots": shots, "checks": checks}),
    )
}

#[test]
fn simulated_games_written_as_polemica_import_back_to_the_same_game() {
    for id in [
        RuleSetId::Rfm,
        RuleSetId::Classic,
        RuleSetId::Minsk2017,
        RuleSetId::Ua,
    ] {
        let mut tried = 0;
        for seed in 0..300 {
            let original = simulated(id, seed);
            let mr = mafiaratings::export(&original).unwrap().json;
            let Some(p) = to_polemica(&mr) else { continue };
            tried += 1;
            let games = polemica::import(&p.to_string(), id).unwrap();
            let imp = games
                .into_iter()
                .next()
                .unwrap()
                .result
                .unwrap_or_else(|e| panic!("{id} seed {seed}: {e}"));
            if let Some(r) = &imp.refusal {
                panic!("{id} seed {seed}: {r}\n{p}");
            }
            assert_eq!(
                imp.record.replay().game.summary(),
                original.replay().game.summary(),
                "{id} seed {seed}"
            );
        }
        eprintln!("{id}: {tried} games written as Polemica came back the same");
        assert!(
            tried >= 100,
            "{id}: only {tried} games could be written as Polemica"
        );
    }
}
