//! Hand-written sample files of both formats (tests/samples/, written from
//! the formats' documentation, not taken from those projects) import and
//! replay; broken ones are refused with the path of what broke.

use mafia_interchange::mafiaratings::import::GameImport;
use mafia_interchange::{mafiaratings, polemica, Imported, SourceError};
use mafia_rules::summary::GameResult;
use mafia_rules::{Code, RuleSetId, Seat};

fn sample(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/samples")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn accepted(g: GameImport) -> Imported {
    let imp = g.result.unwrap_or_else(|e| panic!("{}: {e}", g.path));
    assert!(imp.refusal.is_none(), "{}: {:?}", g.path, imp.refusal);
    imp
}

#[test]
fn the_mafiaratings_sample_game_replays_to_the_result_it_states() {
    let games =
        mafiaratings::import(&sample("mafiaratings-game.json"), RuleSetId::Classic).unwrap();
    assert_eq!(games.len(), 1);
    let imp = accepted(games.into_iter().next().unwrap());
    let r = &imp.record;
    let h = r.header();
    assert_eq!(
        h.game_id().unwrap().to_string(),
        "mr-event-12.main.r1.t2.g3"
    );
    assert_eq!(h.tournament, "Spring Club Night");
    assert_eq!(h.judge, "Anna the Judge");
    assert_eq!(h.seats[3].player_id, "104");
    assert_eq!(h.seats[3].nickname, "Dahlia");
    // 19:00 at +03:00 is 16:00 UTC; the end is the file's Unix time.
    assert_eq!(r.commands().first().unwrap().at, 1_773_504_000_000);
    assert_eq!(r.commands().last().unwrap().at, 1_773_506_700_000);
    let out = r.replay();
    assert!(out.violation.is_none());
    let s = out.game.summary();
    assert_eq!(s.result, GameResult::Red);
    let left: Vec<(u8, String, String)> = s
        .departures
        .iter()
        .map(|d| (d.seat.number(), d.when.clone(), d.cause.clone()))
        .collect();
    assert_eq!(
        left,
        [
            (2, "day 1".into(), "vote".into()),
            (4, "night 1".into(), "shot".into()),
            (8, "day 2".into(), "vote".into()),
            (9, "night 2".into(), "shot".into()),
            (6, "day 3".into(), "vote".into()),
        ]
    );
    let bm = s.best_move.unwrap();
    assert_eq!((bm.seat.number(), bm.hits), (4, 2));
    assert_eq!(s.fouls.get("7"), Some(&1));
    assert_eq!(s.fouls.get("10"), Some(&1));
    // And it goes back out as the facts it came from.
    let back = mafiaratings::export(r).unwrap().json;
    assert_eq!(back["players"][3]["legacy"], serde_json::json!([6, 8, 9]));
    assert_eq!(back["players"][5]["shooting"], serde_json::json!([4, 9]));
    assert_eq!(back["players"][9]["warnings"][0]["speaker"], 3);
    assert_eq!(back["rules"], "0002000000000");
}

#[test]
fn a_file_of_games_imports_each_and_refuses_the_one_with_a_dead_voter_at_its_path() {
    let games =
        mafiaratings::import(&sample("mafiaratings-games.json"), RuleSetId::Classic).unwrap();
    assert_eq!(games.len(), 2);
    let mut it = games.into_iter();
    let first = it.next().unwrap();
    assert_eq!(first.path, "games[0]");
    let ok = accepted(first);
    assert_eq!(ok.record.header().seats[0].player_id, "seat-1");
    let second = it.next().unwrap();
    assert_eq!(second.path, "games[1]");
    let r = second.result.unwrap().refusal.expect("refused");
    assert_eq!(r.origin.0, "games[1].players[3].voting[1]");
    assert_eq!(r.violation.as_ref().unwrap().code, Code::VoterOut);
    let c = r.command.unwrap();
    assert!(
        matches!(c.cmd, mafia_rules::Command::Vote { nominee, .. } if nominee == Seat::new(8).unwrap())
    );
}

#[test]
fn a_winner_the_replay_does_not_reach_is_refused_at_the_winner() {
    let mut g: serde_json::Value = serde_json::from_str(&sample("mafiaratings-game.json")).unwrap();
    g["winner"] = "maf".into();
    let games = mafiaratings::import(&g.to_string(), RuleSetId::Classic).unwrap();
    let r = games
        .into_iter()
        .next()
        .unwrap()
        .result
        .unwrap()
        .refusal
        .unwrap();
    assert_eq!(r.origin.0, "winner");
    assert_eq!(r.code(), "source_mismatch");
    assert!(
        r.message.contains("black wins") && r.message.contains("red wins"),
        "{r}"
    );
}

#[test]
fn a_fact_the_replay_never_reaches_is_refused_at_its_path() {
    let mut g: serde_json::Value = serde_json::from_str(&sample("mafiaratings-game.json")).unwrap();
    // Iris is shot in night 2: she has no speech on the third day.
    g["players"][8]["nominating"] = serde_json::json!([null, null, 1]);
    let games = mafiaratings::import(&g.to_string(), RuleSetId::Classic).unwrap();
    let r = games
        .into_iter()
        .next()
        .unwrap()
        .result
        .unwrap()
        .refusal
        .unwrap();
    assert_eq!(r.origin.0, "players[8].nominating[2]");
    assert!(r.message.contains("never happens"), "{r}");
}

#[test]
fn a_rules_code_the_engine_cannot_play_is_refused_at_the_rules() {
    let mut g: serde_json::Value = serde_json::from_str(&sample("mafiaratings-game.json")).unwrap();
    g["rules"] = "0002100000000".into();
    let games = mafiaratings::import(&g.to_string(), RuleSetId::Classic).unwrap();
    match &games[0].result {
        Err(SourceError::Unsupported { path, message }) => {
            assert_eq!(path, "rules");
            assert!(message.contains("firstVoting"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    g["rules"] = "0002000000000".into();
    g["features"] = "gsdutclhvkwr".into();
    let games = mafiaratings::import(&g.to_string(), RuleSetId::Classic).unwrap();
    assert!(
        matches!(&games[0].result, Err(SourceError::Unsupported { path, .. }) if path == "features")
    );
}

#[test]
fn the_polemica_sample_game_replays_like_the_same_game_from_mafiaratings() {
    for rules in [RuleSetId::Classic, RuleSetId::Rfm] {
        let p = accepted(
            polemica::import(&sample("polemica-game.json"), rules)
                .unwrap()
                .remove(0),
        );
        let m = accepted(
            mafiaratings::import(&sample("mafiaratings-game.json"), rules)
                .unwrap()
                .remove(0),
        );
        let (ps, ms) = (
            p.record.replay().game.summary(),
            m.record.replay().game.summary(),
        );
        assert_eq!(ps, ms, "{rules}");
        let h = p.record.header();
        assert_eq!(h.seats[0].player_id, "polemica:501");
        assert_eq!(h.seats[1].player_id, "polemica:502");
        assert_eq!(h.seats[2].player_id, "seat-3");
        assert_eq!(h.judge, "Anna the Judge");
        assert_eq!((h.table, h.game), (2, 3));
        assert_eq!(p.record.commands()[0].at, 1_773_504_000_000);
    }
}

#[test]
fn an_unfinished_polemica_game_imports_as_far_as_it_goes() {
    let games = polemica::import(&sample("polemica-unfinished.json"), RuleSetId::Rfm).unwrap();
    let imp = accepted(games.into_iter().next().unwrap());
    let out = imp.record.replay();
    assert!(out.violation.is_none());
    let s = out.game.summary();
    assert_eq!(s.result, GameResult::Unfinished);
    assert_eq!(s.departures.len(), 1);
    assert_eq!(s.departures[0].seat.number(), 10);
}

#[test]
fn bad_json_names_its_line_and_bad_shapes_their_path() {
    match mafiaratings::import("{\n  \"players\": [\n  oops\n]}", RuleSetId::Classic) {
        Err(SourceError::Json { line, .. }) => assert_eq!(line, 3),
        other => panic!("{other:?}"),
    }
    let mut g: serde_json::Value = serde_json::from_str(&sample("mafiaratings-game.json")).unwrap();
    g["players"][4]["voting"][1] = 11.into();
    let games = mafiaratings::import(&g.to_string(), RuleSetId::Classic).unwrap();
    match &games[0].result {
        Err(SourceError::Shape { path, message }) => {
            assert_eq!(path, "players[4].voting[1]");
            assert!(message.contains("outside 1–10"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let mut p: serde_json::Value = serde_json::from_str(&sample("polemica-game.json")).unwrap();
    p["players"][3]["role"] = 7.into();
    let games = polemica::import(&p.to_string(), RuleSetId::Rfm).unwrap();
    assert!(
        matches!(&games[0].result, Err(SourceError::Shape { path, .. }) if path == "players[3].role")
    );
    assert!(polemica::import("42", RuleSetId::Rfm).is_err());
}

#[test]
fn polemica_guesses_of_players_without_a_best_move_are_not_carried() {
    let mut p: serde_json::Value = serde_json::from_str(&sample("polemica-game.json")).unwrap();
    // Hazel, voted out on day 2, names seats in her last words too.
    p["players"][7]["guess"] = serde_json::json!({"mafs": [1, 3]});
    let imp = accepted(
        polemica::import(&p.to_string(), RuleSetId::Rfm)
            .unwrap()
            .remove(0),
    );
    let bm = imp.record.replay().game.summary().best_move.unwrap();
    assert_eq!(bm.seat.number(), 4);
}

#[test]
fn a_polemica_first_day_leader_who_plays_on_is_refused_as_zero_voting() {
    let mut p: serde_json::Value = serde_json::from_str(&sample("polemica-game.json")).unwrap();
    // Birch leads day 1's vote, and votes again on day 2.
    let votes = p["votes"].as_array_mut().unwrap();
    votes.push(serde_json::json!({"day": 2, "num": 1, "voter": 2, "candidate": 9}));
    match &polemica::import(&p.to_string(), RuleSetId::Rfm).unwrap()[0].result {
        Err(SourceError::Unsupported { path, message }) => {
            assert_eq!(path, "votes[2]");
            assert!(message.contains("zero voting"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
