//! Random legal games: every decision random, every command legal. The
//! caller passes the RNG, so a seed reproduces a game exactly.

use crate::command::{Command, PenaltyKind};
use crate::game::Game;
use crate::params::RuleSetId;
use crate::prompt::Expect;
use crate::role::Team;
use crate::seat::{Seat, SeatList, SeatSet};
use crate::setup::{Deal, Player, Setup};
use crate::{Envelope, Event, RuleSet, Step};
use rand::Rng;

/// How a simulated table behaves; drawn per game so that quiet games
/// (draws), violent ones (removals) and ordinary ones all occur.
#[derive(Clone, Copy, Debug)]
pub struct Temper {
    pub nominate: f64,
    pub miss: f64,
    pub foul: f64,
    pub disqualify: f64,
    pub opposite_team_victory: f64,
    pub undo: f64,
}

impl Temper {
    pub fn draw<R: Rng>(rng: &mut R) -> Temper {
        let quiet = rng.gen_bool(0.15);
        Temper {
            nominate: if quiet { 0.03 } else { 0.55 },
            miss: if quiet { 0.9 } else { 0.2 },
            foul: rng.gen_range(0.0..0.06),
            disqualify: if rng.gen_bool(0.1) { 0.01 } else { 0.0 },
            opposite_team_victory: if rng.gen_bool(0.03) { 0.01 } else { 0.0 },
            undo: 0.02,
        }
    }
}

fn pick<R: Rng>(rng: &mut R, set: SeatSet) -> Option<Seat> {
    let n = set.len();
    (n > 0).then(|| set.iter().nth(rng.gen_range(0..n)).expect("in range"))
}

fn subset<R: Rng>(rng: &mut R, set: SeatSet, p: f64) -> SeatSet {
    set.iter().filter(|_| rng.gen_bool(p)).collect()
}

/// A random legal command for the game's current step; `None` once it is over.
pub fn random_command<R: Rng>(game: &Game, temper: &Temper, rng: &mut R) -> Option<Command> {
    if game.is_over() {
        return None;
    }
    let c = game.core();
    let p = game.params();
    let living = c.living();
    let running = c.result.is_none();
    if running {
        if game.can_undo() && rng.gen_bool(temper.undo) {
            return Some(Command::Undo);
        }
        let roll: f64 = rng.gen();
        let who = pick(rng, living)?;
        if roll < temper.foul {
            return Some(Command::Foul { seat: who });
        }
        let roll = roll - temper.foul;
        if roll < temper.disqualify {
            return Some(Command::Disqualify { seat: who });
        }
        let roll = roll - temper.disqualify;
        if roll < temper.opposite_team_victory {
            return Some(Command::OppositeTeamVictory { seat: who });
        }
        if p.fouls.technical_remove_at.is_some() && rng.gen_bool(0.005) {
            return Some(Command::TechnicalFoul { seat: who });
        }
        if p.fouls.penalties && rng.gen_bool(0.005) {
            let kind = if rng.gen_bool(0.7) {
                PenaltyKind::Small
            } else {
                PenaltyKind::Big
            };
            return Some(Command::Penalty { seat: who, kind });
        }
    }
    let cmd = match game.expected().expect {
        Expect::Night0 { .. } | Expect::FreeTalk => Command::NextStep,
        Expect::Speech {
            seat,
            started,
            may_nominate,
            may_withdraw,
            nominations_only,
            ..
        } => {
            let open = living.difference(c.nominees.to_set());
            if may_nominate && !open.is_empty() && rng.gen_bool(temper.nominate) {
                Command::Nominate {
                    by: seat,
                    target: pick(rng, open)?,
                }
            } else if may_withdraw && rng.gen_bool(0.1) {
                Command::Withdraw { by: seat }
            } else if !started && !nominations_only && rng.gen_bool(0.8) {
                Command::StartSpeech { seat }
            } else {
                Command::EndSpeech {
                    seat,
                    timeout: rng.gen_bool(0.1),
                }
            }
        }
        Expect::VoteCall { voters } => {
            let share = rng.gen_range(0.2..0.9);
            Command::VoteCall {
                yes: subset(rng, voters, share),
            }
        }
        Expect::Vote {
            nominee,
            not_yet_voted,
            ..
        } => {
            let share = 1.0 / (c.candidates.len() as f64).max(1.0);
            Command::Vote {
                nominee,
                hands: subset(rng, not_yet_voted, share),
            }
        }
        Expect::Ballot { voter, candidates } => {
            let target = if rng.gen_bool(0.1) {
                None
            } else {
                pick(rng, candidates.to_set())
            };
            Command::Ballot { voter, target }
        }
        Expect::Lift { .. } => Command::Lift {
            hands: subset(rng, living, 0.55),
        },
        Expect::LastWords { seat, testament } => {
            let bm = p.best_move.at == crate::params::BestMoveAt::LastWords
                && !testament
                && c.first_killed == Some(seat)
                && c.best_move.is_none()
                && rng.gen_bool(0.5);
            if bm {
                Command::BestMove {
                    seat,
                    named: three(rng, seat),
                }
            } else {
                Command::EndLastWords { seat }
            }
        }
        Expect::BeautyPick { .. } => Command::BeautyPick {
            target: pick(rng, living),
        },
        Expect::Shots { pending, .. } => {
            let by = pick(rng, pending)?;
            let agreed = Seat::all().find_map(|s| {
                if c.shot.contains(s) {
                    c.shot_target[s.index()]
                } else {
                    None
                }
            });
            let reds: SeatSet = living
                .iter()
                .filter(|s| c.role(*s).team() == Team::Red)
                .collect();
            let target = if rng.gen_bool(temper.miss) {
                if rng.gen_bool(0.3) {
                    None
                } else {
                    pick(rng, living)
                }
            } else {
                agreed.or_else(|| pick(rng, reds))
            };
            Command::Shot { by, target }
        }
        Expect::DonCheck { .. } => Command::DonCheck {
            target: pick(rng, living),
        },
        Expect::SheriffCheck { .. } => Command::SheriffCheck {
            target: pick(rng, living),
        },
        Expect::BestMove { seat } => Command::BestMove {
            seat,
            named: three(rng, seat),
        },
        Expect::GameOver => return None,
    };
    Some(cmd)
}

fn three<R: Rng>(rng: &mut R, own: Seat) -> SeatList {
    let mut l = SeatList::EMPTY;
    while l.len() < 3 {
        let s = Seat::from_index(rng.gen_range(0..10));
        if s != own {
            l.push(s);
        }
    }
    l
}

/// Ten players named after their seats.
pub fn default_players() -> Vec<Player> {
    (1..=10)
        .map(|i| Player {
            player_id: format!("p{i}"),
            nickname: format!("Player {i}"),
        })
        .collect()
}

/// One simulated game: its setup, the commands with their times, and the events.
pub struct SimulatedGame {
    pub setup: Setup,
    pub commands: Vec<(i64, Command)>,
    pub events: Vec<Envelope>,
    pub game: Game,
}

/// Commands after which a simulation gives up (never reached by a legal game:
/// the draw rules end it first; club ends it by nights without kills).
pub const MAX_COMMANDS: usize = 5_000;

/// Plays a random legal game under `rules`, dealing from a seed drawn from `rng`.
pub fn simulate<R: Rng>(rules: RuleSetId, rng: &mut R, start_at: i64) -> SimulatedGame {
    let setup = Setup::new(
        RuleSet::preset(rules),
        default_players(),
        Deal::Seed(rng.gen()),
    )
    .expect("the presets are playable");
    let temper = Temper::draw(rng);
    let (mut game, mut events) = Game::new(setup.clone(), start_at);
    let mut commands = Vec::new();
    let mut at = start_at;
    while let Some(cmd) = random_command(&game, &temper, rng) {
        at += rng.gen_range(500..30_000);
        let evs = game
            .apply(&cmd, at)
            .unwrap_or_else(|v| panic!("simulated command {cmd:?} refused: {v}"));
        events.extend(evs);
        commands.push((at, cmd));
        assert!(commands.len() < MAX_COMMANDS, "game did not end");
    }
    SimulatedGame {
        setup,
        commands,
        events,
        game,
    }
}

/// Any command at all, legal or not, from three bytes: for fuzzing and
/// property tests that throw garbage at the engine.
pub fn command_from_bytes(op: u8, a: u8, b: u8) -> Command {
    let seat = |x: u8| Seat::from_index((x % 10) as usize);
    let set: SeatSet = (0..10u8)
        .filter(|i| b & (1 << (i % 8)) != 0)
        .map(seat)
        .collect();
    match op % 21 {
        0 => Command::NextStep,
        1 => Command::StartSpeech { seat: seat(a) },
        2 => Command::EndSpeech {
            seat: seat(a),
            timeout: b & 1 == 1,
        },
        3 => Command::Nominate {
            by: seat(a),
            target: seat(b),
        },
        4 => Command::Withdraw { by: seat(a) },
        5 => Command::Foul { seat: seat(a) },
        6 => Command::TechnicalFoul { seat: seat(a) },
        7 => Command::Disqualify { seat: seat(a) },
        8 => Command::OppositeTeamVictory { seat: seat(a) },
        9 => Command::VoteCall { yes: set },
        10 => Command::Vote {
            nominee: seat(a),
            hands: set,
        },
        11 => Command::Ballot {
            voter: seat(a),
            target: (b < 200).then(|| seat(b)),
        },
        12 => Command::Lift { hands: set },
        13 => Command::EndLastWords { seat: seat(a) },
        14 => Command::Shot {
            by: seat(a),
            target: (b < 230).then(|| seat(b)),
        },
        15 => Command::DonCheck {
            target: Some(seat(a)),
        },
        16 => Command::SheriffCheck {
            target: Some(seat(a)),
        },
        17 => Command::BeautyPick {
            target: Some(seat(a)),
        },
        18 => Command::BestMove {
            seat: seat(a),
            named: [seat(b), seat(b / 3), seat(b / 7)].into_iter().collect(),
        },
        19 => Command::Penalty {
            seat: seat(a),
            kind: if b & 1 == 0 {
                PenaltyKind::Small
            } else {
                PenaltyKind::Big
            },
        },
        _ => Command::Undo,
    }
}

/// The same game with other hidden facts: each night check aims elsewhere
/// when the rules allow it, before some night commands the judge enters
/// another shot or check and takes it back, and every hidden command of a
/// night comes earlier, the one that ends it anywhere in the same quantum
/// of the public night (`game::public_night_length`), the day after it
/// following as much earlier. Every public fact stays the same (same
/// result, same public commands, at the same times after their night's
/// start or morning); only what the public must not learn differs,
/// including how many commands each night took and how long. For tests
/// of what the public sees.
pub fn hidden_twin<R: Rng>(sim: &SimulatedGame, rng: &mut R) -> SimulatedGame {
    let (mut game, mut events) = Game::new(sim.setup.clone(), sim.events[0].at);
    let mut commands = Vec::new();
    // Hidden: every event it makes is hidden from the public.
    let try_hidden = |game: &mut Game, cmd: &Command, at: i64| -> Option<Vec<Envelope>> {
        let mut probe = game.clone();
        let evs = probe.apply(cmd, at).ok()?;
        let hidden = evs
            .iter()
            .all(|e| e.event.for_audience(crate::Audience::Public).is_none());
        hidden.then(|| {
            *game = probe;
            evs
        })
    };
    let mut last = sim.events[0].at;
    let mut night_start = None;
    // How much earlier than the original the twin's game runs by now.
    let mut earlier = 0;
    for (at, cmd) in &sim.commands {
        let due = *at - earlier;
        let (at, ends_night) = retimed(&game, cmd, due, last, &mut night_start, rng);
        if ends_night {
            earlier += due - at;
        }
        last = at;
        let other = |rng: &mut R| Seat::all().nth(rng.gen_range(0..crate::SEATS));
        let (decoy, aimed) = match *cmd {
            Command::Shot { by, .. } => (
                Some(Command::Shot {
                    by,
                    target: other(rng),
                }),
                None,
            ),
            Command::DonCheck { .. } => {
                let c = Command::DonCheck { target: other(rng) };
                (Some(c.clone()), Some(c))
            }
            Command::SheriffCheck { .. } => {
                let c = Command::SheriffCheck { target: other(rng) };
                (Some(c.clone()), Some(c))
            }
            _ => (None, None),
        };
        if let Some(decoy) = decoy.filter(|_| rng.gen_bool(0.5)) {
            let mut probe = game.clone();
            if let Some(mut evs) = try_hidden(&mut probe, &decoy, at) {
                if let Some(undo) = try_hidden(&mut probe, &Command::Undo, at) {
                    evs.extend(undo);
                    game = probe;
                    events.extend(evs);
                    commands.push((at, decoy));
                    commands.push((at, Command::Undo));
                }
            }
        }
        // A check's result binds nothing later: the rest of the game is
        // accepted as it was.
        if let Some(evs) = aimed.as_ref().and_then(|c| try_hidden(&mut game, c, at)) {
            events.extend(evs);
            commands.push((at, aimed.expect("applied")));
        } else {
            let evs = game
                .apply(cmd, at)
                .unwrap_or_else(|v| panic!("twin refused {cmd:?}: {v}"));
            events.extend(evs);
            commands.push((at, cmd.clone()));
        }
    }
    SimulatedGame {
        setup: sim.setup.clone(),
        commands,
        events,
        game,
    }
}

/// When the twin enters `cmd`, due at `at`, and whether it ends a night: a
/// hidden command of a hidden night step anywhere after the twin's
/// previous one (`last`); the one that ends the night no earlier than the
/// start of the public night's quantum `at` fell in, so the night lasts as
/// long for the public.
fn retimed<R: Rng>(
    game: &Game,
    cmd: &Command,
    at: i64,
    last: i64,
    night_start: &mut Option<i64>,
    rng: &mut R,
) -> (i64, bool) {
    let c = game.core();
    let hidden_step = c.night > 0 && matches!(c.step, Step::Night { .. } | Step::BestMove { .. });
    let mut probe = game.clone();
    let Ok(evs) = probe.apply(cmd, at) else {
        return (at, false);
    };
    let started = evs.iter().find_map(|e| match e.event {
        Event::NightStarted { night, .. } if night > 0 => Some(e.at),
        _ => None,
    });
    if started.is_some() {
        *night_start = started;
    }
    if started.is_some() || !hidden_step {
        return (at, false);
    }
    let ending =
        |e: &Envelope| matches!(e.event, Event::DayStarted { .. } | Event::GameEnded { .. });
    // A public command (a foul at night) keeps its time; so does one whose
    // public events come before the night's end.
    let hidden_before_end = evs
        .iter()
        .take_while(|e| !ending(e))
        .all(|e| e.event.for_audience(crate::Audience::Public).is_none());
    if !hidden_before_end {
        return (at, false);
    }
    let ends_night = evs.iter().any(ending);
    let mut lo = last;
    if let (true, Some(start)) = (ends_night, *night_start) {
        let quantum = i64::from(game.params().public_night_secs.max(1)) * 1000;
        let bucket = ((at - start).max(1) - 1) / quantum;
        lo = lo.max(start + bucket * quantum + 1);
    }
    let t = if lo >= at { at } else { rng.gen_range(lo..=at) };
    (t, ends_night)
}
