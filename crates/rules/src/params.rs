//! Rule sets and their parameters: every point where the five rulebooks differ
//! is a field here, with each rule set's value in its preset. A club's own
//! variant is a preset with some fields overridden.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// The five rulebooks in `shared/rules/sources/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSetId {
    /// 000: Russian Mafia Federation tournament rules.
    Rfm,
    /// 001: the basic rules of classic sports mafia.
    Classic,
    /// 002: "Dirty Marathon 2017", Minsk.
    Minsk2017,
    /// 003: Ukrainian rules.
    Ua,
    /// 004: a club variant with the Beauty and free talk.
    Club,
}

impl RuleSetId {
    pub const ALL: [RuleSetId; 5] = [
        RuleSetId::Rfm,
        RuleSetId::Classic,
        RuleSetId::Minsk2017,
        RuleSetId::Ua,
        RuleSetId::Club,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            RuleSetId::Rfm => "rfm",
            RuleSetId::Classic => "classic",
            RuleSetId::Minsk2017 => "minsk2017",
            RuleSetId::Ua => "ua",
            RuleSetId::Club => "club",
        }
    }

    /// The source file the clauses of this rule set refer to.
    pub const fn source_file(self) -> &'static str {
        match self {
            RuleSetId::Rfm => "000_90dbcc835839dac8.txt",
            RuleSetId::Classic => "001_e2e9d27b7bfc0352.txt",
            RuleSetId::Minsk2017 => "002_d7f74dd799d8c6c9.txt",
            RuleSetId::Ua => "003_c480b6310ff6d6d1.txt",
            RuleSetId::Club => "004_6b6e0f80122106ae.txt",
        }
    }

    /// The three-digit prefix used in clause references ("000 §4.4.13").
    pub const fn source_prefix(self) -> &'static str {
        match self {
            RuleSetId::Rfm => "000",
            RuleSetId::Classic => "001",
            RuleSetId::Minsk2017 => "002",
            RuleSetId::Ua => "003",
            RuleSetId::Club => "004",
        }
    }

    /// A clause as a judge reads it: "003 §3.11" (the source file's
    /// number) as "ua §3.11"; any other text as it is.
    pub fn named_clause(clause: &str) -> String {
        RuleSetId::ALL
            .iter()
            .find_map(|r| {
                let rest = clause.strip_prefix(r.source_prefix())?.strip_prefix(' ')?;
                Some(format!("{} {rest}", r.as_str()))
            })
            .unwrap_or_else(|| clause.to_owned())
    }
}

impl fmt::Display for RuleSetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a rule set id that is not one of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule set {0:?}; known: rfm, classic, minsk2017, ua, club")]
pub struct UnknownRuleSet(pub String);

impl FromStr for RuleSetId {
    type Err = UnknownRuleSet;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleSetId::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRuleSet(s.to_string()))
    }
}

/// The cards in the tray. Must add up to 10 with exactly one Don and one Sheriff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cards {
    pub civilians: u8,
    pub sheriffs: u8,
    pub beauties: u8,
    pub mafiosi: u8,
    pub dons: u8,
}

/// A timed step of the meeting night (night 0), ended by the judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Night0Step {
    /// The black team meets and the Don sets the shooting order.
    Meeting,
    /// The Sheriff (Commissar) shows himself or a sign to the judge.
    SheriffSign,
    /// The Don shows himself or a sign to the judge.
    DonSign,
    /// The Sheriff and the Don show their signs together (rfm §4.2.2).
    SheriffAndDonSign,
    /// The Beauty wakes and shows herself (club).
    BeautySign,
    /// Everyone may take the mask off and change posture (rfm §4.2.5, ua §3.9).
    FreeSeating,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedStep {
    pub step: Night0Step,
    pub secs: u16,
}

/// A step of a shooting night (night 1 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NightAction {
    BeautyPick,
    Shooting,
    DonCheck,
    SheriffCheck,
}

/// What a player's third foul costs him.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThirdFoul {
    /// The next speech is lost; he may still nominate during his turn.
    LoseSpeech,
    /// The next speech is shortened to `FoulPolicy::short_speech_secs`.
    ShortSpeech,
}

/// When a third foul is given during the player's own speech.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoulDuringSpeech {
    /// The speech in progress ends at once (club: "this round lost").
    EndsThisSpeech,
    /// The speech goes on; the next day's speech is affected.
    NextDay,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoulPolicy {
    /// The foul that silences (3 in every rulebook).
    pub mute_at: u8,
    /// The foul that removes (4 in every rulebook).
    pub remove_at: u8,
    pub third_foul: ThirdFoul,
    /// Speech length under `ThirdFoul::ShortSpeech` (minsk2017 §6.4: 30 s).
    pub short_speech_secs: u16,
    /// A muted player whose speech of the day is already past loses the next
    /// day's speech but gets this many seconds for nominations only (rfm §5.5: 10).
    pub carried_over_secs: u16,
    pub during_speech: FoulDuringSpeech,
    /// With this many living players or fewer, a muted player speaks
    /// `critical_secs` instead (rfm §5.5, classic §6.6, ua §3.13: 30 s at 3–4).
    pub critical_players: u8,
    /// `None`: no special treatment at the critical round.
    pub critical_secs: Option<u16>,
    /// The `critical_secs` are only for a player whose third foul came
    /// during or after his speech of an earlier round; one fouled out
    /// before his speech of the day loses it (ua §3.13). `false`: for
    /// every muted player (classic §6.6, rfm §5.5).
    #[serde(default)]
    pub critical_only_carried: bool,
    /// Technical fouls counted separately; this many removes (ua §7: 2).
    pub technical_remove_at: Option<u8>,
    /// Small and big penalty points can be given during the game (rfm §5.10–5.11).
    pub penalties: bool,
    /// A muted player still has his tie speech (classic §6.5, minsk2017 §7.6);
    /// `false`: he is silent in it too (rfm, ua).
    pub tie_speech_when_muted: bool,
    /// Fouls are still given after the result is fixed, in the final last
    /// words (classic §6.9, ua §1.9); `false`: after the deciding kill or
    /// vote only the insult and obscenity sanctions apply (rfm §5.14).
    #[serde(default = "yes")]
    pub after_result: bool,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NominationPolicy {
    /// A player may withdraw his nomination during his speech (minsk2017 §4.4.3).
    pub withdrawal: bool,
    /// Naming a seat already nominated does not use the player's nomination
    /// (ua §4.2); otherwise it is rejected, the judge having to pick the
    /// seat that counts (rfm §4.4.2: the first not yet nominated).
    pub renaming_keeps_nomination: bool,
    /// A player may nominate himself.
    pub self_nomination: bool,
}

/// A forbidden lift: `tied` players at a table of `living`, optionally only
/// before a given day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiftBan {
    pub tied: u8,
    pub living: u8,
    /// The ban holds on days before this one; `None`: always.
    pub before_day: Option<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiftPolicy {
    /// Whether the lift question is asked at all (club has none).
    pub enabled: bool,
    /// Lifting every living player: `false` never (classic §6.8); `true` the
    /// lift may pass and the game is a draw (minsk2017 §7.9).
    pub all_players_draw: bool,
    /// Never more than half of the living players (ua §4.26).
    pub at_most_half: bool,
    /// On day 1 at most this many may be lifted (ua §4.23).
    pub day1_max: Option<u8>,
    pub bans: Vec<LiftBan>,
    /// With this many players left, a repeated tie ends the voting (rfm §4.4.13.4: 3).
    pub no_lift_at: Option<u8>,
}

/// How a removal (4th foul, disqualification) interacts with votes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemovalPolicy {
    /// Removed during the day before the vote's result: that day's vote is not
    /// held (rfm §4.4.16, classic §6.1, minsk2017 §7.1, ua §4.20).
    pub before_result_cancels_vote: bool,
    /// Removed after the vote's result: the next day's vote is not held
    /// (classic §6.2, minsk2017 §7.4, ua §4.22); rfm keeps it (§5.7).
    pub after_result_cancels_next: bool,
    /// Removed at night (not killed): the next day's vote is not held
    /// (minsk2017 §7.2, ua §5.6); rfm keeps it (§5.7).
    pub at_night_cancels_next: bool,
    /// A second removal on a day whose vote is already cancelled cancels the
    /// next day's vote too (ua §4.21).
    pub second_removal_cancels_next: bool,
    /// Cancellations add up: two removals after the result cancel two days (ua §4.22).
    pub cancellations_accumulate: bool,
    /// A player removed at night whom the black team then shoots all
    /// together counts as killed too: "removed and killed", and his removal
    /// does not cancel the next vote (rfm §5.17, classic §6.1, minsk2017 §7.2).
    /// `false`: removed before the shooting began, the shot is a miss and the
    /// cancellation stands; removed once it began, he is "killed and
    /// disqualified" and the vote is held (ua §5.6). A victim removed after
    /// the shot is killed and removed in every rule set.
    pub removed_then_shot_is_kill: bool,
    /// From day 2, a sole nominee named by the speaker who closes the round
    /// when nobody was nominated before him stands: later removals do not
    /// cancel that vote (rfm §4.4.16, exception 2).
    pub closing_sole_nominee_stands: bool,
    /// A vote counts as held once a nominee has "a critical number of
    /// votes" (ua §4.20): more than any other nominee could still reach
    /// with the hands not yet counted. A removal from then on is one after
    /// the result: that nominee leaves by the vote, and the removal counts
    /// against the next day's vote (ua §4.22). `false`: any removal before
    /// the round's last hands cancels the vote.
    #[serde(default)]
    pub decided_vote_stands: bool,
}

/// When the first player killed names three seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BestMoveAt {
    /// At night right after the checks (rfm §4.5.10, classic §3.5.9, ua §5.11).
    Night,
    /// During his last words in the morning (minsk2017 §8.3).
    LastWords,
    /// No best move.
    Never,
}

/// Which departures deny the best move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BestMoveDenial {
    /// Never denied.
    Never,
    /// `denied_at` or more players left by the day-1 vote (rfm §6.6.9, classic §6.10).
    Day1Votes,
    /// `denied_at` or more players left by vote or removal before the end of
    /// night 1 (ua §5.12).
    VotesAndRemovalsBeforeKill,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestMovePolicy {
    pub at: BestMoveAt,
    pub secs: u16,
    pub denial: BestMoveDenial,
    pub denied_at: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawPolicy {
    /// A draw after this many phases in a row, starting with a night, with
    /// nobody leaving (5 = N-D-N-D-N, rfm §4.7.1; 6 = three nights and days,
    /// minsk2017 §7.8). 0 disables.
    pub quiet_phases: u8,
    /// Whether a removal breaks the quiet streak (ua §1.8, classic §6.7:
    /// "the count unchanged"; rfm §4.7.1: "by day no player leaves the
    /// table").
    pub removal_breaks_streak: bool,
    /// Whether a removal at night breaks it too. rfm §4.7.1 names only the
    /// shot and the vote for the nights ("nobody leaves by shot or vote …
    /// and by day no player leaves the table"): `false`.
    #[serde(default = "yes")]
    pub night_removal_breaks_streak: bool,
    /// club: with this many players left and `red_wins_quiet_nights` nights in
    /// a row without a kill, red wins.
    pub red_wins_at_players: Option<u8>,
    pub red_wins_quiet_nights: u8,
}

/// club: the free talk ("balagan") that replaces monologues from a given day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreeTalkPolicy {
    pub from_day: u8,
    pub secs: u16,
    /// With this many players or fewer: monologues first, then a shorter free talk.
    pub small_table: u8,
    pub small_secs: u16,
}

/// Every parameter of a rule set. A preset gives each rulebook's values;
/// `RuleSet::with_overrides` changes any of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub cards: Cards,
    pub night0: Vec<TimedStep>,
    pub night_order: Vec<NightAction>,
    pub don_check_secs: u16,
    pub sheriff_check_secs: u16,
    pub beauty_pick_secs: u16,
    /// How long a night lasts for the public (s): its morning is stamped
    /// and shown this long after the night began, or, when the night runs
    /// over, at the next whole multiple of it. The night's real length
    /// grows with the hidden commands (who still shoots, checks, picks), so
    /// the public never sees it.
    #[serde(default = "public_night_secs")]
    pub public_night_secs: u16,
    /// A player killed at night still makes his check that night (he does not
    /// know yet).
    pub killed_player_checks: bool,
    /// A black player who shoots at two different seats makes the night a
    /// miss (rfm §4.5.5, classic §3.5.5, minsk2017 §4.5.5, ua §5.5); his
    /// second shot is taken during the count, or as soon as the count is
    /// over, before the next night action is entered. `false`: a second
    /// shot is refused (club: "a mafioso may shoot only once", a night rule).
    #[serde(default = "yes")]
    pub several_shots_miss: bool,
    pub speech_secs: u16,
    pub tie_speech_secs: u16,
    pub last_words_secs: u16,
    /// Last words when several leave by one vote (minsk2017 §7.7: 30 s).
    pub several_out_last_words_secs: u16,
    /// A testament after last words (rfm §4.4.15: 20 s); 0 for none.
    pub testament_secs: u16,
    pub fouls: FoulPolicy,
    pub nominations: NominationPolicy,
    /// On day 1 a single nominee is voted too (false in every rulebook).
    pub day1_single_nominee_vote: bool,
    /// club: a vote is held only if at least half of the living players want it.
    pub vote_call: bool,
    pub lift: LiftPolicy,
    pub removal: RemovalPolicy,
    pub best_move: BestMovePolicy,
    pub draw: DrawPolicy,
    pub free_talk: Option<FreeTalkPolicy>,
}

impl Params {
    /// The preset of a rulebook.
    pub fn preset(id: RuleSetId) -> Params {
        let mut p = Params::classic();
        match id {
            RuleSetId::Classic => {}
            RuleSetId::Rfm => {
                p.night0 = vec![
                    step(Night0Step::Meeting, 60),
                    step(Night0Step::SheriffAndDonSign, 10),
                    step(Night0Step::FreeSeating, 60),
                ];
                p.don_check_secs = 15;
                p.sheriff_check_secs = 15;
                p.public_night_secs = 50;
                p.testament_secs = 20;
                p.fouls.carried_over_secs = 10;
                p.fouls.penalties = true;
                p.fouls.after_result = false;
                p.lift.bans = vec![ban(5, 10, None), ban(4, 8, None), ban(3, 6, None)];
                p.lift.no_lift_at = Some(3);
                p.removal.after_result_cancels_next = false;
                p.removal.closing_sole_nominee_stands = true;
                p.fouls.tie_speech_when_muted = false;
                p.removal.at_night_cancels_next = false;
                p.draw.night_removal_breaks_streak = false;
            }
            RuleSetId::Minsk2017 => {
                p.night0 = vec![
                    step(Night0Step::DonSign, 10),
                    step(Night0Step::Meeting, 60),
                    step(Night0Step::SheriffSign, 10),
                ];
                p.fouls.third_foul = ThirdFoul::ShortSpeech;
                p.fouls.critical_secs = None;
                p.nominations.withdrawal = true;
                p.several_out_last_words_secs = 30;
                p.lift.all_players_draw = true;
                p.removal.at_night_cancels_next = true;
                p.best_move.at = BestMoveAt::LastWords;
                p.best_move.denial = BestMoveDenial::Never;
                p.draw.quiet_phases = 6;
            }
            RuleSetId::Ua => {
                p.night0 = vec![
                    step(Night0Step::Meeting, 60),
                    step(Night0Step::SheriffSign, 10),
                    step(Night0Step::FreeSeating, 20),
                ];
                p.fouls.technical_remove_at = Some(2);
                p.nominations.renaming_keeps_nomination = true;
                p.lift.at_most_half = true;
                p.lift.day1_max = Some(2);
                p.lift.bans = vec![ban(3, 9, Some(3)), ban(5, 10, Some(2))];
                p.removal.at_night_cancels_next = true;
                p.removal.second_removal_cancels_next = true;
                p.removal.cancellations_accumulate = true;
                p.removal.removed_then_shot_is_kill = false;
                p.removal.decided_vote_stands = true;
                p.fouls.tie_speech_when_muted = false;
                p.fouls.critical_only_carried = true;
                p.best_move.denial = BestMoveDenial::VotesAndRemovalsBeforeKill;
            }
            RuleSetId::Club => {
                p.cards = Cards {
                    civilians: 5,
                    sheriffs: 1,
                    beauties: 1,
                    mafiosi: 2,
                    dons: 1,
                };
                p.night0 = vec![
                    step(Night0Step::BeautySign, 10),
                    step(Night0Step::SheriffSign, 10),
                    step(Night0Step::Meeting, 60),
                    step(Night0Step::DonSign, 10),
                ];
                // One more night action, the Beauty's pick.
                p.public_night_secs = 50;
                p.night_order = vec![
                    NightAction::BeautyPick,
                    NightAction::SheriffCheck,
                    NightAction::Shooting,
                    NightAction::DonCheck,
                ];
                p.several_shots_miss = false;
                p.fouls.during_speech = FoulDuringSpeech::EndsThisSpeech;
                p.fouls.critical_secs = None;
                p.vote_call = true;
                p.removal = RemovalPolicy {
                    before_result_cancels_vote: false,
                    after_result_cancels_next: false,
                    at_night_cancels_next: false,
                    second_removal_cancels_next: false,
                    cancellations_accumulate: false,
                    removed_then_shot_is_kill: true,
                    closing_sole_nominee_stands: false,
                    decided_vote_stands: false,
                };
                p.best_move.at = BestMoveAt::Never;
                p.draw = DrawPolicy {
                    quiet_phases: 0,
                    removal_breaks_streak: true,
                    night_removal_breaks_streak: true,
                    red_wins_at_players: Some(4),
                    red_wins_quiet_nights: 3,
                };
                p.free_talk = Some(FreeTalkPolicy {
                    from_day: 2,
                    secs: 180,
                    small_table: 5,
                    small_secs: 90,
                });
            }
        }
        p
    }

    fn classic() -> Params {
        Params {
            cards: Cards {
                civilians: 6,
                sheriffs: 1,
                beauties: 0,
                mafiosi: 2,
                dons: 1,
            },
            night0: vec![
                step(Night0Step::Meeting, 60),
                step(Night0Step::SheriffSign, 20),
            ],
            night_order: vec![
                NightAction::Shooting,
                NightAction::DonCheck,
                NightAction::SheriffCheck,
            ],
            don_check_secs: 10,
            sheriff_check_secs: 10,
            beauty_pick_secs: 10,
            public_night_secs: public_night_secs(),
            killed_player_checks: true,
            several_shots_miss: true,
            speech_secs: 60,
            tie_speech_secs: 30,
            last_words_secs: 60,
            several_out_last_words_secs: 60,
            testament_secs: 0,
            fouls: FoulPolicy {
                mute_at: 3,
                remove_at: 4,
                third_foul: ThirdFoul::LoseSpeech,
                short_speech_secs: 30,
                carried_over_secs: 0,
                during_speech: FoulDuringSpeech::NextDay,
                critical_players: 4,
                critical_secs: Some(30),
                critical_only_carried: false,
                technical_remove_at: None,
                penalties: false,
                tie_speech_when_muted: true,
                after_result: true,
            },
            nominations: NominationPolicy {
                withdrawal: false,
                renaming_keeps_nomination: false,
                self_nomination: true,
            },
            day1_single_nominee_vote: false,
            vote_call: false,
            lift: LiftPolicy {
                enabled: true,
                all_players_draw: false,
                at_most_half: false,
                day1_max: None,
                bans: vec![],
                no_lift_at: None,
            },
            removal: RemovalPolicy {
                before_result_cancels_vote: true,
                after_result_cancels_next: true,
                at_night_cancels_next: true,
                second_removal_cancels_next: false,
                cancellations_accumulate: false,
                removed_then_shot_is_kill: true,
                closing_sole_nominee_stands: false,
                decided_vote_stands: false,
            },
            best_move: BestMovePolicy {
                at: BestMoveAt::Night,
                secs: 20,
                denial: BestMoveDenial::Day1Votes,
                denied_at: 2,
            },
            draw: DrawPolicy {
                quiet_phases: 5,
                removal_breaks_streak: true,
                night_removal_breaks_streak: true,
                red_wins_at_players: None,
                red_wins_quiet_nights: 3,
            },
            free_talk: None,
        }
    }
}

/// The shooting and two checks of 10 s each, with room to spare.
const fn public_night_secs() -> u16 {
    40
}

fn step(step: Night0Step, secs: u16) -> TimedStep {
    TimedStep { step, secs }
}

fn ban(tied: u8, living: u8, before_day: Option<u8>) -> LiftBan {
    LiftBan {
        tied,
        living,
        before_day,
    }
}

/// A rule set: a rulebook's id and its parameters, possibly overridden.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    pub id: RuleSetId,
    pub params: Params,
}

/// The error for overrides that do not fit `Params`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rule set overrides: {0}")]
pub struct BadOverrides(pub String);

impl RuleSet {
    pub fn preset(id: RuleSetId) -> RuleSet {
        RuleSet {
            id,
            params: Params::preset(id),
        }
    }

    /// The preset with some parameters replaced: `overrides` is a JSON object
    /// shaped like `Params`, merged field by field (nested objects merge,
    /// anything else replaces).
    pub fn with_overrides(id: RuleSetId, overrides: &Value) -> Result<RuleSet, BadOverrides> {
        // No overrides (every header of a preset game): the preset itself,
        // without the JSON round trip below.
        if overrides.is_null() || overrides.as_object().is_some_and(|o| o.is_empty()) {
            return Ok(RuleSet::preset(id));
        }
        let mut base = serde_json::to_value(Params::preset(id)).expect("params serialize");
        if !overrides.is_null() {
            if !overrides.is_object() {
                return Err(BadOverrides("overrides must be a JSON object".into()));
            }
            merge(&mut base, overrides);
        }
        let params: Params =
            serde_json::from_value(base).map_err(|e| BadOverrides(e.to_string()))?;
        Ok(RuleSet { id, params })
    }

    /// The fields that differ from the preset, as a JSON object (empty for a preset).
    pub fn overrides(&self) -> Value {
        let preset = Params::preset(self.id);
        // A preset (every simulated game's and most tournaments'): nothing
        // differs, without the two JSON round trips below.
        if self.params == preset {
            return Value::Object(Default::default());
        }
        let base = serde_json::to_value(preset).expect("params serialize");
        let mine = serde_json::to_value(&self.params).expect("params serialize");
        diff(&base, &mine).unwrap_or_else(|| Value::Object(Default::default()))
    }
}

fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn diff(base: &Value, mine: &Value) -> Option<Value> {
    match (base, mine) {
        (Value::Object(b), Value::Object(m)) => {
            let mut out = serde_json::Map::new();
            for (k, v) in m {
                match b.get(k) {
                    Some(bv) => {
                        if let Some(d) = diff(bv, v) {
                            out.insert(k.clone(), d);
                        }
                    }
                    None => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        (b, m) if b == m => None,
        (_, m) => Some(m.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clause_is_named_by_its_rulebook() {
        assert_eq!(RuleSetId::named_clause("003 §3.11"), "ua §3.11");
        assert_eq!(
            RuleSetId::named_clause("004 \"Голосование\""),
            "club \"Голосование\""
        );
        assert_eq!(
            RuleSetId::named_clause("FORMAT.md §Commands"),
            "FORMAT.md §Commands"
        );
        assert_eq!(RuleSetId::named_clause("0001 x"), "0001 x");
    }

    #[test]
    fn every_preset_round_trips_through_its_overrides() {
        for id in RuleSetId::ALL {
            let rs = RuleSet::preset(id);
            assert_eq!(rs.overrides(), serde_json::json!({}));
            let again = RuleSet::with_overrides(id, &rs.overrides()).unwrap();
            assert_eq!(again, rs);
        }
    }

    #[test]
    fn custom_preset_overrides_nested_fields_only() {
        let rs = RuleSet::with_overrides(
            RuleSetId::Classic,
            &serde_json::json!({"speech_secs": 45, "fouls": {"critical_secs": null}}),
        )
        .unwrap();
        assert_eq!(rs.params.speech_secs, 45);
        assert_eq!(rs.params.fouls.critical_secs, None);
        assert_eq!(rs.params.fouls.remove_at, 4);
        assert_eq!(
            rs.overrides(),
            serde_json::json!({"speech_secs": 45, "fouls": {"critical_secs": null}})
        );
    }

    #[test]
    fn unknown_override_fields_are_rejected() {
        let err = RuleSet::with_overrides(RuleSetId::Ua, &serde_json::json!({"speach_secs": 1}));
        assert!(err.is_err());
        assert!("mafia".parse::<RuleSetId>().is_err());
    }
}
