//! `--gateways N` (`make bench-gateway-scale`): the subscriber count one
//! process cannot hold (a process may open at most `ulimit -n`
//! descriptors: 20,000 here), spread over N gateway processes following
//! one Redis log, as gateways are deployed behind a balancer. Each gateway
//! gets its own subscriber process. Prints the same `name: value unit`
//! lines for the whole machine.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use mafia_event_log::testing::RedisServer;
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};

use super::{cpu_us, create_games, play, report, rss_kib, Args};

fn log_config(args: &Args) -> RedisLogConfig {
    RedisLogConfig {
        feed_block: Duration::from_millis(500),
        ..RedisLogConfig::with_prefix(format!("bench{}", args.run))
    }
}

/// A gateway process (`--serve-redis URL`): a hub on the Redis log and the
/// gateway's server; prints `listening ADDR`, serves until stdin closes.
pub async fn serve_main(url: &str, args: &Args) -> anyhow::Result<()> {
    let log: Arc<dyn EventLog> = Arc::new(RedisLog::connect_with(url, log_config(args)).await?);
    let hub = Hub::start(log, HubConfig::default()).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    // Every subscriber connects from loopback: no per-address cap.
    let server = ServerConfig {
        max_connections_per_address: 0,
        ..ServerConfig::default()
    };
    let state = app_state(hub.clone(), Tokens::default(), server);
    let stdin_closed = async {
        let _ = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
                line.clear();
            }
        })
        .await;
    };
    mafia_gateway::serve(listener, state, stdin_closed).await?;
    hub.close();
    Ok(())
}

/// A gateway process and its subscriber process, killed when dropped,
/// however the run ends (the gateway also ends when its stdin closes).
struct Pair {
    server: Child,
    /// Held open: the gateway serves until it closes.
    _server_in: ChildStdin,
    client: Child,
    client_in: ChildStdin,
    client_out: BufReader<ChildStdout>,
}

impl Drop for Pair {
    fn drop(&mut self) {
        for c in [&mut self.client, &mut self.server] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub async fn scale_main(args: Args) -> anyhow::Result<()> {
    let n = args.gateways.max(1);
    // A private redis-server without persistence (the gateways are
    // measured, not the log), or the one REDIS_URL names.
    let redis = RedisServer::from_env_or_spawn()?;
    let url = redis.url().to_owned();
    let redis_cpu = || {
        redis
            .pid()
            .and_then(|p| mafia_profile::process::cpu_us(&p.to_string()))
    };
    let log: Arc<dyn EventLog> = Arc::new(RedisLog::connect_with(&url, log_config(&args)).await?);
    let mut games = create_games(log.as_ref(), args.tables).await?;
    let exe = std::env::current_exe()?;
    let mut pairs = Vec::new();
    let mut rss_before = 0;
    for i in 0..n {
        let mut server = Command::new(&exe)
            .args(["--serve-redis", &url, "--run", &args.run.to_string()])
            .args(["--workers", &args.workers.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting a gateway process")?;
        let server_in = server.stdin.take().context("stdin")?;
        let mut line = String::new();
        BufReader::new(server.stdout.take().context("stdout")?).read_line(&mut line)?;
        let addr: SocketAddr = line
            .trim()
            .strip_prefix("listening ")
            .context("no address from a gateway process")?
            .parse()?;
        // Let the hub catch up with the games before measuring memory.
        tokio::time::sleep(Duration::from_millis(500)).await;
        rss_before += rss_kib(&server.id().to_string());
        // Split evenly, the remainder to the first ones.
        let share = |total: u32| total / n + u32::from(i < total % n);
        let mut client = Command::new(&exe)
            .args(["--client", &addr.to_string()])
            .args(["--tables", &args.tables.to_string()])
            .args(["--raw", &share(args.raw).to_string()])
            .args(["--graphql", &share(args.graphql).to_string()])
            .args(["--workers", &args.workers.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting a subscriber process")?;
        let client_in = client.stdin.take().context("stdin")?;
        let client_out = BufReader::new(client.stdout.take().context("stdout")?);
        pairs.push(Pair {
            server,
            _server_in: server_in,
            client,
            client_in,
            client_out,
        });
    }
    let mut connected = 0u64;
    for p in &mut pairs {
        let mut ready = String::new();
        tokio::task::block_in_place(|| p.client_out.read_line(&mut ready))?;
        connected += ready
            .trim()
            .strip_prefix("ready ")
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0);
    }
    if connected == 0 {
        bail!("no subscriber connected");
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_idle: u64 = pairs
        .iter()
        .map(|p| rss_kib(&p.server.id().to_string()))
        .sum();
    for p in &mut pairs {
        report(&mut p.client_in, &mut p.client_out)?;
    }
    let cpu = |pairs: &[Pair]| -> (u64, u64) {
        pairs.iter().fold((0, 0), |(s, c), p| {
            (
                s + cpu_us(&p.server.id().to_string()),
                c + cpu_us(&p.client.id().to_string()),
            )
        })
    };
    let (server0, client0) = cpu(&pairs);
    let redis0 = redis_cpu();
    play(
        log.clone(),
        &mut games,
        args.secs,
        Duration::from_millis(args.pace_ms),
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (mut raw, mut gql, mut p50, mut p99) = (0, 0, 0, 0);
    for p in &mut pairs {
        let (r, g, p50_of, p99_of) = report(&mut p.client_in, &mut p.client_out)?;
        raw += r;
        gql += g;
        p50 = p50.max(p50_of);
        p99 = p99.max(p99_of);
    }
    let (server1, client1) = cpu(&pairs);
    let redis1 = redis_cpu();
    let redis_cpu = redis1.zip(redis0).map(|(b, a)| b - a);
    for p in &mut pairs {
        let _ = writeln!(p.client_in, "quit");
        let _ = p.client.wait();
    }
    drop(pairs);

    let secs = args.secs as f64;
    let deliveries = (raw + gql).max(1) as f64;
    println!("gateway_processes: {n} procs");
    println!("subscribers_connected: {connected} conns");
    println!("deliveries_per_sec: {:.0} msg/s", (raw + gql) as f64 / secs);
    println!("raw_deliveries_per_sec: {:.0} msg/s", raw as f64 / secs);
    println!("graphql_deliveries_per_sec: {:.0} msg/s", gql as f64 / secs);
    // The gateways only: the tables are played by this process.
    println!(
        "server_cpu_us_per_delivery: {:.2} us",
        (server1 - server0) as f64 / deliveries
    );
    println!(
        "client_cpu_us_per_delivery: {:.2} us",
        (client1 - client0) as f64 / deliveries
    );
    if let Some(us) = redis_cpu {
        println!(
            "redis_cpu_us_per_delivery: {:.2} us",
            us as f64 / deliveries
        );
    }
    // The worst of the subscriber processes' figures.
    println!("latency_p50_ms: {p50} ms");
    println!("latency_p99_ms: {p99} ms");
    println!(
        "kib_per_idle_conn: {:.1} KiB",
        rss_idle.saturating_sub(rss_before) as f64 / connected as f64
    );
    Ok(())
}
