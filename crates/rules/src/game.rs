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
use crate::violation::{Code, Topic, Violation};
use std::sync::Arc;

mod discipline;
mod night;
mod phases;
mod speech;
mod voting;

pub(crate) use speech::{nomination_open, withdrawable};

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
    /// When the night under way began (nights after night 0 only).
    night_started_at: Option<i64>,
    /// How far the public's clock is behind the judge's: each night lasts
    /// its public length for the public ([`public_night_length`]), so each
    /// morning puts the public further behind by the time the night was
    /// shorter than that.
    public_offset: i64,
    cmds: u32,
    /// A drawn deal's secret was revealed (`Event::DealRevealed`).
    deal_revealed: bool,
}

/// Why a drawn deal's secret cannot be revealed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevealError {
    #[error("the deal is revealed when the game ends, not before")]
    NotOver,
    #[error("the deal is already revealed")]
    Again,
    #[error("{0}")]
    Setup(#[from] crate::setup::SetupError),
    #[error("the secret does not deal the cards this game was dealt")]
    OtherCards,
}

/// How long a night that took `took` ms lasts for the public:
/// `public_night_secs`, or the next whole multiple of it when the night ran
/// over. It depends on the hidden commands (how many, how long) only
/// through that quantum.
pub fn public_night_length(took: i64, public_night_secs: u16) -> i64 {
    let quantum = i64::from(public_night_secs.max(1)) * 1000;
    let quanta = (took.max(1) - 1) / quantum + 1;
    quanta.saturating_mul(quantum)
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
    /// The game before its first event.
    fn before_deal(setup: Setup) -> Game {
        let roles = setup.roles();
        Game {
            setup: Arc::new(setup),
            core: Core::new(roles),
            checkpoint: None,
            phase_events: Vec::new(),
            phase_cmd: 0,
            seq: 0,
            public_seq: 0,
            night_started_at: None,
            public_offset: 0,
            cmds: 0,
            deal_revealed: false,
        }
    }

    /// Deals the cards and opens night 0. Returns the game and its first events.
    /// A sealed deal (`Deal::is_sealed`) is dealt with [`Game::deal`].
    pub fn new(setup: Setup, at: i64) -> (Game, Vec<Envelope>) {
        let roles = setup.roles();
        Game::deal(setup, roles, at)
    }

    /// [`Game::new`] with these cards: a drawn deal's, which its sealed
    /// setup cannot give (`Setup::roles_drawn_with`).
    pub fn deal(setup: Setup, roles: crate::setup::Roles, at: i64) -> (Game, Vec<Envelope>) {
        let mut game = Game::before_deal(setup);
        game.core.roles = roles;
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
        let mut game = Game::before_deal(setup);
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
        if let Event::DealRevealed { .. } = env.event {
            // After the end: nothing of the game changes.
            self.deal_revealed = true;
            return;
        }
        match env.event {
            Event::NightStarted { night, .. } if night > 0 => self.night_started_at = Some(env.at),
            // The night ends for the public with its morning, or with the
            // game if a shot decided it.
            Event::DayStarted { .. } | Event::GameEnded { .. } => {
                if let Some(start) = self.night_started_at.take() {
                    let took = env.at.saturating_sub(start).max(0);
                    let public = public_night_length(took, params.public_night_secs);
                    self.public_offset = self.public_offset.saturating_add(public - took);
                }
            }
            _ => {}
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

    /// Reveals a drawn deal's secret once the game is over: the event that
    /// lets anyone check the deal, numbered as the command that ended the
    /// game. Refused (and nothing emitted) before the end, for a deal not
    /// drawn, a secret that is not the commitment's, or cards it does not
    /// deal.
    pub fn reveal_deal(
        &mut self,
        sealed: &crate::drawn::Sealed,
        at: i64,
    ) -> Result<Envelope, RevealError> {
        if !self.is_over() {
            return Err(RevealError::NotOver);
        }
        if self.deal_revealed {
            return Err(RevealError::Again);
        }
        let roles = self.setup.roles_drawn_with(sealed)?;
        if roles != self.core.roles {
            return Err(RevealError::OtherCards);
        }
        let env = Envelope {
            seq: self.seq + 1,
            cmd: self.cmds,
            at,
            event: Event::DealRevealed(*sealed),
        };
        let setup = self.setup.clone();
        self.fold_unchecked(&env, &setup.rules.params);
        Ok(env)
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
    /// Whether `seat`'s fouls (or ua's technical fouls) reached the count
    /// that removes a player: at the table, or in his own last words, which
    /// ends them and leaves his departure a vote or a shot.
    pub fn fouled_out(&self, seat: Seat) -> bool {
        let st = &self.core.seats[seat.index()];
        let f = &self.setup.rules.params.fouls;
        // A count of 0 removes at the first foul, as the engine does.
        st.fouls >= f.remove_at.max(1)
            || f.technical_remove_at
                .is_some_and(|n| st.technical_fouls >= n)
    }

    /// The game has ended and nothing more is expected (final last words done).
    pub fn is_over(&self) -> bool {
        self.core.result.is_some() && self.core.step == Step::Ended
    }

    /// When the public sees something that happened at `at`: behind the
    /// judge's clock by what the nights so far were shorter than their
    /// public length, so each night lasts that length for the public and
    /// the day after it keeps its own pace.
    pub fn public_at(&self, at: i64) -> i64 {
        at.saturating_add(self.public_offset)
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

    /// A command out of its step, citing the clause of the step it belongs to.
    fn wrong_phase(&self, topic: Topic, what: &str, what_ru: &str) -> Violation {
        Violation::on(
            Code::WrongPhase,
            topic,
            self.rules,
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
        if c.step == Step::BeforeDeal {
            return Err(self.wrong_phase(Topic::General, "a command", "команда"));
        }
        if c.result.is_some() {
            // The result is fixed, but discipline holds until the final last
            // words end (classic §6.9, rfm §5.15, ua §1.9).
            let final_words = matches!(c.step, Step::LastWords { .. });
            let discipline = matches!(
                cmd,
                Command::Foul { .. }
                    | Command::TechnicalFoul { .. }
                    | Command::Penalty { .. }
                    | Command::YellowCard { .. }
                    | Command::Disqualify { .. }
            );
            let allowed = final_words
                && (discipline
                    || matches!(cmd, Command::EndLastWords { .. } | Command::BestMove { .. }));
            if !allowed {
                return Err(game_over(self.rules));
            }
            if matches!(cmd, Command::Foul { .. }) && !self.p.fouls.after_result {
                return Err(self.err(
                    Code::NoFoulAfterResult,
                    "no fouls after the deciding kill or vote".into(),
                    "после решающего убийства или голосования фолы не даются".into(),
                ));
            }
        }
        match *cmd {
            Command::NextStep => self.next_step(),
            Command::StartSpeech { seat } => self.start_speech(seat),
            Command::EndSpeech { seat, timeout } => self.end_speech(seat, timeout),
            Command::Nominate { by, target } => self.nominate(by, target),
            Command::Withdraw { by } => self.withdraw(by),
            Command::Foul { seat } => self.foul(seat),
            Command::TechnicalFoul { seat } => self.technical_foul(seat),
            Command::Penalty { seat, kind } => self.penalty(seat, kind),
            Command::YellowCard { seat } => self.yellow_card(seat),
            Command::Disqualify { seat } => self.disqualify(seat),
            Command::OppositeTeamVictory { seat } => self.opposite_team_victory(seat),
            Command::VoteCall { yes } => self.vote_call(yes),
            Command::Vote { nominee, hands } => self.vote(nominee, hands),
            Command::Ballot { voter, target } => self.ballot(voter, target),
            Command::Lift { hands } => self.lift(hands),
            Command::EndLastWords { seat } => self.end_last_words(seat),
            Command::StartShooting => self.start_shooting(),
            Command::Shot { by, target } => self.shoot(by, target),
            Command::DonCheck { target } => self.don_check(target),
            Command::SheriffCheck { target } => self.sheriff_check(target),
            Command::BeautyPick { target } => self.beauty_pick(target),
            Command::BestMove { seat, named } => self.best_move(seat, named),
            Command::Undo => unreachable!("Game::apply handles undo"),
        }
    }

    fn not_in_rules(&self, topic: Topic, what: &str, what_ru: &str) -> Violation {
        Violation::on(
            Code::NotInRuleSet,
            topic,
            self.rules,
            format!("the {} rule set has no {what}", self.rules),
            format!("в правилах {} нет {what_ru}", self.rules),
        )
    }

    fn not_your_turn(&self, expected: Seat, got: Seat) -> Violation {
        self.not_your_turn_on(Topic::General, expected, got)
    }

    /// Out of turn in a nomination, last words or a roll call: the clause
    /// of that step, not the speaking order.
    fn not_your_turn_on(&self, topic: Topic, expected: Seat, got: Seat) -> Violation {
        Violation::on(
            Code::NotYourTurn,
            topic,
            self.rules,
            format!("it is player {expected}'s turn, not player {got}'s"),
            format!("сейчас очередь игрока {expected}, а не игрока {got}"),
        )
    }

    /// Checks that `seat` holds the floor; returns whether it is a tie speech.
    fn need_speaker(&self, seat: Seat) -> Result<bool, Violation> {
        match self.c().step {
            Step::Speech { seat: s, tie, .. } if s == seat => Ok(tie),
            Step::Speech { seat: s, .. } => Err(self.not_your_turn(s, seat)),
            _ => Err(self.wrong_phase(Topic::Speech, "a speech", "речь")),
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
            _ => {
                let (topic, what) = match action {
                    NightAction::BeautyPick => (Topic::BeautyPick, "the Beauty's pick"),
                    NightAction::Shooting => (Topic::Shooting, "shooting"),
                    NightAction::DonCheck => (Topic::DonCheck, "the Don's check"),
                    NightAction::SheriffCheck => (Topic::SheriffCheck, "the Sheriff's check"),
                };
                Err(self.wrong_phase(topic, what, "это ночное действие"))
            }
        }
    }

    // ---- flow -----------------------------------------------------------
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
        Step::BeforeDeal => "before the deal".into(),
        Step::Ended => "the game is over".into(),
    }
}
