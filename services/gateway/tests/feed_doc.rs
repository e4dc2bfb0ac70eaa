//! FEED.md against the typed feed messages (`messages.rs`): every JSON
//! example is a message (or an event) the structs read strictly and write
//! back the same, every message type has an example, and the documented
//! field lists are the structs' fields.

mod common;

use std::collections::BTreeSet;

use common::*;
use mafia_gateway::messages::{GameFeed, HallFeed};
use mafia_rules::{Audience, Event, Game, RuleSetId};
use serde_json::Value;

fn feed_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/FEED.md")).unwrap()
}

/// Every line of FEED.md's ```json blocks, as one JSON document each
/// (a message may be wrapped over lines while its braces are open).
fn examples(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    let mut current = String::new();
    for line in md.lines() {
        if line.starts_with("```") {
            inside = line == "```json";
            continue;
        }
        if !inside {
            continue;
        }
        current.push_str(line);
        current.push(' ');
        let open = current.matches('{').count() + current.matches('[').count();
        let close = current.matches('}').count() + current.matches(']').count();
        if open == close {
            out.push(std::mem::take(&mut current).trim().to_owned());
        }
    }
    out
}

/// `{ …GameView… }` stands for a view: any object will do.
fn without_placeholders(s: &str) -> String {
    let mut out = s.to_owned();
    while let Some(i) = out.find("{ …") {
        let j = out[i..].find("… }").expect("a closed placeholder") + i + "… }".len();
        out.replace_range(i..j, "{}");
    }
    out
}

#[derive(Debug)]
enum Doc {
    Game(GameFeed),
    Hall(HallFeed),
    Event(Event),
}

fn read(example: &str) -> (Doc, Value) {
    let text = without_placeholders(example);
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {example}"));
    let (doc, back) = if let Ok(m) = serde_json::from_value::<GameFeed>(v.clone()) {
        let back = serde_json::to_value(&m).unwrap();
        (Doc::Game(m), back)
    } else if let Ok(m) = serde_json::from_value::<HallFeed>(v.clone()) {
        let back = serde_json::to_value(&m).unwrap();
        (Doc::Hall(m), back)
    } else if let Ok(e) = serde_json::from_value::<Event>(v.clone()) {
        (Doc::Event(e), serde_json::to_value(e).unwrap())
    } else {
        panic!("neither a feed message nor an event: {example}");
    };
    assert_eq!(back, v, "written back otherwise: {example}");
    (doc, v)
}

/// The comma-separated names in `list`, with `name[] {sub, …}` as `name`
/// and its subfields.
fn names(list: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut top, mut sub) = (BTreeSet::new(), BTreeSet::new());
    let mut depth = 0;
    let mut word = String::new();
    let mut flush = |word: &mut String, depth: i32| {
        let w = word.trim().trim_end_matches("[]").trim().to_owned();
        if !w.is_empty() {
            if depth == 0 { &mut top } else { &mut sub }.insert(w);
        }
        word.clear();
    };
    for c in list.chars().chain([',']) {
        match c {
            '{' => {
                flush(&mut word, depth);
                depth += 1;
            }
            '}' => {
                flush(&mut word, depth);
                depth -= 1;
            }
            ',' => flush(&mut word, depth),
            c => word.push(c),
        }
    }
    (top, sub)
}

/// The backticked text right after `marker`.
fn code_after<'a>(md: &'a str, marker: &str) -> &'a str {
    let at = md
        .find(marker)
        .unwrap_or_else(|| panic!("FEED.md lost {marker:?}"))
        + marker.len();
    let start = md[at..].find('`').unwrap() + at + 1;
    let end = md[start..].find('`').unwrap() + start;
    &md[start..end]
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn every_example_in_feed_md_is_a_typed_message_written_back_the_same() {
    let md = feed_md();
    let all: Vec<_> = examples(&md).iter().map(|e| read(e)).collect();
    let has = |f: &dyn Fn(&Doc) -> bool| all.iter().any(|(d, _)| f(d));
    assert!(has(&|d| matches!(d, Doc::Game(GameFeed::Snapshot { .. }))));
    assert!(has(&|d| matches!(d, Doc::Game(GameFeed::Delta { .. }))));
    assert!(has(&|d| matches!(d, Doc::Hall(HallFeed::Tables { .. }))));
    assert!(has(&|d| matches!(
        d,
        Doc::Hall(HallFeed::Table { info: None, .. })
    )));
    assert!(
        has(&|d| matches!(d, Doc::Hall(HallFeed::Table { info: Some(_), .. }))),
        "FEED.md shows a new game's table message, with its info"
    );
    assert!(
        has(&|d| matches!(d, Doc::Event(Event::Disqualified { .. }))),
        "FEED.md shows the disqualified event"
    );
}

#[test]
fn feed_md_lists_exactly_the_fields_of_game_info_and_the_view() {
    let md = feed_md();
    // GameInfo: the list against the example (read strictly, every field
    // required, so its keys are the struct's).
    let info = code_after(&md, "`GameInfo` is");
    let (listed, _) = names(info.trim_start_matches('{').trim_end_matches('}'));
    let example = examples(&md)
        .into_iter()
        .map(|e| read(&e).1)
        .find(|v| v["type"] == "tables")
        .unwrap();
    assert_eq!(listed, keys(&example["tables"][0]["info"]));

    // The view: the list against the engine's own, at a night with a shot
    // (so the optional `night_kill` is there too).
    let sim = game(RuleSetId::Club, 7);
    let mut g = Game::replay(sim.setup.clone(), std::iter::empty()).unwrap();
    let mut view_keys = BTreeSet::new();
    let mut seat_keys = BTreeSet::new();
    for e in &sim.events {
        g.fold_seen(e).unwrap();
        let v = serde_json::to_value(g.view(Audience::Judge)).unwrap();
        view_keys.extend(keys(&v));
        seat_keys.extend(keys(&v["seats"][0]));
    }
    let (top, seats) = names(code_after(&md, "(`crates/rules/src/view.rs`):"));
    assert!(
        view_keys.contains("night_kill"),
        "a game with a shot at night"
    );
    assert_eq!(top, view_keys);
    assert_eq!(seats, seat_keys);
}
