//! The referee's side of the one access model (`mafia-access`): the token
//! comes from the `authorization` metadata, and every refusal becomes its
//! gRPC status. The referee has no public: a call without a token is
//! UNAUTHENTICATED.

use mafia_access::AuthError;
pub use mafia_access::{Caller, Tokens};
use tonic::metadata::MetadataMap;
use tonic::Status;

pub fn status(e: AuthError) -> Status {
    match e {
        AuthError::BadToken | AuthError::BadScheme => Status::unauthenticated(e.to_string()),
        AuthError::Denied { .. } => Status::permission_denied(e.to_string()),
        AuthError::Config(_) => Status::internal(e.to_string()),
    }
}

/// The caller named by `authorization: Bearer <token>`.
pub fn authenticate(tokens: &Tokens, meta: &MetadataMap) -> Result<Caller, Status> {
    let value = meta
        .get("authorization")
        .ok_or_else(|| Status::unauthenticated("missing authorization: Bearer <token>"))?;
    let value = value.to_str().map_err(|_| status(AuthError::BadScheme))?;
    tokens.check_authorization(Some(value)).map_err(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(value: Option<&str>) -> MetadataMap {
        let mut m = MetadataMap::new();
        if let Some(v) = value {
            m.insert("authorization", v.parse().unwrap());
        }
        m
    }

    fn tokens() -> Tokens {
        Tokens::from_json(
            r#"{"tokens":[{"role":"chief_judge","token":"chief-token"},
                {"role":"table_judge","token":"judge-token","games":["cup.*.*.t3.*"]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn missing_malformed_and_unknown_tokens_are_unauthenticated() {
        let t = tokens();
        for m in [
            meta(None),
            meta(Some("chief-token")),
            meta(Some("Bearer nope-nope")),
        ] {
            assert_eq!(
                authenticate(&t, &m).unwrap_err().code(),
                tonic::Code::Unauthenticated
            );
        }
    }

    #[test]
    fn a_table_token_may_judge_only_its_games() {
        let c = authenticate(&tokens(), &meta(Some("bearer judge-token"))).unwrap();
        assert!(c.may_judge(&"cup.main.r1.t3.g1".parse().unwrap()).is_ok());
        let denied = c
            .may_judge(&"cup.main.r1.t4.g1".parse().unwrap())
            .unwrap_err();
        assert_eq!(status(denied).code(), tonic::Code::PermissionDenied);
    }
}
