//! The floor under the gateway's cost per delivery: what writing one
//! message to one loopback TCP socket costs the writer, with a process of
//! tokio readers (as the subscribers are) at the other ends, in the
//! gateway's pattern: one event's deliveries as a burst of writes, each to
//! its own socket, bursts at the measured rate. No WebSocket, no hub: the
//! kernel's send path, the loopback delivery into the reader's socket and
//! its wakeup, which the writer pays for, are what is left.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tokio::io::AsyncReadExt;

/// The pattern to reproduce.
pub(crate) struct Pattern {
    pub sockets: u32,
    /// Writes per burst (one event's subscribers).
    pub burst: u32,
    pub writes_per_sec: f64,
    pub bytes: usize,
    pub secs: u64,
}

/// CPU µs of the writing thread per write.
pub(crate) fn measure(p: &Pattern) -> anyhow::Result<f64> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "--floor-reader",
            &addr.to_string(),
            "--raw",
            &p.sockets.to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the floor's reader process")?;
    let mut socks = Vec::with_capacity(p.sockets as usize);
    for _ in 0..p.sockets {
        let (s, _) = listener.accept()?;
        s.set_nodelay(true)?;
        socks.push(s);
    }
    let mut ready = String::new();
    BufReader::new(child.stdout.take().context("stdout")?).read_line(&mut ready)?;
    if ready.trim() != "ready" {
        bail!("the floor's reader said {ready:?}");
    }
    let msg = vec![b'x'; p.bytes];
    let burst = p.burst.clamp(1, p.sockets) as usize;
    let every = Duration::from_secs_f64(burst as f64 / p.writes_per_sec.max(1.0));
    let cpu0 = thread_cpu_us()?;
    let (start, mut next, mut i, mut writes) = (Instant::now(), Instant::now(), 0, 0u64);
    while start.elapsed() < Duration::from_secs(p.secs) {
        for _ in 0..burst {
            socks[i].write_all(&msg)?;
            i = (i + 1) % socks.len();
        }
        writes += burst as u64;
        next += every;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let cpu = thread_cpu_us()? - cpu0;
    drop(socks);
    let _ = child.wait();
    Ok(cpu as f64 / writes.max(1) as f64)
}

fn thread_cpu_us() -> anyhow::Result<u64> {
    mafia_profile::process::cpu_us("thread-self").context("/proc/thread-self/stat")
}

/// The reader process: `sockets` connections to `addr`, each read by a
/// task of its own into a 4 KiB buffer until the writer closes it.
pub(crate) async fn reader_main(addr: SocketAddr, sockets: u32) -> anyhow::Result<()> {
    let mut tasks = Vec::with_capacity(sockets as usize);
    for _ in 0..sockets {
        let mut s = tokio::net::TcpStream::connect(addr).await?;
        tasks.push(tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
        }));
    }
    println!("ready");
    std::io::stdout().flush()?;
    for t in tasks {
        let _ = t.await;
    }
    Ok(())
}
