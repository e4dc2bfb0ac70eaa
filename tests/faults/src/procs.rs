//! The services as processes: the workspace's own binaries (built by the
//! test, in its own target directory, as `tests/e2e` does), started on
//! loopback against one Redis, each killable with SIGKILL and restartable
//! on the port it had.

use crate::proxy::Proxy;
use crate::redis::Redis;
use mafia_event_log::{RedisLog, RedisLogConfig};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub const ORGANISER: &str = "organiser-faults-token";
pub const CHIEF: &str = "chief-faults-token";
pub const PREFIX: &str = "faults";

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the binaries the tests start and returns their directory (the
/// test's own profile directory).
pub fn bins() -> PathBuf {
    let status = std::process::Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args(["build", "--bins"])
        .args(["-p", "mafia-referee", "-p", "mafia-gateway"])
        .args(["-p", "mafia-scoring", "-p", "mafia-cli"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the binaries failed");
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Starts a process and returns it with the address on the first stdout
/// line that has `marker` (`http://ADDR/…` or `ADDR`); stdout is drained
/// afterwards so the process never blocks on a full pipe.
pub async fn spawn_announcing(cmd: Command, marker: &str) -> (Child, String) {
    try_spawn_announcing(cmd, marker)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// [`spawn_announcing`], with an error if the process exits first (a
/// port still held, say).
pub async fn try_spawn_announcing(
    mut cmd: Command,
    marker: &str,
) -> Result<(Child, String), String> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("the process does not start: {e}"))?;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .map_err(|_| "the process printed no address in 60 s".to_string())?
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("the process exited before printing {marker:?}"))?;
        if let Some(rest) = line.split(marker).nth(1) {
            let rest = rest.trim().trim_start_matches("http://");
            break rest.split('/').next().unwrap().to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((child, addr))
}

/// Runs `spawn` until the process starts (a restarted service may find
/// its port still held for a moment).
async fn retrying<F, Fut>(what: &str, mut spawn: F) -> (Child, String)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(Child, String), String>>,
{
    let mut last = String::new();
    for _ in 0..50 {
        match spawn().await {
            Ok(r) => return r,
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} did not start: {last}");
}

/// One service process and the address it listens on (kept across restarts).
pub struct Service {
    child: Option<Child>,
    pub addr: String,
}

impl Service {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// SIGKILL, and waits until it is gone.
    pub async fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.start_kill().expect("kill -9");
            let _ = c.wait().await;
        }
    }
}

/// Referees (each behind its own cuttable proxy to Redis), gateways and an
/// optional scoring service, all on one private Redis.
pub struct Arena {
    pub bin: PathBuf,
    pub tokens: String,
    pub proxies: Vec<Proxy>,
    pub referees: Vec<Service>,
    pub gateways: Vec<Service>,
    pub scoring: Option<Service>,
    /// Where records and ack files go.
    pub dir: tempfile::TempDir,
    // Last: every process is killed (kill_on_drop) before Redis stops.
    pub redis: Redis,
}

impl Arena {
    pub async fn start(referees: usize, gateways: usize, scoring: bool) -> Arena {
        let bin = bins();
        let redis = Redis::start();
        let tokens = serde_json::json!({"tokens": [
            {"role": "organiser", "token": ORGANISER},
            {"role": "chief_judge", "token": CHIEF},
        ]})
        .to_string();
        let mut arena = Arena {
            bin,
            tokens,
            proxies: Vec::new(),
            referees: Vec::new(),
            gateways: Vec::new(),
            scoring: None,
            dir: tempfile::Builder::new()
                .prefix("mafia-faults")
                .tempdir()
                .unwrap(),
            redis,
        };
        for i in 0..referees {
            arena.proxies.push(Proxy::start(arena.redis.addr()).await);
            let s = arena.spawn_referee(i, "127.0.0.1:0").await;
            arena.referees.push(s);
        }
        for _ in 0..gateways {
            let s = arena.spawn_gateway("127.0.0.1:0").await;
            arena.gateways.push(s);
        }
        if scoring {
            arena.scoring = Some(arena.spawn_scoring("127.0.0.1:0").await);
        }
        arena
    }

    async fn spawn_referee(&self, i: usize, listen: &str) -> Service {
        let (child, addr) = retrying("mafia-referee", || {
            let mut cmd = Command::new(self.bin.join("mafia-referee"));
            cmd.args(["--listen", listen, "--metrics-listen", ""])
                .args(["--store", "redis", "--redis-url", &self.proxies[i].url()])
                .args(["--redis-prefix", PREFIX])
                .args(["--lease-ms", "1000", "--owner", &format!("ref-{i}")]);
            self.service_env(&mut cmd);
            try_spawn_announcing(cmd, "listening on")
        })
        .await;
        Service {
            child: Some(child),
            addr,
        }
    }

    async fn spawn_gateway(&self, listen: &str) -> Service {
        let (child, addr) = retrying("mafia-gateway", || {
            let mut cmd = Command::new(self.bin.join("mafia-gateway"));
            cmd.args(["--listen", listen, "--redis-url", &self.redis.url()])
                .args(["--redis-prefix", PREFIX]);
            self.service_env(&mut cmd);
            try_spawn_announcing(cmd, "hall screen:")
        })
        .await;
        Service {
            child: Some(child),
            addr,
        }
    }

    async fn spawn_scoring(&self, listen: &str) -> Service {
        let (child, addr) = retrying("mafia-scoring", || {
            let mut cmd = Command::new(self.bin.join("mafia-scoring"));
            cmd.args(["--listen", listen, "--metrics-listen", ""])
                .args(["--redis-url", &self.redis.url(), "--redis-prefix", PREFIX])
                .args(["--referee-url", &self.referees[0].url()])
                .args(["--referee-token", ORGANISER]);
            self.service_env(&mut cmd);
            try_spawn_announcing(cmd, "listening on")
        })
        .await;
        Service {
            child: Some(child),
            addr,
        }
    }

    fn service_env(&self, cmd: &mut Command) {
        cmd.env_remove("REDIS_URL")
            .env_remove("MAFIA_TOKENS_FILE")
            .env("MAFIA_TOKENS", &self.tokens);
    }

    /// Starts referee `i` again on its port (retrying while the port is
    /// still held by the dead process's sockets).
    pub async fn restart_referee(&mut self, i: usize) {
        let addr = self.referees[i].addr.clone();
        let s = self.spawn_referee(i, &addr).await;
        self.referees[i] = s;
    }

    pub async fn restart_gateway(&mut self, i: usize) {
        let addr = self.gateways[i].addr.clone();
        let s = self.spawn_gateway(&addr).await;
        self.gateways[i] = s;
    }

    pub async fn restart_scoring(&mut self) {
        let addr = self
            .scoring
            .as_ref()
            .expect("a scoring service")
            .addr
            .clone();
        self.scoring = Some(self.spawn_scoring(&addr).await);
    }

    /// The referees' URLs, starting with the `first`th (judges spread
    /// their first tries over the pool).
    pub fn referee_urls(&self, first: usize) -> Vec<String> {
        let n = self.referees.len();
        (0..n)
            .map(|k| self.referees[(first + k) % n].url())
            .collect()
    }

    pub fn gateway_addrs(&self) -> Vec<String> {
        self.gateways.iter().map(|g| g.addr.clone()).collect()
    }

    /// A reader of the stored logs, straight from Redis.
    pub async fn log(&self) -> RedisLog {
        let mut cfg = RedisLogConfig::with_prefix(PREFIX);
        cfg.response_timeout = Some(Duration::from_secs(30));
        RedisLog::connect_with(&self.redis.url(), cfg)
            .await
            .expect("connect to the test redis")
    }
}
