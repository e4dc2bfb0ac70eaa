//! The `mafia play` and `mafia sim` subcommands, ready to be mounted in any
//! clap CLI: flatten [`PlayArgs`] / [`SimArgs`] and call [`play`] / [`sim`].

use crate::{ClientConfig, ClientError, Referee, SimConfig};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// How to reach the referees.
#[derive(clap::Args, Debug, Clone)]
pub struct Connection {
    /// Referee URLs, comma separated; the next is tried when one fails.
    #[arg(
        long,
        env = "MAFIA_REFEREE",
        default_value = "http://127.0.0.1:50051",
        value_delimiter = ','
    )]
    pub referee: Vec<String>,
    /// Bearer token (a table judge's or the chief judge's).
    #[arg(long, env = "MAFIA_TOKEN", hide_env_values = true)]
    pub token: String,
    /// PEM CA certificate to trust for https:// referees.
    #[arg(long, env = "MAFIA_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// Seconds to keep reconnecting before giving up on a command.
    #[arg(long, default_value_t = 30)]
    pub retry_secs: u64,
    /// Also write every ack received to FILE, one JSON line each
    /// (`ack_log::AckLine`): what fault tests hold the stored logs against.
    #[arg(long)]
    pub acks: Option<PathBuf>,
}

impl Connection {
    pub fn referee(&self) -> Result<Referee, ClientError> {
        Referee::new(self.config()?)
    }

    /// The client configuration these flags describe.
    pub fn config(&self) -> Result<ClientConfig, ClientError> {
        let mut cfg = ClientConfig::new(self.referee.clone(), self.token.clone());
        cfg.retry_budget = Duration::from_secs(self.retry_secs);
        if let Some(p) = &self.acks {
            cfg.ack_log = Some(crate::AckLog::create(p).map_err(|e| ClientError::Record {
                line: 0,
                reason: format!("{}: {e}", p.display()),
            })?);
        }
        if let Some(p) = &self.tls_ca {
            cfg.tls_ca = Some(std::fs::read(p).map_err(|e| ClientError::Record {
                line: 0,
                reason: format!("{}: {e}", p.display()),
            })?);
        }
        Ok(cfg)
    }
}

/// Stream a game record to the referee as a table judge would.
#[derive(clap::Args, Debug, Clone)]
pub struct PlayArgs {
    #[command(flatten)]
    pub conn: Connection,
    /// The record (JSON Lines, FORMAT.md).
    pub file: PathBuf,
    /// Replay at X times real speed (the record's timestamps); default: no waiting.
    #[arg(long)]
    pub speed: Option<f64>,
}

/// Run N simulated tables of random legal games against the referee.
#[derive(clap::Args, Debug, Clone)]
pub struct SimArgs {
    #[command(flatten)]
    pub conn: Connection,
    #[arg(long, default_value_t = 1)]
    pub tables: u32,
    /// Games per table, one after another.
    #[arg(long, default_value_t = 1)]
    pub games: u32,
    /// X times real judge speed; default: no waiting (a load generator).
    #[arg(long)]
    pub speed: Option<f64>,
    /// RNG seed; also names the tournament (`sim-SEED`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop every table after this many seconds (games under way are left
    /// as they are): a timed run such as a soak.
    #[arg(long)]
    pub run_secs: Option<u64>,
}

fn runtime() -> Result<tokio::runtime::Runtime, ClientError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::Protocol(format!("tokio runtime: {e}")))
}

/// `mafia play`: exits with an error naming the line if a command is rejected.
pub fn play(args: &PlayArgs, out: &mut dyn Write) -> Result<(), ClientError> {
    let text = std::fs::read_to_string(&args.file).map_err(|e| ClientError::Record {
        line: 0,
        reason: format!("{}: {e}", args.file.display()),
    })?;
    let record = crate::parse_record(&text)?;
    let referee = args.conn.referee()?;
    let report = runtime()?.block_on(crate::play(referee, &record, args.speed))?;
    let _ = writeln!(
        out,
        "{}: {} commands sent, {} already stored, {} reconnects, {}",
        report.game_id,
        report.sent,
        report.skipped,
        report.reconnects,
        if report.over {
            format!("game over ({})", report.winner)
        } else {
            "game not finished".to_owned()
        }
    );
    Ok(())
}

/// `mafia sim`: prints one `name: value unit` line per figure.
pub fn sim(args: &SimArgs, out: &mut dyn Write) -> Result<(), ClientError> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    let mut cfg = SimConfig::new(args.tables, seed);
    cfg.games_per_table = args.games;
    cfg.speed = args.speed;
    cfg.run_for = args.run_secs.map(Duration::from_secs);
    // The simulation never reads the state: acks carry events only.
    let mut conn = args.conn.config()?;
    conn.omit_state = true;
    let referee = Referee::new(conn)?;
    let mut report = runtime()?.block_on(crate::simulate_tables(referee, cfg))?;
    let secs = report.elapsed.as_secs_f64().max(1e-9);
    let _ = writeln!(out, "tournament: sim-{seed}");
    let _ = writeln!(out, "games_finished: {}", report.games_finished);
    let _ = writeln!(out, "commands: {}", report.commands);
    let _ = writeln!(
        out,
        "cmds_per_sec: {:.0} cmd/s",
        report.commands as f64 / secs
    );
    for (name, q) in [("ack_p50_ms", 0.5), ("ack_p99_ms", 0.99)] {
        let _ = writeln!(
            out,
            "{name}: {:.2} ms",
            report.quantile(q).as_secs_f64() * 1e3
        );
    }
    let _ = writeln!(out, "reconnects: {}", report.reconnects);
    Ok(())
}

/// Judge a live game from the terminal, one shorthand line per action.
#[derive(clap::Args, Debug, Clone)]
pub struct JudgeArgs {
    #[command(flatten)]
    pub conn: Connection,
    /// The game to judge (the id OpenGame returned).
    #[arg(long, conflicts_with = "open", required_unless_present = "open")]
    pub game: Option<mafia_record::GameId>,
    /// Open the game of this record's header (its first line) and judge it.
    #[arg(long)]
    pub open: Option<PathBuf>,
    /// Line by line even on a terminal (the full screen is used only when
    /// stdin and stdout are terminals).
    #[arg(long)]
    pub plain: bool,
}

/// `mafia judge`: reads the judge's lines from stdin. Ok(true) when the
/// game ended.
pub fn judge(args: &JudgeArgs, out: &mut dyn Write) -> Result<bool, ClientError> {
    let target = match (&args.game, &args.open) {
        (Some(id), _) => crate::console::Target::Game(id.clone()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| ClientError::Record {
                line: 0,
                reason: format!("{}: {e}", path.display()),
            })?;
            let record = crate::parse_record(&text)?;
            crate::console::Target::Open(Box::new(record.header))
        }
        (None, None) => {
            return Err(ClientError::Record {
                line: 0,
                reason: "give --game ID or --open RECORD".into(),
            })
        }
    };
    let referee = args.conn.referee()?;
    use std::io::IsTerminal;
    if !args.plain && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let report =
            runtime()?.block_on(crate::tui::run(referee, target, &crate::sim::wall_clock_ms))?;
        if report.over {
            writeln!(out, "game {} over: {}", report.game_id, report.winner).ok();
        }
        return Ok(report.over);
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let report = runtime()?.block_on(crate::console::run(
        referee,
        target,
        &mut input,
        out,
        &crate::sim::wall_clock_ms,
    ))?;
    Ok(report.over)
}
