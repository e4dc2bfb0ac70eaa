//! Seating a round with the seating generator: the stage is seated whole
//! from the tournament's roster, so the round stored is one round of a
//! balanced schedule, and the same seed seats the same stage again. A plan
//! (the office's) is such a round, or the caller's own, with its metrics
//! beside a random seating's and every rule it breaks, stored nowhere.

use mafia_record::StageId;
use mafia_seating::{Metrics, PairPolicy, PolicyKind, Seating, SeatingInput};
use mafia_tournament::{
    JudgeId, PairKind, PlayerId, SeatedTable, Stage, Tournament, TournamentCommand, TournamentError,
};
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
    let s = stage_of(t, stage, round)?;
    if t.round(stage, round).is_some() {
        // Its games may be open already; the chief judge swaps seats instead.
        return Err(Status::failed_precondition(format!(
            "round {round} of stage {stage} is already seated: swap seats to change it"
        )));
    }
    let input = stage_input(t, s, policies)?;
    let seating = mafia_seating::seat(&input, seed)
        .map_err(|e| Status::failed_precondition(format!("seating stage {stage}: {e}")))?;
    let metrics = Metrics::compute(&input, &seating)
        .map_err(|e| Status::internal(format!("seating metrics: {e}")))?;
    Ok((
        TournamentCommand::SeatRound {
            stage: stage.clone(),
            round,
            tables: round_tables(&seating, round),
        },
        metrics,
    ))
}

fn stage_of<'t>(t: &'t Tournament, stage: &StageId, round: u32) -> Result<&'t Stage, Status> {
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
    Ok(s)
}

/// The stage to seat: the players registered and not withdrawn (in id
/// order), the judges, the tournament's pair rules and then `policies`.
fn stage_input(
    t: &Tournament,
    s: &Stage,
    policies: Vec<PairPolicy>,
) -> Result<SeatingInput, Status> {
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
    input.policies = t
        .pair_rules
        .iter()
        .map(|r| PairPolicy {
            kind: match r.kind {
                PairKind::Separate => PolicyKind::Separate,
                PairKind::Avoid => PolicyKind::Avoid,
            },
            a: r.a.to_string(),
            b: r.b.to_string(),
        })
        .chain(policies)
        .collect();
    Ok(input)
}

fn round_tables(seating: &Seating, round: u32) -> Vec<SeatedTable> {
    seating.rounds[round as usize - 1]
        .tables
        .iter()
        .enumerate()
        .map(|(i, ts)| SeatedTable {
            table: i as u32 + 1,
            seats: ts.seats.iter().map(PlayerId::new).collect(),
            judge: ts.judge.as_ref().map(JudgeId::new),
        })
        .collect()
}

/// A round's seating proposal and what it is worth.
pub struct Plan {
    pub tables: Vec<SeatedTable>,
    /// The stage so far with this round (its other seated rounds, in
    /// order); `None` when the proposal is not a seating at all (a table
    /// not of 10, a player twice, one unknown).
    pub metrics: Option<Metrics>,
    /// A random seating of the same players, tables and rounds.
    pub random: Option<Metrics>,
    /// Every rule the proposal breaks (`Tournament::seating_problems`),
    /// the texts `seat_round` refuses with, and each in Russian.
    pub problems: Vec<String>,
    pub problems_ru: Vec<String>,
}

/// Round `round` as generated from `seed` (`proposal` `None`), or the
/// caller's proposal, checked and measured.
pub fn plan(
    t: &Tournament,
    stage: &StageId,
    round: u32,
    seed: u64,
    proposal: Option<Vec<SeatedTable>>,
) -> Result<Plan, Status> {
    let s = stage_of(t, stage, round)?;
    let input = stage_input(t, s, Vec::new())?;
    let tables = match proposal {
        Some(tables) => tables,
        None => {
            let seating = mafia_seating::seat(&input, seed)
                .map_err(|e| Status::failed_precondition(format!("seating stage {stage}: {e}")))?;
            round_tables(&seating, round)
        }
    };
    let found = t.seating_problems(stage, round, &tables);
    let problems = found.iter().map(ToString::to_string).collect();
    let problems_ru = found.iter().map(in_russian).collect();
    let (so_far, measured) = stage_so_far(t, stage, round, &tables, &input);
    let metrics = Metrics::compute(&measured, &so_far).ok();
    let mut baseline = input;
    baseline.rounds = so_far.rounds.len();
    let random = mafia_seating::random_seating(&baseline, seed)
        .and_then(|r| Metrics::compute(&baseline, &r))
        .ok();
    Ok(Plan {
        tables,
        metrics,
        random,
        problems,
        problems_ru,
    })
}

/// A seating problem in Russian (`Tournament::seating_problems` gives
/// these variants).
fn in_russian(e: &TournamentError) -> String {
    use TournamentError as E;
    match e {
        E::UnknownStage(s) => format!("этапа {s} нет"),
        E::RoundOutOfRange {
            stage,
            round,
            rounds,
        } => format!("в этапе {stage} туры 1–{rounds}; тура {round} нет"),
        E::RoundAlreadyUnderway { stage, round } => {
            format!("в туре {round} этапа {stage} уже назначены игры: его нельзя рассадить заново")
        }
        E::NoTables => "в туре должен быть хотя бы один стол".into(),
        E::TableOutOfRange {
            stage,
            table,
            tables,
        } => format!("в этапе {stage} столы 1–{tables}; стола {table} нет"),
        E::TableTwice(t) => format!("стол {t} рассажен в туре дважды"),
        E::TableNotFull { table, seats } => {
            format!("за столом {table} мест: {seats}; за столом 10 мест")
        }
        E::UnknownJudge(j) => format!("судья {j} не зарегистрирован"),
        E::UnknownPlayer(p) => format!("игрок {p} не зарегистрирован"),
        E::PlayerWithdrawn(p) => format!("игрок {p} снялся с турнира"),
        E::PlayerAtTwoTables {
            player,
            round,
            first,
            second,
        } => format!(
            "игрок {player} посажен за столы {first} и {second} в туре {round}: игрок играет за одним столом в туре"
        ),
        E::PlayerTwiceAtTable { player, table } => {
            format!("игрок {player} посажен за стол {table} дважды")
        }
        E::SeparatePairSeated { a, b, table } => format!(
            "{a} и {b} сидят за столом {table}, а турнир их разводит (separate)"
        ),
        other => other.to_string(),
    }
}

/// The stage's seated rounds with `tables` as round `round`, in round
/// order, and the input to measure them against: every player they seat
/// (a withdrawn one who played included) and the stage's rules.
fn stage_so_far(
    t: &Tournament,
    stage: &StageId,
    round: u32,
    tables: &[SeatedTable],
    input: &SeatingInput,
) -> (Seating, SeatingInput) {
    let mut rounds: Vec<(u32, Vec<&SeatedTable>)> = t
        .rounds
        .iter()
        .filter(|((s, r), _)| s == stage && *r != round)
        .map(|((_, r), seated)| (*r, seated.tables.values().collect()))
        .collect();
    rounds.push((round, tables.iter().collect()));
    rounds.sort_by_key(|(r, _)| *r);
    let mut measured = input.clone();
    let seating = Seating {
        rounds: rounds
            .iter()
            .map(|(_, tables)| mafia_seating::RoundSeating {
                tables: tables
                    .iter()
                    .map(|st| mafia_seating::TableSeating {
                        judge: st.judge.as_ref().map(|j| j.to_string()),
                        seats: st.seats.iter().map(|p| p.to_string()).collect(),
                    })
                    .collect(),
                resting: Vec::new(),
            })
            .collect(),
    };
    for p in seating
        .rounds
        .iter()
        .flat_map(|r| &r.tables)
        .flat_map(|t| &t.seats)
    {
        if !measured.players.iter().any(|q| &q.id == p) {
            if let Some(r) = t.players.get(&PlayerId::new(p)) {
                measured
                    .players
                    .push(mafia_seating::Player::new(p, &r.player.nickname));
            }
        }
    }
    measured.rounds = seating.rounds.len();
    (seating, measured)
}
