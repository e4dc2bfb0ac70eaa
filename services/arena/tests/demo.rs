//! `mafia-arena` as `make run` starts it, on a fresh data directory and free
//! ports: the demo tournament seats and opens its rounds, every game is
//! scored, the standings are printed, and SIGINT stops it cleanly.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn the_demo_tournament_plays_every_round_and_scores_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-arena"))
        .args(["--tables", "2", "--rounds", "2", "--speed", "100000"])
        .args(["--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .args(["--scoring", "127.0.0.1:0"])
        .arg("--data")
        .arg(dir.path().join("arena.redb"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mafia-arena starts");
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines {
        let line = line.unwrap();
        let over = line.contains("the tournament is over");
        seen.push(line);
        if over {
            break;
        }
    }
    let text = seen.join("\n");
    assert!(text.contains("the tournament is over"), "{text}");
    for url in ["hall screen:", "scoring (gRPC):", "referee (gRPC):"] {
        assert!(text.contains(url), "no {url:?} in\n{text}");
    }
    assert!(
        text.contains("round 1 seated and opened: 2 tables"),
        "{text}"
    );
    assert!(
        text.contains("round 2 seated and opened: 2 tables"),
        "{text}"
    );
    assert_eq!(
        seen.iter().filter(|l| l.contains(" scored (")).count(),
        4,
        "a line per game: {text}"
    );
    assert!(
        text.contains("scored (4 games)"),
        "every game scored: {text}"
    );
    stop(child);
}

/// SIGINT, as Ctrl-C sends it: the arena must stop cleanly.
fn stop(mut child: std::process::Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "a clean stop");
}

/// The OBS overlay's URL as a run prints it, read up to the data line; the
/// run is then stopped with SIGINT.
fn printed_overlay_url(dir: &std::path::Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-arena"))
        .args(["--tables", "0"])
        .args(["--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0"])
        .args(["--scoring", "127.0.0.1:0"])
        .arg("--data")
        .arg(dir.join("arena.redb"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mafia-arena starts");
    let mut url = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.contains("OBS overlay:") {
            url = line
                .split_whitespace()
                .find(|w| w.contains("/overlay?"))
                .map(str::to_owned);
        }
        if line.trim_start().starts_with("data:") {
            break;
        }
    }
    stop(child);
    url.expect("an OBS overlay URL")
}

#[test]
fn the_printed_obs_overlay_url_names_a_table_not_a_game_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let first = printed_overlay_url(dir.path());
    let host_free = &first[first.find("/overlay").unwrap()..];
    assert!(host_free.starts_with("/overlay?table=1&token="), "{first}");
    // The token file stays beside the data, and the next run
    // prints the same overlay (the ports are new, the path and token not).
    assert!(dir.path().join("tokens.json").is_file());
    let second = printed_overlay_url(dir.path());
    assert_eq!(&second[second.find("/overlay").unwrap()..], host_free);
}
