//! `Game`: apply a judge's command, get the events it produced, or a
//! violation and no change at all.

use crate::command::Command;
use crate::event::{
    Audience, Cause, EndReason, Envelope, Event, LiftDenial, NoVote, Outcome, Step,
};
use crate::params::{BestMoveAt, BestMoveDenial, FoulDuringSpeech, NightAction, Params, ThirdFoul};
use crate::role::{Role, Team};
use crate::seat::{Seat, SeatList, SeatSet};
use crate::setup::Setup;
use crate::state::Core;
use crate::violation::{Code, Violation};
use std::sync::Arc;

/// A game under way. Clone it to explore; fold events into it to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    setup: Arc<Setup>,
    core: Core,
    /// The state before the current phase's first undoable command.
    checkpoint: Option<Core>,
    /// Events of the current phase's undoable commands, for undo.
    phase_events: Vec<Envelope>,
    /// The command that opened the current phase (not undoable).
    phase_cmd: u32,
    seq: u32,
    /// Events the public has seen: its own sequence, so that gaps in `seq`
    /// do not count hidden night events for it.
    public_seq: u32,
    cmds: u32,
}

/// The error for a stored history that does not fit its game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("event {got} out of sequence, expected {expected}")]
    Sequence { expected: u32, got: u32 },
    #[error("event {seq} does not fit the game: {why}")]
    Inconsistent { seq: u32, why: &'static str },
}

impl Game {
    /// Deals the cards and opens night 0. Returns the game and its first events.
    pub fn new(setup: Setup, at: i64) -> (Game, Vec<Envelope>) {
        let roles = setup.roles();
        let mut game = Game {
            setup: Arc::new(setup),
            core: Core::new(roles),
            checkpoint: None,
            phase_events: Vec::new(),
            phase_cmd: 0,
            seq: 0,
            public_seq: 0,
            cmds: 0,
        };
        let setup = game.setup.clone();
        let mut tx = Tx::new(&mut game, &setup, at);
        tx.emit(Event::Dealt { roles });
        tx.night0_step(0);
        let events = tx.out;
        (game, events)
    }

    /// Rebuilds a game from its setup and stored events.
    pub fn replay<'a>(
        setup: Setup,
        events: impl IntoIterator<Item = &'a Envelope>,
    ) -> Result<Game, ReplayError> {
        let roles = setup.roles();
        let mut game = Game {
            setup: Arc::new(setup),
            core: Core::new(roles),
            checkpoint: None,
            phase_events: Vec::new(),
            phase_cmd: 0,
            seq: 0,
            public_seq: 0,
            cmds: 0,
        };
        for env in events {
            game.fold(env)?;
        }
        Ok(game)
    }

    /// Folds one stored event.
    pub fn fold(&mut self, env: &Envelope) -> Result<(), ReplayError> {
        if env.seq != self.seq + 1 {
            return Err(ReplayError::Sequence {
                expected: self.seq + 1,
                got: env.seq,
            });
        }
        if let Event::Undone { cmd, .. } = env.event {
            if self.checkpoint.is_none() || !self.phase_events.iter().any(|e| e.cmd == cmd) {
                return Err(ReplayError::Inconsistent {
                    seq: env.seq,
                    why: "undo of a command that is not undoable",
                });
            }
        }
        let setup = self.setup.clone();
        self.fold_unchecked(env, &setup.rules.params);
        Ok(())
    }

    fn fold_unchecked(&mut self, env: &Envelope, params: &Params) {
        self.seq = env.seq;
        self.cmds = self.cmds.max(env.cmd);
        if self.core.result.is_some() || env.event.for_audience(Audience::Public).is_some() {
            self.public_seq += 1;
        }
        if let Event::Undone { cmd, .. } = env.event {
            // Checked by `fold` for stored events; `apply` only emits undoable ones.
            let Some(cp) = self.checkpoint else { return };
            let keep = self
                .phase_events
                .iter()
                .take_while(|e| e.cmd != cmd)
                .count();
            self.phase_events.truncate(keep);
            self.core = cp;
            for e in &self.phase_events {
                self.core.fold(&e.event, e.at, params);
            }
            if self.phase_events.is_empty() {
                self.checkpoint = None;
            }
            return;
        }
        if matches!(
            env.event,
            Event::DayStarted { .. } | Event::NightStarted { .. }
        ) {
            self.checkpoint = None;
            self.phase_events.clear();
            self.phase_cmd = env.cmd;
        } else if env.cmd != self.phase_cmd {
            if self.checkpoint.is_none() {
                self.checkpoint = Some(self.core);
            }
            self.phase_events.push(*env);
        }
        self.core.fold(&env.event, env.at, params);
    }

    /// Applies a judge's command at time `at` (ms since the epoch). On success
    /// the game has advanced by exactly the returned events; on a violation
    /// nothing has changed.
    pub fn apply(&mut self, cmd: &Command, at: i64) -> Result<Vec<Envelope>, Violation> {
        let setup = self.setup.clone();
        if let Command::Undo = cmd {
            return self.undo(&setup, at);
        }
        let mut tx = Tx::new(self, &setup, at);
        tx.command(cmd)?;
        Ok(tx.out)
    }

    fn undo(&mut self, setup: &Setup, at: i64) -> Result<Vec<Envelope>, Violation> {
        let rules = setup.rules.id;
        if self.core.result.is_some() {
            return Err(game_over(rules));
        }
        let Some(last) = self.phase_events.last() else {
            return Err(Violation::new(
                Code::NothingToUndo,
                rules,
                "nothing to undo in this phase",
                "в этой фазе нечего отменять",
            ));
        };
        let undone = last.cmd;
        let public = self
            .phase_events
            .iter()
            .filter(|e| e.cmd == undone)
            .any(|e| e.event.for_audience(Audience::Public).is_some());
        let mut tx = Tx::new(self, setup, at);
        tx.emit(Event::Undone {
            cmd: undone,
            public,
        });
        Ok(tx.out)
    }

    /// Whether `Command::Undo` would be accepted now.
    pub fn can_undo(&self) -> bool {
        self.core.result.is_none() && !self.phase_events.is_empty()
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }
    pub fn core(&self) -> &Core {
        &self.core
    }
    pub fn params(&self) -> &Params {
        &self.setup.rules.params
    }
    pub fn step(&self) -> Step {
        self.core.step
    }
    pub fn result(&self) -> Option<Outcome> {
        self.core.result
    }
    /// The game has ended and nothing more is expected (final last words done).
    pub fn is_over(&self) -> bool {
        self.core.result.is_some() && self.core.step == Step::Ended
    }

    /// The number of events the public has seen (see `view`).
    pub fn public_seq(&self) -> u32 {
        self.public_seq
    }
    /// Number of events so far (the last event's seq).
    pub fn seq(&self) -> u32 {
        self.seq
    }
    /// Number of commands accepted so far.
    pub fn commands(&self) -> u32 {
        self.cmds
    }
}

fn game_over(rules: crate::params::RuleSetId) -> Violation {
    Violation::new(Code::GameOver, rules, "the game is over", "игра окончена")
}

/// Where the flow goes after the last words in the queue.
enum After {
    Speeches,
    Night,
    End,
}

/// One command being applied: checks first, then events folded as emitted.
struct Tx<'a> {
    g: &'a mut Game,
    p: &'a Params,
    rules: crate::params::RuleSetId,
    at: i64,
    cmd: u32,
    out: Vec<Envelope>,
}

type Check = Result<(), Violation>;

impl<'a> Tx<'a> {
    fn new(g: &'a mut Game, setup: &'a Setup, at: i64) -> Tx<'a> {
        let cmd = if g.seq == 0 { 0 } else { g.cmds + 1 };
        Tx {
            g,
            p: &setup.rules.params,
            rules: setup.rules.id,
            at,
            cmd,
            out: Vec::with_capacity(4),
        }
    }

    fn c(&self) -> &Core {
        &self.g.core
    }

    fn emit(&mut self, event: Event) {
        let env = Envelope {
            seq: self.g.seq + 1,
            cmd: self.cmd,
            at: self.at,
            event,
        };
        self.g.fold_unchecked(&env, self.p);
        self.out.push(env);
    }

    fn err(&self, code: Code, en: String, ru: String) -> Violation {
        Violation::new(code, self.rules, en, ru)
    }

    fn wrong_phase(&self, what: &str, what_ru: &str) -> Violation {
        self.err(
            Code::WrongPhase,
            format!(
                "{what} is not possible now ({})",
                describe_step(&self.c().step)
            ),
            format!("{what_ru} сейчас невозможно"),
        )
    }

    fn need_alive(&self, s: Seat) -> Check {
        if self.c().alive(s) {
            Ok(())
        } else {
            Err(self.err(
                Code::PlayerOut,
                format!("player {s} is out of the game"),
                format!("игрок {s} выбыл из игры"),
            ))
        }
    }

    fn need_voters(&self, hands: SeatSet) -> Check {
        let out = hands.difference(self.c().living());
        if let Some(s) = out.first() {
            return Err(self.err(
                Code::VoterOut,
                format!("player {s} is out and cannot vote"),
                format!("игрок {s} выбыл и не голосует"),
            ));
        }
        Ok(())
    }

    // ---- commands -------------------------------------------------------

    fn command(&mut self, cmd: &Command) -> Check {
        let c = *self.c();
        if c.result.is_some() {
            let final_words = matches!(c.step, Step::LastWords { .. });
            let allowed = final_words
                && matches!(cmd, Command::EndLastWords { .. } | Command::BestMove { .. });
            if !allowed {
                return Err(game_over(self.rules));
            }
        }
        match *cmd {
            Command::NextStep => self.next_step(),
            Command::StartSpeech { seat } => {
                self.need_speaker(seat)?;
                if c.speech_started_at.is_some() {
                    return Err(
                        self.wrong_phase("starting the speech again", "повторный старт речи")
                    );
                }
                self.emit(Event::SpeechStarted { seat });
                Ok(())
            }
            Command::EndSpeech { seat, timeout } => {
                let tie = self.need_speaker(seat)?;
                self.emit(Event::SpeechEnded { seat, timeout });
                if tie {
                    self.next_tie_turn();
                } else {
                    self.next_turn();
                }
                Ok(())
            }
            Command::Nominate { by, target } => self.nominate(by, target),
            Command::Withdraw { by } => self.withdraw(by),
            Command::Foul { seat } => self.foul(seat),
            Command::TechnicalFoul { seat } => {
                let Some(limit) = self.p.fouls.technical_remove_at else {
                    return Err(self.not_in_rules("technical fouls", "технических фолов"));
                };
                self.need_alive(seat)?;
                let count = c.seats[seat.index()].technical_fouls + 1;
                self.emit(Event::TechnicalFouled { seat, count });
                if count >= limit {
                    self.remove(seat, Cause::TechnicalFouls);
                }
                Ok(())
            }
            Command::Penalty { seat, kind } => {
                if !self.p.fouls.penalties {
                    return Err(self.not_in_rules("penalty points", "штрафных баллов"));
                }
                self.need_alive_or_speaking(seat)?;
                self.emit(Event::Penalized { seat, kind });
                Ok(())
            }
            Command::YellowCard { seat } => {
                self.need_alive_or_speaking(seat)?;
                self.emit(Event::YellowCarded { seat });
                Ok(())
            }
            Command::Disqualify { seat } => {
                self.need_alive(seat)?;
                self.remove(seat, Cause::Disqualified);
                Ok(())
            }
            Command::OppositeTeamVictory { seat } => {
                let loser = c.role(seat).team();
                self.emit(Event::OppositeTeamVictory { seat });
                self.end(Outcome {
                    winner: Some(loser.opposite()),
                    reason: EndReason::OppositeTeamVictory,
                });
                self.emit(Event::StepStarted { step: Step::Ended });
                Ok(())
            }
            Command::VoteCall { yes } => {
                if c.step != Step::VoteCall {
                    return Err(self.wrong_phase("asking whether to vote", "опрос о голосовании"));
                }
                self.need_voters(yes)?;
                let held = yes.len() * 2 >= c.living().len();
                self.emit(Event::VoteCalled { yes, held });
                if held {
                    self.start_rollcall(c.living().iter().collect(), 0);
                } else {
                    self.emit(Event::VoteSkipped {
                        reason: NoVote::NotWanted,
                    });
                    self.start_night();
                }
                Ok(())
            }
            Command::Vote { nominee, hands } => self.vote(nominee, hands),
            Command::Ballot { voter, target } => self.ballot(voter, target),
            Command::Lift { hands } => {
                if c.step != Step::Lift {
                    return Err(self.wrong_phase("the lift vote", "голосование за подъём"));
                }
                self.need_voters(hands)?;
                let passed = hands.len() * 2 > c.living().len();
                self.emit(Event::LiftVoted { hands, passed });
                if passed {
                    let seats = c.candidates.filtered(c.living());
                    self.leave(seats, Cause::Lift);
                } else {
                    self.start_night();
                }
                Ok(())
            }
            Command::EndLastWords { seat } => {
                let Step::LastWords {
                    seat: s, testament, ..
                } = c.step
                else {
                    return Err(self.wrong_phase("ending last words", "завершение последней речи"));
                };
                if s != seat {
                    return Err(self.not_your_turn(s, seat));
                }
                if !testament && self.p.testament_secs > 0 && c.result.is_none() {
                    self.emit(Event::StepStarted {
                        step: Step::LastWords {
                            seat,
                            secs: self.p.testament_secs,
                            testament: true,
                        },
                    });
                } else {
                    self.next_words();
                }
                Ok(())
            }
            Command::Shot { by, target } => self.shoot(by, target),
            Command::DonCheck { target } => {
                self.need_night_action(NightAction::DonCheck)?;
                let sheriff = target.is_some_and(|t| c.role(t) == Role::Sheriff);
                self.emit(Event::DonChecked { target, sheriff });
                self.next_night_action(Some(NightAction::DonCheck));
                Ok(())
            }
            Command::SheriffCheck { target } => {
                self.need_night_action(NightAction::SheriffCheck)?;
                let black = target.is_some_and(|t| c.role(t).team() == Team::Black);
                self.emit(Event::SheriffChecked { target, black });
                self.next_night_action(Some(NightAction::SheriffCheck));
                Ok(())
            }
            Command::BeautyPick { target } => {
                self.need_night_action(NightAction::BeautyPick)?;
                if let Some(t) = target {
                    self.need_alive(t)?;
                }
                self.emit(Event::BeautyPicked { target });
                self.next_night_action(Some(NightAction::BeautyPick));
                Ok(())
            }
            Command::BestMove { seat, named } => self.best_move(seat, named),
            Command::Undo => unreachable!("Game::apply handles undo"),
        }
    }

    fn not_in_rules(&self, what: &str, what_ru: &str) -> Violation {
        self.err(
            Code::NotInRuleSet,
            format!("the {} rule set has no {what}", self.rules),
            format!("в правилах {} нет {what_ru}", self.rules),
        )
    }

    fn not_your_turn(&self, expected: Seat, got: Seat) -> Violation {
        self.err(
            Code::NotYourTurn,
            format!("it is player {expected}'s turn, not player {got}'s"),
            format!("сейчас очередь игрока {expected}, а не игрока {got}"),
        )
    }

    /// Checks that `seat` holds the floor; returns whether it is a tie speech.
    fn need_speaker(&self, seat: Seat) -> Result<bool, Violation> {
        match self.c().step {
            Step::Speech { seat: s, tie, .. } if s == seat => Ok(tie),
            Step::Speech { seat: s, .. } => Err(self.not_your_turn(s, seat)),
            _ => Err(self.wrong_phase("a speech", "речь")),
        }
    }

    fn need_alive_or_speaking(&self, seat: Seat) -> Check {
        match self.c().step {
            Step::LastWords { seat: s, .. } if s == seat => Ok(()),
            _ => self.need_alive(seat),
        }
    }

    fn need_night_action(&self, action: NightAction) -> Check {
        match self.c().step {
            Step::Night { action: a, .. } if a == action => Ok(()),
            _ => Err(self.wrong_phase(
                match action {
                    NightAction::BeautyPick => "the Beauty's pick",
                    NightAction::Shooting => "shooting",
                    NightAction::DonCheck => "the Don's check",
                    NightAction::SheriffCheck => "the Sheriff's check",
                },
                "это ночное действие",
            )),
        }
    }

    fn next_step(&mut self) -> Check {
        match self.c().step {
            Step::Night0 { index, .. } => {
                self.night0_step(index as usize + 1);
                Ok(())
            }
            Step::FreeTalk { .. } => {
                self.speeches_done();
                Ok(())
            }
            _ => Err(self.wrong_phase("moving to the next step", "переход к следующему этапу")),
        }
    }

    fn nominate(&mut self, by: Seat, target: Seat) -> Check {
        let c = *self.c();
        if self.p.vote_call {
            return Err(self.not_in_rules("nominations", "выставления кандидатур"));
        }
        match c.step {
            Step::Speech {
                seat, tie: false, ..
            } if seat == by => {}
            Step::Speech {
                seat, tie: false, ..
            } => return Err(self.not_your_turn(seat, by)),
            _ => return Err(self.wrong_phase("a nomination", "выставление")),
        }
        self.need_alive(target)?;
        if by == target && !self.p.nominations.self_nomination {
            return Err(self.err(
                Code::SelfNomination,
                "a player may not nominate himself".into(),
                "игрок не может выставить себя".into(),
            ));
        }
        if let Some(t) = c.nomination_of[by.index()] {
            return Err(self.err(
                Code::NominationUsed,
                format!("player {by} has already nominated player {t} today"),
                format!("игрок {by} уже выставил игрока {t} сегодня"),
            ));
        }
        if c.nominees.contains(target) {
            return Err(self.err(
                Code::AlreadyNominated,
                format!("player {target} is already nominated; player {by} may name another"),
                format!("игрок {target} уже выставлен; игрок {by} может выставить другого"),
            ));
        }
        self.emit(Event::Nominated { by, target });
        Ok(())
    }

    fn withdraw(&mut self, by: Seat) -> Check {
        if !self.p.nominations.withdrawal {
            return Err(self.err(
                Code::WithdrawalForbidden,
                "this rule set does not allow withdrawing a nomination".into(),
                "снятие кандидатуры запрещено".into(),
            ));
        }
        self.need_speaker(by)?;
        let Some(target) = self.c().nomination_of[by.index()] else {
            return Err(self.err(
                Code::NothingToWithdraw,
                format!("player {by} has not nominated anyone today"),
                format!("игрок {by} сегодня никого не выставлял"),
            ));
        };
        self.emit(Event::Withdrawn { by, target });
        Ok(())
    }

    fn foul(&mut self, seat: Seat) -> Check {
        self.need_alive_or_speaking(seat)?;
        let c = *self.c();
        let fouls = c.seats[seat.index()].fouls.saturating_add(1);
        self.emit(Event::Fouled { seat, fouls });
        let f = self.p.fouls;
        if !c.alive(seat) {
            // A leaving player fouled out of his last words loses the rest.
            if fouls >= f.remove_at {
                self.next_words();
            }
            return Ok(());
        }
        if fouls >= f.remove_at {
            self.remove(seat, Cause::Fouls);
        } else if fouls == f.mute_at {
            self.mute(seat);
        }
        Ok(())
    }

    fn mute(&mut self, seat: Seat) {
        let c = *self.c();
        let own_speech = matches!(c.step, Step::Speech { seat: s, tie: false, .. } if s == seat);
        let speeches_ahead = !c.is_night()
            && c.day > 0
            && !c.vote_done
            && !matches!(
                c.step,
                Step::Voting { .. } | Step::RollCall { .. } | Step::Lift | Step::VoteCall
            )
            && !matches!(c.step, Step::Speech { tie: true, .. });
        if own_speech {
            match self.p.fouls.during_speech {
                FoulDuringSpeech::EndsThisSpeech => {
                    self.emit(Event::Muted {
                        seat,
                        day: c.day,
                        carried: false,
                    });
                    self.emit(Event::SpeechEnded {
                        seat,
                        timeout: false,
                    });
                    self.next_turn();
                }
                FoulDuringSpeech::NextDay => self.emit(Event::Muted {
                    seat,
                    day: c.day + 1,
                    carried: true,
                }),
            }
        } else if speeches_ahead && !c.spoken.contains(seat) {
            self.emit(Event::Muted {
                seat,
                day: c.day,
                carried: false,
            });
        } else {
            self.emit(Event::Muted {
                seat,
                day: c.day + 1,
                carried: !c.is_night() && c.day > 0,
            });
        }
    }

    /// A removal: the 4th foul, the 2nd technical foul, a disqualification.
    fn remove(&mut self, seat: Seat, cause: Cause) {
        let before = *self.c();
        self.emit(Event::Left { seat, cause });
        let r = self.p.removal;
        let bump = |n: u8| {
            if r.cancellations_accumulate {
                n.saturating_add(1)
            } else {
                n.max(1)
            }
        };
        let (today, next) = (before.vote_cancelled, before.cancel_next);
        if before.is_night() || before.day == 0 {
            // Settled in the morning: a shot may yet make it "removed and killed".
        } else if !before.vote_done {
            if r.before_result_cancels_vote && !self.closing_nominee_stands(&before) {
                if !today {
                    self.emit(Event::VotesCancelled {
                        today: true,
                        next_days: next,
                    });
                } else if r.second_removal_cancels_next {
                    self.emit(Event::VotesCancelled {
                        today: true,
                        next_days: bump(next),
                    });
                }
            }
        } else if r.after_result_cancels_next {
            self.emit(Event::VotesCancelled {
                today,
                next_days: bump(next),
            });
        }
        if let Some(outcome) = self.outcome() {
            self.end(outcome);
            self.emit(Event::StepStarted { step: Step::Ended });
            return;
        }
        let c = *self.c();
        match before.step {
            Step::Speech { seat: s, tie, .. } if s == seat => {
                if tie {
                    self.next_tie_turn()
                } else {
                    self.next_turn()
                }
            }
            Step::Voting { .. } | Step::RollCall { .. } | Step::Lift | Step::VoteCall => {
                if c.vote_cancelled {
                    self.start_night();
                } else {
                    // The vote goes on without him: the round starts over.
                    let cands = c.candidates.filtered(c.living());
                    self.start_round(cands, c.round);
                }
            }
            Step::Night {
                action: NightAction::Shooting,
                ..
            } if self.shooters().difference(c.shot).is_empty() => self.resolve_shooting(),
            Step::Night { action, .. } if self.actor(action) == Some(seat) => {
                self.next_night_action(Some(action))
            }
            _ => {}
        }
    }

    /// rfm §4.4.16 exc. 2: the round's closing speaker named the day's only
    /// nominee, nobody having been nominated before him.
    fn closing_nominee_stands(&self, c: &Core) -> bool {
        if !self.p.removal.closing_sole_nominee_stands || c.day < 2 || c.nominees.len() != 1 {
            return false;
        }
        let Some(opener) = c.opener else {
            return false;
        };
        let closer = (0..10)
            .scan(opener, |s, _| {
                let cur = *s;
                *s = s.next();
                Some(cur)
            })
            .filter(|s| c.alive(*s))
            .last();
        closer.is_some_and(|s| c.nomination_of[s.index()] == c.nominees.get(0))
    }

    fn vote(&mut self, nominee: Seat, hands: SeatSet) -> Check {
        let c = *self.c();
        if !matches!(c.step, Step::Voting { .. }) {
            return Err(self.wrong_phase("a vote", "голосование"));
        }
        let expected = c
            .candidates
            .get(c.vote_pos as usize)
            .expect("voting has a nominee");
        if nominee != expected {
            if c.candidates.last() == Some(nominee) {
                return Err(self.err(
                    Code::LastNomineeAutomatic,
                    format!("the votes for the last nominee, player {nominee}, are counted automatically"),
                    format!("голоса за последнего кандидата, игрока {nominee}, считаются автоматически"),
                ));
            }
            return Err(self.err(
                Code::WrongNominee,
                format!("the vote now is on player {expected}, not player {nominee}"),
                format!("сейчас голосуем за игрока {expected}, а не за игрока {nominee}"),
            ));
        }
        self.need_voters(hands)?;
        if let Some(s) = hands.intersection(c.voted).first() {
            return Err(self.err(
                Code::AlreadyVoted,
                format!("player {s} has already voted in this round"),
                format!("игрок {s} уже проголосовал в этом круге"),
            ));
        }
        self.emit(Event::VotesCast {
            nominee,
            hands,
            automatic: false,
        });
        if c.vote_pos as usize + 2 == c.candidates.len() {
            self.auto_last_votes();
        }
        Ok(())
    }

    fn auto_last_votes(&mut self) {
        let c = *self.c();
        let Some(last) = c.candidates.last() else {
            return self.start_night();
        };
        self.emit(Event::VotesCast {
            nominee: last,
            hands: c.living().difference(c.voted),
            automatic: true,
        });
        self.resolve_vote();
    }

    fn ballot(&mut self, voter: Seat, target: Option<Seat>) -> Check {
        let c = *self.c();
        let Step::RollCall { first, .. } = c.step else {
            return Err(self.wrong_phase("a roll-call vote", "поимённое голосование"));
        };
        let Some(expected) = self.next_voter(first) else {
            return Err(self.wrong_phase("a roll-call vote", "поимённое голосование"));
        };
        if voter != expected {
            return Err(self.not_your_turn(expected, voter));
        }
        if let Some(t) = target {
            if !c.candidates.contains(t) {
                return Err(self.err(
                    Code::WrongNominee,
                    format!("player {t} is not a candidate in this vote"),
                    format!("игрок {t} не кандидат в этом голосовании"),
                ));
            }
        }
        self.emit(Event::BallotCast { voter, target });
        if self.next_voter(first).is_none() {
            self.resolve_vote();
        }
        Ok(())
    }

    fn next_voter(&self, first: Seat) -> Option<Seat> {
        let c = self.c();
        let mut s = first;
        for _ in 0..10 {
            if c.alive(s) && !c.voted.contains(s) {
                return Some(s);
            }
            s = s.next();
        }
        None
    }

    fn shoot(&mut self, by: Seat, target: Option<Seat>) -> Check {
        self.need_night_action(NightAction::Shooting)?;
        let c = *self.c();
        if !c.alive(by) || c.role(by).team() != Team::Black {
            return Err(self.err(
                Code::NotAShooter,
                format!("player {by} is not a black player in the game"),
                format!("игрок {by} не является чёрным игроком в игре"),
            ));
        }
        if c.picked == Some(by) {
            return Err(self.err(
                Code::CannotAct,
                format!("player {by} was picked by the Beauty and cannot shoot tonight"),
                format!("игрок {by} выбран Красоткой и не стреляет этой ночью"),
            ));
        }
        if c.shot.contains(by) {
            return Err(self.err(
                Code::AlreadyShot,
                format!("player {by} has already shot tonight"),
                format!("игрок {by} уже стрелял этой ночью"),
            ));
        }
        self.emit(Event::ShotFired { by, target });
        if self.shooters().difference(self.c().shot).is_empty() {
            self.resolve_shooting();
        }
        Ok(())
    }

    fn best_move(&mut self, seat: Seat, named: SeatList) -> Check {
        let c = *self.c();
        let ok_step = match c.step {
            Step::BestMove { seat: s, .. } => s == seat,
            Step::LastWords {
                seat: s,
                testament: false,
                ..
            } => s == seat && self.p.best_move.at == BestMoveAt::LastWords && self.entitled(seat),
            _ => false,
        };
        if !ok_step {
            return Err(self.wrong_phase("a best move", "лучший ход"));
        }
        if named.len() > 3 || named.contains(seat) {
            return Err(self.err(
                Code::BadBestMove,
                "a best move names at most three seats other than his own".into(),
                "лучший ход — не более трёх номеров, кроме своего".into(),
            ));
        }
        let hits = named
            .iter()
            .filter(|s| c.role(*s).team() == Team::Black)
            .count() as u8;
        let at_night = c.is_night();
        self.emit(Event::BestMoveMade {
            seat,
            named,
            hits,
            at_night,
        });
        if matches!(c.step, Step::BestMove { .. }) {
            self.start_day();
        }
        Ok(())
    }

    // ---- flow -----------------------------------------------------------

    fn outcome(&self) -> Option<Outcome> {
        let (red, black) = self.c().counts();
        let (winner, reason) = if red == 0 && black == 0 {
            (None, EndReason::AllOut)
        } else if black == 0 {
            (Some(Team::Red), EndReason::AllBlackOut)
        } else if black >= red {
            (Some(Team::Black), EndReason::BlackParity)
        } else {
            return None;
        };
        Some(Outcome { winner, reason })
    }

    fn end(&mut self, outcome: Outcome) {
        self.emit(Event::GameEnded { outcome });
        let roles = self.c().roles;
        self.emit(Event::RolesRevealed { roles });
    }

    fn night0_step(&mut self, index: usize) {
        match self.p.night0.get(index) {
            Some(t) => self.emit(Event::StepStarted {
                step: Step::Night0 {
                    index: index as u8,
                    step: t.step,
                    secs: t.secs,
                },
            }),
            None => self.start_day(),
        }
    }

    /// The quiet streak after the phase that is ending.
    fn streak(&self, ending_night: bool) -> u8 {
        let c = self.c();
        if c.departed || (c.night == 0 && ending_night) {
            0
        } else if c.quiet > 0 || ending_night {
            c.quiet + 1
        } else {
            0
        }
    }

    /// Ends the game as a draw (or club's red win) when a streak says so.
    fn quiet_end(&mut self) -> bool {
        let c = *self.c();
        let d = self.p.draw;
        if d.quiet_phases > 0 && c.quiet >= d.quiet_phases {
            self.end(Outcome {
                winner: None,
                reason: EndReason::NoDepartures,
            });
        } else if d
            .red_wins_at_players
            .is_some_and(|n| c.living().len() <= n as usize)
            && c.nights_without_kill >= d.red_wins_quiet_nights
        {
            self.end(Outcome {
                winner: Some(Team::Red),
                reason: EndReason::NightsWithoutKill,
            });
        } else {
            return false;
        }
        self.emit(Event::StepStarted { step: Step::Ended });
        true
    }

    /// Night removals cancel the next vote unless the player was shot too.
    fn settle_night_removals(&mut self) {
        let c = *self.c();
        let r = self.p.removal;
        if !r.at_night_cancels_next {
            return;
        }
        let mut next = c.cancel_next;
        for seat in c.removed_tonight.iter() {
            if c.kill == Some(seat) && r.removed_then_shot_is_kill {
                continue;
            }
            next = if r.cancellations_accumulate {
                next.saturating_add(1)
            } else {
                next.max(1)
            };
        }
        if next != c.cancel_next {
            self.emit(Event::VotesCancelled {
                today: c.vote_cancelled,
                next_days: next,
            });
        }
    }

    fn start_day(&mut self) {
        self.settle_night_removals();
        let c = *self.c();
        let day = c.day + 1;
        let quiet = self.streak(true);
        let opener = match c.opener {
            None => self.next_living(Seat::from_index(0)),
            Some(prev) => self.next_living(prev.next()),
        };
        let best_move = c
            .best_move
            .filter(|b| c.best_move_night && c.night > 0 && c.first_killed == Some(b.seat))
            .filter(|_| c.night == 1)
            .map(|b| b.named);
        self.emit(Event::DayStarted {
            day,
            opener,
            killed: if c.night > 0 { c.kill } else { None },
            best_move,
            quiet,
        });
        if self.quiet_end() {
            return;
        }
        let c = *self.c();
        if c.cancel_next > 0 {
            self.emit(Event::VotesCancelled {
                today: true,
                next_days: c.cancel_next - 1,
            });
        }
        if c.words_due.is_empty() {
            self.start_speeches();
        } else {
            self.next_words();
        }
    }

    fn next_living(&self, from: Seat) -> Seat {
        let mut s = from;
        for _ in 0..10 {
            if self.c().alive(s) {
                return s;
            }
            s = s.next();
        }
        from
    }

    fn start_speeches(&mut self) {
        let c = *self.c();
        if let Some(ft) = self.p.free_talk {
            if c.day >= ft.from_day && c.living().len() > ft.small_table as usize {
                self.emit(Event::StepStarted {
                    step: Step::FreeTalk { secs: ft.secs },
                });
                return;
            }
        }
        self.next_turn();
    }

    /// The next regular turn of the day, or the end of the speeches.
    fn next_turn(&mut self) {
        loop {
            let c = *self.c();
            let opener = c.opener.unwrap_or(Seat::from_index(0));
            let next = (0..10)
                .scan(opener, |s, _| {
                    let cur = *s;
                    *s = s.next();
                    Some(cur)
                })
                .find(|s| c.alive(*s) && !c.spoken.contains(*s));
            let Some(seat) = next else {
                self.speeches_done();
                return;
            };
            if c.silenced == Some((seat, c.day)) {
                self.emit(Event::TurnSkipped { seat });
                continue;
            }
            let (secs, nominations_only) = self.allowance(seat);
            self.emit(Event::StepStarted {
                step: Step::Speech {
                    seat,
                    secs,
                    tie: false,
                    nominations_only,
                },
            });
            return;
        }
    }

    fn allowance(&self, seat: Seat) -> (u16, bool) {
        let c = self.c();
        let f = self.p.fouls;
        match c.seats[seat.index()].mute {
            Some(m) if m.day == c.day => {
                if let Some(secs) = f.critical_secs {
                    if c.living().len() <= f.critical_players as usize {
                        return (secs, false);
                    }
                }
                match f.third_foul {
                    ThirdFoul::LoseSpeech if m.carried => (f.carried_over_secs, true),
                    ThirdFoul::LoseSpeech => (0, true),
                    ThirdFoul::ShortSpeech => (f.short_speech_secs, false),
                }
            }
            _ => (self.p.speech_secs, false),
        }
    }

    fn speeches_done(&mut self) {
        let c = *self.c();
        if let Some(ft) = self.p.free_talk {
            if c.day >= ft.from_day && !c.free_talk_done {
                self.emit(Event::StepStarted {
                    step: Step::FreeTalk {
                        secs: ft.small_secs,
                    },
                });
                return;
            }
        }
        if c.vote_cancelled {
            return self.skip_vote(NoVote::Cancelled);
        }
        if self.p.vote_call {
            self.emit(Event::StepStarted {
                step: Step::VoteCall,
            });
            return;
        }
        let nominees = c.nominees.filtered(c.living());
        if nominees.is_empty() {
            return self.skip_vote(NoVote::NoNominees);
        }
        if c.day == 1 && nominees.len() == 1 && !self.p.day1_single_nominee_vote {
            return self.skip_vote(NoVote::SingleNomineeDay1);
        }
        self.start_round(nominees, 0);
    }

    fn skip_vote(&mut self, reason: NoVote) {
        self.emit(Event::VoteSkipped { reason });
        self.start_night();
    }

    fn start_round(&mut self, candidates: SeatList, round: u8) {
        if self.p.vote_call {
            self.start_rollcall(candidates, round);
            return;
        }
        if candidates.is_empty() {
            return self.start_night();
        }
        self.emit(Event::Candidates { seats: candidates });
        self.emit(Event::StepStarted {
            step: Step::Voting { round },
        });
        if candidates.len() == 1 {
            self.auto_last_votes();
        }
    }

    fn start_rollcall(&mut self, candidates: SeatList, round: u8) {
        let first = self.next_living(self.c().rollcall_start);
        self.emit(Event::Candidates { seats: candidates });
        self.emit(Event::StepStarted {
            step: Step::RollCall { round, first },
        });
    }

    fn resolve_vote(&mut self) {
        let c = *self.c();
        let cands = c.candidates.filtered(c.living());
        let max = cands.iter().map(|s| c.tally[s.index()]).max().unwrap_or(0);
        if max == 0 {
            // Only a roll call where everyone abstained.
            self.emit(Event::VoteSkipped {
                reason: NoVote::NotWanted,
            });
            return self.start_night();
        }
        let top: SeatList = cands.iter().filter(|s| c.tally[s.index()] == max).collect();
        if top.len() == 1 {
            self.leave(top, Cause::Vote);
        } else if c.round > 0 && top.to_set() == cands.to_set() {
            self.lift_question(top);
        } else {
            self.emit(Event::Tie { seats: top });
            self.next_tie_turn();
        }
    }

    fn next_tie_turn(&mut self) {
        let c = *self.c();
        let next = c
            .candidates
            .iter()
            .find(|s| c.alive(*s) && !c.tie_spoken.contains(*s));
        let Some(seat) = next else {
            let cands = c.candidates.filtered(c.living());
            if c.vote_cancelled {
                return self.skip_vote(NoVote::Cancelled);
            }
            return self.start_round(cands, c.round + 1);
        };
        // The Beauty's pick stays silent, and so may a muted player.
        let muted = c.seats[seat.index()].mute.is_some_and(|m| m.day == c.day)
            && !self.p.fouls.tie_speech_when_muted;
        let silent = c.silenced == Some((seat, c.day)) || muted;
        self.emit(Event::StepStarted {
            step: Step::Speech {
                seat,
                secs: if silent { 0 } else { self.p.tie_speech_secs },
                tie: true,
                nominations_only: false,
            },
        });
    }

    fn lift_denial(&self, tied: SeatList) -> Option<LiftDenial> {
        let c = self.c();
        let l = &self.p.lift;
        let living = c.living().len();
        let n = tied.len();
        if !l.enabled {
            Some(LiftDenial::Disabled)
        } else if l.no_lift_at.is_some_and(|k| living <= k as usize) {
            Some(LiftDenial::TooFewPlayers)
        } else if n == living && !l.all_players_draw {
            Some(LiftDenial::AllPlayers)
        } else if l.at_most_half && n * 2 > living {
            Some(LiftDenial::MoreThanHalf)
        } else if c.day == 1 && l.day1_max.is_some_and(|m| n > m as usize) {
            Some(LiftDenial::Day1Limit)
        } else if l.bans.iter().any(|b| {
            b.tied as usize == n
                && b.living as usize == living
                && b.before_day.is_none_or(|d| c.day < d)
        }) {
            Some(LiftDenial::Banned)
        } else {
            None
        }
    }

    fn lift_question(&mut self, tied: SeatList) {
        match self.lift_denial(tied) {
            Some(reason) => {
                self.emit(Event::LiftDenied {
                    seats: tied,
                    reason,
                });
                self.start_night();
            }
            None => self.emit(Event::StepStarted { step: Step::Lift }),
        }
    }

    /// Players leave by vote or lift: the result is fixed now, last words follow.
    fn leave(&mut self, seats: SeatList, cause: Cause) {
        for seat in seats.iter() {
            self.emit(Event::Left { seat, cause });
        }
        if let Some(outcome) = self.outcome() {
            self.end(outcome);
        }
        self.next_words();
    }

    fn words_secs(&self, seat: Seat) -> u16 {
        match self.c().seats[seat.index()].out {
            Some(d) if d.cause == Cause::Lift => self.p.several_out_last_words_secs,
            _ => self.p.last_words_secs,
        }
    }

    fn next_words(&mut self) {
        let c = *self.c();
        if let Some(seat) = c.words_due.get(0) {
            let secs = self.words_secs(seat);
            self.emit(Event::StepStarted {
                step: Step::LastWords {
                    seat,
                    secs,
                    testament: false,
                },
            });
            return;
        }
        let after = if c.result.is_some() {
            After::End
        } else if c.vote_done {
            After::Night
        } else {
            After::Speeches
        };
        match after {
            After::End => self.emit(Event::StepStarted { step: Step::Ended }),
            After::Night => self.start_night(),
            After::Speeches => self.start_speeches(),
        }
    }

    fn start_night(&mut self) {
        let c = *self.c();
        let quiet = self.streak(false);
        self.emit(Event::NightStarted {
            night: c.day,
            quiet,
        });
        if self.quiet_end() {
            return;
        }
        self.next_night_action(None);
    }

    /// The living black players who shoot tonight.
    fn shooters(&self) -> SeatSet {
        let c = self.c();
        Seat::all()
            .filter(|s| c.alive(*s) && c.role(*s).team() == Team::Black && c.picked != Some(*s))
            .collect()
    }

    /// Who performs a night action tonight, if anyone can.
    fn actor(&self, action: NightAction) -> Option<Seat> {
        let c = self.c();
        let role = match action {
            NightAction::BeautyPick => Role::Beauty,
            NightAction::DonCheck => Role::Don,
            NightAction::SheriffCheck => Role::Sheriff,
            NightAction::Shooting => return self.shooters().first(),
        };
        let seat = c.seat_of(role)?;
        let killed_tonight = c.kill == Some(seat)
            && c.seats[seat.index()]
                .out
                .is_some_and(|d| d.cause == Cause::Shot)
            && self.p.killed_player_checks;
        ((c.alive(seat) || killed_tonight) && c.picked != Some(seat)).then_some(seat)
    }

    fn next_night_action(&mut self, after: Option<NightAction>) {
        let order = &self.p.night_order;
        let start = match after {
            None => 0,
            Some(a) => order
                .iter()
                .position(|x| *x == a)
                .map_or(order.len(), |i| i + 1),
        };
        for &action in &order[start..] {
            if self.actor(action).is_none() {
                if action == NightAction::Shooting {
                    // Nobody can shoot (the Beauty picked the last black): a miss.
                    self.emit(Event::NightResult { killed: None });
                }
                continue;
            }
            let secs = match action {
                NightAction::BeautyPick => self.p.beauty_pick_secs,
                NightAction::Shooting => 0,
                NightAction::DonCheck => self.p.don_check_secs,
                NightAction::SheriffCheck => self.p.sheriff_check_secs,
            };
            self.emit(Event::StepStarted {
                step: Step::Night { action, secs },
            });
            return;
        }
        self.night_done();
    }

    fn resolve_shooting(&mut self) {
        let c = *self.c();
        let mut target = None;
        let mut agreed = true;
        for s in self.shooters().iter() {
            match (c.shot_target[s.index()], target) {
                (None, _) => agreed = false,
                (Some(t), None) => target = Some(t),
                (Some(t), Some(u)) if t != u => agreed = false,
                _ => {}
            }
        }
        let removed_and_shot =
            |t: &Seat| self.p.removal.removed_then_shot_is_kill && c.removed_tonight.contains(*t);
        let killed = target
            .filter(|t| agreed && (c.alive(*t) || removed_and_shot(t)) && c.picked != Some(*t));
        self.emit(Event::NightResult { killed });
        if let Some(t) = killed.filter(|t| c.alive(*t)) {
            self.emit(Event::Left {
                seat: t,
                cause: Cause::Shot,
            });
            if let Some(outcome) = self.outcome() {
                self.end(outcome);
                self.next_words();
                return;
            }
        }
        self.next_night_action(Some(NightAction::Shooting));
    }

    fn entitled(&self, seat: Seat) -> bool {
        let c = self.c();
        let bm = self.p.best_move;
        let denied = match bm.denial {
            BestMoveDenial::Never => false,
            BestMoveDenial::Day1Votes => c.day1_vote_outs >= bm.denied_at,
            BestMoveDenial::VotesAndRemovalsBeforeKill => c.early_outs >= bm.denied_at,
        };
        bm.at != BestMoveAt::Never
            && c.first_killed == Some(seat)
            && c.best_move.is_none()
            && !denied
    }

    fn night_done(&mut self) {
        let c = *self.c();
        if let Some(k) = c.kill {
            if c.night == 1 && self.p.best_move.at == BestMoveAt::Night && self.entitled(k) {
                self.emit(Event::StepStarted {
                    step: Step::BestMove {
                        seat: k,
                        secs: self.p.best_move.secs,
                    },
                });
                return;
            }
        }
        self.start_day();
    }
}

/// A short English description of a step, for messages.
pub fn describe_step(step: &Step) -> String {
    match *step {
        Step::Night0 { step, .. } => format!("night 0, {step:?}"),
        Step::Speech {
            seat, tie: true, ..
        } => format!("tie speech of player {seat}"),
        Step::Speech { seat, .. } => format!("speech of player {seat}"),
        Step::FreeTalk { .. } => "free talk".into(),
        Step::VoteCall => "asking whether to vote".into(),
        Step::Voting { .. } => "voting".into(),
        Step::RollCall { .. } => "roll-call voting".into(),
        Step::Lift => "the lift vote".into(),
        Step::LastWords { seat, .. } => format!("last words of player {seat}"),
        Step::Night { action, .. } => format!("night, {action:?}"),
        Step::BestMove { seat, .. } => format!("best move of player {seat}"),
        Step::Ended => "the game is over".into(),
    }
}
