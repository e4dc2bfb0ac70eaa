//! Scoring schemes as data. A scheme is versioned (`id` + `version`) and
//! stored whole in the tournament's creation event, so a log always scores
//! the way it was scored when it was written, whatever later presets say.
//!
//! Every rule carries the clause it comes from; validation errors quote it.

use crate::facts::Outcome;
use crate::points::Points;
use mafia_rules::{Role, Team};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SchemeId(pub String);

impl fmt::Display for SchemeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Points by role: civilian, sheriff (club's Commissar), beauty, mafia, don.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByRole {
    pub civilian: Points,
    pub sheriff: Points,
    pub beauty: Points,
    pub mafia: Points,
    pub don: Points,
}

impl ByRole {
    pub const fn all(p: Points) -> ByRole {
        ByRole {
            civilian: p,
            sheriff: p,
            beauty: p,
            mafia: p,
            don: p,
        }
    }

    pub fn get(&self, r: Role) -> Points {
        match r {
            Role::Civilian => self.civilian,
            Role::Sheriff => self.sheriff,
            Role::Beauty => self.beauty,
            Role::Mafia => self.mafia,
            Role::Don => self.don,
        }
    }
}

/// Best-move points by the guesser's role and his hits (index 0..=3).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestMovePoints {
    pub civilian: [Points; 4],
    pub sheriff: [Points; 4],
    pub beauty: [Points; 4],
    pub mafia: [Points; 4],
    pub don: [Points; 4],
    pub clause: String,
}

impl BestMovePoints {
    pub fn get(&self, r: Role, hits: u8) -> Points {
        let row = match r {
            Role::Civilian => &self.civilian,
            Role::Sheriff => &self.sheriff,
            Role::Beauty => &self.beauty,
            Role::Mafia => &self.mafia,
            Role::Don => &self.don,
        };
        row[(hits as usize).min(3)]
    }
}

/// The extra-point values a judge may give one player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Allowed {
    /// Exactly one of these (rfm §6.4.2: no +1.1, no +0.35).
    List { values: Vec<Points> },
    /// Any multiple of `step` in (0, max].
    UpTo { max: Points, step: Points },
    /// None at all (a draw in rfm §4.7.1 and minsk2017 §8.4.4).
    Nothing,
}

impl Allowed {
    pub fn admits(&self, v: Points) -> bool {
        match self {
            Allowed::List { values } => values.contains(&v),
            Allowed::UpTo { max, step } => {
                v.is_positive() && v <= *max && step.raw() > 0 && v.raw() % step.raw() == 0
            }
            Allowed::Nothing => false,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Allowed::List { values } => values
                .iter()
                .map(|v| format!("+{v}"))
                .collect::<Vec<_>>()
                .join(", "),
            Allowed::UpTo { max, step } => format!("up to +{max} in steps of {step}"),
            Allowed::Nothing => "none".to_owned(),
        }
    }
}

/// A limit that may be raised to `approved` by the chief judge; above that,
/// never.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cap<T> {
    pub limit: T,
    #[serde(default)]
    pub approved: Option<T>,
    pub clause: String,
}

impl<T: PartialOrd + Copy> Cap<T> {
    /// Whether `v` is within the limit, within it only with approval, or over.
    pub fn check(&self, v: T) -> CapCheck {
        if v <= self.limit {
            CapCheck::Within
        } else if self.approved.is_some_and(|a| v <= a) {
            CapCheck::NeedsApproval
        } else {
            CapCheck::Over
        }
    }

    /// The highest value ever allowed.
    pub fn ceiling(&self) -> T {
        self.approved.unwrap_or(self.limit)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapCheck {
    Within,
    NeedsApproval,
    Over,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraRules {
    pub winner: Allowed,
    pub loser: Allowed,
    pub draw: Allowed,
    /// Clause of the allowed lists.
    pub clause: String,
    /// Clause that forbids extras in a draw.
    pub draw_clause: String,
    /// Values that need the chief judge's approval (rfm §6.4.2: +1.6).
    #[serde(default)]
    pub need_approval: Vec<Points>,
    #[serde(default)]
    pub need_approval_clause: String,
    /// The sum of one game's positive extras (rfm §6.4.4).
    #[serde(default)]
    pub game_sum: Option<Cap<Points>>,
    /// How many players one game may reward (rfm §6.4.6, minsk2017 §8.4.1).
    #[serde(default)]
    pub rewarded: Option<Cap<u32>>,
    /// Extra + best-move points of one player (rfm §6.4.8).
    #[serde(default)]
    pub with_best_move: Option<Cap<Points>>,
}

impl ExtraRules {
    pub fn allowed(&self, o: Outcome) -> &Allowed {
        match o {
            Outcome::Win => &self.winner,
            Outcome::Loss => &self.loser,
            Outcome::Draw => &self.draw,
        }
    }
}

/// Penalties the engine's record already shows, applied without a judge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordPenalties {
    /// Per small penalty (rfm §5.10).
    pub small: Option<Penalty>,
    /// Per big penalty (rfm §5.11).
    pub big: Option<Penalty>,
    /// Removed from the table (rfm §5.12, §6.5.3; minsk2017 §8.2.5).
    pub removal: Option<Penalty>,
    /// Removed by fouls (the 4th; ua: technical fouls), not disqualified,
    /// where that costs other than `removal` (minsk2017: the 4th foul is no
    /// disqualification, so 0). `None`: `removal` (rfm §5.12.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fouled_out: Option<Penalty>,
    /// Per yellow card (rfm §6.5.3).
    pub yellow_card: Option<Penalty>,
    /// The player whose act lost his team the game (rfm §5.13, §6.5.4);
    /// replaces the removal penalty.
    pub opposite_team_victory: Option<Penalty>,
    /// Each player who left in a simultaneous all-out (rfm §5.22).
    pub all_out: Option<Penalty>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penalty {
    pub points: Points,
    pub clause: String,
}

/// When a judge's post-game penalty may be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PenaltyWhen {
    /// The player's team lost.
    Lost,
    /// The player's team lost, or the game was a draw.
    LostOrDraw,
    Any,
}

impl PenaltyWhen {
    pub fn admits(self, o: Outcome) -> bool {
        match self {
            PenaltyWhen::Lost => o == Outcome::Loss,
            PenaltyWhen::LostOrDraw => o != Outcome::Win,
            PenaltyWhen::Any => true,
        }
    }
}

/// A post-game penalty a judge may give, named by its clause code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PenaltyRule {
    /// The code a judge's input names, e.g. "6.5.9".
    pub code: String,
    pub points: Points,
    pub when: PenaltyWhen,
    pub clause: String,
    /// Only for a player of this team (rfm §6.5.11: "игроку команды мирных
    /// жителей"); `None`: either team.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<Team>,
}

impl PenaltyRule {
    /// Whether a judge may give it to a player of `team` with `outcome`.
    pub fn applies(&self, team: Team, outcome: Outcome) -> bool {
        self.team.is_none_or(|t| t == team) && self.when.admits(outcome)
    }
}

/// rfm §6.8: compensation for a red player or Sheriff shot on night 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compensation {
    /// 0.5 in Ci = i·0.5/B.
    pub factor: Points,
    /// B is this share (per cent) of the player's games, rounded.
    pub games_percent: u32,
    /// Ciw = Ci × this (0.5).
    pub won_factor_percent: u32,
    /// Cil ≤ 0.5 per shot.
    pub lost_cap: Points,
    /// Ciw ≤ 0.4 per shot.
    pub won_cap: Points,
    pub clause: String,
}

/// Tie-break criteria, applied in the scheme's order after the total; the
/// last word is always a recorded lot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieBreak {
    /// rfm §6.7.1.1: judge's extras with penalties (no best move, no Ci).
    ExtraAndPenalties,
    /// minsk2017 §8.5.1: extras with the removal penalty and best move.
    ExtraPenaltiesAndBestMove,
    /// rfm §6.7.1.2: the same extras over fewer games.
    FewerGames,
    /// rfm §6.7.1.3, minsk2017 §8.5.2.
    MoreWins,
    /// minsk2017 §8.5.3.
    MoreWinsAsDonOrSheriff,
    /// rfm §6.7.1.4, minsk2017 §8.5.4: shot on night 1, any role.
    MoreFirstNightDeaths,
    /// rfm §6.7.1.5: more best moves with 3 hits, then with 2.
    MoreBestMoveTriplesThenDoubles,
    /// rfm §6.7.1.6: the highest judge's extra in a single game.
    HighestSingleExtra,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheme {
    pub id: SchemeId,
    pub version: u32,
    pub name: String,
    /// Where the figures come from, or that they are a documented default.
    pub source: String,
    pub base: OutcomePoints,
    pub best_move: BestMovePoints,
    pub extras: ExtraRules,
    pub record_penalties: RecordPenalties,
    #[serde(default)]
    pub judge_penalties: Vec<PenaltyRule>,
    #[serde(default)]
    pub compensation: Option<Compensation>,
    /// Minutes after the game's end an appeal may be filed.
    pub appeal_window_minutes: u32,
    pub appeal_clause: String,
    /// The clause that lets the chief judge review a game's result with no
    /// appeal, so with no window (rfm §7.4); `None`: he files in the window
    /// like anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chief_review_clause: Option<String>,
    pub tie_breaks: Vec<TieBreak>,
    pub tie_break_clause: String,
}

/// Base points per outcome × role.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomePoints {
    pub win: ByRole,
    pub loss: ByRole,
    pub draw: ByRole,
    pub clause: String,
}

impl OutcomePoints {
    pub fn get(&self, o: Outcome, r: Role) -> Points {
        match o {
            Outcome::Win => self.win.get(r),
            Outcome::Loss => self.loss.get(r),
            Outcome::Draw => self.draw.get(r),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemeError {
    #[error("unknown scoring scheme {0:?}; known: rfm, minsk2017, classic, ua, club, or a custom scheme in JSON")]
    Unknown(String),
    #[error("the scheme's JSON is malformed: {0}")]
    Json(String),
    #[error("the scheme is inconsistent: {0}")]
    Invalid(String),
}

fn s(x: &str) -> String {
    x.to_owned()
}

fn tenths(from: i64, to: i64) -> Vec<Points> {
    (from..=to).map(|t| Points::c(t * 10)).collect()
}

impl Scheme {
    pub const PRESETS: [&'static str; 5] = ["rfm", "minsk2017", "classic", "ua", "club"];

    /// A built-in scheme by id.
    pub fn preset(id: &str) -> Result<Scheme, SchemeError> {
        match id {
            "rfm" => Ok(Scheme::rfm()),
            "minsk2017" => Ok(Scheme::minsk2017()),
            "classic" | "ua" | "club" => Ok(Scheme::simple(id)),
            other => Err(SchemeError::Unknown(other.to_owned())),
        }
    }

    /// rfm §6 (000_90dbcc835839dac8.txt), with §4.7.1, §5.10–5.13, §5.22, §7.3.6.
    pub fn rfm() -> Scheme {
        let mut winner = tenths(3, 10);
        winner.extend([Points::c(120), Points::c(160)]);
        Scheme {
            id: SchemeId(s("rfm")),
            // 2: the judge's post-game penalty `5.13` (§5.16), the chief
            // judge's review without an appeal (§7.4).
            version: 2,
            name: s("Russian Mafia Federation (rfm §6)"),
            source: s("000_90dbcc835839dac8.txt §6, §4.7.1, §5.10–§5.13, §5.22, §7.3"),
            base: OutcomePoints {
                win: ByRole::all(Points::c(100)),
                loss: ByRole::default(),
                draw: ByRole::default(),
                clause: s("rfm §6.3"),
            },
            best_move: BestMovePoints {
                civilian: [Points::ZERO, Points::ZERO, Points::c(55), Points::c(80)],
                beauty: [Points::ZERO, Points::ZERO, Points::c(55), Points::c(80)],
                sheriff: [Points::ZERO, Points::ZERO, Points::c(45), Points::c(70)],
                mafia: [Points::ZERO; 4],
                don: [Points::ZERO; 4],
                clause: s("rfm §6.6.2–§6.6.5"),
            },
            extras: ExtraRules {
                winner: Allowed::List { values: winner },
                loser: Allowed::List {
                    values: tenths(2, 8),
                },
                draw: Allowed::Nothing,
                clause: s("rfm §6.4.2, §6.4.3"),
                draw_clause: s("rfm §4.7.1"),
                need_approval: vec![Points::c(160)],
                need_approval_clause: s("rfm §6.4.2"),
                game_sum: Some(Cap {
                    limit: Points::c(350),
                    approved: Some(Points::c(400)),
                    clause: s("rfm §6.4.4"),
                }),
                rewarded: Some(Cap {
                    limit: 6,
                    approved: Some(8),
                    clause: s("rfm §6.4.6"),
                }),
                with_best_move: Some(Cap {
                    limit: Points::c(120),
                    approved: None,
                    clause: s("rfm §6.4.8"),
                }),
            },
            record_penalties: RecordPenalties {
                small: Some(Penalty {
                    points: Points::c(-20),
                    clause: s("rfm §5.10"),
                }),
                big: Some(Penalty {
                    points: Points::c(-50),
                    clause: s("rfm §5.11"),
                }),
                removal: Some(Penalty {
                    points: Points::c(-120),
                    clause: s("rfm §5.12, §6.5.3"),
                }),
                yellow_card: Some(Penalty {
                    points: Points::c(-120),
                    clause: s("rfm §6.5.3"),
                }),
                opposite_team_victory: Some(Penalty {
                    points: Points::c(-160),
                    clause: s("rfm §5.13, §6.5.4"),
                }),
                all_out: Some(Penalty {
                    points: Points::c(-120),
                    clause: s("rfm §5.22"),
                }),
                // §5.12.3: the 4th foul disqualifies, so `removal`.
                fouled_out: None,
            },
            judge_penalties: rfm_judge_penalties(),
            compensation: Some(Compensation {
                factor: Points::c(50),
                games_percent: 40,
                won_factor_percent: 50,
                lost_cap: Points::c(50),
                won_cap: Points::c(40),
                clause: s("rfm §6.8"),
            }),
            appeal_window_minutes: 10,
            appeal_clause: s("rfm §7.3.6"),
            chief_review_clause: Some(s("rfm §7.4")),
            tie_breaks: vec![
                TieBreak::ExtraAndPenalties,
                TieBreak::FewerGames,
                TieBreak::MoreWins,
                TieBreak::MoreFirstNightDeaths,
                TieBreak::MoreBestMoveTriplesThenDoubles,
                TieBreak::HighestSingleExtra,
            ],
            tie_break_clause: s("rfm §6.7.1"),
        }
    }

    /// minsk2017 §8 (002_d7f74dd799d8c6c9.txt).
    pub fn minsk2017() -> Scheme {
        let bm = [Points::ZERO, Points::ZERO, Points::c(25), Points::c(50)];
        Scheme {
            id: SchemeId(s("minsk2017")),
            // 2: no penalty for the 4th foul (§8.2.5 is for a disqualification).
            version: 2,
            name: s("Dirty Marathon 2017, Minsk (minsk2017 §8)"),
            source: s("002_d7f74dd799d8c6c9.txt §8"),
            base: OutcomePoints {
                win: ByRole::all(Points::c(200)),
                loss: ByRole::default(),
                draw: ByRole::default(),
                clause: s("minsk2017 §8.2"),
            },
            best_move: BestMovePoints {
                civilian: bm,
                beauty: bm,
                sheriff: bm,
                mafia: [Points::ZERO; 4],
                don: [Points::ZERO; 4],
                clause: s("minsk2017 §8.3.1"),
            },
            extras: ExtraRules {
                // §8.4.2 gives only the maxima; the step (0.05) is ours.
                winner: Allowed::UpTo {
                    max: Points::c(100),
                    step: Points::c(5),
                },
                loser: Allowed::UpTo {
                    max: Points::c(50),
                    step: Points::c(5),
                },
                draw: Allowed::Nothing,
                clause: s("minsk2017 §8.4.2"),
                draw_clause: s("minsk2017 §8.4.4"),
                need_approval: vec![],
                need_approval_clause: String::new(),
                game_sum: None,
                rewarded: Some(Cap {
                    limit: 3,
                    approved: None,
                    clause: s("minsk2017 §8.4.1"),
                }),
                with_best_move: None,
            },
            record_penalties: RecordPenalties {
                removal: Some(Penalty {
                    points: Points::c(-100),
                    clause: s("minsk2017 §8.2.5"),
                }),
                // §6.5, §7.1–§7.4: "the 4th or a disqualifying foul"; only
                // §6.7's list disqualifies from the table.
                fouled_out: Some(Penalty {
                    points: Points::ZERO,
                    clause: s("minsk2017 §6.5, §6.7, §8.2.5"),
                }),
                ..RecordPenalties::default()
            },
            judge_penalties: vec![],
            compensation: None,
            appeal_window_minutes: 10,
            appeal_clause: s("minsk2017 §8.6.1"),
            chief_review_clause: None,
            tie_breaks: vec![
                TieBreak::ExtraPenaltiesAndBestMove,
                TieBreak::MoreWins,
                TieBreak::MoreWinsAsDonOrSheriff,
                TieBreak::MoreFirstNightDeaths,
            ],
            tie_break_clause: s("minsk2017 §8.5"),
        }
    }

    /// The default for rule sets whose source has no points system
    /// (`classic`, `ua`, `club`): rfm's figures without what needs an rfm
    /// chief judge's category or approval (+1.6, the raised caps, the
    /// judge-category penalties) and without Ci, which is rfm's own formula.
    pub fn simple(id: &str) -> Scheme {
        let mut s_ = Scheme::rfm();
        s_.id = SchemeId(id.to_owned());
        s_.version = 1;
        s_.name = format!("{id}: default simple scheme (the source has no points system)");
        s_.source = format!(
            "default: {id}'s rulebook defines no points; rfm-like win +1, rfm's extras without approvals, rfm's best move and record penalties"
        );
        let clause = format!("{id} default scheme");
        s_.base.clause = clause.clone();
        s_.best_move.clause = clause.clone();
        if let Allowed::List { values } = &mut s_.extras.winner {
            values.retain(|v| *v != Points::c(160));
        }
        s_.extras.clause = clause.clone();
        s_.extras.draw_clause = clause.clone();
        s_.extras.need_approval.clear();
        s_.extras.need_approval_clause.clear();
        for cap in [&mut s_.extras.game_sum, &mut s_.extras.with_best_move]
            .into_iter()
            .flatten()
        {
            cap.approved = None;
            cap.clause = clause.clone();
        }
        if let Some(r) = &mut s_.extras.rewarded {
            r.approved = None;
            r.clause = clause.clone();
        }
        for p in [
            &mut s_.record_penalties.small,
            &mut s_.record_penalties.big,
            &mut s_.record_penalties.removal,
            &mut s_.record_penalties.yellow_card,
            &mut s_.record_penalties.opposite_team_victory,
            &mut s_.record_penalties.all_out,
        ]
        .into_iter()
        .flatten()
        {
            p.clause = clause.clone();
        }
        s_.judge_penalties = vec![PenaltyRule {
            code: s("penalty"),
            points: Points::c(-40),
            when: PenaltyWhen::Any,
            clause: clause.clone(),
            team: None,
        }];
        s_.compensation = None;
        s_.appeal_clause = clause.clone();
        s_.chief_review_clause = None;
        s_.tie_break_clause = clause;
        if id == "club" {
            // The club's own rulebook does name this one: a player who shows
            // his card gives the game to the other team and loses 2 points.
            s_.record_penalties.opposite_team_victory = Some(Penalty {
                points: Points::c(-200),
                clause: s("club «Правила поведения «днем»»: showing one's card, −2"),
            });
        }
        s_
    }

    /// A custom scheme from JSON (the same shape [`Scheme`] serializes to).
    pub fn from_json(json: &str) -> Result<Scheme, SchemeError> {
        let s: Scheme = serde_json::from_str(json).map_err(|e| SchemeError::Json(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    pub fn validate(&self) -> Result<(), SchemeError> {
        let bad = |m: String| Err(SchemeError::Invalid(m));
        if self.id.0.is_empty() {
            return bad(s("the id is empty"));
        }
        if self.version == 0 {
            return bad(s("versions start at 1"));
        }
        for (side, a) in [
            ("winner", &self.extras.winner),
            ("loser", &self.extras.loser),
            ("draw", &self.extras.draw),
        ] {
            match a {
                Allowed::List { values } if values.iter().any(|v| !v.is_positive()) => {
                    return bad(format!("the {side} list holds a value ≤ 0"));
                }
                Allowed::UpTo { max, step } if !max.is_positive() || !step.is_positive() => {
                    return bad(format!("the {side} range needs a positive max and step"));
                }
                _ => {}
            }
        }
        if let Some(c) = &self.extras.game_sum {
            if c.approved.is_some_and(|a| a < c.limit) {
                return bad(s("the game sum's approved cap is below its limit"));
            }
        }
        if let Some(c) = &self.extras.rewarded {
            if c.approved.is_some_and(|a| a < c.limit) {
                return bad(s("the rewarded count's approved cap is below its limit"));
            }
        }
        let mut codes: Vec<&str> = self
            .judge_penalties
            .iter()
            .map(|p| p.code.as_str())
            .collect();
        codes.sort_unstable();
        if codes.windows(2).any(|w| w[0] == w[1]) {
            return bad(s("two judge penalties share a code"));
        }
        if self.judge_penalties.iter().any(|p| !p.points.is_negative()) {
            return bad(s("a judge penalty must be negative"));
        }
        if let Some(c) = &self.compensation {
            if c.games_percent == 0 {
                return bad(s("Ci's games share must be positive"));
            }
        }
        if self.tie_breaks.contains(&TieBreak::ExtraAndPenalties)
            && self
                .tie_breaks
                .contains(&TieBreak::ExtraPenaltiesAndBestMove)
        {
            // Harmless, but almost certainly a typo in a custom scheme.
            return bad(s("two extra-point tie-breaks"));
        }
        Ok(())
    }

    pub fn appeal_window_ms(&self) -> i64 {
        self.appeal_window_minutes as i64 * 60_000
    }

    pub fn judge_penalty(&self, code: &str) -> Option<&PenaltyRule> {
        self.judge_penalties.iter().find(|p| p.code == code)
    }
}

/// rfm's post-game penalties by clause (§5.10–5.11 after the game from video,
/// §5.12–5.13 found after the game, §5.16; §6.5.8–§6.5.13). The judge-category limits of §6.5.8.1–3 are the judges'
/// business and not checked here.
fn rfm_judge_penalties() -> Vec<PenaltyRule> {
    let r = |code: &str, c: i64, when: PenaltyWhen, clause: &str| PenaltyRule {
        code: code.to_owned(),
        points: Points::c(c),
        when,
        clause: clause.to_owned(),
        team: None,
    };
    // §6.5.11.1–3 name a player of the red team (the Sheriff is one).
    let red = |rule: PenaltyRule| PenaltyRule {
        team: Some(Team::Red),
        ..rule
    };
    vec![
        r("5.10", -20, PenaltyWhen::Any, "rfm §5.10"),
        r("5.11", -50, PenaltyWhen::Any, "rfm §5.11"),
        r("5.12", -120, PenaltyWhen::Any, "rfm §5.12, §5.16"),
        r("5.13", -160, PenaltyWhen::Any, "rfm §5.13, §5.16"),
        r("6.5.3", -120, PenaltyWhen::Any, "rfm §6.5.3"),
        r("6.5.8-0.2", -20, PenaltyWhen::Lost, "rfm §6.5.8"),
        r("6.5.8-0.4", -40, PenaltyWhen::Lost, "rfm §6.5.8"),
        r("6.5.8-0.7", -70, PenaltyWhen::Lost, "rfm §6.5.8"),
        r("6.5.9", -120, PenaltyWhen::LostOrDraw, "rfm §6.5.9"),
        r("6.5.10", -70, PenaltyWhen::LostOrDraw, "rfm §6.5.10"),
        red(r("6.5.11", -40, PenaltyWhen::Lost, "rfm §6.5.11")),
        red(r("6.5.11.1", -40, PenaltyWhen::Any, "rfm §6.5.11.1")),
        r("6.5.12", -120, PenaltyWhen::Any, "rfm §6.5.12"),
        r("6.5.13", -60, PenaltyWhen::Any, "rfm §6.5.13"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_round_trips_through_json() {
        for id in Scheme::PRESETS {
            let s = Scheme::preset(id).unwrap();
            s.validate().unwrap();
            let j = serde_json::to_string(&s).unwrap();
            assert_eq!(Scheme::from_json(&j).unwrap(), s, "{id}");
        }
    }

    #[test]
    fn rfm_6_4_2_the_winners_list_has_no_1_1_and_no_0_35() {
        let s = Scheme::rfm();
        assert!(!s.extras.winner.admits(Points::c(110)));
        assert!(!s.extras.winner.admits(Points::c(35)));
        assert!(s.extras.winner.admits(Points::c(120)));
        assert!(s.extras.loser.admits(Points::c(20)));
        assert!(!s.extras.loser.admits(Points::c(90)));
    }

    #[test]
    fn an_unknown_scheme_is_refused() {
        assert!(matches!(
            Scheme::preset("fifa"),
            Err(SchemeError::Unknown(_))
        ));
    }
}
