//! `gateway-bench`: the gateway under load on loopback. The parent process
//! runs the event log, the hub and the server and plays simulated tables;
//! a child process (this binary with `--client`) holds the subscribers, so
//! each side has its own file descriptors and memory is measured for the
//! server alone. Prints one `name: value unit` line per figure.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use clap::Parser;
use futures::{SinkExt, StreamExt};
use mafia_event_log::{EmbeddedLog, EventLog};
use mafia_gateway::{app_state, Hub, HubConfig, ServerConfig, Tokens};
use mafia_profile::Profile;
use mafia_rules::sim::simulate;
use mafia_rules::RuleSetId;
use rand::SeedableRng;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

mod floor;
mod scale;

// The gateway's allocator (services/gateway/src/main.rs): the server side
// of this bench stands for it.
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser, Debug, Clone)]
struct Args {
    /// Simulated tables.
    #[arg(long, default_value_t = 100)]
    tables: u32,
    /// Raw WebSocket subscribers.
    #[arg(long, default_value_t = 10_000)]
    raw: u32,
    /// GraphQL (graphql-transport-ws) subscribers.
    #[arg(long, default_value_t = 2_000)]
    graphql: u32,
    /// Seconds of traffic per phase.
    #[arg(long, default_value_t = 15)]
    secs: u64,
    /// Milliseconds between commands at each table.
    #[arg(long, default_value_t = 1000)]
    pace_ms: u64,
    /// Record a perf profile of the server side (this process) during the
    /// measured phase and write it to this directory as `gateway.folded`
    /// and `gateway.svg` (needs `perf`).
    #[arg(long, value_name = "DIR")]
    profile: Option<std::path::PathBuf>,
    /// Gateway processes sharing the subscribers, following one Redis log
    /// (a private redis-server, or REDIS_URL): past one process's
    /// descriptor limit. Prints the figures for all of them together.
    #[arg(long, default_value_t = 1)]
    gateways: u32,
    /// Threads of each process's runtime (the gateway's `--workers`), the
    /// subscriber processes' too. One by default: on two cores shared by
    /// the gateway and its subscribers, a second thread cost the server a
    /// sixth more CPU per delivery and the subscribers as much, for the
    /// same deliveries and p99.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    workers: u16,
    /// Internal: run as the subscriber process against this address.
    #[arg(long, hide = true)]
    client: Option<SocketAddr>,
    /// Internal: run as a gateway process on this Redis log.
    #[arg(long, hide = true)]
    serve_redis: Option<String>,
    /// Internal: the run's id, the Redis log's key prefix.
    #[arg(long, hide = true, default_value_t = 0)]
    run: u32,
    /// Skip measuring the floor (`sendto_floor_us_per_delivery`) after the
    /// run.
    #[arg(long)]
    no_floor: bool,
    /// Internal: run as the floor's reader process against this address,
    /// with `--raw` sockets.
    #[arg(long, hide = true)]
    floor_reader: Option<SocketAddr>,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Resident memory of a process (`self` or a pid), in KiB; 0 once gone.
fn rss_kib(pid: &str) -> u64 {
    mafia_profile::process::rss_kib(pid).unwrap_or(0)
}

/// Heap bytes in use (jemalloc's count): unlike the RSS, it does not keep
/// what a burst of handshakes used and freed, so it is the connections' own
/// state.
fn heap_in_use() -> u64 {
    // The counters are a snapshot taken at each epoch.
    if tikv_jemalloc_ctl::epoch::advance().is_err() {
        return 0;
    }
    tikv_jemalloc_ctl::stats::allocated::read().map_or(0, |b| b as u64)
}

/// CPU time a process has used so far, in µs; 0 once gone.
fn cpu_us(pid: &str) -> u64 {
    mafia_profile::process::cpu_us(pid).unwrap_or(0)
}

/// Latency histogram in 1 ms buckets, shared by every client task.
struct Histogram {
    buckets: Vec<AtomicU64>,
}

impl Histogram {
    fn new() -> Self {
        Histogram {
            buckets: (0..10_001).map(|_| AtomicU64::new(0)).collect(),
        }
    }
    fn record(&self, ms: i64) {
        let i = ms.clamp(0, 10_000) as usize;
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
    }
    fn take(&self) -> Vec<u64> {
        self.buckets
            .iter()
            .map(|b| b.swap(0, Ordering::Relaxed))
            .collect()
    }
}

fn percentile(h: &[u64], p: f64) -> u64 {
    let total: u64 = h.iter().sum();
    if total == 0 {
        return 0;
    }
    let want = ((total as f64) * p).ceil() as u64;
    let mut seen = 0;
    for (i, c) in h.iter().enumerate() {
        seen += c;
        if seen >= want {
            return i as u64;
        }
    }
    h.len() as u64
}

/// The `at` of a delta, found without parsing the whole message.
fn delta_at(text: &str) -> Option<i64> {
    if !text.contains(r#""delta""#) {
        return None;
    }
    let i = text.find(r#""at":"#)? + 5;
    let rest = &text[i..];
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

/// Connects a subscriber. With tungstenite's default read buffer (128 KiB,
/// zeroed again before each read) the subscribers spent half their CPU in
/// `memset` and held 128 KiB per connection; the gateway's messages are a
/// few hundred bytes, and a longer one is read in several pieces.
async fn subscribe<R: IntoClientRequest + Unpin>(
    req: R,
) -> Option<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
> {
    let config = WebSocketConfig::default().read_buffer_size(4096);
    tokio_tungstenite::connect_async_with_config(req, Some(config), true)
        .await
        .ok()
        .map(|(ws, _)| ws)
}

struct ClientStats {
    raw: AtomicU64,
    gql: AtomicU64,
    connected: AtomicU64,
    hist: Histogram,
}

async fn raw_client(
    addr: SocketAddr,
    table: String,
    stats: Arc<ClientStats>,
    stop: Arc<AtomicBool>,
) {
    let url = format!("ws://{addr}/ws/game/{table}");
    let Some(ws) = subscribe(url).await else {
        return;
    };
    stats.connected.fetch_add(1, Ordering::Relaxed);
    count_deltas(ws, &stats, &stats.raw, &stop).await;
}

/// Reads until the stream ends or `stop`, counting each delta in `count`
/// and its latency in the histogram.
async fn count_deltas(
    mut ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    stats: &ClientStats,
    count: &AtomicU64,
    stop: &AtomicBool,
) {
    while let Some(Ok(m)) = ws.next().await {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if let Message::Text(t) = m {
            if let Some(at) = delta_at(&t) {
                count.fetch_add(1, Ordering::Relaxed);
                stats.hist.record(now_ms() - at);
            }
        }
    }
}

async fn gql_client(
    addr: SocketAddr,
    table: String,
    stats: Arc<ClientStats>,
    stop: Arc<AtomicBool>,
) {
    let mut req = format!("ws://{addr}/graphql/ws")
        .into_client_request()
        .expect("valid url");
    req.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().expect("valid header"),
    );
    let Some(mut ws) = subscribe(req).await else {
        return;
    };
    let init = r#"{"type":"connection_init"}"#;
    let sub = serde_json::json!({"id": "1", "type": "subscribe", "payload": {
        "query": "subscription($id: String!) { game(id: $id) { kind seq event { at } } }",
        "variables": {"id": table}}});
    if ws.send(Message::Text(init.into())).await.is_err()
        || ws
            .send(Message::Text(sub.to_string().into()))
            .await
            .is_err()
    {
        return;
    }
    stats.connected.fetch_add(1, Ordering::Relaxed);
    count_deltas(ws, &stats, &stats.gql, &stop).await;
}

/// A client that connects and never reads again.
async fn stalled_client(addr: SocketAddr, table: String, hold: Arc<AtomicBool>) {
    let url = format!("ws://{addr}/ws/game/{table}");
    if let Some(ws) = subscribe(url).await {
        while !hold.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        drop(ws);
    }
}

/// The subscriber process: connects, says `ready`, then answers each
/// `report` line on stdin with `raw gql p50 p99` and each `stall` line by
/// adding a client that never reads; ends on `quit`.
async fn client_main(addr: SocketAddr, args: Args) -> anyhow::Result<()> {
    let stats = Arc::new(ClientStats {
        raw: AtomicU64::new(0),
        gql: AtomicU64::new(0),
        connected: AtomicU64::new(0),
        hist: Histogram::new(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    // The server's games (`main` below).
    let tables: Vec<String> = (1..=args.tables)
        .map(|t| mafia_gateway::demo::game_id("bench", 1, t).to_string())
        .collect();
    let sem = Arc::new(tokio::sync::Semaphore::new(256));
    for i in 0..(args.raw + args.graphql) {
        let table = tables[i as usize % tables.len()].clone();
        let (stats, stop, sem) = (stats.clone(), stop.clone(), sem.clone());
        let permit = sem.acquire_owned().await?;
        let raw = i < args.raw;
        tokio::spawn(async move {
            let connected = stats.connected.load(Ordering::Relaxed);
            let fut = async {
                if raw {
                    raw_client(addr, table, stats.clone(), stop).await
                } else {
                    gql_client(addr, table, stats.clone(), stop).await
                }
            };
            tokio::pin!(fut);
            // Hold the permit only until this client is connected.
            let mut permit = Some(permit);
            loop {
                tokio::select! {
                    _ = &mut fut => break,
                    _ = tokio::time::sleep(Duration::from_millis(5)), if permit.is_some() => {
                        if stats.connected.load(Ordering::Relaxed) > connected {
                            permit = None;
                        }
                    }
                }
            }
        });
    }
    let total = (args.raw + args.graphql) as u64;
    let started = Instant::now();
    while stats.connected.load(Ordering::Relaxed) < total
        && started.elapsed() < Duration::from_secs(120)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("ready {}", stats.connected.load(Ordering::Relaxed));
    let hold = Arc::new(AtomicBool::new(false));
    let mut lines = BufReader::new(std::io::stdin()).lines();
    loop {
        let line = tokio::task::block_in_place(|| lines.next());
        let Some(Ok(line)) = line else { break };
        match line.trim() {
            "report" => {
                let h = stats.hist.take();
                let raw = stats.raw.swap(0, Ordering::Relaxed);
                let gql = stats.gql.swap(0, Ordering::Relaxed);
                println!(
                    "{raw} {gql} {} {}",
                    percentile(&h, 0.5),
                    percentile(&h, 0.99)
                );
            }
            "stall" => {
                tokio::spawn(stalled_client(addr, tables[0].clone(), hold.clone()));
                println!("stalled");
            }
            _ => break,
        }
        std::io::stdout().flush()?;
    }
    hold.store(true, Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    Ok(())
}

/// Plays one command per table every `pace`, with `at` stamped now, for `secs`.
async fn play(
    log: Arc<dyn EventLog>,
    games: &mut [Table],
    secs: u64,
    pace: Duration,
) -> anyhow::Result<Vec<u64>> {
    // How long each append took (ms): the latencies are counted from
    // before the log's durable commit, so this is part of them.
    let mut appends = Vec::new();
    let end = Instant::now() + Duration::from_secs(secs);
    let mut tick = tokio::time::interval(pace / games.len().max(1) as u32);
    let mut next = 0;
    while Instant::now() < end {
        tick.tick().await;
        let (id, events, done) = &mut games[next % games.len()];
        next += 1;
        if *done >= events.len() {
            continue;
        }
        let cmd = events[*done].cmd;
        let n = events[*done..].iter().take_while(|e| e.cmd == cmd).count();
        let at = now_ms();
        let batch: Vec<_> = events[*done..*done + n]
            .iter()
            .map(|e| mafia_rules::Envelope { at, ..*e })
            .collect();
        let t = Instant::now();
        mafia_gateway::demo::append(log.as_ref(), id, &batch).await?;
        appends.push(t.elapsed().as_millis() as u64);
        *done += n;
    }
    Ok(appends)
}

/// A subscriber process's figures since its last report: raw and GraphQL
/// deliveries, latency p50 and p99 (ms).
fn report(
    child_in: &mut std::process::ChildStdin,
    child_out: &mut impl BufRead,
) -> anyhow::Result<(u64, u64, u64, u64)> {
    let line = tokio::task::block_in_place(|| ask(child_in, child_out, "report"))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if v.len() != 4 {
        bail!("bad report {line:?}");
    }
    Ok((v[0], v[1], v[2], v[3]))
}

fn ask(
    child_in: &mut std::process::ChildStdin,
    out: &mut impl BufRead,
    what: &str,
) -> anyhow::Result<String> {
    writeln!(child_in, "{what}")?;
    child_in.flush()?;
    let mut line = String::new();
    out.read_line(&mut line)?;
    Ok(line.trim().to_owned())
}

/// A table being played: its game id, all its events, how many are in
/// the log.
type Table = (String, Vec<mafia_rules::Envelope>, usize);

/// `tables` long simulated games in `log`, each dealt and through night 0,
/// so every table has a state to show and none runs out during the run.
async fn create_games(log: &dyn EventLog, tables: u32) -> anyhow::Result<Vec<Table>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let mut games = Vec::new();
    for t in 1..=tables {
        let sim = loop {
            let s = simulate(RuleSetId::Club, &mut rng, now_ms());
            if s.events.len() > 300 {
                break s;
            }
        };
        let game = mafia_gateway::demo::game_id("bench", 1, t);
        let id = game.to_string();
        let h = serde_json::to_vec(&mafia_gateway::demo::header(&sim, &game))?;
        log.create_game(&id, &h).await?;
        let first = sim.events.iter().take_while(|e| e.cmd == 0).count();
        mafia_gateway::demo::append(log, &id, &sim.events[..first]).await?;
        games.push((id, sim.events, first));
    }
    Ok(games)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(usize::from(args.workers))
        .enable_all()
        .build()?
        .block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    if args.client.is_none() && args.serve_redis.is_none() && args.floor_reader.is_none() {
        println!("workers: {}", args.workers);
    }
    if let Some(addr) = args.client {
        return client_main(addr, args).await;
    }
    if let Some(addr) = args.floor_reader {
        return floor::reader_main(addr, args.raw).await;
    }
    if let Some(url) = &args.serve_redis {
        return scale::serve_main(url, &args).await;
    }
    if args.gateways > 1 {
        let args = Args {
            run: std::process::id(),
            ..args
        };
        return scale::scale_main(args).await;
    }
    let dir = tempfile_dir()?;
    let log: Arc<dyn EventLog> = Arc::new(EmbeddedLog::open(dir.join("bench.redb")).await?);
    let mut games = create_games(log.as_ref(), args.tables).await?;
    let hub = Hub::start(log.clone(), HubConfig::default()).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    // Every subscriber connects from loopback: no per-address cap.
    let server = ServerConfig {
        max_connections_per_address: 0,
        ..ServerConfig::default()
    };
    let state = app_state(hub.clone(), Tokens::default(), server);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(mafia_gateway::serve(listener, state, async {
        let _ = stop_rx.await;
    }));
    let rss_before = rss_kib("self");
    let heap_before = heap_in_use();
    let tasks_before = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "--client",
            &addr.to_string(),
            "--tables",
            &args.tables.to_string(),
            "--raw",
            &args.raw.to_string(),
            "--graphql",
            &args.graphql.to_string(),
            "--workers",
            &args.workers.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the subscriber process")?;
    let mut child_in = child.stdin.take().context("stdin")?;
    let mut child_out = BufReader::new(child.stdout.take().context("stdout")?);
    let mut ready = String::new();
    tokio::task::block_in_place(|| child_out.read_line(&mut ready))?;
    let connected: u64 = ready
        .trim()
        .strip_prefix("ready ")
        .unwrap_or("0")
        .parse()
        .unwrap_or(0);
    if connected == 0 {
        bail!("no subscriber connected: {ready:?}");
    }
    // Let the snapshots drain before measuring idle memory.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_idle = rss_kib("self");
    let heap_idle = heap_in_use();
    let tasks_idle = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    let pace = Duration::from_millis(args.pace_ms);

    report(&mut child_in, &mut child_out)?;
    let child_pid = child.id().to_string();
    let (server_cpu0, client_cpu0) = (cpu_us("self"), cpu_us(&child_pid));
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let hub_stats = hub.stats();
    let (fold0, fanout0, events0, deliveries0, offers0) = (
        load(&hub_stats.fold_ns),
        load(&hub_stats.fanout_ns),
        load(&hub_stats.events),
        load(&hub_stats.deliveries),
        load(&hub_stats.offers),
    );
    let profile = match &args.profile {
        Some(dir) => Some(Profile::start(
            dir,
            "gateway",
            std::process::id(),
            "gateway",
        )?),
        None => None,
    };
    let mut appends = play(log.clone(), &mut games, args.secs, pace).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (raw, gql, p50, p99) = report(&mut child_in, &mut child_out)?;
    if let Some(p) = profile {
        println!("profile: {}", p.finish()?.display());
    }
    let server_cpu = cpu_us("self") - server_cpu0;
    let fold_ns = load(&hub_stats.fold_ns) - fold0;
    let fanout_ns = load(&hub_stats.fanout_ns) - fanout0;
    let events = load(&hub_stats.events) - events0;
    let hub_deliveries = load(&hub_stats.deliveries) - deliveries0;
    let offers = load(&hub_stats.offers) - offers0;
    let client_cpu = cpu_us(&child_pid) - client_cpu0;
    appends.sort_unstable();
    let append_p = |p: f64| {
        let i = ((appends.len() as f64 * p) as usize).min(appends.len().saturating_sub(1));
        appends.get(i).copied().unwrap_or(0)
    };
    tokio::task::block_in_place(|| ask(&mut child_in, &mut child_out, "stall"))?;
    play(log.clone(), &mut games, args.secs, pace).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, _, _, p99_stalled) = report(&mut child_in, &mut child_out)?;
    let _ = writeln!(child_in, "quit");
    let _ = child.wait();
    let _ = stop_tx.send(());
    let _ = server.await;
    hub.close();

    let secs = args.secs as f64;
    let per_raw = raw as f64 / args.raw.max(1) as f64;
    let per_gql = gql as f64 / args.graphql.max(1) as f64;
    println!("subscribers_connected: {connected} conns");
    println!("deliveries_per_sec: {:.0} msg/s", (raw + gql) as f64 / secs);
    println!("raw_deliveries_per_sec: {:.0} msg/s", raw as f64 / secs);
    println!("graphql_deliveries_per_sec: {:.0} msg/s", gql as f64 / secs);
    // The server process also plays the tables and runs the log, so this
    // is an upper bound on the gateway's own cost.
    let per = |us: u64| us as f64 / (raw + gql).max(1) as f64;
    println!("server_cpu_us_per_delivery: {:.2} us", per(server_cpu));
    println!("client_cpu_us_per_delivery: {:.2} us", per(client_cpu));
    // Wall time inside the hub's lock, split between folding events (and
    // encoding their messages) and offering them (writes included).
    println!(
        "hub_fold_us_per_event: {:.1} us",
        fold_ns as f64 / 1e3 / events.max(1) as f64
    );
    println!(
        "hub_fanout_us_per_delivery: {:.2} us",
        fanout_ns as f64 / 1e3 / hub_deliveries.max(1) as f64
    );
    println!("latency_p50_ms: {p50} ms");
    println!("latency_p99_ms: {p99} ms");
    println!("append_commit_p50_ms: {} ms", append_p(0.5));
    println!("append_commit_p99_ms: {} ms", append_p(0.99));
    println!(
        "kib_per_idle_conn: {:.1} KiB",
        rss_idle.saturating_sub(rss_before) as f64 / connected as f64
    );
    println!(
        "kib_heap_per_idle_conn: {:.2} KiB",
        heap_idle.saturating_sub(heap_before) as f64 / 1024.0 / connected as f64
    );
    println!(
        "tasks_per_idle_conn: {:.2} tasks",
        tasks_idle.saturating_sub(tasks_before) as f64 / connected as f64
    );
    println!(
        "graphql_to_raw_ratio: {:.2} ratio",
        if per_raw > 0.0 {
            per_gql / per_raw
        } else {
            0.0
        }
    );
    println!("latency_p99_with_stalled_client_ms: {p99_stalled} ms");
    println!(
        "stalled_client_p99_change_pct: {:.1} %",
        if p99 > 0 {
            (p99_stalled as f64 - p99 as f64) * 100.0 / p99 as f64
        } else {
            0.0
        }
    );
    // Shared GraphQL subscriptions: payloads encoded (once per event per
    // group of identical operations) against payloads delivered.
    let stats = hub.stats();
    let encoded = stats.graphql_group_executions.load(Ordering::Relaxed);
    let shared = stats.graphql_shared_deliveries.load(Ordering::Relaxed);
    println!("graphql_payloads_encoded: {encoded} msgs");
    println!("graphql_shared_deliveries: {shared} msgs");
    println!(
        "graphql_deliveries_per_encoding: {:.1} ratio",
        shared as f64 / encoded.max(1) as f64
    );
    if !args.no_floor {
        let pattern = floor::Pattern {
            sockets: connected as u32,
            burst: connected as u32 / args.tables.max(1),
            writes_per_sec: offers as f64 / secs,
            bytes: FLOOR_MESSAGE_BYTES,
            secs: args.secs.min(5),
        };
        let per_write = tokio::task::block_in_place(|| floor::measure(&pattern))?;
        let writes_per_delivery = offers as f64 / hub_deliveries.max(1) as f64;
        let floor = per_write * writes_per_delivery;
        println!("writes_per_delivery: {writes_per_delivery:.2} ratio");
        println!("sendto_floor_us_per_write: {per_write:.2} us");
        println!("sendto_floor_us_per_delivery: {floor:.2} us");
        println!(
            "server_cpu_over_floor_us_per_delivery: {:.2} us",
            per(server_cpu) - floor
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The floor's message: about a raw feed delta's size.
const FLOOR_MESSAGE_BYTES: usize = 300;

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let d = std::env::temp_dir().join(format!("gateway-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    Ok(d)
}
