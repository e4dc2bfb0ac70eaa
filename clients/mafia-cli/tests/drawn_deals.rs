//! `mafia replay` checks a drawn deal against its commitment (FORMAT.md,
//! "Checking a deal"), and no tool deals a sealed one.

mod common;

use common::{mafia, reports, stderr};
use mafia_record::{Header, Record};
use mafia_rules::sim::simulate;
use mafia_rules::{Deal, Drawn, RuleSetId, Salt, Sealed};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// A finished game whose deal the referee drew and revealed: the record of
/// its header (seed and salt in it) and commands.
fn revealed_record() -> (Record, Sealed) {
    let mut rng = ChaCha8Rng::seed_from_u64(36);
    let sim = simulate(RuleSetId::Rfm, &mut rng, 1_767_225_600_000);
    let Deal::Seed(seed) = sim.setup.deal else {
        panic!("simulated games deal from a seed")
    };
    let sealed = Sealed::new(seed, Salt([0x5a; 8]));
    let mut header = Header::for_setup(&sim.setup, &"cup.main.r1.t1.g1".parse().unwrap());
    header.deal = Deal::Drawn(Drawn::revealed(&sealed));
    let mut record = Record::new(header).unwrap();
    for (at, cmd) in sim.commands {
        record.push(at, cmd);
    }
    (record, sealed)
}

fn replay(dir: &Path, name: &str, text: &str) -> serde_json::Value {
    std::fs::write(dir.join(name), text).unwrap();
    let o = mafia(dir, &["replay", name]);
    reports(&o).remove(0)
}

#[test]
fn mafia_replay_checks_a_drawn_deal_against_its_commitment() {
    let dir = tempfile::tempdir().unwrap();
    let (record, sealed) = revealed_record();
    let text = record.to_jsonl();
    let good = replay(dir.path(), "good.jsonl", &text);
    assert!(good["violation"].is_null(), "{good}");
    assert_ne!(good["result"], "unfinished", "{good}");

    // A seed that is not the one committed to: the deal was tampered with.
    let forged = text.replacen(
        &format!("\"seed\":{}", sealed.seed()),
        &format!("\"seed\":{}", sealed.seed() ^ 1),
        1,
    );
    assert_ne!(forged, text);
    let bad = replay(dir.path(), "forged.jsonl", &forged);
    assert_eq!(bad["violation"]["code"], "bad_header", "{bad}");
    assert!(
        bad["violation"]["message"]
            .as_str()
            .unwrap()
            .contains("commitment"),
        "{bad}"
    );
}

#[test]
fn a_sealed_deal_is_neither_replayed_nor_shown() {
    let dir = tempfile::tempdir().unwrap();
    let (mut record, sealed) = revealed_record();
    let mut header = record.header().clone();
    header.deal = Deal::Drawn(Drawn::sealed(&sealed));
    let commands = record.commands().to_vec();
    record = Record::with_commands(header, commands).unwrap();
    let text = record.to_jsonl();
    let report = replay(dir.path(), "sealed.jsonl", &text);
    assert_eq!(report["violation"]["code"], "bad_header", "{report}");
    let o = mafia(
        dir.path(),
        &["state", "sealed.jsonl", "--audience", "judge"],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("sealed"), "{}", stderr(&o));
}
