//! The soak: 200 simulated tables (`mafia sim`, three processes) through
//! three referees for ten minutes, each table followed by a WebSocket
//! subscriber on one of two gateways, with a referee killed (SIGKILL) and
//! restarted every minute. Nothing acked may be lost or doubled, and every
//! subscriber sees its games' events in order, once; the ack latencies'
//! p50/p99 go to the output. `make soak` (SOAK_SECS=180 for three minutes).

use mafia_faults::judges::{read_acks, Judge};
use mafia_faults::ledger::{ack_wait_quantile_ms, stored_events, Tally};
use mafia_faults::procs::Arena;
use mafia_faults::subscriber::{follow, Seen};
use mafia_judge_client::ack_log::AckLine;
use mafia_record::GameId;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Judges at ten times a real table's pace: a command every 1.5 s a table
/// on average, about 130 commands a second over 200 tables.
const SPEED: f64 = 10.0;
const SIM_PROCESSES: u32 = 3;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Follows a table's games one after another (`mafia sim` plays them in
/// turn) until one is cut short by the end of the run.
fn follow_table(
    tournament: String,
    table: u32,
    gateways: Vec<String>,
    stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<Vec<(GameId, Seen)>> {
    tokio::spawn(async move {
        let mut out = Vec::new();
        for g in 1.. {
            if *stop.borrow() {
                break;
            }
            let game: GameId = format!("{tournament}.sim.r1.t{table}.g{g}")
                .parse()
                .unwrap();
            // `mafia sim`'s games deal from their own seeds.
            let f = follow(
                game.clone(),
                gateways.clone(),
                table as usize,
                false,
                stop.clone(),
            );
            let seen = f.task.await.expect("the subscriber runs");
            let done = seen.done;
            out.push((game, seen));
            if !done {
                break;
            }
        }
        out
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "a 10-minute soak; run with `make soak` (SOAK_SECS=180 shortens it)"]
async fn two_hundred_tables_through_a_referee_restart_a_minute_lose_and_double_nothing() {
    let secs = env_u64("SOAK_SECS", 600);
    let tables = env_u64("SOAK_TABLES", 200) as u32;
    let every = Duration::from_secs(env_u64("SOAK_RESTART_SECS", 60));
    let mut arena = Arena::start(3, 2, false).await;
    let (stop, stop_rx) = watch::channel(false);
    let base_seed = env_u64("SOAK_SEED", 1);
    let mut judges = Vec::new();
    let mut subscribers = Vec::new();
    for k in 0..SIM_PROCESSES {
        // Tables split over the processes, each starting at another referee.
        let n = tables / SIM_PROCESSES + u32::from(k < tables % SIM_PROCESSES);
        let seed = base_seed * 100 + u64::from(k);
        let acks = arena.dir.path().join(format!("sim-{k}.acks.jsonl"));
        let urls = arena.referee_urls(k as usize);
        judges.push(Judge::sim(&arena.bin, acks, &urls, n, seed, SPEED, secs));
        for t in 1..=n {
            subscribers.push(follow_table(
                format!("sim-{seed}"),
                t,
                arena.gateway_addrs(),
                stop_rx.clone(),
            ));
        }
    }
    let started = Instant::now();
    let mut restarts = 0usize;
    while started.elapsed() + every <= Duration::from_secs(secs) {
        tokio::time::sleep_until((started + every * (restarts as u32 + 1)).into()).await;
        let i = restarts % arena.referees.len();
        arena.referees[i].kill9().await;
        arena.restart_referee(i).await;
        restarts += 1;
        println!(
            "soak: referee {i} killed and restarted at {:?}",
            started.elapsed()
        );
    }
    let mut acks: Vec<AckLine> = Vec::new();
    for j in judges {
        let path = j.acks.clone();
        let out = tokio::time::timeout(Duration::from_secs(300), j.finish())
            .await
            .expect("the simulated tables stop after the run");
        print!("{out}");
        acks.extend(read_acks(&path));
    }
    // Each subscriber of a finished game returns at its end; the rest are
    // stopped once the gateways have had a moment to deliver what is stored.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let _ = tokio::time::timeout_at(deadline, async {
        while subscribers.iter().any(|s| !s.is_finished()) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    stop.send_replace(true);
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for s in subscribers {
        for (game, sub) in s.await.expect("the table's subscriber") {
            seen.insert(game.to_string(), sub);
        }
    }
    let mut by_game: BTreeMap<String, Vec<AckLine>> = BTreeMap::new();
    for a in &acks {
        by_game.entry(a.game.clone()).or_default().push(a.clone());
    }
    let log = arena.log().await;
    let mut tally = Tally::default();
    let mut finished = 0;
    for (game, game_acks) in &by_game {
        let stored = stored_events(&log, game).await;
        let over = stored.iter().any(|e| {
            matches!(
                e.envelope.event,
                mafia_rules::Event::StepStarted {
                    step: mafia_rules::Step::Ended
                }
            )
        });
        finished += usize::from(over);
        tally.add(&stored, game_acks, seen.get(game), over);
    }
    let line = tally.line(
        "soak",
        None,
        &format!(
            " tables={tables} secs={secs} referee_restarts={restarts} games_finished={finished} \
             ack_p50_ms={:.2} ack_p99_ms={:.2} ack_max_ms={:.2}",
            ack_wait_quantile_ms(&acks, 0.5),
            ack_wait_quantile_ms(&acks, 0.99),
            ack_wait_quantile_ms(&acks, 1.0),
        ),
    );
    println!("{line}");
    assert!(tally.clean(), "{line}");
}
