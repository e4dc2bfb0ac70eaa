//! Headless Chromium driven over the DevTools protocol (a real browser, a
//! real WebSocket to it): pages opened at a given size, scripts evaluated
//! in them, every URL they request recorded, screenshots as PNG files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// Where screenshots go: `services/gateway/tests/artifacts/` (gitignored).
pub fn artifacts() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts");
    std::fs::create_dir_all(&d).unwrap();
    d
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub struct Browser {
    child: Child,
    ws: Ws,
    next: u64,
    /// Events read while waiting for a reply, for `requests`.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

/// One tab, attached in flat mode.
pub struct Page {
    session: String,
    target: String,
}

impl Browser {
    pub async fn launch(bin: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--mute-audio",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // Chromium says where its DevTools listen on stderr, once they do.
        let stderr = child.stderr.take().unwrap();
        let url = tokio::task::spawn_blocking(move || {
            use std::io::BufRead;
            let mut lines = std::io::BufReader::new(stderr).lines();
            let url = loop {
                let line = lines.next().expect("chromium exited").unwrap();
                if let Some(u) = line.split("DevTools listening on ").nth(1) {
                    break u.trim().to_owned();
                }
            };
            // Keep draining so Chromium never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            url
        })
        .await
        .unwrap();
        let (ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("DevTools WebSocket");
        Browser {
            child,
            ws,
            next: 0,
            events: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends one command and waits for its reply; events that arrive
    /// meanwhile are kept.
    pub async fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let v = self.call_raw(session, method, params).await;
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }

    /// The whole reply to one command, an `error` included.
    async fn call_raw(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).await.unwrap();
        loop {
            let m = tokio::time::timeout(Duration::from_secs(60), self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("no reply to {method}"))
                .expect("DevTools connection open")
                .unwrap();
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
            self.events.push(v);
        }
    }

    /// A new tab `width`×`height` (CSS pixels, scale 1), transparent
    /// behind the page (as OBS composes it), recording its requests.
    pub async fn page(&mut self, width: u32, height: u32) -> Page {
        let target = self
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await["targetId"]
            .as_str()
            .unwrap()
            .to_owned();
        let session = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let s = Some(session.as_str());
        self.call(s, "Network.enable", json!({})).await;
        self.call(s, "Page.enable", json!({})).await;
        self.call(s, "Runtime.enable", json!({})).await;
        self.call(
            s,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await;
        self.call(
            s,
            "Emulation.setDefaultBackgroundColorOverride",
            json!({"color": {"r": 0, "g": 0, "b": 0, "a": 0}}),
        )
        .await;
        Page { session, target }
    }

    pub async fn goto(&mut self, page: &Page, url: &str) {
        self.call(Some(&page.session), "Page.navigate", json!({"url": url}))
            .await;
    }

    /// The value of `expr` (an expression) in the page.
    pub async fn eval(&mut self, page: &Page, expr: &str) -> Value {
        let r = self
            .call(
                Some(&page.session),
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        r["result"]["value"].clone()
    }

    /// Waits until `expr` is true in the page (the page fills itself from
    /// a WebSocket; a busy machine may be slow), panicking with `what`
    /// and the page's text after a minute.
    pub async fn wait_for(&mut self, page: &Page, expr: &str, what: &str) {
        // The page waits, not the test: each evaluation resolves once `expr`
        // holds or after two seconds; one that a navigation cut short (its
        // context destroyed) is simply asked again in the new document.
        let script = format!(
            "new Promise(done => {{ const end = Date.now() + 2000; (function tick() {{ \
             let ok = false; try {{ ok = ({expr}) === true; }} catch (_) {{}} \
             if (ok || Date.now() > end) done(ok); else setTimeout(tick, 50); }})(); }})"
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            let r = self
                .call_raw(
                    Some(&page.session),
                    "Runtime.evaluate",
                    json!({"expression": script, "returnByValue": true, "awaitPromise": true}),
                )
                .await;
            if r["result"]["result"]["value"] == json!(true) {
                return;
            }
        }
        let text = self.eval(page, "document.body.innerText").await;
        panic!("{what}: never true: {expr}\n{text}");
    }

    /// The DOM of `url` in a new 1920×1080 tab once it contains `ready`
    /// (the page fills itself from a WebSocket: this waits in real time,
    /// where `--virtual-time-budget` could end before the first message),
    /// with a screenshot to `artifacts()/name.png` when `shot` names one.
    pub async fn render(&mut self, url: &str, ready: &str, shot: Option<&str>) -> String {
        let page = self.page(1920, 1080).await;
        self.goto(&page, url).await;
        let html = "document.documentElement.outerHTML";
        let expr = format!("{html}.includes({})", json!(ready));
        self.wait_for(&page, &expr, url).await;
        if let Some(name) = shot {
            self.screenshot(&page, name).await;
        }
        let dom = self.eval(&page, html).await;
        self.close(page).await;
        dom.as_str().unwrap_or_default().to_owned()
    }

    /// A PNG of the viewport, written to `artifacts()/name.png`.
    pub async fn screenshot(&mut self, page: &Page, name: &str) -> PathBuf {
        let r = self
            .call(
                Some(&page.session),
                "Page.captureScreenshot",
                json!({"format": "png"}),
            )
            .await;
        let png = base64(r["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        let path = artifacts().join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Every URL the page asked for so far: documents, scripts, styles,
    /// images, fetches, WebSockets.
    pub fn requests(&self, page: &Page) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["sessionId"] == json!(page.session))
            .filter_map(|e| match e["method"].as_str() {
                Some("Network.requestWillBeSent") => e["params"]["request"]["url"].as_str(),
                Some("Network.webSocketCreated") => e["params"]["url"].as_str(),
                _ => None,
            })
            .map(str::to_owned)
            .collect()
    }

    pub async fn close(&mut self, page: Page) {
        self.call(None, "Target.closeTarget", json!({"targetId": page.target}))
            .await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (RFC 4648), as DevTools sends screenshots.
fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}
