//! `mafia-scoring`: serves tournaments over gRPC.

use anyhow::{bail, Context};
use clap::Parser;
use mafia_event_log::{EmbeddedLog, EventLog, RedisLog, RedisLogConfig};
use mafia_scoring::{start_with_options, RefereeLink, ServeOptions, Tokens};
use std::sync::Arc;

// jemalloc, as every service binary (see services/referee/src/main.rs).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The scoring service: tournaments stored in the event log, standings from
/// the tournament crate.
#[derive(Parser, Debug)]
#[command(name = "mafia-scoring", version)]
struct Args {
    /// gRPC listen address.
    #[arg(long, env = "MAFIA_SCORING_LISTEN", default_value = "127.0.0.1:50053")]
    listen: String,
    /// Prometheus `/metrics` listen address; empty to disable.
    #[arg(long, env = "MAFIA_SCORING_METRICS", default_value = "127.0.0.1:9466")]
    metrics_listen: String,
    /// Directory of the embedded store (file `events.redb`); used unless
    /// REDIS_URL is set.
    #[arg(
        long,
        env = "MAFIA_SCORING_DATA_DIR",
        default_value = "mafia-scoring-data"
    )]
    data_dir: std::path::PathBuf,
    /// Redis URL: store in Redis (shared with the referee) instead:
    /// redis://host:port/db, or a Redis Cluster as redis+cluster://host1:port1,host2:port2,… (any of its nodes).
    #[arg(long, env = "REDIS_URL")]
    redis_url: Option<String>,
    /// Shards of the event log's feed on Redis (the same for every service of one log).
    #[arg(long, env = "MAFIA_FEED_SHARDS", default_value_t = 16)]
    feed_shards: u16,
    /// Prefix of every Redis key (the same for every service).
    #[arg(long, env = "MAFIA_LOG_PREFIX", default_value = "mafia")]
    redis_prefix: String,
    /// The referee that OpenRound opens games on, e.g. http://127.0.0.1:50051.
    #[arg(long, env = "MAFIA_REFEREE_URL")]
    referee_url: Option<String>,
    /// The organiser token OpenRound presents to the referee.
    #[arg(long, env = "MAFIA_SCORING_REFEREE_TOKEN", hide_env_values = true)]
    referee_token: Option<String>,
    /// Origins (comma-separated) whose pages may call over gRPC-web: the
    /// gateway serving the judge console, which sends post-game inputs,
    /// e.g. http://127.0.0.1:8080; * for any.
    #[arg(long, env = "MAFIA_SCORING_WEB_ORIGINS", value_delimiter = ',')]
    web_origins: Vec<String>,
    /// Token file (docs/config.md; crates/access).
    #[arg(long, env = mafia_access::ENV_TOKENS_FILE)]
    tokens_file: Option<std::path::PathBuf>,
    /// The token file's JSON itself, added to the file's tokens.
    #[arg(long, env = mafia_access::ENV_TOKENS, hide_env_values = true)]
    tokens: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();

    let tokens = Tokens::load(args.tokens_file.as_deref(), args.tokens.as_deref())?;
    if tokens.is_empty() {
        bail!("no tokens configured: pass --tokens-file FILE (MAFIA_TOKENS_FILE) or MAFIA_TOKENS");
    }
    let log: Arc<dyn EventLog> = match &args.redis_url {
        Some(url) => Arc::new(
            RedisLog::connect_with(
                url,
                RedisLogConfig {
                    feed_shards: args.feed_shards,
                    ..RedisLogConfig::with_prefix(&args.redis_prefix)
                },
            )
            .await
            .with_context(|| format!("connecting to {url}"))?,
        ),
        None => {
            std::fs::create_dir_all(&args.data_dir)
                .with_context(|| format!("creating {}", args.data_dir.display()))?;
            let db = args.data_dir.join("events.redb");
            Arc::new(
                EmbeddedLog::open(&db)
                    .await
                    .with_context(|| format!("opening {}", db.display()))?,
            )
        }
    };
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let referee = match (args.referee_url, args.referee_token) {
        (Some(url), Some(token)) => Some(RefereeLink { url, token }),
        (None, None) => None,
        _ => bail!("--referee-url and --referee-token go together"),
    };
    let opts = ServeOptions {
        referee,
        web_origins: args.web_origins,
        ..Default::default()
    };
    let mut running = start_with_options(listener, log, tokens, opts).await?;
    if !args.metrics_listen.is_empty() {
        let m = tokio::net::TcpListener::bind(&args.metrics_listen)
            .await
            .with_context(|| format!("binding {}", args.metrics_listen))?;
        tracing::info!(addr = %m.local_addr()?, "metrics on /metrics");
        running.serve_metrics(m);
    }
    // Before the line below: a signal sent as soon as it is read must find
    // the handlers in place, not end the process uncleanly.
    let terminated = mafia_proto::web::terminated()?;
    // Printed for scripts that start the service on port 0.
    println!("listening on {}", running.addr);
    terminated.await;
    tracing::info!("shutting down");
    running.shutdown().await;
    Ok(())
}
