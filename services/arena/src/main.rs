//! `mafia-arena`: Mafia Arena on one machine, in one process, on the
//! embedded event log: the referee (gRPC), the gateway (screens, WebSocket
//! feed, GraphQL) and a demo of simulated tables played through the referee
//! like real judges. What `make run` starts when no `REDIS_URL` is set.

use anyhow::Context;
use clap::Parser;
use mafia_access::{GamePattern, Role, TokenFile, Tokens};
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{Hub, HubConfig, ServerConfig};
use mafia_judge_client::{ClientConfig, Referee, SimConfig};
use mafia_record::TournamentId;
use mafia_referee::RefereeOptions;
use rand::{RngCore, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "mafia-arena", version, about)]
struct Args {
    /// Simulated tables to play (0: none, serve only).
    #[arg(long, env = "MAFIA_DEMO_TABLES", default_value_t = 8)]
    tables: u32,
    /// Demo pace: simulated think time divided by this.
    #[arg(long, env = "MAFIA_DEMO_SPEED", default_value_t = 10.0)]
    speed: f64,
    /// The embedded event log's file.
    #[arg(long, env = "MAFIA_DATA", default_value = "data/arena.redb")]
    data: PathBuf,
    /// The referee's gRPC address.
    #[arg(long, env = "MAFIA_REFEREE_LISTEN", default_value = "127.0.0.1:50051")]
    grpc: String,
    /// The gateway's HTTP address (screens, WebSocket feed, GraphQL).
    #[arg(long, env = "MAFIA_GATEWAY_LISTEN", default_value = "127.0.0.1:8080")]
    http: String,
    /// Broadcast delay in seconds.
    #[arg(long, env = "MAFIA_BROADCAST_DELAY_SECS", default_value_t = 60)]
    broadcast_delay_secs: u64,
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
    let tournament = TournamentId::new(format!("demo-{started}"))?;
    let first_game = format!("{tournament}.sim.r1.t1.g1");
    // One token file for the referee and the gateway, as separate
    // processes would read from MAFIA_TOKENS_FILE.
    let table_1: GamePattern = format!("{tournament}.*.*.t1.*").parse()?;
    let file = TokenFile::demo(&mut rng, table_1);
    let tokens = Tokens::new(&file)?;
    let token = |role| file.token_of(role).unwrap_or_default().to_owned();
    let (chief, broadcast, judge) = (
        token(Role::ChiefJudge),
        token(Role::Broadcast),
        token(Role::TableJudge),
    );

    if let Some(dir) = args.data.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let log: Arc<dyn EventLog> = Arc::new(
        EmbeddedLog::open(&args.data)
            .await
            .with_context(|| format!("opening {}", args.data.display()))?,
    );

    let referee = mafia_referee::server::start(
        tokio::net::TcpListener::bind(&args.grpc)
            .await
            .with_context(|| format!("binding {}", args.grpc))?,
        log.clone(),
        RefereeOptions {
            tokens: tokens.clone(),
            ..RefereeOptions::default()
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
    let http = tokio::net::TcpListener::bind(&args.http)
        .await
        .with_context(|| format!("binding {}", args.http))?;
    let addr = http.local_addr()?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let gateway = {
        let state = mafia_gateway::app_state(hub.clone(), tokens, ServerConfig::default());
        let mut stop = stop_rx.clone();
        tokio::spawn(mafia_gateway::serve(http, state, async move {
            let _ = stop.wait_for(|s| *s).await;
        }))
    };

    println!("Mafia Arena is running (Ctrl-C stops it).");
    println!();
    println!("  hall screen:      http://{addr}/hall");
    println!("  OBS overlay:      http://{addr}/overlay?table={first_game}&token={broadcast}");
    println!("  spectator page:   http://{addr}/spectator");
    println!("  chief judge:      http://{addr}/judge?token={chief}");
    println!("  GraphQL:          http://{addr}/graphql");
    println!("  referee (gRPC):   http://{}", referee.addr);
    println!();
    println!("  tokens (this run only):");
    println!("    chief judge:    {chief}");
    println!(
        "    broadcast:      {broadcast}  (delayed {} s)",
        args.broadcast_delay_secs
    );
    println!("    table judge:    {judge}  (table 1)");
    println!();
    println!("  data:             {}", args.data.display());

    let demo = (args.tables > 0).then(|| {
        let mut cfg = SimConfig::new(args.tables, rng.next_u64());
        cfg.tournament = tournament.clone();
        cfg.games_per_table = 1_000;
        cfg.speed = Some(args.speed);
        let url = format!("http://{}", referee.addr);
        tokio::spawn(async move {
            let referee = match Referee::new(ClientConfig::new(vec![url], chief)) {
                Ok(r) => r,
                Err(e) => return tracing::error!(error = %e, "demo tables"),
            };
            if let Err(e) = mafia_judge_client::simulate_tables(referee, cfg).await {
                tracing::error!(error = %e, "demo tables stopped");
            }
        })
    });

    mafia_gateway::closing::terminated().await;
    eprintln!("stopping…");
    if let Some(demo) = demo {
        demo.abort();
    }
    let _ = stop_tx.send(true);
    let _ = gateway.await;
    referee.shutdown().await;
    hub.close();
    Ok(())
}
