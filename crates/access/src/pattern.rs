//! Scopes: which games a token covers, written like game ids with `*` for
//! any part: `cup-2026.*.*.t3.*` is table 3 of every stage and round of
//! `cup-2026`, `cup-2026.final.r1.*.*` the final's first round, `*` every
//! game. One part is either itself or `*`, never a partial glob, so a
//! pattern cannot cover more than it appears to (`cup*` would also cover
//! `cupcake`).

use mafia_record::{GameId, StageId, TournamentId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePattern {
    tournament: Option<TournamentId>,
    stage: Option<StageId>,
    round: Option<u32>,
    table: Option<u32>,
    game: Option<u32>,
}

impl GamePattern {
    /// Every game.
    pub fn any() -> GamePattern {
        GamePattern {
            tournament: None,
            stage: None,
            round: None,
            table: None,
            game: None,
        }
    }

    /// Exactly this game.
    pub fn exactly(id: &GameId) -> GamePattern {
        GamePattern {
            tournament: Some(id.tournament.clone()),
            stage: Some(id.stage.clone()),
            round: Some(id.round),
            table: Some(id.table),
            game: Some(id.game),
        }
    }

    /// Every game of one tournament.
    pub fn tournament(t: &TournamentId) -> GamePattern {
        GamePattern {
            tournament: Some(t.clone()),
            ..GamePattern::any()
        }
    }

    /// Every game of one table in one round, replays included.
    pub fn table(t: &TournamentId, stage: &StageId, round: u32, table: u32) -> GamePattern {
        GamePattern {
            tournament: Some(t.clone()),
            stage: Some(stage.clone()),
            round: Some(round),
            table: Some(table),
            game: None,
        }
    }

    /// Whether every game `other` covers is covered by this pattern: each
    /// part is `*` here or the same there.
    pub fn contains(&self, other: &GamePattern) -> bool {
        fn part<T: PartialEq>(mine: &Option<T>, theirs: &Option<T>) -> bool {
            match (mine, theirs) {
                (None, _) => true,
                (Some(m), Some(t)) => m == t,
                (Some(_), None) => false,
            }
        }
        part(&self.tournament, &other.tournament)
            && part(&self.stage, &other.stage)
            && part(&self.round, &other.round)
            && part(&self.table, &other.table)
            && part(&self.game, &other.game)
    }

    pub fn covers(&self, id: &GameId) -> bool {
        self.tournament.as_ref().is_none_or(|t| *t == id.tournament)
            && self.stage.as_ref().is_none_or(|s| *s == id.stage)
            && self.round.is_none_or(|r| r == id.round)
            && self.table.is_none_or(|t| t == id.table)
            && self.game.is_none_or(|g| g == id.game)
    }

    /// Whether the pattern names its tournament (rather than `*`).
    pub fn names_tournament(&self) -> bool {
        self.tournament.is_some()
    }

    /// Whether some game of tournament `t` is covered (a hall view of `t`).
    pub fn touches(&self, t: &TournamentId) -> bool {
        self.tournament.as_ref().is_none_or(|p| p == t)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pattern:?} is not a game pattern (<tournament>.<stage>.r<N>.t<N>.g<N>, any part may be *, or * alone): {why}")]
pub struct BadPattern {
    pub pattern: String,
    pub why: String,
}

fn part<T>(
    text: &str,
    whole: &str,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<Option<T>, BadPattern> {
    if text == "*" {
        return Ok(None);
    }
    parse(text).map(Some).map_err(|why| BadPattern {
        pattern: whole.to_owned(),
        why,
    })
}

fn numbered(prefix: char) -> impl Fn(&str) -> Result<u32, String> {
    move |text| {
        let digits = text
            .strip_prefix(prefix)
            .ok_or(format!("{text:?} must be {prefix}<N> or *"))?;
        match digits.parse::<u32>() {
            Ok(n) if n > 0 && !digits.starts_with(['0', '+']) => Ok(n),
            _ => Err(format!("{text:?} must be {prefix}<number ≥ 1>")),
        }
    }
}

impl FromStr for GamePattern {
    type Err = BadPattern;
    fn from_str(s: &str) -> Result<GamePattern, BadPattern> {
        if s == "*" {
            return Ok(GamePattern::any());
        }
        let parts: Vec<&str> = s.split('.').collect();
        let [t, st, r, tb, g] = parts[..] else {
            return Err(BadPattern {
                pattern: s.to_owned(),
                why: "it needs five parts".into(),
            });
        };
        // `r*` reads as "any round" too: it is what people type.
        let numbered_part = |text: &str, prefix: char| {
            let text = match text.strip_prefix(prefix) {
                Some("*") => "*",
                _ => text,
            };
            part(text, s, numbered(prefix))
        };
        Ok(GamePattern {
            tournament: part(t, s, |x| {
                x.parse::<TournamentId>().map_err(|e| e.to_string())
            })?,
            stage: part(st, s, |x| x.parse::<StageId>().map_err(|e| e.to_string()))?,
            round: numbered_part(r, 'r')?,
            table: numbered_part(tb, 't')?,
            game: numbered_part(g, 'g')?,
        })
    }
}

impl fmt::Display for GamePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == GamePattern::any() {
            return f.write_str("*");
        }
        fn opt<T: fmt::Display>(v: &Option<T>, prefix: &str) -> String {
            v.as_ref()
                .map_or("*".to_owned(), |v| format!("{prefix}{v}"))
        }
        write!(
            f,
            "{}.{}.{}.{}.{}",
            opt(&self.tournament, ""),
            opt(&self.stage, ""),
            opt(&self.round, "r"),
            opt(&self.table, "t"),
            opt(&self.game, "g"),
        )
    }
}

impl Serialize for GamePattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GamePattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> GameId {
        s.parse().unwrap()
    }

    fn pat(s: &str) -> GamePattern {
        s.parse().unwrap()
    }

    #[test]
    fn a_table_pattern_covers_that_table_in_every_round_and_stage() {
        let p = pat("cup.*.*.t3.*");
        assert!(p.covers(&id("cup.main.r1.t3.g1")));
        assert!(p.covers(&id("cup.final.r4.t3.g2")));
        assert!(!p.covers(&id("cup.main.r1.t4.g1")));
        assert!(!p.covers(&id("cup2.main.r1.t3.g1")));
        assert_eq!(pat("cup.*.r*.t3.g*"), p);
    }

    #[test]
    fn a_star_alone_covers_every_game_and_an_exact_id_only_itself() {
        assert!(pat("*").covers(&id("x.main.r9.t9.g9")));
        let exact = pat("cup.final.r1.t2.g1");
        assert!(exact.covers(&id("cup.final.r1.t2.g1")));
        assert!(!exact.covers(&id("cup.main.r1.t2.g1")));
        assert_eq!(GamePattern::exactly(&id("cup.final.r1.t2.g1")), exact);
    }

    #[test]
    fn partial_globs_and_malformed_parts_are_refused() {
        for bad in [
            "cup*",
            "cup.*",
            "cup.*.*.t0.*",
            "cup.*.*.3.*",
            "Cup.*.*.*.*",
            "",
            "cup.*.*.t03.*",
        ] {
            assert!(bad.parse::<GamePattern>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_pattern_contains_another_only_when_it_covers_all_its_games() {
        assert!(pat("cup.*.*.*.*").contains(&pat("cup.main.r1.t3.*")));
        assert!(pat("*").contains(&pat("cup.*.*.*.*")));
        assert!(pat("cup.*.*.t3.*").contains(&pat("cup.main.r1.t3.*")));
        assert!(!pat("cup.*.*.t3.*").contains(&pat("cup.*.*.*.*")));
        assert!(!pat("cup.main.r1.t3.g1").contains(&pat("cup.main.r1.t3.*")));
        assert!(!pat("cup.*.*.*.*").contains(&pat("other.*.*.*.*")));
    }

    #[test]
    fn the_text_form_round_trips() {
        for s in ["*", "cup.*.*.t3.*", "cup.final.r1.t2.g1", "*.*.r2.*.*"] {
            assert_eq!(pat(s).to_string(), s);
        }
    }
}
