//! What the judges were told was stored, what is stored, and what the
//! subscribers received, held against each other per game; one report
//! line per case.

use crate::subscriber::Seen;
use mafia_event_log::{EventLog, RedisLog};
use mafia_judge_client::ack_log::AckLine;
use mafia_record::LoggedEvent;
use std::collections::{BTreeMap, BTreeSet};

/// Every payload of a stream, in order.
pub async fn read_payloads(log: &RedisLog, stream: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let batch = log
            .read(stream, out.len() as u64 + 1, 1024)
            .await
            .expect("read the stored log");
        if batch.is_empty() {
            return out;
        }
        out.extend(batch.into_iter().map(|e| e.payload.to_vec()));
    }
}

pub async fn stored_events(log: &RedisLog, game: &str) -> Vec<LoggedEvent> {
    read_payloads(log, game)
        .await
        .iter()
        .map(|p| serde_json::from_slice(p).expect("a stored event"))
        .collect()
}

/// The sums over a case's games.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub games: usize,
    /// Events in the acks the judges received.
    pub acked: usize,
    /// Acked events the log does not hold as acked.
    pub lost: usize,
    /// Events the log holds for commands beyond the acked ones, or a
    /// command acked twice.
    pub doubled: usize,
    /// Acks recovered after a reconnect (the first one was lost with it).
    pub recovered_acks: usize,
    /// Events the subscribers should have got as deltas (after their first
    /// snapshot), and those they got.
    pub sub_expected: usize,
    pub sub_received: usize,
    pub sub_lost: usize,
    pub sub_doubled: usize,
    pub sub_mismatched: usize,
    pub sub_out_of_order: usize,
    pub sub_resumes: u32,
    pub sub_resync_snapshots: u32,
    pub sub_behind: u32,
    pub unfinished_subscribers: usize,
}

impl Tally {
    /// Adds one game: its stored log, its judge's acks (file order), and
    /// its subscriber's deltas. Every stored command must have been acked
    /// (the judge finished); with `ended`, the subscriber must have seen
    /// every event, otherwise (a game cut short by a timed run) a prefix.
    pub fn add(
        &mut self,
        stored: &[LoggedEvent],
        acks: &[AckLine],
        seen: Option<&Seen>,
        ended: bool,
    ) {
        self.games += 1;
        let mut seqs = BTreeSet::new();
        let mut acked = BTreeMap::new();
        for a in acks {
            self.recovered_acks += usize::from(a.recovered);
            if !seqs.insert(a.client_seq) {
                self.doubled += a.events.len();
                continue;
            }
            for e in &a.events {
                acked.insert(u64::from(e.envelope.seq), *e);
            }
        }
        self.acked += acked.len();
        let by_seq: BTreeMap<u64, &LoggedEvent> = stored
            .iter()
            .map(|e| (u64::from(e.envelope.seq), e))
            .collect();
        // The log's own numbering has no hole and no repeat.
        let contiguous =
            by_seq.len() == stored.len() && by_seq.keys().copied().eq(1..=stored.len() as u64);
        if !contiguous {
            self.doubled += stored.len() - by_seq.len();
        }
        for (seq, e) in &acked {
            if by_seq.get(seq).copied() != Some(e) {
                self.lost += 1;
            }
        }
        for e in stored.iter().filter(|e| e.client_seq.is_some()) {
            if !acked.contains_key(&u64::from(e.envelope.seq)) {
                self.doubled += 1;
            }
        }
        if let Some(seen) = seen {
            self.add_seen(stored, seen, ended);
        }
    }

    fn add_seen(&mut self, stored: &[LoggedEvent], seen: &Seen, ended: bool) {
        self.sub_resumes += seen.resumes;
        self.sub_resync_snapshots += seen.resync_snapshots;
        self.sub_behind += seen.behind;
        self.unfinished_subscribers += usize::from(ended && !seen.done);
        let from = seen.snapshot.unwrap_or(0);
        let mut got = BTreeSet::new();
        let mut last = from;
        for d in &seen.deltas {
            let seq = d["seq"].as_u64().unwrap_or(0);
            self.sub_received += 1;
            if !got.insert(seq) {
                self.sub_doubled += 1;
                continue;
            }
            if seq != last + 1 {
                self.sub_out_of_order += 1;
            }
            last = seq;
            let want = stored
                .get(seq as usize - 1)
                .map(|e| serde_json::to_value(e.envelope).unwrap());
            if want.as_ref() != Some(d) {
                self.sub_mismatched += 1;
            }
        }
        let upto = if ended { stored.len() as u64 } else { last };
        let expected: Vec<u64> = (from + 1..=upto).collect();
        self.sub_expected += expected.len();
        self.sub_lost += expected.iter().filter(|s| !got.contains(s)).count();
    }

    pub fn clean(&self) -> bool {
        self.lost == 0
            && self.doubled == 0
            && self.sub_lost == 0
            && self.sub_doubled == 0
            && self.sub_mismatched == 0
            && self.sub_out_of_order == 0
            && self.unfinished_subscribers == 0
    }

    /// The report line: `fault case=… events_acked=… lost=… doubled=… …`.
    pub fn line(&self, case: &str, recovery_ms: Option<i64>, extra: &str) -> String {
        let recovery = recovery_ms.map_or("n/a".to_string(), |ms| ms.to_string());
        format!(
            "fault case={case} games={} events_acked={} lost={} doubled={} recovery_ms={recovery} \
             recovered_acks={} sub_events={}/{} sub_lost={} sub_doubled={} sub_mismatched={} \
             sub_out_of_order={} sub_resumes={} sub_resync_snapshots={} sub_behind={}{extra}",
            self.games,
            self.acked,
            self.lost,
            self.doubled,
            self.recovered_acks,
            self.sub_received,
            self.sub_expected,
            self.sub_lost,
            self.sub_doubled,
            self.sub_mismatched,
            self.sub_out_of_order,
            self.sub_resumes,
            self.sub_resync_snapshots,
            self.sub_behind,
        )
    }
}

/// How long after `t_ms` the slowest game got its first ack (games with
/// no ack after it are skipped: they had ended).
pub fn ack_recovery_ms<'a>(
    games: impl IntoIterator<Item = &'a [AckLine]>,
    t_ms: i64,
) -> Option<i64> {
    games
        .into_iter()
        .filter_map(|acks| acks.iter().map(|a| a.t_ms).find(|&t| t >= t_ms))
        .max()
        .map(|t| t - t_ms)
}

/// The `q` quantile of the judges' ack waits, in ms.
pub fn ack_wait_quantile_ms(acks: &[AckLine], q: f64) -> f64 {
    let mut waits: Vec<u64> = acks.iter().map(|a| a.wait_us).collect();
    if waits.is_empty() {
        return 0.0;
    }
    waits.sort_unstable();
    let i = ((waits.len() - 1) as f64 * q).round() as usize;
    waits[i] as f64 / 1000.0
}
