//! `mafia judge`'s console against a real referee on loopback: a whole game
//! of each rule set typed in shorthand, with mistakes on the way.

mod common;

use std::sync::atomic::{AtomicI64, Ordering};

use common::*;
use mafia_judge_client::console::{run, Target};
use mafia_judge_client::keys::shorthand;
use mafia_proto::v1;
use mafia_record::Header;
use mafia_rules::sim::simulate;
use mafia_rules::{Game, RuleSetId, Team};
use rand::SeedableRng;

async fn a_whole_game_typed_in_shorthand_ends_as_its_replay(b: Backend) {
    let r = start(b.log().await, options()).await;
    for (i, rules) in RuleSetId::ALL.into_iter().enumerate() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(40 + i as u64);
        let sim = simulate(rules, &mut rng, 1_000);
        let id = format!("cup.console.r1.t3.g{}", i + 1).parse().unwrap();
        let mut header = Header::simulated(rules, &id, 0);
        header.deal = sim.setup.deal.clone();
        // What the judge types: each command's shorthand at its prompt, with
        // a typo and a refused command early on that must change nothing.
        let (mut game, _) = Game::new(sim.setup.clone(), 0);
        let mut input = String::from("f 11\n{\"type\":\"vote\",\"nominee\":1,\"hands\":[]}\n?\n");
        for (at, cmd) in &sim.commands {
            input.push_str(&shorthand(cmd, Some(&game.expected().expect)));
            input.push('\n');
            game.apply(cmd, *at).unwrap();
        }
        let clock = AtomicI64::new(1_000);
        let now = || clock.fetch_add(1_000, Ordering::Relaxed);
        let mut out = Vec::new();
        let report = run(
            referee(vec![url(&r)], TABLE3),
            Target::Open(Box::new(header)),
            &mut input.as_bytes(),
            &mut out,
            &now,
        )
        .await
        .unwrap();
        let printed = String::from_utf8(out).unwrap();
        assert!(report.over, "{rules:?}: {printed}");
        assert_eq!(report.accepted, sim.commands.len(), "{rules:?}: {printed}");
        assert_eq!((report.bad_lines, report.rejected), (1, 1), "{printed}");
        assert!(printed.contains("not a seat: \"11\""), "{printed}");
        assert!(printed.contains("✗ wrong_phase"), "{printed}");
        // The referee's copy of the game ends as the simulation did.
        let mut c = raw(&r).await;
        let stored = c
            .get_game(with_token(
                v1::GetGameRequest {
                    game_id: report.game_id.to_string(),
                    audience: v1::Audience::Judge as i32,
                },
                TABLE3,
            ))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(stored.events.len(), sim.events.len(), "{rules:?}");
        let state = stored.state.unwrap();
        assert!(state.over);
        let want = match sim.game.result().map(|o| o.winner) {
            Some(Some(Team::Red)) => "red",
            Some(Some(Team::Black)) => "black",
            _ => "draw",
        };
        assert_eq!(state.winner, want, "{rules:?}");
    }
    r.shutdown().await;
}

both_backends!(a_whole_game_typed_in_shorthand_ends_as_its_replay);
