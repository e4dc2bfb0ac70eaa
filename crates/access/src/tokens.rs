//! The known tokens, checked on every request: the token file's (fixed
//! for the process) and the credentials issued at runtime (the log's
//! `access` stream, folded in by [`Tokens::apply`] as the follower reads
//! it), in one table keyed by each token's SHA-256. A lookup hashes the
//! token presented and looks the hash up: the time it takes says nothing
//! about how much of a real token a guess matched.
//!
//! `Tokens` is a handle: its clones share the table, so a service clones
//! it into every handler and the follower changes what all of them see.

use crate::issued::{AccessEvent, TokenHash};
use crate::{bearer, AuthError, Caller, GamePattern, Grant, Role, TokenFile};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};
use tokio::sync::watch;

/// Shortest token accepted: a guessable token is worse than none.
pub const MIN_TOKEN_LEN: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Tokens {
    table: Arc<Table>,
}

#[derive(Debug, Default)]
struct Table {
    /// The token file's, fixed.
    file: HashMap<TokenHash, Caller>,
    issued: RwLock<Issued>,
    /// Counts revocations; long-lived streams wait on it (see
    /// [`Tokens::until_revoked`]).
    revisions: watch::Sender<u64>,
    /// Whether the follower has read the stream's history once.
    caught_up: watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct Issued {
    by_hash: HashMap<TokenHash, Caller>,
    /// Live credentials' hashes by public id.
    live: HashMap<String, TokenHash>,
}

impl Tokens {
    pub fn new(file: &TokenFile) -> Result<Tokens, AuthError> {
        let mut seen = HashSet::new();
        let mut entries = HashMap::with_capacity(file.tokens.len());
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
            entries.insert(
                TokenHash::of(&e.token),
                Caller::Known(Arc::new(Grant {
                    role: e.role,
                    games,
                    name: e.name.clone(),
                    credential: None,
                })),
            );
        }
        Ok(Tokens {
            table: Arc::new(Table {
                file: entries,
                ..Table::default()
            }),
        })
    }

    pub fn from_json(json: &str) -> Result<Tokens, AuthError> {
        Tokens::new(&TokenFile::from_json(json)?)
    }

    /// The tokens of `MAFIA_TOKENS_FILE` and `MAFIA_TOKENS` (as a service's
    /// flags resolved them).
    pub fn load(path: Option<&std::path::Path>, inline: Option<&str>) -> Result<Tokens, AuthError> {
        Tokens::new(&TokenFile::load(path, inline)?)
    }

    /// No token at all: neither in the file nor issued.
    pub fn is_empty(&self) -> bool {
        self.table.file.is_empty() && self.issued().by_hash.is_empty()
    }

    fn issued(&self) -> std::sync::RwLockReadGuard<'_, Issued> {
        self.table.issued.read().unwrap_or_else(|e| e.into_inner())
    }

    /// No token is the public; an unknown token is an error, never the
    /// public, so a mistyped broadcast token is noticed.
    pub fn check(&self, token: Option<&str>) -> Result<Caller, AuthError> {
        let Some(token) = token else {
            return Ok(Caller::Public);
        };
        let hash = TokenHash::of(token);
        if let Some(c) = self.table.file.get(&hash) {
            return Ok(c.clone());
        }
        self.issued()
            .by_hash
            .get(&hash)
            .cloned()
            .ok_or(AuthError::BadToken)
    }

    /// The caller named by an `Authorization` header value, if there is one.
    /// A header that is present but not `Bearer <token>` is an error.
    pub fn check_authorization(&self, header: Option<&str>) -> Result<Caller, AuthError> {
        match header {
            None => Ok(Caller::Public),
            Some(v) => self.check(Some(bearer(v)?)),
        }
    }

    /// Folds one event of the `access` stream into the table: an issued
    /// credential is honoured from now on, a revoked one refused, and every
    /// [`Tokens::until_revoked`] of it resolves.
    pub fn apply(&self, event: &AccessEvent) {
        match event {
            AccessEvent::Issued {
                id,
                hash,
                role,
                name,
                games,
                ..
            } => {
                let caller = Caller::Known(Arc::new(Grant {
                    role: *role,
                    games: games.clone(),
                    name: Some(name.clone()),
                    credential: Some(id.clone()),
                }));
                let mut issued = self.table.issued.write().unwrap_or_else(|e| e.into_inner());
                // A token file's token keeps its own grant.
                if !self.table.file.contains_key(hash) {
                    issued.by_hash.insert(*hash, caller);
                    issued.live.insert(id.clone(), *hash);
                }
            }
            AccessEvent::Revoked { id, .. } => {
                {
                    let mut issued = self.table.issued.write().unwrap_or_else(|e| e.into_inner());
                    let Some(hash) = issued.live.remove(id) else {
                        return;
                    };
                    issued.by_hash.remove(&hash);
                }
                self.table.revisions.send_modify(|r| *r += 1);
            }
        }
    }

    /// Whether the issued credential `id` is honoured now.
    pub fn is_live(&self, id: &str) -> bool {
        self.issued().live.contains_key(id)
    }

    /// Marks the `access` stream's history read (the follower does).
    pub fn set_caught_up(&self) {
        self.table.caught_up.send_replace(true);
    }

    /// Resolves once the follower has read the `access` stream's history:
    /// every credential issued before is honoured, every revoked one
    /// refused.
    pub async fn caught_up(&self) {
        let mut rx = self.table.caught_up.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// Resolves when `caller`'s credential is revoked (at once if it
    /// already is); never for the public or a token file's token. A
    /// long-lived stream (a judge's, a watcher's, a WebSocket) selects on
    /// it and closes when it resolves.
    pub fn until_revoked(&self, caller: &Caller) -> Revocation {
        let Caller::Known(grant) = caller else {
            return Revocation::never();
        };
        let Some(id) = grant.credential.clone() else {
            return Revocation::never();
        };
        let tokens = self.clone();
        // Subscribed before the first look, so a revocation between the
        // two still wakes it.
        let mut revisions = self.table.revisions.subscribe();
        Revocation(
            Some(Box::pin(async move {
                while tokens.is_live(&id) {
                    if revisions.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            })),
            false,
        )
    }
}

/// What [`Tokens::until_revoked`] gives: a future that resolves when the
/// credential is revoked (and again, at once, each time it is polled after),
/// or never. Awaited by `&mut` in a `select!` loop.
#[must_use]
pub struct Revocation(
    Option<Pin<Box<dyn Future<Output = ()> + Send + Sync>>>,
    bool,
);

impl Revocation {
    /// A revocation that never comes.
    pub fn never() -> Revocation {
        Revocation(None, false)
    }

    /// Whether there is anything to revoke (an issued credential).
    pub fn is_revocable(&self) -> bool {
        self.0.is_some() || self.1
    }

    /// Whether it has resolved.
    pub fn is_revoked(&self) -> bool {
        self.1
    }
}

impl std::fmt::Debug for Revocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Revocation")
            .field("revocable", &self.0.is_some())
            .field("revoked", &self.1)
            .finish()
    }
}

impl Future for Revocation {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.1 {
            return Poll::Ready(());
        }
        let Some(f) = &mut self.0 else {
            return Poll::Pending;
        };
        if f.as_mut().poll(cx).is_ready() {
            self.1 = true;
            self.0 = None;
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

/// A fresh token of 32 hex digits from `rng` (the caller seeds it from the
/// OS for real tokens), for demos started without a token file.
pub fn random_token(rng: &mut impl rand::RngCore) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

    /// An event as the log stores it.
    fn stored(json: serde_json::Value) -> AccessEvent {
        AccessEvent::decode(json.to_string().as_bytes()).unwrap()
    }

    fn issued(id: &str, token: &str) -> AccessEvent {
        let hash: String = TokenHash::of(token)
            .0
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        stored(serde_json::json!({"kind": "issued", "id": id, "hash": hash,
            "tournament": "cup", "role": "chief_judge", "name": "Boris",
            "games": ["cup.*.*.*.*"], "issued_by": "Olga", "issued_at_ms": 1}))
    }

    fn revoked(id: &str) -> AccessEvent {
        stored(
            serde_json::json!({"kind": "revoked", "id": id, "tournament": "cup",
            "revoked_by": "Olga", "revoked_at_ms": 2}),
        )
    }

    #[tokio::test]
    async fn an_issued_token_is_honoured_by_every_clone_until_revoked() {
        let t = Tokens::from_json(FILE).unwrap();
        let other = t.clone();
        assert_eq!(t.check(Some("issued-token")), Err(AuthError::BadToken));
        t.apply(&issued("c-1", "issued-token"));
        let c = other.check(Some("issued-token")).unwrap();
        assert_eq!(c.credential(), Some("c-1"));
        assert_eq!(c.who(), "Boris (c-1)");
        assert_eq!(t.check(Some("chief-token")).unwrap().who(), "chief_judge");
        let mut gone = other.until_revoked(&c);
        assert!(gone.is_revocable() && !gone.is_revoked());
        t.apply(&revoked("c-1"));
        (&mut gone).await;
        assert!(gone.is_revoked());
        // Ready again at once, however often it is polled.
        (&mut gone).await;
        assert_eq!(other.check(Some("issued-token")), Err(AuthError::BadToken));
        // Applied twice (two followers of one table): the same.
        t.apply(&revoked("c-1"));
        t.apply(&issued("c-2", "chief-token"));
        let file = t.check(Some("chief-token")).unwrap();
        assert_eq!(file.credential(), None, "a file token keeps its grant");
        assert!(!t.until_revoked(&file).is_revocable());
        assert!(!t.until_revoked(&Caller::Public).is_revocable());
    }
}
