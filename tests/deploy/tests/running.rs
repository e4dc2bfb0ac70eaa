//! deploy/ against running services: real referee, gateway and scoring
//! processes sharing a private Redis, scraped, probed and reached through a
//! real nginx with deploy/nginx.conf. What the Grafana dashboard queries
//! exists, the gateway counts its subscribers, every follower's lag returns
//! to 0 once it has read the feed's head, the health checks compose runs
//! pass, and the balancer carries gRPC, gRPC-web and WebSockets.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mafia_event_log::testing::{unique_prefix, RedisServer};
use mafia_event_log::{EventLog, RedisLog, RedisLogConfig};

const TOKENS: &str = r#"{"tokens":[{"role":"organiser","token":"organiser-token-0123"},{"role":"chief_judge","token":"chief-token-0123"}]}"#;

/// A process whose output lines are read on threads, killed on drop.
struct Service {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: std::cell::RefCell<Vec<String>>,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Service {
    fn spawn(exe: &Path, args: &[&str], redis: &str, prefix: &str) -> Service {
        let mut child = Command::new(exe)
            .args(args)
            .env("REDIS_URL", redis)
            .env("MAFIA_LOG_PREFIX", prefix)
            .env("MAFIA_TOKENS", TOKENS)
            .env("NO_COLOR", "1")
            .env_remove("MAFIA_TOKENS_FILE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", exe.display()));
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        for stream in [Box::new(out) as Box<dyn Read + Send>, Box::new(err)] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    eprintln!("  | {line}");
                    let _ = tx.send(line);
                }
            });
        }
        Service {
            child,
            lines,
            seen: Default::default(),
        }
    }

    /// The address after `marker` on the first line that has it (stdout
    /// and stderr interleave in any order, so every line is kept).
    fn address_after(&self, marker: &str) -> String {
        let found = |line: &str| {
            let line = strip_ansi(line);
            let rest = line.split(marker).nth(1)?;
            let addr = rest.trim().trim_start_matches("http://");
            Some(addr.split(['/', ' ']).next().unwrap().to_owned())
        };
        let mut seen = self.seen.borrow_mut();
        if let Some(addr) = seen.iter().find_map(|l| found(l)) {
            return addr;
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let Ok(line) = self.lines.recv_timeout(left) else {
                break;
            };
            if let Some(addr) = found(&line) {
                return addr;
            }
            seen.push(line);
        }
        panic!("no line with {marker:?}");
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The three services on one Redis, each with its metrics address.
struct Stack {
    _redis: RedisServer,
    url: String,
    prefix: String,
    _services: Vec<Service>,
    referee: String,
    referee_metrics: String,
    gateway: String,
    gateway_metrics: String,
    scoring: String,
    scoring_metrics: String,
}

impl Stack {
    fn start() -> Stack {
        let bins = common::bins();
        let redis = RedisServer::from_env_or_spawn().expect("redis-server runs");
        let url = redis.url().to_owned();
        let prefix = unique_prefix("deploy");
        let any = ["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"];
        let referee = Service::spawn(
            &bins.join("mafia-referee"),
            &[&any[..], &["--store", "redis"]].concat(),
            &url,
            &prefix,
        );
        let gateway = Service::spawn(&bins.join("mafia-gateway"), &any, &url, &prefix);
        let scoring = Service::spawn(&bins.join("mafia-scoring"), &any, &url, &prefix);
        // The referee and scoring log their metrics address before printing
        // the gRPC one; the gateway prints its metrics address first.
        let referee_metrics = referee.address_after("metrics on /metrics addr=");
        let referee_addr = referee.address_after("listening on ");
        let scoring_metrics = scoring.address_after("metrics on /metrics addr=");
        let scoring_addr = scoring.address_after("listening on ");
        let gateway_metrics = gateway.address_after("metrics:");
        let gateway_addr = gateway.address_after("hall screen:");
        Stack {
            _redis: redis,
            url,
            prefix,
            _services: vec![referee, gateway, scoring],
            referee: referee_addr,
            referee_metrics,
            gateway: gateway_addr,
            gateway_metrics,
            scoring: scoring_addr,
            scoring_metrics,
        }
    }
}

/// `GET path` over HTTP/1.1: the status code and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let (status, _, body) = request(addr, &format!("GET {path} HTTP/1.1\r\n"), b"");
    (status, body)
}

/// One HTTP/1.1 request (its first line and any headers, then `body`): the
/// status, the head (lower-cased) and the body.
fn request(addr: &str, first_lines: &str, body: &[u8]) -> (u16, String, String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut tcp = loop {
        match TcpStream::connect(addr) {
            Ok(t) => break t,
            Err(e) if Instant::now() > deadline => panic!("connecting to {addr}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    write!(tcp, "{first_lines}Host: {addr}\r\nConnection: close\r\n").unwrap();
    if !body.is_empty() {
        write!(tcp, "Content-Length: {}\r\n", body.len()).unwrap();
    }
    write!(tcp, "\r\n").unwrap();
    tcp.write_all(body).unwrap();
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let head = head.to_ascii_lowercase();
    let body = if head.contains("transfer-encoding: chunked") {
        unchunk(body)
    } else {
        body.to_owned()
    };
    (status, head, body)
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

fn scrape(addr: &str) -> String {
    let (status, body) = get(addr, "/metrics");
    assert_eq!(status, 200, "GET {addr}/metrics");
    body
}

/// Every metric name a scrape mentions: each sample's, and each declared
/// family's (a counter with no labelled sample yet still has its TYPE).
fn names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if let Some(decl) = line.strip_prefix("# TYPE ") {
            let mut parts = decl.split_whitespace();
            let (name, kind) = (parts.next().unwrap(), parts.next().unwrap_or(""));
            out.insert(name.to_owned());
            if kind == "histogram" {
                for suffix in ["_bucket", "_sum", "_count"] {
                    out.insert(format!("{name}{suffix}"));
                }
            }
        } else if !line.starts_with('#') && !line.is_empty() {
            let end = line.find(['{', ' ']).unwrap_or(line.len());
            out.insert(line[..end].to_owned());
        }
    }
    out
}

/// The value of the sample `series` (name and labels exactly as printed).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// Polls `scrape` until `done` holds on it, or panics with the last scrape.
fn scrape_until(addr: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = scrape(addr);
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what} never held:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The identifiers of a PromQL expression that name series: everything but
/// label matchers, grouping labels, durations, strings, functions and
/// keywords.
fn metric_names(expr: &str) -> Vec<String> {
    const PROMQL: &[&str] = &[
        "sum",
        "rate",
        "irate",
        "increase",
        "max",
        "min",
        "avg",
        "by",
        "without",
        "histogram_quantile",
        "le",
    ];
    let mut out = Vec::new();
    let (mut depth, mut grouping) = (0, false);
    let mut chars = expr.char_indices().peekable();
    let mut prev_word = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '"' => {
                for (_, c) in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
            }
            '[' => {
                for (_, c) in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
            }
            '(' if prev_word == "by" || prev_word == "without" => grouping = true,
            ')' => grouping = false,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == ':' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &expr[i..end];
                if depth == 0 && !grouping && !PROMQL.contains(&word) {
                    out.push(word.to_owned());
                }
                prev_word = word.to_owned();
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            prev_word.clear();
        }
    }
    out
}

#[test]
fn promql_metric_names_leave_out_labels_functions_and_durations() {
    assert_eq!(
        metric_names(
            r#"histogram_quantile(0.99, sum by (le, code) (rate(referee_append_seconds_bucket{outcome="rejected"}[1m])))"#
        ),
        ["referee_append_seconds_bucket"]
    );
    assert_eq!(
        metric_names("sum(rate(a_sum[1m])) / sum(rate(b_count[5m]))"),
        ["a_sum", "b_count"]
    );
}

#[test]
fn every_metric_the_dashboard_queries_is_one_a_service_exports() {
    let stack = Stack::start();
    let mut exported = BTreeSet::new();
    for addr in [
        &stack.referee_metrics,
        &stack.gateway_metrics,
        &stack.scoring_metrics,
    ] {
        exported.extend(names(&scrape(addr)));
    }
    let path = common::workspace().join("deploy/grafana/mafia-arena.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("valid JSON");
    let mut queried = 0;
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("a PromQL expression");
            for name in metric_names(expr) {
                assert!(
                    exported.contains(&name),
                    "panel {:?} queries {name}, which no service exports (they export {exported:?})",
                    panel["title"]
                );
                queried += 1;
            }
        }
    }
    assert!(queried > 10, "the dashboard queries {queried} series");
    // What the dashboard must show (issue 10): each is queried.
    let text = std::fs::read_to_string(&path).unwrap();
    for needed in [
        "referee_commands_total",
        "referee_append_seconds_bucket",
        "referee_open_games",
        "mafia_gateway_subscribers",
        "mafia_gateway_cutbacks_total",
        "mafia_gateway_follower_lag_seconds",
        "mafia_scoring_follower_lag_seconds",
    ] {
        assert!(text.contains(needed), "the dashboard shows no {needed}");
    }
}

#[test]
fn each_follower_reports_no_lag_once_it_has_read_the_feeds_head() {
    let stack = Stack::start();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // A stream neither a game nor a tournament: every follower reads it off
    // the feed (and skips it), which is all the lag is about.
    rt.block_on(async {
        let log = RedisLog::connect_with(&stack.url, RedisLogConfig::with_prefix(&stack.prefix))
            .await
            .unwrap();
        log.create_game("lag-probe", b"{}").await.unwrap();
        log.append("lag-probe", 0, 0, &[bytes::Bytes::from_static(b"{}")])
            .await
            .unwrap();
        assert!(!log.feed_head().await.unwrap().as_str().starts_with("0-0"));
    });
    for (addr, series) in [
        (
            &stack.gateway_metrics,
            r#"mafia_gateway_follower_lag_seconds{follower="hub"}"#,
        ),
        (
            &stack.gateway_metrics,
            r#"mafia_gateway_follower_lag_seconds{follower="standings"}"#,
        ),
        (&stack.scoring_metrics, "mafia_scoring_follower_lag_seconds"),
    ] {
        scrape_until(addr, &format!("{series} is 0"), |t| {
            sample(t, series) == Some(0.0)
        });
    }
}

#[test]
fn the_gateway_counts_its_subscribers_by_route_and_audience() {
    let stack = Stack::start();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://{}/ws/hall", stack.gateway);
    let hall = r#"mafia_gateway_subscribers{route="hall",audience="public"}"#;
    let ws = rt.block_on(async { tokio_tungstenite::connect_async(url).await.unwrap().0 });
    let text = scrape_until(&stack.gateway_metrics, "one hall subscriber", |t| {
        sample(t, hall) == Some(1.0)
    });
    assert_eq!(sample(&text, "mafia_gateway_websockets"), Some(1.0));
    assert_eq!(
        sample(
            &text,
            r#"mafia_gateway_subscribers{route="game",audience="public"}"#
        ),
        Some(0.0)
    );
    drop(ws);
    scrape_until(&stack.gateway_metrics, "the subscriber gone", |t| {
        sample(t, hall) == Some(0.0) && sample(t, "mafia_gateway_websockets") == Some(0.0)
    });
}

/// `deploy/grpc-health ADDR SERVICE` (what compose runs): whether it says
/// SERVING; `None` where curl cannot speak HTTP/2 here.
fn grpc_health(addr: &str, service: &str) -> Option<bool> {
    let curl_h2 = Command::new("curl")
        .arg("-V")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("HTTP2"));
    if !curl_h2 {
        assert!(
            !common::tools_required(),
            "curl with HTTP/2 is needed for deploy/grpc-health"
        );
        eprintln!("skipped: deploy/grpc-health not run: curl with HTTP/2 is not installed");
        return None;
    }
    let script = common::workspace().join("deploy/grpc-health");
    let ok = Command::new("bash")
        .arg(&script)
        .args([addr, service])
        .status()
        .expect("bash runs")
        .success();
    Some(ok)
}

#[test]
fn the_health_checks_compose_runs_pass_on_the_real_services() {
    let stack = Stack::start();
    let (status, body) = get(&stack.gateway, "/healthz");
    assert_eq!((status, body.trim()), (200, "ok"), "the gateway's /healthz");
    let Some(referee) = grpc_health(&stack.referee, "mafia.v1.Referee") else {
        return;
    };
    assert!(referee, "the referee's health");
    assert_eq!(
        grpc_health(&stack.scoring, "mafia.v1.Scoring"),
        Some(true),
        "the scoring service's health"
    );
    assert_eq!(
        grpc_health(&stack.referee, "mafia.v1.NoSuchService"),
        Some(false),
        "an unknown service is not SERVING"
    );
}

/// A port free now (nginx cannot listen on port 0 and say which it got).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx with deploy/nginx.conf, its upstreams pointed at `stack` and its
/// three ports moved to free ones on loopback; killed on drop.
struct Balancer {
    child: Child,
    http: String,
    referee: String,
    scoring: String,
    _dir: tempfile_dir::Dir,
}

impl Drop for Balancer {
    fn drop(&mut self) {
        // SIGTERM, not SIGKILL: the master then stops its workers, which
        // would outlive a killed master (holding the test's output open).
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

mod tempfile_dir {
    /// A directory removed on drop.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn nginx() -> Option<std::path::PathBuf> {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
}

impl Balancer {
    fn start(stack: &Stack, exe: &Path) -> Balancer {
        let conf = std::fs::read_to_string(common::workspace().join("deploy/nginx.conf")).unwrap();
        let ports = [free_port(), free_port(), free_port()];
        let [http, referee, scoring] = ports.map(|p| format!("127.0.0.1:{p}"));
        let mut out = String::new();
        for line in conf.lines() {
            let t = line.trim_start();
            let indent = &line[..line.len() - t.len()];
            let line = if let Some(rest) = t.strip_prefix("server referee-") {
                format!(
                    "{indent}server {}{}",
                    stack.referee,
                    &rest[rest.find(' ').unwrap_or(rest.len())..]
                )
            } else if let Some(rest) = t.strip_prefix("server gateway-") {
                format!(
                    "{indent}server {}{}",
                    stack.gateway,
                    &rest[rest.find(' ').unwrap_or(rest.len())..]
                )
            } else if let Some(rest) = t.strip_prefix("server scoring:") {
                format!(
                    "{indent}server {}{}",
                    stack.scoring,
                    &rest[rest.find([' ', ';']).unwrap()..]
                )
            } else if let Some(rest) = t.strip_prefix("listen 8080") {
                format!("{indent}listen {http}{rest}")
            } else if let Some(rest) = t.strip_prefix("listen 50051") {
                format!("{indent}listen {referee}{rest}")
            } else if let Some(rest) = t.strip_prefix("listen 50053") {
                format!("{indent}listen {scoring}{rest}")
            } else {
                line.to_owned()
            };
            out.push_str(&line);
            out.push('\n');
        }
        assert_eq!(out.matches("listen 127.0.0.1:").count(), 3, "{out}");
        let dir = std::env::temp_dir().join(unique_prefix("mafia-nginx"));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("nginx.conf");
        std::fs::write(&path, out).unwrap();
        let child = Command::new(exe)
            .arg("-c")
            .arg(&path)
            .arg("-p")
            .arg(&dir)
            .arg("-g")
            .arg(format!("daemon off; pid {}/nginx.pid;", dir.display()))
            .spawn()
            .expect("nginx starts");
        let balancer = Balancer {
            child,
            http,
            referee,
            scoring,
            _dir: tempfile_dir::Dir(dir),
        };
        for addr in [&balancer.http, &balancer.referee, &balancer.scoring] {
            let deadline = Instant::now() + Duration::from_secs(30);
            while TcpStream::connect(addr).is_err() {
                assert!(Instant::now() < deadline, "nginx never listened on {addr}");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        balancer
    }
}

#[test]
fn the_balancer_carries_grpc_grpc_web_and_websockets_to_the_services() {
    let Some(exe) = nginx() else {
        assert!(
            !common::tools_required(),
            "nginx is needed (apt-get install nginx-light)"
        );
        eprintln!("skipped: nginx is not installed: deploy/nginx.conf not run");
        return;
    };
    let stack = Stack::start();
    let lb = Balancer::start(&stack, &exe);

    // People: HTTP and a WebSocket upgrade to a gateway.
    let (status, body) = get(&lb.http, "/healthz");
    assert_eq!((status, body.trim()), (200, "ok"), "/healthz through nginx");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let first = rt.block_on(async {
        use futures::StreamExt;
        let url = format!("ws://{}/ws/hall", lb.http);
        let (mut ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("upgraded");
        ws.next().await.expect("a first message").expect("a frame")
    });
    assert!(
        first.to_text().unwrap_or_default().contains("tables"),
        "the hall's first message through nginx: {first:?}"
    );

    // The judge console: gRPC-web on the people's port reaches a referee
    // (which refuses a call without a token, in the answer's headers).
    let (status, head, _) = request(
        &lb.http,
        "POST /mafia.v1.Referee/GetGame HTTP/1.1\r\ncontent-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\n",
        &[0, 0, 0, 0, 0],
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("grpc-status: 16"),
        "UNAUTHENTICATED from the referee: {head}"
    );
    // And its post-game inputs to the scoring service, which answers in
    // gRPC-web (an empty command is refused: any status will do, it is the
    // service's, nginx sets none).
    let (status, head, body) = request(
        &lb.http,
        "POST /mafia.v1.Scoring/Command HTTP/1.1\r\ncontent-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\n",
        &[0, 0, 0, 0, 0],
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("content-type: application/grpc-web")
            && (head.contains("grpc-status: ") || body.contains("grpc-status:")),
        "no gRPC status from the scoring service: {head}{body:?}"
    );

    // gRPC over HTTP/2 to the referees and the scoring service.
    if let Some(ok) = grpc_health(&lb.referee, "mafia.v1.Referee") {
        assert!(ok, "the referee's health through nginx");
        assert_eq!(
            grpc_health(&lb.scoring, "mafia.v1.Scoring"),
            Some(true),
            "the scoring service's health through nginx"
        );
    }
}
