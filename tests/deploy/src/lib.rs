//! Tests only: `tests/manifests.rs` runs `validate.py` (kustomize,
//! Kubernetes schemas, compose, nginx, the binaries' flags) and
//! `tests/metrics.rs` scrapes and probes real referee, gateway and scoring
//! processes on a private Redis.
