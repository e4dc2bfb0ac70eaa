//! The chief judge's dashboard (`/judge?tournament=…`) in headless
//! Chromium against a real gateway and a real scoring service on one
//! embedded log (`ruling_fixture`): an item approved and one refused, a
//! refusal and an appeal decision without a reason refused on the page
//! with a message and nothing stored, an appeal decided with points
//! corrected, the disputed moment shown, the table board's states; each
//! decision read back from the log. Screenshots at 1920×1080, 1280×800,
//! 1280×720 and 390×844 with long Cyrillic nicknames go to
//! `tests/artifacts/` (gitignored); nothing is loaded from elsewhere.
//!
//! Without a chromium binary the test says so and passes, unless
//! `MAFIA_REQUIRE_CHROMIUM=1`.

#[path = "common/cdp.rs"]
mod cdp;
mod common;
mod ruling_fixture;

use cdp::{Browser, Page};
use mafia_tournament::{AppealDecision, Points};
use ruling_fixture::*;
use serde_json::json;

fn chromium_or_skip() -> Option<std::path::PathBuf> {
    let bin = common::chromium();
    if bin.is_none() {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_CHROMIUM").is_none(),
            "MAFIA_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("no chromium in PATH: ruling screen tests skipped");
    }
    bin
}

/// Clicks the element `selector` names.
async fn click(b: &mut Browser, page: &Page, selector: &str) {
    let js = format!(
        "(() => {{ const n = document.querySelector({}); if (!n) return false; n.click(); return true; }})()",
        json!(selector)
    );
    assert_eq!(b.eval(page, &js).await, json!(true), "no {selector}");
}

/// Types `value` into the input, textarea or select `selector` names.
async fn fill(b: &mut Browser, page: &Page, selector: &str, value: &str) {
    let js = format!(
        "(() => {{ const n = document.querySelector({}); if (!n) return false; n.value = {}; \
         n.dispatchEvent(new Event('input', {{bubbles: true}})); n.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()",
        json!(selector),
        json!(value)
    );
    assert_eq!(b.eval(page, &js).await, json!(true), "no {selector}");
}

fn count(selector: &str) -> String {
    format!("document.querySelectorAll({}).length", json!(selector))
}

const R1: &str = "cup.main.r1.t1.g1";
const R2: &str = "cup.main.r2.t1.g1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chief_judge_rules_from_the_dashboard() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let s = start(true, true).await;
    s.ready().await;
    let mut b = Browser::launch(&bin).await;
    let page = b.page(1920, 1080).await;
    let base = format!("http://{}", s.addr);
    b.goto(
        &page,
        &format!("{base}/judge?tournament=cup&token={CHIEF}&lang=en"),
    )
    .await;
    b.wait_for(
        &page,
        &format!("{} === 2", count("#rl-approvals [data-approval]")),
        "two pending items",
    )
    .await;
    // Each with its clause and game.
    let text = b
        .eval(&page, "document.querySelector('#rl-approvals').innerText")
        .await;
    let text = text.as_str().unwrap();
    assert!(text.contains("rfm §6.4.2"), "{text}");
    assert!(text.contains("Round 1 · Table 1"), "{text}");
    assert!(text.contains("Александра-Константинопольская 1"), "{text}");

    // Approved: the item leaves the list and the log holds the approval.
    click(
        &mut b,
        &page,
        &format!("[data-approval=\"{R1}\"] [data-act=approve]"),
    )
    .await;
    b.wait_for(
        &page,
        &format!("{} === 0", count(&format!("[data-approval=\"{R1}\"]"))),
        "the approved item gone",
    )
    .await;
    let t = folded(&s.log).await;
    let r1 = &t.games[&R1.parse().unwrap()];
    assert!(r1.inputs.as_ref().unwrap().pending.is_empty());
    assert_eq!(r1.inputs.as_ref().unwrap().approved.len(), 1);

    // A refusal without a reason: a message, nothing sent.
    let before = s.log.last_seq("tournament.cup").await.unwrap();
    click(
        &mut b,
        &page,
        &format!("[data-approval=\"{R2}\"] [data-act=refuse]"),
    )
    .await;
    b.wait_for(
        &page,
        &format!(
            "document.querySelector('[data-approval=\"{R2}\"]').innerText.includes('A reason is required')"
        ),
        "the refusal's message",
    )
    .await;
    assert_eq!(s.log.last_seq("tournament.cup").await.unwrap(), before);
    // With a reason: refused, and stored with it.
    fill(
        &mut b,
        &page,
        &format!("[data-approval=\"{R2}\"] textarea"),
        "Не за что: no reason for +1.6 in this game",
    )
    .await;
    click(
        &mut b,
        &page,
        &format!("[data-approval=\"{R2}\"] [data-act=refuse]"),
    )
    .await;
    b.wait_for(
        &page,
        &format!("{} === 0", count("#rl-approvals [data-approval]")),
        "no item left",
    )
    .await;
    let t = folded(&s.log).await;
    let r2 = &t.games[&R2.parse().unwrap()];
    assert!(r2.inputs.as_ref().unwrap().pending.is_empty());
    let log = s.log.read("tournament.cup", before + 1, 100).await.unwrap();
    let refused: Vec<serde_json::Value> = log
        .iter()
        .map(|e| serde_json::from_slice(&e.payload).unwrap())
        .filter(|v: &serde_json::Value| v["type"] == "approval_refused")
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(
        refused[0]["reason"],
        "Не за что: no reason for +1.6 in this game"
    );

    // The appeal: the disputed moment, then a decision without a reason
    // (refused on the page, nothing stored), then points corrected.
    click(&mut b, &page, "[data-appeal=\"1\"] [data-act=disputed]").await;
    b.wait_for(
        &page,
        &format!("!!document.querySelector('[data-appeal=\"1\"] [data-state=\"{DISPUTED_SEQ}\"]')"),
        "the disputed moment",
    )
    .await;
    click(&mut b, &page, "[data-appeal=\"1\"] [data-act=protocol]").await;
    b.wait_for(
        &page,
        "!!document.querySelector('[data-appeal=\"1\"] iframe[data-protocol]')",
        "the protocol",
    )
    .await;
    let before = s.log.last_seq("tournament.cup").await.unwrap();
    fill(
        &mut b,
        &page,
        "[data-decision-kind=\"1\"]",
        "points_corrected",
    )
    .await;
    b.wait_for(
        &page,
        "!!document.querySelector('[data-appeal=\"1\"] [data-correction=\"0\"] [data-field=points]')",
        "the correction's row",
    )
    .await;
    fill(
        &mut b,
        &page,
        "[data-appeal=\"1\"] [data-correction=\"0\"] [data-field=points]",
        "0.5",
    )
    .await;
    click(&mut b, &page, "[data-appeal=\"1\"] [data-act=decide]").await;
    b.wait_for(
        &page,
        "document.querySelector('[data-appeal=\"1\"]').innerText.includes('A reason is required')",
        "the decision's message",
    )
    .await;
    assert_eq!(s.log.last_seq("tournament.cup").await.unwrap(), before);
    fill(
        &mut b,
        &page,
        "[data-appeal=\"1\"] textarea[data-reason]",
        "The foul was the neighbour's: +0.5 back",
    )
    .await;
    click(&mut b, &page, "[data-appeal=\"1\"] [data-act=decide]").await;
    b.wait_for(
        &page,
        "!!document.querySelector('#rl-decided [data-decision=\"points_corrected\"]')",
        "the decided appeal",
    )
    .await;
    let t = folded(&s.log).await;
    let d = t.appeals[&1].decided.as_ref().unwrap();
    assert_eq!(d.reason, "The foul was the neighbour's: +0.5 back");
    let AppealDecision::PointsCorrected { corrections } = &d.decision else {
        panic!("{:?}", d.decision)
    };
    assert_eq!(corrections.len(), 1);
    assert_eq!(corrections[0].points, Points::c(50));
    assert_eq!(
        Some(&corrections[0].player),
        t.appeals[&1].player.as_ref(),
        "the appellant's row by default"
    );
    // The audit trail shows who, when and why.
    b.wait_for(
        &page,
        "document.querySelector('#rl-audit').innerText.includes('The foul was the neighbour')",
        "the audit's line",
    )
    .await;

    // The result confirmed (rfm §7.4): the board's alert clears.
    b.wait_for(
        &page,
        "!!document.querySelector('[data-board] [data-table=\"1\"] [data-alert=\"awaiting_confirmation\"]')",
        "the confirmation's alert",
    )
    .await;
    click(
        &mut b,
        &page,
        &format!("[data-confirm=\"{FINISHED}\"] [data-act=confirm]"),
    )
    .await;
    b.wait_for(
        &page,
        &format!(
            "!document.querySelector('[data-confirm=\"{FINISHED}\"]') && \
             !document.querySelector('[data-board] [data-table=\"1\"] [data-alert=\"awaiting_confirmation\"]')"
        ),
        "the confirmation's alert cleared",
    )
    .await;
    let t = folded(&s.log).await;
    assert!(!t.games[&FINISHED.parse().unwrap()].awaits_confirmation());

    // A lot drawn on the page and recorded: its group no longer waits.
    let groups = mafia_tournament::standings(&t).awaiting_lot;
    assert!(t.lots.is_empty());
    {
        let group = groups.first().expect("the cup has a tie waiting for a lot");
        click(&mut b, &page, "[data-lot=\"0\"] [data-act=draw-lot]").await;
        b.wait_for(
            &page,
            "!!document.querySelector('[data-lot=\"0\"] [data-drawn]')",
            "the lot drawn",
        )
        .await;
        let drawn = b
            .eval(
                &page,
                "document.querySelector('[data-lot=\"0\"] [data-drawn]').dataset.drawn",
            )
            .await;
        click(&mut b, &page, "[data-lot=\"0\"] [data-act=record-lot]").await;
        let drawn: Vec<String> = drawn
            .as_str()
            .unwrap()
            .split(',')
            .map(str::to_owned)
            .collect();
        let mut want = drawn.clone();
        want.sort();
        let mut had: Vec<String> = group.iter().map(|p| p.to_string()).collect();
        had.sort();
        assert_eq!(want, had, "the lot orders the tied group");
        let id = "cup".parse().unwrap();
        let mut rx = s.state.standings.watch(&id).unwrap();
        rx.wait_for(|snap| {
            snap.as_ref()
                .is_some_and(|snap| !snap.tournament.lots.is_empty())
        })
        .await
        .unwrap();
        let t = folded(&s.log).await;
        let lot = t.lots.last().expect("a lot stored");
        let stored: Vec<String> = lot.players.iter().map(|p| p.to_string()).collect();
        assert_eq!(stored, drawn);
    }

    // The board: table 1 finished, table 2 in play, no console.
    b.wait_for(
        &page,
        "!!document.querySelector('[data-board] [data-table=\"1\"][data-status=\"finished\"]') && \
         !!document.querySelector('[data-board] [data-table=\"2\"][data-status=\"in_play\"][data-console=\"off\"]')",
        "the board's states",
    )
    .await;
    let board = b
        .eval(&page, "document.querySelector('[data-board]').innerText")
        .await;
    let board = board.as_str().unwrap();
    assert!(board.contains("In play"), "{board}");
    assert!(board.contains("Console not connected"), "{board}");
    b.screenshot(&page, "ruling-decided-1920x1080").await;

    let requests = b.requests(&page);
    let scoring = format!("http://{}", s.scoring.as_ref().unwrap().addr);
    for url in &requests {
        assert!(
            url.starts_with(&base)
                || url.starts_with(&format!("ws://{}", s.addr))
                || url.starts_with(&scoring)
                || url.starts_with("about:"),
            "{url} is outside the gateway and the scoring service"
        );
    }
    b.close(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_fits_every_screen_with_long_cyrillic_nicknames() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let s = start(true, true).await;
    s.ready().await;
    let mut b = Browser::launch(&bin).await;
    let base = format!("http://{}", s.addr);
    for (w, h, lang) in [
        (1920, 1080, "ru"),
        (1280, 800, "ru"),
        (1280, 720, "en"),
        (390, 844, "ru"),
    ] {
        let page = b.page(w, h).await;
        b.goto(
            &page,
            &format!("{base}/judge?tournament=cup&token={CHIEF}&lang={lang}"),
        )
        .await;
        b.wait_for(
            &page,
            &format!(
                "{} === 2 && {} === 2 && {} > 0",
                count("#rl-approvals [data-approval]"),
                count("[data-board] [data-table]"),
                count(".card[data-table]")
            ),
            "the dashboard filled",
        )
        .await;
        b.screenshot(&page, &format!("ruling-{w}x{h}-{lang}")).await;
        // Nothing wider than the window; no nickname cut to a letter.
        let overflow = b
            .eval(
                &page,
                "document.documentElement.scrollWidth - document.documentElement.clientWidth",
            )
            .await;
        assert!(overflow.as_i64().unwrap() <= 0, "{w}x{h}: {overflow}");
        let cut = b
            .eval(
                &page,
                "[...document.querySelectorAll('.rl-seats span, .nick, .ob-name, .rl-title')].filter((n) => n.offsetParent && (n.getBoundingClientRect().width < 40 || (getComputedStyle(n).overflowX !== 'visible' && n.scrollWidth > n.clientWidth + 1))).map((n) => n.textContent + ' ' + n.className + ' ' + Math.round(n.getBoundingClientRect().width) + ' ' + getComputedStyle(n).overflowX + ' ' + n.scrollWidth + '/' + n.clientWidth)",
            )
            .await;
        assert_eq!(cut, json!([]), "{w}x{h}: cut short");
        b.eval(
            &page,
            "document.getElementById('rulings').scrollIntoView(); true",
        )
        .await;
        b.screenshot(&page, &format!("ruling-{w}x{h}-{lang}-rulings"))
            .await;
        b.close(page).await;
    }
}
