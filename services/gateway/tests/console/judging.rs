//! How a judge works the console under time pressure: keyboard only,
//! correcting what the referee refused, a hall's Wi-Fi that goes silent,
//! the keys on screen.

use std::path::Path;

use crate::cdp::{Browser, Page};
use crate::harness::*;
use mafia_rules::sim::SimulatedGame;
use mafia_rules::{Expect, Game, RuleSetId, Seat};
use serde_json::json;

/// Table 3's judge at the first speech of a simulated game of `rules`.
struct FirstSpeech {
    page: Page,
    sim: SimulatedGame,
    /// The game as typed so far.
    game: Game,
    /// How many of its commands were typed (all acknowledged).
    typed: usize,
    speaker: Seat,
}

async fn at_first_speech(bin: &Path, stack: &Stack, rules: RuleSetId, seed: u64) -> FirstSpeech {
    let page = Browser::launch(bin).await.page().await;
    let sim = sim(rules, seed);
    open_game_of_table_3(&page, stack, rules, 1, &sim, "en").await;
    let (mut game, _) = Game::new(sim.setup.clone(), 0);
    let typed = type_until_speech(&page, &mut game, &sim.commands, 0).await;
    let Expect::Speech { seat: speaker, .. } = game.expected().expect else {
        unreachable!("type_until_speech stops at a speech")
    };
    FirstSpeech {
        page,
        sim,
        game,
        typed,
        speaker,
    }
}

/// Keyboard only: a button reached with Tab is pressed by Enter or Space
/// (Foul, then Undo), not taken for the line's Enter (which ended the
/// speech) or typed into the line (Space); and in foul mode, whose prompt
/// asks "Foul: Seat?", a typed seat gets the foul, not a nomination.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_focused_button_answers_enter_and_space_and_a_seat_typed_in_foul_mode_gets_the_foul() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let FirstSpeech {
        page,
        typed: i,
        speaker,
        ..
    } = at_first_speech(&bin, &stack, RuleSetId::Rfm, 31).await;
    let target = speaker.number() % 10 + 1;

    // From the line, Shift+Tab reaches Undo, then Foul.
    page.wait("document.activeElement === document.querySelector('#line')")
        .await;
    page.press_with("Tab", true).await;
    page.press_with("Tab", true).await;
    assert_eq!(
        page.eval("document.activeElement.id").await,
        json!("b-foul")
    );
    page.press("Enter").await;
    page.wait("window.__console.mode === 'foul'").await;
    assert_eq!(page.eval("document.body.dataset.queued").await, json!("0"));
    assert_eq!(acked(&page).await, i as u64, "Enter on Foul sent a command");

    enter(&page, &target.to_string()).await;
    page.wait(&format!("document.body.dataset.acked === '{}'", i + 1))
        .await;
    let view = page.eval("window.__console.view").await;
    assert_eq!(
        view["seats"][target as usize - 1]["fouls"],
        json!(1),
        "{view}"
    );
    assert_eq!(
        view["nominees"],
        json!([]),
        "the seat typed for a foul was nominated"
    );

    // Space on Undo asks to confirm the undo; Escape says no.
    page.wait("document.activeElement === document.querySelector('#line')")
        .await;
    page.press_with("Tab", true).await;
    assert_eq!(
        page.eval("document.activeElement.id").await,
        json!("b-undo")
    );
    page.press(" ").await;
    page.wait("!document.querySelector('#confirm').hidden")
        .await;
    assert_eq!(
        page.eval("document.querySelector('#line').value").await,
        json!("")
    );
    page.press("Escape").await;
    page.wait("document.querySelector('#confirm').hidden").await;
    assert_eq!(acked(&page).await, i as u64 + 1);
    // Answered, the keys are the line's again: the next Enter ends the
    // speech, it does not press Undo once more.
    assert_eq!(page.eval("document.activeElement.id").await, json!("line"));
    page.press("Enter").await;
    page.wait(&format!("document.body.dataset.acked === '{}'", i + 2))
        .await;
    assert_eq!(
        page.eval("document.querySelector('#confirm').hidden").await,
        json!(true)
    );
    assert_eq!(page.problems(&[]), Vec::<String>::new());
}

/// A typed line the referee refuses is shown with its code and clause;
/// the line is left free for what comes next, and ↑ brings the refused
/// line back, caret at its end, to be corrected rather than typed again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_line_the_referee_refuses_comes_back_with_arrow_up_for_correction() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let FirstSpeech {
        page,
        typed,
        speaker,
        ..
    } = at_first_speech(&bin, &stack, RuleSetId::Ua, 32).await;
    let i = typed as u64;
    // A seat removed, then nominated by mistake: the referee refuses.
    let (gone, meant) = (speaker.number() % 10 + 1, (speaker.number() + 1) % 10 + 1);
    enter(&page, &format!("dq {gone}")).await;
    page.wait(&format!("document.body.dataset.acked === '{}'", i + 1))
        .await;
    let line = format!("n {} {gone}", speaker.number());
    enter(&page, &line).await;
    page.wait("document.body.dataset.violation").await;
    let shown = page
        .eval("document.querySelector('#violation').innerText")
        .await;
    let clause = page
        .eval("document.querySelector('#violation .clause').textContent")
        .await;
    assert!(clause.as_str().unwrap().contains('§'), "{shown}");
    assert_eq!(
        page.eval("document.querySelector('#line').value").await,
        json!("")
    );
    page.press("ArrowUp").await;
    assert_eq!(
        page.eval("[document.querySelector('#line').value, document.querySelector('#line').selectionStart]")
            .await,
        json!([line, line.chars().count()]),
        "↑ did not bring the refused line back: {shown}"
    );
    // Corrected in place: the last seat.
    for _ in 0..gone.to_string().len() {
        page.press("Backspace").await;
    }
    enter(&page, &meant.to_string()).await;
    page.wait(&format!("document.body.dataset.acked === '{}'", i + 2))
        .await;
    assert_eq!(
        page.eval("window.__console.view.nominees").await,
        json!([meant])
    );
    assert_eq!(page.problems(&[]), Vec::<String>::new());
}

/// The hall's Wi-Fi goes silent mid-game: requests still reach the referee
/// but no answer comes back, and the connections neither answer nor
/// close. The console gives up a call that hears nothing (offline, shown),
/// keeps its commands queued and sends them again; once the network is
/// back every one is acknowledged and the game ends as its simulation did:
/// nothing lost, nothing applied twice, no conflict shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_goes_silent_is_given_up_and_its_commands_go_through_once_when_it_is_back(
) {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start_behind_proxy().await;
    let proxy = stack.proxy.as_ref().unwrap();
    let FirstSpeech {
        page,
        sim,
        mut game,
        typed: i,
        ..
    } = at_first_speech(&bin, &stack, RuleSetId::Rfm, 33).await;

    proxy.hold();
    enter_queued(&page, &mut game, &sim.commands[i..i + 3]).await;
    page.wait("document.body.dataset.conn === 'offline'").await;
    assert_eq!(page.eval("document.body.dataset.queued").await, json!("3"));
    proxy.relay();
    page.wait(&format!(
        "document.body.dataset.queued === '0' && document.body.dataset.acked === '{}'",
        i + 3
    ))
    .await;
    assert_eq!(
        page.eval("document.querySelector('#note').hidden").await,
        json!(true),
        "{}",
        page.eval("document.querySelector('#note').textContent")
            .await
    );
    type_commands(
        &page,
        &mut game,
        &sim.commands,
        i + 3..sim.commands.len(),
        None,
        false,
    )
    .await;
    assert_same_as_simulation(&stack, "cup.main.r1.t3.g1", &sim).await;
}

/// Every shorthand the line takes is on the screen's legend, in both
/// languages (the club's roll-call ballot `b` and "mafia, shoot" `ms`
/// were missing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legend_on_screen_names_every_shorthand_the_line_takes() {
    let Some(bin) = browser_or_skip() else { return };
    let source = include_str!("../../assets/console.js");
    let parse = &source[source.find("export function parseLine").unwrap()..];
    let parse = &parse[..parse.find("\n}\n").unwrap()];
    let heads: Vec<&str> = parse
        .split("case \"")
        .skip(1)
        .map(|c| &c[..c.find('"').unwrap()])
        .collect();
    assert!(heads.contains(&"bm"), "{heads:?}");
    let stack = Stack::start().await;
    let browser = Browser::launch(&bin).await;
    let page = browser.page().await;
    let sim = sim(RuleSetId::Club, 34);
    for (game, lang) in [(1, "en"), (2, "ru")] {
        open_game_of_table_3(&page, &stack, RuleSetId::Club, game, &sim, lang).await;
        let keys = page
            .eval(
                "[...document.querySelectorAll('#legend dt')].map((d) => d.textContent).join(' ')",
            )
            .await;
        let keys: Vec<&str> = keys
            .as_str()
            .unwrap()
            .split(|c: char| c.is_whitespace() || c == '·' || c == '|')
            .collect();
        for head in &heads {
            assert!(
                keys.contains(head),
                "{lang}: `{head}` is not in the legend {keys:?}"
            );
        }
        page.eval("location.hash = ''; true").await;
    }
    assert_eq!(page.problems(&[]), Vec::<String>::new());
}

/// minsk2017 takes the best move during the first victim's last words
/// (§8.3), not as a step of its own: `bm A B C` typed then is that best
/// move, as the legend says, not "no best move is due".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_best_move_typed_in_minsk2017_last_words_is_taken() {
    let Some(bin) = browser_or_skip() else { return };
    let (sim, at) = (50..)
        .map(|seed| sim(RuleSetId::Minsk2017, seed))
        .find_map(|s| {
            let at = s
                .commands
                .iter()
                .position(|(_, c)| matches!(c, mafia_rules::Command::BestMove { .. }))?;
            Some((s, at))
        })
        .unwrap();
    let mafia_rules::Command::BestMove { named, .. } = &sim.commands[at].1 else {
        unreachable!()
    };
    let line = format!(
        "bm {}",
        named
            .iter()
            .map(|s| s.number().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let stack = Stack::start().await;
    let page = Browser::launch(&bin).await.page().await;
    open_game_of_table_3(&page, &stack, RuleSetId::Minsk2017, 1, &sim, "en").await;
    let (mut game, _) = Game::new(sim.setup.clone(), 0);
    type_commands(&page, &mut game, &sim.commands, 0..at, None, false).await;
    assert!(
        matches!(game.expected().expect, Expect::LastWords { .. }),
        "{:?}",
        game.expected()
    );
    enter(&page, line.trim_end()).await;
    page.wait(&format!(
        "document.body.dataset.acked === '{}' || document.querySelector('#note').textContent",
        at + 1
    ))
    .await;
    assert_eq!(
        page.eval("document.querySelector('#note').textContent")
            .await,
        json!(""),
        "{line}"
    );
    page.wait(&format!("document.body.dataset.acked === '{}'", at + 1))
        .await;
    game.apply(&sim.commands[at].1, sim.commands[at].0).unwrap();
    type_commands(
        &page,
        &mut game,
        &sim.commands,
        at + 1..sim.commands.len(),
        None,
        false,
    )
    .await;
    assert_same_as_simulation(&stack, "cup.main.r1.t3.g1", &sim).await;
}

/// A tapped seat stands for the prompt's command (a nomination by the
/// speaker, a check…), and the prompt on screen is out of date while a
/// command waits for the referee's ack. So a tap then is refused on the
/// page, as a typed line naming no speaker is, instead of queueing a
/// guess the referee refuses later, taking the commands entered after it
/// with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_tapped_while_a_command_awaits_its_ack_is_not_queued_as_a_guess() {
    let Some(bin) = browser_or_skip() else { return };
    let mut stack = Stack::start().await;
    let FirstSpeech {
        page,
        typed: i,
        speaker,
        ..
    } = at_first_speech(&bin, &stack, RuleSetId::Rfm, 35).await;
    let target = (speaker.number() + 4) % 10 + 1;

    stack.stop_referee().await;
    // The speech ends; the next speaker nominates: the judge taps.
    page.click("#b-next").await;
    page.wait("document.body.dataset.queued === '1'").await;
    page.click(&format!("[data-seat=\"{target}\"]")).await;
    page.wait("document.querySelector('#note').textContent.includes('Waiting for the referee')")
        .await;
    assert_eq!(page.eval("document.body.dataset.queued").await, json!("1"));
    enter(&page, "f 4").await;
    page.wait("document.body.dataset.queued === '2'").await;

    stack.restart_referee().await;
    page.wait(&format!(
        "document.body.dataset.queued === '0' && document.body.dataset.acked === '{}'",
        i + 2
    ))
    .await;
    assert_eq!(
        page.eval("document.body.dataset.violation").await,
        json!("")
    );
    let view = page.eval("window.__console.view").await;
    assert_eq!(view["nominees"], json!([]), "{view}");
    assert_eq!(view["seats"][3]["fouls"], json!(1), "{view}");
}

/// A tournament's games are opened on the referee when the organiser opens
/// the round, minutes before the table sits down; the first step's time
/// (the black team's minute) runs from when the judge has it on screen,
/// not from the opening: its timer showed 0:00, flashing, and beeped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_steps_timer_starts_when_the_judge_opens_a_game_opened_earlier() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let sim = sim(RuleSetId::Rfm, 36);
    let opened = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        - 10 * 60 * 1000;
    stack.open_on_referee(RuleSetId::Rfm, 1, &sim, opened).await;
    let (game, _) = Game::new(sim.setup.clone(), 0);
    let secs = game
        .expected()
        .secs
        .expect("rfm's meeting has a time limit");
    let page = Browser::launch(&bin).await.page().await;
    log_in(&page, &stack, T3, "en").await;
    page.wait("document.body.dataset.screen === 'games'").await;
    page.click("button.game[data-game=\"cup.main.r1.t3.g1\"]")
        .await;
    let shown = page
        .wait("document.body.dataset.screen === 'game' && document.getElementById('timer').textContent")
        .await;
    let (m, s) = shown.as_str().unwrap().split_once(':').unwrap();
    let left = m.parse::<u64>().unwrap() * 60 + s.parse::<u64>().unwrap();
    // A minute's step, just shown: far from its end (the page took well
    // under 40 s to show it).
    assert!(
        left > u64::from(secs) - 40,
        "{shown} left of {secs} s on a step the judge has just opened"
    );
    assert_eq!(
        page.eval("document.getElementById('timer').className")
            .await,
        json!("timer")
    );
}

/// A judge judges a round's games one after another in the same tab: from
/// a game's screen he gets back to his games (☰, by keys too) without
/// logging in again, opens the next, and coming back to the first he
/// judges it again, not only watches (this tab let go of its lock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_goes_from_a_game_back_to_his_games_and_judges_the_next_in_the_same_tab() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let FirstSpeech { page, typed, .. } = at_first_speech(&bin, &stack, RuleSetId::Rfm, 37).await;
    page.click("#games").await;
    page.wait("document.body.dataset.screen === 'games'").await;
    let second = sim(RuleSetId::Ua, 38);
    open_by_form(&page, RuleSetId::Ua, 3, 2, &nicknames(), &cards_of(&second)).await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
        .await;
    assert!(page
        .eval("location.hash")
        .await
        .as_str()
        .unwrap()
        .contains("t3.g2"));

    // Back by keys: Tab to ☰, Enter; the first game from the list.
    page.wait("document.activeElement === document.querySelector('#line')")
        .await;
    page.eval("document.querySelector('#logout').focus(); true")
        .await;
    page.press_with("Tab", true).await;
    page.press_with("Tab", true).await;
    assert_eq!(page.eval("document.activeElement.id").await, json!("games"));
    page.press("Enter").await;
    page.wait("document.querySelector('button.game[data-game=\"cup.main.r1.t3.g1\"]')")
        .await;
    page.click("button.game[data-game=\"cup.main.r1.t3.g1\"]")
        .await;
    page.wait(&format!(
        "document.body.dataset.screen === 'game' && document.body.dataset.acked === '{typed}'"
    ))
    .await;
    // The lock is this tab's again: it judges.
    page.wait("document.body.dataset.expect").await;
    enter(&page, "f 2").await;
    page.wait(&format!("document.body.dataset.acked === '{}'", typed + 1))
        .await;
    assert_eq!(
        page.eval("document.body.dataset.readonly").await,
        json!("false")
    );
    assert_eq!(page.problems(&[]), Vec::<String>::new());
}

/// A refusal's clause is cited as the rulebook the judge knows ("ua
/// §3.11"), not by the number of its file among the sources ("003
/// §3.11"), which means nothing at the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusals_clause_names_its_rulebook() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start().await;
    let FirstSpeech { page, speaker, .. } = at_first_speech(&bin, &stack, RuleSetId::Ua, 39).await;
    let other = speaker.number() % 10 + 1;
    enter(&page, &format!("n {other} {}", other % 10 + 1)).await;
    let clause = page
        .wait("document.body.dataset.violation && document.querySelector('#violation .clause').textContent")
        .await;
    assert!(clause.as_str().unwrap().starts_with("ua §"), "{clause}");
}

/// The page reloaded while the referee is away (a tablet's browser
/// restarted in a Wi-Fi gap) shows the game as last acknowledged, seats
/// and prompt, and takes commands into its queue; it showed an empty
/// screen and refused every command until the referee answered again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_the_referee_is_away_shows_the_last_state_and_queues_commands() {
    let Some(bin) = browser_or_skip() else { return };
    let mut stack = Stack::start().await;
    let FirstSpeech {
        page,
        typed,
        speaker,
        ..
    } = at_first_speech(&bin, &stack, RuleSetId::Classic, 40).await;
    let prompt = page
        .eval("document.querySelector('#prompt-text').textContent")
        .await;
    stack.stop_referee().await;
    page.reload().await;
    page.wait("document.body.dataset.screen === 'game' && document.querySelectorAll('#seats [data-seat]').length === 10")
        .await;
    assert_eq!(
        page.eval("document.querySelector('#prompt-text').textContent")
            .await,
        prompt
    );
    let foul = speaker.number() % 10 + 1;
    enter(&page, &format!("f {foul}")).await;
    page.wait(
        "document.body.dataset.queued === '1' || document.querySelector('#note').textContent",
    )
    .await;
    assert_eq!(
        page.eval("[document.body.dataset.queued, document.querySelector('#note').textContent]")
            .await,
        json!(["1", ""])
    );
    stack.restart_referee().await;
    page.wait(&format!(
        "document.body.dataset.queued === '0' && document.body.dataset.acked === '{}'",
        typed + 1
    ))
    .await;
    assert_eq!(
        page.eval(&format!("window.__console.view.seats[{}].fouls", foul - 1))
            .await,
        json!(1)
    );
}

/// The post-game form of a tournament game is asked for as the game ends;
/// when that request fails (the hall's Wi-Fi, a gateway restarting) it is
/// asked for again, not given up: the form never came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_post_game_form_comes_after_its_first_request_failed() {
    let Some(bin) = browser_or_skip() else { return };
    let stack = Stack::start_with_scoring().await;
    cup_with_table_3s_game(&stack).await;
    let sim = (40..)
        .map(|seed| sim(RuleSetId::Rfm, seed))
        .find(|s| s.game.result().is_some_and(|r| r.winner.is_some()))
        .unwrap();
    let page = Browser::launch(&bin).await.page().await;
    log_in(&page, &stack, T3, "en").await;
    page.wait("document.querySelector('#assigned .waiting[data-game=\"cup.main.r1.t3.g1\"]')")
        .await;
    open_by_form(&page, RuleSetId::Rfm, 3, 1, &nicknames(), &cards_of(&sim)).await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
        .await;
    // The form is asked for once the result is known (before the final
    // last words end).
    page.cmd("Network.enable", json!({})).await;
    page.cmd(
        "Network.setBlockedURLs",
        json!({"urls": ["*/judge-console/api/inputs/*"]}),
    )
    .await;
    let (mut game, _) = Game::new(sim.setup.clone(), 0);
    let n = sim.commands.len();
    type_commands(&page, &mut game, &sim.commands, 0..n, None, false).await;
    page.wait("document.body.dataset.over === 'true' && window.__console.post && !window.__console.post.loading")
        .await;
    page.cmd("Network.setBlockedURLs", json!({"urls": []}))
        .await;
    page.wait("document.querySelector('form#post')").await;
}
