//! The games each command touches, what its giver's grant must cover
//! (`mafia_access::Caller::may_rule` / `may_organise` decide): a game for
//! what is about one game, the tables of a round for seating, and the whole
//! tournament for what concerns every game (players, stages, judges, pair
//! rules, lots, publishing).

use mafia_access::Scope;
use mafia_record::StageId;
use mafia_tournament::{Tournament, TournamentCommand};

pub fn touches(t: &Tournament, cmd: &TournamentCommand) -> Vec<Scope> {
    use TournamentCommand as C;
    let whole = || vec![Scope::Tournament(t.id.clone())];
    let table = |stage: &StageId, round: u32, table: u32| Scope::Table {
        tournament: t.id.clone(),
        stage: stage.clone(),
        round,
        table,
    };
    let scopes = match cmd {
        C::AssignGame { game, .. }
        | C::RecordResult { game, .. }
        | C::SubmitJudgeInputs { game, .. }
        | C::Approve { game, .. }
        | C::Refuse { game, .. }
        | C::ConfirmResult { game }
        | C::FileAppeal { game, .. } => vec![Scope::Game(game.clone())],
        // An appeal not filed touches nothing known: only a chief judge of
        // the whole tournament learns that it does not exist.
        C::DecideAppeal { appeal, .. } => match t.appeals.get(appeal) {
            Some(a) => vec![Scope::Game(a.game.clone())],
            None => whole(),
        },
        C::SeatRound {
            stage,
            round,
            tables,
        } => tables
            .iter()
            .map(|st| table(stage, *round, st.table))
            .collect(),
        C::SwapSeats { stage, round, a, b } => {
            vec![table(stage, *round, a.table), table(stage, *round, b.table)]
        }
        C::AddJudge { .. }
        | C::AddStage { .. }
        | C::RegisterPlayer { .. }
        | C::WithdrawPlayer { .. }
        | C::UpdatePlayer { .. }
        | C::DrawLot { .. }
        | C::SetPairRules { .. }
        | C::PublishStandings
        | C::SetDates { .. }
        | C::Archive
        | C::Unarchive
        | C::Remove => whole(),
    };
    // A command that names no game (a seating of no tables) is checked
    // against the whole tournament, never against nothing.
    if scopes.is_empty() {
        whole()
    } else {
        scopes
    }
}
