//! The chief judge's day in a real embedded log: the committed cup
//! tournament (two pending approvals, round 3 seated), round 3's table 1
//! played to its end and scored as the scoring service's follower scores
//! it, table 2 in play, an appeal filed against a moment of table 1's
//! game; a gateway following it all, and (optionally) a real scoring
//! service on the same log that the pages send their decisions to.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::{Envelope, Event, Game, RuleSetId};
use mafia_tournament::{
    stored, Actor, ExtraPoint, GameFacts, JudgeInputs, Points, Tournament, TournamentCommand,
    TournamentEvent,
};

pub const CHIEF: &str = "rl-chief";
pub const CHIEF_T2: &str = "rl-chief-t2";
pub const ORGANISER: &str = "rl-organiser";
pub const JUDGE_T2: &str = "rl-judge-t2";
pub const BROADCAST: &str = "rl-broadcast";

pub const CUP_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../crates/tournament/tests/data/cup.jsonl"
);

pub const FINISHED: &str = "cup.main.r3.t1.g1";
pub const IN_PLAY: &str = "cup.main.r3.t2.g1";
/// The event of [`FINISHED`] its appeal disputes.
pub const DISPUTED_SEQ: u32 = 5;

pub fn tokens_json() -> String {
    format!(
        r#"{{"tokens":[{{"role":"chief_judge","token":"{CHIEF}"}},
        {{"role":"chief_judge","token":"{CHIEF_T2}","games":["cup.*.*.t2.*"]}},
        {{"role":"organiser","token":"{ORGANISER}"}},
        {{"role":"table_judge","token":"{JUDGE_T2}","games":["cup.*.*.t2.*"],"name":"j1"}},
        {{"role":"broadcast","token":"{BROADCAST}"}}]}}"#
    )
}

/// Long Cyrillic nicknames, the widest a page must fit.
pub fn cyrillic(n: usize) -> String {
    const NAMES: [&str; 10] = [
        "Александра-Константинопольская",
        "Вольдемар Переподвыподвертов",
        "Екатерина Великолепнейшая",
        "Святослав Всеволодович",
        "Христофор Бонифатьевич",
        "Анастасия Преображенская",
        "Максимилиан Гогенцоллерн",
        "Ярослава Черноморская",
        "Евлампий Достопочтенный",
        "Феодосия Благовещенская",
    ];
    format!("{} {n}", NAMES[(n - 1) % NAMES.len()])
}

pub struct Stack {
    pub log: Arc<dyn EventLog>,
    pub addr: SocketAddr,
    pub state: mafia_gateway::AppState,
    pub scoring: Option<mafia_scoring::Running>,
    /// The in-play game's events not yet written.
    pub rest: Vec<Envelope>,
    _dir: tempfile::TempDir,
}

/// The cup as the log holds it now.
pub async fn folded(log: &Arc<dyn EventLog>) -> Tournament {
    let header = log.header("tournament.cup").await.unwrap().unwrap();
    let events = log.read("tournament.cup", 1, 10_000).await.unwrap();
    stored::fold_stored(&header, events.iter().map(|e| &e.payload[..])).unwrap()
}

/// Runs one command on the stored cup as the scoring service would.
pub async fn run(log: &Arc<dyn EventLog>, cmd: &TournamentCommand, by: &Actor, at: i64) -> u64 {
    let t = folded(log).await;
    let events: Vec<TournamentEvent> = t.command(cmd, by, at).unwrap();
    let last = log.last_seq("tournament.cup").await.unwrap();
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| Bytes::from(stored::encode(e)))
        .collect();
    log.append("tournament.cup", last, 0, &payloads)
        .await
        .unwrap()
        .last_seq
}

async fn append(log: &Arc<dyn EventLog>, id: &str, events: &[Envelope]) {
    let last = log.last_seq(id).await.unwrap();
    let payloads: Vec<Bytes> = events
        .iter()
        .map(|e| {
            Bytes::from(
                serde_json::to_vec(&LoggedEvent {
                    client_seq: None,
                    envelope: *e,
                })
                .unwrap(),
            )
        })
        .collect();
    log.append(id, last, 0, &payloads).await.unwrap();
}

/// A game of round 3 at `table` with the cup's seating there, its header
/// in the log; returns its setup and the simulated events.
async fn open_game(
    log: &Arc<dyn EventLog>,
    t: &Tournament,
    id: &str,
    seed: u64,
    long_names: bool,
) -> (Header, Vec<Envelope>) {
    let gid: GameId = id.parse().unwrap();
    let seated = &t.rounds[&(gid.stage.clone(), gid.round)].tables[&gid.table];
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
    let sim = mafia_rules::sim::simulate(RuleSetId::Rfm, &mut rng, 1_780_000_100_000);
    let mut header = Header::for_setup(&sim.setup, &gid);
    for (s, p) in header.seats.iter_mut().zip(&seated.seats) {
        s.player_id = p.to_string();
        s.nickname = t.players[p].player.nickname.clone();
    }
    let _ = long_names;
    log.create_game(id, &serde_json::to_vec(&header).unwrap())
        .await
        .unwrap();
    (header, sim.events)
}

/// The cup's log with its nicknames long and Cyrillic when `long_names`.
async fn write_cup(log: &Arc<dyn EventLog>, long_names: bool) {
    let mut text = std::fs::read_to_string(CUP_LOG).unwrap();
    if long_names {
        for n in (1..=20).rev() {
            text = text.replace(
                &format!("\"nickname\":\"Player {n}\""),
                &format!("\"nickname\":\"{}\"", cyrillic(n)),
            );
        }
    }
    let mut lines = text.lines();
    log.create_game("tournament.cup", lines.next().unwrap().as_bytes())
        .await
        .unwrap();
    let events: Vec<Bytes> = lines.map(|l| Bytes::from(l.to_owned())).collect();
    log.append("tournament.cup", 0, 0, &events).await.unwrap();
}

/// The gateway (and the scoring service, `with_scoring`) on the day's log.
pub async fn start(with_scoring: bool, long_names: bool) -> Stack {
    start_with(with_scoring, long_names, true).await
}

/// [`start`]; without `games`, the cup alone: round 3 seated, not opened.
pub async fn start_with(with_scoring: bool, long_names: bool, games: bool) -> Stack {
    let dir = tempfile::tempdir().unwrap();
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(dir.path().join("events.redb"))
            .await
            .unwrap(),
    );
    write_cup(&log, long_names).await;
    let rest = if games {
        play_the_day(&log, long_names).await
    } else {
        Vec::new()
    };
    serve(dir, log, with_scoring, rest).await
}

/// The day's pending items, games and appeal; the in-play game's events
/// not yet written.
async fn play_the_day(log: &Arc<dyn EventLog>, long_names: bool) -> Vec<Envelope> {
    let log = log.clone();
    let t = folded(&log).await;

    // Round 2, table 1: the judge gives +1.6 to a winner, which waits.
    let r2: GameId = "cup.main.r2.t1.g1".parse().unwrap();
    let entry = &t.games[&r2];
    let winner = entry
        .winner()
        .flatten()
        .expect("round 2 table 1 has a winner");
    let facts = &entry.result.as_ref().unwrap().facts;
    let seat = facts
        .seats
        .iter()
        .find(|s| s.team() == winner)
        .unwrap()
        .seat;
    let inputs = JudgeInputs {
        extras: vec![ExtraPoint {
            seat,
            points: Points::c(160),
        }],
        ..JudgeInputs::default()
    };
    run(
        &log,
        &TournamentCommand::SubmitJudgeInputs { game: r2, inputs },
        &Actor::TableJudge(mafia_tournament::JudgeId::new("j1")),
        1_780_000_040_000,
    )
    .await;

    // Round 3, table 1: played to its end and scored.
    let (header, events) = open_game(&log, &t, FINISHED, 31, long_names).await;
    // Ended a minute ago: the hub keeps a finished game for its retention.
    let shift = mafia_gateway::hub::unix_ms() - 60_000 - events.last().unwrap().at;
    let events: Vec<Envelope> = events
        .into_iter()
        .map(|e| Envelope {
            at: e.at + shift,
            ..e
        })
        .collect();
    append(&log, FINISHED, &events).await;
    let game = Game::replay(header.setup().unwrap(), &events).unwrap();
    let ended_at = events
        .iter()
        .rev()
        .find(|e| matches!(e.event, Event::GameEnded { .. }))
        .unwrap()
        .at;
    let facts = GameFacts::from_game(&game, &events).unwrap();
    run(
        &log,
        &TournamentCommand::RecordResult {
            game: FINISHED.parse().unwrap(),
            facts,
            ended_at,
        },
        &Actor::RefereeLog,
        ended_at + 500,
    )
    .await;
    run(
        &log,
        &TournamentCommand::FileAppeal {
            game: FINISHED.parse().unwrap(),
            player: Some(mafia_tournament::PlayerId::new(&header.seats[2].player_id)),
            event_seq: Some(DISPUTED_SEQ),
            text: "Фол записан не тому игроку / the foul went to the wrong player".into(),
        },
        &Actor::Organiser,
        ended_at + 1_000,
    )
    .await;

    // Round 3, table 2: in play, its first events stamped just now.
    let (_, events) = open_game(&log, &t, IN_PLAY, 32, long_names).await;
    let now = mafia_gateway::hub::unix_ms();
    let cut = 12.min(events.len() - 1);
    let shift = now - events[cut - 1].at;
    let events: Vec<Envelope> = events
        .into_iter()
        .map(|e| Envelope {
            at: e.at + shift,
            ..e
        })
        .collect();
    append(&log, IN_PLAY, &events[..cut]).await;
    events[cut..].to_vec()
}

async fn serve(
    dir: tempfile::TempDir,
    log: Arc<dyn EventLog>,
    with_scoring: bool,
    rest: Vec<Envelope>,
) -> Stack {
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr().unwrap();
    let hub = Hub::start(log.clone(), HubConfig::default()).await.unwrap();
    let mut state = app_state(
        hub,
        Tokens::from_json(&tokens_json()).unwrap(),
        ServerConfig::default(),
    );
    let scoring = if with_scoring {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let running = mafia_scoring::start_with_options(
            listener,
            log.clone(),
            Tokens::from_json(&tokens_json()).unwrap(),
            mafia_scoring::ServeOptions {
                referee: None,
                web_origins: vec![format!("http://{addr}")],
                ..Default::default()
            },
        )
        .await
        .unwrap();
        state.console.scoring_url = Some(format!("http://{}", running.addr));
        Some(running)
    } else {
        None
    };
    tokio::spawn(mafia_gateway::board::follow(
        state.standings.clone(),
        log.clone(),
        std::future::pending(),
    ));
    tokio::spawn(mafia_gateway::serve(
        http,
        state.clone(),
        std::future::pending(),
    ));
    Stack {
        log,
        addr,
        state,
        scoring,
        rest,
        _dir: dir,
    }
}

impl Stack {
    /// Waits until the gateway's board holds the cup at the log's version
    /// and the hub holds both games of round 3.
    pub async fn ready(&self) {
        let want = self.log.last_seq("tournament.cup").await.unwrap();
        let id = "cup".parse().unwrap();
        let mut rx = self.state.standings.watch(&id).unwrap();
        rx.wait_for(|s| s.as_ref().is_some_and(|s| s.version >= want))
            .await
            .unwrap();
        for g in [FINISHED, IN_PLAY] {
            if self.log.header(g).await.unwrap().is_none() {
                continue;
            }
            let g: GameId = g.parse().unwrap();
            let want = self.log.last_seq(&g.to_string()).await.unwrap() as u64;
            let waited = tokio::time::timeout(
                std::time::Duration::from_secs(60),
                self.state.hub.wait_until(|hub| {
                    hub.state(&g, mafia_rules::Audience::Judge)
                        .is_ok_and(|s| s.seq >= want)
                }),
            )
            .await;
            let now = self
                .state
                .hub
                .state(&g, mafia_rules::Audience::Judge)
                .map(|s| s.seq);
            assert!(
                waited.is_ok(),
                "{g}: the hub is at {now:?}, the log at {want}"
            );
        }
    }

    /// `method path` on the gateway with `token` as the bearer: the status
    /// and the body.
    pub async fn http(&self, method: &str, path: &str, token: Option<&str>) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\n{auth}Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text[9..12].parse().unwrap();
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (status, body.to_owned())
    }

    pub async fn json(&self, path: &str, token: &str) -> serde_json::Value {
        let (status, body) = self.http("GET", path, Some(token)).await;
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }
}
