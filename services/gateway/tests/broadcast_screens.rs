//! The broadcast screens in headless Chromium, driven over the DevTools
//! protocol, against a real gateway following a real event log: the cup
//! tournament's standings and fifteen games (round 1 finished at three
//! tables, round 2 under way at twelve). Each screen is opened at
//! 1920×1080 and at 1280×720, in English and in Russian, and checked for
//! what it shows (the right audience's data only), that nothing spills out
//! of the screen, and that it asks nothing of any host but the gateway;
//! screenshots go to `tests/artifacts/` (gitignored).
//!
//! Without a chromium binary the tests say so and pass, unless
//! `MAFIA_REQUIRE_CHROMIUM=1`.

#[path = "common/cdp.rs"]
mod cdp;
mod common;
#[path = "common/cup.rs"]
mod cup;

use std::sync::Arc;

use cdp::{Browser, Page};
use common::{append, chromium, game, BROADCAST, CHIEF};
use mafia_event_log::EventLog;
use mafia_record::Header;
use mafia_rules::sim::{simulate, SimulatedGame};
use mafia_rules::{Audience, Envelope, RuleSetId};
use rand::SeedableRng;
use serde_json::Value;

const SIZES: [(u32, u32); 2] = [(1920, 1080), (1280, 720)];
const LANGS: [&str; 2] = ["en", "ru"];

/// Nicknames as a tournament has them: Cyrillic, long, short.
const NICKS: [&str; 10] = [
    "Анна",
    "Boris the Magnificent Second",
    "Вера",
    "Dmitry",
    "Елена Прекрасная",
    "Fox",
    "Глеб",
    "Hector",
    "Ирина",
    "Jo",
];

/// Creates game `id` as the referee does, with tournament name "Cup 2026"
/// and the nicknames above, and plays `events` of a simulated game (all
/// of them: a finished game).
async fn play(log: &Arc<dyn EventLog>, id: &str, seed: u64, events: Option<usize>) {
    let sim = game(RuleSetId::Rfm, seed);
    open(log, id, &sim).await;
    let n = events.unwrap_or(sim.events.len()).min(sim.events.len());
    append(log, id, &sim.events[..n]).await;
}

/// Creates game `id` of `sim` (header only, no events).
async fn open(log: &Arc<dyn EventLog>, id: &str, sim: &SimulatedGame) {
    let gid = id.parse().unwrap();
    let mut h = Header::for_setup(&sim.setup, &gid);
    h.tournament = "Cup 2026".into();
    h.judge = format!("Judge {}", gid.table);
    for (s, nick) in h.seats.iter_mut().zip(NICKS) {
        s.nickname = nick.into();
    }
    // Seat 1 of every game is the cup's player with a photo.
    h.seats[0].player_id = PHOTO_PLAYER.into();
    log.create_game(id, &serde_json::to_vec(&h).unwrap())
        .await
        .unwrap();
}

/// A player registered with a photo (a data: URL: the test allows no
/// other host than the gateway).
const PHOTO_PLAYER: &str = "p21";
const PHOTO: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async fn cup_with_games() -> cup::Gateway {
    cup_with_games_photo(PHOTO).await
}

/// The cup with round 1 played and round 2 under way, seat 1 of every game
/// a player whose photo is at `photo`.
async fn cup_with_games_photo(photo: &str) -> cup::Gateway {
    let gw = cup::gateway().await;
    let registered = serde_json::json!({"type": "player_registered",
        "player": {"id": PHOTO_PLAYER, "nickname": "Анна", "club": null, "photo_url": photo}, "at": 1_780_000_990_000_i64});
    let last = gw.log.last_seq("tournament.cup").await.unwrap();
    gw.log
        .append("tournament.cup", last, 0, &[registered.to_string().into()])
        .await
        .unwrap();
    for t in 1..=3 {
        play(&gw.log, &format!("cup.main.r1.t{t}.g1"), t, None).await;
    }
    // Round 1 is over for every audience (the public after its last
    // night), so what each reads besides the stream counts its results.
    let ids: Vec<mafia_record::GameId> = (1..=3)
        .map(|t| format!("cup.main.r1.t{t}.g1").parse().unwrap())
        .collect();
    common::until(&gw.hub, |h| {
        ids.iter().all(|id| {
            [Audience::Public, Audience::Broadcast]
                .into_iter()
                .all(|a| h.state(id, a).is_ok_and(|s| s.over))
        })
    })
    .await;
    under_way(&gw.log, 1..=12, 60).await;
    gw
}

/// Round 2's games at `tables`, each `first` events and a few more per
/// table in: none finished, each at its own point.
async fn under_way(log: &Arc<dyn EventLog>, tables: std::ops::RangeInclusive<u64>, first: usize) {
    for t in tables {
        let events = first + 3 * t as usize;
        play(log, &format!("cup.main.r2.t{t}.g1"), 100 + t, Some(events)).await;
    }
}

fn browser_or_skip() -> Option<std::path::PathBuf> {
    let bin = chromium();
    if bin.is_none() {
        assert!(
            std::env::var_os("MAFIA_REQUIRE_CHROMIUM").is_none(),
            "MAFIA_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("no chromium in PATH: broadcast screen tests skipped");
    }
    bin
}

/// Facts about the rendered page, gathered in the browser.
/// `FIXED`: the page must fit the screen, not only its width.
const FACTS: &str = r#"((FIXED) => {
  const vw = innerWidth, vh = innerHeight, de = document.documentElement;
  const outside = [...document.querySelectorAll(".card, .seat, .box, .legend, .side, .table-link")]
    .filter((e) => e.offsetParent !== null || getComputedStyle(e).position === "absolute")
    .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -1 || r.right > vw + 1 || (FIXED && (r.top < -1 || r.bottom > vh + 1))); })
    .map((e) => e.className + " " + (e.getAttribute("data-table") || e.getAttribute("data-seat") || ""));
  const spilled = [...document.querySelectorAll(".card")].filter((c) => c.scrollHeight > c.clientHeight + 2 || c.scrollWidth > c.clientWidth + 2)
    .map((c) => c.getAttribute("data-table"));
  return {
    lang: de.lang, text: document.body.innerText,
    wide: de.scrollWidth > vw + 1, tall: de.scrollHeight > vh + 1,
    outside, spilled,
    roles: document.querySelectorAll("[data-role]").length,
    liveRoles: document.querySelectorAll(".card[data-over='0'] [data-role]").length,
    tables: [...document.querySelectorAll(".card[data-table]")].map((c) => c.getAttribute("data-table")),
    links: [...document.querySelectorAll("a[data-game]")].map((a) => a.getAttribute("data-game")),
    bg: getComputedStyle(document.body).backgroundColor,
  };
})"#;

/// One screen: its path (after the host), when it is ready, whether its
/// whole content must fit the screen (hall and overlays) or may scroll
/// down (pages), and words each language must show.
struct Screen {
    name: &'static str,
    path: String,
    ready: &'static str,
    fixed: bool,
    en: &'static [&'static str],
    ru: &'static [&'static str],
}

fn screens() -> Vec<Screen> {
    vec![
        Screen {
            name: "hall",
            path: "/hall".into(),
            ready: "document.querySelectorAll('.card[data-table]').length === 12 && document.getElementById('side').style.display !== 'none' && document.getElementById('title').textContent === 'Cup 2026'",
            fixed: true,
            en: &["Cup 2026", "Round 2", "Table 12", "Legend", "Standings", "killed at night"],
            ru: &["Cup 2026", "Тур 2", "Стол 12", "Обозначения", "Турнирная таблица", "убит ночью"],
        },
        Screen {
            name: "hall-round-1",
            path: "/hall?round=1".into(),
            ready: "document.querySelectorAll('.card[data-over=\"1\"]').length === 3",
            fixed: true,
            en: &["Round 1", "Table 3"],
            ru: &["Тур 1", "Стол 3"],
        },
        Screen {
            name: "overlay-public",
            path: "/overlay?tournament=cup&table=3".into(),
            ready: "document.querySelectorAll('#bar [data-seat]').length === 10 && !!document.querySelector('#bar [data-seat=\"1\"] img.photo') && document.body.innerText.includes('Cup 2026')",
            fixed: true,
            en: &["Cup 2026", "Round 2", "Table 3", "Boris"],
            ru: &["Cup 2026", "Тур 2", "Стол 3", "Анна"],
        },
        Screen {
            name: "overlay-broadcast",
            path: format!("/overlay?tournament=cup&table=3&token={BROADCAST}"),
            ready: "document.querySelectorAll('#bar [data-role]').length === 10",
            fixed: true,
            en: &["Table 3", "Sheriff"],
            ru: &["Стол 3", "Шериф"],
        },
        Screen {
            name: "spectator-landing",
            path: "/spectator".into(),
            ready: "document.querySelectorAll('a[data-game]').length === 15",
            fixed: false,
            en: &["Live", "Finished", "Round 2", "Table 12"],
            ru: &["Идут", "Окончены", "Тур 2", "Стол 12"],
        },
        Screen {
            name: "spectator-game",
            path: "/spectator?game=cup.main.r2.t4.g1".into(),
            ready: "document.querySelectorAll('#log .line').length > 10 && document.querySelectorAll('[data-seat]').length === 10",
            fixed: false,
            en: &["Game log", "nominated", "was voted out", "votes against"],
            ru: &["Ход игры", "выставил", "заголосован", "Против"],
        },
        Screen {
            name: "judge",
            path: format!("/judge?token={CHIEF}&tournament=cup"),
            // Live games first: none finished above, none live below.
            ready: "document.querySelectorAll('.card[data-table]').length === 15 && document.querySelector('[data-rulings]').hasAttribute('data-version') && !document.querySelector('#grid .card.over') && !document.querySelector('#done .card:not(.over)')",
            fixed: false,
            en: &["Live (", "Finished (", "Sheriff", "Don", "Pending approvals", "+1.6 extra points for seat 5"],
            ru: &["Идут (", "Окончены (", "Шериф", "Дон", "Ждут утверждения", "+1.6 доп. балла месту 5"],
        },
        Screen {
            name: "standings",
            path: "/standings?tournament=cup".into(),
            ready: "document.body.hasAttribute('data-version')",
            fixed: false,
            // The cup's log scored four games, two of round 2; round 2's
            // games are under way here, and the public reads a result
            // only once its stream has shown the game's end.
            en: &["Player", "Games scored: 2", "Total"],
            ru: &["Игрок", "Сыграно игр: 2", "Итого"],
        },
        Screen {
            name: "standings-overlay",
            path: "/standings-overlay?tournament=cup&top=10".into(),
            ready: "document.body.hasAttribute('data-version')",
            fixed: true,
            en: &["top 10"],
            ru: &["топ 10"],
        },
    ]
}

/// Opens `url` in a new tab of `w`×`h` and returns the tab and its facts
/// once `ready` holds.
async fn visit(
    b: &mut Browser,
    url: &str,
    (w, h): (u32, u32),
    fixed: bool,
    ready: &str,
    what: &str,
) -> (Page, Value) {
    let page = b.page(w, h).await;
    b.goto(&page, url).await;
    b.wait_for(&page, ready, what).await;
    let facts = b.eval(&page, &format!("{FACTS}({fixed})")).await;
    (page, facts)
}

/// Every URL the page asked for is the gateway's own (or the page's own
/// data: and about: URLs).
fn assert_only_gateway(b: &Browser, page: &Page, addr: &std::net::SocketAddr, what: &str) {
    let requests = b.requests(page);
    assert!(!requests.is_empty(), "{what}: no request recorded");
    let own = [format!("http://{addr}/"), format!("ws://{addr}/")];
    for url in requests {
        assert!(
            own.iter().any(|o| url.starts_with(o.as_str()))
                || url.starts_with("data:")
                || url.starts_with("about:"),
            "{what} asked for {url}, which is not the gateway"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_screen_fits_1080p_and_720p_in_english_and_russian_with_its_audience_data_only() {
    let Some(bin) = browser_or_skip() else { return };
    let gw = cup_with_games().await;
    let mut b = Browser::launch(&bin).await;
    for s in screens() {
        for lang in LANGS {
            for (w, h) in SIZES {
                let sep = if s.path.contains('?') { '&' } else { '?' };
                let url = format!("http://{}{}{sep}lang={lang}", gw.addr, s.path);
                let what = format!("{} {lang} {w}x{h}", s.name);
                let (page, f) = visit(&mut b, &url, (w, h), s.fixed, s.ready, &what).await;
                b.screenshot(&page, &format!("{}-{lang}-{w}x{h}", s.name))
                    .await;
                let text = f["text"].as_str().unwrap();
                assert_eq!(f["lang"], lang, "{what}");
                for word in if lang == "en" { s.en } else { s.ru } {
                    assert!(
                        text.contains(word),
                        "{what} does not show {word:?}:\n{text}"
                    );
                }
                // No debug text: no raw events, ids or JSON on screen.
                for raw in [
                    "{\"",
                    "\"type\"",
                    "=",
                    "undefined",
                    "null",
                    "NaN",
                    "cup.main.",
                ] {
                    assert!(!text.contains(raw), "{what} shows {raw:?}:\n{text}");
                }
                assert_eq!(f["wide"], false, "{what} is wider than the screen");
                assert_eq!(
                    f["outside"],
                    Value::Array(vec![]),
                    "{what}: parts off screen"
                );
                assert_eq!(f["spilled"], Value::Array(vec![]), "{what}: cards overflow");
                if s.fixed {
                    assert_eq!(f["tall"], false, "{what} is taller than the screen");
                }
                // The public and its screens never see a role of a game
                // still being played.
                if !s.path.contains("token=") {
                    assert_eq!(f["liveRoles"], 0, "{what} shows roles of a live game");
                }
                if s.name == "overlay-public" || s.name == "spectator-game" {
                    assert_eq!(f["roles"], 0, "{what} shows roles to the public");
                }
                assert_only_gateway(&b, &page, &gw.addr, &what);
                b.close(page).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_shows_the_current_round_and_a_chosen_one_with_results_and_standings() {
    let Some(bin) = browser_or_skip() else { return };
    let gw = cup_with_games().await;
    let mut b = Browser::launch(&bin).await;
    let base = format!("http://{}", gw.addr);
    let (page, f) = visit(
        &mut b,
        &format!("{base}/hall"),
        (1920, 1080),
        true,
        screens()[0].ready,
        "hall",
    )
    .await;
    let want: Vec<String> = (1..=12).map(|t| format!("cup.main.r2.t{t}.g1")).collect();
    assert_eq!(
        f["tables"],
        serde_json::json!(want),
        "round 2's tables in order, nothing else"
    );
    // The standings panel lists the cup's leaders.
    let leader = b
        .eval(
            &page,
            "document.querySelector('#side [data-player]').getAttribute('data-player')",
        )
        .await;
    // The hall is public: it reads no result of a game whose end its
    // stream has not shown, and round 2's games are under way here (the
    // cup's log has results for two of them).
    let mut t = cup::folded(&gw.log).await;
    let running: Vec<_> = t.games.keys().filter(|g| g.round == 2).cloned().collect();
    for id in running {
        t.games.get_mut(&id).unwrap().result = None;
        t.ledger.set(&id, None);
    }
    assert_eq!(
        leader,
        mafia_tournament::standings(&t).rows[0].player.to_string()
    );
    b.close(page).await;

    let (page, f) = visit(
        &mut b,
        &format!("{base}/hall?round=1"),
        (1920, 1080),
        true,
        screens()[1].ready,
        "hall round 1",
    )
    .await;
    assert_eq!(f["tables"].as_array().unwrap().len(), 3);
    let chips = b
        .eval(
            &page,
            "document.querySelectorAll('.card .result-chip').length",
        )
        .await;
    assert_eq!(chips, 3, "every finished game is marked with its result");
    b.close(page).await;

    // More tables than a page holds: pages, held with ?page=.
    let (page, f) = visit(
        &mut b,
        &format!("{base}/hall?per=5&page=3"),
        (1280, 720),
        true,
        "document.querySelectorAll('.card[data-table]').length === 2",
        "hall page 3",
    )
    .await;
    assert_eq!(
        f["tables"],
        serde_json::json!(["cup.main.r2.t11.g1", "cup.main.r2.t12.g1"])
    );
    assert!(f["text"].as_str().unwrap().contains("Page 3 / 3"));
    b.close(page).await;

    // Twenty tables fit one screen, at either size, nothing cut off.
    under_way(&gw.log, 13..=20, 0).await;
    for size in SIZES {
        let what = format!("hall of 20 at {size:?}");
        let (page, f) = visit(
            &mut b,
            &format!("{base}/hall"),
            size,
            true,
            "document.querySelectorAll('.card[data-table]').length === 20",
            &what,
        )
        .await;
        assert_eq!(f["spilled"], Value::Array(vec![]), "{what}: cards overflow");
        assert_eq!(
            f["outside"],
            Value::Array(vec![]),
            "{what}: parts off screen"
        );
        assert_eq!(f["tall"], false, "{what}");
        b.screenshot(&page, &format!("hall-20-tables-{}x{}", size.0, size.1))
            .await;
        b.close(page).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overlay_at_a_stable_url_follows_the_game_now_current_at_its_table() {
    let Some(bin) = browser_or_skip() else { return };
    let gw = cup_with_games().await;
    let mut b = Browser::launch(&bin).await;
    let url = format!(
        "http://{}/overlay?tournament=cup&table=2&token={BROADCAST}",
        gw.addr
    );
    let page = b.page(1920, 1080).await;
    b.goto(&page, &url).await;
    let on = |id: &str| {
        format!("document.body.getAttribute('data-game') === '{id}' && document.querySelectorAll('#bar [data-seat]').length === 10")
    };
    b.wait_for(&page, &on("cup.main.r2.t2.g1"), "round 2's game")
        .await;
    // Round 3 opens: the same URL now shows round 3's game at table 2.
    play(&gw.log, "cup.main.r3.t2.g1", 77, Some(20)).await;
    b.wait_for(&page, &on("cup.main.r3.t2.g1"), "round 3's game")
        .await;
    let text = b.eval(&page, "document.body.innerText").await;
    assert!(text.as_str().unwrap().contains("Round 3"), "{text}");
    // The new game's info (the tournament's name) came with it on the
    // hall feed: the page asked nothing about it.
    assert!(text.as_str().unwrap().contains("Cup 2026"), "{text}");
    let asked: Vec<String> = b
        .requests(&page)
        .into_iter()
        .filter(|u| u.contains("/api/game/cup.main.r3"))
        .collect();
    assert_eq!(asked, Vec::<String>::new(), "asked about the new game");
    let bg = b
        .eval(&page, "getComputedStyle(document.body).backgroundColor")
        .await;
    assert_eq!(bg, "rgba(0, 0, 0, 0)", "the overlay's page is transparent");
    b.screenshot(&page, "overlay-follows-round-3").await;
    b.close(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overlay_says_a_nomination_in_words_and_shows_the_vote_as_it_is_counted() {
    let Some(bin) = browser_or_skip() else { return };
    let gw = cup::gateway().await;
    // A game played now, so its events are news to the overlay.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let sim = common::quick_nights(simulate(
        RuleSetId::Rfm,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(5),
        now,
    ));
    let id = "cup.main.r2.t1.g1";
    open(&gw.log, id, &sim).await;
    let kind = |e: &Envelope| serde_json::to_value(e.event).unwrap()["type"].clone();
    let first = |k: &str| sim.events.iter().position(|e| kind(e) == k).unwrap();
    let (nominated, counted) = (first("nominated"), first("votes_cast"));
    append(&gw.log, id, &sim.events[..nominated]).await;

    let mut b = Browser::launch(&bin).await;
    let page = b.page(1920, 1080).await;
    b.goto(
        &page,
        &format!("http://{}/overlay?tournament=cup&table=1", gw.addr),
    )
    .await;
    b.wait_for(
        &page,
        "document.querySelectorAll('#bar [data-seat]').length === 10",
        "the seats",
    )
    .await;
    append(&gw.log, id, &sim.events[nominated..=nominated]).await;
    b.wait_for(
        &page,
        "getComputedStyle(document.getElementById('ticker')).display !== 'none' && document.getElementById('ticker').textContent.includes(' nominated ')",
        "the nomination in words",
    )
    .await;
    append(&gw.log, id, &sim.events[nominated + 1..=counted]).await;
    b.wait_for(
        &page,
        "!!document.querySelector('#info .vote') && !!document.querySelector('#bar .tally') && document.getElementById('ticker').textContent.includes(' against ')",
        "the vote being counted",
    )
    .await;
    b.screenshot(&page, "overlay-vote").await;
    b.close(page).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_token_is_said_on_the_screen_and_not_retried() {
    let Some(bin) = browser_or_skip() else { return };
    let gw = cup_with_games().await;
    let mut b = Browser::launch(&bin).await;
    for (path, lang, words) in [
        ("/judge?token=not-a-known-token", "en", "not recognised"),
        (
            "/overlay?table=1&token=not-a-known-token",
            "ru",
            "не распознан",
        ),
    ] {
        let url = format!("http://{}{path}&lang={lang}", gw.addr);
        let page = b.page(1280, 720).await;
        b.goto(&page, &url).await;
        b.wait_for(&page, "!!document.getElementById('bad-token')", path)
            .await;
        let text = b.eval(&page, "document.body.innerText").await;
        assert!(text.as_str().unwrap().contains(words), "{text}");
        // The page opens its sockets only after the token is known good.
        let sockets: Vec<String> = b
            .requests(&page)
            .into_iter()
            .filter(|u| u.starts_with("ws:"))
            .collect();
        assert_eq!(
            sockets,
            Vec::<String>::new(),
            "{path} opened sockets with a bad token"
        );
        b.screenshot(&page, &format!("bad-token-{lang}")).await;
        b.close(page).await;
    }
}

/// Issue 36 #10: a player's photo on a host the gateway was not told to
/// allow (`--photo-hosts`) is never asked for by the overlay or the
/// spectator page, so no third party learns of the hall and OBS machines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_on_an_outside_host_is_never_asked_for_by_the_overlay_or_the_spectator_page() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::AsyncWriteExt;
    let Some(bin) = browser_or_skip() else { return };
    // The outside host: counts the connections it gets, answers 404.
    let outside = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host = outside.local_addr().unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = outside.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let _ = s
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
        }
    });
    let gw = cup_with_games_photo(&format!("http://{host}/anna.png")).await;
    let mut b = Browser::launch(&bin).await;
    // Ready once the seats are drawn and the players' listing (the photos)
    // was read and drawn in.
    let ready = "document.querySelectorAll('[data-seat]').length === 10 && performance.getEntriesByType('resource').some((e) => e.name.includes('/api/players/cup'))";
    for path in [
        "/overlay?tournament=cup&table=1",
        "/spectator?game=cup.main.r2.t1.g1",
    ] {
        let url = format!("http://{}{path}", gw.addr);
        let (page, _) = visit(&mut b, &url, (1920, 1080), false, ready, path).await;
        // What the page drew after the listing came: no photo to show.
        let photo = b
            .eval(
                &page,
                "!!document.querySelector('[data-seat=\"1\"] img.photo')",
            )
            .await;
        assert_eq!(photo, Value::Bool(false), "{path} shows an outside photo");
        assert_only_gateway(&b, &page, &gw.addr, path);
        b.close(page).await;
    }
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the outside host was asked"
    );
}

#[test]
fn no_screen_names_a_url_outside_the_gateway() {
    for (path, _, body) in mafia_gateway::assets::ASSETS {
        for bad in [
            "http://",
            "https://",
            "url(//",
            "src=\"//",
            "href=\"//",
            "@import",
        ] {
            assert!(!body.contains(bad), "{path} names {bad}");
        }
    }
}
