//! The one identity of a game, shared by proto, records, store keys, tokens,
//! GraphQL and URLs: `<tournament>.<stage>.r<round>.t<table>.g<game>`, e.g.
//! `cup-2026.final.r1.t3.g1`.
//!
//! The tournament part is the tournament's id, chosen when it is created,
//! never a slug of its name (two names that slug alike must not collide), and
//! the stage is part of the id (a qualifying r1.t1.g1 and a final r1.t1.g1
//! are different games). Every part is made of `[a-z0-9_-]`, so the text is
//! safe as a storage key and a URL path segment without escaping, and the
//! dots separate the parts unambiguously.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Longest tournament id, in bytes.
pub const MAX_TOURNAMENT_ID_LEN: usize = 64;
/// Longest stage id, in bytes.
pub const MAX_STAGE_ID_LEN: usize = 32;
/// The stage of games recorded before stages were part of the id.
pub const DEFAULT_STAGE: &str = "main";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameIdError {
    #[error("{what} is empty")]
    Empty { what: &'static str },
    #[error("{what} is longer than {max} bytes")]
    TooLong { what: &'static str, max: usize },
    #[error("{what} may hold only a-z, 0-9, '_' and '-' (found {found:?})")]
    BadChar { what: &'static str, found: char },
    #[error("a game id has five parts, <tournament>.<stage>.r<round>.t<table>.g<game>")]
    Shape,
    #[error("{what} must be {prefix}<number ≥ 1>")]
    Number { what: &'static str, prefix: char },
}

fn check_slug(what: &'static str, s: &str, max: usize) -> Result<(), GameIdError> {
    if s.is_empty() {
        return Err(GameIdError::Empty { what });
    }
    if s.len() > max {
        return Err(GameIdError::TooLong { what, max });
    }
    if let Some(found) = s
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '-'))
    {
        return Err(GameIdError::BadChar { what, found });
    }
    Ok(())
}

/// Turns free text (a legacy tournament name or stage) into a slug: ASCII
/// letters lowercased, digits, `_` and `-` kept, anything else `-`. Lossy on
/// purpose; used only for records written before ids existed.
pub fn slugify(text: &str, max: usize) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.truncate(max);
    s
}

macro_rules! slug_id {
    ($name:ident, $what:literal, $max:expr) => {
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub fn new(s: impl Into<String>) -> Result<Self, GameIdError> {
                let s = s.into();
                check_slug($what, &s, $max)?;
                Ok(Self(s))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = GameIdError;
            fn from_str(s: &str) -> Result<Self, GameIdError> {
                Self::new(s)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::new(s).map_err(serde::de::Error::custom)
            }
        }
    };
}

slug_id!(TournamentId, "a tournament id", MAX_TOURNAMENT_ID_LEN);
slug_id!(StageId, "a stage id", MAX_STAGE_ID_LEN);

impl StageId {
    /// The stage of legacy records that named none.
    pub fn main() -> StageId {
        StageId(DEFAULT_STAGE.to_owned())
    }
}

/// A game's identity. Ordered by tournament, stage, round, table, game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId {
    pub tournament: TournamentId,
    pub stage: StageId,
    pub round: u32,
    pub table: u32,
    pub game: u32,
}

/// Longest textual game id, in bytes.
pub const MAX_GAME_ID_LEN: usize = MAX_TOURNAMENT_ID_LEN + MAX_STAGE_ID_LEN + 3 * 11 + 4;

impl GameId {
    pub fn new(
        tournament: TournamentId,
        stage: StageId,
        round: u32,
        table: u32,
        game: u32,
    ) -> Result<GameId, GameIdError> {
        for (what, prefix, n) in [
            ("the round", 'r', round),
            ("the table", 't', table),
            ("the game", 'g', game),
        ] {
            if n == 0 {
                return Err(GameIdError::Number { what, prefix });
            }
        }
        Ok(GameId {
            tournament,
            stage,
            round,
            table,
            game,
        })
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}.r{}.t{}.g{}",
            self.tournament, self.stage, self.round, self.table, self.game
        )
    }
}

fn number(what: &'static str, prefix: char, part: &str) -> Result<u32, GameIdError> {
    let bad = GameIdError::Number { what, prefix };
    let digits = part.strip_prefix(prefix).ok_or(bad.clone())?;
    // Canonical form only: no sign, no leading zero, so one game has one text.
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad);
    }
    digits.parse().map_err(|_| bad)
}

impl FromStr for GameId {
    type Err = GameIdError;
    fn from_str(s: &str) -> Result<GameId, GameIdError> {
        if s.len() > MAX_GAME_ID_LEN {
            return Err(GameIdError::TooLong {
                what: "a game id",
                max: MAX_GAME_ID_LEN,
            });
        }
        let parts: Vec<&str> = s.split('.').collect();
        let [t, st, r, tb, g] = parts[..] else {
            return Err(GameIdError::Shape);
        };
        GameId::new(
            t.parse()?,
            st.parse()?,
            number("the round", 'r', r)?,
            number("the table", 't', tb)?,
            number("the game", 'g', g)?,
        )
    }
}

impl Serialize for GameId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GameId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> GameId {
        s.parse().unwrap()
    }

    #[test]
    fn text_form_round_trips() {
        let g = id("cup-2026.final.r1.t3.g1");
        assert_eq!(g.tournament.as_str(), "cup-2026");
        assert_eq!(g.stage.as_str(), "final");
        assert_eq!((g.round, g.table, g.game), (1, 3, 1));
        assert_eq!(g.to_string(), "cup-2026.final.r1.t3.g1");
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, "\"cup-2026.final.r1.t3.g1\"");
        assert_eq!(serde_json::from_str::<GameId>(&json).unwrap(), g);
    }

    #[test]
    fn the_stage_tells_games_apart() {
        assert_ne!(id("cup.qualifying.r1.t1.g1"), id("cup.final.r1.t1.g1"));
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in [
            "",
            "cup.r1.t3.g1",
            "cup.main.r1.t3",
            "cup.main.r1.t3.g1.x",
            "Cup.main.r1.t3.g1",
            "cup.main.r0.t3.g1",
            "cup.main.r01.t3.g1",
            "cup.main.r+1.t3.g1",
            "cup.main.x1.t3.g1",
            "cup/x.main.r1.t3.g1",
            "cup..r1.t3.g1",
            "cup.main.r99999999999.t3.g1",
        ] {
            assert!(bad.parse::<GameId>().is_err(), "{bad:?} accepted");
        }
        assert!(format!("{}.main.r1.t1.g1", "a".repeat(65))
            .parse::<GameId>()
            .is_err());
        assert!("x".repeat(10_000).parse::<GameId>().is_err());
    }

    #[test]
    fn slugify_lowercases_and_replaces() {
        assert_eq!(slugify("Кубок Cup 2026!", 64), "------cup-2026-");
    }
}
