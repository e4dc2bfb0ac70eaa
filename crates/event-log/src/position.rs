//! What a feed cursor's text says, for the followers that compare cursors
//! and narrow them to some shards. Both backends' positions read as
//! `(major, minor, yielded)`: a Redis stream id `ms-n`, or an embedded
//! counter `n`. A Redis feed entry holds one append's events, so a
//! position inside one says how many of them were yielded: `ms-n.c`, the
//! first `c`; a bare id is the whole entry ([`WHOLE`]), which sorts after
//! any part of it. A Redis cursor names one position per feed shard,
//! `k:ms-n` joined by commas; a bare position stands for every shard at
//! once ("0": the start of each).

use crate::FeedCursor;

pub(crate) type Pos = (u64, u64, u32);

/// The `yielded` of a position past all of its entry's events.
pub(crate) const WHOLE: u32 = u32::MAX;

/// A cursor, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Position {
    /// The same position in every shard (the embedded log has one).
    All(Pos),
    /// One position per listed shard, sorted by shard; others not followed.
    Shards(Vec<(u16, Pos)>),
}

pub(crate) fn parse_pos(s: &str) -> Option<Pos> {
    let (id, yielded) = match s.split_once('.') {
        Some((id, c)) => (id, c.parse().ok().filter(|&c| c < WHOLE)?),
        None => (s, WHOLE),
    };
    match id.split_once('-') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?, yielded)),
        None if yielded == WHOLE => Some((id.parse().ok()?, 0, WHOLE)),
        None => None,
    }
}

/// `p` as a Redis shard position: `ms-n`, or `ms-n.c` inside an entry.
pub(crate) fn pos_text((a, b, c): Pos) -> String {
    if c == WHOLE {
        format!("{a}-{b}")
    } else {
        format!("{a}-{b}.{c}")
    }
}

impl Position {
    pub(crate) fn parse(c: &FeedCursor) -> Option<Position> {
        let s = c.as_str();
        if !s.contains(':') {
            return parse_pos(s).map(Position::All);
        }
        let mut shards = s
            .split(',')
            .map(|part| {
                let (k, pos) = part.split_once(':')?;
                Some((k.parse().ok()?, parse_pos(pos)?))
            })
            .collect::<Option<Vec<(u16, Pos)>>>()?;
        shards.sort_unstable_by_key(|(k, _)| *k);
        shards.dedup_by_key(|(k, _)| *k);
        Some(Position::Shards(shards))
    }

    /// Where shard `k` stands, if this cursor follows it.
    pub(crate) fn of(&self, k: u16) -> Option<Pos> {
        match self {
            Position::All(p) => Some(*p),
            Position::Shards(v) => v.iter().find(|(s, _)| *s == k).map(|(_, p)| *p),
        }
    }

    pub(crate) fn to_cursor(&self) -> FeedCursor {
        match self {
            Position::All((a, 0, WHOLE)) => FeedCursor::from(a.to_string()),
            Position::All(p) => FeedCursor::from(pos_text(*p)),
            Position::Shards(v) => {
                let parts: Vec<String> = v
                    .iter()
                    .map(|(k, p)| format!("{k}:{}", pos_text(*p)))
                    .collect();
                FeedCursor::from(parts.join(","))
            }
        }
    }
}

/// Whether `c` is at or past `target` in every shard `target` names.
pub(crate) fn at_or_past(c: &FeedCursor, target: &FeedCursor) -> bool {
    let (Some(c), Some(t)) = (Position::parse(c), Position::parse(target)) else {
        return false;
    };
    match &t {
        Position::All(tp) => match &c {
            Position::All(cp) => cp >= tp,
            Position::Shards(v) => !v.is_empty() && v.iter().all(|(_, cp)| cp >= tp),
        },
        Position::Shards(tv) => tv
            .iter()
            .all(|(k, tp)| c.of(*k).is_some_and(|cp| cp >= *tp)),
    }
}

/// `c` narrowed to `shards` (a cursor of every shard, or of more, loses the
/// others). `None` when it is not a position (e.g. "$").
pub(crate) fn restrict(c: &FeedCursor, shards: &[u16]) -> Option<FeedCursor> {
    let p = Position::parse(c)?;
    let mut v: Vec<(u16, Pos)> = shards
        .iter()
        .filter_map(|&k| p.of(k).map(|pos| (k, pos)))
        .collect();
    v.sort_unstable_by_key(|(k, _)| *k);
    v.dedup_by_key(|(k, _)| *k);
    Some(Position::Shards(v).to_cursor())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> FeedCursor {
        FeedCursor::from(s)
    }

    #[test]
    fn cursors_of_both_backends_are_ordered() {
        assert!(at_or_past(&c("1700-3"), &c("1700-2")));
        assert!(!at_or_past(&c("1699-9"), &c("1700-0")));
        assert!(at_or_past(&c("0"), &c("0-0")));
        assert!(at_or_past(&c("12"), &c("9")));
        assert!(!at_or_past(&c("$"), &c("0")));
    }

    #[test]
    fn a_sharded_cursor_is_past_a_target_only_in_every_shard() {
        let target = c("0:5-0,1:7-1");
        assert!(at_or_past(&c("0:5-0,1:7-1"), &target));
        assert!(at_or_past(&c("0:9-0,1:8-0,2:0-0"), &target));
        assert!(!at_or_past(&c("0:9-0,1:7-0"), &target));
        assert!(!at_or_past(&c("0:9-0"), &target));
        assert!(!at_or_past(&c("0"), &target));
        assert!(at_or_past(&c("0:1-0,1:2-0"), &c("0")));
    }

    #[test]
    fn a_cursor_narrowed_to_shards_keeps_only_theirs() {
        assert_eq!(restrict(&c("0"), &[3, 1]), Some(c("1:0-0,3:0-0")));
        assert_eq!(
            restrict(&c("0:1-0,1:2-0,2:3-0"), &[2, 0]),
            Some(c("0:1-0,2:3-0"))
        );
        assert_eq!(restrict(&c("$"), &[1]), None);
        let round = c("0:1-2,15:3-4.2");
        assert_eq!(Position::parse(&round).unwrap().to_cursor(), round);
    }

    #[test]
    fn a_position_inside_an_entry_sorts_before_the_whole_entry() {
        assert!(at_or_past(&c("0:7-1"), &c("0:7-1.2")));
        assert!(!at_or_past(&c("0:7-1.2"), &c("0:7-1")));
        assert!(at_or_past(&c("0:7-1.3"), &c("0:7-1.2")));
        assert!(at_or_past(&c("0:7-2.1"), &c("0:7-1")));
        assert!(Position::parse(&c("0:7.1")).is_none());
        assert!(Position::parse(&c("0:7-1.x")).is_none());
    }
}
