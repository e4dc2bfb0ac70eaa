//! What one client may take of the gateway: its connections (a cap per
//! client address, checked at accept, before any upgrade) and, on each
//! WebSocket, the bytes waiting to be written to it (a budget per
//! connection, `ws::Conn`). Shared by the serve loop, every connection and
//! `/metrics`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The budget of a connection made outside [`crate::serve`] (tests, tools).
pub const DEFAULT_SEND_BUDGET: usize = 1 << 20;

/// A frame waiting in a backlog costs its bytes and about this much more:
/// its `Bytes` handle, its allocation's header and its queue slot. Counted,
/// so that a flood of tiny frames (empty pongs) is bounded by memory, not
/// by payload alone.
pub const FRAME_OVERHEAD: usize = 64;

/// The limits and their gauges, one per server.
#[derive(Debug)]
pub struct Sockets {
    /// Connections one client address may hold at once (0: no cap).
    pub max_per_address: usize,
    /// Bytes (with [`FRAME_OVERHEAD`] per frame) that may wait on one
    /// WebSocket; a client that would take more is closed with 1008.
    pub send_budget: usize,
    per_address: Mutex<HashMap<IpAddr, usize>>,
    queued: AtomicUsize,
    peak: AtomicUsize,
    over_budget: AtomicU64,
    refused: AtomicU64,
}

impl Sockets {
    pub fn new(max_per_address: usize, send_budget: usize) -> Arc<Sockets> {
        Arc::new(Sockets {
            max_per_address,
            send_budget,
            per_address: Mutex::new(HashMap::new()),
            queued: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            over_budget: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        })
    }

    /// A connection from `ip`, counted until its [`Lease`] (and every
    /// clone, e.g. an upgraded WebSocket's) is dropped; `None` when `ip`
    /// already holds `max_per_address`.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Lease> {
        let mut held = self.per_address.lock().expect("per-address lock");
        let n = held.entry(ip).or_insert(0);
        if self.max_per_address > 0 && *n >= self.max_per_address {
            drop(held);
            self.refused.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *n += 1;
        Some(Lease(Arc::new(Held {
            sockets: self.clone(),
            ip,
        })))
    }

    /// Connections `ip` holds now.
    pub fn held_by(&self, ip: IpAddr) -> usize {
        let held = self.per_address.lock().expect("per-address lock");
        held.get(&ip).copied().unwrap_or(0)
    }

    /// Bytes waiting on every WebSocket now (with the per-frame overhead).
    pub fn queued_bytes(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    /// The most bytes that ever waited on any one WebSocket: never more
    /// than `send_budget` and one frame (a frame into an empty backlog is
    /// always taken).
    pub fn peak_queued_bytes(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// WebSockets closed with 1008 for going over the budget.
    pub fn over_budget(&self) -> u64 {
        self.over_budget.load(Ordering::Relaxed)
    }

    /// Connections refused at accept for the per-address cap.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// One connection's backlog went from `before` to `after` bytes.
    pub(crate) fn settle(&self, before: usize, after: usize) {
        if after > before {
            self.queued.fetch_add(after - before, Ordering::Relaxed);
            self.peak.fetch_max(after, Ordering::Relaxed);
        } else if before > after {
            self.queued.fetch_sub(before - after, Ordering::Relaxed);
        }
    }

    pub(crate) fn went_over_budget(&self) {
        self.over_budget.fetch_add(1, Ordering::Relaxed);
    }
}

/// One admitted connection's place in its address's count.
#[derive(Clone, Debug)]
pub struct Lease(Arc<Held>);

#[derive(Debug)]
struct Held {
    sockets: Arc<Sockets>,
    ip: IpAddr,
}

impl Lease {
    pub fn sockets(&self) -> &Arc<Sockets> {
        &self.0.sockets
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.sockets.per_address.lock().expect("per-address lock");
        if let Some(n) = held.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// Answers a connection over its address's cap: 503 to its first
/// request, then closed (within `header_timeout`, as any connection).
pub async fn refuse(tcp: tokio::net::TcpStream, header_timeout: std::time::Duration) {
    let answer = hyper::service::service_fn(|_request| async {
        let response = hyper::Response::builder()
            .status(hyper::StatusCode::SERVICE_UNAVAILABLE)
            .header(hyper::header::RETRY_AFTER, "10")
            .header(hyper::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(http_body_util::Full::new(bytes::Bytes::from_static(
                b"too many connections from this address\n",
            )))
            .expect("a valid response");
        Ok::<_, std::convert::Infallible>(response)
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(false)
        .serve_connection(hyper_util::rt::TokioIo::new(tcp), answer);
    if let Err(e) = conn.await {
        tracing::trace!(error = %e, "refused connection ended");
    }
}

/// A request body that did not arrive whole within its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub struct BodyTimedOut(pub std::time::Duration);

/// `request` with its body cut off `within` from now: reading it past
/// then fails with [`BodyTimedOut`]. A request without a body is left as
/// it is.
pub fn body_deadline(
    request: hyper::Request<hyper::body::Incoming>,
    within: std::time::Duration,
) -> hyper::Request<axum::body::Body> {
    use futures::StreamExt;
    use hyper::body::Body as _;
    let (parts, body) = request.into_parts();
    if body.is_end_stream() {
        return hyper::Request::from_parts(parts, axum::body::Body::new(body));
    }
    let deadline = tokio::time::Instant::now() + within;
    let data = axum::body::Body::new(body).into_data_stream();
    let timed = futures::stream::unfold(Some(data), move |data| async move {
        let mut data = data?;
        match tokio::time::timeout_at(deadline, data.next()).await {
            Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(data))),
            Ok(Some(Err(e))) => Some((Err(axum::BoxError::from(e)), None)),
            Ok(None) => None,
            Err(_) => Some((Err(axum::BoxError::from(BodyTimedOut(within))), None)),
        }
    });
    hyper::Request::from_parts(parts, axum::body::Body::from_stream(timed))
}

/// Whether `e` (or what caused it) is a [`BodyTimedOut`].
pub fn is_body_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut at = Some(e);
    while let Some(e) = at {
        if e.is::<BodyTimedOut>() {
            return true;
        }
        at = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_its_slots_back_when_leases_drop() {
        let s = Sockets::new(2, DEFAULT_SEND_BUDGET);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let a = s.admit(ip).unwrap();
        let b = s.admit(ip).unwrap();
        assert!(s.admit(ip).is_none());
        assert_eq!(s.refused(), 1);
        let _c = s.admit(other).unwrap();
        // A clone (an upgraded socket's) keeps the slot.
        let a2 = a.clone();
        drop(a);
        assert!(s.admit(ip).is_none());
        drop(a2);
        assert_eq!(s.held_by(ip), 1);
        let _d = s.admit(ip).unwrap();
        drop(b);
        drop(_d);
        assert_eq!(s.held_by(ip), 0);
        assert!(s.per_address.lock().unwrap().get(&ip).is_none());
    }

    #[test]
    fn no_cap_admits_any_number() {
        let s = Sockets::new(0, DEFAULT_SEND_BUDGET);
        let ip: IpAddr = "::1".parse().unwrap();
        let all: Vec<Lease> = (0..1000).map(|_| s.admit(ip).unwrap()).collect();
        assert_eq!(s.held_by(ip), 1000);
        drop(all);
        assert_eq!(s.held_by(ip), 0);
    }
}
