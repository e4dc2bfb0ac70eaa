//! A private `redis-server` with its append-only file (fsync on every
//! write), which a test can kill, shut down, stall and start again on the
//! same port and data directory.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Redis {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `DEBUG` is off by default since Redis 7 and must be enabled at start.
fn debug_needs_enabling() -> bool {
    let out = Command::new("redis-server").arg("--version").output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let major = text.ok().and_then(|t| {
        let v = t.split("v=").nth(1)?;
        v.split('.').next()?.parse::<u32>().ok()
    });
    major.is_some_and(|m| m >= 7)
}

impl Redis {
    /// Starts one on a free port in a new temp dir.
    pub fn start() -> Redis {
        let mut last = String::new();
        // A free port found by binding :0 may be taken before redis binds it.
        for _ in 0..5 {
            let dir = tempfile::Builder::new()
                .prefix("mafia-faults-redis")
                .tempdir()
                .expect("a temp dir");
            let mut r = Redis {
                port: free_port(),
                dir,
                child: None,
            };
            match r.spawn() {
                Ok(()) => return r,
                Err(e) => last = e,
            }
        }
        panic!("could not start redis-server: {last}");
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("redis.log")
    }

    fn spawn(&mut self) -> Result<(), String> {
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .args(["--daemonize", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .arg("--logfile")
            .arg(self.log_path());
        if debug_needs_enabling() {
            cmd.args(["--enable-debug-command", "local"]);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run redis-server ({e}): install it"))?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if self.command(&["PING"]).is_ok_and(|r| r == "+PONG") {
                self.child = Some(child);
                return Ok(());
            }
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
                return Err(format!("redis-server exited with {status}: {log}"));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err("redis-server did not answer PING".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// SIGKILL: no goodbye, nothing flushed but what `appendfsync always`
    /// already wrote.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// `SHUTDOWN NOSAVE`: no RDB snapshot; the AOF is all there is.
    pub fn shutdown_nosave(&mut self) {
        // The server closes the connection instead of answering.
        let _ = self.command(&["SHUTDOWN", "NOSAVE"]);
        if let Some(mut c) = self.child.take() {
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port and data directory (the AOF is
    /// loaded before it answers PING).
    pub fn restart(&mut self) {
        let mut last = String::new();
        // The port was just released; a lingering socket may hold it briefly.
        for _ in 0..50 {
            match self.spawn() {
                Ok(()) => return,
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("could not restart redis-server on {}: {last}", self.port);
    }

    /// One command over a fresh connection; the first line of the reply.
    pub fn command(&self, args: &[&str]) -> std::io::Result<String> {
        let mut s = TcpStream::connect_timeout(&self.addr(), Duration::from_millis(500))?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut req = format!("*{}\r\n", args.len());
        for a in args {
            req.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        s.write_all(req.as_bytes())?;
        let mut line = String::new();
        BufReader::new(s).read_line(&mut line)?;
        if line.is_empty() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        Ok(line.trim_end().to_owned())
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill9();
    }
}
