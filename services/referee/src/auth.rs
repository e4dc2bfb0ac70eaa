//! The referee's side of the one access model: `mafia_proto::auth`, with
//! no public (a call without a token is UNAUTHENTICATED).

pub use mafia_access::{Caller, Revocation, Tokens};
pub use mafia_proto::auth::status;
use tonic::metadata::MetadataMap;
use tonic::Status;

/// The caller named by `authorization: Bearer <token>`.
pub fn authenticate(tokens: &Tokens, meta: &MetadataMap) -> Result<Caller, Status> {
    mafia_proto::auth::caller(tokens, meta, None)
}

/// How a stream of a credential revoked while it was open ends.
pub fn revoked() -> Status {
    Status::unauthenticated("this credential was revoked")
}
