//! `mafia state FILE [--at LINE] [--audience …] [--json]` end to end: the
//! engine's view of a record after any line, for each audience (issue 13 §6).

mod common;

use common::{mafia, stderr, stdout};
use mafia_record::{Header, Record};
use mafia_rules::sim::simulate;
use mafia_rules::{Audience, RuleSetId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

fn write_simulated(dir: &std::path::Path, rules: RuleSetId) -> (Record, String) {
    let sim = simulate(rules, &mut ChaCha8Rng::seed_from_u64(3), 1_767_225_600_000);
    let mut record = Record::new(Header::for_setup(
        &sim.setup,
        &"sim.main.r1.t1.g1".parse().unwrap(),
    ))
    .unwrap();
    for (at, cmd) in &sim.commands {
        record.push(*at, cmd.clone());
    }
    let path = dir.join(format!("{rules}.jsonl"));
    std::fs::write(&path, record.to_jsonl()).unwrap();
    (record, path.display().to_string())
}

#[test]
fn state_at_a_line_is_the_engines_view_for_each_audience_in_every_rule_set() {
    let dir = tempfile::tempdir().unwrap();
    for rules in RuleSetId::ALL {
        let (record, path) = write_simulated(dir.path(), rules);
        let lines = record.commands().len() + 1;
        for line in [1, 2, lines / 2, lines] {
            let cut = Record::with_commands(
                record.header().clone(),
                record.commands()[..line - 1].to_vec(),
            )
            .unwrap();
            let game = cut.replay().game;
            for (name, audience) in [
                ("public", Audience::Public),
                ("broadcast", Audience::Broadcast),
                ("judge", Audience::Judge),
            ] {
                let o = mafia(
                    dir.path(),
                    &[
                        "state",
                        &path,
                        "--at",
                        &line.to_string(),
                        "--audience",
                        name,
                        "--json",
                    ],
                );
                assert!(o.status.success(), "{}", stderr(&o));
                let got: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
                let want = serde_json::to_value(game.view(audience)).unwrap();
                assert_eq!(got, want, "{rules} line {line} {name}");
            }
        }
    }
}

#[test]
fn state_text_shows_living_seats_and_what_comes_next_to_the_judge_only() {
    let dir = tempfile::tempdir().unwrap();
    let (_, path) = write_simulated(dir.path(), RuleSetId::Classic);
    let o = mafia(dir.path(), &["state", &path, "--at", "20"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("after line 20 (Judge)"), "{text}");
    assert!(text.contains("\nliving: "), "{text}");
    assert!(text.contains("\nnext: "), "{text}");
    let o = mafia(
        dir.path(),
        &["state", &path, "--at", "20", "--audience", "public"],
    );
    assert!(!stdout(&o).contains("\nnext: "));
}

#[test]
fn state_of_a_record_that_breaks_before_the_line_shows_the_state_before_it_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = write_simulated(dir.path(), RuleSetId::Ua);
    let mut text = record.to_jsonl();
    // Undo with nothing to undo right after the header's deal: refused.
    let header_end = text.find('\n').unwrap() + 1;
    text.insert_str(
        header_end,
        "{\"at\":1767225600000,\"cmd\":{\"type\":\"undo\"}}\n",
    );
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, text).unwrap();
    let p = path.display().to_string();
    let o = mafia(dir.path(), &["state", &p, "--at", "5", "--json"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("state shown before it"),
        "{}",
        stderr(&o)
    );
    let got: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(got["day"], 0);
}
