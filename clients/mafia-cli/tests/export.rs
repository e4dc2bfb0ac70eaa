//! `mafia export` end to end on the committed tournament log
//! (crates/tournament/tests/data/cup.jsonl).

mod common;

use common::{mafia, stderr, stdout};
use std::path::{Path, PathBuf};

fn cup_log() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/tournament/tests/data/cup.jsonl")
}

fn export(args: &[&str]) -> std::process::Output {
    let log = cup_log();
    let mut all = vec!["export"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--tournament-log", log.to_str().unwrap()]);
    mafia(Path::new(env!("CARGO_MANIFEST_DIR")), &all)
}

#[test]
fn export_standings_csv_prints_a_header_and_every_player() {
    let o = export(&["standings", "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    // UTF-8's byte-order mark first, so Excel on Windows shows Cyrillic.
    assert!(
        lines[0].starts_with("\u{feff}rank,player,nickname,club,"),
        "{text}"
    );
    assert_eq!(lines.len(), 21);
    assert!(lines[1].starts_with("1,"));
}

#[test]
fn export_twice_prints_the_same_bytes() {
    for args in [
        &["standings", "--format", "json"][..],
        &["games", "--format", "csv"],
        &["seating", "--round", "3"],
    ] {
        let a = export(args);
        let b = export(args);
        assert!(a.status.success(), "{args:?}: {}", stderr(&a));
        assert_eq!(a.stdout, b.stdout, "{args:?}");
    }
}

#[test]
fn export_games_json_lists_each_seat_of_each_scored_game() {
    let o = export(&["games", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 40);
}

#[test]
fn export_public_standings_hide_pending_extras() {
    let all = stdout(&export(&["standings", "--format", "json"]));
    let public = stdout(&export(&["standings", "--format", "json", "--public"]));
    let pending = |t: &str| {
        let v: serde_json::Value = serde_json::from_str(t).unwrap();
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["extra_pending"].as_f64() != Some(0.0))
            .count()
    };
    assert_eq!(pending(&all), 1);
    assert_eq!(pending(&public), 0);
}

#[test]
fn export_seating_prints_a_printable_page_of_the_round() {
    let o = export(&["seating", "--format", "html", "--round", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = stdout(&o);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("@media print"));
    assert_eq!(html.matches("<tr data-player=").count(), 20);
}

#[test]
fn export_refuses_a_round_not_seated_a_missing_round_and_a_wrong_format() {
    let o = export(&["seating", "--round", "9"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("round 9 is not seated"),
        "{}",
        stderr(&o)
    );
    let o = export(&["seating"]);
    assert!(stderr(&o).contains("--round"), "{}", stderr(&o));
    let o = export(&["standings", "--format", "html"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("csv or json"), "{}", stderr(&o));
}

#[test]
fn export_of_a_broken_log_names_the_file_and_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(cup_log()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{broken";
    std::fs::write(dir.path().join("bad.jsonl"), lines.join("\n")).unwrap();
    let o = mafia(
        dir.path(),
        &["export", "standings", "--tournament-log", "bad.jsonl"],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.jsonl") && e.contains("event 2"), "{e}");
}
