//! The judges: `mafia play` streaming a record of random legal commands
//! for a game the scoring service opened, or `mafia sim` tables; each
//! writes every ack it got to its own file (`--acks`).

use crate::procs::CHIEF;
use mafia_record::{GameId, Header, LoggedEvent, Record};
use mafia_rules::sim::{random_command, Temper};
use mafia_rules::Game;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::{Child, Command};

/// A record continuing the stored game (its header and opening events)
/// with random legal commands to its end, stamped as a judge would, 0.5 to
/// 30 s apart.
pub fn record_for(header: Header, stored: &[LoggedEvent], seed: u64) -> Record {
    let setup = header.setup().expect("a stored header is valid");
    let mut game =
        Game::replay(setup, stored.iter().map(|e| &e.envelope)).expect("the stored game replays");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let temper = Temper::draw(&mut rng);
    let mut at = stored.last().map_or(1_700_000_000_000, |e| e.envelope.at);
    let mut record = Record::new(header).expect("a valid header");
    while let Some(cmd) = random_command(&game, &temper, &mut rng) {
        at += rng.gen_range(500..30_000);
        game.apply(&cmd, at).expect("a random legal command");
        record.push(at, cmd);
    }
    record
}

/// One judge process and where its acks go.
pub struct Judge {
    pub child: Child,
    pub acks: PathBuf,
}

impl Judge {
    /// `mafia play` of `record` (written into `dir`) against `referees`,
    /// at `speed` times the record's pace.
    pub fn play(
        bin: &Path,
        dir: &Path,
        game: &GameId,
        record: &Record,
        referees: &[String],
        speed: f64,
    ) -> Judge {
        let file = dir.join(format!("{game}.jsonl"));
        std::fs::write(&file, record.to_jsonl()).expect("write the record");
        let acks = dir.join(format!("{game}.acks.jsonl"));
        let mut cmd = Command::new(bin.join("mafia"));
        cmd.arg("play")
            .arg(&file)
            .args(["--speed", &speed.to_string()]);
        Judge::spawn(cmd, referees, acks)
    }

    /// `mafia sim` of `tables` tables, one game after another at each, for
    /// `secs` seconds at `speed` times a judge's pace.
    pub fn sim(
        bin: &Path,
        acks: PathBuf,
        referees: &[String],
        tables: u32,
        seed: u64,
        speed: f64,
        secs: u64,
    ) -> Judge {
        let mut cmd = Command::new(bin.join("mafia"));
        cmd.arg("sim")
            .args(["--tables", &tables.to_string(), "--games", "1000"])
            .args(["--seed", &seed.to_string(), "--speed", &speed.to_string()])
            .args(["--run-secs", &secs.to_string()]);
        Judge::spawn(cmd, referees, acks)
    }

    fn spawn(mut cmd: Command, referees: &[String], acks: PathBuf) -> Judge {
        let child = cmd
            .args(["--referee", &referees.join(",")])
            .args(["--token", CHIEF, "--retry-secs", "120"])
            .arg("--acks")
            .arg(&acks)
            .env_remove("MAFIA_TOKEN")
            .env_remove("MAFIA_REFEREE")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("mafia starts");
        Judge { child, acks }
    }

    /// Waits for the judge to finish; its stdout (the report lines).
    pub async fn finish(self) -> String {
        let out = self.child.wait_with_output().await.expect("mafia runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "the judge failed: {text}");
        text
    }

    /// The acks it has written so far.
    pub fn acks(&self) -> Vec<mafia_judge_client::ack_log::AckLine> {
        read_acks(&self.acks)
    }
}

pub fn read_acks(path: &Path) -> Vec<mafia_judge_client::ack_log::AckLine> {
    if !path.exists() {
        return Vec::new();
    }
    mafia_judge_client::ack_log::read(path).expect("an ack file")
}
