//! The `mafia.v1.Scoring` gRPC service.

use crate::actor::{actor_for, authenticate, creator};
use crate::store::{Store, StoreError};
use mafia_access::Tokens;
use mafia_proto::v1::scoring_server::Scoring;
use mafia_proto::v1::{
    CommandReply, CommandRequest, CreateTournamentRequest, ExportReply, ExportRequest,
    OpenRoundReply, OpenRoundRequest, PlayerHistoryReply, PlayerHistoryRequest,
    RegisterPlayersCsvRequest, SeatRoundReply, SeatRoundRequest, StandingsReply, TournamentRef,
    TournamentSummary,
};
use mafia_proto::v1::{
    CredentialList, IssueCredentialReply, IssueCredentialRequest, ListTournamentsReply,
    ListTournamentsRequest, PlanSeatingRequest, PlayersCsvPreview, RevokeCredentialRequest,
    SeatingPlan,
};
use mafia_record::TournamentId;
use mafia_tournament::stored;
use mafia_tournament::{
    history, NewTournament, PlayerId, SeatedTable, TournamentCommand, TournamentError,
    TournamentEvent,
};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tonic::{Request, Response, Status};

pub struct ScoringService {
    pub store: Arc<Store>,
    pub tokens: Tokens,
    pub referee: Option<crate::RefereeLink>,
    pub credentials: Arc<crate::credentials::Credentials>,
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

pub fn status(e: StoreError) -> Status {
    match e {
        StoreError::NotFound(_) => Status::not_found(e.to_string()),
        StoreError::AlreadyExists(_) => Status::already_exists(e.to_string()),
        StoreError::Refused(ref r) | StoreError::CsvLine { error: ref r, .. } => match r {
            TournamentError::NotPermitted { .. } | TournamentError::JudgeNotBound { .. } => {
                Status::permission_denied(e.to_string())
            }
            _ => Status::failed_precondition(e.to_string()),
        },
        StoreError::CsvRow { .. } => Status::failed_precondition(e.to_string()),
        StoreError::Contended => Status::aborted(e.to_string()),
        StoreError::Stopped => Status::unavailable(e.to_string()),
        StoreError::Log(_) | StoreError::Stored(_) => Status::unavailable(e.to_string()),
    }
}

fn tournament_id(s: &str) -> Result<TournamentId, Status> {
    s.parse()
        .map_err(|e| Status::invalid_argument(format!("tournament id {s:?}: {e}")))
}

fn stage_id(s: &str) -> Result<mafia_record::StageId, Status> {
    s.parse()
        .map_err(|e| Status::invalid_argument(format!("stage {s:?}: {e}")))
}

fn reply(events: &[TournamentEvent], version: u64) -> CommandReply {
    CommandReply {
        version,
        events_json: events
            .iter()
            .map(|e| String::from_utf8(stored::encode(e)).expect("JSON is UTF-8"))
            .collect(),
    }
}

impl ScoringService {
    /// Runs one command as the caller, as the scoring service does for
    /// `Command` and the game follower for `RecordResult`.
    async fn run(
        &self,
        caller: &mafia_access::Caller,
        id: &TournamentId,
        cmd: TournamentCommand,
    ) -> Result<CommandReply, Status> {
        let h = self.store.get(id).await.map_err(status)?;
        let actor = actor_for(caller, &h.lock().await.tournament, &cmd)?;
        let now = now_ms();
        let kind = std::mem::discriminant(&cmd);
        let (events, version) = self
            .store
            .command(id, move |t| Ok(t.command(&cmd, &actor, now)?))
            .await
            .map_err(status)?;
        tracing::info!(tournament = %id, command = ?kind, events = events.len(), "command");
        self.score_assigned(&events).await;
        Ok(reply(&events, version))
    }
}

fn counted<T>(store: &Store, r: Result<T, Status>) -> Result<T, Status> {
    if let Err(e) = &r {
        store.metrics.refused(e.code());
    }
    r
}

impl ScoringService {
    /// Scores each game just assigned that already ended on the referee: the
    /// follower skipped its end while it belonged to no tournament.
    async fn score_assigned(&self, events: &[TournamentEvent]) {
        for e in events {
            let TournamentEvent::GameAssigned { game, .. } = e else {
                continue;
            };
            match crate::follower::score(&self.store, game).await {
                Ok(true) => tracing::info!(%game, "game scored on assignment"),
                Ok(false) => {}
                // The follower scores it when it sees the end again (a
                // restart replays every game).
                Err(e) => tracing::warn!(%game, error = %e, "assigned game not scored"),
            }
        }
    }

    async fn seat_round_inner(
        &self,
        req: Request<SeatRoundRequest>,
    ) -> Result<SeatRoundReply, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let r = req.into_inner();
        let id = tournament_id(&r.tournament)?;
        let stage = stage_id(&r.stage)?;
        let policies: Vec<mafia_seating::PairPolicy> = match r.policies_json.trim() {
            "" => Vec::new(),
            json => serde_json::from_str(json)
                .map_err(|e| Status::invalid_argument(format!("policies_json: {e}")))?,
        };
        let h = self.store.get(&id).await.map_err(status)?;
        let (cmd, metrics) = {
            let held = h.lock().await;
            // Who may comes before what the state allows: the seating's
            // tables when there is one, else the whole tournament.
            match crate::seat_round::command(&held.tournament, &stage, r.round, r.seed, policies) {
                Ok((cmd, metrics)) => {
                    actor_for(&caller, &held.tournament, &cmd)?;
                    (cmd, metrics)
                }
                Err(e) => {
                    let probe = TournamentCommand::SeatRound {
                        stage,
                        round: r.round,
                        tables: Vec::new(),
                    };
                    actor_for(&caller, &held.tournament, &probe)?;
                    return Err(e);
                }
            }
        };
        let reply = self.run(&caller, &id, cmd).await?;
        Ok(SeatRoundReply {
            version: reply.version,
            events_json: reply.events_json,
            metrics_json: serde_json::to_string(&metrics)
                .map_err(|e| Status::internal(e.to_string()))?,
        })
    }

    async fn open_round_inner(
        &self,
        req: Request<OpenRoundRequest>,
    ) -> Result<OpenRoundReply, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let r = req.into_inner();
        let id = tournament_id(&r.tournament)?;
        let stage = stage_id(&r.stage)?;
        let link = self.referee.as_ref().ok_or_else(|| {
            Status::failed_precondition(
                "no referee configured: start the service with --referee-url and --referee-token",
            )
        })?;
        let h = self.store.get(&id).await.map_err(status)?;
        let games = {
            let held = h.lock().await;
            let games = crate::open_round::headers(&held.tournament, &stage, r.round, r.deal_seed)?;
            // All or nothing, before anything is assigned or opened: the
            // service opens games with its own credential, so only those
            // its caller may open.
            crate::open_round::may_open_all(&caller, &games)?;
            games
        };
        for (game, _) in &games {
            let cmd = TournamentCommand::AssignGame {
                game: game.clone(),
                judge: None,
            };
            let assigned = h.lock().await.tournament.games.contains_key(game);
            if assigned {
                continue;
            }
            self.run(&caller, &id, cmd).await?;
        }
        let version = h.lock().await.tournament.version;
        crate::open_round::open_on_referee(link, &games, now_ms()).await?;
        tracing::info!(tournament = %id, %stage, round = r.round, games = games.len(), "round opened");
        Ok(OpenRoundReply {
            game_ids: games.iter().map(|(g, _)| g.to_string()).collect(),
            version,
        })
    }
}

#[tonic::async_trait]
impl Scoring for ScoringService {
    async fn create_tournament(
        &self,
        req: Request<CreateTournamentRequest>,
    ) -> Result<Response<CommandReply>, Status> {
        let caller = counted(&self.store, authenticate(&self.tokens, req.metadata()))?;
        let new: NewTournament = serde_json::from_str(&req.get_ref().spec_json)
            .map_err(|e| Status::invalid_argument(format!("spec_json: {e}")))?;
        let actor = creator(&caller, &new.spec.id)?;
        let t = counted(
            &self.store,
            self.store
                .create_dated(new.spec, new.dates, &actor, now_ms())
                .await
                .map_err(status),
        )?;
        Ok(Response::new(CommandReply {
            version: t.version,
            events_json: Vec::new(),
        }))
    }

    async fn command(
        &self,
        req: Request<CommandRequest>,
    ) -> Result<Response<CommandReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let cmd: TournamentCommand = serde_json::from_str(&req.get_ref().command_json)
            .map_err(|e| Status::invalid_argument(format!("command_json: {e}")))?;
        counted(&self.store, self.run(&caller, &id, cmd).await).map(Response::new)
    }

    async fn register_players_csv(
        &self,
        req: Request<RegisterPlayersCsvRequest>,
    ) -> Result<Response<CommandReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        // At most csv::MAX_PLAYERS lines are read.
        let sheet = counted(&self.store, crate::office::read_sheet(req.get_ref()).await)?;
        if let Some((row, problem)) = sheet.first_problem() {
            let why = format!("players CSV line {}: {}", row.line, problem.en());
            return counted(&self.store, Err(Status::invalid_argument(why)));
        }
        let h = self.store.get(&id).await.map_err(status)?;
        let probe = TournamentCommand::PublishStandings;
        let actor = actor_for(&caller, &h.lock().await.tournament, &probe)?;
        let now = now_ms();
        let stored = self
            .store
            .command(&id, move |t| {
                let players = crate::office::players(t, &sheet, &actor)?;
                // Each line is checked against the lines before it, so a
                // player listed twice is refused too; all or nothing.
                let mut t = t.clone();
                let mut out = Vec::new();
                for (line, player) in &players {
                    let cmd = TournamentCommand::RegisterPlayer {
                        player: player.clone(),
                    };
                    let evs = t
                        .command(&cmd, &actor, now)
                        .map_err(|e| StoreError::CsvLine {
                            line: *line,
                            error: e,
                        })?;
                    for e in &evs {
                        t.apply(e);
                    }
                    out.extend(evs);
                }
                Ok(out)
            })
            .await
            .map_err(status);
        let (events, version) = counted(&self.store, stored)?;
        Ok(Response::new(reply(&events, version)))
    }

    async fn seat_round(
        &self,
        req: Request<SeatRoundRequest>,
    ) -> Result<Response<SeatRoundReply>, Status> {
        let r = self.seat_round_inner(req).await;
        counted(&self.store, r).map(Response::new)
    }

    async fn open_round(
        &self,
        req: Request<OpenRoundRequest>,
    ) -> Result<Response<OpenRoundReply>, Status> {
        let r = self.open_round_inner(req).await;
        counted(&self.store, r).map(Response::new)
    }

    async fn get_tournament(
        &self,
        req: Request<TournamentRef>,
    ) -> Result<Response<TournamentSummary>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let h = self.store.get(&id).await.map_err(status)?;
        let h = h.lock().await;
        let t = &h.tournament;
        let detail = crate::office::sees_detail(&caller, t);
        Ok(Response::new(crate::office::summary(t, detail)))
    }

    async fn get_standings(
        &self,
        req: Request<TournamentRef>,
    ) -> Result<Response<StandingsReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let h = self.store.get(&id).await.map_err(status)?;
        let h = h.lock().await;
        let json = serde_json::to_string(&crate::export::standings_for(&caller, &h.tournament))
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(StandingsReply {
            version: h.tournament.version,
            standings_json: json,
        }))
    }

    async fn export(&self, req: Request<ExportRequest>) -> Result<Response<ExportReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let h = self.store.get(&id).await.map_err(status)?;
        let h = h.lock().await;
        crate::export::export_file(&caller, &h.tournament, req.get_ref()).map(Response::new)
    }

    async fn player_history(
        &self,
        req: Request<PlayerHistoryRequest>,
    ) -> Result<Response<PlayerHistoryReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let player = PlayerId::new(&req.get_ref().player);
        let h = self.store.get(&id).await.map_err(status)?;
        let h = h.lock().await;
        if !h.tournament.players.contains_key(&player) {
            return Err(Status::not_found(format!(
                "player {player} is not registered"
            )));
        }
        let lines = crate::export::history_for(&caller, history(&h.tournament, &player));
        let json = serde_json::to_string(&lines).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(PlayerHistoryReply { history_json: json }))
    }

    // The office's calls (issue 37): being built on their own branches.
    async fn list_tournaments(
        &self,
        req: Request<ListTournamentsRequest>,
    ) -> Result<Response<ListTournamentsReply>, Status> {
        authenticate(&self.tokens, req.metadata())?;
        crate::office::list(&self.store, req.get_ref().include_archived)
            .await
            .map(Response::new)
    }

    async fn remove_tournament(
        &self,
        req: Request<TournamentRef>,
    ) -> Result<Response<CommandReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let r = self.run(&caller, &id, TournamentCommand::Remove).await;
        let reply = counted(&self.store, r)?;
        // A tournament made again under this id must not inherit them.
        self.credentials.revoke_all(&caller, &id, now_ms()).await?;
        Ok(Response::new(reply))
    }

    async fn preview_players_csv(
        &self,
        req: Request<RegisterPlayersCsvRequest>,
    ) -> Result<Response<PlayersCsvPreview>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let sheet = crate::office::read_sheet(req.get_ref()).await?;
        let h = self.store.get(&id).await.map_err(status)?;
        let t = h.lock().await.tournament.clone();
        let probe = TournamentCommand::PublishStandings;
        let actor = actor_for(&caller, &t, &probe)?;
        tokio::task::spawn_blocking(move || crate::office::preview(&t, &sheet, &actor))
            .await
            .map(Response::new)
            .map_err(|e| Status::internal(format!("players CSV: {e}")))
    }

    async fn plan_seating(
        &self,
        req: Request<PlanSeatingRequest>,
    ) -> Result<Response<SeatingPlan>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let r = req.into_inner();
        let id = tournament_id(&r.tournament)?;
        let stage = stage_id(&r.stage)?;
        let proposal: Option<Vec<SeatedTable>> = match r.tables_json.trim() {
            "" => None,
            json => Some(
                serde_json::from_str(json)
                    .map_err(|e| Status::invalid_argument(format!("tables_json: {e}")))?,
            ),
        };
        let h = self.store.get(&id).await.map_err(status)?;
        let t = h.lock().await.tournament.clone();
        // Who may seat these tables (or, generating, the whole round).
        let probe = TournamentCommand::SeatRound {
            stage: stage.clone(),
            round: r.round,
            tables: proposal.clone().unwrap_or_default(),
        };
        actor_for(&caller, &t, &probe)?;
        let plan = tokio::task::spawn_blocking(move || {
            crate::seat_round::plan(&t, &stage, r.round, r.seed, proposal)
        })
        .await
        .map_err(|e| Status::internal(format!("seating plan: {e}")))??;
        crate::office::seating_plan(plan).map(Response::new)
    }

    async fn issue_credential(
        &self,
        req: Request<IssueCredentialRequest>,
    ) -> Result<Response<IssueCredentialReply>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let r = req.into_inner();
        let ask = crate::credentials::IssueRequest {
            tournament: tournament_id(&r.tournament)?,
            role: r.role,
            name: r.name,
            scopes: r.scopes,
        };
        let (credential, token) = self
            .credentials
            .issue(&caller, &self.store, ask, now_ms())
            .await?;
        Ok(Response::new(IssueCredentialReply {
            credential: Some(credential_to_proto(&credential)),
            token,
        }))
    }

    async fn revoke_credential(
        &self,
        req: Request<RevokeCredentialRequest>,
    ) -> Result<Response<CredentialList>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let list = self
            .credentials
            .revoke(&caller, &id, &req.get_ref().id, now_ms())
            .await?;
        Ok(Response::new(credential_list(&list)))
    }

    async fn list_credentials(
        &self,
        req: Request<TournamentRef>,
    ) -> Result<Response<CredentialList>, Status> {
        let caller = authenticate(&self.tokens, req.metadata())?;
        let id = tournament_id(&req.get_ref().tournament)?;
        let list = self.credentials.list(&caller, &id).await?;
        Ok(Response::new(credential_list(&list)))
    }
}

fn credential_list(list: &[mafia_access::Credential]) -> CredentialList {
    CredentialList {
        credentials: list.iter().map(credential_to_proto).collect(),
    }
}

fn credential_to_proto(c: &mafia_access::Credential) -> mafia_proto::v1::Credential {
    let (revoked_by, revoked_at_ms) = c.revoked.clone().unwrap_or_default();
    mafia_proto::v1::Credential {
        id: c.id.clone(),
        tournament: c.tournament.to_string(),
        role: c.role.name().to_owned(),
        name: c.name.clone(),
        scopes: c.games.iter().map(ToString::to_string).collect(),
        issued_by: c.issued_by.clone(),
        issued_at_ms: c.issued_at_ms,
        revoked_at_ms,
        revoked_by,
    }
}
