//! The gateway's side of the one access model (`mafia-access`): where the
//! token comes from (`?token=`, `Authorization`, GraphQL's
//! `connection_init`) and a caller's rights over the hall (the games a
//! view of many games may include). Game ids are parsed once at the edge
//! (URL, GraphQL argument, log stream); here they are [`GameId`]s.

use std::sync::Arc;

use axum::http::{header, HeaderMap};
pub use mafia_access::{AuthError, Caller, Revocation, Tokens};
use mafia_record::{GameId, TournamentId};

/// The close code of a WebSocket whose credential was revoked while it was
/// open (policy violation): raw feed, GraphQL and standings alike.
pub const REVOKED_CLOSE: u16 = 1008;
/// Its reason.
pub const REVOKED_REASON: &str = "credential revoked";
use mafia_rules::Audience;

/// The caller of an HTTP request or WebSocket upgrade, by the one rule
/// every route follows: each credential present must be good. An
/// `Authorization` header that is not a known bearer token is an error
/// (401) whatever `?token=` says, and a `?token=` that is present but
/// unknown is one whatever the header says; never a silent downgrade to
/// the public. With both good, `?token=` names the caller.
pub fn caller_of(
    tokens: &Tokens,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Caller, AuthError> {
    let from_header = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(v) => {
            Some(tokens.check_authorization(Some(v.to_str().map_err(|_| AuthError::BadScheme)?))?)
        }
    };
    match query {
        Some(t) => tokens.check(Some(t)),
        None => Ok(from_header.unwrap_or(Caller::Public)),
    }
}

/// The `?token=` values of a query string (all of them: a repeated one is
/// checked too).
fn query_tokens(uri: &axum::http::Uri) -> Result<Vec<String>, AuthError> {
    let pairs = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|_| AuthError::BadToken)?;
    Ok(pairs
        .0
        .into_iter()
        .filter(|(k, _)| k == "token")
        .map(|(_, v)| v)
        .collect())
}

/// Middleware over every route (pages, exports, the JSON API, feeds,
/// GraphQL): a request whose credentials [`caller_of`] refuses is answered
/// 401 before its handler runs, even on routes that serve the public and
/// never look at the caller.
pub async fn refuse_bad_credentials(
    axum::extract::State(tokens): axum::extract::State<Arc<Tokens>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let checked = query_tokens(request.uri()).and_then(|ts| {
        if ts.is_empty() {
            return caller_of(&tokens, None, request.headers()).map(drop);
        }
        ts.iter()
            .try_for_each(|t| caller_of(&tokens, Some(t), request.headers()).map(drop))
    });
    match checked {
        Ok(()) => next.run(request).await,
        Err(e) => {
            let status = match e {
                AuthError::Config(_) => axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                _ => axum::http::StatusCode::UNAUTHORIZED,
            };
            (
                status,
                axum::Json(serde_json::json!({"error": e.to_string()})),
            )
                .into_response()
        }
    }
}

/// The games a view of many games (the hall) includes: those its caller
/// may see, of one tournament when it asked for one.
#[derive(Clone, Debug)]
pub struct Games {
    caller: Option<Caller>,
    tournament: Option<TournamentId>,
}

impl Games {
    pub fn contains(&self, game: &GameId) -> bool {
        self.caller.as_ref().is_none_or(|c| c.sees(game))
            && self
                .tournament
                .as_ref()
                .is_none_or(|t| game.tournament == *t)
    }

    /// `only` narrowed to one tournament's games.
    pub fn of_tournament(only: Option<Arc<Games>>, tournament: TournamentId) -> Arc<Games> {
        let caller = only.and_then(|g| g.caller.clone());
        Arc::new(Games {
            caller,
            tournament: Some(tournament),
        })
    }
}

/// A caller's rights over the games of the hall.
pub trait ForGame {
    /// The audience of the hall, and the games it is limited to (`None`:
    /// every game).
    fn hall(&self) -> (Audience, Option<Arc<Games>>);
}

impl ForGame for Caller {
    fn hall(&self) -> (Audience, Option<Arc<Games>>) {
        let limited = match self {
            Caller::Known(g) if !g.games.contains(&mafia_access::GamePattern::any()) => {
                Some(Arc::new(Games {
                    caller: Some(self.clone()),
                    tournament: None,
                }))
            }
            _ => None,
        };
        (self.audience(), limited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens::from_json(
            r#"{"tokens":[{"role":"broadcast","token":"bbbbbbbb"},{"role":"chief_judge","token":"cccccccc"},
                {"role":"table_judge","token":"jjjjjjjj","games":["cup.main.r1.t1.g1"]}]}"#,
        )
        .unwrap()
    }

    fn headers(auth: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, auth.parse().unwrap());
        h
    }

    fn id(s: &str) -> GameId {
        s.parse().unwrap()
    }

    #[test]
    fn table_judge_token_opens_only_its_games() {
        let t = tokens();
        let j = t.check(Some("jjjjjjjj")).unwrap();
        let (mine, other) = (id("cup.main.r1.t1.g1"), id("cup.main.r1.t2.g1"));
        assert_eq!(j.audience_for(&mine).unwrap(), Audience::Judge);
        assert!(j.audience_for(&other).is_err());
        let (a, only) = j.hall();
        assert_eq!(a, Audience::Judge);
        let only = only.unwrap();
        assert!(only.contains(&mine) && !only.contains(&other));
        let b = t.check(Some("bbbbbbbb")).unwrap();
        assert_eq!(
            b.audience_for(&id("cup.main.r1.t9.g1")).unwrap(),
            Audience::Broadcast
        );
        assert!(b.hall().1.is_none());
    }

    #[test]
    fn an_unreadable_authorization_header_or_unknown_token_is_refused_not_public() {
        let t = tokens();
        for auth in ["cccccccc", "Basic cccccccc", "Bearer nope-nope"] {
            assert!(caller_of(&t, None, &headers(auth)).is_err(), "{auth}");
        }
        assert!(caller_of(&t, Some(""), &HeaderMap::new()).is_err());
        assert_eq!(
            caller_of(&t, None, &HeaderMap::new()).unwrap(),
            Caller::Public
        );
        // A bad header is refused whatever the query says.
        for auth in ["cccccccc", "Bearer nope-nope"] {
            assert!(
                caller_of(&t, Some("bbbbbbbb"), &headers(auth)).is_err(),
                "{auth}"
            );
        }
        // A bad query token is refused whatever the header says.
        assert!(caller_of(&t, Some("nope"), &headers("Bearer cccccccc")).is_err());
        for auth in ["bearer cccccccc", "BEARER cccccccc", "Bearer cccccccc"] {
            let c = caller_of(&t, None, &headers(auth)).unwrap();
            assert_eq!(c.role(), Some(mafia_access::Role::ChiefJudge), "{auth}");
        }
    }
}
