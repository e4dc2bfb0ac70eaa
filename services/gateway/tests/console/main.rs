//! The judge console (`/judge-console`) in headless Debian Chromium, driven
//! over the DevTools protocol by key presses, against a real referee (gRPC-web
//! on loopback) and a real gateway on one embedded event log: whole games
//! typed in shorthand end as their simulations did, through a refused
//! command, a page reload, and the referee stopped mid-game with commands
//! queued; and bad input (foreign tokens, two tabs, malformed seatings, a
//! stale queue) changes nothing. Screenshots of each phase go to
//! `tests/artifacts/console/` (gitignored).
//!
//! Without a chromium binary the tests say so and pass, unless
//! `MAFIA_REQUIRE_CHROMIUM=1`.

mod cdp;
mod harness;

use cdp::Browser;
use harness::*;
use mafia_judge_client::keys::shorthand;
use mafia_rules::{Game, RuleSetId};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_typed_by_keys_survives_a_refusal_a_reload_and_a_referee_outage() {
    let Some(bin) = browser_or_skip() else { return };
    let mut stack = Stack::start().await;
    let browser = Browser::launch(&bin).await;
    let page = browser.page().await;
    let sim = sim(RuleSetId::Rfm, 11);
    let id = "cup.main.r1.t3.g1";
    let mut shots = Shots::new("rfm");

    log_in(&page, &stack, T3, "en").await;
    page.wait("document.body.dataset.screen === 'games'").await;
    page.screenshot(&artifacts().join("rfm-000-games.png"))
        .await;
    open_by_form(&page, RuleSetId::Rfm, 3, 1, &nicknames(), &cards_of(&sim)).await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
        .await;
    let shown_before = page
        .eval("document.querySelector('#prompt-text').textContent")
        .await;

    // A line that is no command sends nothing; a command the referee
    // refuses shows its violation and changes nothing.
    enter(&page, "f 11").await;
    page.wait("document.querySelector('#note').textContent.includes('not a seat')")
        .await;
    assert_eq!(page.eval("document.body.dataset.queued").await, json!("0"));
    // The line stays for the judge to fix; Escape clears it.
    page.press("Escape").await;
    enter(&page, r#"{"type":"vote","nominee":1,"hands":[]}"#).await;
    let code = page.wait("document.body.dataset.violation").await;
    let box_text = page
        .eval("document.querySelector('#violation').innerText")
        .await;
    page.screenshot(&artifacts().join("rfm-000-rejected.png"))
        .await;
    let box_text = box_text.as_str().unwrap();
    assert!(box_text.contains(code.as_str().unwrap()), "{box_text}");
    let message = page
        .eval("document.querySelector('#violation .message').textContent")
        .await;
    assert!(!message.as_str().unwrap().is_empty(), "{box_text}");
    assert_eq!(acked(&page).await, 0);
    assert_eq!(
        page.eval("document.querySelector('#prompt-text').textContent")
            .await,
        shown_before
    );

    let (mut game, _) = Game::new(sim.setup.clone(), 0);
    let n = sim.commands.len();
    let (third, two_thirds) = (n / 3, 2 * n / 3);
    type_commands(
        &page,
        &mut game,
        &sim.commands,
        0..third,
        Some(&mut shots),
        false,
    )
    .await;

    // A reload restores the game from the referee.
    page.reload().await;
    page.wait(&format!(
        "document.body.dataset.screen === 'game' && document.body.dataset.acked === '{third}' && document.body.dataset.conn === 'online'"
    ))
    .await;
    type_commands(
        &page,
        &mut game,
        &sim.commands,
        third..two_thirds,
        Some(&mut shots),
        false,
    )
    .await;

    // The referee goes away: three commands typed meanwhile are queued (in
    // their explicit forms: the prompt cannot move without the referee),
    // survive a reload while it is down, and go in once it is back.
    stack.stop_referee().await;
    for (j, (at, cmd)) in sim.commands[two_thirds..two_thirds + 3].iter().enumerate() {
        enter(&page, &shorthand(cmd, None)).await;
        page.wait(&format!("document.body.dataset.queued === '{}'", j + 1))
            .await;
        game.apply(cmd, *at).unwrap();
    }
    page.wait("document.body.dataset.conn === 'offline'").await;
    page.screenshot(&artifacts().join("rfm-offline-queued.png"))
        .await;
    page.reload().await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.queued === '3'")
        .await;
    stack.restart_referee().await;
    page.wait(&format!(
        "document.body.dataset.queued === '0' && document.body.dataset.acked === '{}'",
        two_thirds + 3
    ))
    .await;
    type_commands(
        &page,
        &mut game,
        &sim.commands,
        two_thirds + 3..n,
        Some(&mut shots),
        false,
    )
    .await;

    page.wait("document.body.dataset.over === 'true' && document.querySelector('#result')")
        .await;
    page.screenshot(&artifacts().join("rfm-999-result.png"))
        .await;
    let result = page
        .eval("document.querySelector('#result').innerText")
        .await;
    let winner = sim
        .game
        .view(mafia_rules::Audience::Judge)
        .result
        .unwrap()
        .winner;
    let expected = match winner {
        Some(mafia_rules::Team::Red) => "red team wins",
        Some(mafia_rules::Team::Black) => "black team wins",
        None => "Draw",
    };
    assert!(result.as_str().unwrap().contains(expected), "{result}");
    assert_same_as_simulation(&stack, id, &sim).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_of_each_rule_set_entered_by_taps_and_keys_ends_as_its_simulation() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let browser = Browser::launch(&bin).await;
    let page = browser.page().await;
    for (g, rules) in RuleSetId::ALL.into_iter().enumerate() {
        let g = g as u32 + 2;
        let sim = sim(rules, 20 + u64::from(g));
        let lang = if g % 2 == 0 { "ru" } else { "en" };
        log_in(&page, &stack, T3, lang).await;
        page.wait("document.body.dataset.screen === 'games'").await;
        open_by_form(&page, rules, 3, g, &nicknames(), &cards_of(&sim)).await;
        page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
            .await;
        if lang == "ru" {
            let shown = page
                .eval("document.querySelector('#prompt-box').textContent")
                .await;
            let shown = shown.as_str().unwrap();
            assert!(shown.chars().any(|c| ('а'..='я').contains(&c)), "{shown}");
            // A line that is no command is explained in Russian too.
            enter(&page, "f 11").await;
            page.wait("document.querySelector('#note').textContent.includes('не место')")
                .await;
            page.press("Escape").await;
        }
        let (mut game, _) = Game::new(sim.setup.clone(), 0);
        let tag = format!("{}-{lang}", rules.as_str());
        let mut shots = Shots::new(&tag);
        type_commands(
            &page,
            &mut game,
            &sim.commands,
            0..sim.commands.len(),
            Some(&mut shots),
            true,
        )
        .await;
        page.wait("document.body.dataset.over === 'true'").await;
        page.screenshot(&artifacts().join(format!("{tag}-999-result.png")))
            .await;
        assert_same_as_simulation(&stack, &format!("cup.main.r1.t3.g{g}"), &sim).await;
        // Back to the list for the next game.
        page.eval("location.hash = ''; true").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_clearly_and_changes_nothing() {
    let Some(bin) = browser_or_skip() else { return };
    let mut stack = Stack::start().await;
    let browser = Browser::launch(&bin).await;
    let page = browser.page().await;

    // Tokens that are no judge's, or nobody's.
    log_in(&page, &stack, BROADCAST, "en").await;
    page.wait("document.querySelector('#login-error').textContent.includes('judge')")
        .await;
    log_in(&page, &stack, "no-such-token", "en").await;
    page.wait("document.querySelector('#login-error').textContent.includes('Unknown token')")
        .await;

    // Table 4's game, opened by its own judge: table 3's token neither
    // lists nor opens it.
    log_in(&page, &stack, T4, "en").await;
    page.wait("document.body.dataset.screen === 'games'").await;
    let sim4 = sim(RuleSetId::Rfm, 4);
    open_by_form(&page, RuleSetId::Rfm, 4, 1, &nicknames(), &cards_of(&sim4)).await;
    page.wait("document.body.dataset.screen === 'game'").await;
    page.eval("localStorage.clear(); location.hash = ''; true")
        .await;
    log_in(&page, &stack, T3, "en").await;
    page.wait("document.body.dataset.screen === 'games'").await;
    page.wait("document.querySelector('#new-game')").await;
    let listed = page.eval("document.querySelector('#app').innerText").await;
    assert!(!listed.as_str().unwrap().contains("t4"), "{listed}");
    page.eval("document.querySelector('#game-id').value = 'cup.main.r1.t4.g1'; document.querySelector('#by-id').dispatchEvent(new Event('submit', {cancelable: true})); true").await;
    page.wait("document.querySelector('#new-error').textContent.includes('may not')")
        .await;
    // Nor opens a new game at table 4.
    open_by_form(&page, RuleSetId::Rfm, 4, 2, &nicknames(), &cards_of(&sim4)).await;
    page.wait("document.querySelector('#new-error').textContent.includes('may not')")
        .await;
    assert_eq!(
        stack
            .get_game("cup.main.r1.t4.g2")
            .await
            .unwrap_err()
            .code(),
        tonic::Code::NotFound
    );

    // Malformed seatings: a nickname twice, nine players. Nothing opens.
    let mut twice = nicknames();
    twice[6] = "player 2".into();
    open_by_form(&page, RuleSetId::Rfm, 3, 1, &twice, &cards_of(&sim4)).await;
    page.wait("document.querySelector('#new-error').textContent.includes('ten different nicknames (seat 7)')")
        .await;
    page.screenshot(&artifacts().join("bad-seating.png")).await;
    let mut nine = nicknames();
    nine[9] = String::new();
    open_by_form(&page, RuleSetId::Rfm, 3, 1, &nine, &cards_of(&sim4)).await;
    page.wait("document.querySelector('#new-error').textContent.includes('(seat 10)')")
        .await;
    assert_eq!(
        stack
            .get_game("cup.main.r1.t3.g1")
            .await
            .unwrap_err()
            .code(),
        tonic::Code::NotFound
    );

    // A proper game; the first step, then undo with its confirmation.
    open_by_form(&page, RuleSetId::Rfm, 3, 1, &nicknames(), &cards_of(&sim4)).await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
        .await;
    let first = page
        .eval("document.querySelector('#prompt-text').textContent")
        .await;
    enter(&page, "").await;
    page.wait("document.body.dataset.acked === '1'").await;
    page.press("Backspace").await;
    page.wait("!document.querySelector('#confirm').hidden")
        .await;
    page.screenshot(&artifacts().join("undo-confirm.png")).await;
    page.press("Escape").await;
    page.wait("document.querySelector('#confirm').hidden").await;
    assert_eq!(acked(&page).await, 1);
    enter(&page, "u").await;
    page.wait("!document.querySelector('#confirm').hidden")
        .await;
    page.type_text("y").await;
    page.wait("document.body.dataset.acked === '2'").await;
    assert_eq!(
        page.eval("document.querySelector('#prompt-text').textContent")
            .await,
        first,
        "undo takes the step back"
    );

    // A 10" tablet, upright.
    page.cmd(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 800, "height": 1280, "deviceScaleFactor": 1, "mobile": true}),
    )
    .await;
    page.screenshot(&artifacts().join("tablet-portrait.png"))
        .await;
    page.cmd("Emulation.clearDeviceMetricsOverride", json!({}))
        .await;

    // A second tab on the same game only watches.
    let url = page.eval("location.href").await;
    let second = browser.page().await;
    second.goto(url.as_str().unwrap()).await;
    second
        .wait(
            "document.body.dataset.screen === 'game' && document.body.dataset.readonly === 'true'",
        )
        .await;
    assert_eq!(
        second
            .eval("document.querySelector('#line').disabled")
            .await,
        json!(true)
    );
    second.screenshot(&artifacts().join("second-tab.png")).await;

    // A stale queue re-sending an acknowledged command (as a tab that lost
    // the ack would): acknowledged again, never applied twice.
    let before = stack.get_game("cup.main.r1.t3.g1").await.unwrap();
    drop(second);
    page.eval(r#"(() => { const k = "mafia.console.game.cup.main.r1.t3.g1";
        localStorage.setItem(k, JSON.stringify({acked: 0, queue: [{seq: 1, json: '{"type":"next_step"}', at: Date.now(), line: "⏎", sent: true}]}));
        return true; })()"#).await;
    page.reload().await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.queued === '0' && document.body.dataset.acked === '2'")
        .await;
    let after = stack.get_game("cup.main.r1.t3.g1").await.unwrap();
    assert_eq!(after.events.len(), before.events.len());
    assert_eq!(after.state.unwrap().last_client_seq, 2);

    // Queued while the referee is away: a command it refuses, and one
    // entered after it. Back online, the first shows its violation and the
    // second is dropped, shown, and never sent under a renumbered seq.
    stack.stop_referee().await;
    enter(&page, r#"{"type":"vote","nominee":1,"hands":[]}"#).await;
    enter(&page, r#"{"type":"next_step"}"#).await;
    page.wait("document.body.dataset.queued === '2'").await;
    stack.restart_referee().await;
    page.wait("document.body.dataset.queued === '0' && document.body.dataset.violation")
        .await;
    let shown = page
        .eval("document.querySelector('#violation').innerText")
        .await;
    assert!(shown.as_str().unwrap().contains("next_step"), "{shown}");
    page.wait("document.body.dataset.conn === 'online'").await;
    assert_eq!(acked(&page).await, 2);
    let last = stack.get_game("cup.main.r1.t3.g1").await.unwrap();
    assert_eq!(last.events.len(), before.events.len());
    page.screenshot(&artifacts().join("queued-refusal.png"))
        .await;
}

#[test]
fn the_consoles_first_load_fits_in_300_kib() {
    let bytes = mafia_gateway::console::first_load_bytes(&mafia_gateway::ConsoleConfig {
        referee_url: Some("http://127.0.0.1:50051".into()),
    });
    assert!(bytes <= 300 * 1024, "{bytes} bytes");
}
