//! Who may do what, the same for every service (referee, gateway, scoring).
//!
//! One token table (`tokens.rs`): the token file's tokens (`config.rs`)
//! and the credentials issued at runtime (`issued.rs`, kept in the log's
//! `access` stream, read by `follow.rs`), one scope grammar over game ids
//! (`pattern.rs`), one check (`caller.rs`) and one reading of the
//! `Authorization` header (`bearer.rs`). The services only map an
//! [`AuthError`] to their own status codes.

pub mod bearer;
pub mod caller;
pub mod config;
#[cfg(feature = "follow")]
pub mod follow;
pub mod issued;
pub mod pattern;
pub mod scope;
pub mod tokens;

pub use bearer::bearer;
pub use caller::{Caller, Grant, Role};
pub use config::{TokenEntry, TokenFile, ENV_TOKENS, ENV_TOKENS_FILE};
pub use issued::{AccessEvent, Credential, Registry, TokenHash};
pub use pattern::GamePattern;
pub use scope::Scope;
pub use tokens::{random_token, Revocation, Tokens};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// Said the same way for every bad token, so nothing is learnt by trying.
    #[error("invalid token")]
    BadToken,
    #[error("authorization must be `Bearer <token>`")]
    BadScheme,
    /// The caller is known but these games are outside what it may do:
    /// `what` is a game, a table of a round or a whole tournament.
    #[error("this token may not {action} {what}")]
    Denied { action: &'static str, what: String },
    #[error("token config: {0}")]
    Config(String),
}
