//! How far a follower is behind the feed's head, for the services'
//! `/metrics` (the gateway's hub and standings, the scoring service's game
//! follower). The follower notes the cursor of each event it handles; a
//! scrape compares it with [`EventLog::feed_head`], so a follower that has
//! handled everything reads 0 however long the feed has been quiet.

use std::sync::Mutex;
use std::time::Instant;

use crate::position::{at_or_past, Position};
use crate::{EventLog, FeedCursor, LogError};

/// The last cursor a follower handled, and when it moved there.
#[derive(Debug)]
pub struct FollowerLag {
    last: Mutex<(Option<FeedCursor>, Instant)>,
}

impl Default for FollowerLag {
    fn default() -> Self {
        FollowerLag {
            last: Mutex::new((None, Instant::now())),
        }
    }
}

impl FollowerLag {
    /// The follower has handled everything up to `cursor`.
    pub fn advanced(&self, cursor: &FeedCursor) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        *last = (Some(cursor.clone()), Instant::now());
    }

    /// Seconds the follower is behind the feed's head now: 0 when it has
    /// handled the head. On Redis, whose cursors are stream ids stamped
    /// with the server's clock in ms, the difference of the two stamps;
    /// elsewhere (the embedded log counts entries) the time since the
    /// follower last moved, which is how long the head has waited for it.
    pub async fn seconds(&self, log: &dyn EventLog) -> Result<f64, LogError> {
        let head = log.feed_head().await?;
        let (cursor, moved) = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(behind(cursor.as_ref(), moved, &head))
    }
}

fn behind(cursor: Option<&FeedCursor>, moved: Instant, head: &FeedCursor) -> f64 {
    let Some(head_at) = Position::parse(head) else {
        return 0.0; // "now": nothing written yet
    };
    let empty = match &head_at {
        Position::All(p) => (p.0, p.1) == (0, 0),
        Position::Shards(v) => v.iter().all(|(_, p)| (p.0, p.1) == (0, 0)),
    };
    if head.is_now() || empty {
        return 0.0;
    }
    let Some(cursor) = cursor else {
        return moved.elapsed().as_secs_f64();
    };
    if at_or_past(cursor, head) {
        return 0.0;
    }
    // Redis stream ids are stamped with the server's clock in ms: the lag is
    // the largest gap between a shard's head and the follower's place in it.
    let stamped = |c: &FeedCursor| c.as_str().contains('-');
    let at = Position::parse(cursor);
    let gaps: Option<Vec<u64>> = match (&head_at, &at) {
        (_, Some(at)) if stamped(cursor) && stamped(head) => match &head_at {
            Position::All((h, ..)) => at.of(0).map(|(c, ..)| vec![h.saturating_sub(c)]),
            Position::Shards(v) => v
                .iter()
                .map(|(k, (h, ..))| at.of(*k).map(|(c, ..)| h.saturating_sub(c)))
                .collect(),
        },
        _ => None,
    };
    match gaps {
        Some(g) => g.into_iter().max().unwrap_or(0) as f64 / 1000.0,
        None => moved.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn c(s: &str) -> FeedCursor {
        FeedCursor::from(s)
    }

    #[test]
    fn a_follower_at_the_head_is_not_behind() {
        let long_ago = Instant::now() - Duration::from_secs(60);
        assert_eq!(behind(Some(&c("17-3")), long_ago, &c("17-3")), 0.0);
        assert_eq!(behind(Some(&c("42")), long_ago, &c("42")), 0.0);
        assert_eq!(behind(None, long_ago, &c("0-0")), 0.0);
    }

    #[test]
    fn behind_on_redis_is_the_difference_of_the_stream_ids_stamps() {
        let lag = behind(Some(&c("1000-5")), Instant::now(), &c("3500-0"));
        assert_eq!(lag, 2.5);
    }

    #[test]
    fn behind_on_a_sharded_feed_is_the_largest_gap_of_a_shard() {
        let head = c("0:5000-0,1:9000-2");
        assert_eq!(
            behind(Some(&c("0:5000-0,1:4000-0")), Instant::now(), &head),
            5.0
        );
        assert_eq!(
            behind(Some(&c("0:5000-0,1:9000-2")), Instant::now(), &head),
            0.0
        );
    }

    #[test]
    fn behind_on_counters_is_the_time_since_the_follower_moved() {
        let moved = Instant::now() - Duration::from_secs(30);
        assert!(behind(Some(&c("7")), moved, &c("9")) >= 30.0);
        assert!(behind(None, moved, &c("9")) >= 30.0);
    }
}
