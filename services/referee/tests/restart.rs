//! A referee restarting under a judge: the judge's session resumes by
//! itself and nothing is lost or doubled.

mod common;

use common::*;
use mafia_judge_client::JudgeSession;
use mafia_proto::convert::request_from_header;

async fn a_judge_resumes_after_the_referee_restarts_on_the_same_store(b: Backend) {
    let r = start(b.log().await, options()).await;
    let addr = r.addr.to_string();
    let (h, cmds, n_events) = simulated(3, 77);
    let mut c = raw(&r).await;
    let opened = c
        .open_game(with_token(
            request_from_header(&h, 1_700_000_000_000),
            TABLE3,
        ))
        .await
        .unwrap()
        .into_inner();
    drop(c);
    let mut s = JudgeSession::attach(
        referee(vec![format!("http://{addr}")], TABLE3),
        &opened.game_id.parse().unwrap(),
    )
    .await
    .unwrap();
    let half = cmds.len() / 2;
    for (at, cmd) in &cmds[..half] {
        assert!(s.submit(*at, cmd).await.unwrap().is_ok());
    }
    // Drop the server and start a new one on the same store and port.
    r.shutdown().await;
    let r = start_on(&addr, b.log().await, options()).await;
    for (at, cmd) in &cmds[half..] {
        assert!(s.submit(*at, cmd).await.unwrap().is_ok());
    }
    assert!(s.reconnects() >= 1);
    let state = s.state().unwrap();
    assert!(state.over);
    assert_eq!(state.seq, n_events as u64);
    assert_eq!(state.last_client_seq, cmds.len() as u64);
    drop(s);
    r.shutdown().await;
}

both_backends!(a_judge_resumes_after_the_referee_restarts_on_the_same_store);
