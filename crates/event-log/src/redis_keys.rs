//! The Redis key layout, laid out for Redis Cluster: the feed is split into
//! shards, each game belongs to one shard (a stable hash of its id), and
//! every key of a shard carries the shard's hash tag, so a game's header,
//! state (its fence), events, lease and its shard's feed stream are
//! in one slot. Every script touches the keys of one slot only: appending
//! and writing the feed stay one atomic script, on a cluster too.
//!
//! ```text
//! {<prefix>:<k>.<salt>}:games                 set of the shard's game ids
//! {<prefix>:<k>.<salt>}:feed                  the shard's feed stream
//! {<prefix>:<k>.<salt>}:game:<id>:header      string
//! {<prefix>:<k>.<salt>}:game:<id>:state       hash: fence
//! {<prefix>:<k>.<salt>}:game:<id>:events      list of payloads, seq s at index s - 1
//! {<prefix>:<k>.<salt>}:game:<id>:lease       "<fence>:<owner>", PX
//! ```
//!
//! `<salt>` is the smallest number that puts shard `k`'s slot in the `k`-th
//! of `N` equal slot ranges, so the shards spread evenly over the primaries
//! of a cluster made with `redis-cli --cluster create` (which gives each
//! primary one contiguous range).

use crate::LogError;

/// Redis Cluster's slot count.
const SLOTS: u32 = 16384;

/// CRC16/XMODEM, the hash Redis Cluster maps keys to slots with.
pub(crate) fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The slot of `key` (its hash tag's, if it has one), as Redis Cluster computes it.
pub(crate) fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    (u32::from(crc16(tagged.unwrap_or(key))) % SLOTS) as u16
}

/// The key names of one log: a prefix and its shards' tags, formatted once.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// `{<prefix>:<k>.<salt>}` per shard.
    tags: Vec<String>,
}

impl Layout {
    pub(crate) fn new(prefix: &str, shards: u16) -> Result<Layout, LogError> {
        if prefix.is_empty() || prefix.contains(['{', '}']) {
            return Err(LogError::InvalidArgument(
                "redis key prefix must be non-empty and hold no braces".into(),
            ));
        }
        if shards == 0 {
            return Err(LogError::InvalidArgument(
                "the feed needs at least one shard".into(),
            ));
        }
        let n = u32::from(shards);
        let tags = (0..n)
            .map(|k| {
                let range = (k * SLOTS / n)..((k + 1) * SLOTS / n).max(k * SLOTS / n + 1);
                (0u32..)
                    .map(|salt| format!("{{{prefix}:{k}.{salt}}}"))
                    .find(|tag| range.contains(&u32::from(key_slot(tag.as_bytes()))))
                    .expect("some salt lands in every range")
            })
            .collect();
        Ok(Layout { tags })
    }

    pub(crate) fn shards(&self) -> u16 {
        self.tags.len() as u16
    }

    /// The shard of `game`: stable for a given shard count.
    pub(crate) fn shard_of(&self, game: &str) -> u16 {
        (crc16(game.as_bytes()) as usize % self.tags.len()) as u16
    }

    pub(crate) fn tag(&self, shard: u16) -> &str {
        &self.tags[shard as usize]
    }

    pub(crate) fn games_key(&self, shard: u16) -> String {
        format!("{}:games", self.tag(shard))
    }

    pub(crate) fn feed_key(&self, shard: u16) -> String {
        let mut key = String::new();
        self.write_feed_key(&mut key, shard);
        key
    }

    /// [`Layout::feed_key`] appended to `out`.
    pub(crate) fn write_feed_key(&self, out: &mut String, shard: u16) {
        out.push_str(self.tag(shard));
        out.push_str(":feed");
    }

    pub(crate) fn game_key(&self, game: &str, what: &str) -> String {
        let mut key = String::new();
        self.write_game_key(&mut key, self.shard_of(game), game, what);
        key
    }

    /// [`Layout::game_key`] appended to `out`; `shard` is `game`'s, so a
    /// caller writing several keys of one game hashes its id once.
    pub(crate) fn write_game_key(&self, out: &mut String, shard: u16, game: &str, what: &str) {
        out.push_str(self.tag(shard));
        out.push_str(":game:");
        out.push_str(game);
        out.push(':');
        out.push_str(what);
    }

    /// A game's `what` key in shard `shard` split around the game's id:
    /// what the feed's read script puts each entry's game between.
    pub(crate) fn game_key_around(&self, shard: u16, what: &str) -> (String, String) {
        (format!("{}:game:", self.tag(shard)), format!(":{what}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_match_redis_cluster_reference_values() {
        // From the Redis Cluster specification.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        assert_eq!(key_slot(b"foo{}{bar}"), crc16(b"foo{}{bar}") % 16384);
    }

    #[test]
    fn a_games_keys_and_its_feed_shard_share_one_slot() {
        let layout = Layout::new("mafia", 16).unwrap();
        for game in ["cup.final.r1.t1.g1", "g", "x-2"] {
            let shard = layout.shard_of(game);
            let slot = key_slot(layout.feed_key(shard).as_bytes());
            for what in ["header", "state", "events", "lease"] {
                assert_eq!(key_slot(layout.game_key(game, what).as_bytes()), slot);
            }
            assert_eq!(key_slot(layout.games_key(shard).as_bytes()), slot);
        }
    }

    #[test]
    fn keys_are_spelled_as_the_layout_documents() {
        let layout = Layout::new("mafia", 16).unwrap();
        let game = "cup.final.r1.t1.g1";
        let tag = layout.tag(layout.shard_of(game)).to_owned();
        assert_eq!(
            layout.game_key(game, "events"),
            format!("{tag}:game:{game}:events")
        );
        assert_eq!(
            layout.feed_key(layout.shard_of(game)),
            format!("{tag}:feed")
        );
        let (before, after) = layout.game_key_around(layout.shard_of(game), "events");
        assert_eq!(
            format!("{before}{game}{after}"),
            layout.game_key(game, "events")
        );
    }

    #[test]
    fn shards_spread_over_equal_slot_ranges() {
        let layout = Layout::new("mafia", 16).unwrap();
        for k in 0..16u16 {
            let slot = u32::from(key_slot(layout.tag(k).as_bytes()));
            assert_eq!(slot * 16 / SLOTS, u32::from(k), "shard {k}");
        }
    }
}
