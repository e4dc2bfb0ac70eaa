//! Opening a file of the earlier layout: a redb database (file format v3)
//! with tables `headers`, `games` (last seq, fence), `events` keyed
//! (game, seq) and `feed` keyed by feed seq. It is rewritten as an
//! append-only log with the same feed numbering (cursors stay valid) and
//! fences, the new file put in its place and the old one kept beside it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};

use super::file::{self, Encoder};
use super::{io_error, sync_dir};
use crate::LogError;

const HEADERS: TableDefinition<&str, &[u8]> = TableDefinition::new("headers");
const GAMES: TableDefinition<&str, (u64, u64)> = TableDefinition::new("games");
const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events");
const FEED: TableDefinition<u64, (&str, u64)> = TableDefinition::new("feed");

/// Events of one game written as one record at most.
const RECORD_EVENTS: usize = 1024;

/// Where the old file is kept after its migration.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".redb-layout");
    PathBuf::from(name)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn redb_error(path: &Path, e: impl Into<redb::Error>) -> LogError {
    let e: redb::Error = e.into();
    LogError::Storage(
        format!(
            "{} is in the earlier redb layout and could not be read to migrate it: {e}",
            path.display()
        )
        .into(),
    )
}

/// Rewrites the redb file at `path` in the log layout, in place.
pub(super) fn from_redb(path: &Path) -> Result<(), LogError> {
    let tmp = with_suffix(path, ".migrating");
    let backup = backup_path(path);
    tracing::warn!(
        path = %path.display(),
        backup = %backup.display(),
        "migrating the event log from the earlier redb layout"
    );
    let db = Database::open(path).map_err(|e| redb_error(path, e))?;
    let written = write_log(&db, path, &tmp);
    drop(db);
    let (games, events) = written.inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    // The old file stays under the backup name (a hard link, so the log's
    // path always names a complete file, old or new, whatever a crash
    // interrupts); a link left by an interrupted migration is reused.
    let same = |a: &Path, b: &Path| -> bool {
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => false,
        }
    };
    if backup.exists() && !same(path, &backup) {
        let _ = std::fs::remove_file(&tmp);
        return Err(LogError::Storage(
            format!(
                "{} is in the earlier redb layout, and migrating it would keep it as {}, \
                 which exists already: move that file away and start again",
                path.display(),
                backup.display()
            )
            .into(),
        ));
    }
    if !backup.exists() {
        std::fs::hard_link(path, &backup).map_err(|e| io_error(&backup, "creating", e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, "replacing", e))?;
    sync_dir(path)?;
    tracing::warn!(
        path = %path.display(),
        backup = %backup.display(),
        games,
        events,
        "migrated the event log from the earlier redb layout; the old file is kept as the backup"
    );
    Ok(())
}

/// Writes every game (header, fence) and then every event in feed order to
/// `tmp`, synced. Returns (games, events).
fn write_log(db: &Database, path: &Path, tmp: &Path) -> Result<(usize, u64), LogError> {
    let corrupt = |what: String| {
        LogError::Corrupt(format!(
            "{} (earlier redb layout, not migrated): {what}",
            path.display()
        ))
    };
    let txn = db.begin_read().map_err(|e| redb_error(path, e))?;
    let headers = txn.open_table(HEADERS).map_err(|e| redb_error(path, e))?;
    let games = txn.open_table(GAMES).map_err(|e| redb_error(path, e))?;
    let events = txn.open_table(EVENTS).map_err(|e| redb_error(path, e))?;
    let feed = txn.open_table(FEED).map_err(|e| redb_error(path, e))?;

    let out = File::create(tmp).map_err(|e| io_error(tmp, "creating", e))?;
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let mut buf = Vec::new();
    let mut locs = Vec::new();
    let flush = |buf: &mut Vec<u8>, out: &mut BufWriter<File>| {
        let r = out.write_all(buf);
        buf.clear();
        r.map_err(|e| io_error(tmp, "writing", e))
    };
    buf.extend_from_slice(&file::file_header());
    // (last seq as stored, next seq met in the feed)
    let mut seqs: HashMap<String, (u64, u64)> = HashMap::new();
    for row in games.iter().map_err(|e| redb_error(path, e))? {
        let (game, state) = row.map_err(|e| redb_error(path, e))?;
        let (game, (last_seq, fence)) = (game.value(), state.value());
        let header = headers
            .get(game)
            .map_err(|e| redb_error(path, e))?
            .ok_or_else(|| corrupt(format!("game {game} has no header")))?;
        let mut enc = Encoder {
            buf: &mut buf,
            base: 0,
        };
        enc.create(game, header.value())?;
        if fence > 0 {
            enc.fence(game, fence)?;
        }
        seqs.insert(game.to_owned(), (last_seq, 1));
        flush(&mut buf, &mut out)?;
    }

    let mut expected_feed = 1;
    let mut run: Option<(String, u64, u64)> = None; // game, first seq, first feed
    let mut payloads: Vec<Bytes> = Vec::new();
    let mut end_run = |run: &mut Option<(String, u64, u64)>,
                       payloads: &mut Vec<Bytes>,
                       buf: &mut Vec<u8>|
     -> Result<(), LogError> {
        if let Some((game, first_seq, first_feed)) = run.take() {
            Encoder { buf, base: 0 }.events(&game, first_seq, first_feed, payloads, &mut locs)?;
            payloads.clear();
            locs.clear();
        }
        Ok(())
    };
    for row in feed.iter().map_err(|e| redb_error(path, e))? {
        let (key, value) = row.map_err(|e| redb_error(path, e))?;
        let (feed_seq, (game, seq)) = (key.value(), value.value());
        if feed_seq != expected_feed {
            return Err(corrupt(format!(
                "feed seq {feed_seq} where {expected_feed} was expected"
            )));
        }
        expected_feed += 1;
        let next = seqs
            .get_mut(game)
            .ok_or_else(|| corrupt(format!("feed entry {feed_seq} names unknown game {game}")))?;
        if seq != next.1 {
            return Err(corrupt(format!(
                "feed entry {feed_seq} is {game}/{seq}, {}/{} expected",
                game, next.1
            )));
        }
        next.1 += 1;
        let payload = events
            .get((game, seq))
            .map_err(|e| redb_error(path, e))?
            .ok_or_else(|| {
                corrupt(format!(
                    "feed entry {feed_seq} points at missing {game}/{seq}"
                ))
            })?;
        let continues = run
            .as_ref()
            .is_some_and(|(g, _, _)| g == game && payloads.len() < RECORD_EVENTS);
        if !continues {
            end_run(&mut run, &mut payloads, &mut buf)?;
            run = Some((game.to_owned(), seq, feed_seq));
        }
        payloads.push(Bytes::copy_from_slice(payload.value()));
        if buf.len() >= 1 << 20 {
            flush(&mut buf, &mut out)?;
        }
    }
    end_run(&mut run, &mut payloads, &mut buf)?;
    flush(&mut buf, &mut out)?;
    for (game, (last_seq, next)) in &seqs {
        if next - 1 != *last_seq {
            return Err(corrupt(format!(
                "game {game} says last seq {last_seq}, its feed has {}",
                next - 1
            )));
        }
    }
    let stored = events.len().map_err(|e| redb_error(path, e))?;
    if stored != expected_feed - 1 {
        return Err(corrupt(format!(
            "{stored} events stored, {} on the feed",
            expected_feed - 1
        )));
    }
    let out = out
        .into_inner()
        .map_err(|e| io_error(tmp, "writing", e.into_error()))?;
    out.sync_all().map_err(|e| io_error(tmp, "syncing", e))?;
    Ok((seqs.len(), expected_feed - 1))
}
