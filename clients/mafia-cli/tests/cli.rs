//! The `mafia` binary end to end: simulate, replay, protocol, demo.

mod common;

use common::{mafia, reports, stderr, stdout};
use mafia_record::{Header, Record};
use mafia_rules::sim::simulate;
use mafia_rules::RuleSetId;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

const GAMES: usize = 12;

fn simulate_into(dir: &Path, rules: RuleSetId, games: usize, seed: u64) {
    let o = mafia(
        dir,
        &[
            "simulate",
            "--rules",
            rules.as_str(),
            "--games",
            &games.to_string(),
            "--seed",
            &seed.to_string(),
            "--out",
            "out",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

fn record_path(dir: &Path, rules: RuleSetId, seed: u64, i: usize) -> String {
    dir.join("out")
        .join(format!("{rules}-{seed}-{i}.jsonl"))
        .display()
        .to_string()
}

#[test]
fn simulated_games_replay_without_violations_to_the_simulated_results() {
    let tmp = tempfile::tempdir().unwrap();
    for rules in RuleSetId::ALL {
        let seed = 42;
        simulate_into(tmp.path(), rules, GAMES, seed);
        let files: Vec<String> = (1..=GAMES)
            .map(|i| record_path(tmp.path(), rules, seed, i))
            .collect();
        let mut args = vec!["replay"];
        args.extend(files.iter().map(String::as_str));
        let o = mafia(tmp.path(), &args);
        assert!(o.status.success(), "{rules}: {}", stdout(&o));
        let got = reports(&o);
        assert_eq!(got.len(), GAMES);
        // The same RNG sequence the binary used, one RNG for the whole run.
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (i, report) in got.iter().enumerate() {
            let sim = simulate(rules, &mut rng, 0);
            let s = serde_json::to_value(sim.game.summary()).unwrap();
            assert_eq!(report["file"], files[i].as_str());
            assert_eq!(report["rules"], rules.as_str());
            assert_eq!(report["violation"], serde_json::Value::Null);
            for key in ["result", "reason", "departures", "fouls", "best_move"] {
                assert_eq!(report[key], s[key], "{rules} game {}: {key}", i + 1);
            }
        }
    }
}

#[test]
fn simulate_reports_its_result_counts_and_is_reproducible() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    simulate_into(a.path(), RuleSetId::Ua, 3, 9);
    let o = mafia(
        b.path(),
        &[
            "simulate", "--rules", "ua", "--games", "3", "--seed", "9", "--out", "out",
        ],
    );
    let err = stderr(&o);
    assert!(err.contains("simulated 3 ua games"), "{err}");
    for i in 1..=3 {
        let x = std::fs::read(record_path(a.path(), RuleSetId::Ua, 9, i)).unwrap();
        let y = std::fs::read(record_path(b.path(), RuleSetId::Ua, 9, i)).unwrap();
        assert_eq!(x, y);
    }
}

#[test]
fn simulated_records_round_trip_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    for rules in RuleSetId::ALL {
        simulate_into(tmp.path(), rules, 4, 7);
        for i in 1..=4 {
            let text = std::fs::read_to_string(record_path(tmp.path(), rules, 7, i)).unwrap();
            let record = Record::parse(&text).unwrap();
            assert_eq!(record.to_jsonl(), text, "{rules} game {i}");
            let header: Header = serde_json::from_str(text.lines().next().unwrap()).unwrap();
            assert_eq!(
                (header.tournament.as_str(), header.judge.as_str()),
                ("sim", "sim")
            );
            assert_eq!((header.round, header.table, header.game), (1, 1, i as u32));
        }
    }
}

#[test]
fn protocol_renders_as_markdown_and_html_for_every_rule_set() {
    let tmp = tempfile::tempdir().unwrap();
    for rules in RuleSetId::ALL {
        simulate_into(tmp.path(), rules, 2, 3);
        for i in 1..=2 {
            let file = record_path(tmp.path(), rules, 3, i);
            let md = mafia(tmp.path(), &["protocol", &file]);
            assert!(md.status.success(), "{}", stderr(&md));
            let md = stdout(&md);
            assert!(md.starts_with("# Game protocol / Протокол игры"));
            assert!(md.contains(&format!("| Rules / Правила | {rules} |")));
            assert!(md.contains("| 10 | Player 10 |"));
            assert!(md.contains("Д"), "the Don's letter is shown");
            assert!(md.contains("## Best move / Лучший ход"));
            assert!(md.contains("signature / подпись"));

            let html = mafia(tmp.path(), &["protocol", &file, "--html"]);
            assert!(html.status.success(), "{}", stderr(&html));
            let html = stdout(&html);
            assert!(html.starts_with("<!DOCTYPE html>"));
            assert!(html.contains("<style>") && html.contains("@media print"));
            assert!(html.trim_end().ends_with("</html>"));
            assert_eq!(html.matches("<tr>").count(), html.matches("</tr>").count());
        }
    }
}

#[test]
fn protocol_escapes_nicknames_and_names() {
    let tmp = tempfile::tempdir().unwrap();
    simulate_into(tmp.path(), RuleSetId::Minsk2017, 1, 5);
    let file = record_path(tmp.path(), RuleSetId::Minsk2017, 5, 1);
    let text = std::fs::read_to_string(&file).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    header["seats"][0]["nickname"] = "<script>alert('x')</script> | *bold*".into();
    header["judge"] = "O'Brien & \"Co\"".into();
    std::fs::write(&file, format!("{header}\n{rest}")).unwrap();

    let html = stdout(&mafia(tmp.path(), &["protocol", &file, "--html"]));
    assert!(!html.contains("<script>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; | *bold*"));
    assert!(html.contains("O&#39;Brien &amp; &quot;Co&quot;"));

    let md = stdout(&mafia(tmp.path(), &["protocol", &file]));
    assert!(md.contains(r"\<script\>alert('x')\</script\> \| \*bold\*"));
}

#[test]
fn protocol_of_a_bad_record_shows_the_game_so_far_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = common::records_dir().join("bad/after_end.jsonl");
    let o = mafia(tmp.path(), &["protocol", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("## Winning team"));
    assert!(stderr(&o).contains("game_over"), "{}", stderr(&o));
}

#[test]
fn a_missing_file_is_reported_in_line_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let o = mafia(tmp.path(), &["replay", "nope.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let r = &reports(&o)[0];
    assert_eq!(r["file"], "nope.jsonl");
    assert_eq!(r["violation"]["code"], "io_error");
    let o = mafia(tmp.path(), &["protocol", "nope.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read nope.jsonl"));
}

#[test]
fn a_file_that_is_not_utf8_is_a_parse_error_on_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    simulate_into(tmp.path(), RuleSetId::Classic, 1, 1);
    let file = record_path(tmp.path(), RuleSetId::Classic, 1, 1);
    let mut bytes = std::fs::read(&file).unwrap();
    let lines: Vec<_> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    bytes = [lines[0].clone(), lines[1].clone(), vec![0xff, 0xfe]].join(&b'\n');
    std::fs::write(&file, bytes).unwrap();
    let o = mafia(tmp.path(), &["replay", &file]);
    assert_eq!(o.status.code(), Some(1));
    let r = &reports(&o)[0];
    assert_eq!(r["violation"]["line"], 3);
    assert_eq!(r["violation"]["code"], "parse_error");
}

#[test]
fn an_unknown_rule_set_on_the_command_line_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let o = mafia(
        tmp.path(),
        &[
            "simulate", "--rules", "mafia", "--games", "1", "--seed", "1", "--out", "x",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown rule set \"mafia\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn demo_prints_a_protocol_and_a_clean_replay_for_every_rule_set() {
    let tmp = tempfile::tempdir().unwrap();
    let o = mafia(tmp.path(), &["demo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("# Game protocol / Протокол игры").count(), 5);
    for rules in RuleSetId::ALL {
        assert!(out.contains(&format!("\"rules\":\"{rules}\"")));
    }
    assert_eq!(out.matches("\"violation\":null").count(), 5);
}
