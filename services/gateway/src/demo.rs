//! Simulated tables written to the event log the way the referee writes
//! them, so the screens can be seen (and tested) with no referee running.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mafia_event_log::{EventLog, LogError};
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::sim::{simulate, SimulatedGame};
use mafia_rules::{Envelope, RuleSetId};
use rand::SeedableRng;

/// The header the referee would store for a simulated game.
pub fn header(sim: &SimulatedGame, id: &GameId) -> Header {
    let mut header = Header::for_setup(&sim.setup, id);
    header.judge = format!("Judge {}", id.table);
    header
}

/// Game `game` at `table` in round `round` of the demo tournament.
pub fn game_id(tournament: &str, round: u32, table: u32) -> GameId {
    format!("{tournament}.main.r{round}.t{table}.g1")
        .parse()
        .expect("demo ids are valid")
}

/// Appends `events` after the game's current last event (single writer,
/// fence 0: the demo never takes a lease).
pub async fn append(log: &dyn EventLog, game: &str, events: &[Envelope]) -> Result<(), LogError> {
    if events.is_empty() {
        return Ok(());
    }
    let last = log.last_seq(game).await?;
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| {
            let logged = LoggedEvent {
                client_seq: None,
                envelope: *e,
            };
            Bytes::from(serde_json::to_vec(&logged).expect("events serialize"))
        })
        .collect();
    log.append(game, last, 0, &payloads).await?;
    Ok(())
}

/// Plays `tables` simulated games into `log`, one event every `pace` per
/// table, then starts new ones; runs until dropped. Game ids are
/// `demo.main.r{round}.t{table}.g1`.
pub async fn run(
    log: Arc<dyn EventLog>,
    tables: u32,
    pace: Duration,
    seed: u64,
) -> Result<(), LogError> {
    let rules = [
        RuleSetId::Rfm,
        RuleSetId::Classic,
        RuleSetId::Minsk2017,
        RuleSetId::Ua,
        RuleSetId::Club,
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut round = 1;
    loop {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let mut games = Vec::new();
        for t in 1..=tables {
            let sim = simulate(rules[t as usize % rules.len()], &mut rng, now);
            let game = game_id("demo", round, t);
            let h = serde_json::to_vec(&header(&sim, &game)).expect("headers serialize");
            let id = game.to_string();
            log.create_game(&id, &h).await?;
            let done = log.last_seq(&id).await? as usize;
            games.push((id, sim, done));
        }
        let mut tick = tokio::time::interval(pace);
        loop {
            tick.tick().await;
            let mut any = false;
            for (id, sim, done) in &mut games {
                if *done < sim.events.len() {
                    // The events of one command go together, as the referee
                    // appends them.
                    let cmd = sim.events[*done].cmd;
                    let n = sim.events[*done..]
                        .iter()
                        .take_while(|e| e.cmd == cmd)
                        .count();
                    append(log.as_ref(), id, &sim.events[*done..*done + n]).await?;
                    *done += n;
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
        round += 1;
    }
}
