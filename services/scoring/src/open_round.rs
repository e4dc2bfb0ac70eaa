//! Opening a seated round's games on the referee, so each table judge finds
//! his game with the seated players already in its header.

use mafia_access::{Caller, Scope};
use mafia_proto::convert::request_from_header;
use mafia_proto::v1::referee_client::RefereeClient;
use mafia_record::{GameId, Header, StageId};
use mafia_rules::{Deal, Drawn, Player, RuleSet, Setup};
use mafia_tournament::Tournament;
use tonic::Status;

/// Whether `caller` may assign and open every one of `games`; the first
/// it may not is named and nothing is opened.
pub fn may_open_all(caller: &Caller, games: &[(GameId, Header)]) -> Result<(), Status> {
    for (game, _) in games {
        caller
            .may_organise(&Scope::Game(game.clone()))
            .and_then(|()| caller.may_open(game))
            .map_err(crate::actor::status)?;
    }
    Ok(())
}

/// Where the referee is and the organiser token the service opens games with.
#[derive(Clone, Debug)]
pub struct RefereeLink {
    pub url: String,
    pub token: String,
}

/// The game of each table of a seated round, with its header. Its cards
/// are the referee's to draw (`Deal::Drawn`): a seed the organiser chose
/// (`deal_seed`, which must be 0) would let him, and anyone who guessed it,
/// compute every table's cards while it plays.
pub fn headers(
    t: &Tournament,
    stage: &StageId,
    round: u32,
    deal_seed: u64,
) -> Result<Vec<(GameId, Header)>, Status> {
    if deal_seed != 0 {
        return Err(Status::invalid_argument(
            "deal_seed is not accepted: every game's seed is drawn by the referee and revealed when it ends (send 0)",
        ));
    }
    let seated = t.round(stage, round).ok_or_else(|| {
        Status::failed_precondition(format!("round {round} of stage {stage} is not seated"))
    })?;
    let rules = if t.rule_overrides.is_null() {
        RuleSet::preset(t.rules)
    } else {
        RuleSet::with_overrides(t.rules, &t.rule_overrides)
            .map_err(|e| Status::failed_precondition(format!("rule overrides: {e}")))?
    };
    let mut out = Vec::new();
    for (table, st) in &seated.tables {
        let id = t.current_game(stage, round, *table);
        let players = st
            .seats
            .iter()
            .map(|p| Player {
                player_id: p.to_string(),
                nickname: t
                    .players
                    .get(p)
                    .map_or_else(|| p.to_string(), |r| r.player.nickname.clone()),
            })
            .collect();
        let setup = Setup::new(rules.clone(), players, Deal::Drawn(Drawn::default()))
            .map_err(|e| Status::failed_precondition(format!("table {table}: {e}")))?;
        let mut header = Header::for_setup(&setup, &id);
        header.tournament = t.name.clone();
        if let Some(j) = &st.judge {
            header.judge = t
                .judges
                .get(j)
                .map_or_else(|| j.to_string(), |j| j.name.clone());
        }
        out.push((id, header));
    }
    Ok(out)
}

/// Opens each game on the referee (idempotent there for the same header).
pub async fn open_on_referee(
    link: &RefereeLink,
    games: &[(GameId, Header)],
    at: i64,
) -> Result<(), Status> {
    let mut client = RefereeClient::connect(link.url.clone())
        .await
        .map_err(|e| Status::unavailable(format!("referee {}: {e}", link.url)))?;
    for (id, header) in games {
        let mut req = tonic::Request::new(request_from_header(header, at));
        let value = format!("Bearer {}", link.token)
            .parse()
            .map_err(|_| Status::internal("the referee token is not a header value"))?;
        req.metadata_mut().insert("authorization", value);
        client.open_game(req).await.map_err(|e| {
            Status::new(
                e.code(),
                format!("referee refused to open {id}: {}", e.message()),
            )
        })?;
    }
    Ok(())
}
