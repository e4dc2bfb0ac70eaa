//! The hub alone, over many simulated games of every rule set.

mod common;

use std::time::Duration;

use common::*;
use mafia_gateway::HubConfig;
use mafia_rules::{Audience, Event, RuleSetId};
use serde_json::Value;

fn hidden_kinds(events: &[mafia_rules::Envelope]) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for e in events {
        let k = match e.event {
            Event::ShotFired { .. } => "shot_fired",
            Event::DonChecked { .. } => "don_checked",
            Event::SheriffChecked { .. } => "sheriff_checked",
            Event::BeautyPicked { .. } => "beauty_picked",
            _ => continue,
        };
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_feeds_of_many_games_hide_every_hidden_fact_and_rebuild_the_engine_view() {
    let config = HubConfig {
        queue_capacity: 100_000,
        ..hub_config(Duration::from_millis(1))
    };
    let fx = start(config, mafia_gateway::ServerConfig::default()).await;
    let mut covered = Vec::new();
    for (i, rules) in RuleSetId::ALL.into_iter().enumerate() {
        for seed in 0..4u64 {
            let sim = game(rules, 100 + seed);
            covered.extend(hidden_kinds(&sim.events));
            let id = format!("cup.final.r{}.t{}.g1", i + 1, seed + 1);
            create(&fx.log, &id, &sim, 1).await;
            append(&fx.log, &id, &sim.events[..1]).await;
            until(&fx.hub, |h| h.has_game(&gid(&id))).await;
            let mut public = fx.hub.subscribe(&gid(&id), Audience::Public, None).unwrap();
            let mut judge = fx.hub.subscribe(&gid(&id), Audience::Judge, None).unwrap();
            for chunk in sim.events[1..].chunks(40) {
                append(&fx.log, &id, chunk).await;
            }
            let n = sim.events.len() as u64;
            // Judge: every event, in engine numbering.
            let mut fj = Follower::default();
            for b in std::mem::take(&mut judge.initial) {
                fj.apply(&serde_json::from_slice(&b).unwrap());
            }
            while fj.seq < n {
                let b = tokio::time::timeout(Duration::from_secs(30), judge.recv())
                    .await
                    .unwrap()
                    .unwrap();
                fj.apply(&serde_json::from_slice(&b).unwrap());
            }
            let mut want = serde_json::to_value(sim.game.view(Audience::Judge)).unwrap();
            assert_eq!(fj.normalized(), normalized(&want), "{id}: judge view");
            // Public: nothing hidden before the end; same final view.
            let mut fp = Follower::default();
            for b in std::mem::take(&mut public.initial) {
                fp.apply(&serde_json::from_slice(&b).unwrap());
            }
            // Every public event, some held back by the public's nights.
            let target = sim.game.public_seq() as u64;
            let mut ended = false;
            while fp.seq < target {
                let b = tokio::time::timeout(Duration::from_secs(30), public.recv())
                    .await
                    .unwrap()
                    .unwrap();
                let m: Value = serde_json::from_slice(&b).unwrap();
                if !ended {
                    let ty = m["event"]["event"]["type"].as_str().unwrap().to_owned();
                    ended = ty == "game_ended";
                    if !ended {
                        assert!(!HIDDEN.contains(&ty.as_str()), "{id}: public saw {ty}");
                        assert!(m["event"].get("cmd").is_none());
                    }
                }
                fp.apply(&m);
                if !ended {
                    assert!(
                        fp.view["seats"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|s| s["role"].is_null()),
                        "{id}: a role in the public view at seq {}",
                        fp.seq
                    );
                }
            }
            want = serde_json::to_value(sim.game.view(Audience::Public)).unwrap();
            want["seq"] = target.into();
            assert_eq!(fp.normalized(), normalized(&want), "{id}: public view");
        }
    }
    for k in [
        "shot_fired",
        "don_checked",
        "sheriff_checked",
        "beauty_picked",
    ] {
        assert!(covered.contains(&k), "no simulated game had {k}");
    }
}

/// The shell on tokio's paused clock: the one timer releases the
/// broadcast's events when their delay is over, not a moment before.
#[tokio::test(start_paused = true)]
async fn broadcast_subscribers_get_live_events_exactly_when_the_delay_is_over() {
    let delay = Duration::from_secs(60);
    let dir = tempfile::tempdir().unwrap();
    let log: std::sync::Arc<dyn mafia_event_log::EventLog> = std::sync::Arc::new(
        mafia_event_log::EmbeddedLog::open(dir.path().join("log.redb"))
            .await
            .unwrap(),
    );
    let hub = mafia_gateway::Hub::start(log.clone(), hub_config(delay))
        .await
        .unwrap();
    let sim = game(RuleSetId::Club, 7);
    create(&log, "cup.bc.r1.t1.g1", &sim, 1).await;
    append(&log, "cup.bc.r1.t1.g1", &sim.events[..1]).await;
    until(&hub, |h| h.has_game(&gid("cup.bc.r1.t1.g1"))).await;
    let mut broadcast = hub
        .subscribe(&gid("cup.bc.r1.t1.g1"), Audience::Broadcast, None)
        .unwrap();
    let mut judge = hub
        .subscribe(&gid("cup.bc.r1.t1.g1"), Audience::Judge, None)
        .unwrap();
    append(&log, "cup.bc.r1.t1.g1", &sim.events[1..20]).await;
    until_folded(&hub, "cup.bc.r1.t1.g1", 20).await;
    assert_eq!(
        hub.state(&gid("cup.bc.r1.t1.g1"), Audience::Broadcast)
            .unwrap()
            .seq,
        0
    );
    assert!(
        broadcast.try_recv().is_none(),
        "the broadcast saw an event early"
    );
    assert!(judge.try_recv().is_some(), "judges see events at once");

    tokio::time::advance(delay - Duration::from_millis(1)).await;
    assert!(
        broadcast.try_recv().is_none(),
        "a millisecond early is still early"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    until(&hub, |h| {
        h.state(&gid("cup.bc.r1.t1.g1"), Audience::Broadcast)
            .unwrap()
            .seq
            == 20
    })
    .await;
    let mut f = Follower::default();
    for b in std::mem::take(&mut broadcast.initial) {
        f.apply(&serde_json::from_slice(&b).unwrap());
    }
    while let Some(b) = broadcast.try_recv() {
        f.apply(&serde_json::from_slice(&b).unwrap());
    }
    assert_eq!(f.seq, 20, "every event once, in order");
    let upto = mafia_rules::Game::replay(sim.setup.clone(), &sim.events[..20]).unwrap();
    let engine = serde_json::to_value(upto.view(Audience::Broadcast)).unwrap();
    assert_eq!(f.normalized(), normalized(&engine));
    hub.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_that_are_not_games_are_skipped() {
    let fx = start(
        hub_config(Duration::from_secs(60)),
        mafia_gateway::ServerConfig::default(),
    )
    .await;
    let sim = game(RuleSetId::Club, 7);
    // The scoring service's log of a tournament shares the event log.
    create(&fx.log, "tournament.cup", &sim, 1).await;
    append(&fx.log, "tournament.cup", &sim.events[..5]).await;
    create(&fx.log, "cup.final.r1.t1.g1", &sim, 1).await;
    append(&fx.log, "cup.final.r1.t1.g1", &sim.events[..5]).await;
    until_folded(&fx.hub, "cup.final.r1.t1.g1", 5).await;
    let ids: Vec<_> = fx
        .hub
        .games()
        .into_iter()
        .map(|g| g.game_id.to_string())
        .collect();
    assert_eq!(ids, vec!["cup.final.r1.t1.g1"]);
    assert_eq!(
        fx.hub
            .stats()
            .events
            .load(std::sync::atomic::Ordering::Relaxed),
        5,
        "only the game's events are folded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_games_protocol_is_read_from_the_log_once_it_left_memory() {
    let config = HubConfig {
        retention: Duration::from_millis(1),
        ..hub_config(Duration::from_millis(1))
    };
    let fx = start(config, mafia_gateway::ServerConfig::default()).await;
    let sim = game(RuleSetId::Classic, 3);
    let id = "cup.final.r1.t1.g1";
    create(&fx.log, id, &sim, 1).await;
    append(&fx.log, id, &sim.events[..1]).await;
    until(&fx.hub, |h| h.has_game(&gid(id))).await;
    append(&fx.log, id, &sim.events[1..]).await;
    until(&fx.hub, |h| !h.has_game(&gid(id))).await;
    assert!(
        fx.hub.protocol(&gid(id), Audience::Public).is_err(),
        "left memory"
    );
    for audience in [Audience::Public, Audience::Broadcast, Audience::Judge] {
        let (info, events) = fx
            .hub
            .protocol_or_archive(&gid(id), audience)
            .await
            .unwrap()
            .expect("a finished game");
        assert_eq!(info.table, 1);
        assert_eq!(events.len(), sim.events.len(), "{audience:?}");
        assert_eq!(events.last().unwrap().seq as usize, sim.events.len());
    }
    let unknown = fx
        .hub
        .protocol_or_archive(&gid("cup.final.r1.t2.g1"), Audience::Public)
        .await;
    assert!(unknown.is_err());
}
