//! The screens in headless Chromium (Debian's `chromium`): each page is
//! loaded from the gateway, follows the feed, and is screenshot into
//! `tests/artifacts/` (gitignored, kept as test artifacts). The rendered DOM is
//! checked for what each audience may see.
//!
//! Without a chromium binary the test says so and passes, unless
//! `MAFIA_REQUIRE_CHROMIUM=1` (CI sets it after installing chromium).

#[path = "common/cdp.rs"]
mod cdp;
mod common;

use std::time::Duration;

use cdp::Browser;
use common::*;
use mafia_gateway::ServerConfig;
use mafia_rules::{Audience, RuleSetId};

/// The DOM of `url` once it shows `ready`, screenshot to `name.png`.
async fn render(b: &mut Browser, url: String, name: &str, ready: &str) -> String {
    let dom = b.render(&url, ready, Some(name)).await;
    let png = cdp::artifacts().join(format!("{name}.png"));
    let meta = std::fs::metadata(&png).unwrap_or_else(|e| panic!("no screenshot for {url}: {e}"));
    assert!(meta.len() > 5_000, "screenshot of {url} looks empty");
    dom
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_screen_renders_what_its_audience_may_see() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_CHROMIUM").is_none(),
            "MAFIA_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("no chromium in PATH: screen tests skipped (apt-get install -y chromium)");
        return;
    };
    let mut b = Browser::launch(&bin).await;
    let fx = start(hub_config(Duration::ZERO), ServerConfig::default()).await;
    for (id, table, seed) in [("cup.final.r1.t1.g1", 1, 7), ("cup.final.r1.t2.g1", 2, 3)] {
        let sim = game(RuleSetId::Club, seed);
        create(&fx.log, id, &sim, table).await;
        append(&fx.log, id, &sim.events[..80]).await;
    }
    for id in ["cup.final.r1.t1.g1", "cup.final.r1.t2.g1"] {
        until(&fx.hub, |h| {
            h.state(&gid(id), Audience::Broadcast)
                .is_ok_and(|s| s.seq == 80)
        })
        .await;
    }
    let base = format!("http://{}", fx.addr);

    let hall = render(
        &mut b,
        format!("{base}/hall?lang=en"),
        "hall",
        r#"data-table="cup.final.r1.t2.g1""#,
    )
    .await;
    assert!(
        hall.contains(r#"data-table="cup.final.r1.t1.g1""#)
            && hall.contains(r#"data-table="cup.final.r1.t2.g1""#),
        "{hall}"
    );
    assert!(
        !hall.contains(r#"class="role""#),
        "the public hall shows roles"
    );

    let hall_ru = render(&mut b, format!("{base}/hall?lang=ru"), "hall-ru", "Стол 1").await;
    assert!(hall_ru.contains("Стол 1"), "{hall_ru}");

    let overlay = render(
        &mut b,
        format!("{base}/overlay?table=cup.final.r1.t1.g1"),
        "overlay-public",
        "Player 1",
    )
    .await;
    assert!(overlay.contains("Player 1") && !overlay.contains(r#"class="role""#));
    let overlay = render(
        &mut b,
        format!("{base}/overlay?table=cup.final.r1.t1.g1&token={BROADCAST}"),
        "overlay-broadcast",
        r#"class="role""#,
    )
    .await;
    assert!(
        overlay.contains(r#"class="role""#),
        "the broadcast overlay shows no roles"
    );

    let spectator = render(
        &mut b,
        format!("{base}/spectator?table=cup.final.r1.t2.g1&lang=ru"),
        "spectator",
        "Player 10",
    )
    .await;
    assert!(spectator.contains("Ход игры") && spectator.contains("Player 10"));
    assert!(!spectator.contains(r#"class="role""#));

    let judge = render(
        &mut b,
        format!("{base}/judge?token={CHIEF}"),
        "judge",
        r#"class="role""#,
    )
    .await;
    assert!(
        judge.contains(r#"data-table="cup.final.r1.t1.g1""#) && judge.contains(r#"class="role""#)
    );
    // A table judge's dashboard lists its own table only.
    let judge = render(
        &mut b,
        format!("{base}/judge?token={JUDGE_T1}"),
        "judge-table",
        r#"data-table="cup.final.r1.t1.g1""#,
    )
    .await;
    assert!(
        judge.contains(r#"data-table="cup.final.r1.t1.g1""#)
            && !judge.contains(r#"data-table="cup.final.r1.t2.g1""#)
    );
}
