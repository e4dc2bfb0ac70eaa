//! Clients that flood a running gateway with WebSocket pings and never
//! read (issue 36: one such socket took a gateway from 21 MB to 2.5 GB in
//! 12 s), and how much the gateway's resident memory grows meanwhile.
//!
//! ```text
//! cargo run -p mafia-gateway --example ping-flood -- \
//!     --addr 127.0.0.1:8080 --pid $(pgrep -n mafia-gateway) --sockets 10 --secs 30
//! ```
//!
//! Each socket upgrades on `--path`, then writes masked 125-byte pings as
//! fast as the gateway takes them; a socket the gateway closes (1008 over
//! its send budget, or a reset) is counted and opened again, so `--sockets`
//! flood all the time. Prints the gateway's RSS before and at its highest
//! (sampled every 100 ms), and the close codes seen.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Parser, Debug)]
struct Args {
    /// The gateway's HTTP address.
    #[arg(long)]
    addr: SocketAddr,
    /// The gateway's process id (whose RSS is measured).
    #[arg(long)]
    pid: u32,
    /// Flooding sockets at once.
    #[arg(long, default_value_t = 10)]
    sockets: usize,
    /// Seconds of flooding.
    #[arg(long, default_value_t = 30)]
    secs: u64,
    /// The WebSocket route.
    #[arg(long, default_value = "/ws/hall")]
    path: String,
}

impl Args {
    /// The subprotocol the route wants: GraphQL's on `/graphql/ws`.
    fn protocol(&self) -> &'static str {
        if self.path.starts_with("/graphql") {
            "Sec-WebSocket-Protocol: graphql-transport-ws\r\n"
        } else {
            ""
        }
    }
}

#[derive(Default)]
struct Counts {
    connections: AtomicU64,
    closed_1008: AtomicU64,
    closed_other: AtomicU64,
}

fn masked_ping() -> Vec<u8> {
    let mask = [0x11, 0x22, 0x33, 0x44];
    let mut f = vec![0x89, 0x80 | 125];
    f.extend_from_slice(&mask);
    f.extend((0..125).map(|i| b'p' ^ mask[i % 4]));
    f
}

/// One socket's life: upgrade, flood until the gateway ends it; the close
/// code it sent, if any was read.
async fn flood_once(args: &Args, until: Instant, counts: &Counts) -> anyhow::Result<()> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.set_recv_buffer_size(4096)?;
    let mut tcp = socket.connect(args.addr).await?;
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{}\r\n",
        args.path,
        args.addr,
        args.protocol()
    );
    tcp.write_all(req.as_bytes()).await?;
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(tcp.read_u8().await?);
    }
    anyhow::ensure!(
        head.starts_with(b"HTTP/1.1 101"),
        "refused: {}",
        String::from_utf8_lossy(&head)
    );
    counts.connections.fetch_add(1, Ordering::Relaxed);
    let chunk: Vec<u8> = masked_ping().repeat(256);
    let (mut rx, mut tx) = tcp.into_split();
    // Until the end, or until the gateway stops taking pings for a second:
    // it stopped reading this socket, to close it.
    while Instant::now() < until {
        match tokio::time::timeout(Duration::from_secs(1), tx.write_all(&chunk)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => break,
        }
    }
    drop(tx);
    let mut all = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(15), rx.read_to_end(&mut all)).await;
    match last_close(&all) {
        Some(1008) => counts.closed_1008.fetch_add(1, Ordering::Relaxed),
        _ => counts.closed_other.fetch_add(1, Ordering::Relaxed),
    };
    Ok(())
}

/// The code of the last close frame in `bytes` (server frames, unmasked).
fn last_close(mut bytes: &[u8]) -> Option<u16> {
    let mut code = None;
    while bytes.len() >= 2 {
        let (op, len) = (bytes[0] & 0x0f, (bytes[1] & 0x7f) as usize);
        let (len, at) = match len {
            126 if bytes.len() >= 4 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
            126 | 127 => return code,
            n => (n, 2),
        };
        if bytes.len() < at + len {
            return code;
        }
        if op == 0x8 && len >= 2 {
            code = Some(u16::from_be_bytes([bytes[at], bytes[at + 1]]));
        }
        bytes = &bytes[at + len..];
    }
    code
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Arc::new(Args::parse());
    let pid = args.pid.to_string();
    let rss = || mafia_profile::process::rss_kib(&pid).unwrap_or(0);
    let before = rss();
    let until = Instant::now() + Duration::from_secs(args.secs);
    let counts = Arc::new(Counts::default());
    let mut tasks = Vec::new();
    for _ in 0..args.sockets {
        let (args, counts) = (args.clone(), counts.clone());
        tasks.push(tokio::spawn(async move {
            while Instant::now() < until {
                if let Err(e) = flood_once(&args, until, &counts).await {
                    eprintln!("socket: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }));
    }
    let mut peak = before;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(100)).await;
        peak = peak.max(rss());
    }
    for t in tasks {
        let _ = t.await;
    }
    peak = peak.max(rss());
    println!(
        "sockets={} secs={} path={}",
        args.sockets, args.secs, args.path
    );
    println!("rss_before_kib={before}");
    println!("rss_peak_kib={peak}");
    println!(
        "rss_growth_mib={:.1}",
        peak.saturating_sub(before) as f64 / 1024.0
    );
    println!(
        "connections={} closed_1008={} closed_other={}",
        counts.connections.load(Ordering::Relaxed),
        counts.closed_1008.load(Ordering::Relaxed),
        counts.closed_other.load(Ordering::Relaxed)
    );
    Ok(())
}
