//! Prometheus metrics, kept by hand: a few counters, two gauges and one
//! histogram need no registry crate.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the append latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];

#[derive(Debug, Default)]
pub struct Metrics {
    accepted: AtomicU64,
    duplicates: AtomicU64,
    rejected: Mutex<BTreeMap<&'static str, u64>>,
    append_buckets: [AtomicU64; BUCKETS.len()],
    append_count: AtomicU64,
    append_sum_ns: AtomicU64,
    open_games: AtomicI64,
    judges: AtomicI64,
}

impl Metrics {
    pub fn accepted(&self) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
    }
    pub fn duplicate(&self) {
        self.duplicates.fetch_add(1, Ordering::Relaxed);
    }
    pub fn rejected(&self, code: &'static str) {
        let mut m = self.rejected.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(code).or_default() += 1;
    }
    pub fn append_latency(&self, d: Duration) {
        let s = d.as_secs_f64();
        for (i, b) in BUCKETS.iter().enumerate() {
            if s <= *b {
                self.append_buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.append_count.fetch_add(1, Ordering::Relaxed);
        self.append_sum_ns.fetch_add(
            u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }
    pub fn open_games(&self, delta: i64) {
        self.open_games.fetch_add(delta, Ordering::Relaxed);
    }
    pub fn judges(&self, delta: i64) {
        self.judges.fetch_add(delta, Ordering::Relaxed);
    }
    pub fn accepted_total(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut s = String::with_capacity(2048);
        let _ = writeln!(
            s,
            "# HELP referee_commands_total Judge commands by outcome and violation code.\n\
             # TYPE referee_commands_total counter"
        );
        let _ = writeln!(
            s,
            "referee_commands_total{{outcome=\"accepted\",code=\"\"}} {}",
            self.accepted.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            s,
            "referee_commands_total{{outcome=\"duplicate\",code=\"\"}} {}",
            self.duplicates.load(Ordering::Relaxed)
        );
        for (code, n) in self
            .rejected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                s,
                "referee_commands_total{{outcome=\"rejected\",code=\"{code}\"}} {n}"
            );
        }
        let _ = writeln!(
            s,
            "# HELP referee_append_seconds Event log append latency.\n\
             # TYPE referee_append_seconds histogram"
        );
        for (i, b) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                s,
                "referee_append_seconds_bucket{{le=\"{b}\"}} {}",
                self.append_buckets[i].load(Ordering::Relaxed)
            );
        }
        let count = self.append_count.load(Ordering::Relaxed);
        let _ = writeln!(s, "referee_append_seconds_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(
            s,
            "referee_append_seconds_sum {}",
            self.append_sum_ns.load(Ordering::Relaxed) as f64 / 1e9
        );
        let _ = writeln!(s, "referee_append_seconds_count {count}");
        let _ = writeln!(
            s,
            "# HELP referee_open_games Games loaded and leased by this referee.\n\
             # TYPE referee_open_games gauge\nreferee_open_games {}",
            self.open_games.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            s,
            "# HELP referee_connected_judges Open Judge streams.\n\
             # TYPE referee_connected_judges gauge\nreferee_connected_judges {}",
            self.judges.load(Ordering::Relaxed)
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_is_cumulative_and_counts_every_append() {
        let m = Metrics::default();
        m.append_latency(Duration::from_micros(300));
        m.append_latency(Duration::from_millis(20));
        m.rejected("not_your_turn");
        let text = m.render();
        assert!(text.contains("referee_append_seconds_bucket{le=\"0.0005\"} 1"));
        assert!(text.contains("referee_append_seconds_bucket{le=\"0.025\"} 2"));
        assert!(text.contains("referee_append_seconds_count 2"));
        assert!(text.contains("code=\"not_your_turn\"} 1"));
    }
}
