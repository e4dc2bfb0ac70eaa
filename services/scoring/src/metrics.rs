//! Prometheus metrics, kept by hand like the referee's: a few counters need
//! no registry crate.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct Metrics {
    events_stored: AtomicU64,
    refused: Mutex<BTreeMap<&'static str, u64>>,
    games_scored: AtomicU64,
    game_ends_seen: AtomicU64,
    /// How far the game follower is behind the feed.
    pub lag: mafia_event_log::FollowerLag,
}

impl Metrics {
    pub fn stored(&self, events: usize) {
        self.events_stored
            .fetch_add(events as u64, Ordering::Relaxed);
    }
    pub fn refused(&self, code: tonic::Code) {
        let name = match code {
            tonic::Code::PermissionDenied => "permission_denied",
            tonic::Code::FailedPrecondition => "failed_precondition",
            tonic::Code::InvalidArgument => "invalid_argument",
            tonic::Code::NotFound => "not_found",
            tonic::Code::AlreadyExists => "already_exists",
            tonic::Code::Unauthenticated => "unauthenticated",
            _ => "other",
        };
        let mut m = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(name).or_default() += 1;
    }
    /// A game end the follower handled.
    pub fn game_end(&self) {
        self.game_ends_seen.fetch_add(1, Ordering::Relaxed);
    }
    /// A result newly stored, by the follower or after an assignment.
    pub fn game_scored(&self) {
        self.games_scored.fetch_add(1, Ordering::Relaxed);
    }

    /// [`Metrics::render`] and the follower's lag, which asks the log
    /// where its head is (left out while the log cannot say).
    pub async fn render_with_lag(&self, log: &dyn mafia_event_log::EventLog) -> String {
        let mut s = self.render();
        let _ = writeln!(
            s,
            "# HELP mafia_scoring_follower_lag_seconds How far the game follower is behind the feed's head.\n\
             # TYPE mafia_scoring_follower_lag_seconds gauge"
        );
        match self.lag.seconds(log).await {
            Ok(secs) => {
                let _ = writeln!(s, "mafia_scoring_follower_lag_seconds {secs}");
            }
            Err(e) => tracing::warn!(error = %e, "follower lag unknown"),
        }
        s
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# HELP mafia_scoring_events_stored_total Tournament events appended to the log."
        );
        let _ = writeln!(s, "# TYPE mafia_scoring_events_stored_total counter");
        let _ = writeln!(
            s,
            "mafia_scoring_events_stored_total {}",
            self.events_stored.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            s,
            "# HELP mafia_scoring_refused_total Calls refused, by gRPC code."
        );
        let _ = writeln!(s, "# TYPE mafia_scoring_refused_total counter");
        for (code, n) in self
            .refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(s, "mafia_scoring_refused_total{{code=\"{code}\"}} {n}");
        }
        let _ = writeln!(s, "# HELP mafia_scoring_game_ends_seen_total Game ends read off the feed (at least once each).");
        let _ = writeln!(s, "# TYPE mafia_scoring_game_ends_seen_total counter");
        let _ = writeln!(
            s,
            "mafia_scoring_game_ends_seen_total {}",
            self.game_ends_seen.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            s,
            "# HELP mafia_scoring_games_scored_total Game results newly recorded in a tournament."
        );
        let _ = writeln!(s, "# TYPE mafia_scoring_games_scored_total counter");
        let _ = writeln!(
            s,
            "mafia_scoring_games_scored_total {}",
            self.games_scored.load(Ordering::Relaxed)
        );
        s
    }
}
