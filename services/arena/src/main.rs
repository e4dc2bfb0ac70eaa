//! `mafia-arena`: Mafia Arena on one machine, in one process, on the
//! embedded event log: the referee (gRPC), the gateway (screens, WebSocket
//! feed, GraphQL), the scoring service (gRPC) and a demo tournament: named
//! players, each round seated and opened on the referee through the scoring
//! service, its games played through the referee like real judges, scored
//! as they end. What `make run` starts when no `REDIS_URL` is set.

mod tokens;
mod tournament;

use anyhow::Context;
use clap::Parser;
use mafia_access::{Role, Tokens};
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{Hub, HubConfig, ServerConfig};
use mafia_record::TournamentId;
use mafia_referee::RefereeOptions;
use rand::{RngCore, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

// jemalloc, as every service binary (see services/referee/src/main.rs).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser, Debug)]
#[command(name = "mafia-arena", version, about)]
struct Args {
    /// Tables of the demo tournament, ten players each (0: none, serve only).
    #[arg(long, env = "MAFIA_DEMO_TABLES", default_value_t = 8)]
    tables: u32,
    /// Rounds of the demo tournament.
    #[arg(long, env = "MAFIA_DEMO_ROUNDS", default_value_t = 10)]
    rounds: u32,
    /// Demo pace: simulated think time divided by this.
    #[arg(long, env = "MAFIA_DEMO_SPEED", default_value_t = 10.0)]
    speed: f64,
    /// The embedded event log's file.
    #[arg(long, env = "MAFIA_DATA", default_value = "data/arena.redb")]
    data: PathBuf,
    /// The referee's gRPC address.
    #[arg(long, env = "MAFIA_REFEREE_LISTEN", default_value = "127.0.0.1:50051")]
    grpc: String,
    /// The scoring service's gRPC address.
    #[arg(long, env = "MAFIA_SCORING_LISTEN", default_value = "127.0.0.1:50053")]
    scoring: String,
    /// The gateway's HTTP address (screens, WebSocket feed, GraphQL).
    #[arg(long, env = "MAFIA_GATEWAY_LISTEN", default_value = "127.0.0.1:8080")]
    http: String,
    /// The token file (docs/config.md): read if it exists, else made once
    /// with fresh tokens and kept, so printed URLs survive restarts.
    /// Default: `tokens.json` beside the data file.
    #[arg(long, env = "MAFIA_TOKENS_FILE")]
    tokens_file: Option<PathBuf>,
    /// Broadcast delay in seconds.
    #[arg(long, env = "MAFIA_BROADCAST_DELAY_SECS", default_value_t = 60)]
    broadcast_delay_secs: u64,
    /// Start no service: drive the demo tournament on services that run
    /// elsewhere (`--scoring-url`, `--referee-url`, the organiser's and the
    /// chief judge's tokens), as deploy/run.sh does with REDIS_URL.
    #[arg(long, requires_all = ["scoring_url", "referee_url", "organiser_token", "chief_token"])]
    drive: bool,
    #[arg(long, env = "MAFIA_SCORING_URL")]
    scoring_url: Option<String>,
    #[arg(long, env = "MAFIA_REFEREE_URL")]
    referee_url: Option<String>,
    #[arg(long, env = "MAFIA_ORGANISER_TOKEN", hide_env_values = true)]
    organiser_token: Option<String>,
    #[arg(long, env = "MAFIA_CHIEF_TOKEN", hide_env_values = true)]
    chief_token: Option<String>,
    /// The demo tournament's id (default: `demo-<unix time>`).
    #[arg(long)]
    tournament: Option<String>,
}

/// `--drive`: the demo tournament on services elsewhere, until it is over
/// or Ctrl-C.
async fn drive(args: Args, tournament: TournamentId, seed: u64) -> anyhow::Result<()> {
    let demo = tournament::Demo {
        scoring: args.scoring_url.unwrap_or_default(),
        referee: args.referee_url.unwrap_or_default(),
        tournament,
        tables: args.tables.max(1),
        rounds: args.rounds.max(1),
        speed: args.speed,
        seed,
        organiser: args.organiser_token.unwrap_or_default(),
        chief: args.chief_token.unwrap_or_default(),
    };
    let stopped = mafia_proto::web::terminated()?;
    println!(
        "  demo tournament {}: {} players at {} tables, {} rounds",
        demo.tournament,
        demo.tables * 10,
        demo.tables,
        demo.rounds
    );
    tokio::select! {
        r = demo.run() => r,
        () = stopped => Ok(()),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "warn,mafia_arena=info".into()),
        )
        .init();
    let args = Args::parse();

    let mut rng = rand_chacha::ChaCha8Rng::from_entropy();
    // A new tournament name each run: game ids never collide with the
    // finished games an earlier run left in the same file.
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let tournament = TournamentId::new(
        args.tournament
            .clone()
            .unwrap_or_else(|| format!("demo-{started}")),
    )?;
    if args.drive {
        return drive(args, tournament, rng.next_u64()).await;
    }
    // One token file for the referee, the gateway and the scoring service,
    // as separate processes read it from MAFIA_TOKENS_FILE. The organiser's
    // token opens each round's games on the referee (the scoring service)
    // and runs the demo tournament.
    let tokens_file = args
        .tokens_file
        .clone()
        .unwrap_or_else(|| args.data.with_file_name("tokens.json"));
    let (file, created) = tokens::load_or_create(&tokens_file, &mut rng)?;
    // One table for the three services: the referee's and the scoring
    // service's followers of the `access` stream keep it, the gateway reads it.
    let tokens = Tokens::new(&file)?;
    let token = |role| file.token_of(role).unwrap_or_default().to_owned();
    let (chief, broadcast, judge, organiser) = (
        token(Role::ChiefJudge),
        token(Role::Broadcast),
        token(Role::TableJudge),
        token(Role::Organiser),
    );

    if let Some(dir) = args.data.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(&args.data)
            .await
            .with_context(|| format!("opening {}", args.data.display()))?,
    );

    // The gateway's listener first: the referee admits the judge console's
    // origin (the gateway's address) to its gRPC-web endpoint.
    let http = tokio::net::TcpListener::bind(&args.http)
        .await
        .with_context(|| format!("binding {}", args.http))?;
    let addr = http.local_addr()?;
    let referee = mafia_referee::server::start(
        tokio::net::TcpListener::bind(&args.grpc)
            .await
            .with_context(|| format!("binding {}", args.grpc))?,
        log.clone(),
        RefereeOptions {
            tokens: tokens.clone(),
            web_origins: console_origins(addr),
            ..RefereeOptions::default()
        },
    )
    .await?;

    let scoring = mafia_scoring::start_with_options(
        tokio::net::TcpListener::bind(&args.scoring)
            .await
            .with_context(|| format!("binding {}", args.scoring))?,
        log.clone(),
        tokens.clone(),
        mafia_scoring::ServeOptions {
            referee: Some(mafia_scoring::RefereeLink {
                url: format!("http://{}", referee.addr),
                token: organiser.clone(),
            }),
            // The judge console sends post-game inputs from the gateway's page.
            web_origins: console_origins(addr),
            ..Default::default()
        },
    )
    .await?;

    let hub = Hub::start(
        log.clone(),
        HubConfig {
            broadcast_delay: Duration::from_secs(args.broadcast_delay_secs),
            ..HubConfig::default()
        },
    )
    .await?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let gateway = {
        let mut state = mafia_gateway::app_state(hub.clone(), tokens, ServerConfig::default());
        state.console.referee_url = Some(format!("http://{}", referee.addr));
        state.console.scoring_url = Some(format!("http://{}", scoring.addr));
        // The standings screens and GraphQL `standings` read the scoring
        // service's tournament streams off the same log.
        let mut standings_stop = stop_rx.clone();
        tokio::spawn(mafia_gateway::board::follow(
            state.standings.clone(),
            log.clone(),
            async move {
                let _ = standings_stop.wait_for(|s| *s).await;
            },
        ));
        let mut stop = stop_rx.clone();
        tokio::spawn(mafia_gateway::serve(http, state, async move {
            let _ = stop.wait_for(|s| *s).await;
        }))
    };

    // Ctrl-C and SIGTERM stop cleanly from the moment the URLs are printed:
    // both are caught from here on, not only once the wait below has begun.
    let stopped = mafia_proto::web::terminated()?;
    println!("Mafia Arena is running (Ctrl-C stops it).");
    println!();
    println!("  hall screen:      http://{addr}/hall");
    // Stable: the overlay follows whatever game is current at table 1 of
    // the tournament that moved last, and the token is kept in the file.
    println!("  OBS overlay:      http://{addr}/overlay?table=1&token={broadcast}  (table 1, any round; &lang=ru)");
    println!("                    http://{addr}/overlay?tournament={tournament}&table=1&token={broadcast}  (this tournament only)");
    println!("  spectator page:   http://{addr}/spectator");
    println!("  chief judge:      http://{addr}/judge?token={chief}&tournament={tournament}");
    println!("  standings:        http://{addr}/standings?tournament={tournament}");
    println!("  standings (OBS):  http://{addr}/standings-overlay?tournament={tournament}&top=10");
    println!("  GraphQL:          http://{addr}/graphql");
    println!("  judge console:    http://{addr}/judge-console  (a table judge's or the chief judge's token)");
    println!("  referee (gRPC):   http://{}", referee.addr);
    println!(
        "  scoring (gRPC):   http://{}  (mafia.v1.Scoring, tournament {tournament})",
        scoring.addr
    );
    println!();
    println!(
        "  tokens ({} {}):",
        if created { "new, kept in" } else { "from" },
        tokens_file.display()
    );
    println!("    chief judge:    {chief}");
    println!(
        "    broadcast:      {broadcast}  (delayed {} s)",
        args.broadcast_delay_secs
    );
    println!("    table judge:    {judge}  (table 1)");
    println!("    organiser:      {organiser}");
    println!();
    println!("  data:             {}", args.data.display());

    let demo = (args.tables > 0).then(|| {
        let demo = tournament::Demo {
            scoring: format!("http://{}", scoring.addr),
            referee: format!("http://{}", referee.addr),
            tournament: tournament.clone(),
            tables: args.tables,
            rounds: args.rounds.max(1),
            speed: args.speed,
            seed: rng.next_u64(),
            organiser,
            chief,
        };
        println!();
        println!(
            "  demo tournament:  {} players at {} tables, {} rounds",
            args.tables * 10,
            args.tables,
            demo.rounds
        );
        tokio::spawn(async move {
            if let Err(e) = demo.run().await {
                tracing::error!(error = %format!("{e:#}"), "demo tournament stopped");
            }
        })
    });

    stopped.await;
    eprintln!("stopping…");
    if let Some(demo) = demo {
        demo.abort();
    }
    let _ = stop_tx.send(true);
    let _ = gateway.await;
    scoring.shutdown().await;
    referee.shutdown().await;
    hub.close();
    Ok(())
}

/// The origins a browser gives pages of the gateway at `addr`: the judge
/// console calls the referee from there.
fn console_origins(addr: std::net::SocketAddr) -> Vec<String> {
    let mut origins = vec![format!("http://{addr}")];
    if addr.ip().is_loopback() {
        origins.push(format!("http://localhost:{}", addr.port()));
    }
    origins
}
