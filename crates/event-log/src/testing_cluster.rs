//! A Redis Cluster for tests: the one `REDIS_CLUSTER_URLS` names, or a
//! private one on loopback (`redis-server --cluster-enabled yes` per node
//! on free ports, joined by `redis-cli --cluster create`), stopped on drop.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{free_port, read_log, RedisServerError};

/// How long a node may be unreachable before its replica takes over.
pub const NODE_TIMEOUT: Duration = Duration::from_millis(1000);
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// One `redis-server` of a spawned cluster.
#[derive(Debug)]
struct Node {
    port: u16,
    child: Option<Child>,
    log: PathBuf,
}

/// A Redis Cluster for tests. [`RedisCluster::url`] is the
/// `redis+cluster://…` URL [`RedisLog`](crate::RedisLog) connects to.
#[derive(Debug)]
pub struct RedisCluster {
    url: String,
    nodes: Vec<Node>,
    _dir: Option<tempfile::TempDir>,
}

impl RedisCluster {
    /// `REDIS_CLUSTER_URLS` (`host:port,…` or a `redis+cluster://` URL;
    /// tests then isolate themselves with key prefixes) if set, otherwise
    /// [`RedisCluster::spawn`] with 3 primaries and a replica each.
    pub fn from_env_or_spawn() -> Result<Self, RedisServerError> {
        match std::env::var("REDIS_CLUSTER_URLS") {
            Ok(urls) if !urls.trim().is_empty() => {
                let url = if urls.starts_with(crate::CLUSTER_SCHEME) {
                    urls
                } else {
                    format!("{}{}", crate::CLUSTER_SCHEME, urls.trim())
                };
                Ok(RedisCluster {
                    url,
                    nodes: Vec::new(),
                    _dir: None,
                })
            }
            _ => Self::spawn(3, 1),
        }
    }

    /// Starts `primaries × (1 + replicas)` nodes (append-only, fsync every
    /// second, node timeout [`NODE_TIMEOUT`]), makes them a cluster and
    /// waits until every node says `cluster_state:ok` and every primary has
    /// its replicas attached.
    pub fn spawn(primaries: usize, replicas: usize) -> Result<Self, RedisServerError> {
        let err = |what: &str, e: &dyn std::fmt::Display| RedisServerError(format!("{what}: {e}"));
        let dir = tempfile::Builder::new()
            .prefix("mafia-redis-cluster")
            .tempdir()
            .map_err(|e| err("no temp dir", &e))?;
        let mut cluster = RedisCluster {
            url: String::new(),
            nodes: Vec::new(),
            _dir: None,
        };
        for i in 0..primaries * (1 + replicas) {
            let node_dir = dir.path().join(format!("node{i}"));
            std::fs::create_dir_all(&node_dir).map_err(|e| err("no node dir", &e))?;
            cluster.nodes.push(start_node(&node_dir)?);
        }
        cluster._dir = Some(dir);
        for node in &cluster.nodes {
            wait_for(node, |n| ping(n.port))?;
        }
        let addrs: Vec<String> = cluster
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let out = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| err("cannot run redis-cli", &e))?;
        if !out.status.success() {
            return Err(RedisServerError(format!(
                "redis-cli --cluster create failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        for node in &cluster.nodes {
            wait_for(node, |n| {
                info(n.port, "CLUSTER", "INFO").is_some_and(|i| i.contains("cluster_state:ok"))
            })?;
        }
        cluster.wait_for_replicas(replicas)?;
        cluster.url = format!("{}{}", crate::CLUSTER_SCHEME, addrs.join(","));
        Ok(cluster)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Process ids of the nodes it runs (for CPU figures).
    pub fn pids(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter_map(|n| n.child.as_ref().map(Child::id))
            .collect()
    }

    /// Whether this value runs (and will stop) its own nodes.
    pub fn is_spawned(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Ports of the nodes that are primaries now (as the first live node sees it).
    pub fn primaries(&self) -> Vec<u16> {
        self.roles("master")
    }

    /// Ports of the nodes that are replicas now.
    pub fn replicas(&self) -> Vec<u16> {
        self.roles("slave")
    }

    /// Stops the node on `port` with SIGSTOP: its connections stay open,
    /// it answers nothing (a replica left behind by a busy machine).
    pub fn pause(&self, port: u16) {
        self.signal(port, libc::SIGSTOP);
    }

    /// Lets a [`pause`](RedisCluster::pause)d node run again.
    pub fn resume(&self, port: u16) {
        self.signal(port, libc::SIGCONT);
    }

    fn signal(&self, port: u16, sig: libc::c_int) {
        let node = self.nodes.iter().find(|n| n.port == port);
        let child = node.and_then(|n| n.child.as_ref());
        super::signal(child.expect("a live node on that port").id(), sig);
    }

    fn roles(&self, role: &str) -> Vec<u16> {
        let Some(nodes) = self.live_ports().find_map(|p| info(p, "CLUSTER", "NODES")) else {
            return Vec::new();
        };
        nodes
            .lines()
            .filter_map(|line| {
                let f: Vec<&str> = line.split_whitespace().collect();
                let flags = f.get(2)?;
                let live = !flags.contains("fail") && !flags.contains("noaddr");
                if !(live && flags.split(',').any(|x| x == role)) {
                    return None;
                }
                let addr = f.get(1)?.split('@').next()?;
                addr.rsplit(':').next()?.parse().ok()
            })
            .collect()
    }

    fn live_ports(&self) -> impl Iterator<Item = u16> + '_ {
        self.nodes
            .iter()
            .filter(|n| n.child.is_some())
            .map(|n| n.port)
    }

    /// Kills the node on `port` with SIGKILL (no goodbye to anyone).
    pub fn kill(&mut self, port: u16) {
        for node in &mut self.nodes {
            if node.port == port {
                if let Some(mut child) = node.child.take() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
    }

    /// After [`kill`](RedisCluster::kill)ing the primary on `port`: waits
    /// until a replica took its place (as many primaries as before, none on
    /// `port`) and every live node says the cluster is ok.
    pub fn wait_for_failover(&self, port: u16, primaries: usize) -> Result<(), RedisServerError> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            let now = self.primaries();
            let ok = !now.contains(&port)
                && now.len() == primaries
                && self.live_ports().all(|p| {
                    info(p, "CLUSTER", "INFO").is_some_and(|i| i.contains("cluster_state:ok"))
                });
            if ok {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(RedisServerError("the cluster did not recover".into()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for_replicas(&self, replicas: usize) -> Result<(), RedisServerError> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            let primaries = self.primaries();
            let attached = !primaries.is_empty()
                && primaries.iter().all(|&p| {
                    info(p, "INFO", "replication").is_some_and(|i| {
                        i.lines()
                            .filter(|l| l.starts_with("slave") && l.contains("state=online"))
                            .count()
                            >= replicas
                    })
                });
            if attached {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(RedisServerError("replicas did not attach".into()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            if let Some(mut child) = node.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

fn start_node(dir: &std::path::Path) -> Result<Node, RedisServerError> {
    let port = free_port().map_err(|e| RedisServerError(format!("no free port: {e}")))?;
    let bus = free_port().map_err(|e| RedisServerError(format!("no free port: {e}")))?;
    let log = dir.join("redis.log");
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string()])
        .args(["--cluster-port", &bus.to_string()])
        .args(["--bind", "127.0.0.1"])
        .args(["--cluster-enabled", "yes"])
        .args(["--cluster-config-file", "nodes.conf"])
        .args([
            "--cluster-node-timeout",
            &NODE_TIMEOUT.as_millis().to_string(),
        ])
        .args(["--save", ""])
        .args(["--appendonly", "yes"])
        .args(["--appendfsync", "everysec"])
        .args(["--daemonize", "no"])
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            RedisServerError(format!(
                "cannot run redis-server ({e}); install it or set REDIS_CLUSTER_URLS"
            ))
        })?;
    Ok(Node {
        port,
        child: Some(child),
        log,
    })
}

fn wait_for(node: &Node, ready: impl Fn(&Node) -> bool) -> Result<(), RedisServerError> {
    let deadline = Instant::now() + READY_TIMEOUT;
    while !ready(node) {
        if Instant::now() > deadline {
            return Err(RedisServerError(format!(
                "cluster node on port {} not ready: {}",
                node.port,
                read_log(&node.log)
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

fn ping(port: u16) -> bool {
    super::ping(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
}

/// A text reply (`CLUSTER INFO`, `INFO replication`, …) of the node on `port`.
fn info(port: u16, cmd: &str, arg: &str) -> Option<String> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).ok()?;
    let mut conn = client
        .get_connection_with_timeout(Duration::from_millis(500))
        .ok()?;
    redis::cmd(cmd).arg(arg).query(&mut conn).ok()
}
