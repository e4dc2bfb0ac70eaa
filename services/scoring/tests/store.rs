//! Two writers on one log: the expected-seq append refuses a stale writer,
//! which catches up and decides again against the newer state.

use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_record::TournamentId;
use mafia_rules::RuleSetId;
use mafia_scoring::{Store, StoreError};
use mafia_tournament::{
    Actor, Player, PlayerId, Scheme, TournamentCommand, TournamentError, TournamentSpec,
};
use std::sync::Arc;

fn register(id: &str) -> TournamentCommand {
    TournamentCommand::RegisterPlayer {
        player: Player {
            id: PlayerId::new(id),
            nickname: id.to_uppercase(),
            club: None,
            photo_url: None,
        },
    }
}

async fn run(store: &Store, id: &TournamentId, cmd: TournamentCommand) -> Result<u64, StoreError> {
    store
        .command(id, |t| Ok(t.command(&cmd, &Actor::Organiser, 1_000)?))
        .await
        .map(|(_, v)| v)
}

#[tokio::test]
async fn a_stale_writer_catches_up_and_is_judged_against_the_newer_state() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> =
        Arc::new(EmbeddedLog::open(dir.path().join("e.redb")).await.unwrap());
    let a = Store::new(log.clone());
    let b = Store::new(log.clone());
    let id = TournamentId::new("cup").unwrap();
    a.create(
        TournamentSpec {
            id: id.clone(),
            name: "Cup".into(),
            rules: RuleSetId::Rfm,
            rule_overrides: serde_json::Value::Null,
            scheme: Scheme::rfm(),
        },
        &Actor::Organiser,
        1_000,
    )
    .await
    .unwrap();
    b.get(&id).await.unwrap(); // b folds now and goes stale below
    run(&a, &id, register("p1")).await.unwrap();
    // b's append at seq 0 conflicts; it reads seq 1 and registers p2 after it.
    assert_eq!(run(&b, &id, register("p2")).await.unwrap(), 3);
    // a is stale now: registering p2 again is judged against b's write.
    let e = run(&a, &id, register("p2")).await.unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::Refused(TournamentError::PlayerAlreadyRegistered(_))
        ),
        "{e}"
    );
    assert_eq!(log.last_seq("tournament.cup").await.unwrap(), 2);
    // A creation under a taken id is refused.
    let again = a
        .create(
            TournamentSpec {
                id: id.clone(),
                name: "Cup".into(),
                rules: RuleSetId::Rfm,
                rule_overrides: serde_json::Value::Null,
                scheme: Scheme::rfm(),
            },
            &Actor::Organiser,
            2_000,
        )
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)), "{again}");
}
