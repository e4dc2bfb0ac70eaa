//! `mafia-referee-bench` (`make bench-referee`): closed-loop load on a real
//! referee process over loopback, with Redis (append-only file on) and with
//! the embedded store, or with a local Redis Cluster (`--backends cluster`,
//! `make bench-cluster`: 3 primaries). Prints one `name: value unit` line
//! per figure.

use anyhow::{bail, Context};
use clap::Parser;
use mafia_event_log::testing::RedisCluster;
use mafia_judge_client::{simulate_tables, ClientConfig, Referee, SimConfig, SimReport};
use mafia_profile::Profile;
use mafia_proto::convert::request_from_header;
use mafia_record::Header;
use mafia_rules::RuleSetId;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-chief-token";

// mimalloc for the load tool only, so it costs as little of the shared two
// cores as it can. The services run on jemalloc (services/referee/src/
// main.rs): with mimalloc the referee on Redis used 6–20 % less CPU per
// command but 40 % more memory per table, and on the embedded store (the
// default) up to twice the CPU and 5–7× the memory (issue 15; figures in
// the commit log).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
struct Args {
    /// Backends to measure: redis, embedded, cluster (a local Redis Cluster
    /// of 3 primaries).
    #[arg(long, value_delimiter = ',', default_value = "redis,embedded")]
    backends: Vec<String>,
    /// Replicas per primary of the cluster backend (each append then waits
    /// for one, `WAIT 1`).
    #[arg(long, default_value_t = 0)]
    cluster_replicas: usize,
    /// Referee processes sharing the load (Redis backends), each judging
    /// its share of the tables; one figure set per count.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    referees: Vec<u32>,
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
    /// Record a perf profile of the referee during each measured run and
    /// write it to this directory as folded stacks and a flame graph:
    /// `BACKEND-TABLES.folded` and `.svg` (needs `perf`).
    #[arg(long, value_name = "DIR")]
    profile: Option<PathBuf>,
    /// Run the private redis-server under valgrind's callgrind and print
    /// the instructions it executed per command: a count, steady where its
    /// CPU time on a shared machine swings by a fifth from run to run.
    /// Redis runs some 50× slower, so its batches are larger than in a
    /// plain run: compare these figures only with each other.
    #[arg(long)]
    redis_callgrind: bool,
    /// Run each measured referee under valgrind's callgrind and print the
    /// instructions it executed per command (`referee_instructions_per_cmd`):
    /// the figure to compare builds by where CPU time moves by a third from
    /// run to run. The referee runs some 50× slower, so its batches are
    /// larger than in a plain run: compare these figures only with each
    /// other. Not with a `--referee-bin` that is itself a valgrind wrapper.
    #[arg(long)]
    referee_callgrind: bool,
    /// Threads of each referee's runtime (its `--workers`); 0 for its
    /// default, one per core. One by default (a current-thread runtime):
    /// on two cores shared with Redis and this load tool, a second thread
    /// cost the referee a third more CPU per command at 10 tables and a
    /// sixth more at 100, for the same throughput.
    #[arg(long, default_value_t = 1)]
    referee_workers: u16,
}

struct Killed(Vec<Child>);

impl Killed {
    /// Stops the processes, newest first (the referee before the Redis it
    /// uses), with SIGTERM so a referee run under a profiler
    /// (`--referee-bin` a wrapper) exits cleanly and writes its profile.
    /// Waits asynchronously: a referee drains its connections before it
    /// exits, and this runtime's single thread must stay free to close the
    /// client's side of them (a blocking wait held every referee for the
    /// full deadline, 20 s per run).
    async fn stop(mut self) {
        for c in self.0.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline && matches!(c.try_wait(), Ok(None)) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

impl Drop for Killed {
    /// After `stop`, or on an error path: whatever is left is killed.
    fn drop(&mut self) {
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
/// or the one REDIS_URL names; with `callgrind`, run by valgrind's
/// callgrind (the append-only file is never rewritten then, so a rewrite
/// does not land in one run's count and not another's).
fn redis(
    dir: &std::path::Path,
    callgrind: bool,
    procs: &mut Killed,
) -> anyhow::Result<(String, Option<u32>)> {
    if let Ok(url) = std::env::var("REDIS_URL") {
        if !url.is_empty() {
            if callgrind {
                bail!("--redis-callgrind runs its own redis-server: unset REDIS_URL");
            }
            return Ok((url, None));
        }
    }
    let port = free_port()?;
    let mut cmd = if callgrind {
        let mut c = under_callgrind(&dir.join("redis.callgrind"), "redis-server");
        c.args(["--auto-aof-rewrite-percentage", "0"]);
        c
    } else {
        Command::new("redis-server")
    };
    let child = cmd
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
    for _ in 0..1200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok((format!("redis://127.0.0.1:{port}/"), Some(pid)));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    bail!("redis-server did not start")
}

/// How many append script calls (`EVALSHA`) the Redis at `url` has run,
/// from `redis-cli INFO commandstats`; `None` when that cannot be asked.
fn append_calls(url: &str) -> Option<u64> {
    let out = Command::new("redis-cli")
        .args(["-u", url, "INFO", "commandstats"])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let stats = text
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_evalsha:"))?;
    stats
        .split(',')
        .find_map(|f| f.strip_prefix("calls="))?
        .parse()
        .ok()
}

/// `program` run by valgrind's callgrind, its profile written to `out`.
fn under_callgrind(out: &std::path::Path, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new("valgrind");
    c.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--log-file=/dev/null")
        .arg(program);
    c
}

/// Starts a referee; under callgrind when `callgrind` names the directory
/// for its profile.
fn referee(
    bin: &PathBuf,
    store_args: &[String],
    callgrind: Option<&std::path::Path>,
    procs: &mut Killed,
) -> anyhow::Result<(String, u32)> {
    let mut cmd = match callgrind {
        Some(dir) => under_callgrind(&dir.join("referee.%p.callgrind"), bin),
        None => Command::new(bin),
    };
    let mut child = cmd
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
    mafia_profile::process::rss_kib(&pid.to_string()).context("VmRSS")
}

/// CPU time (user + system) the process has used, in milliseconds.
fn cpu_ms(pid: u32) -> anyhow::Result<u64> {
    let us = mafia_profile::process::cpu_us(&pid.to_string()).context("/proc/<pid>/stat")?;
    Ok(us / 1000)
}

fn header(tournament: &str, table: u32) -> Header {
    let id = format!("{tournament}.main.r1.t{table}.g1")
        .parse()
        .expect("a game id");
    Header::simulated(RuleSetId::Rfm, &id, u64::from(table))
}

/// Peak RSS of `pid` while `work` runs, sampled every 50 ms.
async fn with_peak_rss<T>(
    pid: u32,
    work: impl std::future::Future<Output = T>,
) -> anyhow::Result<(T, u64)> {
    let mut peak = rss_kib(pid)?;
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    tokio::pin!(work);
    loop {
        tokio::select! {
            out = &mut work => return Ok((out, peak.max(rss_kib(pid)?))),
            _ = tick.tick() => peak = peak.max(rss_kib(pid)?),
        }
    }
}

/// The `q` quantile (0..=1) of `samples`, in milliseconds.
fn quantile_ms(samples: &mut [Duration], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_unstable();
    let i = ((samples.len() - 1) as f64 * q).round() as usize;
    samples[i].as_secs_f64() * 1e3
}

fn client_for(url: String) -> anyhow::Result<Referee> {
    let mut cfg = ClientConfig::new(vec![url], TOKEN);
    cfg.retry_budget = Duration::from_secs(30);
    // The load never reads the state: acks carry events only.
    cfg.omit_state = true;
    Ok(Referee::new(cfg)?)
}

/// Opens `games` games one after another on one connection: memory per
/// open game, and the latency of a unary call.
async fn open_games(
    backend: &str,
    client: &Referee,
    pid: u32,
    games: u32,
    run_id: u64,
) -> anyhow::Result<()> {
    let before = rss_kib(pid)?;
    let mut c = client.clone();
    let mut grpc = c.connect().await?;
    let mut took = Vec::with_capacity(games as usize);
    for t in 1..=games {
        let req = request_from_header(&header(&format!("mem-{run_id}"), t), 1);
        let started = Instant::now();
        grpc.open_game(req).await?;
        took.push(started.elapsed());
    }
    let after = rss_kib(pid)?;
    println!(
        "{backend}.kib_per_game: {:.1} KiB",
        after.saturating_sub(before) as f64 / f64::from(games.max(1))
    );
    println!(
        "{backend}.unary_rpc_p50_ms: {:.2} ms",
        quantile_ms(&mut took, 0.5)
    );
    println!(
        "{backend}.unary_rpc_p99_ms: {:.2} ms",
        quantile_ms(&mut took, 0.99)
    );
    Ok(())
}

async fn run(args: Args) -> anyhow::Result<()> {
    let bin = match args.referee_bin.clone() {
        Some(b) => b,
        None => std::env::current_exe()?
            .parent()
            .context("exe dir")?
            .join("mafia-referee"),
    };
    println!("referee_workers: {}", args.referee_workers);
    let run_id = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    for backend in &args.backends {
        let dir = tempfile::tempdir()?;
        // Redis outlives the referees; each table count gets a fresh
        // referee, so its memory per table is not hidden by what the
        // previous count left allocated.
        let mut redis_procs = Killed(Vec::new());
        let mut redis_pids: Vec<u32> = Vec::new();
        let mut cluster = None;
        let store = |n: u32| -> Vec<String> {
            match backend.as_str() {
                "embedded" => vec![
                    "--store".into(),
                    "embedded".into(),
                    "--db".into(),
                    dir.path()
                        .join(format!("bench-{n}.redb"))
                        .display()
                        .to_string(),
                ],
                _ => Vec::new(),
            }
        };
        let mut redis_args = Vec::new();
        let mut single_redis = None;
        match backend.as_str() {
            "redis" | "cluster" => {
                let url = if backend == "cluster" {
                    let c = RedisCluster::spawn(3, args.cluster_replicas)
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    redis_pids = c.pids();
                    let url = c.url().to_owned();
                    cluster = Some(c);
                    url
                } else {
                    let (url, pid) = redis(dir.path(), args.redis_callgrind, &mut redis_procs)?;
                    redis_pids.extend(pid);
                    single_redis = Some(url.clone());
                    url
                };
                redis_args = vec![
                    "--store".into(),
                    "redis".into(),
                    "--redis-url".into(),
                    url,
                    "--redis-prefix".into(),
                    format!("bench-{run_id}"),
                ];
            }
            "embedded" => {}
            other => bail!("unknown backend {other}"),
        }
        let args_for = |n: u32| -> Vec<String> {
            let mut a = if redis_args.is_empty() {
                store(n)
            } else {
                redis_args.clone()
            };
            if args.referee_workers > 0 {
                a.extend(["--workers".into(), args.referee_workers.to_string()]);
            }
            a
        };

        {
            let mut procs = Killed(Vec::new());
            let (url, pid) = referee(&bin, &args_for(0), None, &mut procs)?;
            open_games(backend, &client_for(url)?, pid, args.memory_games, run_id).await?;
            procs.stop().await;
        }

        let referee_counts = if redis_args.is_empty() {
            vec![1]
        } else {
            args.referees.clone()
        };
        for &n in &args.tables {
            for &r in &referee_counts {
                let tag = if r == 1 {
                    format!("{n}")
                } else {
                    format!("{n}x{r}referees")
                };
                let m = Measure {
                    backend,
                    tag: &tag,
                    tables: n,
                    referees: r.max(1),
                    redis_pids: &redis_pids,
                    redis_url: single_redis.as_deref(),
                };
                m.run(&bin, &args_for(n), &args, run_id).await?;
            }
        }
        redis_procs.stop().await;
        drop(cluster);
    }
    Ok(())
}

/// One load run: `tables` tables over `referees` referee processes.
struct Measure<'a> {
    backend: &'a str,
    tag: &'a str,
    tables: u32,
    referees: u32,
    redis_pids: &'a [u32],
    /// A single Redis server's URL (not a cluster's), for its script calls.
    redis_url: Option<&'a str>,
}

impl Measure<'_> {
    async fn run(
        &self,
        bin: &PathBuf,
        store_args: &[String],
        args: &Args,
        run_id: u64,
    ) -> anyhow::Result<()> {
        let (backend, tag, n) = (self.backend, self.tag, self.tables);
        // Outlives the referees: callgrind writes its profile as they exit.
        let callgrind_dir = tempfile::tempdir()?;
        let under_callgrind = args.referee_callgrind.then_some(callgrind_dir.path());
        let mut procs = Killed(Vec::new());
        let mut referees = Vec::new();
        for _ in 0..self.referees {
            referees.push(referee(bin, store_args, under_callgrind, &mut procs)?);
        }
        let pids: Vec<u32> = referees.iter().map(|(_, pid)| *pid).collect();
        let mut sims = Vec::new();
        for (i, (url, _)) in referees.iter().enumerate() {
            let i = i as u32;
            // Table counts split as evenly as they go.
            let share = n / self.referees + u32::from(i < n % self.referees);
            let mut sim = SimConfig::new(share, run_id ^ u64::from(n) ^ (u64::from(i) << 32));
            sim.tournament = format!("bench-{backend}-{run_id}-{tag}-{i}").parse()?;
            sim.games_per_table = u32::MAX;
            sim.run_for = Some(Duration::from_secs(args.secs));
            sims.push(simulate_tables(client_for(url.clone())?, sim));
        }
        let sum_cpu =
            |pids: &[u32]| -> anyhow::Result<u64> { pids.iter().map(|p| cpu_ms(*p)).sum() };
        // Asked before the CPU figures start, and again after they end.
        let calls_before = self.redis_url.and_then(append_calls);
        let rss_before = rss_kib(pids[0])?;
        let started = Instant::now();
        let cpu_before = sum_cpu(&pids)?;
        let me = std::process::id();
        let me_before = cpu_ms(me)?;
        let redis_before = sum_cpu(self.redis_pids)?;
        let callgrind = args.redis_callgrind && self.backend == "redis";
        // Each program's counts from here on: the start-up is not counted.
        for (on, pids) in [
            (callgrind, self.redis_pids),
            (args.referee_callgrind, &pids),
        ] {
            for pid in pids.iter().filter(|_| on) {
                callgrind_control(*pid, "-z")?;
            }
        }
        // The first referee's profile stands for all of them.
        let profile = match &args.profile {
            Some(dir) => Some(Profile::start(
                dir,
                &format!("{backend}-{tag}"),
                pids[0],
                "referee",
            )?),
            None => None,
        };
        let (reports, rss_peak) = with_peak_rss(pids[0], futures::future::join_all(sims)).await?;
        let mut report = SimReport::default();
        for r in reports {
            let r = r?;
            report.commands += r.commands;
            report.latencies.extend(r.latencies);
        }
        let secs = started.elapsed().as_secs_f64();
        let cpu = sum_cpu(&pids)?.saturating_sub(cpu_before);
        let me_cpu = cpu_ms(me)?.saturating_sub(me_before);
        let redis_cpu = sum_cpu(self.redis_pids)?.saturating_sub(redis_before);
        let calls = calls_before
            .zip(self.redis_url.and_then(append_calls))
            .map(|(before, after)| after.saturating_sub(before));
        let referee_instructions = args
            .referee_callgrind
            .then(|| instructions_of(&pids))
            .transpose()?;
        let redis_instructions = callgrind
            .then(|| instructions_of(self.redis_pids))
            .transpose()?;
        if let Some(p) = profile {
            // After the CPU figures: perf's own work is not the referee's.
            println!("{backend}.profile@{tag}: {}", p.finish()?.display());
        }
        let per_cmd = |ms: u64| ms as f64 * 1000.0 / report.commands.max(1) as f64;
        println!("{backend}.commands@{tag}: {} cmd", report.commands);
        println!(
            "{backend}.cmds_per_sec@{tag}: {:.0} cmd/s",
            report.commands as f64 / secs
        );
        println!(
            "{backend}.referee_cpu_us_per_cmd@{tag}: {:.1} us",
            per_cmd(cpu)
        );
        if !self.redis_pids.is_empty() {
            println!(
                "{backend}.redis_cpu_us_per_cmd@{tag}: {:.1} us",
                per_cmd(redis_cpu)
            );
        }
        if let Some(calls) = calls {
            // The per-call costs (a wake-up, a read, a write to the client
            // and to the append-only file) are shared by this many commands.
            println!(
                "{backend}.cmds_per_append_call@{tag}: {:.1} cmd",
                report.commands as f64 / calls.max(1) as f64
            );
        }
        if let Some(ir) = referee_instructions {
            println!(
                "{backend}.referee_instructions_per_cmd@{tag}: {:.0} instr",
                ir as f64 / report.commands.max(1) as f64
            );
        }
        if let Some(ir) = redis_instructions {
            println!(
                "{backend}.redis_instructions_per_cmd@{tag}: {:.0} instr",
                ir as f64 / report.commands.max(1) as f64
            );
        }
        println!(
            "{backend}.load_tool_cpu_us_per_cmd@{tag}: {:.1} us",
            per_cmd(me_cpu)
        );
        if self.referees == 1 {
            println!(
                "{backend}.kib_per_table@{tag}: {:.1} KiB",
                rss_peak.saturating_sub(rss_before) as f64 / f64::from(n.max(1))
            );
        }
        for (name, q) in [
            ("ack_p50_ms", 0.5),
            ("ack_p99_ms", 0.99),
            ("ack_p999_ms", 0.999),
        ] {
            println!(
                "{backend}.{name}@{tag}: {:.2} ms",
                report.quantile(q).as_secs_f64() * 1e3
            );
        }
        procs.stop().await;
        Ok(())
    }
}

/// `callgrind_control <what> <pid>`'s output.
fn callgrind_control(pid: u32, what: &str) -> anyhow::Result<String> {
    let out = Command::new("callgrind_control")
        .arg(what)
        .arg(pid.to_string())
        .output()
        .context("running callgrind_control (valgrind)")?;
    if !out.status.success() {
        bail!(
            "callgrind_control {what} {pid}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Instructions `pids` executed since their counts were zeroed, together.
fn instructions_of(pids: &[u32]) -> anyhow::Result<u64> {
    let mut sum = 0;
    for pid in pids {
        sum += instructions(&callgrind_control(*pid, "-e")?)?;
    }
    Ok(sum)
}

/// The instructions counted since the last zeroing, summed over threads,
/// from `callgrind_control -e`'s table (`   Th 1  75,426`).
fn instructions(report: &str) -> anyhow::Result<u64> {
    let counts: Vec<u64> = report
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Th "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|n| n.replace(',', "").parse::<u64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading callgrind_control's counts from {report:?}"))?;
    if counts.is_empty() {
        bail!("callgrind_control printed no counts: {report:?}");
    }
    Ok(counts.iter().sum())
}

// The load tool on one thread: its tables then wake one another without
// futexes or cross-thread steals (13.6 against 15.7 us of CPU per command
// at 100 tables, 17.0 against 19.9 at 500, throughput unchanged).
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    run(Args::parse()).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn callgrinds_per_thread_counts_are_summed() {
        let report = "PID 8813: redis-server --port 6402\n\n  Totals:    Ir \n   Th 1  75,426 \n   Th 2       0 \n   Th 3   1,000 \n";
        assert_eq!(super::instructions(report).unwrap(), 76_426);
        assert!(super::instructions("PID 1: gone").is_err());
    }
}
