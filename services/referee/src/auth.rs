//! Bearer tokens, configured by the organiser (a JSON file and/or
//! environment variables), never compiled in.
//!
//! File format (`--auth FILE`):
//! ```json
//! { "chief_tokens": ["s3cret-chief"],
//!   "judges": [ { "token": "t3-token", "tables": [3] },
//!               { "token": "t45-token", "tables": [4, 5] } ] }
//! ```
//! Environment: `MAFIA_REFEREE_CHIEF_TOKENS=a,b` and
//! `MAFIA_REFEREE_JUDGE_TOKENS="tok3=3;tok45=4,5"`.

use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use tonic::metadata::MetadataMap;
use tonic::Status;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    #[serde(default)]
    pub chief_tokens: Vec<String>,
    #[serde(default)]
    pub judges: Vec<JudgeToken>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeToken {
    pub token: String,
    pub tables: Vec<u32>,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Parse(String),
}

impl AuthConfig {
    pub fn from_file(path: &str) -> Result<Self, AuthConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| AuthConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| AuthConfigError::Parse(format!("{path}: {e}")))
    }

    /// Adds tokens from the two environment variable values (either may be empty).
    pub fn extend_from_env(&mut self, chief: &str, judges: &str) -> Result<(), AuthConfigError> {
        self.chief_tokens.extend(
            chief
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
        );
        for entry in judges.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let (token, tables) = entry.split_once('=').ok_or_else(|| {
                AuthConfigError::Parse(format!("judge token entry {entry:?} is not TOKEN=T1,T2"))
            })?;
            let tables = tables
                .split(',')
                .map(|t| t.trim().parse::<u32>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| AuthConfigError::Parse(format!("tables of {entry:?}: {e}")))?;
            self.judges.push(JudgeToken {
                token: token.trim().to_owned(),
                tables,
            });
        }
        Ok(())
    }
}

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// May open, judge and read any game.
    Chief,
    /// May open, judge and read games at these tables only.
    TableJudge { tables: BTreeSet<u32> },
}

impl Caller {
    pub fn may_judge(&self, table: u32) -> Result<(), Status> {
        match self {
            Caller::Chief => Ok(()),
            Caller::TableJudge { tables } if tables.contains(&table) => Ok(()),
            Caller::TableJudge { .. } => Err(Status::permission_denied(format!(
                "this token is not bound to table {table}"
            ))),
        }
    }
}

/// The token table, looked up on every call.
#[derive(Debug, Default)]
pub struct Tokens {
    by_token: HashMap<String, Caller>,
}

impl Tokens {
    pub fn new(cfg: &AuthConfig) -> Tokens {
        let mut by_token: HashMap<String, Caller> = HashMap::new();
        for j in &cfg.judges {
            let entry = by_token
                .entry(j.token.clone())
                .or_insert_with(|| Caller::TableJudge {
                    tables: BTreeSet::new(),
                });
            if let Caller::TableJudge { tables } = entry {
                tables.extend(j.tables.iter().copied());
            }
        }
        // A chief token wins over any table binding of the same string.
        for t in &cfg.chief_tokens {
            by_token.insert(t.clone(), Caller::Chief);
        }
        by_token.retain(|t, _| !t.is_empty());
        Tokens { by_token }
    }

    pub fn is_empty(&self) -> bool {
        self.by_token.is_empty()
    }

    /// The caller named by `authorization: Bearer <token>`.
    pub fn authenticate(&self, meta: &MetadataMap) -> Result<Caller, Status> {
        let value = meta
            .get("authorization")
            .ok_or_else(|| Status::unauthenticated("missing authorization: Bearer <token>"))?;
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(|| Status::unauthenticated("authorization must be `Bearer <token>`"))?;
        self.by_token
            .get(token)
            .cloned()
            .ok_or_else(|| Status::unauthenticated("unknown token"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(token: Option<&str>) -> MetadataMap {
        let mut m = MetadataMap::new();
        if let Some(t) = token {
            m.insert("authorization", format!("Bearer {t}").parse().unwrap());
        }
        m
    }

    fn tokens() -> Tokens {
        let mut cfg = AuthConfig::default();
        cfg.extend_from_env("chief", "t3=3;t45=4,5").unwrap();
        Tokens::new(&cfg)
    }

    #[test]
    fn a_table_token_may_judge_only_its_tables() {
        let c = tokens().authenticate(&meta(Some("t45"))).unwrap();
        assert!(c.may_judge(4).is_ok());
        assert_eq!(
            c.may_judge(3).unwrap_err().code(),
            tonic::Code::PermissionDenied
        );
    }

    #[test]
    fn missing_and_unknown_tokens_are_unauthenticated() {
        let t = tokens();
        for m in [meta(None), meta(Some("nope"))] {
            assert_eq!(
                t.authenticate(&m).unwrap_err().code(),
                tonic::Code::Unauthenticated
            );
        }
    }

    #[test]
    fn the_chief_token_may_judge_any_table() {
        let c = tokens().authenticate(&meta(Some("chief"))).unwrap();
        assert!(c.may_judge(99).is_ok());
    }

    #[test]
    fn the_token_file_binds_judges_to_their_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        std::fs::write(
            &path,
            r#"{"chief_tokens":["c"],"judges":[{"token":"j","tables":[7,8]}]}"#,
        )
        .unwrap();
        let t = Tokens::new(&AuthConfig::from_file(path.to_str().unwrap()).unwrap());
        let j = t.authenticate(&meta(Some("j"))).unwrap();
        assert!(j.may_judge(8).is_ok() && j.may_judge(9).is_err());
        assert_eq!(t.authenticate(&meta(Some("c"))).unwrap(), Caller::Chief);
    }

    #[test]
    fn a_token_file_with_unknown_fields_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        std::fs::write(&path, r#"{"chief":["c"]}"#).unwrap();
        assert!(AuthConfig::from_file(path.to_str().unwrap()).is_err());
    }

    #[test]
    fn a_malformed_env_entry_is_refused() {
        let mut cfg = AuthConfig::default();
        assert!(cfg.extend_from_env("", "tok").is_err());
        assert!(cfg.extend_from_env("", "tok=x").is_err());
    }
}
