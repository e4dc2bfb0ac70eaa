//! `mafia-gateway`: follows the referee's event log and serves the tables.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use mafia_event_log::{EmbeddedLog, EventLog, RedisLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};

// jemalloc, as every service binary (see services/referee/src/main.rs).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser, Debug)]
#[command(about = "Live tables for hall screens, overlays, spectators and judges")]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "MAFIA_GATEWAY_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Prometheus `/metrics` listen address; empty to disable.
    #[arg(long, env = "MAFIA_GATEWAY_METRICS", default_value = "127.0.0.1:9465")]
    metrics_listen: String,
    /// Follow this Redis event log (shared with the referee processes):
    /// redis://host:port/db, or a Redis Cluster as redis+cluster://host1:port1,host2:port2,… (any of its nodes).
    #[arg(long, env = "REDIS_URL")]
    redis_url: Option<String>,
    /// Shards of the event log's feed on Redis (the same for every service of one log).
    #[arg(long, env = "MAFIA_FEED_SHARDS", default_value_t = 16)]
    feed_shards: u16,
    /// Key prefix of the Redis event log.
    #[arg(long, env = "MAFIA_LOG_PREFIX", default_value = "mafia")]
    redis_prefix: String,
    /// Otherwise, the embedded log file (only one process may open it).
    #[arg(long, default_value = "data/events.redb")]
    data: PathBuf,
    /// Token file (docs/config.md; crates/access).
    #[arg(long, env = mafia_access::ENV_TOKENS_FILE)]
    tokens_file: Option<PathBuf>,
    /// The token file's JSON itself, added to the file's tokens.
    #[arg(long, env = mafia_access::ENV_TOKENS, hide_env_values = true)]
    tokens: Option<String>,
    /// Broadcast delay in seconds.
    #[arg(long, env = "MAFIA_BROADCAST_DELAY_SECS", default_value_t = 60)]
    broadcast_delay_secs: u64,
    /// Also play this many simulated tables into the log (a demo).
    #[arg(long, default_value_t = 0)]
    demo: u32,
    /// Milliseconds between commands at each demo table.
    #[arg(long, default_value_t = 1500)]
    demo_pace_ms: u64,
    /// The referee's gRPC-web URL as judges' browsers reach it, for the
    /// judge console (`/judge-console`); the referee must admit this
    /// gateway's origin (`MAFIA_REFEREE_WEB_ORIGINS`).
    #[arg(long, env = "MAFIA_CONSOLE_REFEREE_URL")]
    console_referee_url: Option<String>,
    /// The scoring service's gRPC-web URL as judges' browsers reach it: the
    /// console sends a tournament game's post-game inputs there; the
    /// scoring service must admit this gateway's origin
    /// (`MAFIA_SCORING_WEB_ORIGINS`).
    #[arg(long, env = "MAFIA_CONSOLE_SCORING_URL")]
    console_scoring_url: Option<String>,
    /// Connections (HTTP and WebSockets) one client address may hold at
    /// once; more are answered 503 before any upgrade. 0: no cap (behind a
    /// proxy, where every client has the proxy's address: cap there).
    #[arg(long, env = "MAFIA_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = mafia_gateway::app::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)]
    max_connections_per_address: usize,
    /// How long a finished game stays in memory (its feeds, the hall's
    /// table) after the broadcast saw its end; its protocol stays in the
    /// log.
    #[arg(long, env = "MAFIA_FINISHED_RETENTION_SECS", default_value_t = 3600)]
    finished_retention_secs: u64,
    /// Origins (comma-separated, `scheme://host[:port]`) players' photos
    /// may be loaded from; a photo elsewhere is not shown, and the pages
    /// load images from the gateway and these only.
    #[arg(long, env = "MAFIA_PHOTO_HOSTS", value_delimiter = ',')]
    photo_hosts: Vec<String>,
    /// Print the GraphQL schema (SDL) and exit.
    #[arg(long)]
    print_schema: bool,
    /// Threads of the runtime; by default one per core. On a machine whose
    /// cores it shares with its subscribers' or other services' work, fewer
    /// threads spend less CPU per delivery: a wakeup then seldom crosses
    /// threads.
    #[arg(long, env = "MAFIA_GATEWAY_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// Serve `/ws/autobahn-echo`, an echo WebSocket on the feeds' own
    /// transport, for conformance runs of the Autobahn fuzzing client
    /// (`tests/autobahn/run.sh`) only: it answers anyone.
    #[arg(long)]
    autobahn_echo: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.workers {
        runtime.worker_threads(usize::from(n));
    }
    runtime.enable_all().build()?.block_on(serve(args))
}

async fn serve(args: Args) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    if args.print_schema {
        print!("{}", mafia_gateway::graphql::sdl());
        return Ok(());
    }
    let mut demo_tokens = None;
    let mut tokens = Tokens::load(args.tokens_file.as_deref(), args.tokens.as_deref())?;
    if tokens.is_empty() && args.demo > 0 {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::from_entropy();
        let first = mafia_access::GamePattern::exactly(&mafia_gateway::demo::game_id("demo", 1, 1));
        let file = mafia_access::TokenFile::demo(&mut rng, first);
        tokens = Tokens::new(&file)?;
        demo_tokens = Some(file);
    } else if tokens.is_empty() {
        tracing::warn!("no tokens configured: only the public audience is served");
    }
    let log: Arc<dyn EventLog> = match &args.redis_url {
        Some(url) => Arc::new(
            RedisLog::connect_with(
                url,
                mafia_event_log::RedisLogConfig {
                    feed_shards: args.feed_shards,
                    ..mafia_event_log::RedisLogConfig::with_prefix(args.redis_prefix.clone())
                },
            )
            .await
            .context("connecting to Redis")?,
        ),
        None => {
            if let Some(dir) = args.data.parent() {
                std::fs::create_dir_all(dir)?;
            }
            Arc::new(
                EmbeddedLog::open(&args.data)
                    .await
                    .context("opening the event log")?,
            )
        }
    };
    let log_for_demo = log.clone();
    let log_for_standings = log.clone();
    // Credentials issued and revoked at runtime (the log's `access` stream).
    tokio::spawn(mafia_access::follow::run(
        tokens.clone(),
        log.clone(),
        std::future::pending(),
    ));
    let hub = Hub::start(
        log,
        HubConfig {
            broadcast_delay: Duration::from_secs(args.broadcast_delay_secs),
            retention: Duration::from_secs(args.finished_retention_secs),
            ..HubConfig::default()
        },
    )
    .await
    .context("loading the tables")?;
    if args.demo > 0 {
        let log = log_for_demo.clone();
        let (tables, pace) = (args.demo, Duration::from_millis(args.demo_pace_ms));
        tokio::spawn(async move {
            if let Err(e) = mafia_gateway::demo::run(log, tables, pace, 1).await {
                tracing::error!(error = %e, "demo stopped");
            }
        });
    }
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr = listener.local_addr()?;
    // Before the address goes out: whoever reads it may signal at once.
    let terminated = mafia_proto::web::terminated()?;
    tracing::info!(%addr, "gateway listening");
    println!("hall screen:   http://{addr}/hall");
    println!(
        "OBS overlay:   http://{addr}/overlay?tournament=TOURNAMENT&table=N&token=BROADCAST_TOKEN"
    );
    println!("spectator:     http://{addr}/spectator");
    println!("chief judge:   http://{addr}/judge?token=CHIEF_JUDGE_TOKEN");
    if let Some(file) = &demo_tokens {
        println!("demo tokens (this run only):");
        for t in &file.tokens {
            let games: Vec<String> = t.games.iter().map(ToString::to_string).collect();
            let scope = if games.is_empty() {
                "every game".to_owned()
            } else {
                games.join(", ")
            };
            println!("  {:<12} {} ({scope})", t.role.name(), t.token);
        }
        use mafia_access::Role;
        let token = |role| file.token_of(role).unwrap_or_default();
        println!(
            "  e.g. http://{addr}/overlay?table=1&token={}",
            token(Role::Broadcast)
        );
        println!(
            "       http://{addr}/judge?token={}",
            token(Role::ChiefJudge)
        );
    }
    println!("judge console: http://{addr}/judge-console");
    let server = ServerConfig {
        max_connections_per_address: args.max_connections_per_address,
        autobahn_echo: args.autobahn_echo,
        ..ServerConfig::default()
    };
    let mut state = app_state(hub.clone(), tokens, server);
    state.console.referee_url = args.console_referee_url.clone();
    state.console.scoring_url = args.console_scoring_url.clone();
    state.pages.photo_hosts = args.photo_hosts.clone();
    if !args.metrics_listen.is_empty() {
        let m = tokio::net::TcpListener::bind(&args.metrics_listen)
            .await
            .with_context(|| format!("binding {}", args.metrics_listen))?;
        // Printed for scripts that start gateways on port 0.
        println!("metrics:       http://{}/metrics", m.local_addr()?);
        tokio::spawn(mafia_gateway::metrics::serve(
            m,
            state.clone(),
            std::future::pending(),
        ));
    }
    tokio::spawn(mafia_gateway::standings::follow(
        state.standings.clone(),
        log_for_standings,
        std::future::pending(),
    ));
    mafia_gateway::serve(listener, state, terminated).await?;
    hub.close();
    Ok(())
}
