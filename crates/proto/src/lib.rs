//! The `mafia.v1` gRPC protocol: the code generated from `proto/` (the only
//! place generated code lives) and conversions between its messages and the
//! engine's and record's types.
//!
//! Engine commands, events, views and prompts travel as JSON strings in
//! typed envelopes; see `proto/mafia/v1/referee.proto` for why.

pub mod auth;
pub mod browser;
pub mod codec;
pub mod convert;
pub mod serve;
#[cfg(feature = "testing")]
pub mod testing;
pub mod web;

/// Generated messages and the `Referee` client and server.
pub mod v1 {
    #![allow(clippy::all, clippy::pedantic, missing_docs)]
    tonic::include_proto!("mafia.v1");

    /// The encoded `FileDescriptorSet` of `mafia.v1`, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        tonic::include_file_descriptor_set!("mafia_v1_descriptor");
}

pub use convert::ConvertError;
