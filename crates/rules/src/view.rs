//! What each audience sees of a game. The only place hidden facts are
//! filtered: services render these views and never look at roles themselves.

use crate::event::{Audience, Envelope, Event, Outcome, Step};
use crate::game::{Game, ReplayError};
use crate::params::RuleSetId;
use crate::prompt::Prompt;
use crate::role::Role;
use crate::seat::{Seat, SeatList};
use crate::state::{Departure, When};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: Seat,
    pub player_id: String,
    pub nickname: String,
    pub alive: bool,
    pub departure: Option<Departure>,
    pub fouls: u8,
    pub technical_fouls: u8,
    pub small_penalties: u8,
    pub big_penalties: u8,
    pub yellow_cards: u8,
    /// His speech today is lost or shortened.
    pub muted: bool,
    /// Only for the broadcast and the judge, or once the game is over.
    pub role: Option<Role>,
}

/// The best move as an audience sees it; `hits` reveals roles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestMoveView {
    pub seat: Seat,
    pub named: SeatList,
    pub hits: Option<u8>,
}

/// A game's state for one audience.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameView {
    pub audience: Audience,
    pub rules: RuleSetId,
    /// The last event this view includes: the game's `seq`, or for the
    /// public its own count of public events (`Game::public_seq`).
    pub seq: u32,
    pub day: u8,
    pub night: u8,
    pub when: When,
    /// The current step; at night the public sees only `night`.
    pub step: Option<Step>,
    pub step_started_at: Option<i64>,
    /// The judge has said "mafia, shoot" tonight (or a shot implied it);
    /// the public learns nothing of the night.
    #[serde(default)]
    pub shooting_started: bool,
    pub speech_started_at: Option<i64>,
    /// Tonight's victim, at the table until the morning (rfm §4.5.4, classic
    /// §3.5.4, ua §5.4); the public learns of him only then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub night_kill: Option<Seat>,
    pub seats: Vec<SeatView>,
    pub nominees: SeatList,
    pub candidates: SeatList,
    /// Votes per candidate in the current round, candidates' order.
    pub tally: Vec<u8>,
    pub vote_cancelled: bool,
    pub best_move: Option<BestMoveView>,
    pub result: Option<Outcome>,
    /// Judge only.
    pub prompt: Option<Prompt>,
}

impl Game {
    /// The game as `audience` may see it.
    pub fn view(&self, audience: Audience) -> GameView {
        let c = self.core();
        let over = c.result.is_some();
        let hide = audience == Audience::Public && !over;
        // No cards are dealt yet: only the judge knows the deal to come,
        // and of a sealed drawn deal not even he (its cards come dealt).
        let undealt = c.step == Step::BeforeDeal
            && (audience != Audience::Judge || self.setup().deal.is_sealed());
        let night = c.is_night();
        let hidden_step = matches!(c.step, Step::Night { .. } | Step::BestMove { .. });
        let seats = Seat::all()
            .map(|s| {
                let st = c.seats[s.index()];
                let player = &self.setup().players[s.index()];
                // Tonight's kill is news only in the morning.
                let departure = st.out.filter(|d| {
                    !(hide
                        && night
                        && d.when == When::Night(c.night)
                        && d.cause == crate::Cause::Shot)
                });
                SeatView {
                    seat: s,
                    player_id: player.player_id.clone(),
                    nickname: player.nickname.clone(),
                    alive: departure.is_none(),
                    departure,
                    fouls: st.fouls,
                    technical_fouls: st.technical_fouls,
                    small_penalties: st.small_penalties,
                    big_penalties: st.big_penalties,
                    yellow_cards: st.yellow_cards,
                    muted: st.mute.is_some_and(|m| m.day == c.day && !night),
                    role: (!hide && !undealt).then_some(c.role(s)),
                }
            })
            .collect();
        let best_move = c
            .best_move
            .filter(|b| {
                !(hide
                    && night
                    && b.seat == c.first_killed.unwrap_or(b.seat)
                    && c.best_move_night
                    && c.night == 1)
            })
            .map(|b| BestMoveView {
                seat: b.seat,
                named: b.named,
                hits: (!hide).then_some(b.hits),
            });
        GameView {
            audience,
            rules: self.setup().rules.id,
            seq: if audience == Audience::Public {
                self.public_seq()
            } else {
                self.seq()
            },
            day: c.day,
            night: c.night,
            when: c.when(),
            step: (!(hide && night)).then_some(c.step),
            // When a hidden night step began says when the command before
            // it was entered: the public never learns it, not even once the
            // game is over (its own clock runs on the public night).
            step_started_at: (!(hide && night || audience == Audience::Public && hidden_step))
                .then(|| self.seen_at(audience, c.step_started_at)),
            shooting_started: !hide && night && c.shooting_started,
            speech_started_at: c.speech_started_at.map(|t| self.seen_at(audience, t)),
            night_kill: c.kill.filter(|_| !hide && night && c.night > 0),
            seats,
            nominees: c.nominees,
            candidates: c.candidates,
            tally: c.candidates.iter().map(|s| c.tally[s.index()]).collect(),
            vote_cancelled: c.vote_cancelled,
            best_move,
            result: c.result,
            prompt: (audience == Audience::Judge).then(|| self.expected()),
        }
    }
}

impl Game {
    /// A time as `audience` sees it: the public's clock holds the day
    /// after a night back to its morning's public time.
    fn seen_at(&self, audience: Audience, at: i64) -> i64 {
        if audience == Audience::Public {
            self.public_at(at)
        } else {
            at
        }
    }
}

/// One event as an audience sees it, numbered in that audience's own
/// sequence: for the public, the count of events it has seen, with no
/// command number (both would count hidden night commands otherwise) and
/// its own time (`Game::public_at`: a night lasts the rule set's public
/// length, however many hidden commands it took); for the broadcast and
/// the judges, the engine's own numbers and times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    pub seq: u32,
    pub at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<u32>,
    pub event: Event,
}

/// What every audience sees of one folded event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// `None`: the public sees nothing of it.
    pub public: Option<Shown>,
    /// The broadcast's (once its delay is over) and the judges'.
    pub full: Shown,
}

impl Seen {
    pub fn for_audience(&self, audience: Audience) -> Option<Shown> {
        match audience {
            Audience::Public => self.public,
            Audience::Broadcast | Audience::Judge => Some(self.full),
        }
    }
}

impl Game {
    /// Folds one stored event, like [`Game::fold`], and says what each
    /// audience sees of it. The views and numbers here are the only ones a
    /// service forwards: it never filters or renumbers events itself.
    pub fn fold_seen(&mut self, env: &Envelope) -> Result<Seen, ReplayError> {
        let was_over = self.result().is_some();
        let public_before = self.public_seq();
        self.fold(env)?;
        let public = (self.public_seq() > public_before).then(|| Shown {
            seq: self.public_seq(),
            at: self.public_at(env.at),
            cmd: None,
            // Once the result is known the whole history may be shown.
            event: if was_over {
                env.event
            } else {
                env.event
                    .for_audience(Audience::Public)
                    .expect("counted as public")
            },
        });
        Ok(Seen {
            public,
            full: Shown {
                seq: env.seq,
                at: env.at,
                cmd: Some(env.cmd),
                event: env.event,
            },
        })
    }
}

/// The events `audience` may see, in their public form. Once the game is
/// over (`over`), every event is visible.
pub fn events_for(audience: Audience, events: &[Envelope], over: bool) -> Vec<Envelope> {
    events
        .iter()
        .filter_map(|e| {
            let event = if over {
                Some(e.event)
            } else {
                e.event.for_audience(audience)
            };
            event.map(|event| Envelope { event, ..*e })
        })
        .collect()
}
