//! The tournament's state, the commands that produce its events and the
//! fold that applies them. `apply` is the only writer of the state, so a
//! tournament built command by command equals the fold of its log.

use crate::appeal::{Appeal, AppealDecision, Correction, Decided};
use crate::audit::{AuditAction, AuditEntry};
use crate::command::{Dates, TournamentCommand, TournamentSpec};
use crate::error::TournamentError;
use crate::event::TournamentEvent;
use crate::facts::GameFacts;
use crate::inputs::{self, ApprovalItem, JudgeInputs};
use crate::ledger::{GameLine, GameScoring, Ledger};
use crate::model::{
    Actor, Judge, JudgeId, PairKind, PairRule, Place, Player, PlayerId, SeatedTable, Stage,
};
use crate::scheme::Scheme;
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{RuleSetId, Seat, Team, SEATS};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    pub player: Player,
    pub registered_at: i64,
    pub withdrawn_at: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub tables: BTreeMap<u32, SeatedTable>,
    pub seated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub facts: GameFacts,
    pub ended_at: i64,
    pub recorded_at: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputsEntry {
    pub inputs: JudgeInputs,
    pub pending: BTreeSet<ApprovalItem>,
    pub approved: Vec<(ApprovalItem, i64)>,
    /// Items the chief judge refused: the extras wait for a new input.
    pub refused: Vec<ApprovalItem>,
    pub by: Actor,
    pub at: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEntry {
    pub id: GameId,
    pub judge: Option<JudgeId>,
    pub assigned_at: i64,
    pub result: Option<Recorded>,
    pub inputs: Option<InputsEntry>,
    /// An appeal's changed result.
    pub winner_override: Option<Option<Team>>,
    pub corrections: Vec<Correction>,
    pub annulled: bool,
    /// The chief judge's confirmation of the result (rfm §7.4), cleared by
    /// an appeal decision that changes the game.
    pub confirmed: Option<i64>,
}

impl GameEntry {
    /// Finished and counting, its result not yet confirmed.
    pub fn awaits_confirmation(&self) -> bool {
        self.result.is_some() && !self.annulled && self.confirmed.is_none()
    }

    pub fn winner(&self) -> Option<Option<Team>> {
        let r = self.result.as_ref()?;
        Some(self.winner_override.unwrap_or(r.facts.winner))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lot {
    pub players: Vec<PlayerId>,
    pub at: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub id: TournamentId,
    pub name: String,
    pub rules: RuleSetId,
    pub rule_overrides: serde_json::Value,
    pub scheme: Scheme,
    pub created_at: i64,
    pub dates: Dates,
    /// When archived (kept, out of the default list).
    pub archived: Option<i64>,
    /// When removed: the tournament leaves every read.
    pub removed: Option<i64>,
    /// Every ruling and change to the tournament itself (`audit.rs`).
    pub audit: Vec<AuditEntry>,
    pub players: BTreeMap<PlayerId, Registered>,
    pub judges: BTreeMap<JudgeId, Judge>,
    /// In the order they were added.
    pub stages: Vec<Stage>,
    pub rounds: BTreeMap<(StageId, u32), Round>,
    pub games: BTreeMap<GameId, GameEntry>,
    pub appeals: BTreeMap<u32, Appeal>,
    pub lots: Vec<Lot>,
    /// Pairs kept apart when seated, for every round.
    pub pair_rules: Vec<PairRule>,
    pub published: Vec<(i64, u32)>,
    pub ledger: Ledger,
    /// Events applied, creation included.
    pub version: u64,
}

fn deny(actor: &Actor, action: &'static str, who: &'static str) -> TournamentError {
    TournamentError::NotPermitted {
        actor: actor.to_string(),
        action,
        who,
    }
}

const ORGANISER: &str = "the organiser";
const ORGANISER_OR_CHIEF: &str = "the organiser or the chief judge";
const CHIEF: &str = "the chief judge";
const REFEREE_LOG: &str =
    "the referee's log (a result is taken from the game's events; the chief judge changes it by deciding an appeal)";

impl Tournament {
    /// The creation event of a new tournament; only the organiser creates.
    pub fn create(
        spec: TournamentSpec,
        actor: &Actor,
        now_ms: i64,
    ) -> Result<TournamentEvent, TournamentError> {
        Self::create_dated(spec, Dates::default(), actor, now_ms)
    }

    /// The creation event of a new tournament with its dates.
    pub fn create_dated(
        spec: TournamentSpec,
        dates: Dates,
        actor: &Actor,
        now_ms: i64,
    ) -> Result<TournamentEvent, TournamentError> {
        if *actor != Actor::Organiser {
            return Err(deny(actor, "create a tournament", ORGANISER));
        }
        if spec.name.trim().is_empty() {
            return Err(TournamentError::EmptyName);
        }
        spec.scheme
            .validate()
            .map_err(|e| TournamentError::BadScheme(e.to_string()))?;
        crate::dates::check(&dates)?;
        Ok(TournamentEvent::Created {
            id: spec.id,
            name: spec.name,
            rules: spec.rules,
            rule_overrides: spec.rule_overrides,
            scheme: Box::new(spec.scheme),
            starts_on: dates.starts_on,
            ends_on: dates.ends_on,
            at: now_ms,
        })
    }

    /// A tournament from its creation event.
    pub fn from_created(event: &TournamentEvent) -> Result<Tournament, TournamentError> {
        let TournamentEvent::Created {
            id,
            name,
            rules,
            rule_overrides,
            scheme,
            starts_on,
            ends_on,
            at,
        } = event
        else {
            return Err(TournamentError::NotCreatedFirst);
        };
        Ok(Tournament {
            id: id.clone(),
            name: name.clone(),
            rules: *rules,
            rule_overrides: rule_overrides.clone(),
            scheme: (**scheme).clone(),
            created_at: *at,
            dates: Dates {
                starts_on: starts_on.clone(),
                ends_on: ends_on.clone(),
            },
            archived: None,
            removed: None,
            audit: Vec::new(),
            players: BTreeMap::new(),
            judges: BTreeMap::new(),
            stages: Vec::new(),
            rounds: BTreeMap::new(),
            games: BTreeMap::new(),
            appeals: BTreeMap::new(),
            lots: Vec::new(),
            pair_rules: Vec::new(),
            published: Vec::new(),
            ledger: Ledger::default(),
            version: 1,
        })
    }

    /// Rebuilds a tournament from its log.
    pub fn fold<'a>(
        events: impl IntoIterator<Item = &'a TournamentEvent>,
    ) -> Result<Tournament, TournamentError> {
        let mut it = events.into_iter();
        let first = it.next().ok_or(TournamentError::NotCreatedFirst)?;
        let mut t = Tournament::from_created(first)?;
        for e in it {
            if matches!(e, TournamentEvent::Created { .. }) {
                return Err(TournamentError::AlreadyCreated);
            }
            t.apply(e);
        }
        Ok(t)
    }

    pub fn stage(&self, id: &StageId) -> Option<&Stage> {
        self.stages.iter().find(|s| &s.id == id)
    }

    pub fn round(&self, stage: &StageId, round: u32) -> Option<&Round> {
        self.rounds.get(&(stage.clone(), round))
    }

    /// The seated table of a game.
    pub fn table_of(&self, game: &GameId) -> Option<&SeatedTable> {
        self.round(&game.stage, game.round)?.tables.get(&game.table)
    }

    fn game(&self, id: &GameId) -> Result<&GameEntry, TournamentError> {
        self.games
            .get(id)
            .ok_or_else(|| TournamentError::UnknownGame(id.clone()))
    }

    fn finished(&self, id: &GameId) -> Result<(&GameEntry, &Recorded), TournamentError> {
        let g = self.game(id)?;
        let r = g
            .result
            .as_ref()
            .ok_or_else(|| TournamentError::GameNotFinished(id.clone()))?;
        if g.annulled {
            return Err(TournamentError::GameAnnulled(id.clone()));
        }
        Ok((g, r))
    }

    /// The chief judge, or the table judge bound to the game.
    fn judge_of(
        &self,
        actor: &Actor,
        game: &GameEntry,
        action: &'static str,
    ) -> Result<(), TournamentError> {
        match actor {
            Actor::ChiefJudge => Ok(()),
            Actor::TableJudge(j) if game.judge.as_ref() == Some(j) => Ok(()),
            Actor::TableJudge(j) => Err(TournamentError::JudgeNotBound {
                judge: j.clone(),
                game: game.id.clone(),
            }),
            Actor::Organiser | Actor::RefereeLog => Err(deny(
                actor,
                action,
                "the chief judge or the game's table judge",
            )),
        }
    }

    fn active_player(&self, p: &PlayerId) -> Result<(), TournamentError> {
        match self.players.get(p) {
            None => Err(TournamentError::UnknownPlayer(p.clone())),
            Some(r) if r.withdrawn_at.is_some() => Err(TournamentError::PlayerWithdrawn(p.clone())),
            Some(_) => Ok(()),
        }
    }

    /// Validates a command and returns the events it produces (none when it
    /// changes nothing, e.g. a result recorded again).
    pub fn command(
        &self,
        cmd: &TournamentCommand,
        actor: &Actor,
        now_ms: i64,
    ) -> Result<Vec<TournamentEvent>, TournamentError> {
        let at = now_ms;
        use TournamentCommand as C;
        use TournamentEvent as E;
        if self.removed.is_some() {
            return Err(TournamentError::Removed);
        }
        let ev = match cmd {
            C::AddJudge { judge } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "add a judge", ORGANISER));
                }
                if self.judges.contains_key(&judge.id) {
                    return Err(TournamentError::JudgeAlreadyRegistered(judge.id.clone()));
                }
                E::JudgeAdded {
                    judge: judge.clone(),
                    at,
                }
            }
            C::AddStage { stage } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "add a stage", ORGANISER));
                }
                if self.stage(&stage.id).is_some() {
                    return Err(TournamentError::StageAlreadyExists(stage.id.clone()));
                }
                if stage.rounds == 0 || stage.tables == 0 {
                    return Err(TournamentError::EmptyStage);
                }
                E::StageAdded {
                    stage: stage.clone(),
                    at,
                }
            }
            C::RegisterPlayer { player } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "register a player", ORGANISER));
                }
                if player.id.as_str().trim().is_empty() || player.nickname.trim().is_empty() {
                    return Err(TournamentError::EmptyPlayer);
                }
                if self.players.contains_key(&player.id) {
                    return Err(TournamentError::PlayerAlreadyRegistered(player.id.clone()));
                }
                E::PlayerRegistered {
                    player: player.clone(),
                    at,
                }
            }
            C::UpdatePlayer { player } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "edit a player", ORGANISER));
                }
                if !self.players.contains_key(&player.id) {
                    return Err(TournamentError::UnknownPlayer(player.id.clone()));
                }
                if player.nickname.trim().is_empty() {
                    return Err(TournamentError::EmptyPlayer);
                }
                E::PlayerUpdated {
                    player: player.clone(),
                    at,
                }
            }
            C::WithdrawPlayer { player } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "withdraw a player", ORGANISER));
                }
                self.active_player(player)?;
                E::PlayerWithdrawn {
                    player: player.clone(),
                    at,
                }
            }
            C::SeatRound {
                stage,
                round,
                tables,
            } => {
                if !matches!(actor, Actor::Organiser | Actor::ChiefJudge) {
                    return Err(deny(actor, "seat a round", ORGANISER_OR_CHIEF));
                }
                self.check_seating(stage, *round, tables)?;
                E::RoundSeated {
                    stage: stage.clone(),
                    round: *round,
                    tables: tables.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::SwapSeats { stage, round, a, b } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "swap seats", CHIEF));
                }
                let r =
                    self.round(stage, *round)
                        .ok_or_else(|| TournamentError::RoundNotSeated {
                            stage: stage.clone(),
                            round: *round,
                        })?;
                if a == b {
                    return Err(TournamentError::SwapSamePlace);
                }
                for p in [a, b] {
                    if !r.tables.contains_key(&p.table) {
                        return Err(TournamentError::TableNotSeated {
                            stage: stage.clone(),
                            round: *round,
                            table: p.table,
                        });
                    }
                    // A game is assigned as it is opened on the referee, whose
                    // header then holds this seating: a swap now would make
                    // the game's result disagree with its table.
                    let assigned = self.games.values().find(|g| {
                        &g.id.stage == stage && g.id.round == *round && g.id.table == p.table
                    });
                    if let Some(g) = assigned {
                        return Err(TournamentError::SwapAfterAssigned {
                            table: p.table,
                            game: g.id.clone(),
                        });
                    }
                }
                self.check_swap_keeps_pairs_apart(r, a, b)?;
                E::SeatsSwapped {
                    stage: stage.clone(),
                    round: *round,
                    a: *a,
                    b: *b,
                    by: actor.clone(),
                    at,
                }
            }
            C::AssignGame { game, judge } => {
                if !matches!(actor, Actor::Organiser | Actor::ChiefJudge) {
                    return Err(deny(actor, "assign a game", ORGANISER_OR_CHIEF));
                }
                if game.tournament != self.id {
                    return Err(TournamentError::OtherTournament(game.clone()));
                }
                if self.games.contains_key(game) {
                    return Err(TournamentError::GameAlreadyAssigned(game.clone()));
                }
                if game.game > 1 {
                    let previous = GameId {
                        game: game.game - 1,
                        ..game.clone()
                    };
                    if !self.games.get(&previous).is_some_and(|g| g.annulled) {
                        return Err(TournamentError::NoReplayDue {
                            game: game.clone(),
                            previous: previous.game,
                        });
                    }
                }
                if self.stage(&game.stage).is_none() {
                    return Err(TournamentError::UnknownStage(game.stage.clone()));
                }
                let r = self.round(&game.stage, game.round).ok_or_else(|| {
                    TournamentError::RoundNotSeated {
                        stage: game.stage.clone(),
                        round: game.round,
                    }
                })?;
                let table =
                    r.tables
                        .get(&game.table)
                        .ok_or_else(|| TournamentError::TableNotSeated {
                            stage: game.stage.clone(),
                            round: game.round,
                            table: game.table,
                        })?;
                let judge = judge.clone().or_else(|| table.judge.clone());
                if let Some(j) = &judge {
                    if !self.judges.contains_key(j) {
                        return Err(TournamentError::UnknownJudge(j.clone()));
                    }
                }
                E::GameAssigned {
                    game: game.clone(),
                    judge,
                    at,
                }
            }
            C::RecordResult {
                game,
                facts,
                ended_at,
            } => {
                // A result is what the game's events say, read from the
                // referee's log; a person changes it only by the chief
                // judge's appeal decision (`result_changed`), recorded as
                // such.
                if *actor != Actor::RefereeLog {
                    return Err(deny(actor, "record a result", REFEREE_LOG));
                }
                let g = self.game(game)?;
                self.check_facts(game, facts)?;
                if let Some(r) = &g.result {
                    if &r.facts == facts && r.ended_at == *ended_at {
                        return Ok(vec![]);
                    }
                    return Err(TournamentError::ResultAlreadyRecorded(game.clone()));
                }
                E::GameResultRecorded {
                    game: game.clone(),
                    facts: facts.clone(),
                    ended_at: *ended_at,
                    at,
                }
            }
            C::SubmitJudgeInputs { game, inputs } => {
                let g = self.game(game)?;
                self.judge_of(actor, g, "give judge's inputs")?;
                let (g, r) = self.finished(game)?;
                let winner = g.winner().flatten();
                let pending = inputs::validate(&self.scheme, &r.facts, winner, inputs)?;
                // The chief judge's own input is approved by his giving it.
                let pending = if actor.is_chief() {
                    vec![]
                } else {
                    pending.into_iter().collect()
                };
                E::JudgeInputsRecorded {
                    game: game.clone(),
                    inputs: inputs.clone(),
                    pending,
                    by: actor.clone(),
                    at,
                }
            }
            C::Approve { game, item } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "approve", CHIEF));
                }
                let (g, _) = self.finished(game)?;
                let waiting = g.inputs.as_ref().is_some_and(|i| i.pending.contains(item));
                if !waiting {
                    return Err(TournamentError::NothingToApprove { game: game.clone() });
                }
                E::ApprovalGiven {
                    game: game.clone(),
                    item: item.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::Refuse { game, item, reason } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "refuse an item", CHIEF));
                }
                let (g, _) = self.finished(game)?;
                let waiting = g.inputs.as_ref().is_some_and(|i| i.pending.contains(item));
                if !waiting {
                    return Err(TournamentError::NothingToRefuse { game: game.clone() });
                }
                if reason.trim().is_empty() {
                    return Err(TournamentError::EmptyReason);
                }
                E::ApprovalRefused {
                    game: game.clone(),
                    item: item.clone(),
                    reason: reason.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::ConfirmResult { game } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "confirm a result", CHIEF));
                }
                let (g, _) = self.finished(game)?;
                if g.confirmed.is_some() {
                    return Err(TournamentError::AlreadyConfirmed(game.clone()));
                }
                self.check_nothing_waits(g)?;
                E::ResultConfirmed {
                    game: game.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::FileAppeal {
                game,
                player,
                event_seq,
                text,
            } => {
                if *actor == Actor::RefereeLog {
                    return Err(deny(actor, "file an appeal", "a person"));
                }
                let (_, r) = self.finished(game)?;
                let window = self.scheme.appeal_window_ms();
                let chief_review = actor.is_chief() && self.scheme.chief_review_clause.is_some();
                if now_ms > r.ended_at + window && !chief_review {
                    return Err(TournamentError::AppealTooLate {
                        game: game.clone(),
                        minutes: self.scheme.appeal_window_minutes,
                        late_by_s: (now_ms - r.ended_at - window + 999) / 1000,
                        clause: self.scheme.appeal_clause.clone(),
                    });
                }
                if let Some(p) = player {
                    if !r.facts.seats.iter().any(|s| &s.player == p) {
                        return Err(TournamentError::PlayerNotInGame {
                            player: p.clone(),
                            game: game.clone(),
                        });
                    }
                }
                E::AppealFiled {
                    appeal: self.appeals.len() as u32 + 1,
                    game: game.clone(),
                    player: player.clone(),
                    event_seq: *event_seq,
                    text: text.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::DecideAppeal {
                appeal,
                decision,
                reason,
            } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "decide an appeal", CHIEF));
                }
                let a = self
                    .appeals
                    .get(appeal)
                    .ok_or(TournamentError::UnknownAppeal(*appeal))?;
                if a.decided.is_some() {
                    return Err(TournamentError::AppealAlreadyDecided(*appeal));
                }
                if reason.trim().is_empty() {
                    return Err(TournamentError::EmptyReason);
                }
                let (_, r) = self.finished(&a.game)?;
                if let AppealDecision::PointsCorrected { corrections } = decision {
                    for c in corrections {
                        if !r.facts.seats.iter().any(|s| s.player == c.player) {
                            return Err(TournamentError::PlayerNotInGame {
                                player: c.player.clone(),
                                game: a.game.clone(),
                            });
                        }
                    }
                }
                E::AppealDecided {
                    appeal: *appeal,
                    decision: decision.clone(),
                    reason: reason.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::DrawLot { players } => {
                if !actor.is_chief() {
                    return Err(deny(actor, "draw a lot", CHIEF));
                }
                let distinct: BTreeSet<_> = players.iter().collect();
                if players.len() < 2 || distinct.len() != players.len() {
                    return Err(TournamentError::LotNeedsTwo);
                }
                for p in players {
                    if !self.players.contains_key(p) {
                        return Err(TournamentError::UnknownPlayer(p.clone()));
                    }
                }
                crate::standings::check_tied(self, players)?;
                E::LotDrawn {
                    players: players.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::SetPairRules { rules } => {
                if !matches!(actor, Actor::Organiser | Actor::ChiefJudge) {
                    return Err(deny(actor, "set pair rules", ORGANISER_OR_CHIEF));
                }
                for r in rules {
                    for p in [&r.a, &r.b] {
                        if !self.players.contains_key(p) {
                            return Err(TournamentError::UnknownPlayer(p.clone()));
                        }
                    }
                    if r.a == r.b {
                        return Err(TournamentError::PairWithItself(r.a.clone()));
                    }
                }
                E::PairRulesSet {
                    rules: rules.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::SetDates { starts_on, ends_on } => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "set the tournament's dates", ORGANISER));
                }
                crate::dates::check(&Dates {
                    starts_on: starts_on.clone(),
                    ends_on: ends_on.clone(),
                })?;
                E::DatesSet {
                    starts_on: starts_on.clone(),
                    ends_on: ends_on.clone(),
                    by: actor.clone(),
                    at,
                }
            }
            C::Archive | C::Unarchive => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "archive a tournament", ORGANISER));
                }
                let archive = matches!(cmd, C::Archive);
                if self.archived.is_some() == archive {
                    return Ok(vec![]);
                }
                let by = actor.clone();
                if archive {
                    E::Archived { by, at }
                } else {
                    E::Unarchived { by, at }
                }
            }
            C::Remove => {
                if *actor != Actor::Organiser {
                    return Err(deny(actor, "remove a tournament", ORGANISER));
                }
                // A game is assigned as it is opened on the referee: its
                // record names the tournament from then on.
                if let Some(g) = self.games.keys().next() {
                    return Err(TournamentError::GameOpened(g.clone()));
                }
                E::Removed {
                    by: actor.clone(),
                    at,
                }
            }
            C::PublishStandings => {
                if !matches!(actor, Actor::Organiser | Actor::ChiefJudge) {
                    return Err(deny(actor, "publish standings", ORGANISER_OR_CHIEF));
                }
                E::StandingsPublished {
                    games: self.ledger.lines.len() as u32,
                    by: actor.clone(),
                    at,
                }
            }
        };
        Ok(vec![ev])
    }

    /// The game a table plays now in a round: its first, or after an appeal
    /// annulled a game for a replay (rfm §7.2), the one after the last
    /// annulled. `AssignGame` accepts no other.
    pub fn current_game(&self, stage: &StageId, round: u32, table: u32) -> GameId {
        let mut id = GameId {
            tournament: self.id.clone(),
            stage: stage.clone(),
            round,
            table,
            game: 1,
        };
        while self.games.get(&id).is_some_and(|g| g.annulled) {
            id.game += 1;
        }
        id
    }

    /// A result is confirmed once nothing about it waits for the chief
    /// judge: no pending approval, no open appeal.
    fn check_nothing_waits(&self, g: &GameEntry) -> Result<(), TournamentError> {
        let waiting = |what: String| TournamentError::ConfirmWhilePending {
            game: g.id.clone(),
            what,
        };
        if let Some(item) = g.inputs.as_ref().and_then(|i| i.pending.iter().next()) {
            return Err(waiting(format!(
                "an approval ({})",
                serde_json::to_string(item).unwrap_or_default()
            )));
        }
        if let Some(a) = self
            .appeals
            .values()
            .find(|a| a.game == g.id && a.decided.is_none())
        {
            return Err(waiting(format!("appeal {}", a.id)));
        }
        Ok(())
    }

    fn audit(
        &mut self,
        by: &Actor,
        at: i64,
        game: Option<&GameId>,
        action: AuditAction,
        reason: &str,
    ) {
        self.audit.push(AuditEntry {
            at,
            by: by.clone(),
            game: game.cloned(),
            action,
            reason: reason.to_owned(),
        });
    }

    /// A swap may not seat a `separate` pair at one table.
    fn check_swap_keeps_pairs_apart(
        &self,
        r: &Round,
        a: &Place,
        b: &Place,
    ) -> Result<(), TournamentError> {
        let (Some(pa), Some(pb)) = (place_player(r, a), place_player(r, b)) else {
            return Ok(());
        };
        let table_after = |p: &PlayerId| {
            if p == &pa {
                Some(b.table)
            } else if p == &pb {
                Some(a.table)
            } else {
                r.tables
                    .values()
                    .find(|t| t.seats.contains(p))
                    .map(|t| t.table)
            }
        };
        for rule in &self.pair_rules {
            if rule.kind != PairKind::Separate {
                continue;
            }
            let (ta, tb) = (table_after(&rule.a), table_after(&rule.b));
            if ta.is_some() && ta == tb {
                return Err(TournamentError::SeparatePairTogether {
                    a: rule.a.clone(),
                    b: rule.b.clone(),
                    table: ta.unwrap_or_default(),
                });
            }
        }
        Ok(())
    }

    fn check_seating(
        &self,
        stage: &StageId,
        round: u32,
        tables: &[SeatedTable],
    ) -> Result<(), TournamentError> {
        match self
            .seating_problems(stage, round, tables)
            .into_iter()
            .next()
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every rule a round's seating breaks, in a fixed order: the stage and
    /// round, then table by table (its number, its 10 seats, its judge,
    /// each player registered, not withdrawn, at one table), then the
    /// `separate` pairs seated together. `SeatRound` refuses with the
    /// first; the office's seating plan names them all.
    pub fn seating_problems(
        &self,
        stage: &StageId,
        round: u32,
        tables: &[SeatedTable],
    ) -> Vec<TournamentError> {
        let Some(st) = self.stage(stage) else {
            return vec![TournamentError::UnknownStage(stage.clone())];
        };
        let mut out = Vec::new();
        if round == 0 || round > st.rounds {
            out.push(TournamentError::RoundOutOfRange {
                stage: stage.clone(),
                round,
                rounds: st.rounds,
            });
        }
        if self
            .games
            .keys()
            .any(|g| &g.stage == stage && g.round == round)
        {
            out.push(TournamentError::RoundAlreadyUnderway {
                stage: stage.clone(),
                round,
            });
        }
        if tables.is_empty() {
            out.push(TournamentError::NoTables);
        }
        let mut table_nos = BTreeSet::new();
        let mut at_table: BTreeMap<&PlayerId, u32> = BTreeMap::new();
        for t in tables {
            if t.table == 0 || t.table > st.tables {
                out.push(TournamentError::TableOutOfRange {
                    stage: stage.clone(),
                    table: t.table,
                    tables: st.tables,
                });
            }
            if !table_nos.insert(t.table) {
                out.push(TournamentError::TableTwice(t.table));
            }
            if !t.is_full() {
                out.push(TournamentError::TableNotFull {
                    table: t.table,
                    seats: t.seats.len(),
                });
            }
            if let Some(j) = &t.judge {
                if !self.judges.contains_key(j) {
                    out.push(TournamentError::UnknownJudge(j.clone()));
                }
            }
            for p in &t.seats {
                if let Err(e) = self.active_player(p) {
                    out.push(e);
                }
                if let Some(first) = at_table.insert(p, t.table) {
                    if first == t.table {
                        out.push(TournamentError::PlayerTwiceAtTable {
                            player: p.clone(),
                            table: t.table,
                        });
                        continue;
                    }
                    out.push(TournamentError::PlayerAtTwoTables {
                        player: p.clone(),
                        round,
                        first,
                        second: t.table,
                    });
                }
            }
        }
        for rule in self
            .pair_rules
            .iter()
            .filter(|r| r.kind == PairKind::Separate)
        {
            let table = |p: &PlayerId| tables.iter().find(|t| t.seats.contains(p)).map(|t| t.table);
            if let (Some(ta), Some(tb)) = (table(&rule.a), table(&rule.b)) {
                if ta == tb {
                    out.push(TournamentError::SeparatePairSeated {
                        a: rule.a.clone(),
                        b: rule.b.clone(),
                        table: ta,
                    });
                }
            }
        }
        out
    }

    fn check_facts(&self, game: &GameId, facts: &GameFacts) -> Result<(), TournamentError> {
        let bad = |why: String| TournamentError::BadFacts {
            game: game.clone(),
            why,
        };
        if facts.seats.len() != SEATS {
            return Err(bad(format!("{} seats, not 10", facts.seats.len())));
        }
        for (i, s) in facts.seats.iter().enumerate() {
            if s.seat != Seat::from_index(i) {
                return Err(bad(format!("seat {} listed in place {}", s.seat, i + 1)));
            }
        }
        if facts.best_move.as_ref().is_some_and(|b| b.hits > 3) {
            return Err(bad("a best move hits at most 3".to_owned()));
        }
        let table = self
            .table_of(game)
            .ok_or_else(|| TournamentError::TableNotSeated {
                stage: game.stage.clone(),
                round: game.round,
                table: game.table,
            })?;
        for s in &facts.seats {
            let seated = table.player_at(s.seat);
            if seated != &s.player {
                return Err(TournamentError::SeatingMismatch {
                    game: game.clone(),
                    seat: s.seat,
                    record: s.player.clone(),
                    seating: seated.clone(),
                });
            }
        }
        Ok(())
    }

    /// Applies one event. Events come from `command` (or a log it wrote), so
    /// they are not validated again.
    pub fn apply(&mut self, event: &TournamentEvent) {
        use TournamentEvent as E;
        self.version += 1;
        match event {
            E::Created { .. } => {}
            E::JudgeAdded { judge, .. } => {
                self.judges.insert(judge.id.clone(), judge.clone());
            }
            E::StageAdded { stage, .. } => self.stages.push(stage.clone()),
            E::PlayerRegistered { player, at } => {
                self.players.insert(
                    player.id.clone(),
                    Registered {
                        player: player.clone(),
                        registered_at: *at,
                        withdrawn_at: None,
                    },
                );
            }
            E::PlayerUpdated { player, .. } => {
                if let Some(r) = self.players.get_mut(&player.id) {
                    r.player = player.clone();
                }
            }
            E::PlayerWithdrawn { player, at } => {
                if let Some(r) = self.players.get_mut(player) {
                    r.withdrawn_at = Some(*at);
                }
            }
            E::RoundSeated {
                stage,
                round,
                tables,
                at,
                ..
            } => {
                self.rounds.insert(
                    (stage.clone(), *round),
                    Round {
                        tables: tables.iter().map(|t| (t.table, t.clone())).collect(),
                        seated_at: *at,
                    },
                );
            }
            E::SeatsSwapped {
                stage, round, a, b, ..
            } => {
                if let Some(r) = self.rounds.get_mut(&(stage.clone(), *round)) {
                    let pa = place_player(r, a);
                    let pb = place_player(r, b);
                    if let (Some(pa), Some(pb)) = (pa, pb) {
                        set_place(r, a, pb);
                        set_place(r, b, pa);
                    }
                }
            }
            E::GameAssigned { game, judge, at } => {
                self.games.insert(
                    game.clone(),
                    GameEntry {
                        id: game.clone(),
                        judge: judge.clone(),
                        assigned_at: *at,
                        result: None,
                        inputs: None,
                        winner_override: None,
                        corrections: Vec::new(),
                        annulled: false,
                        confirmed: None,
                    },
                );
            }
            E::GameResultRecorded {
                game,
                facts,
                ended_at,
                at,
            } => {
                if let Some(g) = self.games.get_mut(game) {
                    g.result = Some(Recorded {
                        facts: facts.clone(),
                        ended_at: *ended_at,
                        recorded_at: *at,
                    });
                }
                self.rescore(game);
            }
            E::JudgeInputsRecorded {
                game,
                inputs,
                pending,
                by,
                at,
            } => {
                if let Some(g) = self.games.get_mut(game) {
                    g.inputs = Some(InputsEntry {
                        inputs: inputs.clone(),
                        pending: pending.iter().cloned().collect(),
                        approved: Vec::new(),
                        refused: Vec::new(),
                        by: by.clone(),
                        at: *at,
                    });
                }
                self.rescore(game);
            }
            E::ApprovalGiven { game, item, by, at } => {
                if let Some(i) = self.games.get_mut(game).and_then(|g| g.inputs.as_mut()) {
                    i.pending.remove(item);
                    i.approved.push((item.clone(), *at));
                }
                let action = AuditAction::Approved { item: item.clone() };
                self.audit(by, *at, Some(game), action, "");
                self.rescore(game);
            }
            E::ApprovalRefused {
                game,
                item,
                reason,
                by,
                at,
            } => {
                if let Some(i) = self.games.get_mut(game).and_then(|g| g.inputs.as_mut()) {
                    i.pending.remove(item);
                    i.refused.push(item.clone());
                }
                let action = AuditAction::Refused { item: item.clone() };
                self.audit(by, *at, Some(game), action, reason);
                self.rescore(game);
            }
            E::ResultConfirmed { game, by, at } => {
                if let Some(g) = self.games.get_mut(game) {
                    g.confirmed = Some(*at);
                }
                self.audit(by, *at, Some(game), AuditAction::ResultConfirmed, "");
            }
            E::DatesSet {
                starts_on,
                ends_on,
                by,
                at,
            } => {
                self.dates = Dates {
                    starts_on: starts_on.clone(),
                    ends_on: ends_on.clone(),
                };
                let action = AuditAction::DatesSet {
                    starts_on: starts_on.clone(),
                    ends_on: ends_on.clone(),
                };
                self.audit(by, *at, None, action, "");
            }
            E::Archived { by, at } => {
                self.archived = Some(*at);
                self.audit(by, *at, None, AuditAction::Archived, "");
            }
            E::Unarchived { by, at } => {
                self.archived = None;
                self.audit(by, *at, None, AuditAction::Unarchived, "");
            }
            E::Removed { by, at } => {
                self.removed = Some(*at);
                self.audit(by, *at, None, AuditAction::Removed, "");
            }
            E::AppealFiled {
                appeal,
                game,
                player,
                event_seq,
                text,
                by,
                at,
            } => {
                self.appeals.insert(
                    *appeal,
                    Appeal {
                        id: *appeal,
                        game: game.clone(),
                        player: player.clone(),
                        event_seq: *event_seq,
                        text: text.clone(),
                        filed_by: by.clone(),
                        filed_at: *at,
                        decided: None,
                    },
                );
            }
            E::AppealDecided {
                appeal,
                decision,
                reason,
                by,
                at,
            } => {
                let Some(a) = self.appeals.get_mut(appeal) else {
                    return;
                };
                a.decided = Some(Decided {
                    decision: decision.clone(),
                    reason: reason.clone(),
                    by: by.clone(),
                    at: *at,
                });
                let game = a.game.clone();
                if let Some(g) = self.games.get_mut(&game) {
                    // A decision that changes the game asks for its
                    // result to be confirmed again.
                    if *decision != AppealDecision::Rejected {
                        g.confirmed = None;
                    }
                    match decision {
                        AppealDecision::Rejected => {}
                        AppealDecision::ResultChanged { winner } => {
                            // The judge's extras and penalties were given for
                            // the result as it stood (the values a winner, a
                            // loser or a draw may get: rfm §6.4.2-§6.4.3,
                            // minsk2017 §8.4.4): a new result voids them,
                            // approvals included, until they are given anew.
                            if g.winner() != Some(*winner) {
                                g.inputs = None;
                            }
                            g.winner_override = Some(*winner)
                        }
                        AppealDecision::PointsCorrected { corrections } => {
                            g.corrections.extend(corrections.iter().cloned())
                        }
                        AppealDecision::Replay => g.annulled = true,
                    }
                }
                let action = AuditAction::AppealDecided {
                    appeal: *appeal,
                    decision: decision.clone(),
                };
                self.audit(by, *at, Some(&game), action, reason);
                self.rescore(&game);
            }
            E::PairRulesSet { rules, .. } => self.pair_rules = rules.clone(),
            E::LotDrawn { players, by, at } => {
                self.lots.push(Lot {
                    players: players.clone(),
                    at: *at,
                });
                let action = AuditAction::LotDrawn {
                    players: players.clone(),
                };
                self.audit(by, *at, None, action, "");
            }
            E::StandingsPublished { games, at, .. } => self.published.push((*at, *games)),
        }
    }

    /// Recomputes one game's line and moves the accumulators by the difference.
    fn rescore(&mut self, id: &GameId) {
        let line = self.line_of(id);
        self.ledger.set(id, line);
    }

    /// A game's points as they stand, `None` while it does not count.
    pub fn line_of(&self, id: &GameId) -> Option<GameLine> {
        let g = self.games.get(id)?;
        let r = g.result.as_ref()?;
        if g.annulled {
            return None;
        }
        let coefficient = self
            .stage(&id.stage)
            .map(|s| s.coefficient)
            .unwrap_or_default();
        let inputs = g.inputs.as_ref();
        Some(
            GameScoring {
                scheme: &self.scheme,
                stage: &id.stage,
                coefficient,
                facts: &r.facts,
                winner: g.winner_override.unwrap_or(r.facts.winner),
                inputs: inputs.map(|i| &i.inputs),
                approved: inputs.is_none_or(|i| i.pending.is_empty() && i.refused.is_empty()),
                corrections: &g.corrections,
            }
            .line(),
        )
    }

    /// The ledger computed from scratch, game by game: what the incremental
    /// one kept by `apply` must equal.
    pub fn recompute_ledger(&self) -> Ledger {
        let mut l = Ledger::default();
        for id in self.games.keys() {
            l.set(id, self.line_of(id));
        }
        l
    }

    /// Items waiting for the chief judge, by game.
    pub fn pending_approvals(&self) -> Vec<(GameId, ApprovalItem)> {
        self.games
            .values()
            .filter_map(|g| g.inputs.as_ref().map(|i| (g, i)))
            .flat_map(|(g, i)| i.pending.iter().map(|p| (g.id.clone(), p.clone())))
            .collect()
    }

    /// Appeals not yet decided.
    pub fn open_appeals(&self) -> Vec<&Appeal> {
        self.appeals
            .values()
            .filter(|a| a.decided.is_none())
            .collect()
    }
}

fn place_player(r: &Round, p: &Place) -> Option<PlayerId> {
    r.tables.get(&p.table).map(|t| t.player_at(p.seat).clone())
}

fn set_place(r: &mut Round, p: &Place, player: PlayerId) {
    if let Some(t) = r.tables.get_mut(&p.table) {
        t.seats[p.seat.index()] = player;
    }
}
