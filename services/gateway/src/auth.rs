//! Tokens and what they unlock. Tokens come from a JSON file or an
//! environment variable (never from the source):
//!
//! ```json
//! { "broadcast": ["…"], "chief_judge": ["…"],
//!   "table_judge": { "…token…": ["game-id", "cup.*.t3.*", "…"] } }
//! ```
//!
//! A table judge's entries are game ids, where `*` stands for any run of
//! characters: `cup.*.t3.*` is every game at table 3 of tournament `cup`
//! (game ids are `<tournament>.r<round>.t<table>.g<game>`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use mafia_rules::Audience;
use serde::Deserialize;

/// The token file's content.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    #[serde(default)]
    pub broadcast: Vec<String>,
    #[serde(default)]
    pub chief_judge: Vec<String>,
    /// Token → the game ids of the tables it judges.
    #[serde(default)]
    pub table_judge: HashMap<String, Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Said the same way for every bad token, so nothing is learnt by trying.
    #[error("invalid token")]
    BadToken,
    #[error("this token does not give access to table {0:?}")]
    Forbidden(String),
    #[error("token config: {0}")]
    Config(String),
}

/// The games a table judge's token opens: ids and `*` patterns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Games {
    patterns: Vec<String>,
}

impl Games {
    pub fn new(patterns: impl IntoIterator<Item = String>) -> Games {
        Games {
            patterns: patterns.into_iter().collect(),
        }
    }

    pub fn contains(&self, game_id: &str) -> bool {
        self.patterns.iter().any(|p| glob(p, game_id))
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Who is asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    Public,
    /// Everything, behind the broadcast delay.
    Broadcast,
    /// Its own tables, live. Other tables are refused rather than shown in
    /// the public's form, so a judge's screen never mixes audiences.
    TableJudge(Arc<Games>),
    ChiefJudge,
}

impl Access {
    /// The audience this caller gets for `game_id`.
    pub fn audience_for(&self, game_id: &str) -> Result<Audience, AuthError> {
        match self {
            Access::Public => Ok(Audience::Public),
            Access::Broadcast => Ok(Audience::Broadcast),
            Access::ChiefJudge => Ok(Audience::Judge),
            Access::TableJudge(t) if t.contains(game_id) => Ok(Audience::Judge),
            Access::TableJudge(_) => Err(AuthError::Forbidden(game_id.to_owned())),
        }
    }

    /// The audience for an all-tables view, and the tables it may include.
    pub fn hall(&self) -> (Audience, Option<Arc<Games>>) {
        match self {
            Access::Public => (Audience::Public, None),
            Access::Broadcast => (Audience::Broadcast, None),
            Access::ChiefJudge => (Audience::Judge, None),
            Access::TableJudge(t) => (Audience::Judge, Some(t.clone())),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Access::Public => "public",
            Access::Broadcast => "broadcast",
            Access::TableJudge(_) => "table_judge",
            Access::ChiefJudge => "chief_judge",
        }
    }
}

/// The known tokens.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    entries: Vec<(String, Access)>,
}

impl Tokens {
    pub fn new(config: &TokenConfig) -> Result<Tokens, AuthError> {
        let mut entries = Vec::new();
        for t in &config.broadcast {
            entries.push((t.clone(), Access::Broadcast));
        }
        for t in &config.chief_judge {
            entries.push((t.clone(), Access::ChiefJudge));
        }
        for (t, tables) in &config.table_judge {
            entries.push((
                t.clone(),
                Access::TableJudge(Arc::new(Games::new(tables.iter().cloned()))),
            ));
        }
        let mut seen = HashSet::new();
        for (t, _) in &entries {
            if t.len() < 8 {
                return Err(AuthError::Config(
                    "tokens must be at least 8 characters".into(),
                ));
            }
            if !seen.insert(t.as_str()) {
                return Err(AuthError::Config("a token is listed twice".into()));
            }
        }
        Ok(Tokens { entries })
    }

    pub fn from_json(json: &str) -> Result<Tokens, AuthError> {
        let config: TokenConfig =
            serde_json::from_str(json).map_err(|e| AuthError::Config(e.to_string()))?;
        Tokens::new(&config)
    }

    /// No token is the public; an unknown token is an error, never the public,
    /// so a mistyped broadcast token is noticed.
    pub fn check(&self, token: Option<&str>) -> Result<Access, AuthError> {
        let Some(token) = token.filter(|t| !t.is_empty()) else {
            return Ok(Access::Public);
        };
        // Compare against every entry without stopping early, so the time
        // taken says nothing about which prefix matched.
        let mut found = None;
        for (t, access) in &self.entries {
            if constant_time_eq(t.as_bytes(), token.as_bytes()) {
                found = Some(access.clone());
            }
        }
        found.ok_or(AuthError::BadToken)
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_judge_token_opens_only_its_tables() {
        let tokens = Tokens::from_json(
            r#"{"broadcast":["bbbbbbbb"],"chief_judge":["cccccccc"],"table_judge":{"jjjjjjjj":["t1"]}}"#,
        )
        .unwrap();
        let j = tokens.check(Some("jjjjjjjj")).unwrap();
        assert_eq!(j.audience_for("t1").unwrap(), Audience::Judge);
        assert!(j.audience_for("t2").is_err());
        assert_eq!(tokens.check(None).unwrap(), Access::Public);
        assert!(tokens.check(Some("nope-nope")).is_err());
        assert_eq!(
            tokens
                .check(Some("bbbbbbbb"))
                .unwrap()
                .audience_for("t9")
                .unwrap(),
            Audience::Broadcast
        );
    }
}
