//! A minimal Chrome DevTools Protocol client over the WebSocket Debian's
//! headless Chromium opens (`--remote-debugging-port=0`): pages as flat
//! sessions, script evaluation, real key events, reloads and screenshots.
//! Enough to drive a page the way a judge does, without any npm package.
// Shared by the tests and the bench example, which use different parts.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// Chromium from `MAFIA_CHROMIUM` or the PATH (Debian's `chromium`).
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MAFIA_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// An uncaught exception, a `console.error`/`console.assert` or an error
/// entry of the browser's log (a failed load among them), in words.
fn problem(v: &Value) -> Option<String> {
    let p = &v["params"];
    match v["method"].as_str()? {
        "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
        "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
            Some(format!("console.{}: {}", p["type"].as_str()?, p["args"]))
        }
        "Log.entryAdded" if p["entry"]["level"] == "error" => Some(format!(
            "log: {} {}",
            p["entry"]["text"].as_str()?,
            p["entry"]["url"].as_str().unwrap_or_default()
        )),
        _ => None,
    }
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;
/// What each page (by its session) reported as going wrong: uncaught
/// exceptions, `console.error`s and the browser's own error entries.
type Problems = Arc<Mutex<Vec<(String, String)>>>;

pub struct Browser {
    child: Child,
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    problems: Problems,
    next: AtomicU64,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub async fn launch(bin: &Path) -> Arc<Browser> {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,960",
                "--remote-debugging-port=0",
                "about:blank",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start chromium");
        let stderr = child.stderr.take().unwrap();
        let url = tokio::task::spawn_blocking(move || {
            let mut lines = BufReader::new(stderr).lines();
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
            .expect("devtools websocket");
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(m) = out_rx.recv().await {
                if sink.send(m).await.is_err() {
                    return;
                }
            }
        });
        let pending: Pending = Arc::default();
        let p = pending.clone();
        let problems: Problems = Arc::default();
        let seen = problems.clone();
        tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                let Message::Text(t) = m else { continue };
                let v: Value = serde_json::from_str(&t).unwrap_or_default();
                if let Some(id) = v["id"].as_u64() {
                    if let Some(tx) = p.lock().unwrap().remove(&id) {
                        let _ = tx.send(v);
                    }
                } else if let Some(problem) = problem(&v) {
                    eprintln!("page problem: {problem}");
                    let session = v["sessionId"].as_str().unwrap_or_default().to_owned();
                    seen.lock().unwrap().push((session, problem));
                }
            }
        });
        Arc::new(Browser {
            child,
            out,
            pending,
            problems,
            next: AtomicU64::new(1),
            _profile: profile,
        })
    }

    async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let reply = self.call_raw(session, method, params).await;
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// The whole reply to one command, an `error` included.
    async fn call_raw(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.out
            .send(Message::Text(msg.to_string().into()))
            .expect("devtools connection");
        tokio::time::timeout(Duration::from_secs(60), rx)
            .await
            .unwrap_or_else(|_| panic!("{method}: no answer from chromium"))
            .unwrap()
    }

    /// A new tab (same profile: it shares the first tab's storage).
    pub async fn page(self: &Arc<Self>) -> Page {
        let target = self
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await;
        let session = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target["targetId"], "flatten": true}),
            )
            .await["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let page = Page {
            browser: self.clone(),
            session,
        };
        for m in ["Page.enable", "Runtime.enable", "Log.enable"] {
            page.cmd(m, json!({})).await;
        }
        page.cmd(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await;
        page
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Page {
    browser: Arc<Browser>,
    session: String,
}

impl Page {
    /// Everything this page reported as going wrong so far, but for what
    /// contains one of `expected` (a referee stopped on purpose fails
    /// loads).
    pub fn problems(&self, expected: &[&str]) -> Vec<String> {
        self.browser
            .problems
            .lock()
            .unwrap()
            .iter()
            .filter(|(session, p)| {
                *session == self.session && !expected.iter().any(|e| p.contains(e))
            })
            .map(|(_, p)| p.clone())
            .collect()
    }

    pub async fn cmd(&self, method: &str, params: Value) -> Value {
        self.browser.call(Some(&self.session), method, params).await
    }

    /// Navigates and waits until the new document runs, so that nothing
    /// read afterwards comes from the old one.
    pub async fn goto(&self, url: &str) {
        let old = self.eval("performance.timeOrigin").await;
        self.cmd("Page.navigate", json!({"url": url})).await;
        self.wait_new_document(old).await;
    }

    pub async fn reload(&self) {
        let old = self.eval("performance.timeOrigin").await;
        self.cmd("Page.reload", json!({"ignoreCache": true})).await;
        self.wait_new_document(old).await;
    }

    async fn wait_new_document(&self, old: Value) {
        self.wait(&format!(
            "performance.timeOrigin !== {old} && document.readyState === 'complete'"
        ))
        .await;
    }

    /// The value of a script expression (promises awaited).
    pub async fn eval(&self, expr: &str) -> Value {
        let r = self
            .cmd(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        if let Some(e) = r.get("exceptionDetails") {
            return json!({"exception": e});
        }
        r["result"]["value"].clone()
    }

    /// Waits until `expr` is truthy, and returns it. Fails (does not hang)
    /// after a minute with what the page shows.
    pub async fn wait(&self, expr: &str) -> Value {
        // The page waits, not the test: each evaluation resolves with the
        // value once it is truthy, or with null after two seconds; one that
        // a navigation cut short (its context destroyed) is asked again in
        // the new document.
        let script = format!(
            "new Promise(done => {{ const end = Date.now() + 2000; (function tick() {{ \
             let v = null; try {{ v = ({expr}); }} catch (_) {{}} \
             if (v || Date.now() > end) done(v || null); else setTimeout(tick, 50); }})(); }})"
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            let r = self
                .browser
                .call_raw(
                    Some(&self.session),
                    "Runtime.evaluate",
                    json!({"expression": script, "returnByValue": true, "awaitPromise": true}),
                )
                .await;
            if r.get("error").is_some() || r["result"].get("exceptionDetails").is_some() {
                continue;
            }
            let v = &r["result"]["result"]["value"];
            if !v.is_null() {
                return v.clone();
            }
        }
        let shown = self
            .eval("JSON.stringify({body: document.body && document.body.dataset, text: document.body && document.body.innerText.slice(0, 2000)})")
            .await;
        panic!("waited a minute for `{expr}`; the page: {shown}");
    }

    /// Types `text` as key presses, one character at a time.
    pub async fn type_text(&self, text: &str) {
        for c in text.chars() {
            let key = c.to_string();
            self.cmd(
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "key": key, "text": key}),
            )
            .await;
            self.cmd(
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": key}),
            )
            .await;
        }
    }

    /// Presses a named key: "Enter", "Backspace", "Escape", "Tab", " ".
    pub async fn press(&self, key: &str) {
        self.press_with(key, false).await;
    }

    /// Presses a named key, with Shift held or not, as a keyboard does:
    /// Enter and Space also type their character, which is what makes a
    /// focused button act unless the page's keydown prevents it.
    pub async fn press_with(&self, key: &str, shift: bool) {
        let (code, name, text) = match key {
            "Enter" => (13, "Enter", "\r"),
            " " => (32, "Space", " "),
            "Tab" => (9, "Tab", ""),
            "Backspace" => (8, "Backspace", ""),
            "Escape" => (27, "Escape", ""),
            "ArrowUp" => (38, "ArrowUp", ""),
            _ => (0, key, ""),
        };
        let modifiers = if shift { 8 } else { 0 };
        let down = if text.is_empty() {
            "rawKeyDown"
        } else {
            "keyDown"
        };
        for ty in [down, "keyUp"] {
            let mut event = json!({"type": ty, "key": key, "code": name, "windowsVirtualKeyCode": code,
                "nativeVirtualKeyCode": code, "modifiers": modifiers});
            if ty == "keyDown" {
                event["text"] = json!(text);
            }
            self.cmd("Input.dispatchKeyEvent", event).await;
        }
    }

    /// A mouse click (a tap) at the middle of the element `selector` names,
    /// brought into view first, as a judge would scroll to it: a point
    /// under the sticky header or outside the viewport would tap nothing,
    /// or something else.
    pub async fn click(&self, selector: &str) {
        let at = self
            .wait(&format!(
                "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
                 e.scrollIntoView({{block: 'center', inline: 'center'}}); \
                 const r = e.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2; \
                 const hit = document.elementFromPoint(x, y); \
                 return hit && (hit === e || e.contains(hit)) ? [x, y] : null; }})()"
            ))
            .await;
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        for ty in ["mousePressed", "mouseReleased"] {
            self.cmd(
                "Input.dispatchMouseEvent",
                json!({"type": ty, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .await;
        }
    }

    pub async fn screenshot(&self, path: &Path) {
        let r = self
            .cmd("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(path, png).unwrap();
    }
}
