//! Where the log's Redis is and how to talk to it: one server
//! (`redis://host:port/db`) or a Redis Cluster
//! (`redis+cluster://host1:port1,host2:port2,…`, any reachable nodes; the
//! client learns the rest). Both give a [`Conn`] that every command of the
//! log goes through, so the rest of the backend does not care which.

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
            // A failover takes a few node timeouts: keep retrying through it.
            .retries(12)
            .min_retry_wait(100)
            .max_retry_wait(1_000);
        if let Some(t) = response_timeout {
            builder = builder.response_timeout(t).connection_timeout(t);
        }
        Ok(Target::Cluster {
            client: builder.build()?,
            nodes,
        })
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
                Ok(Conn::Cluster(client.get_async_connection().await?))
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
                Ok(Conn::Cluster(client.get_async_connection().await?))
            }
        }
    }
}

/// A connection to a server or to a cluster.
#[derive(Clone)]
pub(crate) enum Conn {
    Manager(ConnectionManager),
    Plain(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Manager(c) => c.req_packed_command(cmd),
            Conn::Plain(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
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
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Manager(c) => c.get_db(),
            Conn::Plain(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
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
