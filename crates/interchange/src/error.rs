//! Why a source file could not be read at all (before any replay).

/// A source that is not the format it claims to be, with where: the line
/// and column of bad JSON, or the JSON path of a value of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("line {line}, column {column}: not JSON: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Shape { path: String, message: String },
    /// Well-formed, but it states something the engine cannot represent
    /// (a rules variant it has no parameter for, a feature it needs missing).
    #[error("{path}: cannot be imported: {message}")]
    Unsupported { path: String, message: String },
}

impl SourceError {
    pub fn shape(path: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError::Shape {
            path: path.into(),
            message: message.into(),
        }
    }

    pub fn unsupported(path: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError::Unsupported {
            path: path.into(),
            message: message.into(),
        }
    }
}
