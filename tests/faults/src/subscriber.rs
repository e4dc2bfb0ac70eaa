//! A live-feed subscriber over the raw WebSocket (`FEED.md`), as a hall
//! screen would be: it follows one game in the judges' audience, and when
//! its gateway goes away it reconnects to the next one with `from=` its
//! last sequence. It keeps every delta as it arrived, so the test can check
//! there was no gap and no repeat across the resumes.

use crate::procs::CHIEF;
use futures::StreamExt;
use mafia_record::GameId;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// The sequence of the first snapshot (what the deltas start after).
    pub snapshot: Option<u64>,
    /// Each delta's `event`, in arrival order.
    pub deltas: Vec<Value>,
    /// Reconnections with `from=` after the connection dropped.
    pub resumes: u32,
    /// When each resumed connection was up (ms since the epoch).
    pub resumed_at_ms: Vec<i64>,
    /// Resumes answered with a snapshot ahead of `from` (deltas no longer
    /// held): the events in between arrive only folded into the view.
    pub resync_snapshots: u32,
    pub skipped_by_snapshot: u64,
    /// Resumes at a gateway that had not yet caught up with `from` (its
    /// snapshot was older): dropped and retried.
    pub behind: u32,
    /// Saw the game's end.
    pub done: bool,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The game's last event: its end, or for a drawn deal the reveal stored
/// right after it (FORMAT.md, "Checking a deal").
fn is_final(event: &Value, drawn: bool) -> bool {
    let e = &event["event"];
    if drawn {
        e["type"] == "deal_revealed"
    } else {
        e["type"] == "step_started" && e["step"]["kind"] == "ended"
    }
}

/// A running subscriber.
pub struct Follower {
    pub task: tokio::task::JoinHandle<Seen>,
    /// Resolves once the first snapshot is in.
    pub ready: oneshot::Receiver<()>,
}

/// Follows `game` from the gateway `gateways[first]` on, until the game's
/// last event (`drawn`: its deal's reveal) or `stop`.
pub fn follow(
    game: GameId,
    gateways: Vec<String>,
    first: usize,
    drawn: bool,
    mut stop: watch::Receiver<bool>,
) -> Follower {
    let (ready_tx, ready) = oneshot::channel();
    let mut ready_tx = Some(ready_tx);
    let task = tokio::spawn(async move {
        let mut seen = Seen::default();
        let mut last = 0u64;
        let mut gw = first % gateways.len();
        while !*stop.borrow() {
            let mut url = format!("ws://{}/ws/game/{game}?token={CHIEF}", gateways[gw]);
            if seen.snapshot.is_some() {
                url.push_str(&format!("&from={last}"));
            }
            let connected = tokio::time::timeout(
                Duration::from_secs(2),
                tokio_tungstenite::connect_async(url.as_str()),
            )
            .await;
            let Ok(Ok((mut ws, _))) = connected else {
                // Down, or the game not known there yet: try the next one.
                gw = (gw + 1) % gateways.len();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            if seen.snapshot.is_some() {
                seen.resumes += 1;
                seen.resumed_at_ms.push(now_ms());
            }
            loop {
                let msg = tokio::select! {
                    m = ws.next() => m,
                    _ = stop.changed() => return seen,
                };
                let text = match msg {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let v: Value = serde_json::from_str(&text).expect("feed messages are JSON");
                let seq = v["seq"].as_u64().expect("every message has a seq");
                match v["type"].as_str() {
                    Some("snapshot") if seen.snapshot.is_none() => {
                        seen.snapshot = Some(seq);
                        last = seq;
                        if let Some(tx) = ready_tx.take() {
                            let _ = tx.send(());
                        }
                    }
                    Some("snapshot") if seq < last => {
                        seen.behind += 1;
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        break;
                    }
                    Some("snapshot") => {
                        seen.resync_snapshots += 1;
                        seen.skipped_by_snapshot += seq - last;
                        last = seq;
                    }
                    Some("delta") => {
                        let event = v["event"].clone();
                        let end = is_final(&event, drawn);
                        seen.deltas.push(event);
                        last = seq;
                        if end {
                            seen.done = true;
                            return seen;
                        }
                    }
                    _ => {}
                }
            }
            gw = (gw + 1) % gateways.len();
        }
        seen
    });
    Follower { task, ready }
}
