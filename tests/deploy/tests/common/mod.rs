//! What both test files share: the workspace, its binaries.

use std::path::{Path, PathBuf};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The services' binaries, built now if needed, in this test's own target
/// directory.
pub fn bins() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let status = std::process::Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args(["build", "--bins"])
        .args(["-p", "mafia-referee", "-p", "mafia-gateway"])
        .args(["-p", "mafia-scoring", "-p", "mafia-arena"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the binaries failed");
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// True when a missing tool must fail the test instead of skipping it (CI).
pub fn tools_required() -> bool {
    std::env::var("MAFIA_REQUIRE_DEPLOY_TOOLS").is_ok_and(|v| v == "1")
}
