//! `mafia-referee-bench` (`make bench-referee`): closed-loop load on a real
//! referee process over loopback, with Redis (append-only file on) and with
//! the embedded store. Prints one `name: value unit` line per figure.

use anyhow::{bail, Context};
use clap::Parser;
use mafia_judge_client::{simulate_tables, ClientConfig, Referee, SimConfig};
use mafia_proto::convert::request_from_header;
use mafia_record::Header;
use mafia_rules::RuleSetId;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-chief-token";

// The same allocator as the referee, so the load tool costs as little of
// the shared two cores as it can.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
struct Args {
    /// Backends to measure: redis, embedded.
    #[arg(long, value_delimiter = ',', default_value = "redis,embedded")]
    backends: Vec<String>,
    /// Table counts to measure.
    #[arg(long, value_delimiter = ',', default_value = "10,100,500")]
    tables: Vec<u32>,
    /// Seconds of load per table count.
    #[arg(long, default_value_t = 5)]
    secs: u64,
    /// Games opened to measure memory per open game.
    #[arg(long, default_value_t = 1000)]
    memory_games: u32,
    /// The referee binary (default: next to this one).
    #[arg(long)]
    referee_bin: Option<PathBuf>,
}

struct Killed(Vec<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        // Newest first: the referee before the Redis it uses.
        for c in self.0.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A private redis-server with the append-only file on (fsync every second),
/// or the one REDIS_URL names.
fn redis(dir: &std::path::Path, procs: &mut Killed) -> anyhow::Result<(String, Option<u32>)> {
    if let Ok(url) = std::env::var("REDIS_URL") {
        if !url.is_empty() {
            return Ok((url, None));
        }
    }
    let port = free_port()?;
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "yes", "--appendfsync", "everysec"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .spawn()
        .context("starting redis-server")?;
    let pid = child.id();
    procs.0.push(child);
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok((format!("redis://127.0.0.1:{port}/"), Some(pid)));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    bail!("redis-server did not start")
}

fn referee(
    bin: &PathBuf,
    store_args: &[String],
    procs: &mut Killed,
) -> anyhow::Result<(String, u32)> {
    let mut child = Command::new(bin)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "",
            "--lease-ms",
            "10000",
        ])
        .args(store_args)
        .env(
            "MAFIA_TOKENS",
            format!(r#"{{"tokens":[{{"role":"chief_judge","token":"{TOKEN}"}}]}}"#),
        )
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().context("stdout")?).read_line(&mut line)?;
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .with_context(|| format!("unexpected referee output {line:?}"))?
        .to_owned();
    let pid = child.id();
    procs.0.push(child);
    Ok((format!("http://{addr}"), pid))
}

fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("VmRSS")
}

/// CPU time (user + system) the process has used, in milliseconds.
fn cpu_ms(pid: u32) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the parenthesised command name; utime and stime are the
    // 12th and 13th of them, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').context("stat")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f[11].parse::<u64>()? + f[12].parse::<u64>()?;
    Ok(ticks * 10)
}

fn header(tournament: &str, table: u32) -> Header {
    let id = format!("{tournament}.main.r1.t{table}.g1")
        .parse()
        .expect("a game id");
    Header::simulated(RuleSetId::Rfm, &id, u64::from(table))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let bin = match args.referee_bin.clone() {
        Some(b) => b,
        None => std::env::current_exe()?
            .parent()
            .context("exe dir")?
            .join("mafia-referee"),
    };
    let run_id = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    for backend in &args.backends {
        let dir = tempfile::tempdir()?;
        let mut procs = Killed(Vec::new());
        let mut redis_pid = None;
        let store: Vec<String> = match backend.as_str() {
            "redis" => {
                let (url, pid) = redis(dir.path(), &mut procs)?;
                redis_pid = pid;
                vec![
                    "--store".into(),
                    "redis".into(),
                    "--redis-url".into(),
                    url,
                    "--redis-prefix".into(),
                    format!("bench-{run_id}"),
                ]
            }
            "embedded" => vec![
                "--store".into(),
                "embedded".into(),
                "--db".into(),
                dir.path().join("bench.redb").display().to_string(),
            ],
            other => bail!("unknown backend {other}"),
        };
        let (url, pid) = referee(&bin, &store, &mut procs)?;
        let mut cfg = ClientConfig::new(vec![url], TOKEN);
        cfg.retry_budget = Duration::from_secs(30);
        // The load never reads the state: acks carry events only.
        cfg.omit_state = true;
        let client = Referee::new(cfg)?;

        // Memory: open games (each loaded and leased) and divide the growth.
        let before = rss_kib(pid)?;
        let mut c = client.clone();
        let mut grpc = c.connect().await?;
        for t in 1..=args.memory_games {
            let req = request_from_header(&header(&format!("mem-{run_id}"), t), 1);
            grpc.open_game(req).await?;
        }
        let after = rss_kib(pid)?;
        println!(
            "{backend}.kib_per_game: {:.1} KiB",
            after.saturating_sub(before) as f64 / f64::from(args.memory_games)
        );

        for &n in &args.tables {
            let mut sim = SimConfig::new(n, run_id ^ u64::from(n));
            sim.tournament = format!("bench-{backend}-{run_id}-{n}").parse()?;
            sim.games_per_table = u32::MAX;
            sim.run_for = Some(Duration::from_secs(args.secs));
            let started = Instant::now();
            let cpu_before = cpu_ms(pid)?;
            let me = std::process::id();
            let me_before = cpu_ms(me)?;
            let redis_before = redis_pid.map(cpu_ms).transpose()?;
            let mut report = simulate_tables(client.clone(), sim).await?;
            let secs = started.elapsed().as_secs_f64();
            let cpu = cpu_ms(pid)?.saturating_sub(cpu_before);
            let per_cmd = |ms: u64| ms as f64 * 1000.0 / report.commands.max(1) as f64;
            println!(
                "{backend}.load_tool_cpu_us_per_cmd@{n}: {:.0} us",
                per_cmd(cpu_ms(me)?.saturating_sub(me_before))
            );
            if let (Some(rp), Some(before)) = (redis_pid, redis_before) {
                println!(
                    "{backend}.redis_cpu_us_per_cmd@{n}: {:.0} us",
                    per_cmd(cpu_ms(rp)?.saturating_sub(before))
                );
            }
            println!(
                "{backend}.cmds_per_sec@{n}: {:.0} cmd/s",
                report.commands as f64 / secs
            );
            println!(
                "{backend}.referee_cpu_us_per_cmd@{n}: {:.0} us",
                cpu as f64 * 1000.0 / report.commands.max(1) as f64
            );
            for (name, q) in [
                ("ack_p50_ms", 0.5),
                ("ack_p99_ms", 0.99),
                ("ack_p999_ms", 0.999),
            ] {
                println!(
                    "{backend}.{name}@{n}: {:.2} ms",
                    report.quantile(q).as_secs_f64() * 1e3
                );
            }
        }
        drop(procs);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    run(Args::parse()).await
}
