//! The judge console's committed browser codec is what `proto/` generates
//! now (the generated-code rule: browser stubs come from `proto/`).

use std::path::PathBuf;

#[test]
fn the_committed_console_codec_matches_proto() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../services/gateway/assets/console_proto.js");
    let generated = mafia_proto::browser::console_codec_js().expect("generates");
    if std::env::var_os("MAFIA_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the codec");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: regenerate with MAFIA_BLESS=1 cargo test -p mafia-proto --test console_codec",
        path.display()
    );
}

#[test]
fn the_console_codec_covers_every_message_it_sends_and_reads() {
    let js = mafia_proto::browser::console_codec_js().unwrap();
    let office = mafia_proto::browser::OFFICE_ROOTS;
    for name in mafia_proto::browser::CONSOLE_ROOTS
        .iter()
        .chain(office)
        .chain(&[
            "mafia.v1.Submit",
            "mafia.v1.Violation",
            "mafia.v1.GameState",
        ])
    {
        assert!(js.contains(&format!("\"{name}\": [")), "{name} missing");
    }
    assert!(js.contains("\"mafia.v1.Audience\": {"));
}
