//! Who gets what from the referee: hidden facts (roles, the night's
//! actions, the judge's prompt) only for the judges of the game, over real
//! loopback gRPC.

mod common;

use common::*;
use mafia_proto::convert::request_from_header;
use mafia_proto::v1;
use serde_json::Value;
use tonic::Code;

/// Opens table 3's game as its judge and plays it until the judge's view
/// holds the night's kill (the shot is fired, the morning not yet come).
/// Returns the opening request and the game id.
async fn into_a_night_with_a_kill(
    r: &mafia_referee::RunningReferee,
    seed: u64,
) -> (v1::OpenGameRequest, String) {
    let (h, cmds, _) = simulated(3, seed);
    let req = request_from_header(&h, 1);
    let mut c = raw(r).await;
    let game_id = c
        .open_game(with_token(req.clone(), TABLE3))
        .await
        .unwrap()
        .into_inner()
        .game_id;
    let (tx, mut replies) = judge_with(&mut c, TABLE3).await;
    tx.send(attach(&game_id, 0)).await.unwrap();
    replies.message().await.unwrap().unwrap();
    for (i, (at, cmd)) in cmds.iter().enumerate() {
        tx.send(submit(i as u64 + 1, *at, cmd)).await.unwrap();
        let Some(v1::referee_reply::Kind::Accepted(a)) =
            replies.message().await.unwrap().unwrap().kind
        else {
            panic!("command {i} was not accepted");
        };
        let view: Value = serde_json::from_str(&a.state.unwrap().view_json).unwrap();
        if !view["night_kill"].is_null() {
            return (req, game_id);
        }
    }
    panic!("the game had no night with a kill");
}

/// What the judge alone may know, found in a state.
fn hidden_facts(state: &v1::GameState) -> Vec<String> {
    let view: Value = serde_json::from_str(&state.view_json).unwrap();
    let mut found = Vec::new();
    if !state.prompt_json.is_empty() {
        found.push(format!("prompt {}", state.prompt_json));
    }
    for key in ["night_kill", "step"] {
        if !view[key].is_null() {
            found.push(format!("{key} {}", view[key]));
        }
    }
    if view["shooting_started"] == true {
        found.push("shooting_started".into());
    }
    let roles = view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["role"].is_null())
        .count();
    if roles > 0 {
        found.push(format!("{roles} roles"));
    }
    found
}

/// The organiser opens a round's games but watches them as the broadcast
/// does (delayed, at the gateway): opening a running game again must not
/// hand it the judge's view of the night in progress.
async fn an_organiser_opening_a_running_game_is_shown_no_hidden_fact(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (req, game_id) = into_a_night_with_a_kill(&r, 25).await;
    let mut c = raw(&r).await;
    let judge = c
        .open_game(with_token(req.clone(), TABLE3))
        .await
        .unwrap()
        .into_inner();
    assert!(!hidden_facts(judge.state.as_ref().unwrap()).is_empty());
    let again = c
        .open_game(with_token(req, ORGANISER))
        .await
        .unwrap()
        .into_inner();
    assert!(!again.created);
    assert_eq!(again.game_id, game_id);
    let state = again.state.unwrap();
    assert_eq!(hidden_facts(&state), Vec::<String>::new());
    assert_eq!(state.seq, judge.state.unwrap().seq);
    r.shutdown().await;
}

/// Neither the organiser, nor the broadcast, nor a judge of another table
/// reads, watches or judges a game; the table's own judge does.
async fn only_the_games_judges_read_watch_or_judge_it(b: Backend) {
    let r = start(b.log().await, options()).await;
    let (_, game_id) = into_a_night_with_a_kill(&r, 26).await;
    let mut c = raw(&r).await;
    for token in [ORGANISER, BROADCAST] {
        let get = v1::GetGameRequest {
            game_id: game_id.clone(),
            audience: v1::Audience::Public as i32,
        };
        let err = c.get_game(with_token(get, token)).await.unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "{token}");
        let watch = v1::WatchGameRequest {
            game_id: game_id.clone(),
            audience: v1::Audience::Public as i32,
            from_seq: 1,
        };
        let err = c.watch_game(with_token(watch, token)).await.unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "{token}");
    }
    // A game of table 4: the table-3 judge may not watch it either.
    let (h, _, _) = simulated(4, 27);
    let opened = c
        .open_game(with_token(request_from_header(&h, 1), CHIEF))
        .await
        .unwrap()
        .into_inner();
    let watch = v1::WatchGameRequest {
        game_id: opened.game_id,
        audience: v1::Audience::Judge as i32,
        from_seq: 1,
    };
    let err = c.watch_game(with_token(watch, TABLE3)).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let watch = v1::WatchGameRequest {
        game_id,
        audience: v1::Audience::Judge as i32,
        from_seq: 1,
    };
    assert!(c.watch_game(with_token(watch, TABLE3)).await.is_ok());
    r.shutdown().await;
}

/// A game dealt from the physical tray: its header names the cards. An
/// organiser knows every other field of it (the seating, the rules), so
/// if reopening it answered one way for the right cards and another for
/// wrong ones, the organiser could try deals until the referee said yes.
async fn reopening_a_game_tells_an_organiser_nothing_of_its_cards(b: Backend) {
    let r = start(b.log().await, options()).await;
    let mut c = raw(&r).await;
    let mut h = header(3, mafia_rules::RuleSetId::Rfm, 1);
    let cards = h.setup().unwrap().roles().to_vec();
    h.deal = mafia_rules::Deal::Cards(cards.clone());
    c.open_game(with_token(request_from_header(&h, 1), TABLE3))
        .await
        .unwrap();
    let mut wrong = cards.clone();
    let other = (1..wrong.len()).find(|&i| wrong[i] != wrong[0]).unwrap();
    wrong.swap(0, other);
    let mut guess = h.clone();
    guess.deal = mafia_rules::Deal::Cards(wrong);
    let mut answers = Vec::new();
    for h in [&guess, &h] {
        let a = c
            .open_game(with_token(request_from_header(h, 1), ORGANISER))
            .await
            .map(|r| {
                let r = r.into_inner();
                (r.game_id, r.created, r.state.unwrap().view_json)
            })
            .map_err(|e| e.code());
        answers.push(a);
    }
    assert_eq!(answers[0], answers[1], "a wrong and the right deal");
    assert!(answers[1].is_ok());
    // What the organiser does know must still agree.
    let mut moved = h.clone();
    moved.judge = "someone else".into();
    let err = c
        .open_game(with_token(request_from_header(&moved, 1), ORGANISER))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    // The game's judges know the cards: for them a wrong deal conflicts.
    let err = c
        .open_game(with_token(request_from_header(&guess, 1), TABLE3))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    r.shutdown().await;
}

both_backends!(
    reopening_a_game_tells_an_organiser_nothing_of_its_cards,
    an_organiser_opening_a_running_game_is_shown_no_hidden_fact,
    only_the_games_judges_read_watch_or_judge_it,
);
