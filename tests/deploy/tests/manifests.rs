//! deploy/'s manifests, compose file and balancer config against the real
//! tools (kubectl kustomize, kubernetes-validate, docker-compose, nginx)
//! and the real binaries' `--help`: `validate.py` does the checking and
//! says which tool it could not run.

mod common;

use std::process::Command;

#[test]
fn the_manifests_render_validate_and_pass_only_flags_the_binaries_accept() {
    let bins = common::bins();
    let script = common::workspace().join("tests/deploy/validate.py");
    let out = match Command::new("python3").arg(&script).arg(&bins).output() {
        Ok(out) => out,
        Err(e) if !common::tools_required() => {
            eprintln!("skipped: python3 cannot run ({e}): deploy/ is not validated");
            return;
        }
        Err(e) => panic!("python3 cannot run: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "deploy/ did not validate:\n{text}");
}
