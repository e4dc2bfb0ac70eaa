//! The hub's state without I/O: games folded with the engine, their feeds
//! per audience, the public's and the broadcast's held copies of each game
//! and the hall messages. It reads no clock and spawns nothing: every input comes with
//! the time it happened at ([`Now`]), every output is a [`Transmit`] saying
//! what to send to whom, and [`HubCore::poll_timeout`] says when the core
//! next needs [`HubCore::handle_timeout`]. The tokio shell around it
//! ([`super::Hub`]) owns the subscribers' queues, the log and the one timer.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use mafia_record::{GameId, Header, LoggedEvent};
use mafia_rules::view::Shown;
use mafia_rules::{Audience, Envelope, Game};

use crate::canonical::Canonical;

use super::feed::Feed;
use super::game::{AudienceEvent, GameInfo, GameState};

/// The three audiences a feed is computed for, in [`Audience`] order.
pub const AUDIENCES: [Audience; 3] = [Audience::Public, Audience::Broadcast, Audience::Judge];

pub(crate) fn slot(a: Audience) -> usize {
    match a {
        Audience::Public => 0,
        Audience::Broadcast => 1,
        Audience::Judge => 2,
    }
}

/// The time of an input: a monotonic instant for deadlines, and the wall
/// clock for dating events read from the log (stamped by the judge's clock).
#[derive(Clone, Copy, Debug)]
pub struct Now {
    pub at: Instant,
    pub unix_ms: i64,
}

/// How an event reached the hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Live off the feed: it happened just now.
    Live,
    /// From the game's log (history, or a gap being filled): it happened at
    /// the later of its `at` (the judge's clock) and its `accepted_at` (the
    /// referee's), so the broadcast delay counts from then.
    Logged,
}

/// Whom a message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// Subscribers of one game's feed for one audience.
    Game {
        game: Arc<GameId>,
        audience: Audience,
    },
    /// Hall subscribers of an audience that may see `game`.
    Hall {
        game: Arc<GameId>,
        audience: Audience,
    },
}

/// One message to queue to every subscriber on a route. The bytes are
/// encoded once and shared.
#[derive(Clone, Debug)]
pub struct Transmit {
    pub route: Route,
    pub msg: Bytes,
}

/// Why an input was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("unreadable header: {0}")]
    Header(String),
    #[error("unreadable event {seq}: {why}")]
    Event { seq: u64, why: String },
    #[error("event {seq} does not fit the game: {why}")]
    Misfit { seq: u64, why: String },
}

/// Tuning of the core.
#[derive(Clone, Debug)]
pub struct CoreConfig {
    pub broadcast_delay: Duration,
    pub history: usize,
    /// How long a finished game stays after every audience has seen its
    /// end; then it leaves memory (its protocol stays in the log).
    pub retention: Duration,
}

/// A copy of a game that an audience sees later than it happens, and the
/// events not yet released to it, each with its release time (in order:
/// one released no earlier than the one before it).
struct Lane {
    game: Game,
    pending: VecDeque<(Instant, Envelope)>,
}

impl Lane {
    fn new(game: Game) -> Lane {
        Lane {
            game,
            pending: VecDeque::new(),
        }
    }
}

struct GameCore {
    id: Arc<GameId>,
    /// The id's text, as the feed's messages carry it.
    text: Arc<str>,
    info: GameInfo,
    /// The judges' copy, folded as events come.
    live: Game,
    /// The public's: an event is released when its public stamp (the
    /// engine's `Shown::at`) is due, so a morning comes when the rule set's
    /// public night is over, however many hidden commands the night took.
    public: Lane,
    /// The broadcast's, each event the broadcast delay after it happened.
    delayed: Lane,
    feeds: [Feed; 3],
    /// Once the game is over: when it leaves memory (the retention after
    /// the broadcast, the last audience, has seen its end).
    leaves_at: Option<Instant>,
    /// The order it came in (its header): the hall's snapshot keeps the
    /// games opened last, an order hidden facts do not touch.
    opened: u64,
}

impl GameCore {
    /// Whether it may leave memory at `now`: over, seen over by every
    /// audience, its retention past.
    fn may_leave(&self, now: Instant) -> bool {
        self.leaves_at.is_some_and(|t| t <= now)
            && self.public.pending.is_empty()
            && self.delayed.pending.is_empty()
    }
}

pub struct HubCore {
    config: CoreConfig,
    games: HashMap<GameId, GameCore>,
    /// Games whose header is unusable: their events are ignored.
    skipped: HashSet<GameId>,
    /// Release times of pending broadcast events, soonest first (one entry
    /// per event; an entry whose events went already is harmless).
    deadlines: BinaryHeap<Reverse<(Instant, Arc<GameId>)>>,
    /// Writes every view; its buffers are kept from one event to the next.
    canonical: Canonical,
    /// Bumped each time a held audience (public, broadcast) is shown a
    /// game's end: what it reads besides the stream (standings, exports)
    /// may then include that game's result.
    ends: u64,
    /// Games that left memory, not yet told to the shell.
    left: Vec<Arc<GameId>>,
    /// Games added so far (each game's `opened`).
    opened: u64,
}

/// The most games a hall's first message holds: twenty pages of twelve
/// tables.
pub const MAX_HALL_TABLES: usize = 240;

impl HubCore {
    pub fn new(config: CoreConfig) -> HubCore {
        HubCore {
            config,
            games: HashMap::new(),
            skipped: HashSet::new(),
            deadlines: BinaryHeap::new(),
            canonical: Canonical::default(),
            ends: 0,
            left: Vec::new(),
            opened: 0,
        }
    }

    /// Whether `game` was added (or refused): its events can be handled.
    pub fn knows(&self, game: &GameId) -> bool {
        self.games.contains_key(game) || self.skipped.contains(game)
    }

    /// Adds a game from its stored header (the referee's JSON `Header`)
    /// and tells the hall of each audience: a `table` message with the
    /// game's info, so a screen that was following before the game opened
    /// learns what it is from the feed, as a later one does from `tables`.
    /// A header that cannot be read is refused once; the game's events are
    /// then ignored.
    pub fn add_game(
        &mut self,
        id: &GameId,
        header: &[u8],
        out: &mut Vec<Transmit>,
    ) -> Result<(), CoreError> {
        if self.knows(id) {
            return Ok(());
        }
        let parsed = serde_json::from_slice::<Header>(header)
            .map_err(|e| e.to_string())
            .and_then(|h| h.setup().map(|s| (h, s)).map_err(|e| e.to_string()));
        let (header, setup) = match parsed {
            Ok(p) => p,
            Err(e) => {
                self.skipped.insert(id.clone());
                return Err(CoreError::Header(e));
            }
        };
        let fresh = Game::replay(setup, std::iter::empty()).expect("no events");
        let text: Arc<str> = Arc::from(id.to_string());
        let game = GameCore {
            id: Arc::new(id.clone()),
            info: GameInfo::new(id, &header),
            feeds: AUDIENCES.map(|a| Feed::new(a, &text, &fresh, &mut self.canonical)),
            text,
            live: fresh.clone(),
            public: Lane::new(fresh.clone()),
            delayed: Lane::new(fresh),
            leaves_at: None,
            opened: self.opened,
        };
        self.opened += 1;
        for a in AUDIENCES {
            out.push(Transmit {
                route: Route::Hall {
                    game: game.id.clone(),
                    audience: a,
                },
                msg: game.feeds[slot(a)].hall_new_game(&game.info),
            });
        }
        self.games.insert(id.clone(), game);
        Ok(())
    }

    /// Folds one stored event (a `LoggedEvent` payload) of a known game:
    /// publishes it to the judges at once, to the public when its public
    /// stamp is due (at once but for a morning and what follows it) and
    /// schedules it for the broadcast. Returns whether it was folded (an event already
    /// folded, or of a refused game, is ignored).
    pub fn handle_event(
        &mut self,
        game: &GameId,
        seq: u64,
        payload: &[u8],
        arrival: Arrival,
        now: Now,
        out: &mut Vec<Transmit>,
    ) -> Result<bool, CoreError> {
        let Some(g) = self.games.get_mut(game) else {
            return Ok(false);
        };
        let logged: LoggedEvent =
            serde_json::from_slice(payload).map_err(|e| CoreError::Event {
                seq,
                why: e.to_string(),
            })?;
        let env = logged.envelope;
        if env.seq as u64 <= g.live.seq() as u64 {
            return Ok(false);
        }
        let seen = g.live.fold_seen(&env).map_err(|e| CoreError::Misfit {
            seq,
            why: e.to_string(),
        })?;
        let shown = seen.for_audience(Audience::Judge);
        publish(
            g,
            Audience::Judge,
            shown,
            self.config.history,
            &mut self.canonical,
            out,
        );
        let age = match arrival {
            Arrival::Live => Duration::ZERO,
            Arrival::Logged => {
                // Whichever clock is behind, the judge's or the referee's,
                // no hold is shortened by it.
                let happened = mafia_record::logged::happened_at(payload, env.at);
                Duration::from_millis(now.unix_ms.saturating_sub(happened).max(0) as u64)
            }
        };
        // How much later the public sees it than it happened: its public
        // stamp less its own (a morning, and the day up to it, held).
        let hold = seen
            .public
            .map_or(0, |p| p.at.saturating_sub(env.at).max(0));
        let public_due = now.at + Duration::from_millis(hold as u64).saturating_sub(age);
        let broadcast_due = now.at + self.config.broadcast_delay.saturating_sub(age);
        if g.live.is_over() && g.leaves_at.is_none() {
            let leaves =
                now.at + (self.config.broadcast_delay + self.config.retention).saturating_sub(age);
            g.leaves_at = Some(leaves);
            self.deadlines.push(Reverse((leaves, g.id.clone())));
        }
        for (lane, due) in [
            (Audience::Public, public_due),
            (Audience::Broadcast, broadcast_due),
        ] {
            let l = g.lane(lane);
            l.pending.push_back((due, env));
            if due > now.at {
                self.deadlines.push(Reverse((due, g.id.clone())));
            }
        }
        let w = &mut self.canonical;
        self.ends += release(g, now.at, self.config.history, w, out);
        if g.may_leave(now.at) {
            self.leave(game);
        }
        self.handle_timeout(now.at, out);
        Ok(true)
    }

    /// Releases every held event (the public's, the broadcast's) that is
    /// due, in order.
    pub fn handle_timeout(&mut self, now: Instant, out: &mut Vec<Transmit>) {
        while let Some(Reverse((due, _))) = self.deadlines.peek() {
            if *due > now {
                break;
            }
            let Reverse((_, id)) = self.deadlines.pop().expect("peeked");
            let Some(g) = self.games.get_mut(&*id) else {
                continue;
            };
            self.ends += release(g, now, self.config.history, &mut self.canonical, out);
            if g.may_leave(now) {
                self.leave(&id);
            }
        }
    }

    /// A finished game leaves memory: its audiences' feeds, its copies.
    fn leave(&mut self, game: &GameId) {
        if let Some(g) = self.games.remove(game) {
            self.left.push(g.id);
        }
    }

    /// The games that left memory since the last call, for the shell to
    /// end their subscriptions.
    pub fn take_left(&mut self) -> Vec<Arc<GameId>> {
        std::mem::take(&mut self.left)
    }

    /// How many times a held audience was shown a game's end so far.
    pub fn ends(&self) -> u64 {
        self.ends
    }

    /// Whether `audience`'s stream of `game` has shown its end (`None`: no
    /// such game here). Judges see it live.
    pub fn shown_end(&self, game: &GameId, audience: Audience) -> Option<bool> {
        let g = self.games.get(game)?;
        Some(match audience {
            Audience::Judge => g.live.result().is_some(),
            Audience::Public => g.public.game.result().is_some(),
            Audience::Broadcast => g.delayed.game.result().is_some(),
        })
    }

    /// When [`HubCore::handle_timeout`] must next be called, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.deadlines.peek().map(|Reverse((due, _))| *due)
    }

    /// Every known game, sorted by the text of its id.
    pub fn games(&self) -> Vec<GameInfo> {
        let mut v: Vec<_> = self
            .games
            .values()
            .map(|g| (g.text.clone(), g.info.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.into_iter().map(|(_, i)| i).collect()
    }

    pub fn has_game(&self, game: &GameId) -> bool {
        self.games.contains_key(game)
    }

    pub fn state(&self, game: &GameId, audience: Audience) -> Option<GameState> {
        let g = self.games.get(game)?;
        let f = &g.feeds[slot(audience)];
        Some(GameState {
            info: g.info.clone(),
            seq: f.seq,
            view: f.view(),
            over: f.over,
        })
    }

    /// Up to `max` retained events with an audience sequence above `after`.
    pub fn events(
        &self,
        game: &GameId,
        audience: Audience,
        after: u64,
        max: usize,
    ) -> Option<Vec<AudienceEvent>> {
        let g = self.games.get(game)?;
        Some(
            g.feeds[slot(audience)]
                .events(after)
                .take(max)
                .cloned()
                .collect(),
        )
    }

    /// The whole history of a finished game (engine numbering, every
    /// event), or `Some(None)` while it still runs for `audience` (judges
    /// may always read it; the broadcast only once its delayed game ended).
    pub fn protocol(
        &self,
        game: &GameId,
        audience: Audience,
    ) -> Option<Option<Vec<AudienceEvent>>> {
        let g = self.games.get(game)?;
        let finished = match audience {
            Audience::Judge => true,
            Audience::Public => g.public.game.result().is_some(),
            Audience::Broadcast => g.delayed.game.result().is_some(),
        };
        Some(finished.then(|| g.feeds[slot(Audience::Judge)].events(0).cloned().collect()))
    }

    /// What a new subscriber that has everything up to `from` gets first,
    /// and the audience sequence its live messages start after.
    pub fn catch_up(
        &self,
        game: &GameId,
        audience: Audience,
        from: Option<u64>,
    ) -> Option<(Vec<Bytes>, u64)> {
        let f = &self.games.get(game)?.feeds[slot(audience)];
        Some((f.catch_up(from), f.seq))
    }

    /// The `tables` message of the hall feed: every game for which
    /// `visible` holds, as `audience` sees it now (`HallFeed::Tables` as
    /// serde encodes it, each view spliced in).
    /// At most [`MAX_HALL_TABLES`] games, those opened last: a hall shows
    /// a round's tables, and opening games cannot make its first message
    /// grow without bound.
    pub fn hall_snapshot(&self, audience: Audience, visible: impl Fn(&GameId) -> bool) -> Bytes {
        let mut games: Vec<_> = self.games.values().filter(|g| visible(&g.id)).collect();
        if games.len() > MAX_HALL_TABLES {
            games.select_nth_unstable_by(MAX_HALL_TABLES - 1, |a, b| b.opened.cmp(&a.opened));
            games.truncate(MAX_HALL_TABLES);
        }
        games.sort_by(|a, b| a.text.cmp(&b.text));
        let mut out = Vec::with_capacity(64 + games.len() * 4096);
        out.extend_from_slice(b"{\"type\":\"tables\",\"tables\":[");
        for (i, g) in games.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            g.feeds[slot(audience)].hall_entry(&g.info, &mut out);
        }
        out.extend_from_slice(b"]}");
        Bytes::from(out)
    }
}

impl GameCore {
    fn lane(&mut self, a: Audience) -> &mut Lane {
        match a {
            Audience::Broadcast => &mut self.delayed,
            _ => &mut self.public,
        }
    }
}

/// Releases the events of `g`'s held lanes that are due at `now`, in order;
/// returns how many lanes it showed the game's end.
fn release(
    g: &mut GameCore,
    now: Instant,
    history: usize,
    w: &mut Canonical,
    out: &mut Vec<Transmit>,
) -> u64 {
    let mut ends = 0;
    for a in [Audience::Public, Audience::Broadcast] {
        while g
            .lane(a)
            .pending
            .front()
            .is_some_and(|(due, _)| *due <= now)
        {
            let lane = g.lane(a);
            let (_, env) = lane.pending.pop_front().expect("checked");
            let was_over = lane.game.result().is_some();
            let Ok(seen) = lane.game.fold_seen(&env) else {
                continue;
            };
            ends += u64::from(!was_over && lane.game.result().is_some());
            publish(g, a, seen.for_audience(a), history, w, out);
        }
    }
    ends
}

fn publish(
    g: &mut GameCore,
    a: Audience,
    shown: Option<Shown>,
    history: usize,
    w: &mut Canonical,
    out: &mut Vec<Transmit>,
) {
    let game = match a {
        Audience::Public => &g.public.game,
        Audience::Broadcast => &g.delayed.game,
        Audience::Judge => &g.live,
    };
    if let Some(p) = g.feeds[slot(a)].push(shown, game, history, w) {
        out.push(Transmit {
            route: Route::Game {
                game: g.id.clone(),
                audience: a,
            },
            msg: p.delta,
        });
        out.push(Transmit {
            route: Route::Hall {
                game: g.id.clone(),
                audience: a,
            },
            msg: p.hall,
        });
    }
}
