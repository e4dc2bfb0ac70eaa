//! Every service's follower of the log's `access` stream: it creates the
//! stream if nobody has yet, then folds every issued and revoked
//! credential into the service's [`Tokens`], history first, then live
//! (`mafia_event_log`'s [`Fanout::follow_game`], which catches up, fills
//! gaps and resumes after the store fails by itself). So a credential
//! issued or revoked through one scoring service is honoured or refused by
//! every referee, scoring service and gateway on the same log within the
//! feed's latency, with no restart.

use crate::issued::{AccessEvent, HEADER, STREAM};
use crate::Tokens;
use futures::StreamExt;
use mafia_event_log::{EventLog, Fanout, FanoutConfig, GameFollowed};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Pause before trying the store again.
const RETRY: Duration = Duration::from_millis(500);

/// Follows the `access` stream into `tokens` until `shutdown` resolves,
/// on a fan-out of its own.
pub async fn run(tokens: Tokens, log: Arc<dyn EventLog>, shutdown: impl Future<Output = ()>) {
    let fanout = Fanout::new(log.clone(), FanoutConfig::default());
    tokio::pin!(shutdown);
    tokio::select! {
        _ = &mut shutdown => {}
        _ = fanout.clone().run(std::future::pending()) => {}
        _ = run_on(tokens, log, &fanout) => {}
    }
}

/// Follows the `access` stream into `tokens` on `fanout` (which the caller
/// runs, e.g. the referee's, shared with its watchers). Ends only when the
/// fan-out does.
pub async fn run_on(tokens: Tokens, log: Arc<dyn EventLog>, fanout: &Arc<Fanout>) {
    ensure_stream(log.as_ref()).await;
    let mut stream = fanout.follow_game(STREAM, 1);
    while let Some(item) = stream.next().await {
        match item {
            Ok(GameFollowed::Event(e)) => match AccessEvent::decode(&e.payload) {
                Ok(event) => tokens.apply(&event),
                Err(err) => tracing::error!(seq = e.seq, error = %err, "access event not applied"),
            },
            Ok(GameFollowed::CaughtUp) => {
                tracing::info!("issued credentials read");
                tokens.set_caught_up();
            }
            Ok(GameFollowed::Lagged) => {}
            Err(e) => tracing::warn!(error = %e, "access stream interrupted; resuming"),
        }
    }
}

/// Creates the `access` stream (harmless when it exists), retrying while
/// the store is down.
pub async fn ensure_stream(log: &dyn EventLog) {
    loop {
        match log.create_game(STREAM, HEADER).await {
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(error = %e, "cannot create the access stream; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}
