//! End-to-end tests live in `tests/`; see `tests/e2e.rs`.
