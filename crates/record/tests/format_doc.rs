//! FORMAT.md is the contract other implementations read: its examples must
//! be what this crate actually reads.

use mafia_record::{CommandLine, Header, LoggedEvent, Record, ReplayReport};

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../FORMAT.md"))
        .expect("FORMAT.md at the repository root")
}

/// The JSON objects quoted in the document: inline `{…}` spans and the
/// lines of fenced blocks that start with `{`.
fn examples(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in doc.lines() {
        if line.starts_with('{') {
            out.push(line.to_string());
        }
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 1 && part.starts_with("{\"") {
                out.push(part.to_string());
            }
        }
    }
    out
}

#[test]
fn every_command_example_parses_and_every_command_type_has_one() {
    let doc = doc();
    let cmds: Vec<CommandLine> = examples(&doc)
        .iter()
        .filter(|e| e.starts_with("{\"at\""))
        .map(|e| serde_json::from_str(e).unwrap_or_else(|err| panic!("{e}: {err}")))
        .collect();
    let types: Vec<String> = cmds
        .iter()
        .map(|c| {
            serde_json::to_value(&c.cmd).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for t in [
        "next_step",
        "start_speech",
        "end_speech",
        "nominate",
        "withdraw",
        "foul",
        "technical_foul",
        "penalty",
        "yellow_card",
        "disqualify",
        "opposite_team_victory",
        "vote_call",
        "vote",
        "ballot",
        "lift",
        "end_last_words",
        "start_shooting",
        "shot",
        "don_check",
        "sheriff_check",
        "beauty_pick",
        "best_move",
        "undo",
    ] {
        assert!(types.iter().any(|x| x == t), "no example of {t}");
    }
}

#[test]
fn header_event_and_report_examples_parse() {
    let doc = doc();
    let ex = examples(&doc);
    let header = ex.iter().find(|e| e.starts_with("{\"format\"")).unwrap();
    let h: Header = serde_json::from_str(header).unwrap();
    let r = Record::new(h).unwrap();
    // The example is canonical: written back byte for byte.
    assert_eq!(r.to_jsonl(), format!("{header}\n"));

    let logged = ex
        .iter()
        .find(|e| e.starts_with("{\"client_seq\""))
        .unwrap();
    let e: LoggedEvent = serde_json::from_str(logged).unwrap();
    let stamp = mafia_record::logged::accepted_at(logged.as_bytes());
    assert!(stamp.is_some(), "the example shows the referee's stamp");
    let sent = mafia_record::logged::sent_digest(logged.as_bytes());
    assert!(sent.is_some(), "the example shows the command's digest");
    assert_eq!(e.encode_stamped(stamp, sent).json, logged.as_bytes());
    let nominate: mafia_rules::Command =
        serde_json::from_str(r#"{"type":"nominate","by":3,"target":7}"#).unwrap();
    assert_eq!(
        sent,
        Some(mafia_record::logged::command_digest(
            e.envelope.at,
            &nominate
        )),
        "the example's digest is its command's"
    );

    let report = ex.iter().find(|e| e.starts_with("{\"file\"")).unwrap();
    let rep: ReplayReport = serde_json::from_str(report).unwrap();
    assert_eq!(&rep.to_json_line(), report);
}
