//! Seating a round with the seating generator: the stage is seated whole
//! from the tournament's roster, so the round stored is one round of a
//! balanced schedule, and the same seed seats the same stage again.

use mafia_record::StageId;
use mafia_seating::{Metrics, PairPolicy, SeatingInput};
use mafia_tournament::{JudgeId, PlayerId, SeatedTable, Tournament, TournamentCommand};
use tonic::Status;

/// The `SeatRound` command for round `round` of the generated seating of
/// `stage`, and the whole stage's quality metrics.
pub fn command(
    t: &Tournament,
    stage: &StageId,
    round: u32,
    seed: u64,
    policies: Vec<PairPolicy>,
) -> Result<(TournamentCommand, Metrics), Status> {
    let s = t
        .stages
        .iter()
        .find(|s| s.id == *stage)
        .ok_or_else(|| Status::failed_precondition(format!("no stage {stage}")))?;
    if round == 0 || round > s.rounds {
        return Err(Status::failed_precondition(format!(
            "stage {stage} has rounds 1..={}, not {round}",
            s.rounds
        )));
    }
    if t.round(stage, round).is_some() {
        // Its games may be open already; the chief judge swaps seats instead.
        return Err(Status::failed_precondition(format!(
            "round {round} of stage {stage} is already seated: swap seats to change it"
        )));
    }
    let players = t
        .players
        .values()
        .filter(|r| r.withdrawn_at.is_none())
        .map(|r| {
            let mut p = mafia_seating::Player::new(r.player.id.as_str(), &r.player.nickname);
            p.club = r.player.club.clone();
            p
        })
        .collect();
    for p in &policies {
        for id in [&p.a, &p.b] {
            if !t.players.contains_key(&PlayerId::new(id.as_str())) {
                return Err(Status::failed_precondition(format!(
                    "the {} policy names {id}, who is not registered",
                    p.kind
                )));
            }
        }
    }
    let mut input = SeatingInput::new(players, s.tables as usize, s.rounds as usize);
    input.judges = t.judges.keys().map(|j| j.as_str().to_string()).collect();
    input.policies = policies;
    let seating = mafia_seating::seat(&input, seed)
        .map_err(|e| Status::failed_precondition(format!("seating stage {stage}: {e}")))?;
    let metrics = Metrics::compute(&input, &seating)
        .map_err(|e| Status::internal(format!("seating metrics: {e}")))?;
    let tables = seating.rounds[round as usize - 1]
        .tables
        .iter()
        .enumerate()
        .map(|(i, ts)| SeatedTable {
            table: i as u32 + 1,
            seats: ts.seats.iter().map(PlayerId::new).collect(),
            judge: ts.judge.as_ref().map(JudgeId::new),
        })
        .collect();
    Ok((
        TournamentCommand::SeatRound {
            stage: stage.clone(),
            round,
            tables,
        },
        metrics,
    ))
}
