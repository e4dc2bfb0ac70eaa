//! The judge console's figures (issue 9), not a test: key press → the
//! referee's ack shown on screen, p50/p99 over whole games typed into the
//! page in headless Chromium against a referee on loopback, and the bytes
//! the console's first load transfers. One `name: value unit` line each.
//!
//! `cargo run -p mafia-gateway --example console-bench [-- GAMES]`
//! (`scripts/console-bench.sh`; debug builds measure debug code).

#[path = "../tests/console/cdp.rs"]
mod cdp;
#[path = "../tests/console/harness.rs"]
mod harness;

use harness::*;
use mafia_rules::{Game, RuleSetId};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let bin = cdp::chromium().expect("chromium (apt-get install -y chromium)");
    let stack = Stack::start().await;
    let browser = cdp::Browser::launch(&bin).await;
    let page = browser.page().await;
    let mut latencies: Vec<f64> = Vec::new();
    let mut transferred = 0;
    for g in 0..games {
        let rules = RuleSetId::ALL[g % RuleSetId::ALL.len()];
        let sim = sim(rules, 100 + g as u64);
        // A fresh load each game, with the cache off: the first load's bytes.
        page.cmd("Network.enable", serde_json::json!({})).await;
        page.cmd(
            "Network.setCacheDisabled",
            serde_json::json!({"cacheDisabled": true}),
        )
        .await;
        log_in(&page, &stack, T3, "en").await;
        page.wait("document.body.dataset.screen === 'games'").await;
        transferred = page
            .eval(
                "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
                   .filter((e) => !e.name.includes('/api/')).reduce((a, e) => a + e.transferSize, 0)",
            )
            .await
            .as_u64()
            .unwrap_or(0);
        open_by_form(&page, rules, 3, g as u32 + 1, &nicknames(), &cards_of(&sim)).await;
        page.wait("document.body.dataset.screen === 'game' && document.body.dataset.expect")
            .await;
        let (mut game, _) = Game::new(sim.setup.clone(), 0);
        type_commands(
            &page,
            &mut game,
            &sim.commands,
            0..sim.commands.len(),
            None,
            false,
        )
        .await;
        let got = page.eval("window.__console.latencies").await;
        latencies.extend(got.as_array().unwrap().iter().filter_map(|v| v.as_f64()));
        page.eval("location.hash = ''; true").await;
    }
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
    println!("console_key_to_ack_p50: {:.1} ms", at(0.5));
    println!("console_key_to_ack_p99: {:.1} ms", at(0.99));
    println!("console_key_to_ack_samples: {} commands", latencies.len());
    println!("console_first_load_transferred: {transferred} bytes");
    println!(
        "console_first_load_content: {} bytes",
        mafia_gateway::console::first_load_bytes(&mafia_gateway::ConsoleConfig {
            referee_url: Some(format!("http://{}", stack.referee_addr)),
            scoring_url: None,
        })
    );
}
