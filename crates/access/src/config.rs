//! The token file, the one format every service reads:
//!
//! ```json
//! { "tokens": [
//!     { "role": "chief_judge", "token": "…" },
//!     { "role": "table_judge", "token": "…", "games": ["cup-2026.*.*.t3.*"] },
//!     { "role": "broadcast",   "token": "…" },
//!     { "role": "organiser",   "token": "…", "games": ["cup-2026.*.*.*.*"] } ] }
//! ```
//!
//! `games` limits a token to the games its patterns cover (see
//! [`GamePattern`]); it defaults to every game, except for a table judge,
//! who must name his. `name` is optional: who holds the token, carried on
//! the `Caller` (`Caller::holder`); the scoring service reads a table judge's
//! name as his judge id in the tournament. The file comes
//! from `MAFIA_TOKENS_FILE` (a path) and/or `MAFIA_TOKENS` (the same JSON
//! inline), never from the source.

use crate::{AuthError, GamePattern, Role};
use serde::{Deserialize, Serialize};

/// A path to a token file.
pub const ENV_TOKENS_FILE: &str = "MAFIA_TOKENS_FILE";
/// A token file's JSON, inline.
pub const ENV_TOKENS: &str = "MAFIA_TOKENS";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenFile {
    pub tokens: Vec<TokenEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenEntry {
    pub role: Role,
    pub token: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<GamePattern>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl TokenEntry {
    pub fn new(role: Role, token: impl Into<String>, games: Vec<GamePattern>) -> TokenEntry {
        TokenEntry {
            role,
            token: token.into(),
            games,
            name: None,
        }
    }
}

impl TokenFile {
    /// A demo's tokens, fresh from `rng`: a chief judge, a broadcast token
    /// and a table judge for `judged` games. Printed once, never stored.
    pub fn demo(rng: &mut impl rand::RngCore, judged: GamePattern) -> TokenFile {
        let mut token = || crate::random_token(rng);
        TokenFile {
            tokens: vec![
                TokenEntry::new(Role::ChiefJudge, token(), vec![]),
                TokenEntry::new(Role::Broadcast, token(), vec![]),
                TokenEntry::new(Role::TableJudge, token(), vec![judged]),
            ],
        }
    }

    /// The first token given to `role`.
    pub fn token_of(&self, role: Role) -> Option<&str> {
        self.tokens
            .iter()
            .find(|t| t.role == role)
            .map(|t| t.token.as_str())
    }

    pub fn from_json(json: &str) -> Result<TokenFile, AuthError> {
        serde_json::from_str(json).map_err(|e| AuthError::Config(e.to_string()))
    }

    pub fn from_path(path: &std::path::Path) -> Result<TokenFile, AuthError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AuthError::Config(format!("cannot read {}: {e}", path.display())))?;
        TokenFile::from_json(&text).map_err(|e| match e {
            AuthError::Config(why) => AuthError::Config(format!("{}: {why}", path.display())),
            other => other,
        })
    }

    /// The tokens of a file and of inline JSON (either may be absent),
    /// together.
    pub fn load(
        path: Option<&std::path::Path>,
        inline: Option<&str>,
    ) -> Result<TokenFile, AuthError> {
        let mut all = TokenFile::default();
        if let Some(p) = path {
            all.tokens.extend(TokenFile::from_path(p)?.tokens);
        }
        if let Some(json) = inline.filter(|j| !j.trim().is_empty()) {
            all.tokens.extend(
                TokenFile::from_json(json)
                    .map_err(|e| AuthError::Config(format!("{ENV_TOKENS}: {e}")))?
                    .tokens,
            );
        }
        Ok(all)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a token file serialises")
    }
}
