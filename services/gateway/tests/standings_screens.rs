//! The standings screens in headless Chromium (Debian's `chromium`) against
//! a real gateway following a real tournament log: the hall screen's rows,
//! its pages, the OBS overlay's top N, the chief judge's ruling panels, and
//! the screens following a newly scored game.
//!
//! Without a chromium binary the test says so and passes, unless
//! `MAFIA_REQUIRE_CHROMIUM=1`.

#[path = "common/cdp.rs"]
mod cdp;
mod common;
#[path = "common/cup.rs"]
mod cup;

use cdp::Browser;
use common::{chromium, connect, next_json, CHIEF};
use cup::{folded, gateway, score_round_3};
use mafia_tournament::{export, standings};

/// The players of the rendered rows, in order.
fn players(dom: &str) -> Vec<String> {
    dom.split("data-player=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standings_screens_show_the_followed_table_and_follow_a_newly_scored_game() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_CHROMIUM").is_none(),
            "MAFIA_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("no chromium in PATH: standings screen tests skipped");
        return;
    };
    let mut b = Browser::launch(&bin).await;
    let gw = gateway().await;
    let mut ws = connect(gw.addr, "/ws/standings/cup").await;
    let v1 = next_json(&mut ws).await["version"].as_u64().unwrap();
    let base = format!("http://{}", gw.addr);

    let t = folded(&gw.log).await;
    let want: Vec<String> = standings(&t)
        .rows
        .iter()
        .map(|r| r.player.to_string())
        .collect();
    let ready = format!("data-version=\"{v1}\"");
    let hall = b
        .render(&format!("{base}/standings?tournament=cup"), &ready, None)
        .await;
    assert_eq!(players(&hall), want, "every player, by rank");
    assert!(hall.contains("Games scored: 4"), "{hall}");
    let top = &standings(&t).rows[0];
    assert!(hall.contains(&format!(
        "<td class=\"total\">{:.2}</td>",
        top.points.total.to_f64()
    )));

    // Paged: 8 a page gives three pages; page 2 holds ranks 9 to 16.
    let paged = b
        .render(
            &format!("{base}/standings?tournament=cup&size=8&page=2"),
            &ready,
            None,
        )
        .await;
    assert_eq!(players(&paged), want[8..16]);
    assert!(paged.contains("Page 2 / 3"));

    let overlay = b
        .render(
            &format!("{base}/standings-overlay?tournament=cup&top=5"),
            &ready,
            None,
        )
        .await;
    assert_eq!(players(&overlay), want[..5]);
    assert!(overlay.contains("background: transparent"));

    let judge = b
        .render(
            &format!("{base}/judge?token={CHIEF}&tournament=cup"),
            &ready,
            None,
        )
        .await;
    let pending = export::game_points(&t)
        .iter()
        .filter(|g| g.extra_pending.raw() != 0)
        .count();
    assert_eq!(pending, 1);
    assert!(judge.contains("data-game=\"cup.main.r1.t1.g1\""), "{judge}");
    assert!(judge.contains("extra_value"), "{judge}");

    // A new scored game: the screen shows the new version and its rows.
    let v2 = score_round_3(&gw.log).await;
    assert_eq!(next_json(&mut ws).await["version"].as_u64().unwrap(), v2);
    let t2 = folded(&gw.log).await;
    let s2 = standings(&t2);
    let hall2 = b
        .render(
            &format!("{base}/standings?tournament=cup"),
            &format!("data-version=\"{v2}\""),
            None,
        )
        .await;
    assert!(hall2.contains("Games scored: 5"));
    let want2: Vec<String> = s2.rows.iter().map(|r| r.player.to_string()).collect();
    assert_eq!(players(&hall2), want2);
    let p01 = |d: &str| {
        let at = d.find("data-player=\"p01\"").unwrap();
        let games = &d[at..];
        let g = games.find("class=\"games\">").unwrap() + "class=\"games\">".len();
        games[g..g + games[g..].find('<').unwrap()].to_owned()
    };
    assert_eq!(p01(&hall), "2");
    assert_eq!(p01(&hall2), "3");
}
