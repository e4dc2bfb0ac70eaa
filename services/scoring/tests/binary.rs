//! The `mafia-scoring` binary: flags, the "listening on" line, and a clean
//! exit on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn the_binary_serves_on_its_flags_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-scoring"))
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
        .arg("--data-dir")
        .arg(dir.path())
        .env_remove("REDIS_URL")
        .env_remove("MAFIA_TOKENS_FILE")
        .env(
            "MAFIA_TOKENS",
            r#"{"tokens":[{"role":"organiser","token":"org-token","games":["*"]}]}"#,
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("listening on 127.0.0.1:"), "{line:?}");
    assert!(dir.path().join("events.redb").exists());
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_binary_refuses_to_start_without_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mafia-scoring"))
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
        .arg("--data-dir")
        .arg(dir.path())
        .env_remove("REDIS_URL")
        .env_remove("MAFIA_TOKENS_FILE")
        .env_remove("MAFIA_TOKENS")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tokens configured"));
}
