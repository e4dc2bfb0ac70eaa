//! Games in the formats the Mafia world already uses, to and from our record
//! (FORMAT.md): mafiaratings (szotin/mafiaratings, import and export) and
//! Polemica (import). Pure: the caller reads and writes the files.
//!
//! Every import goes through the engine: a source game becomes a [`Script`]
//! (the facts it states, each with the path in the source it came from),
//! and [`drive`] plays it on a real [`mafia_rules::Game`], answering each of
//! the engine's prompts from the script. A command the engine refuses, or a
//! fact the replay never reached or contradicts, is a [`Refusal`] naming that
//! path; nothing is fixed silently. What cannot be mapped either way is
//! listed in docs/interchange.md.

pub mod drive;
pub mod error;
pub mod json;
pub mod mafiaratings;
pub mod polemica;
pub mod script;
pub mod time;

pub use drive::{drive, Imported, Refusal};
pub use error::SourceError;
pub use script::{Moment, Origin, Sanction, SanctionKind, Script};
