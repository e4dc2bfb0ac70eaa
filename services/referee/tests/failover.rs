//! Three referee processes on one Redis; the one owning a game is killed
//! with SIGKILL mid-game. The judge's session moves to another referee once
//! the lease lapses, and the stored history is exactly the game's.

mod common;

use common::*;
use mafia_event_log::testing::RedisServer;
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use mafia_judge_client::JudgeSession;
use mafia_proto::convert::request_from_header;
use mafia_record::LoggedEvent;
use rand::SeedableRng;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Kills the referee processes a test started, whatever happens.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn_referee(redis_url: &str, prefix: &str, name: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mafia-referee"))
        .args(["--listen", "127.0.0.1:0", "--metrics-listen", ""])
        .args([
            "--store",
            "redis",
            "--redis-url",
            redis_url,
            "--redis-prefix",
            prefix,
        ])
        .args(["--lease-ms", "1000", "--owner", name])
        .env("MAFIA_TOKENS", tokens_json())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start mafia-referee");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("referee prints its address");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, format!("http://{addr}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_owning_referee_moves_the_game_to_another_without_loss() {
    let server = RedisServer::from_env_or_spawn().expect("a redis-server for tests");
    let prefix = server.scoped_prefix("failover");
    let mut procs = Procs(Vec::new());
    let mut urls = Vec::new();
    for name in ["ref-a", "ref-b", "ref-c"] {
        let (child, url) = spawn_referee(server.url(), &prefix, name);
        procs.0.push(child);
        urls.push(url);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let sim = mafia_rules::sim::simulate(mafia_rules::RuleSetId::Rfm, &mut rng, 1_700_000_000_000);
    let mut h = header(3, mafia_rules::RuleSetId::Rfm, 0);
    h.deal = sim.setup.deal.clone();

    // The client starts with ref-a, which therefore owns the game.
    let mut referee = referee(urls.clone(), TABLE3);
    let req = request_from_header(&h, 1_700_000_000_000);
    let opened = referee
        .with_retry(|mut c| {
            let req = req.clone();
            async move { c.open_game(req).await.map(|r| r.into_inner()) }
        })
        .await
        .unwrap();
    let mut session = JudgeSession::attach(referee, &opened.game_id.parse().unwrap())
        .await
        .unwrap();

    let acked = Arc::new(AtomicUsize::new(0));
    let commands = sim.commands.clone();
    let progress = acked.clone();
    let judge = tokio::spawn(async move {
        let mut longest = Duration::ZERO;
        for (at, cmd) in &commands {
            let t = std::time::Instant::now();
            match session
                .submit(*at, cmd)
                .await
                .expect("the judge keeps going")
            {
                Ok(_) => progress.fetch_add(1, Ordering::SeqCst),
                Err(r) => panic!("rejected {cmd:?}: {r:?}"),
            };
            longest = longest.max(t.elapsed());
        }
        // Reported, not asserted: timing on a shared machine is not a test.
        println!("failover: longest ack wait {longest:?} with a 1 s lease");
        session
    });
    // Kill ref-a a third of the way in, with commands in flight.
    let third = sim.commands.len() / 3;
    for _ in 0..2000 {
        if acked.load(Ordering::SeqCst) >= third {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        acked.load(Ordering::SeqCst) >= third,
        "the judge made no progress"
    );
    procs.0[0].kill().expect("kill -9 ref-a");
    procs.0[0].wait().unwrap();

    let session = judge.await.unwrap();
    assert!(session.reconnects() >= 1);
    let state = session.state().unwrap();
    assert!(state.over);
    assert_eq!(state.last_client_seq, sim.commands.len() as u64);

    // The stored history is exactly the simulated game's: nothing lost or doubled.
    let log = RedisLog::connect_with(server.url(), RedisLogConfig::with_prefix(prefix.as_str()))
        .await
        .unwrap();
    let stored = log.read(&opened.game_id, 1, 100_000).await.unwrap();
    let envelopes: Vec<_> = stored
        .iter()
        .map(|e| {
            serde_json::from_slice::<LoggedEvent>(&e.payload)
                .unwrap()
                .envelope
        })
        .collect();
    assert_eq!(envelopes, sim.events);
    drop(log);
    drop(procs);
    drop(prefix);
}
