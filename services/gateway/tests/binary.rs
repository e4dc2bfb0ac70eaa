//! The `mafia-gateway` binary: it prints its addresses and exits cleanly on
//! a SIGTERM sent as soon as it has (`docker stop`, systemd, scripts).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn the_binary_stops_cleanly_on_a_sigterm_sent_as_soon_as_it_prints_its_address() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-gateway"))
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
        .arg("--data")
        .arg(dir.path().join("events.redb"))
        .env_remove("REDIS_URL")
        .env_remove("MAFIA_TOKENS_FILE")
        .env_remove("MAFIA_TOKENS")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kept open to the end: the gateway prints more lines after the first.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // Its log lines come first, on the same stream.
    let mut line = String::new();
    while !line.starts_with("hall screen:") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
    }
    assert!(
        line.starts_with("hall screen:   http://127.0.0.1:"),
        "{line:?}"
    );
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success());
}
