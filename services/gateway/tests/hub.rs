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
            let id = format!("g{i}-{seed}");
            create(&fx.log, &id, &sim, 1).await;
            append(&fx.log, &id, &sim.events[..1]).await;
            while !fx.hub.has_table(&id) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let mut public = fx.hub.subscribe(&id, Audience::Public, None).unwrap();
            let mut judge = fx.hub.subscribe(&id, Audience::Judge, None).unwrap();
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
            let target = fx.hub.state(&id, Audience::Public).unwrap().seq;
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
