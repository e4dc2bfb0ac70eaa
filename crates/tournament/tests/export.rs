//! The exports: standings and per-game points as CSV and JSON, the round
//! seating sheet, and the JSON-lines log they are made from.

mod common;

use common::*;
use mafia_rules::Team;
use mafia_tournament::export::{self, ExportError};
use mafia_tournament::*;

/// 20 players, two tables, two rounds played, the third seated; one game
/// with an extra that waits for the chief judge.
fn cup() -> Cup {
    let mut cup = Cup::new(Scheme::rfm(), 20, 3);
    for r in 1..=2 {
        let gs = cup.seat_round("main", r, &[ten(1), ten(11)]);
        for (i, g) in gs.iter().enumerate() {
            let w = if (r as usize + i).is_multiple_of(2) {
                Team::Red
            } else {
                Team::Black
            };
            let mut f = cup.facts(g, Some(w));
            shot_night_1(&mut f, 1 + r as u8);
            cup.record(g, f);
        }
    }
    let g = cup.game_id("main", 1, 1);
    // A winner's +1.6 waits for the chief judge (rfm §6.4.2).
    let winner_seat = if cup.t.games[&g].winner() == Some(Some(Team::Red)) {
        1
    } else {
        5
    };
    cup.inputs(judge(), &g, &[(winner_seat, 160)]).unwrap();
    cup.seat_round("main", 3, &[ten(1), ten(11)]);
    cup
}

#[test]
fn the_same_log_exports_the_same_bytes() {
    let cup = cup();
    let lines = stored::to_lines(&cup.log);
    let a = stored::fold_lines(&lines).unwrap();
    let b = stored::fold_lines(&lines).unwrap();
    assert_eq!(a, cup.t);
    for t in [&a, &b] {
        assert_eq!(
            export::standings_csv(&standings(t)),
            export::standings_csv(&standings(&cup.t))
        );
        assert_eq!(
            export::games_json(&export::game_points(t)),
            export::games_json(&export::game_points(&cup.t))
        );
        assert_eq!(
            export::seating_html(t, None, 3).unwrap(),
            export::seating_html(&cup.t, None, 3).unwrap()
        );
    }
}

#[test]
fn the_standings_csv_has_a_header_and_one_line_per_player_by_rank() {
    let cup = cup();
    let s = standings(&cup.t);
    let csv = export::standings_csv(&s);
    // Excel on Windows shows Cyrillic only after UTF-8's byte-order mark.
    let csv = csv
        .strip_prefix(export::BOM)
        .expect("a byte-order mark first");
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines[0], export::STANDINGS_CSV_HEADER.join(","));
    assert_eq!(lines.len(), 21);
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(first[0], "1");
    assert_eq!(first[1], s.rows[0].player.as_str());
    assert_eq!(first[17], s.rows[0].points.total.to_string());
    let ranks: Vec<u32> = lines[1..]
        .iter()
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn the_standings_json_is_the_standings_and_reads_back() {
    let cup = cup();
    let s = standings(&cup.t);
    let json = export::standings_json(&s);
    let back: Standings = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
}

#[test]
fn the_games_export_has_one_line_per_seat_of_each_scored_game() {
    let cup = cup();
    let rows = export::game_points(&cup.t);
    // Four games played, round 3 only seated.
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| r.round <= 2));
    let csv = export::games_csv(&rows);
    assert!(csv.starts_with(&format!("{}game,", export::BOM)), "{csv}");
    assert_eq!(csv.split("\r\n").filter(|l| !l.is_empty()).count(), 41);
    // A player's game lines add up to his standing (no compensation in
    // two games of a ten-game-less stage would change that).
    let s = standings(&cup.t);
    for row in &s.rows {
        let sum: Points = rows
            .iter()
            .filter(|g| g.player == row.player)
            .map(|g| g.points.total)
            .sum();
        assert_eq!(sum, row.points.total, "{}", row.player);
    }
    let back: Vec<export::GamePoints> = serde_json::from_str(&export::games_json(&rows)).unwrap();
    assert_eq!(back, rows);
}

#[test]
fn the_seating_sheet_lists_every_table_and_seat_and_fetches_nothing() {
    let cup = cup();
    let html = export::seating_html(&cup.t, None, 3).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("@media print"));
    assert_eq!(html.matches("<section class=\"table\"").count(), 2);
    assert_eq!(html.matches("<tr data-player=").count(), 20);
    assert!(html.contains(
        "<tr data-player=\"p11\"><td class=\"seat\">1</td><td class=\"nick\">Player 11</td>"
    ));
    assert!(html.contains("Judge: Judge One"));
    // The index by player: every one once, by nickname, with his table and
    // seat as the tables above have them.
    let index = &html[html.find("Find your seat").unwrap()..];
    assert_eq!(index.matches("<tr data-find=").count(), 20);
    assert!(html.contains("<tr data-find=\"p11\"><td class=\"nick\">Player 11</td><td>"));
    let nicks: Vec<&str> = index
        .split("<td class=\"nick\">")
        .skip(1)
        .map(|s| &s[..s.find('<').unwrap()])
        .collect();
    let mut sorted = nicks.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(nicks, sorted);
    for fetch in ["<script", "<link", "src=", "http://", "https://"] {
        assert!(!html.contains(fetch), "{fetch}");
    }
}

#[test]
fn a_seating_sheet_for_a_round_not_seated_is_an_error_naming_the_round() {
    let cup = cup();
    assert_eq!(
        export::seating_html(&cup.t, None, 4).unwrap_err(),
        ExportError::RoundNotSeated { round: 4 }
    );
    let e = export::seating_html(&cup.t, Some(&stage_id("final")), 1).unwrap_err();
    assert_eq!(e.to_string(), "round 1 of stage final is not seated");
}

#[test]
fn the_public_exports_hide_extras_waiting_for_approval() {
    let cup = cup();
    let s = standings(&cup.t);
    assert!(s.rows.iter().any(|r| r.extra_pending != Points::ZERO));
    let public = export::public_standings(s);
    assert!(public.rows.iter().all(|r| r.extra_pending == Points::ZERO));
    let games = export::public_game_points(export::game_points(&cup.t));
    assert!(games.iter().all(|r| r.extra_pending == Points::ZERO));
}

#[test]
fn a_log_file_with_a_broken_line_names_the_event() {
    let cup = cup();
    let mut lines: Vec<String> = stored::to_lines(&cup.log)
        .lines()
        .map(str::to_owned)
        .collect();
    lines[3] = "{not json".into();
    let e = stored::fold_lines(&lines.join("\n")).unwrap_err();
    assert!(e.to_string().starts_with("tournament log event 3 "), "{e}");
    assert!(matches!(
        stored::fold_lines("\n\n").unwrap_err(),
        stored::StoredError::Empty
    ));
}

/// The log that the CLI's and the gateway's tests load
/// (`tests/data/cup.jsonl`): regenerate with `UPDATE_FIXTURES=1`.
#[test]
fn the_committed_fixture_log_is_this_tournament() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cup.jsonl");
    let lines = stored::to_lines(&cup().log);
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(path, &lines).unwrap();
    }
    assert_eq!(std::fs::read_to_string(path).unwrap(), lines);
}

/// A nickname `=HYPERLINK(…)`, a club `@…` and an id `+…` reach the CSVs
/// as text a spreadsheet shows, never as formulas it runs (prefixed `'`);
/// a negative figure (a big penalty, -0.5) stays a number.
#[test]
fn text_cells_that_a_spreadsheet_would_run_are_neutralised_and_figures_stay_numbers() {
    let mut cup = Cup::new(Scheme::rfm(), 9, 3);
    cup.ok(
        Actor::Organiser,
        TournamentCommand::RegisterPlayer {
            player: Player {
                id: pid(10),
                nickname: "=HYPERLINK(\"http://evil.example\",\"win\")".into(),
                club: Some("@SUM(A1)".into()),
                photo_url: None,
            },
        },
    );
    for (n, nickname) in [(11, "+1+1"), (12, "-2-2"), (13, "\tcmd"), (14, "\rcmd")] {
        cup.ok(
            Actor::Organiser,
            TournamentCommand::RegisterPlayer {
                player: Player {
                    id: pid(n),
                    nickname: nickname.into(),
                    club: None,
                    photo_url: None,
                },
            },
        );
    }
    let g = cup.seat_round("main", 1, &[ten(1)]).remove(0);
    let mut f = cup.facts(&g, Some(Team::Red));
    f.seats[9].big_penalties = 1;
    cup.record(&g, f);
    let s = standings(&cup.t);
    let csv = export::standings_csv(&s);
    assert!(
        csv.contains(",\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"win\"\")\",'@SUM(A1),"),
        "{csv}"
    );
    assert!(
        !csv.contains(",=") && !csv.contains(",@") && !csv.contains(",\"="),
        "{csv}"
    );
    for nickname in ["'+1+1", "'-2-2", "'\tcmd", "\"'\rcmd\""] {
        assert!(
            csv.contains(&format!(",{nickname},")),
            "{nickname:?}: {csv}"
        );
    }
    let row = s.rows.iter().find(|r| r.player == pid(10)).unwrap();
    assert_eq!(row.points.penalties.to_string(), "-0.5");
    let line = csv
        .split("\r\n")
        .find(|l| l.contains("'=HYPERLINK"))
        .unwrap();
    assert!(line.contains(",-0.5,"), "the penalty is a number: {line}");

    let games = export::games_csv(&export::game_points(&cup.t));
    let line = games
        .split("\r\n")
        .find(|l| l.contains("HYPERLINK"))
        .unwrap();
    assert!(line.contains(",\"'=HYPERLINK("), "{line}");
    assert!(line.contains(",-0.5,"), "the penalty is a number: {line}");
}
