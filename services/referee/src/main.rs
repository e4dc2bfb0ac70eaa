//! `mafia-referee`: serves the referee over gRPC.

use anyhow::{bail, Context};
use clap::{Parser, ValueEnum};
use mafia_event_log::{EmbeddedLog, EventLog, RedisLog, RedisLogConfig};
use mafia_referee::{server, RefereeOptions, Tokens};
use std::sync::Arc;
use std::time::Duration;

// jemalloc, chosen on measurement (issue 15): against glibc's allocator it
// cost the referee 8-12 % less CPU per command and the gateway 5-10 % less
// per delivery, for a few KiB more per table on Redis and a higher peak on
// the embedded store (figures in the commit log).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Store {
    /// A local append-only log file (one referee per file).
    Embedded,
    /// A Redis server shared by several referees.
    Redis,
}

/// The referee: judges stream games to it over gRPC; every accepted event is
/// stored before its acknowledgement.
#[derive(Parser, Debug)]
#[command(name = "mafia-referee", version)]
struct Args {
    /// gRPC listen address.
    #[arg(long, env = "MAFIA_REFEREE_LISTEN", default_value = "127.0.0.1:50051")]
    listen: String,
    /// Prometheus `/metrics` listen address; empty to disable.
    #[arg(long, env = "MAFIA_REFEREE_METRICS", default_value = "127.0.0.1:9464")]
    metrics_listen: String,
    /// Event log backend.
    #[arg(
        long,
        env = "MAFIA_REFEREE_STORE",
        value_enum,
        default_value = "embedded"
    )]
    store: Store,
    /// Database file of the embedded store.
    #[arg(long, env = "MAFIA_REFEREE_DB", default_value = "mafia-referee.redb")]
    db: String,
    /// Redis URL of the redis store: redis://host:port/db, or a Redis Cluster as redis+cluster://host1:port1,host2:port2,… (any of its nodes).
    #[arg(long, env = "REDIS_URL", default_value = "redis://127.0.0.1:6379/")]
    redis_url: String,
    /// Shards of the event log's feed on Redis (the same for every service of one log).
    #[arg(long, env = "MAFIA_FEED_SHARDS", default_value_t = 16)]
    feed_shards: u16,
    /// Prefix of every Redis key (the same for every service).
    #[arg(long, env = "MAFIA_LOG_PREFIX", default_value = "mafia")]
    redis_prefix: String,
    /// Token file (docs/config.md; crates/access).
    #[arg(long, env = mafia_access::ENV_TOKENS_FILE)]
    tokens_file: Option<std::path::PathBuf>,
    /// The token file's JSON itself, added to the file's tokens.
    #[arg(long, env = mafia_access::ENV_TOKENS, hide_env_values = true)]
    tokens: Option<String>,
    /// Lease time to live in ms: how long a crashed referee blocks its games.
    #[arg(long, env = "MAFIA_REFEREE_LEASE_MS", default_value_t = 3000)]
    lease_ms: u64,
    /// This referee's lease owner name (default: referee-PID-NANOS).
    #[arg(long, env = "MAFIA_REFEREE_OWNER")]
    owner: Option<String>,
    /// Largest accepted gRPC message in bytes.
    #[arg(long, env = "MAFIA_REFEREE_MAX_MESSAGE_BYTES", default_value_t = 65536)]
    max_message_bytes: usize,
    /// PEM certificate chain: serve TLS (needs --tls-key).
    #[arg(long, env = "MAFIA_REFEREE_TLS_CERT")]
    tls_cert: Option<String>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "MAFIA_REFEREE_TLS_KEY")]
    tls_key: Option<String>,
    /// Origins (comma-separated) whose pages may call over gRPC-web: the
    /// gateway serving the judge console, e.g. http://127.0.0.1:8080; * for any.
    #[arg(long, env = "MAFIA_REFEREE_WEB_ORIGINS", value_delimiter = ',')]
    web_origins: Vec<String>,
    /// Log JSON lines instead of text (filter with RUST_LOG, default info).
    #[arg(long, env = "MAFIA_REFEREE_LOG_JSON")]
    log_json: bool,
    /// Threads running the referee's tasks (default: one per core). On a
    /// machine whose cores it shares with Redis or a gateway, fewer threads
    /// spend less CPU per command: a wakeup then seldom crosses threads.
    /// With 1, every task runs on the main thread (tokio's current-thread
    /// runtime): on two cores that cost a fifth less CPU per command than
    /// one worker beside the main thread, for a sixth more throughput.
    #[arg(long, env = "MAFIA_REFEREE_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut runtime = if args.workers == Some(1) {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        if let Some(n) = args.workers {
            b.worker_threads(usize::from(n));
        }
        b
    };
    runtime.enable_all().build()?.block_on(serve(args))
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    // Logs go to stderr: stdout carries the "listening on" line for scripts.
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    if args.log_json {
        logs.json().init();
    } else {
        logs.init();
    }

    let tokens = Tokens::load(args.tokens_file.as_deref(), args.tokens.as_deref())?;
    if tokens.is_empty() {
        bail!("no tokens configured: pass --tokens-file FILE (MAFIA_TOKENS_FILE) or MAFIA_TOKENS");
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(c), Some(k)) => Some((
            std::fs::read(c).with_context(|| format!("reading {c}"))?,
            std::fs::read(k).with_context(|| format!("reading {k}"))?,
        )),
        (None, None) => None,
        _ => bail!("--tls-cert and --tls-key go together"),
    };
    let mut opts = RefereeOptions {
        lease_ttl: Duration::from_millis(args.lease_ms.max(100)),
        tokens,
        max_message_bytes: args.max_message_bytes,
        tls,
        web_origins: args.web_origins,
        ..RefereeOptions::default()
    };
    if let Some(o) = args.owner {
        opts.owner = o;
    }

    let log: Arc<dyn EventLog> = match args.store {
        Store::Embedded => Arc::new(
            EmbeddedLog::open(&args.db)
                .await
                .with_context(|| format!("opening {}", args.db))?,
        ),
        Store::Redis => Arc::new(
            RedisLog::connect_with(
                &args.redis_url,
                RedisLogConfig {
                    feed_shards: args.feed_shards,
                    ..RedisLogConfig::with_prefix(&args.redis_prefix)
                },
            )
            .await
            .with_context(|| format!("connecting to {}", args.redis_url))?,
        ),
    };

    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let mut running = server::start(listener, log, opts).await?;
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
    // Printed for scripts that start referees on port 0.
    println!("listening on {}", running.addr);
    terminated.await;
    tracing::info!("shutting down");
    running.shutdown().await;
    Ok(())
}
