//! What the console's browser tests and its bench share: a referee and a
//! gateway on one embedded log on loopback, simulated games, and typing a
//! game's commands into the page at each prompt.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::cdp::Page;
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};
use mafia_judge_client::keys::shorthand;
use mafia_proto::v1;
use mafia_proto::v1::referee_client::RefereeClient;
use mafia_referee::{RefereeOptions, RunningReferee};
use mafia_rules::sim::{simulate, SimulatedGame};
use mafia_rules::{Command, Expect, Game, RuleSetId, SeatSet};
use rand::SeedableRng;
use serde_json::{json, Value};

pub const CHIEF: &str = "console-chief-token";
pub const T3: &str = "console-table-3-token";
pub const T4: &str = "console-table-4-token";
pub const BROADCAST: &str = "console-broadcast-token";
pub const ORGANISER: &str = "console-organiser-token";

pub fn tokens_json() -> String {
    format!(
        r#"{{"tokens":[{{"role":"chief_judge","token":"{CHIEF}"}},
        {{"role":"table_judge","token":"{T3}","games":["cup.*.*.t3.*"],"name":"j3"}},
        {{"role":"table_judge","token":"{T4}","games":["cup.*.*.t4.*"],"name":"j4"}},
        {{"role":"broadcast","token":"{BROADCAST}"}},
        {{"role":"organiser","token":"{ORGANISER}"}}]}}"#
    )
}

pub fn artifacts() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/artifacts/console");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A referee and a gateway on one embedded log, on loopback.
pub struct Stack {
    pub log: Arc<dyn EventLog>,
    pub gateway: SocketAddr,
    pub referee_addr: SocketAddr,
    pub referee: Option<RunningReferee>,
    /// Between the page and the referee, when the stack has one.
    pub proxy: Option<Proxy>,
    /// The scoring service, on the same log, when the stack has one.
    pub scoring: Option<mafia_scoring::Running>,
    _dir: tempfile::TempDir,
}

impl Stack {
    pub async fn start() -> Stack {
        Self::start_inner(false, false).await
    }

    /// With the page reaching the referee through a [`Proxy`] that can
    /// stop answering, as a hall's Wi-Fi does.
    pub async fn start_behind_proxy() -> Stack {
        Self::start_inner(false, true).await
    }

    /// With the scoring service too, admitting the console's origin, and
    /// the gateway folding its tournaments: what post-game inputs need.
    pub async fn start_with_scoring() -> Stack {
        Self::start_inner(true, false).await
    }

    async fn start_inner(with_scoring: bool, behind_proxy: bool) -> Stack {
        let dir = tempfile::tempdir().unwrap();
        let log: Arc<dyn EventLog> = Arc::new(
            EmbeddedLog::open(dir.path().join("events.redb"))
                .await
                .unwrap(),
        );
        let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let gateway = http.local_addr().unwrap();
        let grpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let referee_addr = grpc.local_addr().unwrap();
        let referee = Self::referee(grpc, &log, gateway).await;
        let hub = Hub::start(log.clone(), HubConfig::default()).await.unwrap();
        let mut state = app_state(
            hub,
            Tokens::from_json(&tokens_json()).unwrap(),
            ServerConfig::default(),
        );
        let proxy = if behind_proxy {
            Some(Proxy::start(referee_addr).await)
        } else {
            None
        };
        let page_side = proxy.as_ref().map_or(referee_addr, |p| p.addr);
        state.console.referee_url = Some(format!("http://{page_side}"));
        let scoring = if with_scoring {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let running = mafia_scoring::start_with_options(
                listener,
                log.clone(),
                Tokens::from_json(&tokens_json()).unwrap(),
                mafia_scoring::ServeOptions {
                    referee: None,
                    web_origins: vec![format!("http://{gateway}")],
                    ..Default::default()
                },
            )
            .await
            .unwrap();
            state.console.scoring_url = Some(format!("http://{}", running.addr));
            tokio::spawn(mafia_gateway::board::follow(
                state.standings.clone(),
                log.clone(),
                std::future::pending(),
            ));
            Some(running)
        } else {
            None
        };
        tokio::spawn(mafia_gateway::serve(http, state, std::future::pending()));
        Stack {
            log,
            gateway,
            referee_addr,
            referee: Some(referee),
            proxy,
            scoring,
            _dir: dir,
        }
    }

    pub async fn referee(
        listener: tokio::net::TcpListener,
        log: &Arc<dyn EventLog>,
        gateway: SocketAddr,
    ) -> RunningReferee {
        mafia_referee::server::start(
            listener,
            log.clone(),
            RefereeOptions {
                tokens: Tokens::from_json(&tokens_json()).unwrap(),
                web_origins: vec![format!("http://{gateway}")],
                ..RefereeOptions::default()
            },
        )
        .await
        .unwrap()
    }

    pub async fn stop_referee(&mut self) {
        self.referee.take().unwrap().shutdown().await;
    }

    pub async fn restart_referee(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.referee_addr)
            .await
            .unwrap();
        self.referee = Some(Self::referee(listener, &self.log, self.gateway).await);
    }

    /// GET `path` on the gateway with `token`: the status and the body.
    pub async fn get(&self, path: &str, token: &str) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(self.gateway).await.unwrap();
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        let status = out[9..12].parse().unwrap();
        let body = out.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (status, body.to_owned())
    }

    /// Opens table 3's game `game` of `rules` on the referee as the
    /// organiser's round opening does, stamped `at` (ms), dealt as `sim`.
    pub async fn open_on_referee(&self, rules: RuleSetId, game: u32, sim: &SimulatedGame, at: i64) {
        let mut c = RefereeClient::connect(format!("http://{}", self.referee_addr))
            .await
            .unwrap();
        let seats = nicknames()
            .into_iter()
            .enumerate()
            .map(|(i, nickname)| v1::SeatEntry {
                seat: i as u32 + 1,
                player_id: format!("player-{}", i + 1),
                nickname,
            })
            .collect();
        let mut req = tonic::Request::new(v1::OpenGameRequest {
            tournament_id: "cup".into(),
            tournament: "Cup".into(),
            stage: "main".into(),
            round: 1,
            table: 3,
            game,
            rules: rules.as_str().into(),
            seats,
            deal: Some(v1::open_game_request::Deal::Cards(v1::DealCards {
                roles: cards_of(sim),
            })),
            at,
            ..Default::default()
        });
        req.metadata_mut()
            .insert("authorization", format!("Bearer {CHIEF}").parse().unwrap());
        c.open_game(req).await.unwrap();
    }

    pub fn console(&self, query: &str) -> String {
        format!("http://{}/judge-console?{query}", self.gateway)
    }

    pub async fn get_game(&self, id: &str) -> Result<v1::GetGameResponse, tonic::Status> {
        let mut c = RefereeClient::connect(format!("http://{}", self.referee_addr))
            .await
            .unwrap();
        let mut req = tonic::Request::new(v1::GetGameRequest {
            game_id: id.into(),
            audience: v1::Audience::Judge as i32,
        });
        req.metadata_mut()
            .insert("authorization", format!("Bearer {CHIEF}").parse().unwrap());
        c.get_game(req).await.map(tonic::Response::into_inner)
    }
}

/// A TCP relay to the referee that can go silent: while it holds, the
/// page's requests still reach the referee but no answer comes back, and a
/// connection that went silent stays so for good (a lost Wi-Fi's sockets
/// neither answer nor close); connections made after [`Proxy::relay`]
/// work again.
pub struct Proxy {
    pub addr: SocketAddr,
    holding: Arc<std::sync::atomic::AtomicBool>,
}

impl Proxy {
    pub async fn start(target: SocketAddr) -> Proxy {
        use std::sync::atomic::Ordering;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let holding = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hold = holding.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let hold = hold.clone();
                tokio::spawn(async move {
                    let Ok(server) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    let (mut from_page, mut to_page) = client.into_split();
                    let (mut from_referee, mut to_referee) = server.into_split();
                    let up = tokio::io::copy(&mut from_page, &mut to_referee);
                    let down = async {
                        let mut buf = vec![0; 16 * 1024];
                        loop {
                            let n = from_referee.read(&mut buf).await?;
                            if n == 0 {
                                return Ok::<_, std::io::Error>(());
                            }
                            if hold.load(Ordering::SeqCst) {
                                std::future::pending::<()>().await;
                            }
                            to_page.write_all(&buf[..n]).await?;
                        }
                    };
                    let _ = tokio::join!(up, down);
                });
            }
        });
        Proxy { addr, holding }
    }

    /// From now on no answer reaches the page.
    pub fn hold(&self) {
        self.holding
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// New connections relay again both ways.
    pub fn relay(&self) {
        self.holding
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

pub fn browser_or_skip() -> Option<PathBuf> {
    let bin = crate::cdp::chromium();
    if bin.is_none() {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_CHROMIUM").is_none(),
            "MAFIA_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("no chromium in PATH: console tests skipped (apt-get install -y chromium)");
    }
    bin
}

pub fn sim(rules: RuleSetId, seed: u64) -> SimulatedGame {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    simulate(rules, &mut rng, 1_700_000_000_000)
}

/// Fills the new-game form (nicknames, the drawn cards) and submits it the
/// way its button does.
pub async fn open_by_form(
    page: &Page,
    rules: RuleSetId,
    table: u32,
    game: u32,
    nicks: &[String],
    cards: &[String],
) {
    page.wait("document.querySelector('#new-game')").await;
    page.eval(&open_by_form_script(rules, table, game, nicks, cards))
        .await;
}

/// Fills the new-game form with the digital deal (the referee draws it)
/// and submits it.
pub async fn open_drawn_by_form(page: &Page, rules: RuleSetId, table: u32, game: u32) {
    page.wait("document.querySelector('#new-game')").await;
    let script = open_by_form_script(rules, table, game, &nicknames(), &[])
        .replace(r#""deal":"cards""#, r#""deal":"drawn""#);
    page.eval(&script).await;
}

/// The script [`open_by_form`] runs: fills the new-game form and submits
/// it, all in one task of the page.
pub fn open_by_form_script(
    rules: RuleSetId,
    table: u32,
    game: u32,
    nicks: &[String],
    cards: &[String],
) -> String {
    let fill = json!({
        "tournament_id": "cup", "stage": "main", "round": 1, "table": table, "game": game,
        "rules": rules.as_str(), "deal": "cards", "nicks": nicks, "cards": cards,
    });
    format!(
        r#"(() => {{
        const f = document.querySelector('#new-game'), v = {fill};
        for (const k of ["tournament_id", "stage", "round", "table", "game", "rules", "deal"]) f.elements[k].value = v[k];
        v.nicks.forEach((n, i) => {{ const e = f.elements["nick" + (i + 1)]; if (e) e.value = n; }});
        v.cards.forEach((c, i) => {{ f.elements["card" + (i + 1)].value = c; }});
        f.dispatchEvent(new Event("submit", {{cancelable: true}}));
        return true; }})()"#
    )
}

/// Table 3's judge logs in (`lang`) and opens game `game` of `rules` by
/// the form, dealt as `sim`; returns once the game's screen shows a prompt.
pub async fn open_game_of_table_3(
    page: &Page,
    stack: &Stack,
    rules: RuleSetId,
    game: u32,
    sim: &SimulatedGame,
    lang: &str,
) {
    log_in(page, stack, T3, lang).await;
    page.wait("document.body.dataset.screen === 'games'").await;
    open_by_form(page, rules, 3, game, &nicknames(), &cards_of(sim)).await;
    page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
        .await;
}

pub fn nicknames() -> Vec<String> {
    (1..=10).map(|i| format!("Player {i}")).collect()
}

pub fn cards_of(sim: &SimulatedGame) -> Vec<String> {
    sim.setup
        .roles()
        .iter()
        .map(|r| {
            serde_json::to_value(r)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

pub async fn acked(page: &Page) -> u64 {
    page.eval("Number(document.body.dataset.acked)")
        .await
        .as_u64()
        .unwrap_or(0)
}

/// Types one line and Enter.
pub async fn enter(page: &Page, line: &str) {
    page.type_text(line).await;
    page.press("Enter").await;
}

/// Types `commands` in their explicit forms while nothing reaches the
/// referee (the prompt cannot move without it), each waiting in the page's
/// queue, which starts empty; `game` follows them.
pub async fn enter_queued(page: &Page, game: &mut Game, commands: &[(i64, Command)]) {
    for (j, (at, cmd)) in commands.iter().enumerate() {
        enter(page, &shorthand(cmd, None)).await;
        page.wait(&format!("document.body.dataset.queued === '{}'", j + 1))
            .await;
        game.apply(cmd, *at).unwrap();
    }
}

/// The first prompt of each kind, screenshot as `<tag>-<index>-<kind>.png`.
pub struct Shots {
    pub tag: String,
    pub seen: BTreeSet<String>,
}

impl Shots {
    pub fn new(tag: &str) -> Shots {
        Shots {
            tag: tag.to_owned(),
            seen: BTreeSet::new(),
        }
    }
}

/// Types commands `range` of the game, each at the prompt the local replay
/// gives (the same shorthand `mafia judge` takes), waiting for each ack.
pub async fn type_commands(
    page: &Page,
    game: &mut Game,
    commands: &[(i64, Command)],
    range: std::ops::Range<usize>,
    mut shots: Option<&mut Shots>,
    taps: bool,
) {
    for i in range {
        let (at, cmd) = &commands[i];
        let expect = game.expected().expect;
        let kind = serde_json::to_value(expect).unwrap()["expect"]
            .as_str()
            .unwrap()
            .to_owned();
        if let Some(shots) = shots.as_deref_mut() {
            if shots.seen.insert(kind.clone()) {
                let name = format!("{}-{i:03}-{kind}.png", shots.tag);
                page.screenshot(&artifacts().join(name)).await;
            }
        }
        let line = if taps {
            tap_or_digits(page, cmd, &expect).await
        } else {
            None
        }
        .unwrap_or_else(|| shorthand(cmd, Some(&expect)));
        if std::env::var_os("MAFIA_CONSOLE_TRACE").is_some() {
            eprintln!("#{}: {line:?}", i + 1);
        }
        if line != ACKED_BY_TAP {
            enter(page, &line).await;
        }
        if line == "u" {
            // Undo asks first.
            page.wait("!document.querySelector('#confirm').hidden")
                .await;
            page.type_text("y").await;
        }
        page.wait(&format!(
            "Number(document.body.dataset.acked) === {}",
            i + 1
        ))
        .await;
        game.apply(cmd, *at).unwrap();
    }
}

/// The touch and bare-digit way to enter `cmd`, where there is one: seats
/// tapped on the grid (hands, the lift, a nomination by the speaker, a
/// foul after the Foul button), the Next button to end a speech, or a seat
/// number alone for a check or the Beauty's pick. Returns the line to
/// type after the taps (empty: Enter sends the selection).
async fn tap_or_digits(page: &Page, cmd: &Command, expect: &Expect) -> Option<String> {
    let select = |hands: SeatSet| hands.iter().map(|s| s.number()).collect::<BTreeSet<u8>>();
    let target = match (cmd, expect) {
        (Command::Vote { hands, .. }, Expect::Vote { .. })
        | (Command::Lift { hands }, Expect::Lift { .. }) => {
            // The console preselects the last nominee's hands: tap the
            // difference.
            let now: BTreeSet<u8> =
                serde_json::from_value(page.eval("[...window.__console.selection]").await).unwrap();
            for seat in now.symmetric_difference(&select(*hands)) {
                page.click(&format!("[data-seat=\"{seat}\"]")).await;
            }
            return Some(String::new());
        }
        (Command::Nominate { by, target }, Expect::Speech { seat, .. }) if by == seat => {
            page.click(&format!("[data-seat=\"{}\"]", target.number()))
                .await;
            return Some(ACKED_BY_TAP.to_owned());
        }
        (Command::Foul { seat }, _) => {
            page.click("#b-foul").await;
            page.click(&format!("[data-seat=\"{}\"]", seat.number()))
                .await;
            return Some(ACKED_BY_TAP.to_owned());
        }
        (
            Command::EndSpeech {
                seat,
                timeout: false,
            },
            Expect::Speech { seat: speaker, .. },
        ) if seat == speaker => {
            page.click("#b-next").await;
            return Some(ACKED_BY_TAP.to_owned());
        }
        (Command::DonCheck { target: Some(t) }, _)
        | (Command::SheriffCheck { target: Some(t) }, _)
        | (Command::BeautyPick { target: Some(t) }, _) => t,
        _ => return None,
    };
    Some(target.number().to_string())
}

/// What `tap_or_digits` returns when the tap alone sent the command.
const ACKED_BY_TAP: &str = "\u{0}tapped";

/// The referee's copy of the game has exactly the simulation's events
/// (no command lost or applied twice) and its result.
pub async fn assert_same_as_simulation(stack: &Stack, id: &str, sim: &SimulatedGame) {
    let stored = stack.get_game(id).await.unwrap();
    let state = stored.state.unwrap();
    assert!(state.over);
    assert_eq!(state.last_client_seq as usize, sim.commands.len());
    let got: Vec<Value> = stored
        .events
        .iter()
        .map(|e| serde_json::from_str(&e.json).unwrap())
        .collect();
    let want: Vec<Value> = sim
        .events
        .iter()
        .map(|e| serde_json::to_value(e.event).unwrap())
        .collect();
    assert_eq!(got, want, "the stored game differs from its simulation");
}

pub async fn log_in(page: &Page, stack: &Stack, token: &str, lang: &str) {
    page.goto(&stack.console(&format!("lang={lang}&token={token}")))
        .await;
}

/// Types the game's commands from `from` up to the first speech (or the
/// next one); returns the index of the first command not typed.
pub async fn type_until_speech(
    page: &Page,
    game: &mut Game,
    commands: &[(i64, Command)],
    from: usize,
) -> usize {
    let mut i = from;
    while !matches!(game.expected().expect, Expect::Speech { .. }) {
        type_commands(page, game, commands, i..i + 1, None, false).await;
        i += 1;
    }
    i
}

/// A request with `token` as its bearer.
pub fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// The rfm tournament "cup" on the stack's scoring service: ten players
/// ("player-N", nicknamed "Player N"), judge j3 at table 3 of round 1, its
/// game cup.main.r1.t3.g1 assigned. Returns the organiser's client.
pub async fn cup_with_table_3s_game(
    stack: &Stack,
) -> mafia_proto::v1::scoring_client::ScoringClient<tonic::transport::Channel> {
    use mafia_proto::v1::scoring_client::ScoringClient;
    use mafia_record::{GameId, StageId, TournamentId};
    use mafia_tournament::{
        Coefficient, Judge, JudgeId, Player, PlayerId, Scheme, SeatedTable, Stage,
        TournamentCommand, TournamentSpec,
    };
    let addr = stack.scoring.as_ref().unwrap().addr;
    let mut c = ScoringClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let spec = TournamentSpec {
        id: TournamentId::new("cup").unwrap(),
        name: "Cup".into(),
        rules: RuleSetId::Rfm,
        rule_overrides: serde_json::Value::Null,
        scheme: Scheme::rfm(),
    };
    c.create_tournament(authed(
        ORGANISER,
        mafia_proto::v1::CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec).unwrap(),
        },
    ))
    .await
    .unwrap();
    // The console's form makes "player-3" of "Player 3".
    let ids: Vec<PlayerId> = (1..=10)
        .map(|n| PlayerId::new(format!("player-{n}")))
        .collect();
    let game: GameId = "cup.main.r1.t3.g1".parse().unwrap();
    let mut cmds = vec![
        TournamentCommand::AddJudge {
            judge: Judge {
                id: JudgeId::new("j3"),
                name: "j3".into(),
            },
        },
        TournamentCommand::AddStage {
            stage: Stage {
                id: StageId::new("main").unwrap(),
                name: "Main".into(),
                rounds: 1,
                tables: 3,
                coefficient: Coefficient::ONE,
            },
        },
    ];
    for (n, id) in ids.iter().enumerate() {
        cmds.push(TournamentCommand::RegisterPlayer {
            player: Player {
                id: id.clone(),
                nickname: format!("Player {}", n + 1),
                club: None,
                photo_url: None,
            },
        });
    }
    cmds.push(TournamentCommand::SeatRound {
        stage: StageId::new("main").unwrap(),
        round: 1,
        tables: vec![SeatedTable {
            table: 3,
            seats: ids.clone(),
            judge: Some(JudgeId::new("j3")),
        }],
    });
    cmds.push(TournamentCommand::AssignGame {
        game: game.clone(),
        judge: None,
    });
    for cmd in &cmds {
        c.command(authed(
            ORGANISER,
            mafia_proto::v1::CommandRequest {
                tournament: "cup".into(),
                command_json: serde_json::to_string(cmd).unwrap(),
            },
        ))
        .await
        .unwrap();
    }
    c
}
