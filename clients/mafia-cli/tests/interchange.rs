//! `mafia import` and `mafia export --to mafiaratings` end to end: one
//! summary line per game, records written, the exit status.

mod common;

use common::{mafia, stderr, stdout};
use std::path::{Path, PathBuf};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/interchange/tests/samples")
}

fn sample(name: &str) -> String {
    samples().join(name).display().to_string()
}

#[test]
fn importing_a_good_mafiaratings_game_writes_its_record_and_exits_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sample("mafiaratings-game.json");
    let o = mafia(
        tmp.path(),
        &["import", "--from", "mafiaratings", &file, "--out", "games"],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(
        lines[0],
        format!("{file}: accepted mr-event-12.main.r1.t2.g3 (red, {} commands) -> games/mr-event-12.main.r1.t2.g3.jsonl", commands(tmp.path()))
    );
    // The written record replays clean.
    let o = mafia(
        tmp.path(),
        &["replay", "games/mr-event-12.main.r1.t2.g3.jsonl"],
    );
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains(r#""result":"red""#));
}

fn commands(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("games/mr-event-12.main.r1.t2.g3.jsonl")).unwrap();
    text.lines().count() - 1
}

#[test]
fn a_refused_game_gets_its_reason_and_where_and_the_exit_status_is_one() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sample("mafiaratings-games.json");
    let o = mafia(
        tmp.path(),
        &["import", "--from", "mafiaratings", &file, "--out", "games"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with(&format!(
            "{file} games[0]: accepted mafiaratings.main.r1.t1.g5001 (red"
        )),
        "{out}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "{file} games[1]: refused: games[1].players[3].voting[1] (line 30): "
        )),
        "{out}"
    );
    assert!(lines[1].ends_with("[voter_out]"), "{out}");
    // Only the accepted game is written.
    let written: Vec<String> = std::fs::read_dir(tmp.path().join("games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, ["mafiaratings.main.r1.t1.g5001.jsonl"]);
}

#[test]
fn lenient_import_keeps_a_refused_game_marked_with_its_violation() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sample("mafiaratings-games.json");
    let o = mafia(
        tmp.path(),
        &[
            "import",
            "--from",
            "mafiaratings",
            &file,
            "--out",
            "games",
            "--lenient",
        ],
    );
    assert!(o.status.success(), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .contains("accepted (lenient) mafiaratings.main.r1.t1.g5002"),
        "{out}"
    );
    let note: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            tmp.path()
                .join("games/mafiaratings.main.r1.t1.g5002.import.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(note["imported"], "lenient");
    assert_eq!(note["code"], "voter_out");
    assert_eq!(note["origin"], "games[1].players[3].voting[1]");
    assert_eq!(note["source_line"], 30);
    // The record ends with the refused command: `mafia replay` reports it
    // at the line the note names.
    let o = mafia(
        tmp.path(),
        &["replay", "games/mafiaratings.main.r1.t1.g5002.jsonl"],
    );
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(report["violation"]["code"], "voter_out");
    assert_eq!(report["violation"]["line"], note["line"]);
}

#[test]
fn polemica_games_import_one_line_each_and_garbage_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("junk.json"), "{\"players\": [1, 2,").unwrap();
    let good = sample("polemica-game.json");
    let unfinished = sample("polemica-unfinished.json");
    let o = mafia(
        tmp.path(),
        &[
            "import",
            "--from",
            "polemica",
            &good,
            &unfinished,
            "junk.json",
            "--out",
            "games",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with(&format!("{good}: accepted polemica.main.r1.t2.g3 (red")),
        "{out}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "{unfinished} [0]: accepted polemica.main.r1.t1.g7 (unfinished"
        )),
        "{out}"
    );
    assert!(
        lines[2].starts_with("junk.json: refused: line 1, column "),
        "{out}"
    );
}

#[test]
fn export_writes_mafiaratings_json_that_imports_back_to_the_same_game() {
    let tmp = tempfile::tempdir().unwrap();
    let o = mafia(
        tmp.path(),
        &[
            "simulate", "--rules", "classic", "--games", "3", "--seed", "5", "--out", "sim",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let files: Vec<String> = (1..=3)
        .map(|i| format!("sim/classic-5-{i}.jsonl"))
        .collect();
    let mut args = vec!["export", "--to", "mafiaratings"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--out", "mr"]);
    let o = mafia(tmp.path(), &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    for (line, f) in out.lines().zip(&files) {
        assert!(line.starts_with(&format!("{f}: exported -> mr/")), "{line}");
        assert!(line.contains("not carried: "), "{line}");
    }
    let mr: Vec<String> = (1..=3).map(|i| format!("mr/classic-5-{i}.json")).collect();
    let mut args = vec!["import", "--from", "mafiaratings"];
    args.extend(mr.iter().map(String::as_str));
    args.extend(["--out", "back"]);
    let o = mafia(tmp.path(), &args);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(stdout(&o).lines().count(), 3);
    // Each game's summary is the original's.
    for i in 1..=3 {
        let a = mafia(tmp.path(), &["replay", &format!("sim/classic-5-{i}.jsonl")]);
        let b = mafia(
            tmp.path(),
            &[
                "replay",
                &format!("back/mafiaratings.main.r1.t1.g{i}.jsonl"),
            ],
        );
        let strip = |o: &std::process::Output| {
            let mut v: serde_json::Value = serde_json::from_str(stdout(o).trim()).unwrap();
            v.as_object_mut().unwrap().remove("file");
            v
        };
        assert_eq!(strip(&a), strip(&b), "game {i}");
    }
}

#[test]
fn exporting_a_record_the_engine_refuses_names_its_line_and_exits_one() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = common::records_dir().join("bad");
    let some = std::fs::read_dir(&bad)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let o = mafia(tmp.path(), &["replay", &p.display().to_string()]);
            stdout(&o).contains(r#""violation":{"line""#)
                && !stdout(&o).contains("parse_error")
                && !stdout(&o).contains("bad_header")
        })
        .expect("a record with a rules violation");
    let f = some.display().to_string();
    let o = mafia(
        tmp.path(),
        &["export", "--to", "mafiaratings", &f, "--out", "mr"],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.starts_with(&format!("{f}: refused: line ")), "{out}");
}
