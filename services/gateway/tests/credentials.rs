//! One rule for credentials on every route (`auth::caller_of`, applied by
//! `auth::refuse_bad_credentials` before any handler): a token that is
//! present but unknown is 401, even on routes that serve the public, and a
//! bad `Authorization` header is 401 whatever `?token=` says.

mod common;
#[path = "common/cup.rs"]
mod cup;

use std::net::SocketAddr;
use std::time::Duration;

use common::CHIEF;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The status of `GET path` with `headers` (raw lines) added.
async fn status(addr: SocketAddr, path: &str, headers: &str) -> u16 {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{headers}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&out);
    text.split(' ').nth(1).unwrap().parse().unwrap()
}

const PUBLIC_ROUTES: [&str; 5] = [
    "/api/games",
    "/api/players/cup",
    "/api/standings",
    "/export/cup/seating/3.html",
    "/export/cup/standings.csv",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_token_is_refused_on_every_route_even_the_public_ones() {
    let gw = cup::gateway().await;
    for path in PUBLIC_ROUTES {
        assert_eq!(status(gw.addr, path, "").await, 200, "{path}");
        assert_eq!(
            status(gw.addr, &format!("{path}?token={CHIEF}"), "").await,
            200,
            "{path}"
        );
        let unknown = format!("{path}?token=not-a-token");
        assert_eq!(status(gw.addr, &unknown, "").await, 401, "{unknown}");
        assert_eq!(
            status(gw.addr, path, "Authorization: Bearer not-a-token\r\n").await,
            401,
            "{path} with an unknown bearer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_authorization_header_is_refused_whatever_the_query_token_says() {
    let gw = cup::gateway().await;
    for path in PUBLIC_ROUTES
        .iter()
        .chain(&["/export/cup/standings.json", "/graphql/schema.graphql"])
    {
        let with_good_query = format!("{path}?token={CHIEF}");
        for header in [
            "Authorization: Bearer wrong\r\n",
            "Authorization: Basic abc\r\n",
        ] {
            assert_eq!(
                status(gw.addr, &with_good_query, header).await,
                401,
                "{path} {header}"
            );
        }
        let good_header = format!("Authorization: Bearer {CHIEF}\r\n");
        assert_eq!(
            status(gw.addr, &format!("{path}?token=wrong"), &good_header).await,
            401,
            "{path}"
        );
        assert_eq!(status(gw.addr, &with_good_query, &good_header).await, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_pages_are_served_whatever_token_their_url_carries() {
    // The same bytes for everyone; their scripts meet the rule on every
    // request they make, and the judge console says "Unknown token" itself.
    let gw = cup::gateway().await;
    for path in ["/hall", "/overlay", "/judge-console"] {
        assert_eq!(
            status(gw.addr, &format!("{path}?token=not-a-token"), "").await,
            200,
            "{path}"
        );
    }
}
