//! `mafia seat` end to end: a seating from a players CSV, its metrics beside
//! a random one, the chief judge's swap, and errors naming the broken line.

mod common;

use common::{mafia, stderr, stdout};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

fn write_players(dir: &Path, n: usize) {
    let mut csv = String::from("id,nickname,club\n");
    for i in 1..=n {
        let club = if i % 4 == 0 { "Red Star" } else { "" };
        csv += &format!("p{i},Nick{i},{club}\n");
    }
    std::fs::write(dir.join("players.csv"), csv).unwrap();
}

#[test]
fn seat_prints_every_round_and_the_metrics_beside_random() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 20);
    let o = mafia(
        dir.path(),
        &[
            "seat",
            "--players",
            "players.csv",
            "--rounds",
            "3",
            "--seed",
            "4",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("20 players, 2 tables, 3 rounds, seed 4"),
        "{text}"
    );
    for r in 1..=3 {
        assert!(text.contains(&format!("\nRound {r}\n")), "{text}");
    }
    assert!(text.contains("Nick20"));
    let metrics = text
        .lines()
        .find(|l| l.starts_with("metric"))
        .expect("a metrics table");
    assert!(
        metrics.contains("ours") && metrics.contains("random"),
        "{metrics}"
    );
    assert!(text
        .lines()
        .any(|l| l.starts_with("pair_meetings_variance")));
    // Same seed, same output.
    let again = mafia(
        dir.path(),
        &[
            "seat",
            "--players",
            "players.csv",
            "--rounds",
            "3",
            "--seed",
            "4",
        ],
    );
    assert_eq!(stdout(&again), text);
}

#[test]
fn seat_json_holds_the_seating_and_both_metrics() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 23);
    std::fs::write(
        dir.path().join("policies.csv"),
        "kind,a,b\nseparate,p1,p2\navoid,p3,p4\n",
    )
    .unwrap();
    let o = mafia(
        dir.path(),
        &[
            "seat",
            "--players",
            "players.csv",
            "--rounds",
            "4",
            "--tables",
            "2",
            "--policies",
            "policies.csv",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let rounds = v["seating"]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4);
    for round in rounds {
        let mut seen = HashSet::new();
        for table in round["tables"].as_array().unwrap() {
            let seats = table["seats"].as_array().unwrap();
            assert_eq!(seats.len(), 10);
            let ids: HashSet<&str> = seats.iter().map(|s| s.as_str().unwrap()).collect();
            assert!(
                !(ids.contains("p1") && ids.contains("p2")),
                "separate pair met"
            );
            seen.extend(ids);
        }
        assert_eq!(seen.len() + round["resting"].as_array().unwrap().len(), 23);
    }
    assert_eq!(v["metrics"]["separate_violations"], 0);
    assert!(
        v["metrics"]["games_max"].as_u64().unwrap() - v["metrics"]["games_min"].as_u64().unwrap()
            <= 1
    );
    assert!(v["random_metrics"]["pair_meetings_variance"].is_number());
    assert_eq!(v["players"][3]["club"], "Red Star");
}

#[test]
fn seat_swap_is_applied_and_the_metrics_rechecked() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 20);
    let args = [
        "seat",
        "--players",
        "players.csv",
        "--rounds",
        "2",
        "--json",
    ];
    let plain: Value = serde_json::from_str(stdout(&mafia(dir.path(), &args)).trim()).unwrap();
    let mut with_swap = args.to_vec();
    with_swap.extend(["--swap", "2:1.3,2.7"]);
    let o = mafia(dir.path(), &with_swap);
    assert!(o.status.success(), "{}", stderr(&o));
    let swapped: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let seat =
        |v: &Value, t: usize, s: usize| v["seating"]["rounds"][1]["tables"][t]["seats"][s].clone();
    assert_eq!(seat(&swapped, 0, 2), seat(&plain, 1, 6));
    assert_eq!(seat(&swapped, 1, 6), seat(&plain, 0, 2));
    assert_eq!(swapped["metrics_before_swaps"], plain["metrics"]);

    // A seat that does not exist is refused with the reason.
    let o = mafia(
        dir.path(),
        &[
            "seat",
            "--players",
            "players.csv",
            "--rounds",
            "2",
            "--swap",
            "1:3.1,1.1",
        ],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("round 1 has no table 3 seat 1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn seat_swap_that_seats_a_separate_pair_together_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 20);
    std::fs::write(
        dir.path().join("policies.csv"),
        "kind,a,b\nseparate,p1,p2\n",
    )
    .unwrap();
    let args = [
        "seat",
        "--players",
        "players.csv",
        "--rounds",
        "1",
        "--policies",
        "policies.csv",
        "--json",
    ];
    let v: Value = serde_json::from_str(stdout(&mafia(dir.path(), &args)).trim()).unwrap();
    let tables = v["seating"]["rounds"][0]["tables"].as_array().unwrap();
    let find = |id: &str| {
        tables
            .iter()
            .enumerate()
            .find_map(|(t, tab)| {
                tab["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .position(|s| s == id)
                    .map(|k| (t + 1, k + 1))
            })
            .unwrap()
    };
    let (t1, k1) = find("p1");
    let (t2, k2) = find("p2");
    let other = if k1 == 1 { 2 } else { 1 };
    let spec = format!("1:{t1}.{other},{t2}.{k2}");
    let mut with_swap = args.to_vec();
    with_swap.extend(["--swap", &spec]);
    let o = mafia(dir.path(), &with_swap);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("`p1` and `p2` must be kept apart"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn seat_names_the_line_of_a_broken_players_csv() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "id,nickname,club\np1,A,\np2,B,Club,extra\n",
            "line 3: 4 fields, but the header has 3",
        ),
        ("id,nickname\np1,A\np2,B\np3\n", "line 4: no nickname"),
        ("id,nickname\np1,A\n,B\n", "line 3: no id"),
        (
            "id,nickname\np1,A\np2,B\np1,C\n",
            "line 4: player `p1` is listed twice (first on line 2)",
        ),
        (
            "name,club\nA,X\n",
            "line 1: the header must name the columns id,nickname,club",
        ),
    ];
    for (csv, want) in cases {
        std::fs::write(dir.path().join("bad.csv"), csv).unwrap();
        let o = mafia(
            dir.path(),
            &["seat", "--players", "bad.csv", "--rounds", "1"],
        );
        assert!(!o.status.success(), "{csv}");
        assert!(
            stderr(&o).contains(&format!("bad.csv: {want}")),
            "{csv}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "nothing printed for a broken file");
    }
}

#[test]
fn seat_names_the_line_of_a_broken_policies_csv() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 10);
    for (csv, want) in [
        (
            "kind,a,b\nseparate,p1,p2\nfriends,p1,p3\n",
            "line 3: unknown policy kind `friends`",
        ),
        (
            "kind,a,b\navoid,p1,p99\n",
            "line 2: `p99` is not among the players",
        ),
        ("kind,a,b\navoid,p1\n", "line 2: no b"),
    ] {
        std::fs::write(dir.path().join("policies.csv"), csv).unwrap();
        let o = mafia(
            dir.path(),
            &[
                "seat",
                "--players",
                "players.csv",
                "--rounds",
                "1",
                "--policies",
                "policies.csv",
            ],
        );
        assert!(!o.status.success(), "{csv}");
        assert!(
            stderr(&o).contains(&format!("policies.csv: {want}")),
            "{csv}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn seat_with_too_few_players_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_players(dir.path(), 9);
    let o = mafia(
        dir.path(),
        &["seat", "--players", "players.csv", "--rounds", "1"],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("9 players are too few for 1 table of 10"),
        "{}",
        stderr(&o)
    );
}
