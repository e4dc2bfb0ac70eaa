//! Plays a [`Script`] on the engine: at each step the engine's prompt says
//! what it needs, and the script answers from the source's facts. Whatever
//! the engine refuses, and whatever fact the replay never reaches or
//! contradicts, is a [`Refusal`] naming where in the source it came from.

use crate::error::SourceError;
use crate::script::{Left, Moment, Origin, SanctionKind, Script};
use mafia_record::{CommandLine, Header, Record, RulesRef, SeatEntry, FORMAT};
use mafia_rules::params::{BestMoveAt, Night0Step};
use mafia_rules::{
    Cause, Command, Deal, Expect, Game, Seat, SeatList, SeatSet, Step, Team, Violation, When,
};
use std::collections::{BTreeMap, BTreeSet};

/// A game brought in: the record of every command the engine accepted and,
/// when the source does not replay cleanly, why.
#[derive(Clone, Debug)]
pub struct Imported {
    pub record: Record,
    pub refusal: Option<Refusal>,
}

/// Why the engine does not accept a source game as it stands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct Refusal {
    /// Where in the source the refused fact came from.
    pub origin: Origin,
    pub message: String,
    /// The engine's violation, when a command was refused.
    pub violation: Option<Violation>,
    /// That command, as it would have been the record's next line.
    pub command: Option<CommandLine>,
}

impl Refusal {
    fn fact(origin: Origin, message: String) -> Refusal {
        Refusal {
            origin,
            message,
            violation: None,
            command: None,
        }
    }

    /// The violation's stable code, or `source_mismatch` for a fact the
    /// replay never reached or contradicts.
    pub fn code(&self) -> String {
        match &self.violation {
            Some(v) => v.code.to_string(),
            None => "source_mismatch".into(),
        }
    }
}

/// A bound on the commands of one game, far above any real one, so that a
/// source that makes the engine loop cannot hang the import.
const MAX_COMMANDS: usize = 5_000;

/// What the script answers next and where that answer came from.
struct Next {
    cmd: Command,
    origin: Origin,
    mark: Mark,
}

/// Which fact a command uses up.
enum Mark {
    None,
    Nomination(u8, Seat),
    Round(u8, usize),
    Lift(u8),
    Shot(u8, Seat),
    DonCheck(u8),
    SheriffCheck(u8),
    Sanction(usize),
    BestMove,
}

#[derive(Default)]
struct Used {
    nominations: BTreeSet<(u8, Seat)>,
    rounds: BTreeSet<(u8, usize)>,
    lifts: BTreeSet<u8>,
    shots: BTreeSet<(u8, Seat)>,
    don: BTreeSet<u8>,
    sheriff: BTreeSet<u8>,
    sanctions: BTreeSet<usize>,
    best_move: bool,
}

/// Builds the record's header from the script and plays the script.
pub fn drive(script: &Script) -> Result<Imported, SourceError> {
    let header = Header {
        format: FORMAT.to_string(),
        rules: RulesRef {
            id: script.rules.id,
            overrides: script.rules.overrides(),
        },
        tournament_id: script.tournament_id.clone(),
        tournament: script.tournament.clone(),
        stage: String::new(),
        round: script.round,
        table: script.table,
        game: script.game,
        judge: script.judge.clone(),
        seats: script
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| SeatEntry {
                seat: Seat::from_index(i),
                player_id: p.player_id.clone(),
                nickname: p.nickname.clone(),
            })
            .collect(),
        deal: Deal::Cards(script.roles.to_vec()),
    };
    let mut record = Record::new(header)
        .map_err(|e| SourceError::unsupported(script.origin_roles.0.clone(), e.to_string()))?;
    let (mut game, _) = Game::new(record.setup().clone(), script.start_ms);
    let mut used = Used::default();
    let mut commands: Vec<Command> = Vec::new();
    let last_phase = script.last_phase();
    let mut refusal = None;
    let mut round = 0u8;
    while commands.len() < MAX_COMMANDS {
        let step = game.step();
        if script.winner.is_none() && !matches!(step, Step::Ended) && phase_key(&game) > last_phase
        {
            // The source stops here (a game in progress): so does the record.
            break;
        }
        let next = match next_command(script, &game, &used) {
            Ok(Some(n)) => n,
            Ok(None) => break,
            Err(r) => {
                refusal = Some(*r);
                break;
            }
        };
        let at = script.start_ms + commands.len() as i64 * 1000;
        match game.apply(&next.cmd, at) {
            Ok(events) => {
                mark(&mut used, next.mark);
                commands.push(next.cmd);
                if let Some(r) = automatic_votes(script, &game, &events, &mut used, &mut round) {
                    refusal = Some(r);
                    break;
                }
            }
            Err(v) => {
                refusal = Some(Refusal {
                    origin: next.origin,
                    message: v.to_string(),
                    violation: Some(v),
                    command: Some(CommandLine { at, cmd: next.cmd }),
                });
                break;
            }
        }
    }
    if refusal.is_none() && commands.len() >= MAX_COMMANDS {
        refusal = Some(Refusal::fact(
            Origin(describe(&game)),
            format!("the replay does not end within {MAX_COMMANDS} commands"),
        ));
    }
    if refusal.is_none() {
        refusal = check_against_source(script, &game, &used);
    }
    let times = retime(script.start_ms, script.end_ms, commands.len());
    for (cmd, at) in commands.into_iter().zip(times) {
        record.push(at, cmd);
    }
    if let Some(r) = refusal.as_mut() {
        if let Some(c) = r.command.as_mut() {
            c.at = record.commands().last().map_or(script.start_ms, |l| l.at);
        }
    }
    Ok(Imported { record, refusal })
}

/// Votes the engine counts by itself (the last nominee's, a sole
/// nominee's) must be the source's too: each of those voters voted for
/// that nominee, or the source does not say.
fn automatic_votes(
    script: &Script,
    game: &Game,
    events: &[mafia_rules::Envelope],
    used: &mut Used,
    round: &mut u8,
) -> Option<Refusal> {
    let day = game.core().day;
    for e in events {
        match e.event {
            mafia_rules::Event::StepStarted {
                step: Step::Voting { round: r },
            } => *round = r,
            mafia_rules::Event::VotesCast {
                nominee,
                hands,
                automatic: true,
            } => {
                used.rounds.insert((day, *round as usize));
                let votes = script
                    .days
                    .get(&day)
                    .and_then(|d| d.rounds.get(*round as usize));
                for h in hands.iter() {
                    if let Some((Some(t), origin)) = votes.and_then(|v| v.get(&h)) {
                        if *t != nominee {
                            return Some(Refusal::fact(
                                origin.clone(),
                                format!(
                                    "the source has player {h} vote for {t}; in the replay his hand counts for {nominee}, the last nominee"
                                ),
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The source keeps only the start and the end: commands are spread evenly
/// between them (one second apart when the end is unknown).
fn retime(start: i64, end: Option<i64>, n: usize) -> Vec<i64> {
    match end {
        Some(end) if end > start && n > 1 => (0..n)
            .map(|i| start + ((end - start) as i128 * i as i128 / (n as i128 - 1)) as i64)
            .collect(),
        _ => (0..n).map(|i| start + i as i64 * 1000).collect(),
    }
}

/// Night n is 2n, day d is 2d - 1, after the result the maximum.
fn phase_key(game: &Game) -> u16 {
    let c = game.core();
    match c.step {
        Step::Ended => u16::MAX,
        s if s.is_night() => 2 * c.night as u16,
        _ => 2 * c.day.max(1) as u16 - 1,
    }
}

fn mark(used: &mut Used, m: Mark) {
    match m {
        Mark::None => {}
        Mark::Nomination(d, s) => {
            used.nominations.insert((d, s));
        }
        Mark::Round(d, r) => {
            used.rounds.insert((d, r));
        }
        Mark::Lift(d) => {
            used.lifts.insert(d);
        }
        Mark::Shot(n, s) => {
            used.shots.insert((n, s));
        }
        Mark::DonCheck(n) => {
            used.don.insert(n);
        }
        Mark::SheriffCheck(n) => {
            used.sheriff.insert(n);
        }
        Mark::Sanction(i) => {
            used.sanctions.insert(i);
        }
        Mark::BestMove => used.best_move = true,
    }
}

fn matches_moment(m: Moment, game: &Game) -> bool {
    let c = game.core();
    let (day, night) = (c.day, c.night);
    let step = c.step;
    match m {
        Moment::Night0 => matches!(step, Step::Night0 { .. }),
        Moment::Night0Step { step: want } => {
            let fits = |s: Night0Step| {
                s == want
                    || (s == Night0Step::SheriffAndDonSign
                        && matches!(want, Night0Step::SheriffSign | Night0Step::DonSign))
            };
            match step {
                Step::Night0 { step: s, .. } => {
                    fits(s) || !game.params().night0.iter().any(|t| fits(t.step))
                }
                _ => false,
            }
        }
        Moment::Speech { day: d, seat } => {
            matches!(step, Step::Speech { seat: s, tie: false, .. } if s == seat) && day == d
        }
        Moment::TieSpeech {
            day: d,
            seat,
            round,
        } => {
            matches!(step, Step::Speech { seat: s, tie: true, .. } if s == seat)
                && day == d
                && round.is_none_or(|r| r == c.round)
        }
        Moment::Voting {
            day: d,
            round,
            nominee,
        } => {
            let r = match step {
                Step::Voting { round } | Step::RollCall { round, .. } => Some(round),
                Step::VoteCall => Some(0),
                _ => None,
            };
            let counting = c.candidates.get(c.vote_pos as usize);
            r.is_some()
                && day == d
                && (round.is_none() || round == r)
                && (nominee.is_none()
                    || (matches!(step, Step::Voting { .. }) && counting == nominee))
        }
        Moment::Lift { day: d } => matches!(step, Step::Lift) && day == d,
        Moment::LastWords { day: d, seat } => {
            matches!(step, Step::LastWords { seat: s, .. } if s == seat) && day == d
        }
        Moment::Night { night: n } => {
            step.is_night() && !matches!(step, Step::Night0 { .. }) && night == n
        }
        Moment::NightStep { night: n, action } => {
            matches!(step, Step::Night { action: a, .. } if a == action) && night == n
        }
        Moment::NightEnd { night: n } => {
            (matches!(step, Step::BestMove { .. }) && night == n)
                || (!step.is_night() && !matches!(step, Step::Ended) && day == n.saturating_add(1))
        }
        Moment::Day { day: d } => !step.is_night() && !matches!(step, Step::Ended) && day == d,
        Moment::Round { round: r } => {
            if step.is_night() {
                night == r
            } else {
                !matches!(step, Step::Ended) && day == r.saturating_add(1)
            }
        }
        Moment::End => matches!(step, Step::Ended),
    }
}

fn sanction_command(s: &crate::script::Sanction) -> Command {
    let seat = s.seat;
    match s.kind {
        SanctionKind::Foul => Command::Foul { seat },
        SanctionKind::TechnicalFoul => Command::TechnicalFoul { seat },
        SanctionKind::Disqualify => Command::Disqualify { seat },
        SanctionKind::OppositeTeamVictory => Command::OppositeTeamVictory { seat },
    }
}

/// Whether the shooters who still have a shot in the source would still
/// be asked for it after this sanction (tried on a copy of the game).
fn keeps_shots(
    game: &Game,
    s: &crate::script::Sanction,
    shot_pending: impl Fn(Seat) -> bool,
) -> bool {
    let mut g = game.clone();
    if g.apply(&sanction_command(s), 0).is_err() {
        // Refused either way: let it be refused where the source put it.
        return true;
    }
    match g.expected().expect {
        Expect::Shots { pending, .. } => Seat::all()
            .filter(|x| shot_pending(*x))
            .all(|x| pending.contains(x)),
        _ => false,
    }
}

fn describe(game: &Game) -> String {
    let c = game.core();
    let when = if c.step.is_night() {
        format!("night {}", c.night)
    } else {
        format!("day {}", c.day)
    };
    format!(
        "(replay, {when}: {})",
        mafia_rules::game::describe_step(&c.step)
    )
}

/// The script's answer to the engine's prompt; `None` when the game is over
/// and nothing is left to enter.
fn next_command(script: &Script, game: &Game, used: &Used) -> Result<Option<Next>, Box<Refusal>> {
    let c = game.core();
    let day = c.day;
    let night = c.night;
    let here = || Origin(describe(game));
    let plain = |cmd| Next {
        cmd,
        origin: here(),
        mark: Mark::None,
    };
    let expect = game.expected().expect;
    // A speaker's nomination comes first in his turn, sanctions after it:
    // a foul that ends the speech must not swallow a nomination the source
    // has (the source kept it, so it was made).
    if let Expect::Speech {
        seat, tie: false, ..
    } = expect
    {
        if let Some((target, origin)) = script.days.get(&day).and_then(|d| d.nominations.get(&seat))
        {
            if !used.nominations.contains(&(day, seat)) {
                return Ok(Some(Next {
                    cmd: Command::Nominate {
                        by: seat,
                        target: *target,
                    },
                    origin: origin.clone(),
                    mark: Mark::Nomination(day, seat),
                }));
            }
        }
    }
    // In the shooting step the shots the source has come first: the site
    // keeps no order within a step, and a shot it kept was fired before any
    // removal or game-ending sanction of that step (after them nobody shoots).
    let shot_pending = |seat: Seat| match expect {
        Expect::Shots { pending, .. } => {
            pending.contains(seat)
                && !used.shots.contains(&(night, seat))
                && script
                    .nights
                    .get(&night)
                    .is_some_and(|n| n.shots.contains_key(&seat))
        }
        _ => false,
    };
    let shots_first = Seat::all().any(shot_pending);
    // The last shot the source has may end the step: what the source gives
    // in this step is given before it (after it, it would belong to the
    // next step).
    let last_shot = Seat::all().filter(|s| shot_pending(*s)).count() == 1;
    for (i, s) in script.sanctions.iter().enumerate() {
        if used.sanctions.contains(&i) || !matches_moment(s.at, game) {
            continue;
        }
        // While shots of the source are pending, sanctions wait for all but
        // the last, and then go first only if they leave it possible (a
        // removal of that shooter, or one that ends the game, came after).
        let now = !shots_first || (last_shot && keeps_shots(game, s, shot_pending));
        if now {
            let cmd = sanction_command(s);
            return Ok(Some(Next {
                cmd,
                origin: s.origin.clone(),
                mark: Mark::Sanction(i),
            }));
        }
    }
    let facts_day = script.days.get(&day);
    let facts_night = script.nights.get(&night);
    Ok(Some(match expect {
        Expect::GameOver => return Ok(None),
        Expect::Night0 { .. } | Expect::FreeTalk => plain(Command::NextStep),
        Expect::Speech { seat, .. } => plain(Command::EndSpeech {
            seat,
            timeout: false,
        }),
        Expect::VoteCall { voters } => plain(Command::VoteCall { yes: voters }),
        Expect::Vote {
            nominee,
            round,
            not_yet_voted,
        } => {
            // No vote of this round in the source: no hand against anyone
            // so far (a round cut short by a removal, or all for the last).
            let empty = BTreeMap::new();
            let votes = facts_day
                .and_then(|d| d.rounds.get(round as usize))
                .unwrap_or(&empty);
            let hands: SeatSet = votes
                .iter()
                .filter(|(_, (t, _))| *t == Some(nominee))
                .map(|(v, _)| *v)
                .collect();
            // A voter the engine no longer asks (out, or already counted)
            // is the source's fact to answer for.
            let origin = votes
                .iter()
                .find(|(v, (t, _))| *t == Some(nominee) && !not_yet_voted.contains(**v))
                .map(|(_, (_, o))| o.clone())
                .or_else(|| votes.values().next().map(|(_, o)| o.clone()))
                .unwrap_or_else(here);
            Next {
                cmd: Command::Vote { nominee, hands },
                origin,
                mark: Mark::Round(day, round as usize),
            }
        }
        Expect::Ballot { voter, .. } => {
            let round = c.round as usize;
            let Some((target, origin)) = facts_day
                .and_then(|d| d.rounds.get(round))
                .and_then(|r| r.get(&voter))
            else {
                return Err(Box::new(Refusal::fact(
                    here(),
                    format!(
                        "the source has no vote of player {voter} in round {} of day {day}",
                        round + 1
                    ),
                )));
            };
            Next {
                cmd: Command::Ballot {
                    voter,
                    target: *target,
                },
                origin: origin.clone(),
                mark: Mark::Round(day, round),
            }
        }
        Expect::Lift { .. } => {
            let Some((hands, origin)) = facts_day.and_then(|d| d.lift.as_ref()) else {
                return Err(Box::new(Refusal::fact(
                    here(),
                    format!("the source has no hands for the lift of day {day}"),
                )));
            };
            Next {
                cmd: Command::Lift { hands: *hands },
                origin: origin.clone(),
                mark: Mark::Lift(day),
            }
        }
        Expect::LastWords { seat, .. } => {
            let bm = best_move_of(script, seat).filter(|(named, _, required)| {
                !used.best_move
                    && game.params().best_move.at == BestMoveAt::LastWords
                    && c.best_move.is_none()
                    // A guess the source does not require is the best move
                    // only if the rules give this player one.
                    && (*required || game.clone().apply(&best_move(seat, named), 0).is_ok())
            });
            match bm {
                Some((named, origin, _)) => Next {
                    cmd: best_move(seat, named),
                    origin: origin.clone(),
                    mark: Mark::BestMove,
                },
                None => plain(Command::EndLastWords { seat }),
            }
        }
        Expect::BeautyPick { .. } => plain(Command::BeautyPick { target: None }),
        Expect::Shots { pending, .. } => {
            // A shooter whose sanction waits for his shot shoots first.
            let sanctioned = |p: Seat| {
                script.sanctions.iter().enumerate().any(|(i, s)| {
                    s.seat == p && !used.sanctions.contains(&i) && matches_moment(s.at, game)
                })
            };
            let by = pending
                .iter()
                .find(|p| shot_pending(*p) && sanctioned(*p))
                .or_else(|| pending.iter().find(|p| shot_pending(*p)))
                .or(pending.first());
            let Some(by) = by else {
                return Err(Box::new(Refusal::fact(
                    here(),
                    "the engine asks for shots from nobody".into(),
                )));
            };
            match facts_night.and_then(|n| n.shots.get(&by)) {
                Some((target, origin)) => Next {
                    cmd: Command::Shot {
                        by,
                        target: *target,
                    },
                    origin: origin.clone(),
                    mark: Mark::Shot(night, by),
                },
                None => plain(Command::Shot { by, target: None }),
            }
        }
        Expect::DonCheck { .. } => match facts_night.and_then(|n| n.don_check.as_ref()) {
            Some((t, origin)) => Next {
                cmd: Command::DonCheck { target: Some(*t) },
                origin: origin.clone(),
                mark: Mark::DonCheck(night),
            },
            None => plain(Command::DonCheck { target: None }),
        },
        Expect::SheriffCheck { .. } => match facts_night.and_then(|n| n.sheriff_check.as_ref()) {
            Some((t, origin)) => Next {
                cmd: Command::SheriffCheck { target: Some(*t) },
                origin: origin.clone(),
                mark: Mark::SheriffCheck(night),
            },
            None => plain(Command::SheriffCheck { target: None }),
        },
        Expect::BestMove { seat } => match best_move_of(script, seat) {
            Some((named, origin, _)) => Next {
                cmd: best_move(seat, named),
                origin: origin.clone(),
                mark: Mark::BestMove,
            },
            None => plain(Command::BestMove {
                seat,
                named: SeatList::default(),
            }),
        },
    }))
}

/// The seats `seat` names as his best move in the source, where from, and
/// whether the source requires it to be the best move (a mafiaratings
/// legacy) or only offers it (a Polemica guess in last words).
fn best_move_of(script: &Script, seat: Seat) -> Option<(&Vec<Seat>, &Origin, bool)> {
    match &script.best_move {
        Some((s, named, origin)) if *s == seat => Some((named, origin, true)),
        _ => script
            .guesses
            .iter()
            .find(|(s, _, _)| *s == seat)
            .map(|(_, named, origin)| (named, origin, false)),
    }
}

fn best_move(seat: Seat, named: &[Seat]) -> Command {
    Command::BestMove {
        seat,
        named: named.iter().copied().collect(),
    }
}

/// After the replay: every fact of the source must have been used, and the
/// departures and the winner it states must be the replay's.
fn check_against_source(script: &Script, game: &Game, used: &Used) -> Option<Refusal> {
    let unfinished = script.winner.is_none() && !game.is_over();
    let never = |origin: &Origin, what: String| {
        Some(Refusal::fact(
            origin.clone(),
            format!("{what} never happens in the replay"),
        ))
    };
    for (d, f) in &script.days {
        for (by, (target, origin)) in &f.nominations {
            if !used.nominations.contains(&(*d, *by)) && !unfinished {
                return never(
                    origin,
                    format!("the nomination of {target} by {by} on day {d}"),
                );
            }
        }
        for (r, votes) in f.rounds.iter().enumerate() {
            if !used.rounds.contains(&(*d, r)) && !unfinished {
                if let Some((_, origin)) = votes.values().next() {
                    return never(origin, format!("vote round {} of day {d}", r + 1));
                }
            }
        }
        if let Some((_, origin)) = &f.lift {
            if !used.lifts.contains(d) && !unfinished {
                return never(origin, format!("the lift of day {d}"));
            }
        }
    }
    for (n, f) in &script.nights {
        for (by, (_, origin)) in &f.shots {
            if !used.shots.contains(&(*n, *by)) && !unfinished {
                return never(origin, format!("the shot of player {by} in night {n}"));
            }
        }
        if let Some((t, origin)) = &f.don_check {
            if !used.don.contains(n) && !unfinished {
                return never(origin, format!("the Don's check of {t} in night {n}"));
            }
        }
        if let Some((t, origin)) = &f.sheriff_check {
            if !used.sheriff.contains(n) && !unfinished {
                return never(origin, format!("the Sheriff's check of {t} in night {n}"));
            }
        }
    }
    for (i, s) in script.sanctions.iter().enumerate() {
        if !used.sanctions.contains(&i) && !unfinished {
            return never(
                &s.origin,
                format!("a {:?} of player {}", s.kind, s.seat).to_lowercase(),
            );
        }
    }
    if let Some((seat, _, origin)) = &script.best_move {
        if !used.best_move && !unfinished {
            return never(origin, format!("the best move of player {seat}"));
        }
    }
    let c = game.core();
    for (seat, left, origin) in &script.departures {
        let out = c.seats[seat.index()].out;
        let ok = match (left, out) {
            (Left::Day(d), Some(o)) => {
                matches!(o.cause, Cause::Vote | Cause::Lift) && o.when == When::Day(*d)
            }
            (Left::Night(n), Some(o)) => o.cause == Cause::Shot && o.when == When::Night(*n),
            (Left::Removed(r), Some(o)) => {
                o.cause.is_removal()
                    && (o.when == When::Night(*r) || o.when == When::Day(r.saturating_add(1)))
            }
            (_, None) => unfinished,
        };
        if !ok {
            let replay = match out {
                Some(o) => format!("leaves by {} on {}", o.cause.as_str(), o.when),
                None => "stays to the end".into(),
            };
            return Some(Refusal::fact(
                origin.clone(),
                format!("the source has player {seat} leave {left:?}; in the replay he {replay}"),
            ));
        }
    }
    if let Some(winner) = script.winner {
        let replay = game.result().map(|o| o.winner);
        if replay != Some(winner) {
            let name = |w: Option<Team>| match w {
                Some(Team::Red) => "red wins",
                Some(Team::Black) => "black wins",
                None => "a draw",
            };
            return Some(Refusal::fact(
                script.origin_winner.clone(),
                format!(
                    "the source says {}; the replay {}",
                    name(winner),
                    match replay {
                        Some(w) => format!("ends in {}", name(w)),
                        None => "does not end".into(),
                    }
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_spread_between_the_start_and_the_end() {
        assert_eq!(retime(0, Some(10_000), 3), vec![0, 5_000, 10_000]);
        assert_eq!(retime(0, None, 3), vec![0, 1_000, 2_000]);
        assert_eq!(retime(0, Some(0), 2), vec![0, 1_000]);
    }
}
