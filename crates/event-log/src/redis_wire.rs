//! The batch task's own connection to a single Redis server. The append
//! script's call is written in RESP straight from the batch into a reused
//! buffer, and its one-line reply is read on the batch task itself. Through
//! the client library each call was packed from a command object (every
//! key and payload copied a second time), handed to the connection's own
//! task over a channel, written from there, and its reply parsed into a
//! value and handed back: about 7 % of the referee's instructions per
//! command (callgrind, 100 tables), which this path brought down by 4 %
//! (34.0k to 32.6k per command).
//!
//! Only what the batch task needs: TCP or a Unix socket, `AUTH` and
//! `SELECT` from the URL, replies that are one simple string, error,
//! integer or bulk string, in order. A cluster, and every other command of
//! the log, goes through the client library.

use std::time::Duration;

use bytes::{Buf, BytesMut};
use redis::{ConnectionAddr, ConnectionInfo, ErrorKind};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::LogError;

trait Stream: AsyncRead + AsyncWrite + Send + Sync + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Sync + Unpin> Stream for T {}

/// One reply, as the batch task uses them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// A simple or bulk string.
    Text(Vec<u8>),
    Error(String),
    Integer(i64),
    Nil,
}

/// A connection made on first use and again after any failure.
pub(crate) struct Wire {
    info: ConnectionInfo,
    timeout: Option<Duration>,
    io: Option<Box<dyn Stream>>,
    /// Read, not yet parsed.
    buf: BytesMut,
}

/// Whether the batch task can talk to `info` itself.
pub(crate) fn supports(info: &ConnectionInfo) -> bool {
    matches!(info.addr, ConnectionAddr::Tcp(..) | ConnectionAddr::Unix(_))
}

/// An I/O or protocol failure: the outcome of what was in flight is unknown.
pub(crate) fn failed(detail: impl Into<String>) -> LogError {
    LogError::Redis(Box::new(redis::RedisError::from((
        ErrorKind::IoError,
        "redis connection failed",
        detail.into(),
    ))))
}

impl Wire {
    pub(crate) fn new(info: ConnectionInfo, timeout: Option<Duration>) -> Wire {
        Wire {
            info,
            timeout,
            io: None,
            buf: BytesMut::with_capacity(512),
        }
    }

    /// Drops the connection; the next [`send`](Wire::send) makes another.
    pub(crate) fn close(&mut self) {
        self.io = None;
        self.buf.clear();
    }

    /// The response timeout the connection was made with.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Writes `request` (whole RESP commands), connecting first if needed.
    pub(crate) async fn send(&mut self, request: &[u8]) -> Result<(), LogError> {
        let timeout = self.timeout;
        let opened = match self.io {
            Some(_) => Ok(()),
            None => within(timeout, "connect", self.open()).await,
        };
        let written = match opened {
            Ok(()) => {
                let io = self.io.as_mut().expect("opened above");
                within(timeout, "write", async {
                    io.write_all(request).await.map_err(io_failed)
                })
                .await
            }
            Err(e) => Err(e),
        };
        if written.is_err() {
            self.close();
        }
        written
    }

    /// The next reply. Cancel-safe: what was read stays in the buffer.
    pub(crate) async fn reply(&mut self) -> Result<Reply, LogError> {
        loop {
            if let Some((reply, used)) = parse(&self.buf)? {
                self.buf.advance(used);
                return Ok(reply);
            }
            let io = self.io.as_mut().ok_or_else(|| failed("no connection"))?;
            if io.read_buf(&mut self.buf).await.map_err(io_failed)? == 0 {
                return Err(failed("the server closed the connection"));
            }
        }
    }

    /// Connects, with the URL's `AUTH` and `SELECT` (their replies read
    /// before anything else is sent).
    async fn open(&mut self) -> Result<(), LogError> {
        let mut io: Box<dyn Stream> = match &self.info.addr {
            ConnectionAddr::Tcp(host, port) => {
                let s = tokio::net::TcpStream::connect((host.as_str(), *port))
                    .await
                    .map_err(io_failed)?;
                s.set_nodelay(true).map_err(io_failed)?;
                Box::new(s)
            }
            ConnectionAddr::Unix(path) => Box::new(
                tokio::net::UnixStream::connect(path)
                    .await
                    .map_err(io_failed)?,
            ),
            other => return Err(failed(format!("unsupported address {other}"))),
        };
        let redis = &self.info.redis;
        let mut hello = Vec::new();
        if let Some(password) = &redis.password {
            match &redis.username {
                Some(user) => command(&mut hello, &[b"AUTH", user.as_bytes(), password.as_bytes()]),
                None => command(&mut hello, &[b"AUTH", password.as_bytes()]),
            }
        }
        if redis.db != 0 {
            command(&mut hello, &[b"SELECT", redis.db.to_string().as_bytes()]);
        }
        let expected = usize::from(redis.password.is_some()) + usize::from(redis.db != 0);
        io.write_all(&hello).await.map_err(io_failed)?;
        self.buf.clear();
        self.io = Some(io);
        for _ in 0..expected {
            if let Reply::Error(e) = self.reply().await? {
                return Err(LogError::Redis(Box::new(redis::RedisError::from((
                    ErrorKind::AuthenticationFailed,
                    "redis refused the connection's set-up",
                    e,
                )))));
            }
        }
        Ok(())
    }
}

/// `f`, failed as `what` timed out once `timeout` has passed.
async fn within<T>(
    timeout: Option<Duration>,
    what: &str,
    f: impl std::future::Future<Output = Result<T, LogError>>,
) -> Result<T, LogError> {
    match timeout {
        Some(t) => tokio::time::timeout(t, f)
            .await
            .unwrap_or_else(|_| Err(failed(format!("{what} timed out")))),
        None => f.await,
    }
}

fn io_failed(e: std::io::Error) -> LogError {
    LogError::Redis(Box::new(redis::RedisError::from(e)))
}

/// Appends one command of bulk strings to `out`.
pub(crate) fn command(out: &mut Vec<u8>, args: &[&[u8]]) {
    array(out, args.len());
    for a in args {
        bulk(out, a);
    }
}

/// `*n\r\n`: a command of `n` arguments follows.
pub(crate) fn array(out: &mut Vec<u8>, n: usize) {
    out.push(b'*');
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// One argument.
pub(crate) fn bulk(out: &mut Vec<u8>, arg: &[u8]) {
    let mut len = itoa::Buffer::new();
    let len = len.format(arg.len()).as_bytes();
    // One capacity check for the five pieces.
    out.reserve(len.len() + arg.len() + 5);
    out.push(b'$');
    out.extend_from_slice(len);
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(arg);
    out.extend_from_slice(b"\r\n");
}

/// The first reply in `buf` and the bytes it took, `None` if it is not
/// all there yet.
pub(crate) fn parse(buf: &[u8]) -> Result<Option<(Reply, usize)>, LogError> {
    let Some(end) = buf.windows(2).position(|w| w == b"\r\n") else {
        return Ok(None);
    };
    if end == 0 {
        return Err(failed("an empty reply line"));
    }
    let line = &buf[1..end];
    let text = || String::from_utf8_lossy(line).into_owned();
    let number = || -> Result<i64, LogError> {
        std::str::from_utf8(line)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| failed(format!("not a number in a reply: {:?}", text())))
    };
    let reply = match buf[0] {
        b'+' => (Reply::Text(line.to_vec()), end + 2),
        b'-' => (Reply::Error(text()), end + 2),
        b':' => (Reply::Integer(number()?), end + 2),
        b'$' => {
            let len = number()?;
            if len < 0 {
                (Reply::Nil, end + 2)
            } else {
                let start = end + 2;
                let stop = start + len as usize;
                if buf.len() < stop + 2 {
                    return Ok(None);
                }
                if &buf[stop..stop + 2] != b"\r\n" {
                    return Err(failed("a bulk reply does not end its line"));
                }
                (Reply::Text(buf[start..stop].to_vec()), stop + 2)
            }
        }
        other => {
            return Err(failed(format!(
                "unexpected reply type {:?}",
                char::from(other)
            )))
        }
    };
    Ok(Some(reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_written_as_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        command(&mut out, &[b"SELECT", b"12"]);
        assert_eq!(out, b"*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n");
    }

    #[test]
    fn each_kind_of_reply_is_parsed_with_the_bytes_it_took() {
        let p = |b: &[u8]| parse(b).unwrap();
        assert_eq!(p(b"+OK\r\nrest"), Some((Reply::Text(b"OK".to_vec()), 5)));
        assert_eq!(
            p(b"-NOSCRIPT No matching script\r\n"),
            Some((Reply::Error("NOSCRIPT No matching script".into()), 30))
        );
        assert_eq!(p(b":42\r\n"), Some((Reply::Integer(42), 5)));
        assert_eq!(p(b"$-1\r\n"), Some((Reply::Nil, 5)));
        assert_eq!(
            p(b"$5\r\nok,ok\r\n+OK"),
            Some((Reply::Text(b"ok,ok".to_vec()), 11))
        );
        assert_eq!(p(b"$0\r\n\r\n"), Some((Reply::Text(Vec::new()), 6)));
    }

    #[test]
    fn a_reply_not_all_read_yet_is_waited_for() {
        for partial in [&b""[..], b"+OK", b"+OK\r", b"$5\r\nok,o", b"$5\r\nok,ok\r"] {
            assert_eq!(parse(partial).unwrap(), None, "{partial:?}");
        }
    }

    #[test]
    fn a_malformed_reply_is_an_error() {
        assert!(parse(b"*1\r\n").is_err());
        assert!(parse(b":x\r\n").is_err());
        assert!(parse(b"$2\r\nokxx").is_err());
        assert!(parse(b"\r\n+OK\r\n").is_err());
    }
}
