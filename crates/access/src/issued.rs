//! Credentials issued at runtime, as the event log keeps them: one stream,
//! [`STREAM`], of [`AccessEvent`]s (JSON). A credential is stored as the
//! SHA-256 of its token ([`TokenHash`]) with who holds it, what it covers,
//! who issued it and when; a revocation names the credential's public id
//! with who revoked it and when. The token itself is never stored: it is
//! shown once, to the issuer.
//!
//! [`Registry`] folds the stream into every credential, revoked ones
//! included (the audit trail); [`crate::Tokens`] folds it into the table
//! checked on every request.

use crate::{AuthError, GamePattern, Role};
use mafia_record::TournamentId;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

/// The log stream of issued and revoked credentials. Not a game id, so the
/// game followers (the gateway's hub, the scoring service's) skip it.
pub const STREAM: &str = "access";

/// The stream's header in the log (every service creates the stream with
/// it, whoever comes first).
pub const HEADER: &[u8] = br#"{"stream":"access","version":1}"#;

/// Credentials one tournament may have been issued, revoked ones included:
/// the stream, the table and `ListCredentials` stay bounded.
pub const MAX_PER_TOURNAMENT: usize = 2000;

/// Longest holder name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Patterns one credential may cover.
pub const MAX_SCOPES: usize = 256;

/// The SHA-256 of a token: all that is stored of it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenHash({})", hex::encode(self.0))
    }
}

impl Serialize for TokenHash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(self.0))
    }
}

impl<'de> Deserialize<'de> for TokenHash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TokenHash, D::Error> {
        let text = String::deserialize(d)?;
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(&text, &mut bytes).map_err(serde::de::Error::custom)?;
        Ok(TokenHash(bytes))
    }
}

/// One change to the issued credentials, as stored in [`STREAM`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AccessEvent {
    Issued {
        /// The public id (not derived from the token).
        id: String,
        hash: TokenHash,
        tournament: TournamentId,
        role: Role,
        name: String,
        games: Vec<GamePattern>,
        issued_by: String,
        issued_at_ms: i64,
    },
    Revoked {
        id: String,
        tournament: TournamentId,
        revoked_by: String,
        revoked_at_ms: i64,
    },
}

impl AccessEvent {
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("an access event serialises")
    }

    pub fn decode(bytes: &[u8]) -> Result<AccessEvent, AuthError> {
        serde_json::from_slice(bytes)
            .map_err(|e| AuthError::Config(format!("stored access event: {e}")))
    }
}

/// One credential with its audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: String,
    pub tournament: TournamentId,
    pub role: Role,
    pub name: String,
    pub games: Vec<GamePattern>,
    pub issued_by: String,
    pub issued_at_ms: i64,
    /// Who revoked it and when (Unix ms).
    pub revoked: Option<(String, i64)>,
}

/// Every credential of the stream, by id, revoked ones included.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    by_id: BTreeMap<String, Credential>,
    per_tournament: BTreeMap<TournamentId, usize>,
}

impl Registry {
    pub fn apply(&mut self, e: &AccessEvent) {
        match e {
            AccessEvent::Issued {
                id,
                tournament,
                role,
                name,
                games,
                issued_by,
                issued_at_ms,
                ..
            } => {
                *self.per_tournament.entry(tournament.clone()).or_default() += 1;
                self.by_id.insert(
                    id.clone(),
                    Credential {
                        id: id.clone(),
                        tournament: tournament.clone(),
                        role: *role,
                        name: name.clone(),
                        games: games.clone(),
                        issued_by: issued_by.clone(),
                        issued_at_ms: *issued_at_ms,
                        revoked: None,
                    },
                );
            }
            AccessEvent::Revoked {
                id,
                revoked_by,
                revoked_at_ms,
                ..
            } => {
                if let Some(c) = self.by_id.get_mut(id) {
                    c.revoked
                        .get_or_insert_with(|| (revoked_by.clone(), *revoked_at_ms));
                }
            }
        }
    }

    pub fn get(&self, id: &str) -> Option<&Credential> {
        self.by_id.get(id)
    }

    /// How many credentials `t` was issued, revoked ones included.
    pub fn issued_in(&self, t: &TournamentId) -> usize {
        self.per_tournament.get(t).copied().unwrap_or(0)
    }

    /// `t`'s credentials in the order they were issued.
    pub fn of_tournament(&self, t: &TournamentId) -> Vec<&Credential> {
        let mut out: Vec<&Credential> =
            self.by_id.values().filter(|c| &c.tournament == t).collect();
        out.sort_by(|a, b| (a.issued_at_ms, &a.id).cmp(&(b.issued_at_ms, &b.id)));
        out
    }
}

/// Random bytes from the operating system.
fn os_random<const N: usize>() -> Result<[u8; N], AuthError> {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| AuthError::Config(format!("the OS random source failed: {e}")))?;
    Ok(bytes)
}

/// A new credential's token: 128 bits from the OS, as 32 hex digits (it
/// goes in URLs and QR codes as it is).
pub fn fresh_token() -> Result<String, AuthError> {
    Ok(hex::encode(os_random::<16>()?))
}

/// A new credential's public id: `c-` and 12 hex digits, drawn apart from
/// the token, so it tells nothing about it.
pub fn fresh_id() -> Result<String, AuthError> {
    Ok(format!("c-{}", hex::encode(os_random::<6>()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issued(id: &str, t: &str, at: i64) -> AccessEvent {
        AccessEvent::Issued {
            id: id.into(),
            hash: TokenHash::of(id),
            tournament: t.parse().unwrap(),
            role: Role::TableJudge,
            name: "anna".into(),
            games: vec![format!("{t}.*.*.t3.*").parse().unwrap()],
            issued_by: "org".into(),
            issued_at_ms: at,
        }
    }

    #[test]
    fn events_round_trip_and_unknown_fields_are_refused() {
        let e = issued("c-1", "cup", 5);
        let bytes = e.encode();
        assert_eq!(AccessEvent::decode(&bytes).unwrap(), e);
        let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        v["extra"] = 1.into();
        assert!(AccessEvent::decode(v.to_string().as_bytes()).is_err());
        let r = AccessEvent::Revoked {
            id: "c-1".into(),
            tournament: "cup".parse().unwrap(),
            revoked_by: "org".into(),
            revoked_at_ms: 9,
        };
        assert_eq!(AccessEvent::decode(&r.encode()).unwrap(), r);
    }

    #[test]
    fn the_registry_keeps_revoked_credentials_with_the_first_revocation() {
        let mut reg = Registry::default();
        reg.apply(&issued("c-2", "cup", 2));
        reg.apply(&issued("c-1", "cup", 1));
        reg.apply(&issued("c-9", "other", 1));
        for (by, at) in [("first", 10), ("second", 20)] {
            reg.apply(&AccessEvent::Revoked {
                id: "c-1".into(),
                tournament: "cup".parse().unwrap(),
                revoked_by: by.into(),
                revoked_at_ms: at,
            });
        }
        let cup: Vec<_> = reg
            .of_tournament(&"cup".parse().unwrap())
            .iter()
            .map(|c| (c.id.clone(), c.revoked.clone()))
            .collect();
        assert_eq!(
            cup,
            vec![
                ("c-1".into(), Some(("first".into(), 10))),
                ("c-2".into(), None)
            ]
        );
        assert_eq!(reg.issued_in(&"cup".parse().unwrap()), 2);
    }

    #[test]
    fn fresh_tokens_and_ids_differ_and_the_hash_is_sha256() {
        let (a, b) = (fresh_token().unwrap(), fresh_token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(fresh_id().unwrap().starts_with("c-"));
        assert_eq!(
            hex::encode(TokenHash::of("abc").0),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
