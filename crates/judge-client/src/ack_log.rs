//! `--acks FILE`: every acknowledgement a judge client received, one JSON
//! line each, so a fault test can hold the stored logs against what the
//! judges were told was stored (nothing lost, nothing doubled).

use mafia_record::{Accepted, GameId, LoggedEvent};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One line of the file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AckLine {
    pub game: String,
    pub client_seq: u64,
    /// The ack came back as a replay after a reconnect (the command had been
    /// stored, its first ack lost with the connection).
    pub recovered: bool,
    /// When the client got it, ms since the epoch.
    pub t_ms: i64,
    /// How long the client waited for it, reconnects included (µs).
    pub wait_us: u64,
    pub events: Vec<LoggedEvent>,
}

/// A shared append-only file; each line is written whole with one call, so
/// a client killed mid-run leaves only whole lines.
#[derive(Clone)]
pub struct AckLog(Arc<Mutex<File>>);

impl std::fmt::Debug for AckLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AckLog")
    }
}

impl AckLog {
    pub fn create(path: &Path) -> std::io::Result<AckLog> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(AckLog(Arc::new(Mutex::new(file))))
    }

    pub fn record(&self, game: &GameId, a: &Accepted, waited: Duration) {
        let line = AckLine {
            game: game.to_string(),
            client_seq: a.client_seq,
            recovered: a.replayed,
            t_ms: crate::sim::wall_clock_ms(),
            wait_us: u64::try_from(waited.as_micros()).unwrap_or(u64::MAX),
            events: a.events.clone(),
        };
        let mut bytes = serde_json::to_vec(&line).expect("acks serialize");
        bytes.push(b'\n');
        let mut file = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(&bytes) {
            tracing::warn!(error = %e, "could not write the ack log");
        }
    }
}

/// Reads a file [`AckLog`] wrote (or is writing: a line not yet ended is
/// left for the next read).
pub fn read(path: &Path) -> std::io::Result<Vec<AckLine>> {
    let text = std::fs::read_to_string(path)?;
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n') && !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(std::io::Error::other))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acks_read_back_as_written_and_a_line_still_being_written_waits() {
        let path = std::env::temp_dir().join(format!("acks-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let log = AckLog::create(&path).unwrap();
        let game: GameId = "cup.main.r1.t3.g1".parse().unwrap();
        let a = Accepted {
            client_seq: 7,
            events: Vec::new(),
            state: None,
            duplicate: false,
            replayed: true,
        };
        log.record(&game, &a, Duration::from_micros(1500));
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"game\":")
            .unwrap();
        let lines = read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].game, "cup.main.r1.t3.g1");
        assert_eq!((lines[0].client_seq, lines[0].recovered), (7, true));
        assert_eq!(lines[0].wait_us, 1500);
    }
}
