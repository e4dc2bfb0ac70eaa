//! Credentials issued at runtime (`IssueCredential`, `RevokeCredential`,
//! `ListCredentials`): decided here, stored in the log's `access` stream
//! (`mafia_access::issued`) as SHA-256 hashes with their audit trail, and
//! honoured by every service through its own follower of that stream.
//!
//! Only an organiser whose grant covers the whole tournament issues and
//! revokes; he or a chief judge of the whole tournament lists. A decision
//! is taken on the stream folded up to its end and appended at that end:
//! a conflict (another scoring process wrote meanwhile) folds the new
//! events and decides again, so two processes never issue past the bound
//! nor revoke what they did not see.

use crate::actor::status;
use crate::store::Store;
use bytes::Bytes;
use mafia_access::issued::{
    fresh_id, fresh_token, AccessEvent, TokenHash, HEADER, MAX_NAME_CHARS, MAX_PER_TOURNAMENT,
    MAX_SCOPES, STREAM,
};
use mafia_access::{Caller, Credential, GamePattern, Registry, Role, Scope};
use mafia_event_log::{EventLog, LogError};
use mafia_record::TournamentId;
use mafia_tournament::{JudgeId, Tournament};
use std::sync::Arc;
use tokio::sync::Mutex;
use tonic::Status;

/// Events read from the stream per call.
const READ_BATCH: usize = 1024;

/// Decisions tried again after conflicting appends, before giving up.
const ATTEMPTS: usize = 8;

/// What the organiser asks for.
#[derive(Debug, Clone)]
pub struct IssueRequest {
    pub tournament: TournamentId,
    pub role: String,
    pub name: String,
    pub scopes: Vec<String>,
}

/// The stream folded so far, and the seq it is folded to.
#[derive(Default)]
struct Folded {
    registry: Registry,
    seq: u64,
}

pub struct Credentials {
    log: Arc<dyn EventLog>,
    folded: Mutex<Folded>,
}

impl Credentials {
    pub fn new(log: Arc<dyn EventLog>) -> Credentials {
        Credentials {
            log,
            folded: Mutex::new(Folded::default()),
        }
    }

    /// Folds what was appended since the last look.
    async fn catch_up(&self, f: &mut Folded) -> Result<(), Status> {
        loop {
            let batch = match self.log.read(STREAM, f.seq + 1, READ_BATCH).await {
                Ok(b) => b,
                Err(LogError::UnknownGame(_)) => return Ok(()),
                Err(e) => return Err(unavailable(e)),
            };
            for e in &batch {
                let event =
                    AccessEvent::decode(&e.payload).map_err(|e| Status::internal(e.to_string()))?;
                f.registry.apply(&event);
                f.seq = e.seq;
            }
            if batch.len() < READ_BATCH {
                return Ok(());
            }
        }
    }

    /// Appends `event` at the folded end; `false` when another process
    /// appended first (the caller folds and decides again).
    async fn append(&self, f: &mut Folded, event: &AccessEvent) -> Result<bool, Status> {
        self.append_all(f, std::slice::from_ref(event)).await
    }

    /// [`Credentials::append`] of several events, all or none.
    async fn append_all(&self, f: &mut Folded, events: &[AccessEvent]) -> Result<bool, Status> {
        // Every service creates the stream when it starts; again here in
        // case this is the first write (harmless when it exists).
        self.log
            .create_game(STREAM, HEADER)
            .await
            .map_err(unavailable)?;
        let payloads: Vec<Bytes> = events.iter().map(|e| Bytes::from(e.encode())).collect();
        match self.log.append(STREAM, f.seq, 0, &payloads).await {
            Ok(a) => {
                for e in events {
                    f.registry.apply(e);
                }
                f.seq = a.last_seq;
                Ok(true)
            }
            Err(LogError::Conflict { .. }) => Ok(false),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Issues a credential: its record and the token, which is in the
    /// reply once and stored nowhere.
    pub async fn issue(
        &self,
        caller: &Caller,
        store: &Store,
        req: IssueRequest,
        now_ms: i64,
    ) -> Result<(Credential, String), Status> {
        may_manage(caller, &req.tournament, "issue credentials in")?;
        let role = role(&req.role)?;
        let name = holder_name(&req.name)?;
        let scopes = parse_scopes(&req.tournament, &req.scopes)?;
        let held = store
            .get(&req.tournament)
            .await
            .map_err(crate::service::status)?;
        let games = {
            let h = held.lock().await;
            covered(&h.tournament, role, &name, scopes)?
        };
        let token = fresh_token().map_err(status)?;
        let mut f = self.folded.lock().await;
        for _ in 0..ATTEMPTS {
            self.catch_up(&mut f).await?;
            if f.registry.issued_in(&req.tournament) >= MAX_PER_TOURNAMENT {
                return Err(Status::resource_exhausted(format!(
                    "tournament {} has been issued {MAX_PER_TOURNAMENT} credentials, the most it may have",
                    req.tournament
                )));
            }
            let id = loop {
                let id = fresh_id().map_err(status)?;
                if f.registry.get(&id).is_none() {
                    break id;
                }
            };
            let event = AccessEvent::Issued {
                id: id.clone(),
                hash: TokenHash::of(&token),
                tournament: req.tournament.clone(),
                role,
                name: name.clone(),
                games: games.clone(),
                issued_by: caller.who(),
                issued_at_ms: now_ms,
            };
            if self.append(&mut f, &event).await? {
                tracing::info!(credential = %id, tournament = %req.tournament, role = role.name(), by = %caller.who(), "credential issued");
                let c = f.registry.get(&id).cloned().expect("just applied");
                return Ok((c, token));
            }
        }
        Err(contended())
    }

    /// Revokes credential `id` of `t`; revoking it again changes nothing.
    /// Returns the tournament's credentials after it.
    pub async fn revoke(
        &self,
        caller: &Caller,
        t: &TournamentId,
        id: &str,
        now_ms: i64,
    ) -> Result<Vec<Credential>, Status> {
        may_manage(caller, t, "revoke credentials in")?;
        let mut f = self.folded.lock().await;
        for _ in 0..ATTEMPTS {
            self.catch_up(&mut f).await?;
            match f.registry.get(id) {
                Some(c) if &c.tournament == t => {
                    if c.revoked.is_some() {
                        return Ok(list_of(&f.registry, t));
                    }
                }
                _ => {
                    return Err(Status::not_found(format!(
                        "tournament {t} has no credential {id:?}"
                    )))
                }
            }
            let event = AccessEvent::Revoked {
                id: id.to_owned(),
                tournament: t.clone(),
                revoked_by: caller.who(),
                revoked_at_ms: now_ms,
            };
            if self.append(&mut f, &event).await? {
                tracing::info!(credential = %id, tournament = %t, by = %caller.who(), "credential revoked");
                return Ok(list_of(&f.registry, t));
            }
        }
        Err(contended())
    }

    /// Revokes every live credential of `t` in one append (for removing a
    /// tournament: a tournament made again under its id must not inherit
    /// them). Returns how many were revoked.
    pub async fn revoke_all(
        &self,
        caller: &Caller,
        t: &TournamentId,
        now_ms: i64,
    ) -> Result<usize, Status> {
        may_manage(caller, t, "revoke credentials in")?;
        let mut f = self.folded.lock().await;
        for _ in 0..ATTEMPTS {
            self.catch_up(&mut f).await?;
            let events: Vec<AccessEvent> = f
                .registry
                .of_tournament(t)
                .into_iter()
                .filter(|c| c.revoked.is_none())
                .map(|c| AccessEvent::Revoked {
                    id: c.id.clone(),
                    tournament: t.clone(),
                    revoked_by: caller.who(),
                    revoked_at_ms: now_ms,
                })
                .collect();
            if events.is_empty() || self.append_all(&mut f, &events).await? {
                return Ok(events.len());
            }
        }
        Err(contended())
    }

    /// `t`'s credentials, revoked ones included, in the order issued.
    pub async fn list(&self, caller: &Caller, t: &TournamentId) -> Result<Vec<Credential>, Status> {
        caller
            .may_organise(&Scope::Tournament(t.clone()))
            .map_err(status)?;
        let mut f = self.folded.lock().await;
        self.catch_up(&mut f).await?;
        Ok(list_of(&f.registry, t))
    }
}

fn list_of(reg: &Registry, t: &TournamentId) -> Vec<Credential> {
    reg.of_tournament(t).into_iter().cloned().collect()
}

fn unavailable(e: LogError) -> Status {
    Status::unavailable(format!("the event log: {e}"))
}

fn contended() -> Status {
    Status::aborted("the credentials changed under this call too many times; try again")
}

/// Only an organiser whose grant covers the whole tournament.
fn may_manage(caller: &Caller, t: &TournamentId, action: &str) -> Result<(), Status> {
    if caller.role() != Some(Role::Organiser) {
        return Err(Status::permission_denied(format!(
            "{} may not {action} tournament {t}: only its organiser may",
            caller.name()
        )));
    }
    caller
        .may_organise(&Scope::Tournament(t.clone()))
        .map_err(status)
}

fn role(text: &str) -> Result<Role, Status> {
    match text {
        "table_judge" => Ok(Role::TableJudge),
        "chief_judge" => Ok(Role::ChiefJudge),
        "organiser" => Ok(Role::Organiser),
        other => Err(Status::invalid_argument(format!(
            "unknown role {other:?}: a credential is for a table_judge, a chief_judge or an organiser"
        ))),
    }
}

fn holder_name(text: &str) -> Result<String, Status> {
    let name = text.trim();
    if name.is_empty() {
        return Err(Status::invalid_argument(
            "a credential needs a name: who holds it (a table judge's judge id)",
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(Status::invalid_argument(format!(
            "a credential's name is at most {MAX_NAME_CHARS} characters, without control characters"
        )));
    }
    Ok(name.to_owned())
}

/// The patterns asked for, each inside tournament `t`.
fn parse_scopes(t: &TournamentId, scopes: &[String]) -> Result<Vec<GamePattern>, Status> {
    if scopes.len() > MAX_SCOPES {
        return Err(Status::invalid_argument(format!(
            "a credential covers at most {MAX_SCOPES} scopes"
        )));
    }
    let whole = GamePattern::tournament(t);
    let mut out: Vec<GamePattern> = Vec::with_capacity(scopes.len());
    for s in scopes {
        let p: GamePattern = s
            .parse()
            .map_err(|e| Status::invalid_argument(format!("scope {s:?}: {e}")))?;
        if !whole.contains(&p) {
            return Err(Status::invalid_argument(format!(
                "scope {s:?} is outside tournament {t}: a scope starts with `{t}.`"
            )));
        }
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// What the credential covers: the scopes given, or by default the whole
/// tournament, and for a table judge the tables he is seated at now.
fn covered(
    t: &Tournament,
    role: Role,
    name: &str,
    scopes: Vec<GamePattern>,
) -> Result<Vec<GamePattern>, Status> {
    if role == Role::TableJudge {
        let judge = JudgeId::new(name);
        if !t.judges.contains_key(&judge) {
            return Err(Status::failed_precondition(format!(
                "{name:?} is not a judge of tournament {}: a table judge's credential is named by his judge id (add_judge first)",
                t.id
            )));
        }
        if scopes.is_empty() {
            return seated_tables(t, &judge);
        }
    }
    if scopes.is_empty() {
        return Ok(vec![GamePattern::tournament(&t.id)]);
    }
    Ok(scopes)
}

/// Every table `judge` is seated at, each as its round's table pattern.
fn seated_tables(t: &Tournament, judge: &JudgeId) -> Result<Vec<GamePattern>, Status> {
    let tables: Vec<GamePattern> = t
        .rounds
        .iter()
        .flat_map(|((stage, round), r)| {
            r.tables
                .values()
                .filter(|s| s.judge.as_ref() == Some(judge))
                .map(move |s| GamePattern::table(&t.id, stage, *round, s.table))
        })
        .collect();
    if tables.len() > MAX_SCOPES {
        return Err(Status::failed_precondition(format!(
            "judge {judge} is seated at {} tables, more than a credential covers ({MAX_SCOPES}): name the scopes",
            tables.len()
        )));
    }
    if tables.is_empty() {
        return Err(Status::failed_precondition(format!(
            "judge {judge} is seated at no table of tournament {} yet: seat the round first, or name the scopes",
            t.id
        )));
    }
    Ok(tables)
}
