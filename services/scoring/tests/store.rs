//! Two writers on one log: the expected-seq append refuses a stale writer,
//! which catches up and decides again against the newer state. And a game
//! is scored once it is over, not at its result: the final last words come
//! after the result and may bring sanctions that count (rfm §5.15: a
//! disqualification after the result keeps the result and costs the
//! penalty).

use bytes::Bytes;
use mafia_event_log::{
    Appended, EmbeddedLog, EventLog, FeedCursor, FeedStream, Lease, LogError, StoredEvent,
};
use mafia_record::{GameId, Header, LoggedEvent, Record, StageId, TournamentId};
use mafia_rules::{Envelope, RuleSetId};
use mafia_scoring::follower::score;
use mafia_scoring::{Store, StoreError};
use mafia_tournament::{
    standings, Actor, Coefficient, Player, PlayerId, Points, Scheme, SeatedTable, Stage,
    TournamentCommand, TournamentError, TournamentSpec,
};
use std::sync::Arc;
use std::time::Duration;

fn spec(id: &TournamentId) -> TournamentSpec {
    TournamentSpec {
        id: id.clone(),
        name: "Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    }
}

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

async fn run(
    store: &Arc<Store>,
    id: &TournamentId,
    cmd: TournamentCommand,
) -> Result<u64, StoreError> {
    store
        .command(id, move |t| {
            Ok(t.command(&cmd, &Actor::Organiser, 1_000)?)
        })
        .await
        .map(|(_, v)| v)
}

#[tokio::test]
async fn a_stale_writer_catches_up_and_is_judged_against_the_newer_state() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> =
        Arc::new(EmbeddedLog::open(dir.path().join("e.redb")).await.unwrap());
    let a = Arc::new(Store::new(log.clone()));
    let b = Arc::new(Store::new(log.clone()));
    let id = TournamentId::new("cup").unwrap();
    a.create(spec(&id), &Actor::Organiser, 1_000).await.unwrap();
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
        .create(spec(&id), &Actor::Organiser, 2_000)
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)), "{again}");
}

/// The rules crate's scenario: black wins, and in the final last words of
/// seat 4 (shot) seat 6 and then seat 4 himself are disqualified.
const RECORD: &str = include_str!(
    "../../../tests/records/scenarios/classic_6_9_rfm_5_15_ua_1_9_discipline_in_the_final_last_words_keeps_the_result.jsonl"
);

fn pid(n: usize) -> PlayerId {
    PlayerId::new(format!("p{n:02}"))
}

/// An rfm tournament of ten players, one table, its game 1 assigned.
async fn seated_tournament(store: &Arc<Store>, id: &TournamentId) -> GameId {
    store
        .create(spec(id), &Actor::Organiser, 1_000)
        .await
        .unwrap();
    let stage = StageId::new("main").unwrap();
    let game = GameId::new(id.clone(), stage.clone(), 1, 1, 1).unwrap();
    let mut cmds = vec![TournamentCommand::AddStage {
        stage: Stage {
            id: stage.clone(),
            name: "main".into(),
            rounds: 1,
            tables: 1,
            coefficient: Coefficient::ONE,
        },
    }];
    cmds.extend((1..=10).map(|n| register(pid(n).as_str())));
    cmds.push(TournamentCommand::SeatRound {
        stage,
        round: 1,
        tables: vec![SeatedTable {
            table: 1,
            seats: (1..=10).map(pid).collect(),
            judge: None,
        }],
    });
    cmds.push(TournamentCommand::AssignGame {
        game: game.clone(),
        judge: None,
    });
    for cmd in cmds {
        store
            .command(id, move |t| {
                Ok(t.command(&cmd, &Actor::Organiser, 2_000)?)
            })
            .await
            .unwrap();
    }
    game
}

/// Appends as the referee does, with no lease (fence 0).
async fn append(log: &dyn EventLog, game: &str, events: &[Envelope]) {
    let last = log.last_seq(game).await.unwrap();
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| {
            let logged = LoggedEvent {
                client_seq: None,
                envelope: *e,
            };
            Bytes::from(serde_json::to_vec(&logged).unwrap())
        })
        .collect();
    log.append(game, last, 0, &payloads).await.unwrap();
}

#[tokio::test]
async fn rfm_5_15_a_disqualification_in_the_final_last_words_counts_once_the_game_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> =
        Arc::new(EmbeddedLog::open(dir.path().join("e.redb")).await.unwrap());
    let store = Arc::new(Store::new(log.clone()));
    let id = TournamentId::new("cup").unwrap();
    let game = seated_tournament(&store, &id).await;

    let mut record = Record::parse(RECORD).unwrap();
    let all = record.replay();
    assert!(all.game.is_over() && all.violation.is_none());
    let last = record.commands().len() - 1;
    record =
        Record::with_commands(record.header().clone(), record.commands()[..last].to_vec()).unwrap();
    let before = record.replay();
    assert!(before.game.result().is_some() && !before.game.is_over());

    let mut header = Header::for_setup(record.setup(), &game);
    for (i, s) in header.seats.iter_mut().enumerate() {
        s.player_id = pid(i + 1).to_string();
    }
    let key = game.to_string();
    log.create_game(&key, &serde_json::to_vec(&header).unwrap())
        .await
        .unwrap();
    // The result is in, seat 4's final words are running.
    append(log.as_ref(), &key, &before.events).await;
    assert!(
        !score(&store, &game).await.unwrap(),
        "not scored while the game is not over"
    );
    // Seat 4 is disqualified in them: the game is over.
    append(log.as_ref(), &key, &all.events[before.events.len()..]).await;
    assert!(score(&store, &game).await.unwrap());
    let held = store.get(&id).await.unwrap();
    let s = standings(&held.lock().await.tournament);
    let penalties = |n: usize| {
        s.rows
            .iter()
            .find(|r| r.player == pid(n))
            .unwrap()
            .points
            .penalties
    };
    assert_eq!(penalties(6), Points::c(-120));
    assert_eq!(penalties(4), Points::c(-120));
}

/// The embedded log, but an append, once stored, waits for the test before
/// it returns: the moment a caller may go away with its command appended
/// and not yet applied.
struct HeldAfterAppend {
    log: Arc<dyn EventLog>,
    appended: tokio::sync::Notify,
    release: tokio::sync::Semaphore,
}

#[async_trait::async_trait]
impl EventLog for HeldAfterAppend {
    async fn create_game(&self, game: &str, header: &[u8]) -> Result<bool, LogError> {
        self.log.create_game(game, header).await
    }
    async fn header(&self, game: &str) -> Result<Option<Bytes>, LogError> {
        self.log.header(game).await
    }
    async fn list_games(&self) -> Result<Vec<String>, LogError> {
        self.log.list_games().await
    }
    async fn append(
        &self,
        game: &str,
        expected_last_seq: u64,
        fence: u64,
        payloads: &[Bytes],
    ) -> Result<Appended, LogError> {
        let r = self
            .log
            .append(game, expected_last_seq, fence, payloads)
            .await;
        self.appended.notify_one();
        self.release.acquire().await.unwrap().forget();
        r
    }
    async fn last_seq(&self, game: &str) -> Result<u64, LogError> {
        self.log.last_seq(game).await
    }
    async fn read(&self, game: &str, from: u64, max: usize) -> Result<Vec<StoredEvent>, LogError> {
        self.log.read(game, from, max).await
    }
    async fn acquire_lease(
        &self,
        game: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<Lease, LogError> {
        self.log.acquire_lease(game, owner, ttl).await
    }
    async fn renew_lease(
        &self,
        game: &str,
        owner: &str,
        fence: u64,
        ttl: Duration,
    ) -> Result<Lease, LogError> {
        self.log.renew_lease(game, owner, fence, ttl).await
    }
    async fn release_lease(&self, game: &str, owner: &str, fence: u64) -> Result<(), LogError> {
        self.log.release_lease(game, owner, fence).await
    }
    async fn feed_head(&self) -> Result<FeedCursor, LogError> {
        self.log.feed_head().await
    }
    fn feed(&self, from: FeedCursor) -> FeedStream {
        self.log.feed(from)
    }
}

/// A caller that goes away once its command is appended (a gRPC request
/// dropped mid-call) still leaves it applied: the cache is the log's.
#[tokio::test]
async fn a_command_whose_caller_goes_away_after_the_append_is_still_applied() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(HeldAfterAppend {
        log: Arc::new(EmbeddedLog::open(dir.path().join("e.redb")).await.unwrap()),
        appended: tokio::sync::Notify::new(),
        release: tokio::sync::Semaphore::new(0),
    });
    let store = Arc::new(Store::new(log.clone()));
    let id = TournamentId::new("cup").unwrap();
    store
        .create(spec(&id), &Actor::Organiser, 1_000)
        .await
        .unwrap();
    tokio::select! {
        r = run(&store, &id, register("p1")) => panic!("the append was held: {r:?}"),
        () = log.appended.notified() => {} // the caller goes away here
    }
    log.release.add_permits(1);
    assert_eq!(log.last_seq("tournament.cup").await.unwrap(), 1, "appended");
    // The command's task holds the tournament until it has applied.
    let held = store.get(&id).await.unwrap();
    let held = held.lock().await;
    assert_eq!(held.last_seq, 1);
    assert!(held.tournament.players.contains_key(&PlayerId::new("p1")));
}
