//! Gateways side by side on a shared Redis log agree with each other.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use mafia_event_log::testing::{unique_prefix, RedisServer};
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use mafia_gateway::Hub;
use mafia_rules::{Audience, RuleSetId};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_on_one_redis_log_serve_the_same_feeds() {
    let redis = RedisServer::from_env_or_spawn().expect("redis-server is needed for this test");
    let config = RedisLogConfig::with_prefix(unique_prefix("gateway"));
    let log: Arc<dyn EventLog> = Arc::new(
        RedisLog::connect_with(redis.url(), config.clone())
            .await
            .unwrap(),
    );
    let sim = game(RuleSetId::Club, 7);
    create(&log, "cup.final.r1.t1.g1", &sim, 1).await;
    // One gateway starts before the game is under way, the other in the middle.
    append(&log, "cup.final.r1.t1.g1", &sim.events[..30]).await;
    let early = Hub::start(log.clone(), hub_config(Duration::ZERO))
        .await
        .unwrap();
    let mut sub = early
        .subscribe(&gid("cup.final.r1.t1.g1"), Audience::Public, None)
        .unwrap();
    append(&log, "cup.final.r1.t1.g1", &sim.events[30..100]).await;
    let other_log: Arc<dyn EventLog> =
        Arc::new(RedisLog::connect_with(redis.url(), config).await.unwrap());
    let late = Hub::start(other_log, hub_config(Duration::ZERO))
        .await
        .unwrap();
    append(&log, "cup.final.r1.t1.g1", &sim.events[100..]).await;
    let n = sim.events.len() as u64;
    for hub in [&early, &late] {
        until(hub, |h| {
            h.state(&gid("cup.final.r1.t1.g1"), Audience::Judge)
                .is_ok_and(|s| s.seq == n)
                && h.state(&gid("cup.final.r1.t1.g1"), Audience::Broadcast)
                    .is_ok_and(|s| s.seq == n)
                // The public's last morning may still be held.
                && h.state(&gid("cup.final.r1.t1.g1"), Audience::Public)
                    .is_ok_and(|s| s.seq == sim.game.public_seq() as u64)
        })
        .await;
    }
    for a in [Audience::Public, Audience::Broadcast, Audience::Judge] {
        let x = early.state(&gid("cup.final.r1.t1.g1"), a).unwrap();
        let y = late.state(&gid("cup.final.r1.t1.g1"), a).unwrap();
        assert_eq!(x.seq, y.seq, "{a:?} numbering differs");
        assert_eq!(x.view, y.view, "{a:?} views differ");
        assert_eq!(
            early
                .events(&gid("cup.final.r1.t1.g1"), a, 0, usize::MAX)
                .unwrap()
                .len(),
            late.events(&gid("cup.final.r1.t1.g1"), a, 0, usize::MAX)
                .unwrap()
                .len()
        );
    }
    // The early subscriber follows the whole public feed, gap-free.
    let mut f = Follower::default();
    for b in std::mem::take(&mut sub.initial) {
        f.apply(&serde_json::from_slice(&b).unwrap());
    }
    let want = early
        .state(&gid("cup.final.r1.t1.g1"), Audience::Public)
        .unwrap()
        .seq;
    while f.seq < want {
        match tokio::time::timeout(Duration::from_secs(30), sub.recv())
            .await
            .unwrap()
        {
            Ok(b) => f.apply(&serde_json::from_slice(&b).unwrap()),
            // It did not read while the game was appended: resume where it was.
            Err(mafia_gateway::hub::Ended::Lagged) => {
                sub = early
                    .subscribe(&gid("cup.final.r1.t1.g1"), Audience::Public, Some(f.seq))
                    .unwrap();
                for b in std::mem::take(&mut sub.initial) {
                    f.apply(&serde_json::from_slice(&b).unwrap());
                }
            }
            Err(e) => panic!("{e:?}"),
        }
    }
    early.close();
    late.close();
}
