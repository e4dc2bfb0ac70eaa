//! `mafia sim`: N simulated tables of random legal games at once, each a
//! closed loop (next command after the previous ack). The demo driver and
//! the load generator.

use crate::connect::Referee;
use crate::session::JudgeSession;
use crate::ClientError;
use mafia_record::{GameId, Header, StageId, TournamentId};
use mafia_rules::sim::{random_command, Temper};
use mafia_rules::{Audience, Deal, Game, RuleSetId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct SimConfig {
    pub tables: u32,
    /// Games played one after another at each table.
    pub games_per_table: u32,
    /// Waits the simulated think time divided by `speed`; `None` = no waiting.
    /// A paced table stamps its commands with the wall clock, so screens'
    /// timers run; an unpaced one stamps a simulated clock (reproducible).
    pub speed: Option<f64>,
    pub seed: u64,
    /// Tournament of the simulated games (unique per run by default); their
    /// stage is `sim`, their round 1.
    pub tournament: TournamentId,
    /// Stop a table after this many commands (bounds a load test).
    pub max_commands_per_table: usize,
    /// Stop every table once this much time has passed (a timed load test);
    /// games still running are left as they are.
    pub run_for: Option<Duration>,
}

impl SimConfig {
    pub fn new(tables: u32, seed: u64) -> Self {
        SimConfig {
            tables,
            games_per_table: 1,
            speed: None,
            seed,
            tournament: TournamentId::new(format!("sim-{seed}")).expect("a valid id"),
            max_commands_per_table: usize::MAX,
            run_for: None,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SimReport {
    pub games_finished: u64,
    pub commands: u64,
    pub reconnects: u64,
    /// Ack latency of every accepted command.
    pub latencies: Vec<Duration>,
    pub elapsed: Duration,
}

impl SimReport {
    /// The `q` quantile (0..=1) of the ack latencies.
    pub fn quantile(&mut self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        self.latencies.sort_unstable();
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies[i]
    }
}

fn sim_header(cfg: &SimConfig, table: u32, game: u32, rng: &mut ChaCha8Rng) -> Header {
    let rules = RuleSetId::ALL[rng.gen_range(0..RuleSetId::ALL.len())];
    let stage = StageId::new("sim").expect("a valid id");
    let id =
        GameId::new(cfg.tournament.clone(), stage, 1, table, game).expect("tables count from 1");
    let mut header = Header::simulated(rules, &id, rng.gen());
    header.judge = format!("sim-judge-{table}");
    header
}

/// Runs every table to the end of its games; fails on the first table that
/// fails.
pub async fn simulate_tables(referee: Referee, cfg: SimConfig) -> Result<SimReport, ClientError> {
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for table in 1..=cfg.tables {
        let referee = referee.clone();
        let cfg = cfg.clone();
        set.spawn(async move { run_table(referee, &cfg, table).await });
    }
    let mut report = SimReport::default();
    while let Some(r) = set.join_next().await {
        let t = r.map_err(|e| ClientError::Protocol(format!("table task: {e}")))??;
        report.games_finished += t.games_finished;
        report.commands += t.commands;
        report.reconnects += t.reconnects;
        report.latencies.extend(t.latencies);
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

async fn run_table(
    mut referee: Referee,
    cfg: &SimConfig,
    table: u32,
) -> Result<SimReport, ClientError> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ (u64::from(table) << 32));
    let mut report = SimReport::default();
    let started = Instant::now();
    let out_of_time = || cfg.run_for.is_some_and(|d| started.elapsed() >= d);
    for g in 1..=cfg.games_per_table {
        if out_of_time() {
            break;
        }
        let header = sim_header(cfg, table, g, &mut rng);
        let limits = Limits {
            speed: cfg.speed,
            max_commands: cfg.max_commands_per_table,
            out_of_time: &out_of_time,
        };
        play_game(&mut referee, &header, &mut rng, &limits, &mut report).await?;
    }
    Ok(report)
}

/// Plays the game `header` opens to its end with random legal commands from
/// `seed`, paced by `speed` as `mafia sim` paces its tables (`None`: no
/// waiting, a simulated clock). For a game already opened with its seated
/// header, e.g. by the scoring service's OpenRound: the same header opens
/// it again as a retry, and a game already under way continues.
pub async fn simulate_game(
    mut referee: Referee,
    header: &Header,
    seed: u64,
    speed: Option<f64>,
) -> Result<SimReport, ClientError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut report = SimReport::default();
    let started = Instant::now();
    let never = || false;
    let limits = Limits {
        speed,
        max_commands: usize::MAX,
        out_of_time: &never,
    };
    play_game(&mut referee, header, &mut rng, &limits, &mut report).await?;
    report.elapsed = started.elapsed();
    Ok(report)
}

/// How one simulated game is paced and bounded.
struct Limits<'a> {
    speed: Option<f64>,
    max_commands: usize,
    out_of_time: &'a (dyn Fn() -> bool + Sync),
}

/// Plays one game of `header` with random legal commands: opens it (the
/// referee takes an already open game's header again as a retry), mirrors
/// its history, then sends commands until it ends.
async fn play_game(
    referee: &mut Referee,
    header: &Header,
    rng: &mut ChaCha8Rng,
    limits: &Limits<'_>,
    report: &mut SimReport,
) -> Result<(), ClientError> {
    let table = header.table;
    let fail = |reason: String| ClientError::Sim { table, reason };
    let setup = header.setup().map_err(|e| fail(e.to_string()))?;
    let paced = limits.speed.is_some_and(|x| x > 0.0);
    let mut at = if paced {
        wall_clock_ms()
    } else {
        1_700_000_000_000 + i64::from(table) * 1000
    };
    let opened = referee.open_game(header, at).await?;
    // A drawn deal's cards are the referee's until the game ends: only its
    // judges' history (the `dealt` event) tells them.
    let mut game = if opened.created && !header.deal.is_sealed() {
        // Only the opening is stored, dealt at `at` from the header's seed:
        // the engine is deterministic, so the mirror deals it the same
        // without fetching it (the first ack's sequence numbers check).
        Game::new(setup, at).0
    } else {
        // Mirror the game from the referee's history, so a rerun with the
        // same tournament continues instead of diverging.
        let history = referee.game(&opened.game_id, Audience::Judge).await?;
        let events: Vec<_> = history.events.into_iter().map(|l| l.envelope).collect();
        if let Some(last) = events.last() {
            at = at.max(last.at);
        }
        Game::replay(setup, &events).map_err(|e| fail(e.to_string()))?
    };
    let temper = Temper::draw(rng);
    let mut session = JudgeSession::attach(referee.clone(), &opened.game_id).await?;
    let mut sent = 0usize;
    while let Some(cmd) = random_command(&game, &temper, rng) {
        if sent >= limits.max_commands || (limits.out_of_time)() {
            break;
        }
        let think = rng.gen_range(500..30_000);
        if let Some(x) = limits.speed.filter(|x| *x > 0.0) {
            tokio::time::sleep(Duration::from_secs_f64(think as f64 / 1000.0 / x)).await;
            // Never backwards, even if the wall clock steps back.
            at = wall_clock_ms().max(at + 1);
        } else {
            at += think;
        }
        let t = Instant::now();
        match session.submit_for_seqs(at, &cmd).await? {
            Ok(theirs) => {
                report.latencies.push(t.elapsed());
                report.commands += 1;
                sent += 1;
                // The engine is deterministic: applying the command here
                // gives the events the referee should have sent, and
                // comparing sequence numbers catches any divergence.
                let mine = game
                    .apply(&cmd, at)
                    .map_err(|v| fail(format!("the local mirror refused {cmd:?}: {v}")))?;
                let ours: Vec<u64> = mine.iter().map(|e| u64::from(e.seq)).collect();
                // A drawn deal's reveal, the referee's, follows the last
                // events of the game.
                let revealed = game.is_over() && matches!(header.deal, Deal::Drawn(_));
                let theirs = match theirs.split_at_checked(ours.len()) {
                    Some((head, [_reveal])) if revealed => head.to_vec(),
                    _ => theirs,
                };
                if theirs != ours {
                    return Err(fail(format!(
                        "the referee's events {theirs:?} differ from the engine's {ours:?}"
                    )));
                }
            }
            Err(r) => {
                return Err(fail(format!(
                    "the referee rejected a legal {cmd:?}: {} {}",
                    r.refusal.code(),
                    r.refusal.message()
                )))
            }
        }
    }
    report.reconnects += session.reconnects();
    if game.is_over() {
        report.games_finished += 1;
    }
    Ok(())
}

/// The wall clock in ms since the epoch, as judges stamp commands.
pub(crate) fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
