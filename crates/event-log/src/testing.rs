//! Test helpers shared with other crates' tests (enable the `testing` feature
//! in their `[dev-dependencies]`).
//!
//! ```no_run
//! # async fn demo() {
//! use mafia_event_log::{testing, RedisLog, RedisLogConfig};
//! let server = testing::RedisServer::from_env_or_spawn().expect("redis for tests");
//! let cfg = RedisLogConfig::with_prefix(testing::unique_prefix("my-test"));
//! let log = RedisLog::connect_with(server.url(), cfg).await.unwrap();
//! // keep `server` alive for as long as `log` is used
//! # }
//! ```

#[path = "testing_cluster.rs"]
mod cluster;
pub use cluster::{RedisCluster, NODE_TIMEOUT};

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Why a test Redis could not be provided.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RedisServerError(String);

/// A Redis server for tests: the one named by `REDIS_URL`, or a private
/// `redis-server` child process (no persistence, loopback only, on a free
/// port) that is killed when this value is dropped.
#[derive(Debug)]
pub struct RedisServer {
    url: String,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
    /// How to start the same server again ([`RedisServer::restart`]).
    spawned: Option<Spawned>,
}

#[derive(Debug, Clone)]
struct Spawned {
    port: u16,
    dir: PathBuf,
    persistent: bool,
}

const SPAWN_ATTEMPTS: usize = 3;
const READY_TIMEOUT: Duration = Duration::from_secs(10);

impl RedisServer {
    /// Uses `REDIS_URL` if set (tests must then isolate themselves with
    /// [`unique_prefix`]), otherwise [`RedisServer::spawn`]s one. Never
    /// silently skips: the error says what is missing.
    pub fn from_env_or_spawn() -> Result<Self, RedisServerError> {
        match std::env::var("REDIS_URL") {
            Ok(url) if !url.trim().is_empty() => Ok(RedisServer {
                url,
                child: None,
                _dir: None,
                spawned: None,
            }),
            _ => Self::spawn(),
        }
    }

    /// Starts a private `redis-server` from `PATH` and waits until it answers PING.
    pub fn spawn() -> Result<Self, RedisServerError> {
        Self::spawn_with(false)
    }

    /// Like [`RedisServer::spawn`], but every write is fsynced to an
    /// append-only file, so the server can be killed and
    /// [`restart`](RedisServer::restart)ed with its data (never `REDIS_URL`:
    /// a test that kills its server needs one of its own).
    pub fn spawn_persistent() -> Result<Self, RedisServerError> {
        Self::spawn_with(true)
    }

    fn spawn_with(persistent: bool) -> Result<Self, RedisServerError> {
        let mut last_err = String::new();
        // The free port is found by binding :0 and releasing it, so another
        // process may grab it before redis does; a retry picks another.
        for _ in 0..SPAWN_ATTEMPTS {
            let port = free_port().map_err(|e| RedisServerError(format!("no free port: {e}")))?;
            let dir = tempfile::Builder::new()
                .prefix("mafia-redis-test")
                .tempdir()
                .map_err(|e| RedisServerError(format!("no temp dir: {e}")))?;
            let spawned = Spawned {
                port,
                dir: dir.path().to_owned(),
                persistent,
            };
            match Self::spawn_once(spawned, Some(dir)) {
                Ok(s) => return Ok(s),
                Err(SpawnError::Fatal(e)) => return Err(RedisServerError(e)),
                Err(SpawnError::Retry(e)) => last_err = e,
            }
        }
        Err(RedisServerError(format!(
            "could not start redis-server after {SPAWN_ATTEMPTS} attempts: {last_err}"
        )))
    }

    fn spawn_once(spawned: Spawned, dir: Option<tempfile::TempDir>) -> Result<Self, SpawnError> {
        let port = spawned.port;
        let log_path = spawned.dir.join("redis.log");
        let (appendonly, fsync) = if spawned.persistent {
            ("yes", "always")
        } else {
            ("no", "everysec")
        };
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", appendonly])
            .args(["--appendfsync", fsync])
            .args(["--daemonize", "no"])
            .arg("--dir")
            .arg(&spawned.dir)
            .arg("--logfile")
            .arg(&log_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                SpawnError::Fatal(format!(
                    "cannot run redis-server ({e}); install it (e.g. `apt-get install \
                     redis-server`) or set REDIS_URL to a server tests may use"
                ))
            })?;
        let mut server = RedisServer {
            url: format!("redis://127.0.0.1:{port}/"),
            child: Some(child),
            _dir: dir,
            spawned: Some(spawned),
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if ping(addr) {
                tracing::debug!(port, "test redis-server ready");
                return Ok(server);
            }
            if let Some(child) = server.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = read_log(&log_path);
                    return Err(SpawnError::Retry(format!(
                        "redis-server exited with {status}: {log}"
                    )));
                }
            }
            if Instant::now() > deadline {
                return Err(SpawnError::Retry(format!(
                    "redis-server did not answer PING on port {port} within {READY_TIMEOUT:?}: {}",
                    read_log(&log_path)
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Kills the server (SIGKILL, no goodbye to its clients) and starts it
    /// again on the same port and data directory; returns once it answers
    /// PING. Only for servers this value spawned.
    pub fn restart(&mut self) -> Result<(), RedisServerError> {
        let spawned = self
            .spawned
            .clone()
            .ok_or_else(|| RedisServerError("only a spawned server can be restarted".into()))?;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let mut last_err = String::new();
        // The port was just released; a lingering socket may hold it briefly.
        for _ in 0..SPAWN_ATTEMPTS * 10 {
            match Self::spawn_once(spawned.clone(), None) {
                Ok(mut s) => {
                    self.child = s.child.take();
                    return Ok(());
                }
                Err(SpawnError::Fatal(e)) => return Err(RedisServerError(e)),
                Err(SpawnError::Retry(e)) => last_err = e,
            }
        }
        Err(RedisServerError(format!(
            "could not restart redis-server on port {}: {last_err}",
            spawned.port
        )))
    }

    /// The spawned server's process id (`None` for `REDIS_URL`'s), for a
    /// bench that counts its CPU time.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the spawned server with SIGSTOP: its connections stay open,
    /// it answers nothing. Panics for `REDIS_URL`'s.
    pub fn pause(&self) {
        signal(self.pid().expect("a spawned server"), libc::SIGSTOP);
    }

    /// Lets a [`pause`](RedisServer::pause)d server run again.
    pub fn resume(&self) {
        signal(self.pid().expect("a spawned server"), libc::SIGCONT);
    }

    /// Whether this value runs (and will kill) its own server.
    pub fn is_spawned(&self) -> bool {
        self.child.is_some()
    }

    /// A [`unique_prefix`] whose keys are deleted when it is dropped, so
    /// tests leave nothing behind on a shared `REDIS_URL` server.
    pub fn scoped_prefix(&self, tag: &str) -> ScopedPrefix {
        ScopedPrefix {
            prefix: unique_prefix(tag),
            url: (!self.is_spawned()).then(|| self.url.clone()),
        }
    }
}

/// A key prefix that cleans up after itself; see [`RedisServer::scoped_prefix`].
/// Drop it before the [`RedisServer`] it came from.
#[derive(Debug)]
pub struct ScopedPrefix {
    prefix: String,
    /// Only set for shared servers; a spawned one disappears anyway.
    url: Option<String>,
}

impl ScopedPrefix {
    pub fn as_str(&self) -> &str {
        &self.prefix
    }
}

impl std::ops::Deref for ScopedPrefix {
    type Target = str;
    fn deref(&self) -> &str {
        &self.prefix
    }
}

impl Drop for ScopedPrefix {
    fn drop(&mut self) {
        let Some(url) = self.url.take() else { return };
        if let Err(e) = delete_keys(&url, &self.prefix) {
            // Best effort: leftovers under a unique prefix harm no other test.
            tracing::warn!(prefix = %self.prefix, error = %e, "could not clean up test keys");
        }
    }
}

fn delete_keys(url: &str, prefix: &str) -> redis::RedisResult<()> {
    let client = redis::Client::open(url)?;
    let mut conn = client.get_connection_with_timeout(Duration::from_secs(2))?;
    // Every key starts with its shard's hash tag, `{<prefix>:`.
    let pattern = format!("{{{}:*", glob_escape(prefix));
    let keys: Vec<Vec<u8>> = redis::cmd("SCAN")
        .cursor_arg(0)
        .arg("MATCH")
        .arg(&pattern)
        .arg("COUNT")
        .arg(1000)
        .clone()
        .iter(&mut conn)?
        .collect();
    for chunk in keys.chunks(500) {
        redis::cmd("UNLINK").arg(chunk).query::<()>(&mut conn)?;
    }
    Ok(())
}

fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

enum SpawnError {
    Fatal(String),
    Retry(String),
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn ping(addr: SocketAddr) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

fn read_log(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("(no log: {e})"))
}

/// A key prefix no other test (in this or any concurrent process) uses.
pub fn unique_prefix(tag: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "test:{tag}:{}:{nanos}:{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Socket options of this process's own connections, read back from the
/// kernel, for tests of what a server sets on the sockets it accepts.
pub mod net {
    use std::net::{IpAddr, SocketAddr};

    /// TCP_NODELAY on the server's side of the connection `client` →
    /// `server`, both in this process (IPv4 loopback): the accepted socket
    /// is found through /proc/net/tcp and /proc/self/fd and read with
    /// getsockopt. `None` when no such socket is open here.
    pub fn accepted_nodelay(
        server: SocketAddr,
        client: SocketAddr,
    ) -> std::io::Result<Option<bool>> {
        let want = (hex_addr(server), hex_addr(client));
        let table = std::fs::read_to_string("/proc/net/tcp")?;
        let inode = table.lines().skip(1).find_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            (f.len() > 9 && (f[1], f[2]) == (want.0.as_str(), want.1.as_str()))
                .then(|| f[9].to_owned())
        });
        let Some(inode) = inode else { return Ok(None) };
        let link = format!("socket:[{inode}]");
        for entry in std::fs::read_dir("/proc/self/fd")? {
            let entry = entry?;
            if std::fs::read_link(entry.path()).is_ok_and(|l| l.to_string_lossy() == link) {
                let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else {
                    continue;
                };
                // SAFETY: the fd is open in this process (just listed) and is
                // only borrowed for one getsockopt.
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                return socket2::SockRef::from(&fd).tcp_nodelay().map(Some);
            }
        }
        Ok(None)
    }

    /// The kernel's /proc/net/tcp form of an IPv4 address: "0100007F:1F90".
    fn hex_addr(a: SocketAddr) -> String {
        let ip = match a.ip() {
            IpAddr::V4(v4) => u32::from_le_bytes(v4.octets()),
            IpAddr::V6(_) => 0,
        };
        format!("{ip:08X}:{:04X}", a.port())
    }
}

/// Sends `sig` to the process `pid` (a server a test spawned).
pub(crate) fn signal(pid: u32, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(pid).expect("a process id");
    // SAFETY: kill(2) with a process id and a signal number; no memory is
    // shared with the callee.
    let sent = unsafe { libc::kill(pid, sig) };
    assert_eq!(
        sent,
        0,
        "signal {sig} to {pid}: {}",
        std::io::Error::last_os_error()
    );
}
