//! Behaviour every [`EventLog`] backend must have. Each function takes a
//! fresh, empty log and panics on a violation.
//!
//! Run all of them against a backend with [`event_log_conformance_tests!`]
//! (the calling crate needs `tokio` with `macros` and `rt-multi-thread`):
//!
//! ```ignore
//! async fn fresh_log() -> (Arc<dyn EventLog>, impl Sized) { /* log, guard */ }
//! mafia_event_log::event_log_conformance_tests!(fresh_log());
//! ```
//!
//! [`event_log_conformance_tests!`]: crate::event_log_conformance_tests

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;

use crate::{
    Event as FollowedEvent, EventLog, FeedCursor, FeedEntry, FeedStream, FollowConfig,
    FollowStream, Followed, GameFollowed, LogError, Source,
};

/// Generates one `#[tokio::test]` per conformance check. `$make` is an
/// expression evaluating to a future of `(Arc<dyn EventLog>, guard)`; the
/// guard (temp dir, Redis server, …) is kept alive for the test's duration.
///
/// `sequential NAME, ENV = SETUP, MAKE` instead makes one test, `NAME`, that
/// runs every check in turn: `SETUP` is evaluated once (e.g. a local Redis
/// Cluster, too costly to start per check) and `MAKE` may use it as `ENV`.
#[macro_export]
macro_rules! event_log_conformance_tests {
    ($make:expr) => {
        $crate::event_log_conformance_tests!(@checks (tests) $make);
    };
    (sequential $test:ident, $env:ident = $setup:expr, $make:expr) => {
        $crate::event_log_conformance_tests!(@checks (sequential $test $env $setup) $make);
    };
    (@checks $how:tt $make:expr) => {
        $crate::event_log_conformance_tests!(@run $how $make;
            append_then_read_returns_events_in_order,
            stale_or_duplicate_append_conflicts_and_writes_nothing,
            fenced_out_writer_cannot_append_after_takeover,
            fence_zero_is_accepted_only_before_any_lease,
            live_lease_blocks_other_owners_and_same_owner_renews_with_same_fence,
            expired_lease_is_taken_over_with_higher_fence,
            renew_after_expiry_succeeds_only_if_nobody_took_over,
            released_lease_is_free_at_once_and_release_by_non_holder_is_a_no_op,
            create_game_is_idempotent_for_the_same_header,
            create_game_with_a_different_header_is_rejected,
            unknown_game_is_rejected_by_every_operation,
            invalid_arguments_are_rejected_without_effect,
            feed_delivers_every_event_once_in_order_across_games,
            feed_resumes_after_a_cursor,
            feed_resumes_from_a_cursor_inside_one_append,
            feed_from_head_or_now_skips_earlier_events,
            concurrent_appenders_on_the_same_expected_seq_exactly_one_wins,
            concurrent_lease_acquirers_exactly_one_wins,
            concurrent_appends_to_many_games_each_get_their_own_outcome,
            large_batch_append_is_stored_and_readable,
            follower_catches_up_then_goes_live_missing_and_doubling_nothing,
            games_follower_passes_a_feed_entry_its_history_already_held,
            follower_of_a_game_that_falls_behind_catches_up_from_the_log,
            follower_of_some_shards_gets_their_games_only,
                );
    };
    (@run (tests) $make:expr; $($name:ident),+ $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (log, _guard) = $make.await;
                $crate::conformance::$name(log).await;
            }
        )+
    };
    (@run (sequential $test:ident $env:ident $setup:expr) $make:expr; $($name:ident),+ $(,)?) => {
        #[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            let $env = $setup;
            $(
                eprintln!("conformance: {}", stringify!($name));
                let (log, _guard) = $make.await;
                $crate::conformance::$name(log).await;
            )+
        }
    };
}

const FEED_TIMEOUT: Duration = Duration::from_secs(10);

fn payloads(prefix: &str, n: usize) -> Vec<Bytes> {
    (0..n)
        .map(|i| Bytes::from(format!("{prefix}-{i}")))
        .collect()
}

/// Takes exactly `n` items from `feed`, failing on error or timeout.
pub async fn take_feed(feed: &mut FeedStream, n: usize) -> Vec<(FeedCursor, FeedEntry)> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match tokio::time::timeout(FEED_TIMEOUT, feed.next()).await {
            Ok(Some(Ok(item))) => out.push(item),
            Ok(Some(Err(e))) => panic!("feed failed after {} items: {e}", out.len()),
            Ok(None) => panic!("feed ended after {} of {n} items", out.len()),
            Err(_) => panic!("feed stalled after {} of {n} items", out.len()),
        }
    }
    out
}

/// Asserts that `feed` yields nothing more for a short while.
pub async fn assert_feed_quiet(feed: &mut FeedStream) {
    if let Ok(item) = tokio::time::timeout(Duration::from_millis(300), feed.next()).await {
        panic!("feed yielded an unexpected item: {item:?}");
    }
}

async fn lease_expiry() {
    tokio::time::sleep(Duration::from_millis(250)).await;
}

const SHORT_TTL: Duration = Duration::from_millis(100);
const LONG_TTL: Duration = Duration::from_secs(30);

pub async fn append_then_read_returns_events_in_order(log: Arc<dyn EventLog>) {
    assert!(log.create_game("g1", b"setup").await.unwrap());
    assert_eq!(log.last_seq("g1").await.unwrap(), 0);
    assert!(log.read("g1", 1, 10).await.unwrap().is_empty());

    let a = log.append("g1", 0, 0, &payloads("a", 3)).await.unwrap();
    assert_eq!((a.first_seq, a.last_seq), (1, 3));
    let b = log.append("g1", 3, 0, &payloads("b", 2)).await.unwrap();
    assert_eq!((b.first_seq, b.last_seq), (4, 5));
    assert_eq!(log.last_seq("g1").await.unwrap(), 5);

    let all = log.read("g1", 0, 100).await.unwrap();
    let seqs: Vec<u64> = all.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    let bodies: Vec<&[u8]> = all.iter().map(|e| e.payload.as_ref()).collect();
    assert_eq!(
        bodies,
        vec![&b"a-0"[..], b"a-1", b"a-2", b"b-0", b"b-1"],
        "payloads must come back byte-for-byte in append order"
    );

    let middle = log.read("g1", 2, 2).await.unwrap();
    assert_eq!(middle.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    assert!(log.read("g1", 6, 10).await.unwrap().is_empty());
    assert!(log.read("g1", 1, 0).await.unwrap().is_empty());

    // Another game's sequence is independent.
    log.create_game("g2", b"other").await.unwrap();
    let c = log.append("g2", 0, 0, &payloads("c", 1)).await.unwrap();
    assert_eq!((c.first_seq, c.last_seq), (1, 1));
    assert_eq!(log.read("g1", 1, 100).await.unwrap().len(), 5);
}

pub async fn stale_or_duplicate_append_conflicts_and_writes_nothing(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("first", 2)).await.unwrap();

    // A retried (duplicate) append of the same batch at the same position.
    match log.append("g", 0, 0, &payloads("first", 2)).await {
        Err(LogError::Conflict { actual_last_seq: 2 }) => {}
        other => panic!("duplicate append must conflict, got {other:?}"),
    }
    // A writer that thinks it is ahead.
    match log.append("g", 5, 0, &payloads("ahead", 1)).await {
        Err(LogError::Conflict { actual_last_seq: 2 }) => {}
        other => panic!("append past the end must conflict, got {other:?}"),
    }
    // A stale writer one behind.
    match log.append("g", 1, 0, &payloads("stale", 1)).await {
        Err(LogError::Conflict { actual_last_seq: 2 }) => {}
        other => panic!("stale append must conflict, got {other:?}"),
    }
    assert_eq!(log.last_seq("g").await.unwrap(), 2);
    let stored = log.read("g", 1, 100).await.unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[1].payload, Bytes::from("first-1"));

    // Nothing leaked to the feed either.
    let mut feed = log.feed(FeedCursor::beginning());
    let items = take_feed(&mut feed, 2).await;
    assert!(items.iter().all(|(_, e)| e.payload.starts_with(b"first")));
    assert_feed_quiet(&mut feed).await;
}

pub async fn fenced_out_writer_cannot_append_after_takeover(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    let old = log.acquire_lease("g", "ref-a", SHORT_TTL).await.unwrap();
    log.append("g", 0, old.fence, &payloads("a", 1))
        .await
        .unwrap();

    lease_expiry().await;
    let new = log.acquire_lease("g", "ref-b", LONG_TTL).await.unwrap();
    assert!(new.fence > old.fence);

    // The old writer (e.g. resumed after a long pause) has the right seq but a stale fence.
    match log.append("g", 1, old.fence, &payloads("zombie", 1)).await {
        Err(LogError::Fenced { current_fence }) => assert_eq!(current_fence, new.fence),
        other => panic!("fenced-out append must fail, got {other:?}"),
    }
    // Fencing is reported even when the seq is also wrong.
    match log.append("g", 0, old.fence, &payloads("zombie", 1)).await {
        Err(LogError::Fenced { .. }) => {}
        other => panic!("fenced-out append must fail as Fenced, got {other:?}"),
    }
    assert_eq!(log.last_seq("g").await.unwrap(), 1);
    log.append("g", 1, new.fence, &payloads("b", 1))
        .await
        .unwrap();
    assert_eq!(
        log.read("g", 2, 10).await.unwrap()[0].payload,
        Bytes::from("b-0")
    );
}

pub async fn fence_zero_is_accepted_only_before_any_lease(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("free", 1)).await.unwrap();
    match log.append("g", 1, 7, &payloads("bogus", 1)).await {
        Err(LogError::Fenced { current_fence: 0 }) => {}
        other => panic!("a made-up fence must be rejected, got {other:?}"),
    }
    let lease = log.acquire_lease("g", "ref", LONG_TTL).await.unwrap();
    assert_eq!(lease.fence, 1, "the first lease gets fence 1");
    match log.append("g", 1, 0, &payloads("unleased", 1)).await {
        Err(LogError::Fenced { current_fence: 1 }) => {}
        other => panic!("fence 0 must be rejected once a lease exists, got {other:?}"),
    }
    log.release_lease("g", "ref", lease.fence).await.unwrap();
    match log.append("g", 1, 0, &payloads("unleased", 1)).await {
        Err(LogError::Fenced { current_fence: 1 }) => {}
        other => panic!("fence 0 must stay rejected after a release, got {other:?}"),
    }
}

pub async fn live_lease_blocks_other_owners_and_same_owner_renews_with_same_fence(
    log: Arc<dyn EventLog>,
) {
    log.create_game("g", b"h").await.unwrap();
    let a = log.acquire_lease("g", "ref-a", LONG_TTL).await.unwrap();
    assert_eq!(a.owner, "ref-a");
    assert_eq!(a.expires_in, LONG_TTL);

    match log.acquire_lease("g", "ref-b", LONG_TTL).await {
        Err(LogError::LeaseHeld { owner, expires_in }) => {
            assert_eq!(owner, "ref-a");
            assert!(expires_in > Duration::ZERO && expires_in <= LONG_TTL);
        }
        other => panic!("a live lease must block other owners, got {other:?}"),
    }

    let again = log.acquire_lease("g", "ref-a", LONG_TTL).await.unwrap();
    assert_eq!(
        again.fence, a.fence,
        "re-acquiring one's own lease is a renewal"
    );
    let renewed = log
        .renew_lease("g", "ref-a", a.fence, LONG_TTL)
        .await
        .unwrap();
    assert_eq!(renewed.fence, a.fence);

    match log.renew_lease("g", "ref-b", a.fence, LONG_TTL).await {
        Err(LogError::LeaseLost { current_fence }) => assert_eq!(current_fence, a.fence),
        other => panic!("a non-holder cannot renew, got {other:?}"),
    }
    match log.renew_lease("g", "ref-a", a.fence + 1, LONG_TTL).await {
        Err(LogError::LeaseLost { .. }) => {}
        other => panic!("renewal with a wrong fence must fail, got {other:?}"),
    }
    // Leases are per game.
    log.create_game("other", b"h").await.unwrap();
    let o = log.acquire_lease("other", "ref-b", LONG_TTL).await.unwrap();
    assert_eq!(o.fence, 1);
}

pub async fn expired_lease_is_taken_over_with_higher_fence(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    let a = log.acquire_lease("g", "ref-a", SHORT_TTL).await.unwrap();
    lease_expiry().await;
    let b = log.acquire_lease("g", "ref-b", SHORT_TTL).await.unwrap();
    assert!(b.fence > a.fence, "takeover must get a higher fence");

    match log.renew_lease("g", "ref-a", a.fence, LONG_TTL).await {
        Err(LogError::LeaseLost { current_fence }) => assert_eq!(current_fence, b.fence),
        other => panic!("the old holder must have lost the lease, got {other:?}"),
    }
    // Even after b's lease expires, a's old fence stays dead.
    lease_expiry().await;
    match log.renew_lease("g", "ref-a", a.fence, LONG_TTL).await {
        Err(LogError::LeaseLost { current_fence }) => assert_eq!(current_fence, b.fence),
        other => panic!("a superseded fence must never come back, got {other:?}"),
    }
    // Re-acquiring by the original owner is a new lease, so a new fence.
    let a2 = log.acquire_lease("g", "ref-a", LONG_TTL).await.unwrap();
    assert!(a2.fence > b.fence);
}

pub async fn renew_after_expiry_succeeds_only_if_nobody_took_over(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    let a = log.acquire_lease("g", "ref-a", SHORT_TTL).await.unwrap();
    lease_expiry().await;
    let renewed = log
        .renew_lease("g", "ref-a", a.fence, LONG_TTL)
        .await
        .unwrap();
    assert_eq!(renewed.fence, a.fence);
    match log.acquire_lease("g", "ref-b", LONG_TTL).await {
        Err(LogError::LeaseHeld { owner, .. }) => assert_eq!(owner, "ref-a"),
        other => panic!("the renewed lease must be live again, got {other:?}"),
    }
}

pub async fn released_lease_is_free_at_once_and_release_by_non_holder_is_a_no_op(
    log: Arc<dyn EventLog>,
) {
    log.create_game("g", b"h").await.unwrap();
    let a = log.acquire_lease("g", "ref-a", LONG_TTL).await.unwrap();

    log.release_lease("g", "ref-b", a.fence).await.unwrap();
    log.release_lease("g", "ref-a", a.fence + 1).await.unwrap();
    assert!(
        matches!(
            log.acquire_lease("g", "ref-b", LONG_TTL).await,
            Err(LogError::LeaseHeld { .. })
        ),
        "a release by a non-holder must not free the lease"
    );

    log.release_lease("g", "ref-a", a.fence).await.unwrap();
    log.release_lease("g", "ref-a", a.fence).await.unwrap(); // idempotent
    let b = log.acquire_lease("g", "ref-b", LONG_TTL).await.unwrap();
    assert!(b.fence > a.fence);
    match log.renew_lease("g", "ref-a", a.fence, LONG_TTL).await {
        Err(LogError::LeaseLost { .. }) => {}
        other => panic!("a released lease cannot be renewed after takeover, got {other:?}"),
    }
}

pub async fn create_game_is_idempotent_for_the_same_header(log: Arc<dyn EventLog>) {
    let header = b"\x00binary\xffheader".to_vec();
    assert!(log.create_game("g", &header).await.unwrap());
    log.append("g", 0, 0, &payloads("e", 2)).await.unwrap();
    assert!(!log.create_game("g", &header).await.unwrap());
    assert_eq!(
        log.last_seq("g").await.unwrap(),
        2,
        "re-creating must not reset the log"
    );
    assert_eq!(log.header("g").await.unwrap(), Some(Bytes::from(header)));

    assert!(log.create_game("empty-header", b"").await.unwrap());
    assert!(!log.create_game("empty-header", b"").await.unwrap());
    assert_eq!(
        log.header("empty-header").await.unwrap(),
        Some(Bytes::new())
    );

    log.create_game("a.0", b"x").await.unwrap();
    assert_eq!(
        log.list_games().await.unwrap(),
        vec!["a.0".to_owned(), "empty-header".to_owned(), "g".to_owned()]
    );
}

pub async fn create_game_with_a_different_header_is_rejected(log: Arc<dyn EventLog>) {
    log.create_game("g", b"one").await.unwrap();
    match log.create_game("g", b"two").await {
        Err(LogError::HeaderMismatch { game }) => assert_eq!(game, "g"),
        other => panic!("a different header must be rejected, got {other:?}"),
    }
    assert_eq!(log.header("g").await.unwrap(), Some(Bytes::from("one")));
}

pub async fn unknown_game_is_rejected_by_every_operation(log: Arc<dyn EventLog>) {
    fn unknown<T: std::fmt::Debug>(r: Result<T, LogError>, op: &str) {
        match r {
            Err(LogError::UnknownGame(g)) => assert_eq!(g, "nope"),
            other => panic!("{op} on an unknown game must fail, got {other:?}"),
        }
    }
    assert_eq!(log.header("nope").await.unwrap(), None);
    unknown(log.append("nope", 0, 0, &payloads("x", 1)).await, "append");
    unknown(log.last_seq("nope").await, "last_seq");
    unknown(log.read("nope", 1, 10).await, "read");
    unknown(log.acquire_lease("nope", "r", LONG_TTL).await, "acquire");
    unknown(log.renew_lease("nope", "r", 1, LONG_TTL).await, "renew");
    unknown(log.release_lease("nope", "r", 1).await, "release");
    assert!(log.list_games().await.unwrap().is_empty());
}

pub async fn invalid_arguments_are_rejected_without_effect(log: Arc<dyn EventLog>) {
    fn invalid<T: std::fmt::Debug>(r: Result<T, LogError>, what: &str) {
        assert!(
            matches!(r, Err(LogError::InvalidArgument(_))),
            "{what} must be rejected, got {r:?}"
        );
    }
    invalid(log.create_game("", b"h").await, "empty game id");
    invalid(log.create_game("a:b", b"h").await, "':' in a game id");
    invalid(log.create_game("a b", b"h").await, "space in a game id");
    invalid(
        log.create_game(&"x".repeat(129), b"h").await,
        "long game id",
    );
    log.create_game("g", b"h").await.unwrap();
    invalid(log.append("g", 0, 0, &[]).await, "empty batch");
    invalid(log.acquire_lease("g", "", LONG_TTL).await, "empty owner");
    invalid(
        log.acquire_lease("g", "r", Duration::ZERO).await,
        "zero ttl",
    );
    invalid(
        log.renew_lease("g", "r", 0, Duration::from_micros(10))
            .await,
        "sub-ms ttl",
    );
    assert_eq!(log.last_seq("g").await.unwrap(), 0);
    assert_eq!(log.list_games().await.unwrap(), vec!["g".to_owned()]);
    let lease = log.acquire_lease("g", "r", LONG_TTL).await.unwrap();
    assert_eq!(
        lease.fence, 1,
        "rejected lease calls must not consume fences"
    );
}

pub async fn feed_delivers_every_event_once_in_order_across_games(log: Arc<dyn EventLog>) {
    log.create_game("g1", b"h").await.unwrap();
    log.create_game("g2", b"h").await.unwrap();
    let mut live = log.feed(log.feed_head().await.unwrap());

    let mut expected = Vec::new();
    let (mut s1, mut s2) = (0, 0);
    for round in 0..5 {
        let g1 = payloads(&format!("g1r{round}"), 2);
        s1 = log.append("g1", s1, 0, &g1).await.unwrap().last_seq;
        expected.extend(
            g1.iter()
                .enumerate()
                .map(|(i, p)| ("g1", s1 - 1 + i as u64, p.clone())),
        );
        let g2 = payloads(&format!("g2r{round}"), 1);
        s2 = log.append("g2", s2, 0, &g2).await.unwrap().last_seq;
        expected.push(("g2", s2, g2[0].clone()));
    }

    let got = take_feed(&mut live, expected.len()).await;
    let got_entries: Vec<(&str, u64, Bytes)> = got
        .iter()
        .map(|(_, e)| (e.game.as_str(), e.seq, e.payload.clone()))
        .collect();
    assert_eq!(
        per_game(&got_entries),
        per_game(&expected),
        "per game, the feed must follow commit order exactly"
    );
    let mut cursors: Vec<&FeedCursor> = got.iter().map(|(c, _)| c).collect();
    cursors.sort_by_key(|c| c.as_str());
    cursors.dedup();
    assert_eq!(cursors.len(), got.len(), "every entry has its own cursor");
    assert_feed_quiet(&mut live).await;

    // A follower starting from the beginning sees the same history.
    let mut replay = log.feed(FeedCursor::beginning());
    let replayed = take_feed(&mut replay, expected.len()).await;
    let replayed: Vec<(&str, u64, Bytes)> = replayed
        .iter()
        .map(|(_, e)| (e.game.as_str(), e.seq, e.payload.clone()))
        .collect();
    assert_eq!(per_game(&replayed), per_game(&got_entries));
    assert_feed_quiet(&mut replay).await;
}

/// Feed entries grouped by game, each game's in the order given: what the
/// feed promises across shards.
fn per_game<'a>(entries: &[(&'a str, u64, Bytes)]) -> HashMap<&'a str, Vec<(u64, Bytes)>> {
    let mut out: HashMap<&str, Vec<(u64, Bytes)>> = HashMap::new();
    for (g, seq, p) in entries {
        out.entry(*g).or_default().push((*seq, p.clone()));
    }
    out
}

pub async fn feed_resumes_after_a_cursor(log: Arc<dyn EventLog>) {
    log.create_game("g1", b"h").await.unwrap();
    log.create_game("g2", b"h").await.unwrap();
    log.append("g1", 0, 0, &payloads("a", 3)).await.unwrap();
    log.append("g2", 0, 0, &payloads("b", 2)).await.unwrap();

    let mut first = log.feed(FeedCursor::beginning());
    let seen = take_feed(&mut first, 3).await;
    drop(first);
    let resume_at = seen.last().unwrap().0.clone();

    // Persist-and-restore the cursor as a string, as a follower would.
    let restored = FeedCursor::from(resume_at.as_str().to_owned());
    let mut resumed = log.feed(restored);
    log.append("g1", 3, 0, &payloads("c", 1)).await.unwrap();
    let rest = take_feed(&mut resumed, 3).await;
    let mut keys: Vec<(String, u64)> = seen
        .iter()
        .chain(&rest)
        .map(|(_, e)| (e.game.clone(), e.seq))
        .collect();
    let in_order = |g: &str, keys: &[(String, u64)]| {
        let seqs: Vec<u64> = keys
            .iter()
            .filter(|(k, _)| k == g)
            .map(|(_, s)| *s)
            .collect();
        seqs.windows(2).all(|w| w[0] < w[1])
    };
    assert!(
        in_order("g1", &keys) && in_order("g2", &keys),
        "per game in order across the resume: {keys:?}"
    );
    keys.sort();
    assert_eq!(
        keys,
        vec![
            ("g1".into(), 1),
            ("g1".into(), 2),
            ("g1".into(), 3),
            ("g1".into(), 4),
            ("g2".into(), 1),
            ("g2".into(), 2)
        ],
        "resuming must continue right after the cursor, without repeats"
    );
    assert_feed_quiet(&mut resumed).await;

    // Per game, a follower can catch up with `read` from any feed position.
    let g1 = log.read("g1", 1, 100).await.unwrap();
    assert_eq!(g1.len(), 4);
}

/// A follower that stopped between two events of one append resumes with
/// the next of them (a Redis feed entry holds an append's events, up to a
/// thousand), and a long append comes whole and in order.
pub async fn feed_resumes_from_a_cursor_inside_one_append(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("a", 4)).await.unwrap();
    let mut first = log.feed(FeedCursor::beginning());
    let seen = take_feed(&mut first, 4).await;
    drop(first);
    let seqs = |items: &[(FeedCursor, FeedEntry)]| -> Vec<u64> {
        items.iter().map(|(_, e)| e.seq).collect()
    };
    assert_eq!(seqs(&seen), vec![1, 2, 3, 4]);
    for (i, (cursor, entry)) in seen.iter().enumerate() {
        assert_eq!(entry.payload, payloads("a", 4)[i]);
        let mut resumed = log.feed(FeedCursor::from(cursor.as_str().to_owned()));
        let rest = take_feed(&mut resumed, 3 - i).await;
        assert_eq!(
            seqs(&rest),
            (i as u64 + 2..=4).collect::<Vec<_>>(),
            "resumed after event {} of the append",
            i + 1
        );
        assert_feed_quiet(&mut resumed).await;
    }

    let mut resumed = log.feed(seen[1].0.clone());
    const LONG: usize = 2_500;
    let long = payloads("b", LONG);
    log.append("g", 4, 0, &long).await.unwrap();
    let rest = take_feed(&mut resumed, 2 + LONG).await;
    assert_eq!(seqs(&rest), (3..=4 + LONG as u64).collect::<Vec<_>>());
    assert!(rest[2..]
        .iter()
        .zip(&long)
        .all(|((_, e), p)| e.payload == *p));
    let mut cursors: Vec<&str> = rest.iter().map(|(c, _)| c.as_str()).collect();
    cursors.dedup();
    assert_eq!(cursors.len(), rest.len(), "every event has its own cursor");
    // From the middle of the long append: its second half, nothing else.
    let mut half = log.feed(rest[2 + LONG / 2].0.clone());
    let tail = take_feed(&mut half, LONG / 2 - 1).await;
    assert_eq!(tail[0].1.seq, 4 + LONG as u64 / 2 + 2);
    assert_eq!(tail.last().map(|(_, e)| e.seq), Some(4 + LONG as u64));
    assert_feed_quiet(&mut half).await;
}

pub async fn feed_from_head_or_now_skips_earlier_events(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("old", 3)).await.unwrap();
    let mut from_head = log.feed(log.feed_head().await.unwrap());
    let mut from_now = log.feed(FeedCursor::now());
    // Let the lazily-started feed pin its position before appending.
    assert_feed_quiet(&mut from_now).await;
    log.append("g", 3, 0, &payloads("new", 2)).await.unwrap();
    for feed in [&mut from_head, &mut from_now] {
        let got = take_feed(feed, 2).await;
        assert_eq!(
            got.iter().map(|(_, e)| e.seq).collect::<Vec<_>>(),
            vec![4, 5]
        );
        assert_feed_quiet(feed).await;
    }
}

/// Appends racing on many games at once (Redis sends them as one batch):
/// each caller learns its own game's outcome, a refused one writes nothing,
/// and the others are stored as if they had been alone.
pub async fn concurrent_appends_to_many_games_each_get_their_own_outcome(log: Arc<dyn EventLog>) {
    const GAMES: usize = 24;
    for g in 0..GAMES {
        let game = format!("g{g}");
        log.create_game(&game, b"h").await.unwrap();
        log.append(&game, 0, 0, &payloads("base", 1)).await.unwrap();
    }
    log.acquire_lease("g3", "ref-a", Duration::from_secs(30))
        .await
        .unwrap();
    let barrier = Arc::new(tokio::sync::Barrier::new(GAMES));
    let tasks: Vec<_> = (0..GAMES)
        .map(|g| {
            let log = Arc::clone(&log);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                // Every third game is appended with a stale seq; g3 with a
                // stale fence (its lease made the fence 1).
                let expected = if g % 3 == 1 { 0 } else { 1 };
                let batch = payloads(&format!("g{g}"), 1 + g % 4);
                (g, log.append(&format!("g{g}"), expected, 0, &batch).await)
            })
        })
        .collect();
    for t in tasks {
        let (g, r) = t.await.unwrap();
        let game = format!("g{g}");
        let n = 1 + g % 4;
        match (g, r) {
            (3, Err(LogError::Fenced { current_fence: 1 })) => {}
            (3, other) => panic!("g3's append must be fenced, got {other:?}"),
            (g, Err(LogError::Conflict { actual_last_seq: 1 })) if g % 3 == 1 => {}
            (g, Ok(a)) if g % 3 != 1 => {
                assert_eq!((a.first_seq, a.last_seq), (2, 1 + n as u64), "{game}");
            }
            (_, other) => panic!("{game}: unexpected outcome {other:?}"),
        }
        let stored = log.read(&game, 1, 100).await.unwrap();
        let written = if g % 3 == 1 || g == 3 { 0 } else { n };
        assert_eq!(stored.len(), 1 + written, "{game}");
        assert_eq!(log.last_seq(&game).await.unwrap(), 1 + written as u64);
        for (i, e) in stored.iter().enumerate().skip(1) {
            assert_eq!(e.seq, 1 + i as u64);
            assert!(e.payload.starts_with(format!("g{g}-").as_bytes()), "{game}");
        }
    }
}

pub async fn concurrent_appenders_on_the_same_expected_seq_exactly_one_wins(
    log: Arc<dyn EventLog>,
) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("base", 1)).await.unwrap();
    const WRITERS: usize = 16;
    let barrier = Arc::new(tokio::sync::Barrier::new(WRITERS));
    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let log = Arc::clone(&log);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                let batch = payloads(&format!("w{w}"), 3);
                (w, log.append("g", 1, 0, &batch).await)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for t in tasks {
        let (w, r) = t.await.unwrap();
        match r {
            Ok(a) => {
                assert_eq!((a.first_seq, a.last_seq), (2, 4));
                winners.push(w);
            }
            Err(LogError::Conflict { actual_last_seq: 4 }) => {}
            Err(e) => panic!("loser must see Conflict at 4, got {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one racing writer may win");
    let stored = log.read("g", 2, 100).await.unwrap();
    let prefix = format!("w{}-", winners[0]);
    assert_eq!(stored.len(), 3);
    assert!(
        stored
            .iter()
            .all(|e| e.payload.starts_with(prefix.as_bytes())),
        "the stored batch must be the winner's, unmixed"
    );
}

pub async fn concurrent_lease_acquirers_exactly_one_wins(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    const CONTENDERS: usize = 8;
    let barrier = Arc::new(tokio::sync::Barrier::new(CONTENDERS));
    let tasks: Vec<_> = (0..CONTENDERS)
        .map(|c| {
            let log = Arc::clone(&log);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                log.acquire_lease("g", &format!("ref-{c}"), LONG_TTL).await
            })
        })
        .collect();
    let mut fences: HashMap<u64, usize> = HashMap::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(l) => *fences.entry(l.fence).or_default() += 1,
            Err(LogError::LeaseHeld { .. }) => {}
            Err(e) => panic!("loser must see LeaseHeld, got {e}"),
        }
    }
    assert_eq!(fences, HashMap::from([(1, 1)]), "one lease with fence 1");
}

pub async fn large_batch_append_is_stored_and_readable(log: Arc<dyn EventLog>) {
    log.create_game("g", b"h").await.unwrap();
    const N: usize = 5_000;
    let batch: Vec<Bytes> = (0..N)
        .map(|i| Bytes::from(format!("{i:08}-").repeat(32)))
        .collect();
    let a = log.append("g", 0, 0, &batch).await.unwrap();
    assert_eq!((a.first_seq, a.last_seq), (1, N as u64));
    // One big payload, with every byte value, in its own append.
    let big = Bytes::from(
        (0..4 * 1024 * 1024)
            .map(|i| (i % 256) as u8)
            .collect::<Vec<u8>>(),
    );
    log.append("g", N as u64, 0, std::slice::from_ref(&big))
        .await
        .unwrap();

    let mut from = 1;
    let mut next_seq = 1;
    loop {
        let page = log.read("g", from, 1_000).await.unwrap();
        if page.is_empty() {
            break;
        }
        for e in &page {
            assert_eq!(e.seq, next_seq, "reads must be contiguous");
            next_seq += 1;
            let expected = if (e.seq as usize) <= N {
                &batch[e.seq as usize - 1]
            } else {
                &big
            };
            assert_eq!(&e.payload, expected, "payload of seq {}", e.seq);
        }
        from = page.last().unwrap().seq + 1;
    }
    assert_eq!(next_seq, N as u64 + 2);

    let mut feed = log.feed(FeedCursor::beginning());
    let all = take_feed(&mut feed, N + 1).await;
    assert!(all.windows(2).all(|w| w[0].1.seq + 1 == w[1].1.seq));
    assert_eq!(all.last().unwrap().1.payload, big);
}

// ---- Followers (crate::follow, crate::fanout) ----

/// Quick retries: the store is local and a test should not idle.
pub fn follow_config() -> FollowConfig {
    FollowConfig {
        retry_after: Duration::from_millis(50),
        read_batch: 16,
        shards: None,
    }
}

/// The next item of a follower that is not a transient store error.
/// The next item, `Passed` aside: a games follower's bookkeeping for a feed
/// entry its history already held, which happens or not by timing.
async fn next_followed(s: &mut FollowStream) -> Followed {
    loop {
        match tokio::time::timeout(FEED_TIMEOUT, s.next()).await {
            Ok(Some(Ok(Followed::Passed { .. }))) => continue,
            Ok(Some(Ok(item))) => return item,
            Ok(Some(Err(e))) if !matches!(e, LogError::InvalidArgument(_)) => continue,
            Ok(Some(Err(e))) => panic!("follower failed: {e}"),
            Ok(None) => panic!("follower ended"),
            Err(_) => panic!("follower stalled"),
        }
    }
}

fn followed_event(item: Followed) -> Option<FollowedEvent> {
    match item {
        Followed::Event(e) => Some(e),
        _ => None,
    }
}

/// Appends until it succeeds, across a store restart (an append whose
/// outcome is unknown is checked with `last_seq`, as the trait asks).
async fn append_surely(log: &dyn EventLog, game: &str, after: u64, batch: &[Bytes]) {
    loop {
        match log.append(game, after, 0, batch).await {
            Ok(_) => return,
            Err(LogError::Conflict { actual_last_seq })
                if actual_last_seq == after + batch.len() as u64 =>
            {
                return
            }
            Err(e @ LogError::Conflict { .. }) => panic!("{e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Collects `want` events per game (and every other item) from a follower.
async fn collect_games(
    s: &mut FollowStream,
    want: &HashMap<&str, u64>,
) -> (HashMap<String, Vec<FollowedEvent>>, Vec<Followed>) {
    let mut got: HashMap<String, Vec<FollowedEvent>> = HashMap::new();
    let mut others = Vec::new();
    let done = |got: &HashMap<String, Vec<FollowedEvent>>| {
        want.iter()
            .all(|(g, n)| got.get(*g).map_or(0, Vec::len) as u64 >= *n)
    };
    while !done(&got) {
        match next_followed(s).await {
            Followed::Event(e) => got.entry(e.game.clone()).or_default().push(e),
            other => others.push(other),
        }
    }
    (got, others)
}

fn assert_each_once_in_order(
    got: &HashMap<String, Vec<FollowedEvent>>,
    from: u64,
    want: &HashMap<&str, u64>,
) {
    for (game, n) in want {
        let seqs: Vec<u64> = got
            .get(*game)
            .map_or(Vec::new(), |v| v.iter().map(|e| e.seq).collect());
        assert_eq!(
            seqs,
            (from..=*n).collect::<Vec<_>>(),
            "{game}: every event once, in order"
        );
    }
}

/// A games follower reads each game's log after taking the feed's head: an
/// append landing in between is in the history and on the feed past the
/// head. The feed's copy is passed, with its cursor, so that a lag gauge
/// reaches the head without waiting for the next append.
pub async fn games_follower_passes_a_feed_entry_its_history_already_held(log: Arc<dyn EventLog>) {
    /// The next item that is not another game's event (the suite may run
    /// on one shared log).
    async fn next_item(s: &mut FollowStream) -> Followed {
        loop {
            match tokio::time::timeout(FEED_TIMEOUT, s.next()).await {
                Ok(Some(Ok(Followed::Event(e)))) if !e.game.starts_with("pass-") => continue,
                Ok(Some(Ok(item))) => return item,
                Ok(Some(Err(e))) if !matches!(e, LogError::InvalidArgument(_)) => continue,
                other => panic!("follower failed, ended or stalled: {other:?}"),
            }
        }
    }
    for g in ["pass-a", "pass-b"] {
        log.create_game(g, b"h").await.unwrap();
    }
    log.append("pass-a", 0, 0, &payloads("a", 2)).await.unwrap();
    let mut games = crate::follow_games(log.clone(), follow_config());
    // Games are read up in id order, each in one step once the items
    // before it are taken: pass-b's log is read after this append.
    for seq in 1..=2 {
        let e = followed_event(next_item(&mut games).await).expect("pass-a's history");
        assert_eq!((e.game.as_str(), e.seq), ("pass-a", seq));
    }
    log.append("pass-b", 0, 0, &payloads("b", 1)).await.unwrap();
    let e = followed_event(next_item(&mut games).await).expect("pass-b's history");
    assert_eq!(
        (e.game.as_str(), e.seq, e.source),
        ("pass-b", 1, Source::Log)
    );
    assert_eq!(next_item(&mut games).await, Followed::CaughtUp);
    let Followed::Passed { cursor } = next_item(&mut games).await else {
        panic!("the feed's copy of pass-b's append is passed");
    };
    let lag = crate::FollowerLag::default();
    lag.advanced(&cursor);
    assert_eq!(lag.seconds(log.as_ref()).await.unwrap(), 0.0, "at the head");
}

pub async fn follower_catches_up_then_goes_live_missing_and_doubling_nothing(
    log: Arc<dyn EventLog>,
) {
    for g in ["g1", "g2"] {
        log.create_game(g, b"h").await.unwrap();
        for b in 0..10 {
            log.append(g, b * 5, 0, &payloads(&format!("{g}-{b}"), 5))
                .await
                .unwrap();
        }
    }
    let mut games = crate::follow_games(log.clone(), follow_config());
    let mut feed = crate::follow(log.clone(), FeedCursor::beginning(), follow_config());
    // Appends race with the catch-up: some land before the switch to the
    // feed, some after; none may be lost or seen twice.
    let writer = {
        let log = log.clone();
        tokio::spawn(async move {
            log.create_game("g3", b"h").await.unwrap();
            for b in 0..10 {
                for g in ["g1", "g2"] {
                    log.append(g, 50 + b * 5, 0, &payloads(&format!("{g}-live{b}"), 5))
                        .await
                        .unwrap();
                }
                log.append("g3", b * 2, 0, &payloads(&format!("g3-{b}"), 2))
                    .await
                    .unwrap();
                tokio::task::yield_now().await;
            }
        })
    };
    let want = HashMap::from([("g1", 100), ("g2", 100), ("g3", 20)]);
    let (got, mut others) = collect_games(&mut games, &want).await;
    writer.await.unwrap();
    assert_each_once_in_order(&got, 1, &want);
    if others.is_empty() {
        // A slow follower reads the games' lists after the writer is done:
        // its history already holds every event, and it reaches the head
        // it started at only after them.
        others.push(next_followed(&mut games).await);
    }
    assert_eq!(
        others,
        vec![Followed::CaughtUp],
        "one CaughtUp, nothing else"
    );
    for (game, events) in &got {
        let stored = log.read(game, 1, 1000).await.unwrap();
        let bodies: Vec<&Bytes> = events.iter().map(|e| &e.payload).collect();
        assert_eq!(
            bodies,
            stored.iter().map(|e| &e.payload).collect::<Vec<_>>(),
            "{game}: payloads"
        );
    }
    // The whole feed from the beginning: the same events, in commit order.
    let (got, mut others) = collect_games(&mut feed, &want).await;
    assert_each_once_in_order(&got, 1, &want);
    if others.is_empty() {
        // The head it started from was the last append: it comes right after.
        others.push(next_followed(&mut feed).await);
    }
    assert_eq!(others, vec![Followed::CaughtUp]);
    assert!(got.values().flatten().all(|e| e.source == Source::Feed));
    // Nothing more is pending: the next item of each is the next append.
    log.append("g3", 20, 0, &payloads("last", 1)).await.unwrap();
    for s in [&mut games, &mut feed] {
        let e = followed_event(next_followed(s).await).expect("an event");
        assert_eq!((e.game.as_str(), e.seq), ("g3", 21));
    }
}

pub async fn follower_of_a_game_that_falls_behind_catches_up_from_the_log(log: Arc<dyn EventLog>) {
    let fanout = crate::Fanout::new(
        log.clone(),
        crate::FanoutConfig {
            per_game_buffer: 4,
            follow: follow_config(),
            ..crate::FanoutConfig::default()
        },
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(fanout.clone().run(async {
        let _ = stopped.await;
    }));
    log.create_game("g", b"h").await.unwrap();
    log.create_game("other", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("early", 10)).await.unwrap();

    async fn next_game(s: &mut crate::GameStream) -> GameFollowed {
        loop {
            match tokio::time::timeout(FEED_TIMEOUT, s.next()).await {
                Ok(Some(Ok(item))) => return item,
                Ok(Some(Err(_))) => continue,
                Ok(None) => panic!("game follower ended"),
                Err(_) => panic!("game follower stalled"),
            }
        }
    }
    async fn seqs_until(s: &mut crate::GameStream, last: u64, lagged: &mut bool) -> Vec<u64> {
        let mut seqs = Vec::new();
        while seqs.last() != Some(&last) {
            match next_game(s).await {
                GameFollowed::Event(e) => seqs.push(e.seq),
                GameFollowed::Lagged => *lagged = true,
                GameFollowed::CaughtUp => panic!("CaughtUp twice"),
            }
        }
        seqs
    }

    let mut slow = fanout.follow_game("g", 3);
    let mut fast = fanout.follow_game("g", 0);
    let mut empty = fanout.follow_game("other", 0);
    assert_eq!(next_game(&mut empty).await, GameFollowed::CaughtUp);
    let mut lagged = false;
    assert_eq!(
        seqs_until(&mut slow, 10, &mut lagged).await,
        (3..=10).collect::<Vec<_>>()
    );
    assert_eq!(next_game(&mut slow).await, GameFollowed::CaughtUp);
    assert_eq!(
        seqs_until(&mut fast, 10, &mut lagged).await,
        (1..=10).collect::<Vec<_>>()
    );
    assert_eq!(next_game(&mut fast).await, GameFollowed::CaughtUp);

    for b in 0..20 {
        log.append("g", 10 + b * 5, 0, &payloads(&format!("late{b}"), 5))
            .await
            .unwrap();
    }
    // Once the reader that keeps up has all of them, the fan-out has sent
    // them all, so the one that read nothing is far past its 4 slots.
    let mut fast_lagged = false;
    assert_eq!(
        seqs_until(&mut fast, 110, &mut fast_lagged).await,
        (11..=110).collect::<Vec<_>>()
    );
    let mut lagged = false;
    assert_eq!(
        seqs_until(&mut slow, 110, &mut lagged).await,
        (11..=110).collect::<Vec<_>>()
    );
    assert!(lagged, "the reader that fell behind was told so");
    let _ = stop.send(());
    running.await.unwrap();
}

/// `trims`: whether this log keeps only the newest feed entries (Redis with
/// a small `feed_maxlen`) or all of them (embedded).
pub async fn follower_from_a_cursor_older_than_the_retention_says_so_and_reads_the_rest(
    log: Arc<dyn EventLog>,
    trims: bool,
) {
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("first", 1)).await.unwrap();
    let mut feed = crate::follow(log.clone(), FeedCursor::beginning(), follow_config());
    let first = followed_event(next_followed(&mut feed).await).expect("the first event");
    assert_eq!(next_followed(&mut feed).await, Followed::CaughtUp);
    let mut games = crate::follow_games(log.clone(), follow_config());
    assert_eq!(
        followed_event(next_followed(&mut games).await).map(|e| e.seq),
        Some(1)
    );
    assert_eq!(next_followed(&mut games).await, Followed::CaughtUp);
    // Far more than the retention while neither follower reads.
    const N: u64 = 600;
    // Two events per append: a Redis feed keeps an append as one entry.
    for b in 0..N / 2 {
        log.append("g", 1 + b * 2, 0, &payloads(&format!("b{b}"), 2))
            .await
            .unwrap();
    }
    let mut old = crate::follow(log.clone(), first.cursor.clone(), follow_config());
    let mut seqs = Vec::new();
    let mut notices = Vec::new();
    while seqs.last() != Some(&(N + 1)) || !notices.contains(&Followed::CaughtUp) {
        match next_followed(&mut old).await {
            Followed::Event(e) => seqs.push(e.seq),
            other => notices.push(other),
        }
    }
    let from = seqs[0];
    assert_eq!(
        seqs,
        (from..=N + 1).collect::<Vec<_>>(),
        "a contiguous run up to the newest"
    );
    if trims {
        assert!(
            from > 2,
            "the feed kept everything: the test's retention is too large"
        );
        assert!(
            matches!(&notices[0], Followed::Trimmed { cursor, .. } if *cursor == first.cursor),
            "the follower says its cursor was past the retention: {notices:?}"
        );
    } else {
        assert_eq!(
            from, 2,
            "a backend that keeps its feed yields everything after the cursor"
        );
        assert!(!notices
            .iter()
            .any(|n| matches!(n, Followed::Trimmed { .. })));
    }
    assert!(notices.contains(&Followed::CaughtUp));
    // The follower of every game reads what the feed lost from the game's log.
    let mut seqs = Vec::new();
    while seqs.last() != Some(&(N + 1)) {
        if let Followed::Event(e) = next_followed(&mut games).await {
            seqs.push(e.seq);
        }
    }
    assert_eq!(seqs, (2..=N + 1).collect::<Vec<_>>());
    drop(feed);
}

/// A store restart in the middle of a follow: `restart` kills the store and
/// brings it back with its data. The followers resume by themselves from
/// their cursors.
pub async fn follower_resumes_by_itself_after_the_store_restarts<F, Fut>(
    log: Arc<dyn EventLog>,
    restart: F,
) where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    log.create_game("g", b"h").await.unwrap();
    log.append("g", 0, 0, &payloads("before", 10))
        .await
        .unwrap();
    let mut feed = crate::follow(log.clone(), FeedCursor::beginning(), follow_config());
    let mut games = crate::follow_games(log.clone(), follow_config());
    let want = HashMap::from([("g", 10)]);
    for s in [&mut feed, &mut games] {
        let (got, mut others) = collect_games(s, &want).await;
        assert_each_once_in_order(&got, 1, &want);
        if others.is_empty() {
            others.push(next_followed(s).await);
        }
        assert_eq!(others, vec![Followed::CaughtUp]);
    }
    restart().await;
    append_surely(log.as_ref(), "g", 10, &payloads("after", 10)).await;
    let want = HashMap::from([("g", 10)]);
    for s in [&mut feed, &mut games] {
        let (got, others) = collect_games(s, &want).await;
        assert_each_once_in_order(&got, 11, &HashMap::from([("g", 20)]));
        assert!(others.is_empty(), "{others:?}");
    }
}

/// A follower given some of the feed's shards gets every event of their
/// games, and none of the others' (one shard on a log that does not split
/// its feed: everything).
pub async fn follower_of_some_shards_gets_their_games_only(log: Arc<dyn EventLog>) {
    let games: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
    let mine = log.feed_shard_of(&games[0]);
    let config = FollowConfig {
        shards: Some(vec![mine]),
        ..follow_config()
    };
    for g in &games {
        log.create_game(g, b"h").await.unwrap();
        log.append(g, 0, 0, &payloads(g, 2)).await.unwrap();
    }
    let mut feed = crate::follow(log.clone(), FeedCursor::beginning(), config.clone());
    let mut every = crate::follow_games(log.clone(), config);
    for g in &games {
        log.append(g, 2, 0, &payloads(g, 1)).await.unwrap();
    }
    let want: HashMap<&str, u64> = games
        .iter()
        .filter(|g| log.feed_shard_of(g) == mine)
        .map(|g| (g.as_str(), 3))
        .collect();
    for s in [&mut feed, &mut every] {
        let (got, _) = collect_games(s, &want).await;
        assert_each_once_in_order(&got, 1, &want);
        assert!(
            got.keys().all(|g| log.feed_shard_of(g) == mine),
            "only the followed shard's games: {:?}",
            got.keys().collect::<Vec<_>>()
        );
    }
}
