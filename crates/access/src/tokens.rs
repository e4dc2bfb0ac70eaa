//! The known tokens, checked on every request.

use crate::{bearer, AuthError, Caller, GamePattern, Grant, Role, TokenFile};
use std::collections::HashSet;
use std::sync::Arc;

/// Shortest token accepted: a guessable token is worse than none.
pub const MIN_TOKEN_LEN: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Tokens {
    entries: Vec<(String, Caller)>,
}

impl Tokens {
    pub fn new(file: &TokenFile) -> Result<Tokens, AuthError> {
        let mut seen = HashSet::new();
        let mut entries = Vec::with_capacity(file.tokens.len());
        for e in &file.tokens {
            if e.token.len() < MIN_TOKEN_LEN || e.token.contains(char::is_whitespace) {
                return Err(AuthError::Config(format!(
                    "a {} token must be at least {MIN_TOKEN_LEN} characters, without spaces",
                    e.role.name()
                )));
            }
            if !seen.insert(e.token.as_str()) {
                return Err(AuthError::Config("a token is listed twice".into()));
            }
            let games = match (e.role, e.games.is_empty()) {
                (Role::TableJudge, true) => {
                    return Err(AuthError::Config(
                        "a table_judge token must name its games".into(),
                    ))
                }
                (_, true) => vec![GamePattern::any()],
                (_, false) => e.games.clone(),
            };
            entries.push((
                e.token.clone(),
                Caller::Known(Arc::new(Grant {
                    role: e.role,
                    games,
                    name: e.name.clone(),
                })),
            ));
        }
        Ok(Tokens { entries })
    }

    pub fn from_json(json: &str) -> Result<Tokens, AuthError> {
        Tokens::new(&TokenFile::from_json(json)?)
    }

    /// The tokens of `MAFIA_TOKENS_FILE` and `MAFIA_TOKENS` (as a service's
    /// flags resolved them).
    pub fn load(path: Option<&std::path::Path>, inline: Option<&str>) -> Result<Tokens, AuthError> {
        Tokens::new(&TokenFile::load(path, inline)?)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// No token is the public; an unknown token is an error, never the
    /// public, so a mistyped broadcast token is noticed.
    pub fn check(&self, token: Option<&str>) -> Result<Caller, AuthError> {
        let Some(token) = token else {
            return Ok(Caller::Public);
        };
        // Compare against every entry without stopping early, so the time
        // taken says nothing about which prefix matched.
        let mut found = None;
        for (t, caller) in &self.entries {
            if constant_time_eq(t.as_bytes(), token.as_bytes()) {
                found = Some(caller.clone());
            }
        }
        found.ok_or(AuthError::BadToken)
    }

    /// The caller named by an `Authorization` header value, if there is one.
    /// A header that is present but not `Bearer <token>` is an error.
    pub fn check_authorization(&self, header: Option<&str>) -> Result<Caller, AuthError> {
        match header {
            None => Ok(Caller::Public),
            Some(v) => self.check(Some(bearer(v)?)),
        }
    }
}

/// A fresh token of 32 hex digits from `rng` (the caller seeds it from the
/// OS for real tokens), for demos started without a token file.
pub fn random_token(rng: &mut impl rand::RngCore) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    use mafia_rules::Audience;

    const FILE: &str = r#"{"tokens":[
        {"role":"chief_judge","token":"chief-token"},
        {"role":"broadcast","token":"broadcast-token"},
        {"role":"table_judge","token":"judge-t3-token","games":["cup.*.*.t3.*"],"name":"Anna"}]}"#;

    #[test]
    fn a_token_entry_name_is_the_callers_holder() {
        let t = Tokens::from_json(FILE).unwrap();
        assert_eq!(
            t.check(Some("judge-t3-token")).unwrap().holder(),
            Some("Anna")
        );
        assert_eq!(t.check(Some("chief-token")).unwrap().holder(), None);
        assert_eq!(Caller::Public.holder(), None);
    }

    #[test]
    fn no_token_is_the_public_and_an_unknown_one_an_error() {
        let t = Tokens::from_json(FILE).unwrap();
        assert_eq!(t.check(None).unwrap(), Caller::Public);
        assert_eq!(t.check(Some("nope-nope")), Err(AuthError::BadToken));
        assert_eq!(t.check(Some("")), Err(AuthError::BadToken));
    }

    #[test]
    fn a_present_but_unreadable_authorization_header_is_an_error() {
        let t = Tokens::from_json(FILE).unwrap();
        assert_eq!(
            t.check_authorization(Some("chief-token")),
            Err(AuthError::BadScheme)
        );
        assert_eq!(
            t.check_authorization(Some("bearer chief-token"))
                .unwrap()
                .role(),
            Some(Role::ChiefJudge)
        );
        assert_eq!(t.check_authorization(None).unwrap(), Caller::Public);
    }

    #[test]
    fn each_role_of_the_file_gets_its_audience() {
        let t = Tokens::from_json(FILE).unwrap();
        let g = "cup.main.r1.t3.g1".parse().unwrap();
        let aud = |tok| t.check(Some(tok)).unwrap().audience_for(&g).unwrap();
        assert_eq!(aud("chief-token"), Audience::Judge);
        assert_eq!(aud("broadcast-token"), Audience::Broadcast);
        assert_eq!(aud("judge-t3-token"), Audience::Judge);
    }

    #[test]
    fn short_duplicate_and_unscoped_judge_tokens_are_refused() {
        for bad in [
            r#"{"tokens":[{"role":"chief_judge","token":"short"}]}"#,
            r#"{"tokens":[{"role":"chief_judge","token":"same-token"},{"role":"broadcast","token":"same-token"}]}"#,
            r#"{"tokens":[{"role":"table_judge","token":"judge-token"}]}"#,
            r#"{"tokens":[{"role":"referee","token":"judge-token"}]}"#,
            r#"{"tokens":[{"role":"broadcast","token":"judge-token","extra":1}]}"#,
            r#"{"chief_judge":["cccccccc"]}"#,
        ] {
            assert!(Tokens::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_file_and_inline_json_are_read_together() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        std::fs::write(&path, FILE).unwrap();
        let t = Tokens::load(
            Some(&path),
            Some(r#"{"tokens":[{"role":"organiser","token":"organiser-token"}]}"#),
        )
        .unwrap();
        assert_eq!(
            t.check(Some("organiser-token")).unwrap().role(),
            Some(Role::Organiser)
        );
        assert_eq!(
            t.check(Some("chief-token")).unwrap().role(),
            Some(Role::ChiefJudge)
        );
        let missing = Tokens::load(Some(&dir.path().join("nope.json")), None).unwrap_err();
        assert!(missing.to_string().contains("nope.json"), "{missing}");
    }
}
