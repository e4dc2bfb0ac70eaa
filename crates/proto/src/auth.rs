//! The one access model (`mafia-access`) at the gRPC edge, the same for
//! every service: the token comes from the `authorization` metadata, and
//! every refusal becomes its gRPC status.

use mafia_access::{AuthError, Caller, Tokens};
use tonic::metadata::MetadataMap;
use tonic::Status;

/// The status a refusal is answered with.
pub fn status(e: AuthError) -> Status {
    match e {
        AuthError::BadToken | AuthError::BadScheme => Status::unauthenticated(e.to_string()),
        AuthError::Denied { .. } => Status::permission_denied(e.to_string()),
        AuthError::Config(_) => Status::internal(e.to_string()),
    }
}

/// The caller named by `authorization: Bearer <token>`. Without the
/// header the caller is `anonymous`, or, where a service has no public
/// (`None`), the call is UNAUTHENTICATED. A header that is there but
/// unreadable, or an unknown token, is always UNAUTHENTICATED.
// A handler answers with tonic's `Status` as it is; boxing it here would
// only be unboxed again.
#[allow(clippy::result_large_err)]
pub fn caller(
    tokens: &Tokens,
    meta: &MetadataMap,
    anonymous: Option<Caller>,
) -> Result<Caller, Status> {
    let Some(value) = meta.get("authorization") else {
        return anonymous
            .ok_or_else(|| Status::unauthenticated("missing authorization: Bearer <token>"));
    };
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
    fn missing_malformed_and_unknown_tokens_are_unauthenticated_without_a_public() {
        let t = tokens();
        for m in [
            meta(None),
            meta(Some("chief-token")),
            meta(Some("Bearer nope-nope")),
        ] {
            assert_eq!(
                caller(&t, &m, None).unwrap_err().code(),
                tonic::Code::Unauthenticated
            );
        }
    }

    #[test]
    fn without_a_header_a_service_with_a_public_gets_the_public_but_a_bad_token_is_refused() {
        let t = tokens();
        let public = caller(&t, &meta(None), Some(Caller::Public)).unwrap();
        assert!(matches!(public, Caller::Public));
        assert_eq!(
            caller(&t, &meta(Some("Bearer nope-nope")), Some(Caller::Public))
                .unwrap_err()
                .code(),
            tonic::Code::Unauthenticated
        );
    }

    #[test]
    fn a_table_token_may_judge_only_its_games() {
        let c = caller(&tokens(), &meta(Some("bearer judge-token")), None).unwrap();
        assert!(c.may_judge(&"cup.main.r1.t3.g1".parse().unwrap()).is_ok());
        let denied = c
            .may_judge(&"cup.main.r1.t4.g1".parse().unwrap())
            .unwrap_err();
        assert_eq!(status(denied).code(), tonic::Code::PermissionDenied);
    }
}
