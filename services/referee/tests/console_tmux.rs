//! The real `mafia judge` binary on its full screen, driven through tmux
//! against a real referee on loopback: one whole game typed key by key,
//! the winner read off the screen, the referee's events equal to the
//! replay. Panes are kept under $CARGO_TARGET_DIR/tmux-console/.
//! Needs the binary built (`cargo build -p mafia-cli`); skips only when
//! tmux is absent and MAFIA_REQUIRE_TMUX is unset.

mod common;

use std::path::PathBuf;
use std::process::Command as Proc;

use common::*;
use mafia_judge_client::keys::shorthand;
use mafia_proto::v1;
use mafia_record::Header;
use mafia_rules::sim::simulate;
use mafia_rules::{Game, RuleSetId, Team};
use rand::SeedableRng;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

fn tmux(args: &[&str]) -> String {
    let out = Proc::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_on_the_full_screen_under_tmux_ends_as_its_replay() {
    if Proc::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_TMUX").is_none(),
            "MAFIA_REQUIRE_TMUX is set but tmux is missing"
        );
        eprintln!("skipped: no tmux");
        return;
    }
    let bin = target_dir().join("debug/mafia");
    assert!(
        bin.exists(),
        "build the binary first: cargo build -p mafia-cli ({})",
        bin.display()
    );
    let artifacts = target_dir().join("tmux-console");
    std::fs::create_dir_all(&artifacts).unwrap();

    let backend = Backend::embedded();
    let r = start(backend.log().await, options()).await;
    let rules = RuleSetId::ALL[0];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(40);
    let sim = simulate(rules, &mut rng, 1_000);
    let id = "cup.tmux.r1.t3.g1".parse().unwrap();
    let mut header = Header::simulated(rules, &id, 0);
    header.deal = sim.setup.deal.clone();
    let record = artifacts.join("game.record");
    std::fs::write(&record, serde_json::to_string(&header).unwrap() + "\n").unwrap();

    let session = format!("mafia-console-{}", std::process::id());
    let cmd = format!(
        "{} judge --referee {} --token {TABLE3} --open {}; sleep 600",
        bin.display(),
        url(&r),
        record.display()
    );
    tmux(&[
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "50",
        "-s",
        &session,
        &cmd,
    ]);
    let pane = |name: &str| {
        let text = tmux(&["capture-pane", "-p", "-t", &session]);
        std::fs::write(artifacts.join(name), &text).unwrap();
        text
    };
    // Waits for the screen to show `what` (the binary runs on its own).
    let wait_for = |what: &str, name: &str| {
        for _ in 0..600 {
            let text = pane(name);
            if text.contains(what) {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the screen never showed {what:?}:\n{}", pane(name));
    };
    wait_for(" keys ", "start.txt");
    let (mut game, _) = Game::new(sim.setup.clone(), 0);
    for (at, cmd) in &sim.commands {
        let line = shorthand(cmd, Some(&game.expected().expect));
        if !line.is_empty() {
            tmux(&["send-keys", "-t", &session, "-l", &line]);
        }
        tmux(&["send-keys", "-t", &session, "Enter"]);
        if line == "u" {
            // Undo asks first; any other key would cancel it (and be eaten).
            tmux(&["send-keys", "-t", &session, "-l", "y"]);
        }
        game.apply(cmd, *at).unwrap();
    }
    let want = match sim.game.result().map(|o| o.winner) {
        Some(Some(Team::Red)) => "red",
        Some(Some(Team::Black)) => "black",
        _ => "draw",
    };
    let end = wait_for("GAME OVER", "end.txt");
    tmux(&["kill-session", "-t", &session]);
    assert!(end.contains(&format!("winner: {want}")), "{end}");

    let mut c = raw(&r).await;
    let game_id = mafia_record::Header::game_id(&header).unwrap().to_string();
    let stored = c
        .get_game(with_token(
            v1::GetGameRequest {
                game_id,
                audience: v1::Audience::Judge as i32,
            },
            TABLE3,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stored.events.len(), sim.events.len());
    assert_eq!(stored.state.unwrap().winner, want);
    r.shutdown().await;
}
