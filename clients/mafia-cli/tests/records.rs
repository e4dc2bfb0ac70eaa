//! The stored records under `tests/records/`: each `<name>.jsonl` replays to
//! exactly the JSON line in `<name>.expected.json`, and `mafia replay` exits
//! 1 exactly when that line has a violation.
//!
//! The records are made by `regenerate_records` (ignored):
//! `cargo test -p mafia-cli --test records -- --ignored` rewrites them and
//! their expected lines from simulated games, checking each one breaks the
//! way its name says.

mod common;

use common::{mafia, records_dir, reports, stdout};
use mafia_record::{CommandLine, Header, Record};
use mafia_rules::params::BestMoveAt;
use mafia_rules::sim::simulate;
use mafia_rules::{Command, Expect, Game, Role, RuleSetId, Seat, SeatSet, Team};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn record_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            record_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn stored_records_replay_to_their_expected_summary() {
    let mut files = Vec::new();
    record_files(&records_dir(), &mut files);
    assert!(files.len() >= 16, "the stored records are missing");
    for file in files {
        let dir = file.parent().unwrap();
        let name = file.file_name().unwrap().to_str().unwrap();
        let expected_path = file.with_extension("expected.json");
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(&expected_path)
                .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display())),
        )
        .unwrap();
        let o = mafia(dir, &["replay", name]);
        let got = reports(&o);
        assert_eq!(got.len(), 1, "{name}: {}", stdout(&o));
        assert_eq!(got[0], expected, "{}", file.display());
        let code = if expected["violation"].is_null() {
            0
        } else {
            1
        };
        assert_eq!(o.status.code(), Some(code), "{name}");
    }
}

// ---- generating the bad-input records ------------------------------------

const EPOCH: i64 = 1_767_225_600_000;

/// A simulated game of `rules` as a header and its command lines.
fn base(rules: RuleSetId, seed: u64) -> (Header, Vec<CommandLine>) {
    let sim = simulate(rules, &mut ChaCha8Rng::seed_from_u64(seed), EPOCH);
    // The committed records keep the header form they were written in
    // (no tournament id), which is how old records must keep replaying.
    let id = "tests-records.main.r1.t1.g1".parse().unwrap();
    let mut header = Header::for_setup(&sim.setup, &id);
    header.tournament_id = None;
    header.tournament = "tests/records".into();
    header.stage = String::new();
    header.game = seed as u32;
    header.judge = "tests".into();
    let lines = sim
        .commands
        .into_iter()
        .map(|(at, cmd)| CommandLine { at, cmd })
        .collect();
    (header, lines)
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn line(at: i64, cmd: Command) -> String {
    json(&CommandLine { at, cmd })
}

/// Walks simulated games of `rules` until `probe` finds its moment: given
/// the game before command `i` and that command's time, it returns the lines
/// to put there (the rest of the game is dropped). Returns the record text.
fn cut(rules: RuleSetId, probe: impl Fn(&Game, i64) -> Option<Vec<String>>) -> String {
    for seed in 1..500 {
        let (header, cmds) = base(rules, seed);
        let record = Record::with_commands(header.clone(), Vec::new()).unwrap();
        let (mut game, _) = Game::new(record.setup().clone(), EPOCH);
        for (i, c) in cmds.iter().enumerate() {
            if let Some(bad) = probe(&game, c.at) {
                let mut text = json(&header) + "\n";
                for c in &cmds[..i] {
                    text += &(json(c) + "\n");
                }
                for l in bad {
                    text += &(l + "\n");
                }
                return text;
            }
            game.apply(&c.cmd, c.at).unwrap();
        }
    }
    panic!("no simulated {rules} game has the moment");
}

fn whole(rules: RuleSetId, seed: u64) -> String {
    let (header, cmds) = base(rules, seed);
    Record::with_commands(header, cmds).unwrap().to_jsonl()
}

fn write_case(dir: &Path, name: &str, text: &str, code: &str) {
    let file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&file, text).unwrap();
    let o = mafia(dir, &["replay", &format!("{name}.jsonl")]);
    let report = &reports(&o)[0];
    let last_line = text.trim_end_matches('\n').lines().count();
    assert_eq!(report["violation"]["code"], code, "{name}: {report}");
    // Every case is built so that its last line is the bad one.
    let want_line = if code == "bad_header" { 1 } else { last_line };
    assert_eq!(report["violation"]["line"], want_line, "{name}: {report}");
    std::fs::write(
        dir.join(format!("{name}.expected.json")),
        format!("{report}\n"),
    )
    .unwrap();
}

fn seats(set: SeatSet) -> Vec<Seat> {
    set.iter().collect()
}

#[test]
#[ignore = "rewrites tests/records/{sim,bad}; run by hand after a format change"]
fn regenerate_records() {
    // One clean simulated game per rule set: the first seed whose game has a
    // winner and, where the rule set has one, a best move, so the stored
    // summaries show every field filled in.
    let dir = records_dir().join("sim");
    std::fs::create_dir_all(&dir).unwrap();
    for rules in RuleSetId::ALL {
        let name = rules.as_str();
        let seed = (1..200)
            .find(|&seed| {
                let g = simulate(rules, &mut ChaCha8Rng::seed_from_u64(seed), EPOCH).game;
                let s = g.summary();
                let no_best_move = g.params().best_move.at == BestMoveAt::Never;
                s.result != mafia_rules::summary::GameResult::Draw
                    && (no_best_move || s.best_move.is_some())
            })
            .unwrap_or(1);
        std::fs::write(dir.join(format!("{name}.jsonl")), whole(rules, seed)).unwrap();
        let o = mafia(&dir, &["replay", &format!("{name}.jsonl")]);
        let report = &reports(&o)[0];
        assert!(report["violation"].is_null(), "{report}");
        std::fs::write(
            dir.join(format!("{name}.expected.json")),
            format!("{report}\n"),
        )
        .unwrap();
    }

    let dir = records_dir().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let speech_day1 = |g: &Game| {
        matches!(g.expected().expect, Expect::Speech { tie: false, .. }) && g.core().day == 1
    };

    // A line cut off in the middle, as a crashed writer leaves it.
    let full = whole(RuleSetId::Minsk2017, 1);
    let cut_at = full.trim_end().rfind('\n').unwrap() + 20;
    write_case(&dir, "truncated_line", &full[..cut_at], "parse_error");

    let text = cut(RuleSetId::Classic, |g, _| {
        speech_day1(g).then(|| vec!["this is not JSON".to_string()])
    });
    write_case(&dir, "non_json_line", &text, "parse_error");

    let text = cut(RuleSetId::Rfm, |g, at| {
        speech_day1(g).then(|| {
            vec![format!(
                r#"{{"at":{at},"cmd":{{"type":"foul","seat":11}}}}"#
            )]
        })
    });
    write_case(&dir, "seat_11", &text, "parse_error");

    let text = cut(RuleSetId::Ua, |g, at| {
        speech_day1(g).then(|| {
            vec![format!(
                r#"{{"at":{at},"cmd":{{"type":"next_step"}},"judge":"me"}}"#
            )]
        })
    });
    write_case(&dir, "unknown_field", &text, "parse_error");

    let full = whole(RuleSetId::Club, 2);
    let (head, rest) = full.split_once('\n').unwrap();
    let mut h: Value = serde_json::from_str(head).unwrap();
    h["rules"]["id"] = "mafia".into();
    write_case(
        &dir,
        "unknown_rule_set",
        &format!("{h}\n{rest}"),
        "bad_header",
    );

    let full = whole(RuleSetId::Classic, 3);
    let (head, rest) = full.split_once('\n').unwrap();
    let mut h: Value = serde_json::from_str(head).unwrap();
    let mut cards = vec![Role::Civilian; 6];
    cards.extend([Role::Sheriff, Role::Mafia, Role::Don, Role::Don]);
    h["deal"] = serde_json::json!({ "cards": cards });
    write_case(&dir, "two_don_cards", &format!("{h}\n{rest}"), "bad_header");

    // A night shot during the day's speeches.
    let text = cut(RuleSetId::Minsk2017, |g, at| {
        speech_day1(g).then(|| {
            let black = Seat::all()
                .find(|s| g.core().role(*s).team() == Team::Black)
                .unwrap();
            vec![line(
                at,
                Command::Shot {
                    by: black,
                    target: None,
                },
            )]
        })
    });
    write_case(&dir, "wrong_phase", &text, "wrong_phase");

    // Right after a nomination, the same speaker nominates again.
    let text = cut(RuleSetId::Rfm, |g, at| {
        let Expect::Speech {
            seat, tie: false, ..
        } = g.expected().expect
        else {
            return None;
        };
        let target = g.core().nomination_of[seat.index()]?;
        Some(vec![line(at, Command::Nominate { by: seat, target })])
    });
    write_case(&dir, "second_nomination", &text, "nomination_used");

    let text = cut(RuleSetId::Classic, |g, at| {
        let Expect::Vote { nominee, .. } = g.expected().expect else {
            return None;
        };
        let out = Seat::all()
            .collect::<SeatSet>()
            .difference(g.core().living())
            .first()?;
        Some(vec![line(
            at,
            Command::Vote {
                nominee,
                hands: [out].into_iter().collect(),
            },
        )])
    });
    write_case(&dir, "vote_by_player_out", &text, "voter_out");

    // Every living hand goes to the first nominee, then one more hand to
    // the second: more hands than living players.
    let text = cut(RuleSetId::Minsk2017, |g, at| {
        let Expect::Vote {
            nominee,
            not_yet_voted,
            ..
        } = g.expected().expect
        else {
            return None;
        };
        let c = g.core();
        if c.candidates.len() < 3 || c.candidates.get(0) != Some(nominee) {
            return None;
        }
        let next = c.candidates.get(1)?;
        Some(vec![
            line(
                at,
                Command::Vote {
                    nominee,
                    hands: not_yet_voted,
                },
            ),
            line(
                at + 1,
                Command::Vote {
                    nominee: next,
                    hands: seats(not_yet_voted).into_iter().take(1).collect(),
                },
            ),
        ])
    });
    write_case(&dir, "more_hands_than_living", &text, "already_voted");

    let text = cut(RuleSetId::Ua, |g, at| {
        let Expect::Shots { pending, .. } = g.expected().expect else {
            return None;
        };
        let by = (pending.len() >= 2).then(|| pending.first())??;
        let shot = Command::Shot { by, target: None };
        Some(vec![line(at, shot.clone()), line(at + 1, shot)])
    });
    write_case(&dir, "black_shoots_twice", &text, "already_shot");

    let full = whole(RuleSetId::Club, 4);
    let last_at: i64 = serde_json::from_str::<Value>(full.trim_end().lines().last().unwrap())
        .unwrap()["at"]
        .as_i64()
        .unwrap();
    let text = full + &line(last_at + 1000, Command::NextStep) + "\n";
    write_case(&dir, "after_end", &text, "game_over");
}
