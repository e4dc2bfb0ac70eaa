//! `kill -9` of a process in the middle of its group commits loses nothing
//! it had acknowledged: the child process appends to several games at once
//! and prints each ack after it returns; the test kills it at arbitrary
//! moments, reopens the file and holds it against what was printed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use mafia_event_log::{EmbeddedLog, EventLog, FeedCursor};

const CHILD_ENV: &str = "MAFIA_EVENT_LOG_CRASH_CHILD";
const GAMES: usize = 8;

fn game(g: usize) -> String {
    format!("crash.t{g}.g1")
}

/// Seq `seq`'s payload: says what it is, and of varied length so that
/// groups straddle pages.
fn payload(game: &str, seq: u64) -> Bytes {
    let mut p = format!("{game}/{seq}/").into_bytes();
    p.resize(p.len() + (seq * 397 % 5000) as usize, b'x');
    Bytes::from(p)
}

/// The appender the crash test runs in a child process (does nothing when
/// run as a test of its own): leases every game, then appends to all of
/// them at once, printing `fence GAME FENCE` and `ack GAME LAST_SEQ` after
/// each answer, until killed.
#[test]
fn sigkill_child_appends_and_prints_its_acks_until_killed() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let log = EmbeddedLog::open(&path).await.unwrap();
        let mut tasks = Vec::new();
        for g in 0..GAMES {
            let log = log.clone();
            tasks.push(tokio::spawn(async move {
                let game = game(g);
                log.create_game(&game, b"header").await.unwrap();
                let lease = log
                    .acquire_lease(&game, "crash-child", Duration::from_secs(60))
                    .await
                    .unwrap();
                println!("fence {game} {}", lease.fence);
                let mut last = log.last_seq(&game).await.unwrap();
                loop {
                    let n = 1 + last % 4;
                    let batch: Vec<Bytes> =
                        (last + 1..=last + n).map(|s| payload(&game, s)).collect();
                    last = log
                        .append(&game, last, lease.fence, &batch)
                        .await
                        .unwrap()
                        .last_seq;
                    println!("ack {game} {last}");
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// Kills the child on drop, so a failing check leaves no appender running.
struct Appender(Child);

impl Drop for Appender {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the child until it printed `acks` acks, kills it with SIGKILL and
/// returns every line it printed before dying.
fn run_and_kill(path: &Path, acks: usize) -> Vec<String> {
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sigkill_child_appends_and_prints_its_acks_until_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Appender(child);
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    let mut out = Vec::new();
    let mut seen = 0;
    while seen < acks {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("the appender ended after {seen} acks"))
            .unwrap();
        seen += usize::from(line.starts_with("ack "));
        out.push(line);
    }
    // SIGKILL: no destructor, no flush, whatever commit is under way.
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    // What it printed before it died is still in the pipe.
    out.extend(lines.map_while(Result::ok));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_appends_survive_sigkill_in_the_middle_of_group_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.log");
    let mut acked: HashMap<String, u64> = HashMap::new();
    let mut fences: HashMap<String, u64> = HashMap::new();
    for (round, acks) in [150, 601, 1307, 90].into_iter().enumerate() {
        for line in run_and_kill(&path, acks) {
            let mut words = line.split_whitespace();
            let (Some(kind), Some(game), Some(n)) = (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            let seen = match kind {
                "ack" => &mut acked,
                "fence" => &mut fences,
                _ => continue,
            };
            let was = seen.insert(game.to_owned(), n).unwrap_or(0);
            assert!(n > was, "round {round}: {line} after {was}");
        }

        let log = EmbeddedLog::open(&path).await.unwrap();
        let mut total = 0;
        for (game, &last_acked) in &acked {
            let last = log.last_seq(game).await.unwrap();
            assert!(
                last >= last_acked,
                "round {round}: {game} acked {last_acked}, stored {last}"
            );
            let mut next = 1;
            while next <= last {
                let page = log.read(game, next, 1000).await.unwrap();
                assert!(!page.is_empty(), "{game}: nothing at {next} of {last}");
                for e in page {
                    assert_eq!(e.seq, next, "{game}: no gaps");
                    assert_eq!(e.payload, payload(game, next), "{game}/{next}");
                    next += 1;
                }
            }
            total += last;
        }
        // The feed has each of them once, each game's in order.
        let mut feed = log.feed(FeedCursor::beginning());
        let mut per_game: HashMap<String, u64> = HashMap::new();
        for i in 0..total {
            let (cursor, e) = tokio::time::timeout(Duration::from_secs(10), feed.next())
                .await
                .expect("the feed has every stored event")
                .unwrap()
                .unwrap();
            assert_eq!(cursor.as_str(), (i + 1).to_string());
            let n = per_game.entry(e.game.clone()).or_default();
            *n += 1;
            assert_eq!(e.seq, *n, "feed order of {}", e.game);
        }
        // A fence the child was granted is never handed out again.
        for (game, &fence) in &fences {
            let lease = log
                .acquire_lease(game, "checker", Duration::from_millis(1))
                .await
                .unwrap();
            assert!(
                lease.fence > fence,
                "{game}: fence {} after {fence}",
                lease.fence
            );
        }
        assert_eq!(
            acked.len(),
            GAMES,
            "round {round}: every game acked something"
        );
        eprintln!(
            "round {round}: {} events acknowledged, {total} stored",
            acked.values().sum::<u64>()
        );
    }
}
