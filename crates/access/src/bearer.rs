//! The `Authorization` header's value, read the way RFC 7235 says: the
//! scheme is case-insensitive, and anything that is not a bearer token is an
//! error rather than "no token" (a silent downgrade to the public view would
//! hide a mistyped header).

use crate::AuthError;

/// The token of `Bearer <token>` (any case of `Bearer`, any run of spaces
/// or tabs after it).
pub fn bearer(value: &str) -> Result<&str, AuthError> {
    let value = value.trim();
    let split = value.find([' ', '\t']).ok_or(AuthError::BadScheme)?;
    let (scheme, token) = value.split_at(split);
    let token = token.trim_start_matches([' ', '\t']);
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() || token.contains([' ', '\t']) {
        return Err(AuthError::BadScheme);
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_case_insensitive() {
        for v in ["Bearer abc", "bearer abc", "BEARER abc", "BeArEr \t abc  "] {
            assert_eq!(bearer(v), Ok("abc"), "{v:?}");
        }
    }

    #[test]
    fn a_bare_token_or_another_scheme_is_an_error_not_the_public() {
        for v in ["abc", "Basic abc", "Bearer", "Bearer ", "Bearer a b", ""] {
            assert_eq!(bearer(v), Err(AuthError::BadScheme), "{v:?}");
        }
    }
}
