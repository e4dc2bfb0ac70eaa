//! A tournament lived through every fault in turn: a round per fault, its
//! games opened by the scoring service, judged by `mafia play` processes
//! through three referees, followed by WebSocket subscribers on two
//! gateways. Each round is hit mid-game by one fault: a referee, a gateway
//! and the scoring service killed with SIGKILL, Redis killed and restarted
//! on its append-only file, shut down with `SHUTDOWN NOSAVE`, stalled with
//! `DEBUG SLEEP`, and the referee owning the games cut off from Redis. After
//! each, every game's log must be what its judge was acked, and every
//! subscriber must have seen it all, in order, once. One report line per
//! case goes to the test's output (`cargo test -p mafia-faults -- --nocapture`).

use mafia_faults::judges::{record_for, Judge};
use mafia_faults::ledger::{ack_recovery_ms, stored_events, Tally};
use mafia_faults::procs::Arena;
use mafia_faults::subscriber::{follow, now_ms, Seen};
use mafia_faults::tournament;
use mafia_record::{GameId, Header};
use std::time::{Duration, Instant};
use tokio::sync::watch;

const TABLES: u32 = 3;
/// Judges run at this many times a real table's pace (0.5–30 s a command),
/// so a game lasts some seconds and each fault lands in the middle of it.
const SPEED: f64 = 300.0;

#[derive(Debug, Clone, Copy)]
enum Fault {
    RefereeKill,
    GatewayKill,
    ScoringKill,
    RedisKill,
    RedisShutdown,
    RedisStall,
    Partition,
}

const CASES: [Fault; 7] = [
    Fault::RefereeKill,
    Fault::GatewayKill,
    Fault::ScoringKill,
    Fault::RedisKill,
    Fault::RedisShutdown,
    Fault::RedisStall,
    Fault::Partition,
];

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::RefereeKill => "referee-kill9",
            Fault::GatewayKill => "gateway-kill9",
            Fault::ScoringKill => "scoring-kill9",
            Fault::RedisKill => "redis-kill9-restart",
            Fault::RedisShutdown => "redis-shutdown-nosave-restart",
            Fault::RedisStall => "redis-debug-sleep-3s",
            Fault::Partition => "referee-redis-partition",
        }
    }
}

struct Round {
    judges: Vec<Judge>,
    subscribers: Vec<tokio::task::JoinHandle<Seen>>,
    games: Vec<GameId>,
    commands: Vec<usize>,
    stop: watch::Sender<bool>,
}

async fn start_round(arena: &Arena, games: Vec<GameId>, round: u32) -> Round {
    let log = arena.log().await;
    let (stop, stop_rx) = watch::channel(false);
    let mut judges = Vec::new();
    let mut followers = Vec::new();
    let mut records = Vec::new();
    let mut commands = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let key = game.to_string();
        let header: Header = serde_json::from_slice(
            &mafia_event_log::EventLog::header(&log, &key)
                .await
                .unwrap()
                .expect("the round's games are open"),
        )
        .unwrap();
        let stored = stored_events(&log, &key).await;
        let record = record_for(header, &stored, u64::from(round) * 1000 + i as u64);
        commands.push(record.commands().len());
        records.push(record);
        // A round's games are opened by OpenRound: their deals are drawn.
        followers.push(follow(
            game.clone(),
            arena.gateway_addrs(),
            i,
            true,
            stop_rx.clone(),
        ));
    }
    // Subscribed before the judges start: every command's events must
    // arrive as deltas.
    let mut subscribers = Vec::new();
    for f in followers {
        tokio::time::timeout(Duration::from_secs(60), f.ready)
            .await
            .expect("the subscriber gets its snapshot")
            .expect("the subscriber runs");
        subscribers.push(f.task);
    }
    for (i, (game, record)) in games.iter().zip(&records).enumerate() {
        judges.push(Judge::play(
            &arena.bin,
            arena.dir.path(),
            game,
            record,
            &arena.referee_urls(i),
            SPEED,
        ));
    }
    Round {
        judges,
        subscribers,
        games,
        commands,
        stop,
    }
}

/// Waits until every judge has had a third of its game acked.
async fn a_third_in(round: &Round) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let behind = round
            .judges
            .iter()
            .zip(&round.commands)
            .filter(|(j, n)| j.acks().len() < **n / 3)
            .count();
        if behind == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{behind} judges made no progress"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until every judge still playing has had an ack after `t_ms`.
async fn judges_acked_after(round: &Round, t_ms: i64) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let waiting = round
            .judges
            .iter()
            .zip(&round.commands)
            .filter(|(j, n)| {
                let acks = j.acks();
                acks.len() < **n && !acks.iter().any(|a| a.t_ms >= t_ms)
            })
            .count();
        if waiting == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{waiting} judges got no ack in 2 minutes after the fault"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Injects the fault; returns how long it lasted (ms) and, for faults
/// the judges do not see, the recovery time measured here.
async fn inject(
    fault: Fault,
    arena: &mut Arena,
    round: &Round,
    t_fault: i64,
) -> (i64, Option<i64>) {
    match fault {
        Fault::RefereeKill => {
            // The scoring service opened the round's games on referee 0,
            // which therefore owns them all.
            arena.referees[0].kill9().await;
            judges_acked_after(round, t_fault).await;
            arena.restart_referee(0).await;
            (0, None)
        }
        Fault::GatewayKill => {
            arena.gateways[0].kill9().await;
            arena.restart_gateway(0).await;
            (0, None)
        }
        Fault::ScoringKill => {
            arena.scoring.as_mut().unwrap().kill9().await;
            arena.restart_scoring().await;
            let url = arena.scoring.as_ref().unwrap().url();
            let mut c = tournament::connect(&url).await;
            let deadline = Instant::now() + Duration::from_secs(60);
            while tournament::scored(&mut c).await.is_none() {
                assert!(Instant::now() < deadline, "the scoring service came back");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (0, Some(now_ms() - t_fault))
        }
        Fault::RedisKill | Fault::RedisShutdown => {
            let redis = &mut arena.redis;
            if matches!(fault, Fault::RedisKill) {
                redis.kill9();
            } else {
                redis.shutdown_nosave();
            }
            tokio::task::block_in_place(|| redis.restart());
            (now_ms() - t_fault, None)
        }
        Fault::RedisStall => {
            // Redis answers nobody while it sleeps; this call returns after.
            let reply =
                tokio::task::block_in_place(|| arena.redis.command(&["DEBUG", "SLEEP", "3"]));
            assert_eq!(reply.expect("DEBUG SLEEP answers"), "+OK");
            (now_ms() - t_fault, None)
        }
        Fault::Partition => {
            arena.proxies[0].cut();
            // Cut off, referee 0 can neither append nor renew its leases:
            // the judges must move their games to the other referees.
            judges_acked_after(round, t_fault).await;
            let lasted = now_ms() - t_fault;
            arena.proxies[0].heal();
            (lasted, None)
        }
    }
}

type Acks = Vec<mafia_judge_client::ack_log::AckLine>;

async fn finish_round(arena: &Arena, round: Round) -> (Tally, Vec<Acks>, Vec<Option<Seen>>) {
    let mut acks = Vec::new();
    for judge in round.judges {
        let path = judge.acks.clone();
        tokio::time::timeout(Duration::from_secs(180), judge.finish())
            .await
            .expect("the judge finishes its game");
        acks.push(mafia_faults::judges::read_acks(&path));
    }
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for s in round.subscribers {
        match tokio::time::timeout_at(deadline, s).await {
            Ok(r) => seen.push(Some(r.expect("the subscriber runs"))),
            Err(_) => seen.push(None),
        }
    }
    round.stop.send_replace(true);
    let log = arena.log().await;
    let mut tally = Tally::default();
    for (i, game) in round.games.iter().enumerate() {
        let stored = stored_events(&log, &game.to_string()).await;
        assert_eq!(
            acks[i].len(),
            round.commands[i],
            "{game}: the judge was acked every command"
        );
        let unfinished = Seen::default();
        tally.add(
            &stored,
            &acks[i],
            Some(seen[i].as_ref().unwrap_or(&unfinished)),
            true,
        );
    }
    (tally, acks, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_fault_mid_tournament_loses_and_doubles_no_acked_event() {
    let mut arena = Arena::start(3, 2, true).await;
    let scoring_url = arena.scoring.as_ref().unwrap().url();
    let mut scoring = tournament::connect(&scoring_url).await;
    tournament::create(&mut scoring, CASES.len() as u32, TABLES).await;
    let mut all_games = Vec::new();
    let mut failures = Vec::new();
    for (r, fault) in CASES.iter().enumerate() {
        let round_no = r as u32 + 1;
        let scoring_url = arena.scoring.as_ref().unwrap().url();
        let mut scoring = tournament::connect(&scoring_url).await;
        let games = tournament::seat_and_open(&mut scoring, round_no).await;
        assert_eq!(games.len(), TABLES as usize);
        all_games.extend(games.iter().cloned());
        let round = start_round(&arena, games, round_no).await;
        a_third_in(&round).await;
        let t_fault = now_ms();
        let (lasted, measured) = inject(*fault, &mut arena, &round, t_fault).await;
        let (tally, acks, seen) = finish_round(&arena, round).await;
        let recovery = measured.or_else(|| match fault {
            // Until the last subscriber of the killed gateway was resumed.
            Fault::GatewayKill => seen
                .iter()
                .flatten()
                .filter_map(|s| s.resumed_at_ms.iter().find(|&&t| t >= t_fault))
                .max()
                .map(|t| t - t_fault),
            _ => ack_recovery_ms(acks.iter().map(|a| a.as_slice()), t_fault),
        });
        let line = tally.line(fault.name(), recovery, &format!(" fault_ms={lasted}"));
        println!("{line}");
        if !tally.clean() {
            failures.push(line);
        }
    }
    // The scoring service, killed once, scored every game exactly once.
    let scoring_url = arena.scoring.as_ref().unwrap().url();
    let mut scoring = tournament::connect(&scoring_url).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while tournament::scored(&mut scoring).await != Some(all_games.len() as u32) {
        assert!(
            Instant::now() < deadline,
            "the scoring service scored {:?} of {} games",
            tournament::scored(&mut scoring).await,
            all_games.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let results = tournament::results_stored(&arena.log().await).await;
    let doubled: Vec<_> = results.iter().filter(|(_, n)| **n != 1).collect();
    println!(
        "fault case=tournament games={} results_stored={} results_doubled={}",
        all_games.len(),
        results.len(),
        doubled.len()
    );
    assert_eq!(results.len(), all_games.len(), "a result for every game");
    assert!(doubled.is_empty(), "results stored twice: {doubled:?}");
    assert!(failures.is_empty(), "cases with losses: {failures:#?}");
}
