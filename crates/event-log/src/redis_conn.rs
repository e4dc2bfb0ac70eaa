//! Where the log's Redis is and how to talk to it: one server
//! (`redis://host:port/db`) or a Redis Cluster
//! (`redis+cluster://host1:port1,host2:port2,…`, any reachable nodes; the
//! client learns the rest). Both give a [`Conn`] that every command of the
//! log goes through, so the rest of the backend does not care which.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{
    ConnectionLike, ConnectionManager, ConnectionManagerConfig, MultiplexedConnection,
};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::{AsyncConnectionConfig, Cmd, Pipeline, RedisFuture, Value};

use crate::LogError;

/// The scheme that names a cluster's nodes.
pub const CLUSTER_SCHEME: &str = "redis+cluster://";

/// A parsed log URL.
#[derive(Clone)]
pub(crate) enum Target {
    Single(redis::Client),
    Cluster {
        client: ClusterClient,
        nodes: Vec<String>,
    },
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Single(c) => write!(f, "{}", c.get_connection_info().addr),
            Target::Cluster { nodes, .. } => write!(f, "cluster {}", nodes.join(",")),
        }
    }
}

/// The node URLs of a `redis+cluster://` URL, `None` for any other URL.
pub(crate) fn cluster_nodes(url: &str) -> Option<Vec<String>> {
    let rest = url.strip_prefix(CLUSTER_SCHEME)?;
    let (auth, hosts) = match rest.rsplit_once('@') {
        Some((auth, hosts)) => (format!("{auth}@"), hosts),
        None => (String::new(), rest),
    };
    Some(
        hosts
            .trim_end_matches('/')
            .split(',')
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(|h| format!("redis://{auth}{h}/"))
            .collect(),
    )
}

impl Target {
    pub(crate) fn open(url: &str, response_timeout: Option<Duration>) -> Result<Target, LogError> {
        let Some(nodes) = cluster_nodes(url) else {
            return Ok(Target::Single(redis::Client::open(url)?));
        };
        if nodes.is_empty() {
            return Err(LogError::InvalidArgument(format!(
                "{CLUSTER_SCHEME} needs at least one host:port"
            )));
        }
        let mut builder = ClusterClientBuilder::new(nodes.clone())
            // Few retries: a dead primary is left by renewing the connection
            // (see `Cluster`), and the callers retry.
            .retries(3)
            .min_retry_wait(50)
            .max_retry_wait(500);
        if let Some(t) = response_timeout {
            builder = builder.response_timeout(t).connection_timeout(t);
        }
        Ok(Target::Cluster {
            client: builder.build()?,
            nodes,
        })
    }

    /// A single server's address and set-up, for a connection of the log's
    /// own (`redis_wire`).
    pub(crate) fn single(&self) -> Option<&redis::ConnectionInfo> {
        match self {
            Target::Single(client) => Some(client.get_connection_info()),
            Target::Cluster { .. } => None,
        }
    }

    pub(crate) fn is_cluster(&self) -> bool {
        matches!(self, Target::Cluster { .. })
    }

    /// The shared connection: reconnects by itself (and follows the
    /// cluster's slots).
    pub(crate) async fn connect(
        &self,
        response_timeout: Option<Duration>,
    ) -> Result<Conn, LogError> {
        match self {
            Target::Single(client) => {
                let mut cfg = ConnectionManagerConfig::new();
                if let Some(t) = response_timeout {
                    cfg = cfg.set_response_timeout(t).set_connection_timeout(t);
                }
                Ok(Conn::Manager(
                    ConnectionManager::new_with_config(client.clone(), cfg).await?,
                ))
            }
            Target::Cluster { client, .. } => {
                let conn = client.get_async_connection().await?;
                Ok(Conn::Cluster(Arc::new(Cluster {
                    client: client.clone(),
                    current: std::sync::Mutex::new(conn),
                    renewing: tokio::sync::Mutex::new(()),
                })))
            }
        }
    }

    /// A connection of its own for one blocking reader: a blocked `XREAD`
    /// holds its connection, so it must not be the shared one.
    pub(crate) async fn blocking(&self, block: Duration) -> Result<Conn, LogError> {
        match self {
            Target::Single(client) => Ok(Conn::Plain(
                client
                    .get_multiplexed_async_connection_with_config(&AsyncConnectionConfig::new())
                    .await?,
            )),
            Target::Cluster { nodes, .. } => {
                let client = ClusterClientBuilder::new(nodes.clone())
                    .response_timeout(block + Duration::from_secs(5))
                    .build()?;
                // A reader that fails is opened anew by its follower.
                Ok(Conn::ClusterPlain(client.get_async_connection().await?))
            }
        }
    }
}

/// A connection to a server or to a cluster.
#[derive(Clone)]
pub(crate) enum Conn {
    Manager(ConnectionManager),
    Plain(MultiplexedConnection),
    /// A cluster reader's own connection.
    ClusterPlain(ClusterConnection),
    Cluster(Arc<Cluster>),
}

/// The shared cluster connection, made anew after a connection failure:
/// the client follows `MOVED` replies by itself, but a primary killed
/// outright answers nothing, and its slots would stay on it in the client's
/// map until its retries ran out; a new connection reads the slots afresh
/// (once a replica was promoted, from the nodes that are left).
pub(crate) struct Cluster {
    client: ClusterClient,
    current: std::sync::Mutex<ClusterConnection>,
    renewing: tokio::sync::Mutex<()>,
}

impl Cluster {
    fn current(&self) -> ClusterConnection {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn after(&self, err: &redis::RedisError) {
        if !(err.is_io_error()
            || err.is_connection_dropped()
            || err.is_connection_refusal()
            || err.is_timeout())
        {
            return;
        }
        // One renewal at a time; the callers waiting meanwhile retry on its result.
        let Ok(_renewing) = self.renewing.try_lock() else {
            return;
        };
        match self.client.get_async_connection().await {
            Ok(conn) => {
                tracing::info!(error = %err, "cluster connection renewed");
                *self.current.lock().unwrap_or_else(|e| e.into_inner()) = conn;
            }
            Err(e) => tracing::warn!(error = %e, "cluster connection not renewed yet"),
        }
    }
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Manager(c) => c.req_packed_command(cmd),
            Conn::Plain(c) => c.req_packed_command(cmd),
            Conn::ClusterPlain(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => {
                let (cluster, mut conn) = (c.clone(), c.current());
                Box::pin(async move {
                    let reply = conn.req_packed_command(cmd).await;
                    if let Err(e) = &reply {
                        cluster.after(e).await;
                    }
                    reply
                })
            }
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Manager(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Plain(c) => c.req_packed_commands(cmd, offset, count),
            Conn::ClusterPlain(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => {
                let (cluster, mut conn) = (c.clone(), c.current());
                Box::pin(async move {
                    let reply = conn.req_packed_commands(cmd, offset, count).await;
                    if let Err(e) = &reply {
                        cluster.after(e).await;
                    }
                    reply
                })
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Manager(c) => c.get_db(),
            Conn::Plain(c) => c.get_db(),
            Conn::ClusterPlain(c) => c.get_db(),
            Conn::Cluster(c) => c.current().get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_url_lists_its_nodes() {
        assert_eq!(
            cluster_nodes("redis+cluster://h1:7000,h2:7001/"),
            Some(vec![
                "redis://h1:7000/".to_owned(),
                "redis://h2:7001/".to_owned()
            ])
        );
        assert_eq!(
            cluster_nodes("redis+cluster://:pw@h1:7000,h2:7001"),
            Some(vec![
                "redis://:pw@h1:7000/".to_owned(),
                "redis://:pw@h2:7001/".to_owned()
            ])
        );
        assert_eq!(cluster_nodes("redis://h1:6379/"), None);
    }
}
