//! Who a caller is to the tournament crate. The token model is the one of
//! `mafia-access`, read as the referee reads it. A table judge's token names
//! the games it covers and, by its `name`, the judge id he is in the
//! tournament; he acts as that judge, and only for a game his grant covers
//! (the crate then checks the game is bound to him). A table judge token
//! without a name acts as the judge the tournament bound to the game.
//!
//! The organiser and the chief judge are checked against the exact games a
//! command touches (`touches.rs`), never against the tournament as a whole
//! because some pattern names it. No caller gives `RecordResult`: results
//! come from the referee's log through the game follower.

use crate::touches::touches;
use mafia_access::{Caller, Role, Scope, Tokens};
use mafia_record::TournamentId;
use mafia_tournament::{Actor, JudgeId, Tournament, TournamentCommand};
use tonic::metadata::MetadataMap;
use tonic::Status;

pub use mafia_proto::auth::status;

/// The caller, `Public` without an `authorization` header; a bad token is
/// UNAUTHENTICATED.
pub fn authenticate(tokens: &Tokens, meta: &MetadataMap) -> Result<Caller, Status> {
    mafia_proto::auth::caller(tokens, meta, Some(Caller::Public))
}

/// The organiser, before any tournament exists.
pub fn creator(caller: &Caller, id: &TournamentId) -> Result<Actor, Status> {
    match caller.role() {
        Some(Role::Organiser) => {
            caller
                .may_organise(&Scope::Tournament(id.clone()))
                .map_err(status)?;
            Ok(Actor::Organiser)
        }
        _ => Err(Status::permission_denied(format!(
            "{} may not create a tournament: only the organiser may",
            caller.name()
        ))),
    }
}

/// Why `record_result` is refused to every caller.
pub const NOT_A_CLIENT_COMMAND: &str = "record_result is not a client command: a result is taken only from the referee's log of the game (the scoring service's game follower), and changes only by the chief judge's appeal decision (decide_appeal, result_changed)";

/// The actor a caller commands `t` as, once its grant covers every game
/// the command touches.
pub fn actor_for(
    caller: &Caller,
    t: &Tournament,
    cmd: &TournamentCommand,
) -> Result<Actor, Status> {
    if matches!(cmd, TournamentCommand::RecordResult { .. }) {
        return Err(Status::permission_denied(NOT_A_CLIENT_COMMAND));
    }
    match caller.role() {
        Some(Role::Organiser) => {
            for scope in touches(t, cmd) {
                caller.may_organise(&scope).map_err(status)?;
            }
            Ok(Actor::Organiser)
        }
        Some(Role::ChiefJudge) => {
            for scope in touches(t, cmd) {
                caller.may_rule(&scope).map_err(status)?;
            }
            Ok(Actor::ChiefJudge)
        }
        Some(Role::TableJudge) => {
            let game = game_of(cmd).ok_or_else(|| {
                Status::permission_denied("a table judge may command only one of his games")
            })?;
            caller.may_judge(game).map_err(status)?;
            if let Some(name) = caller.holder() {
                return Ok(Actor::TableJudge(JudgeId::new(name)));
            }
            let judge = t
                .games
                .get(game)
                .and_then(|g| g.judge.clone())
                .ok_or_else(|| {
                    Status::permission_denied(format!("game {game} has no table judge bound"))
                })?;
            Ok(Actor::TableJudge(judge))
        }
        _ => Err(Status::permission_denied(format!(
            "{} may only read standings",
            caller.name()
        ))),
    }
}

fn game_of(cmd: &TournamentCommand) -> Option<&mafia_record::GameId> {
    use TournamentCommand as C;
    match cmd {
        C::AssignGame { game, .. }
        | C::SubmitJudgeInputs { game, .. }
        | C::Approve { game, .. }
        | C::Refuse { game, .. }
        | C::ConfirmResult { game }
        | C::FileAppeal { game, .. } => Some(game),
        _ => None,
    }
}
