//! The hub's sans-IO core, driven with explicit instants: no clock, no
//! runtime, no log.

mod common;

use std::time::{Duration, Instant};

use common::*;
use mafia_gateway::hub::{Arrival, CoreConfig, HubCore, Now, Route, Transmit};
use mafia_gateway::messages::HallFeed;
use mafia_record::LoggedEvent;
use mafia_rules::{Audience, Envelope, RuleSetId};

/// The game of [`with_game`], and one with an unusable header.
const G: &str = "cup.final.r1.t1.g1";
const BAD: &str = "cup.final.r1.t9.g1";

const DELAY: Duration = Duration::from_secs(60);
const RETENTION: Duration = Duration::from_secs(600);

fn core() -> HubCore {
    HubCore::new(CoreConfig {
        broadcast_delay: DELAY,
        history: 4096,
        retention: RETENTION,
    })
}

fn payload(e: &Envelope) -> Vec<u8> {
    serde_json::to_vec(&LoggedEvent {
        client_seq: None,
        envelope: *e,
    })
    .unwrap()
}

/// As the referee stores it: accepted at `accepted_at` by its own clock.
fn payload_accepted(e: &Envelope, accepted_at: i64) -> Vec<u8> {
    LoggedEvent {
        client_seq: None,
        envelope: *e,
    }
    .encode_accepted(Some(accepted_at))
    .json
}

/// A core with one game, [`G`], and the instant everything starts at.
fn with_game() -> (HubCore, mafia_rules::sim::SimulatedGame, Instant) {
    let sim = game(RuleSetId::Club, 7);
    let mut core = core();
    let header = serde_json::to_vec(&header(&sim, 1)).unwrap();
    core.add_game(&gid(G), &header, &mut Vec::new()).unwrap();
    (core, sim, Instant::now())
}

fn at(t: Instant, unix_ms: i64) -> Now {
    Now { at: t, unix_ms }
}

fn to_table(out: &[Transmit], audience: Audience) -> Vec<&Transmit> {
    out.iter()
        .filter(|t| matches!(&t.route, Route::Game { audience: a, .. } if *a == audience))
        .collect()
}

#[test]
fn broadcast_events_wait_out_the_delay_from_their_arrival() {
    let (mut core, sim, t0) = with_game();
    let mut out = Vec::new();
    for (i, e) in sim.events[..10].iter().enumerate() {
        let now = at(t0 + Duration::from_secs(i as u64), e.at);
        assert!(core
            .handle_event(
                &gid(G),
                e.seq as u64,
                &payload(e),
                Arrival::Live,
                now,
                &mut out
            )
            .unwrap());
    }
    assert!(
        to_table(&out, Audience::Broadcast).is_empty(),
        "nothing before the delay"
    );
    assert!(
        !to_table(&out, Audience::Judge).is_empty(),
        "judges see it at once"
    );
    assert_eq!(core.poll_timeout(), Some(t0 + DELAY));
    out.clear();
    core.handle_timeout(t0 + DELAY - Duration::from_millis(1), &mut out);
    assert!(out.is_empty(), "a millisecond early is still early");
    // The first event's delay is over; the second's is a second later.
    core.handle_timeout(t0 + DELAY, &mut out);
    assert_eq!(to_table(&out, Audience::Broadcast).len(), 1);
    assert_eq!(
        core.poll_timeout(),
        Some(t0 + DELAY + Duration::from_secs(1))
    );
    core.handle_timeout(t0 + DELAY + Duration::from_secs(9), &mut out);
    let seqs: Vec<u64> = to_table(&out, Audience::Broadcast)
        .iter()
        .map(|t| {
            serde_json::from_slice::<serde_json::Value>(&t.msg).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>(), "in order, each once");
    assert_eq!(core.poll_timeout(), None, "nothing left to wake up for");
    assert_eq!(core.state(&gid(G), Audience::Broadcast).unwrap().seq, 10);
}

#[test]
fn events_read_from_the_log_wait_only_for_what_is_left_of_their_delay() {
    let (mut core, sim, t0) = with_game();
    let e = &sim.events[0];
    let mut out = Vec::new();
    // Stored 45 s ago by the judge's clock: 15 s of the delay are left.
    let now = at(t0, e.at + 45_000);
    core.handle_event(&gid(G), 1, &payload(e), Arrival::Logged, now, &mut out)
        .unwrap();
    assert!(to_table(&out, Audience::Broadcast).is_empty());
    assert_eq!(core.poll_timeout(), Some(t0 + Duration::from_secs(15)));
    // Long past: released with the event itself.
    let e = &sim.events[1];
    let now = at(t0 + Duration::from_secs(15), e.at + 3_600_000);
    core.handle_event(&gid(G), 2, &payload(e), Arrival::Logged, now, &mut out)
        .unwrap();
    assert_eq!(to_table(&out, Audience::Broadcast).len(), 2);
}

#[test]
fn a_judge_clock_running_behind_does_not_shorten_the_broadcast_delay() {
    let (mut core, sim, t0) = with_game();
    let mut out = Vec::new();
    // Stamped ten minutes ago by the judge's laptop, accepted by the
    // referee 45 s ago (a gateway restarted, reading its history).
    let e = &sim.events[0];
    let unix_now = e.at + 600_000;
    let now = at(t0, unix_now);
    let payload = payload_accepted(e, unix_now - 45_000);
    core.handle_event(&gid(G), 1, &payload, Arrival::Logged, now, &mut out)
        .unwrap();
    assert!(
        to_table(&out, Audience::Broadcast).is_empty(),
        "held back: {out:?}"
    );
    assert_eq!(core.poll_timeout(), Some(t0 + Duration::from_secs(15)));
}

#[test]
fn each_event_is_encoded_once_per_audience_that_sees_it() {
    let (mut core, sim, t0) = with_game();
    let mut out = Vec::new();
    let dealt = &sim.events[0];
    assert!(matches!(dealt.event, mafia_rules::Event::Dealt { .. }));
    core.handle_event(
        &gid(G),
        1,
        &payload(dealt),
        Arrival::Live,
        at(t0, dealt.at),
        &mut out,
    )
    .unwrap();
    // The deal is hidden from the public: no message at all for it.
    assert!(to_table(&out, Audience::Public).is_empty());
    let judge = to_table(&out, Audience::Judge);
    assert_eq!(judge.len(), 1, "one delta for every judge subscriber");
    let halls: Vec<_> = out
        .iter()
        .filter(|t| matches!(t.route, Route::Hall { .. }))
        .collect();
    assert_eq!(halls.len(), 1, "one hall message for the judges");
    // Catch-up hands out the same bytes, not a copy.
    let (initial, seq) = core.catch_up(&gid(G), Audience::Judge, Some(0)).unwrap();
    assert_eq!(seq, 1);
    assert_eq!(initial.len(), 1, "a client with nothing gets a snapshot");
    let (deltas, _) = core.catch_up(&gid(G), Audience::Judge, Some(1)).unwrap();
    assert!(deltas.is_empty());
}

#[test]
fn a_new_game_is_told_to_every_audiences_hall_with_its_info_and_view_before_the_deal() {
    let sim = game(RuleSetId::Club, 7);
    let mut h = header(&sim, 1);
    h.tournament = "Cup 2026".into();
    let mut core = core();
    let mut out = Vec::new();
    core.add_game(&gid(G), &serde_json::to_vec(&h).unwrap(), &mut out)
        .unwrap();
    let audiences: Vec<_> = out
        .iter()
        .map(|t| match &t.route {
            Route::Hall { game, audience } if **game == gid(G) => *audience,
            other => panic!("only the halls hear of a new game, not {other:?}"),
        })
        .collect();
    assert_eq!(audiences, mafia_gateway::hub::AUDIENCES);
    for (t, a) in out.iter().zip(audiences) {
        let m: HallFeed = serde_json::from_slice(&t.msg).unwrap();
        let state = core.state(&gid(G), a).unwrap();
        let HallFeed::Table {
            game_id,
            info: Some(info),
            seq: 0,
            view,
        } = m
        else {
            panic!("{a:?}: not a new game's table message: {m:?}");
        };
        assert_eq!((game_id.as_str(), &view), (G, &state.view), "{a:?}");
        assert_eq!(*info, state.info);
        assert_eq!(info.tournament, "Cup 2026");
    }
}

#[test]
fn an_event_folded_already_is_ignored() {
    let (mut core, sim, t0) = with_game();
    let mut out = Vec::new();
    let e = &sim.events[0];
    let now = at(t0, e.at);
    assert!(core
        .handle_event(&gid(G), 1, &payload(e), Arrival::Live, now, &mut out)
        .unwrap());
    out.clear();
    assert!(!core
        .handle_event(&gid(G), 1, &payload(e), Arrival::Logged, now, &mut out)
        .unwrap());
    assert!(out.is_empty());
    assert_eq!(core.state(&gid(G), Audience::Judge).unwrap().seq, 1);
}

#[test]
fn a_game_with_an_unreadable_header_is_refused_once_and_its_events_ignored() {
    let mut core = core();
    let mut out = Vec::new();
    assert!(core.add_game(&gid(BAD), b"not json", &mut out).is_err());
    assert!(core.knows(&gid(BAD)) && !core.has_game(&gid(BAD)));
    assert!(
        core.add_game(&gid(BAD), b"not json", &mut out).is_ok(),
        "refused once, then known"
    );
    assert!(out.is_empty(), "no hall hears of it");
    let sim = game(RuleSetId::Club, 7);
    let e = &sim.events[0];
    let now = at(Instant::now(), e.at);
    assert!(!core
        .handle_event(&gid(BAD), 1, &payload(e), Arrival::Live, now, &mut out)
        .unwrap());
    assert!(out.is_empty());
    assert!(core.games().is_empty());
}

#[test]
fn an_unreadable_event_is_refused_and_changes_nothing() {
    let (mut core, _, t0) = with_game();
    let mut out = Vec::new();
    let err = core
        .handle_event(&gid(G), 1, b"{}", Arrival::Live, at(t0, 0), &mut out)
        .unwrap_err();
    assert!(err.to_string().contains("unreadable event 1"), "{err}");
    assert!(out.is_empty());
    assert_eq!(core.state(&gid(G), Audience::Judge).unwrap().seq, 0);
    assert_eq!(core.poll_timeout(), None);
}

fn public_messages(out: &[Transmit]) -> Vec<String> {
    out.iter()
        .filter(|t| match &t.route {
            Route::Game { audience, .. } | Route::Hall { audience, .. } => {
                *audience == Audience::Public
            }
        })
        .map(|t| String::from_utf8_lossy(&t.msg).into_owned())
        .collect()
}

/// Everything the public gets of game [`G`] when `sim`'s events arrive live,
/// each at its own time, the core woken at each `poll_timeout` as the shell
/// wakes it: the table and hall messages with the instant they were sent,
/// then the events GraphQL's `events` and a resuming raw-feed subscriber
/// would be given, and the public state.
fn public_side(sim: &mafia_rules::sim::SimulatedGame) -> Vec<String> {
    // Kept a day after its end: read back below once every night is over.
    let mut core = HubCore::new(CoreConfig {
        broadcast_delay: DELAY,
        history: 4096,
        retention: Duration::from_secs(86_400),
    });
    let mut out = Vec::new();
    core.add_game(
        &gid(G),
        &serde_json::to_vec(&header(sim, 1)).unwrap(),
        &mut out,
    )
    .unwrap();
    // The hall hears of the game first.
    let mut seen = public_messages(&out);
    let t0 = Instant::now();
    let start = sim.events[0].at;
    let record = |instant: Instant, out: &[Transmit], seen: &mut Vec<String>| {
        let public = public_messages(out);
        if !public.is_empty() {
            let ms = instant.duration_since(t0).as_millis();
            seen.push(format!("at +{ms} ms: {} messages", public.len()));
            seen.extend(public);
        }
    };
    let wake_until = |core: &mut HubCore, until: Instant, seen: &mut Vec<String>| {
        while let Some(due) = core.poll_timeout().filter(|d| *d <= until) {
            let mut out = Vec::new();
            core.handle_timeout(due, &mut out);
            record(due, &out, seen);
        }
    };
    for e in &sim.events {
        let instant = t0 + Duration::from_millis((e.at - start) as u64);
        wake_until(&mut core, instant, &mut seen);
        let mut out = Vec::new();
        core.handle_event(
            &gid(G),
            e.seq as u64,
            &payload(e),
            Arrival::Live,
            at(instant, e.at),
            &mut out,
        )
        .unwrap();
        record(instant, &out, &mut seen);
    }
    let last = sim.events.last().unwrap().at - start;
    let hour_after = t0 + Duration::from_millis(last as u64) + Duration::from_secs(3600);
    wake_until(&mut core, hour_after, &mut seen);
    let events = core
        .events(&gid(G), Audience::Public, 0, usize::MAX)
        .unwrap();
    seen.push(serde_json::to_string(&events).unwrap());
    for from in [None, Some(0), Some(3)] {
        let (msgs, seq) = core.catch_up(&gid(G), Audience::Public, from).unwrap();
        seen.push(format!("catch-up from {from:?} to {seq}"));
        seen.extend(msgs.iter().map(|m| String::from_utf8_lossy(m).into_owned()));
    }
    seen.push(
        core.state(&gid(G), Audience::Public)
            .unwrap()
            .view
            .to_string(),
    );
    seen
}

/// The hidden commands entered in each night after night 0, and when its
/// morning came by the judge's clock (after the night began).
fn nights(sim: &mafia_rules::sim::SimulatedGame) -> Vec<(usize, i64)> {
    use mafia_rules::Event;
    let mut nights = Vec::new();
    let mut open: Option<(i64, u32, std::collections::BTreeSet<u32>)> = None;
    for e in &sim.events {
        match (e.event, &mut open) {
            (Event::NightStarted { night, .. }, _) if night > 0 => {
                open = Some((e.at, e.cmd, Default::default()))
            }
            (Event::DayStarted { .. } | Event::GameEnded { .. }, Some((start, _, cmds))) => {
                cmds.insert(e.cmd);
                nights.push((cmds.len(), e.at - *start));
                open = None;
            }
            (_, Some((_, first, cmds))) if e.cmd != *first => {
                cmds.insert(e.cmd);
            }
            _ => {}
        }
    }
    nights
}

#[test]
fn hidden_twins_with_other_night_commands_give_the_public_the_same_transmits_at_the_same_instants()
{
    use rand::SeedableRng;
    let mut compared = 0;
    for seed in 0..12u64 {
        let rules = RuleSetId::ALL[seed as usize % RuleSetId::ALL.len()];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let sim = mafia_rules::sim::simulate(rules, &mut rng, 1_700_000_000_000);
        let twin = mafia_rules::sim::hidden_twin(&sim, &mut rng);
        let (a, b) = (nights(&sim), nights(&twin));
        if a == b {
            continue;
        }
        compared += 1;
        assert_eq!(
            public_side(&sim),
            public_side(&twin),
            "{rules:?} seed {seed}: {a:?} against {b:?}"
        );
    }
    assert!(compared >= 8, "only {compared} twins had other nights");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 40, ..Default::default() })]

    /// Issue 8 #1: nothing the public gets (messages, their numbering, how
    /// many go at once, their times, `events`, catch-up) differs between
    /// two games that differ only in hidden facts.
    #[test]
    fn the_public_feed_of_games_differing_only_in_hidden_facts_is_the_same(
        rules in proptest::sample::select(RuleSetId::ALL.to_vec()),
        seed in proptest::prelude::any::<u64>(),
    ) {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let sim = mafia_rules::sim::simulate(rules, &mut rng, 1_700_000_000_000);
        let twin = mafia_rules::sim::hidden_twin(&sim, &mut rng);
        let (a, b) = (public_side(&sim), public_side(&twin));
        proptest::prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            proptest::prop_assert_eq!(x, y);
            proptest::prop_assert!(!x.contains("\"cmd\""), "{}", x);
        }
    }
}

/// A core with game [`G`] played to its end, every event arriving live at
/// the instant it starts at.
fn with_a_finished_game() -> (HubCore, Instant) {
    let (mut core, sim, t0) = with_game();
    let now = at(t0, sim.events.last().unwrap().at);
    for e in &sim.events {
        let (seq, p) = (e.seq as u64, payload(e));
        core.handle_event(&gid(G), seq, &p, Arrival::Live, now, &mut Vec::new())
            .unwrap();
    }
    (core, t0)
}

/// Issue 36 #6: a finished game leaves memory once every audience has seen
/// its end and the retention has passed: its feeds, its hall table, and
/// the shell is told to end its subscriptions.
#[test]
fn a_finished_game_leaves_memory_after_the_broadcast_saw_its_end_and_the_retention() {
    let (mut core, t0) = with_a_finished_game();
    let mut out = Vec::new();
    let gone = t0 + DELAY + RETENTION;
    while let Some(due) = core.poll_timeout().filter(|d| *d < gone) {
        core.handle_timeout(due, &mut out);
    }
    assert!(core.has_game(&gid(G)), "kept for the retention");
    assert_eq!(core.shown_end(&gid(G), Audience::Broadcast), Some(true));
    assert!(core.take_left().is_empty());
    core.handle_timeout(gone, &mut out);
    assert!(!core.has_game(&gid(G)), "gone after it");
    assert_eq!(core.take_left(), vec![std::sync::Arc::new(gid(G))]);
    assert_eq!(core.shown_end(&gid(G), Audience::Public), None);
    let hall = core.hall_snapshot(Audience::Public, |_| true);
    assert_eq!(&hall[..], b"{\"type\":\"tables\",\"tables\":[]}");
    assert_eq!(core.poll_timeout(), None, "nothing left to wake up for");
}

/// Issue 36 #8: what an audience reads besides the stream (standings,
/// exports) learns of a game's end when that audience's stream shows it:
/// the judges at once, the broadcast after its delay.
#[test]
fn a_held_audience_is_shown_a_games_end_only_when_its_stream_shows_it() {
    let (mut core, t0) = with_a_finished_game();
    let mut out = Vec::new();
    assert_eq!(core.shown_end(&gid(G), Audience::Judge), Some(true));
    assert_eq!(core.shown_end(&gid(G), Audience::Broadcast), Some(false));
    let before = core.ends();
    core.handle_timeout(t0 + DELAY, &mut out);
    assert_eq!(core.shown_end(&gid(G), Audience::Broadcast), Some(true));
    assert!(core.ends() > before, "the standings are told");
}

/// A game read from the log that ended longer ago than the delay and the
/// retention never stays: a gateway started on a long log holds only the
/// games running or recently finished.
#[test]
fn a_game_that_ended_long_ago_leaves_as_soon_as_it_is_read() {
    let (mut core, sim, t0) = with_game();
    let mut out = Vec::new();
    let ended = sim.events.last().unwrap().at;
    let now = at(t0, ended + (DELAY + RETENTION).as_millis() as i64);
    for e in &sim.events {
        core.handle_event(
            &gid(G),
            e.seq as u64,
            &payload(e),
            Arrival::Logged,
            now,
            &mut out,
        )
        .unwrap();
    }
    assert!(!core.has_game(&gid(G)));
    assert!(core.games().is_empty());
}

#[test]
fn a_game_before_its_deal_is_shown_as_such_to_every_audience() {
    let (core, _, _) = with_game();
    for a in [Audience::Public, Audience::Broadcast] {
        let view = core.state(&gid(G), a).unwrap().view;
        assert_eq!(view["step"]["kind"], "before_deal", "{a:?}");
        assert!(view["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["role"].is_null()));
        assert_eq!(view["seq"], 0);
    }
}

#[test]
fn the_halls_first_message_holds_at_most_the_games_opened_last() {
    let sim = game(RuleSetId::Club, 7);
    let header = serde_json::to_vec(&header(&sim, 1)).unwrap();
    let mut core = core();
    let extra = 10;
    let total = mafia_gateway::hub::MAX_HALL_TABLES + extra;
    for n in 1..=total {
        let id = gid(&format!("cup.main.r{n}.t1.g1"));
        core.add_game(&id, &header, &mut Vec::new()).unwrap();
    }
    let snapshot = core.hall_snapshot(Audience::Public, |_| true);
    let HallFeed::Tables { tables } = serde_json::from_slice(&snapshot).unwrap() else {
        panic!("not a tables message");
    };
    assert_eq!(tables.len(), mafia_gateway::hub::MAX_HALL_TABLES);
    let rounds: std::collections::BTreeSet<u32> = tables
        .iter()
        .map(|t| t.game_id.parse::<mafia_record::GameId>().unwrap().round)
        .collect();
    assert_eq!(
        rounds.first(),
        Some(&(extra as u32 + 1)),
        "the first opened left out"
    );
    assert_eq!(rounds.last(), Some(&(total as u32)));
    // A filter narrows it before the cap.
    let one = core.hall_snapshot(Audience::Public, |g| g.round == 1);
    let HallFeed::Tables { tables } = serde_json::from_slice(&one).unwrap() else {
        panic!("not a tables message");
    };
    assert_eq!(tables.len(), 1);
}
