//! The paper game protocol of minsk2017 §9, filled in from a game: the form
//! the judges sign, so it shows the roles. Rendered as Markdown or as a
//! standalone printable HTML page.

use crate::header::Header;
use mafia_rules::event::{LiftDenial, NoVote};
use mafia_rules::params::BestMoveAt;
use mafia_rules::summary::{reason_name, GameResult};
use mafia_rules::EndReason;
use mafia_rules::{Cause, Envelope, Event, Game, Seat, When};
use std::fmt::Write as _;

/// The filled-in protocol: plain data, rendered by [`Protocol::to_markdown`]
/// and [`Protocol::to_html`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protocol {
    pub tournament: String,
    pub stage: String,
    pub round: u32,
    pub table: u32,
    pub game: u32,
    pub judge: String,
    pub rules: String,
    /// `YYYY-MM-DD` (UTC) of the game's first event.
    pub date: Option<String>,
    pub seats: Vec<SeatRow>,
    /// Day 0 (the meeting night) is kept only when something happened in it.
    pub days: Vec<DayRow>,
    pub best_move: BestMoveRow,
    pub result: GameResult,
    pub reason: Option<EndReason>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    pub seat: Seat,
    pub nickname: String,
    /// К, Ч, Ш or Д (§9.4.1).
    pub role: &'static str,
    pub fouls: u8,
    /// Technical fouls, penalties, yellow cards, in words.
    pub sanctions: Vec<String>,
    /// "day 2, vote"; `None` while in the game.
    pub out: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DayRow {
    pub day: u8,
    pub nominations: Vec<Nomination>,
    /// Rounds of counted hands, each numbered "(n)", among the other
    /// entries (vote calls, lifts, no-vote notes).
    pub votes: Vec<String>,
    /// How many of `votes` are rounds: the next round's number less one.
    pub rounds: usize,
    /// Who left during the day, and how.
    pub left: Vec<String>,
    /// The following night: the kill or miss, removals.
    pub night: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nomination {
    pub by: Seat,
    pub target: Seat,
    pub withdrawn: bool,
}

/// The "best move" box of §9.6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMoveRow {
    /// A dash: a miss on night 1, or no best move (yet).
    Dash,
    /// The first killed has not named anyone (declined, denied, or not yet).
    NoNumbers { seat: Seat },
    Named {
        seat: Seat,
        named: Vec<Seat>,
        hits: u8,
    },
}

/// The events that still stand: those of undone commands are dropped, as
/// the engine's own fold does (an undo takes back the last command of the
/// current phase, so everything from that command on goes).
fn standing(events: &[Envelope]) -> Vec<&Envelope> {
    let mut out: Vec<&Envelope> = Vec::with_capacity(events.len());
    for e in events {
        if let Event::Undone { cmd, .. } = e.event {
            while out.last().is_some_and(|x| x.cmd >= cmd) {
                out.pop();
            }
        } else {
            out.push(e);
        }
    }
    out
}

fn cause_words(c: Cause) -> &'static str {
    match c {
        Cause::Vote => "vote / голосование",
        Cause::Lift => "lift / подъём",
        Cause::Shot => "shot / убит",
        Cause::Fouls => "4 fouls / 4 фола",
        Cause::TechnicalFouls => "technical fouls / тех. фолы",
        Cause::Disqualified => "removed / удалён",
    }
}

fn when_words(w: When) -> String {
    match w {
        When::Day(n) => format!("day {n} / день {n}"),
        When::Night(n) => format!("night {n} / ночь {n}"),
    }
}

fn no_vote_words(r: NoVote) -> &'static str {
    match r {
        NoVote::NoNominees => "no vote: nobody nominated / голосования нет: нет кандидатур",
        NoVote::SingleNomineeDay1 => {
            "no vote: one nominee on day 1 / голосования нет: одна кандидатура в первый день"
        }
        NoVote::Cancelled => "vote cancelled by a removal / голосование отменено удалением",
        NoVote::NotWanted => "no vote: not wanted / голосования нет: не поддержано",
    }
}

fn lift_denial_words(r: LiftDenial) -> &'static str {
    match r {
        LiftDenial::Disabled => "no lift in this rule set / подъёма нет",
        LiftDenial::AllPlayers => "no lift: all players tied / подъёма нет: все в равенстве",
        LiftDenial::MoreThanHalf => "no lift: more than half tied / подъёма нет: больше половины",
        LiftDenial::Day1Limit => "no lift: day 1 limit / подъёма нет: ограничение первого дня",
        LiftDenial::Banned => "no lift at this count / подъём запрещён при таком раскладе",
        LiftDenial::TooFewPlayers => "no lift: too few players / подъёма нет: мало игроков",
    }
}

fn seats_text(seats: impl IntoIterator<Item = Seat>) -> String {
    seats
        .into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One voting round under construction: candidates in order with their
/// counts (hands or ballots).
struct Round {
    counts: Vec<(Seat, usize)>,
    abstained: usize,
    ballots: bool,
}

/// How a voting round closed.
#[derive(Clone, Copy)]
enum RoundEnd<'a> {
    Counted,
    Tie(&'a str),
    /// A removal stopped it before its result.
    Stopped,
}

impl Round {
    fn text(&self, number: usize, end: RoundEnd) -> String {
        let mut s = format!("({number}) ");
        s += &self
            .counts
            .iter()
            .map(|(seat, n)| format!("{seat}: {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        if self.ballots && self.abstained > 0 {
            let _ = write!(s, ", abstained / воздержались: {}", self.abstained);
        }
        match end {
            RoundEnd::Counted => {}
            RoundEnd::Tie(t) => {
                let _ = write!(s, " — tie / поровну: {t}");
            }
            RoundEnd::Stopped => s += STOPPED,
        }
        s
    }
}

/// A round's ending when a removal came before its result.
const STOPPED: &str = " — stopped by a removal / остановлено удалением";
/// The same round's once its hands turn out to have decided it (ua §4.20).
const DECIDED: &str = " — decided before a removal / решено до удаления";

impl Protocol {
    /// Fills the protocol in from the header, the game as it stands and all
    /// its events so far (a game in progress gives a partial protocol).
    pub fn new(header: &Header, game: &Game, events: &[Envelope]) -> Protocol {
        let core = game.core();
        let seats = Seat::all()
            .map(|s| {
                let st = core.seats[s.index()];
                let mut sanctions = Vec::new();
                if st.technical_fouls > 0 {
                    sanctions.push(format!("technical / тех.: {}", st.technical_fouls));
                }
                if st.small_penalties > 0 {
                    sanctions.push(format!("−0.2 × {}", st.small_penalties));
                }
                if st.big_penalties > 0 {
                    sanctions.push(format!("−0.5 × {}", st.big_penalties));
                }
                if st.yellow_cards > 0 {
                    sanctions.push(format!("yellow / жёлтая: {}", st.yellow_cards));
                }
                SeatRow {
                    seat: s,
                    nickname: header
                        .seats
                        .get(s.index())
                        .map_or_else(String::new, |e| e.nickname.clone()),
                    role: core.role(s).protocol_letter(),
                    fouls: st.fouls,
                    sanctions,
                    out: st.out.map(|d| {
                        let mut text = format!("{}, {}", when_words(d.when), cause_words(d.cause));
                        if st.disqualified && !d.cause.is_removal() {
                            text += ", disqualified / дисквалифицирован";
                        }
                        text
                    }),
                }
            })
            .collect();

        let mut days = vec![DayRow::default()];
        let mut night = true;
        let mut night1_miss = false;
        let mut round: Option<Round> = None;
        // Rounds are numbered within the day so that a re-vote reads as one.
        let finish = |day: &mut DayRow, round: &mut Option<Round>, end: RoundEnd| {
            if let Some(r) = round.take() {
                day.rounds += 1;
                day.votes.push(r.text(day.rounds, end));
            }
        };
        // A removal while a round is open stops it before its result: the
        // hands counted so far are not a result, so the entry says so.
        let mut stopped_by_removal = false;
        // Once the result is fixed, sanctions still count in scoring (classic
        // §6.9, rfm §5.15, ua §1.9): each is written with that said.
        let mut decided = false;
        for env in standing(events) {
            if let Event::DayStarted { day: n, .. } = env.event {
                if let Some(prev) = days.last_mut() {
                    finish(prev, &mut round, RoundEnd::Counted);
                }
                stopped_by_removal = false;
                night = false;
                days.push(DayRow {
                    day: n,
                    ..DayRow::default()
                });
                continue;
            }
            let day = days.last_mut().expect("day 0 is always there");
            match env.event {
                Event::NightStarted { .. } => {
                    finish(day, &mut round, RoundEnd::Counted);
                    night = true;
                }
                Event::NightResult { killed } => {
                    if day.day == 1 && killed.is_none() {
                        night1_miss = true;
                    }
                    day.night.push(match killed {
                        Some(s) => format!("{s} killed / убит"),
                        None => "miss / промах".to_string(),
                    });
                }
                Event::Nominated { by, target } => day.nominations.push(Nomination {
                    by,
                    target,
                    withdrawn: false,
                }),
                Event::Withdrawn { by, target } => {
                    if let Some(n) = day
                        .nominations
                        .iter_mut()
                        .rev()
                        .find(|n| n.by == by && n.target == target && !n.withdrawn)
                    {
                        n.withdrawn = true;
                    }
                }
                Event::Candidates { seats } => {
                    stopped_by_removal = false;
                    finish(day, &mut round, RoundEnd::Counted);
                    round = Some(Round {
                        counts: seats.iter().map(|s| (s, 0)).collect(),
                        abstained: 0,
                        ballots: false,
                    });
                }
                Event::VotesCast { nominee, hands, .. } => {
                    if let Some(r) = round.as_mut() {
                        if let Some(c) = r.counts.iter_mut().find(|(s, _)| *s == nominee) {
                            c.1 = hands.len();
                        }
                    }
                }
                Event::BallotCast { target, .. } => {
                    if let Some(r) = round.as_mut() {
                        r.ballots = true;
                        match target.and_then(|t| r.counts.iter_mut().find(|(s, _)| *s == t)) {
                            Some(c) => c.1 += 1,
                            None => r.abstained += 1,
                        }
                    }
                }
                Event::Tie { seats } => {
                    let t = seats_text(seats.iter());
                    finish(day, &mut round, RoundEnd::Tie(&t));
                }
                Event::LiftDenied { reason, .. } => {
                    finish(day, &mut round, RoundEnd::Counted);
                    day.votes.push(lift_denial_words(reason).to_string());
                }
                Event::LiftVoted { hands, passed } => {
                    finish(day, &mut round, RoundEnd::Counted);
                    day.votes.push(format!(
                        "lift / подъём: {} — {}",
                        hands.len(),
                        if passed {
                            "passed / принят"
                        } else {
                            "failed / не принят"
                        }
                    ));
                }
                Event::VoteSkipped { reason } => {
                    finish(day, &mut round, RoundEnd::Counted);
                    day.votes.push(no_vote_words(reason).to_string());
                }
                Event::VoteCalled { yes, held } => day.votes.push(format!(
                    "vote call / за голосование: {} — {}",
                    yes.len(),
                    if held {
                        "held / проводится"
                    } else {
                        "not held / не проводится"
                    }
                )),
                Event::GameEnded { .. } => decided = true,
                Event::Disqualified { seat } => day.left.push(format!(
                    "{seat}: disqualified in his last words{} / дисквалифицирован на последнем слове{}",
                    if decided { ", the result stands" } else { "" },
                    if decided { ", результат не меняется" } else { "" },
                )),
                Event::Fouled { seat, fouls } if decided => day.left.push(format!(
                    "{seat}: foul {fouls} after the result / фол {fouls} после результата"
                )),
                Event::TechnicalFouled { seat, count } if decided => day.left.push(format!(
                    "{seat}: technical foul {count} after the result / тех. фол {count} после результата"
                )),
                Event::Penalized { seat, kind } if decided => day.left.push(format!(
                    "{seat}: {} after the result / после результата",
                    match kind {
                        mafia_rules::PenaltyKind::Small => "−0.2",
                        mafia_rules::PenaltyKind::Big => "−0.5",
                    }
                )),
                Event::YellowCarded { seat } if decided => day.left.push(format!(
                    "{seat}: yellow card after the result / жёлтая карточка после результата"
                )),
                Event::Left { seat, cause } if decided => day.left.push(format!(
                    "{seat} ({}) after the result, which stands / после результата, результат не меняется",
                    cause_words(cause)
                )),
                // A shot is already written as the night's result.
                Event::Left { seat, cause } if cause != Cause::Shot => {
                    let text = format!("{seat} ({})", cause_words(cause));
                    if night {
                        day.night.push(text);
                    } else {
                        if cause.is_removal() && round.is_some() {
                            finish(day, &mut round, RoundEnd::Stopped);
                            stopped_by_removal = true;
                        } else if cause == Cause::Vote && stopped_by_removal {
                            // ua §4.20: the hands had already decided it, so
                            // the removal came after the result.
                            stopped_by_removal = false;
                            if let Some(v) = day.votes.last_mut() {
                                if let Some(counts) = v.strip_suffix(STOPPED) {
                                    *v = format!("{counts}{DECIDED}");
                                }
                            }
                        } else {
                            // The vote's own result.
                            finish(day, &mut round, RoundEnd::Counted);
                        }
                        day.left.push(text);
                    }
                }
                // Only a cancellation that stopped a round is written here;
                // one made before the vote is written when the vote is skipped.
                Event::VotesCancelled { today: true, .. } if stopped_by_removal => {
                    stopped_by_removal = false;
                    day.votes.push(no_vote_words(NoVote::Cancelled).to_string());
                }
                Event::OppositeTeamVictory { seat } => {
                    let text = format!("{seat}: victory to the other team / победа другой команде");
                    if night {
                        day.night.push(text);
                    } else {
                        day.left.push(text);
                    }
                }
                _ => {}
            }
        }
        if let Some(day) = days.last_mut() {
            finish(day, &mut round, RoundEnd::Counted);
        }
        if days[0] == DayRow::default() {
            days.remove(0);
        }

        let no_best_move = game.params().best_move.at == BestMoveAt::Never;
        let best_move = match (core.best_move, core.first_killed) {
            _ if no_best_move => BestMoveRow::Dash,
            (Some(b), _) => BestMoveRow::Named {
                seat: b.seat,
                named: b.named.iter().collect(),
                hits: b.hits,
            },
            _ if night1_miss => BestMoveRow::Dash,
            (None, Some(seat)) => BestMoveRow::NoNumbers { seat },
            (None, None) => BestMoveRow::Dash,
        };

        Protocol {
            tournament: header.tournament.clone(),
            stage: header.stage.clone(),
            round: header.round,
            table: header.table,
            game: header.game,
            judge: header.judge.clone(),
            rules: header.rules.id.to_string(),
            date: events.first().map(|e| date_of(e.at)),
            seats,
            days,
            best_move,
            result: GameResult::of(core.result),
            reason: core.result.map(|o| o.reason),
        }
    }

    fn heading_rows(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Tournament / Турнир", self.tournament.clone()),
            ("Stage / Стадия", self.stage.clone()),
            ("Round / Тур", self.round.to_string()),
            ("Table / Стол", self.table.to_string()),
            ("Game / Игра", self.game.to_string()),
            (
                "Date / Дата",
                self.date.clone().unwrap_or_else(|| "—".to_string()),
            ),
            ("Judge / Судья", self.judge.clone()),
            ("Rules / Правила", self.rules.clone()),
        ]
    }

    fn winner_text(&self) -> String {
        let team = match self.result {
            GameResult::Red => "Red / Красные",
            GameResult::Black => "Black / Чёрные",
            GameResult::Draw => "Draw / Ничья",
            GameResult::Unfinished => "Not finished / Игра не окончена",
        };
        match self.reason {
            Some(r) => format!("{team} ({})", reason_name(r).replace('_', " ")),
            None => team.to_string(),
        }
    }

    fn best_move_text(&self) -> String {
        match &self.best_move {
            BestMoveRow::Dash => "—".to_string(),
            BestMoveRow::NoNumbers { seat } => {
                format!("{seat}: no numbers named / номера не названы")
            }
            BestMoveRow::Named { seat, named, hits } => format!(
                "{seat}: {} — hits / попаданий: {hits}",
                if named.is_empty() {
                    "—".to_string()
                } else {
                    seats_text(named.iter().copied())
                }
            ),
        }
    }

    fn nominations_text(&self, d: &DayRow) -> String {
        d.nominations
            .iter()
            .map(|n| {
                let w = if n.withdrawn {
                    " (withdrawn / снята)"
                } else {
                    ""
                };
                format!("{} → {}{w}", n.by, n.target)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn day_label(d: &DayRow) -> String {
        if d.day == 0 {
            "0 (night / ночь)".to_string()
        } else {
            d.day.to_string()
        }
    }

    /// The protocol as a Markdown document.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Game protocol / Протокол игры\n");
        let _ = writeln!(s, "| | |\n|---|---|");
        for (k, v) in self.heading_rows() {
            let _ = writeln!(s, "| {k} | {} |", md(&v));
        }
        let _ = writeln!(s, "\n## Players / Игроки\n");
        let _ = writeln!(
            s,
            "| № | Nickname / Никнейм | Role / Роль | Fouls / Фолы | Out / Выбыл | Points / Баллы | Extra / Доп. баллы |"
        );
        let _ = writeln!(s, "|---:|---|:---:|:---:|---|---|---|");
        for r in &self.seats {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | | |",
                r.seat,
                md(&r.nickname),
                r.role,
                fouls_text(r),
                r.out.as_deref().unwrap_or("")
            );
        }
        let _ = writeln!(s, "\n## Days / Дни\n");
        if self.days.is_empty() {
            let _ = writeln!(s, "—");
        } else {
            let _ = writeln!(
                s,
                "| Day / День | Nominations / Выставления | Votes / Голосование | Left / Выбыли | Night / Ночь |"
            );
            let _ = writeln!(s, "|---|---|---|---|---|");
            for d in &self.days {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} |",
                    Self::day_label(d),
                    self.nominations_text(d),
                    d.votes.join("; "),
                    d.left.join(", "),
                    d.night.join(", ")
                );
            }
        }
        let _ = writeln!(s, "\n## Best move / Лучший ход\n");
        let _ = writeln!(s, "{}", self.best_move_text());
        let _ = writeln!(s, "\n## Winning team / Победившая команда\n");
        let _ = writeln!(s, "**{}**", self.winner_text());
        let _ = writeln!(
            s,
            "\nJudge / Судья: {} — signature / подпись: ____________________",
            md(&self.judge)
        );
        s
    }

    /// The protocol as a standalone HTML page with inline CSS, laid out for
    /// printing on one A4 sheet.
    pub fn to_html(&self) -> String {
        let mut s = String::new();
        let title = format!(
            "Protocol / Протокол — {} r{} t{} g{}",
            self.tournament, self.round, self.table, self.game
        );
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
            html(&title)
        );
        let _ = writeln!(s, "<h1>Game protocol / Протокол игры</h1>");
        let _ = writeln!(s, "<table class=\"head\">");
        for (k, v) in self.heading_rows() {
            let _ = writeln!(s, "<tr><th>{k}</th><td>{}</td></tr>", html(&v));
        }
        let _ = writeln!(s, "</table>");
        let _ = writeln!(s, "<h2>Players / Игроки</h2>\n<table class=\"seats\">");
        let _ = writeln!(
            s,
            "<tr><th>№</th><th>Nickname / Никнейм</th><th>Role / Роль</th><th>Fouls / Фолы</th><th>Out / Выбыл</th><th>Points / Баллы</th><th>Extra / Доп. баллы</th></tr>"
        );
        for r in &self.seats {
            let _ = writeln!(
                s,
                "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"c\">{}</td><td class=\"c\">{}</td><td>{}</td><td></td><td></td></tr>",
                r.seat,
                html(&r.nickname),
                r.role,
                html(&fouls_text(r)),
                html(r.out.as_deref().unwrap_or(""))
            );
        }
        let _ = writeln!(s, "</table>");
        let _ = writeln!(s, "<h2>Days / Дни</h2>");
        if self.days.is_empty() {
            let _ = writeln!(s, "<p>—</p>");
        } else {
            let _ = writeln!(
                s,
                "<table class=\"days\">\n<tr><th>Day / День</th><th>Nominations / Выставления</th><th>Votes / Голосование</th><th>Left / Выбыли</th><th>Night / Ночь</th></tr>"
            );
            for d in &self.days {
                let _ = writeln!(
                    s,
                    "<tr><td class=\"c\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    html(&Self::day_label(d)),
                    html(&self.nominations_text(d)),
                    html(&d.votes.join("; ")),
                    html(&d.left.join(", ")),
                    html(&d.night.join(", "))
                );
            }
            let _ = writeln!(s, "</table>");
        }
        let _ = writeln!(
            s,
            "<h2>Best move / Лучший ход</h2>\n<p>{}</p>",
            html(&self.best_move_text())
        );
        let _ = writeln!(
            s,
            "<h2>Winning team / Победившая команда</h2>\n<p class=\"winner\">{}</p>",
            html(&self.winner_text())
        );
        let _ = writeln!(
            s,
            "<p class=\"sign\">Judge / Судья: {} <span class=\"line\"></span> signature / подпись</p>",
            html(&self.judge)
        );
        let _ = writeln!(s, "</body>\n</html>");
        s
    }
}

const CSS: &str = "body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 11pt; margin: 1.5em; color: #000; }
h1 { font-size: 16pt; margin: 0 0 .5em; }
h2 { font-size: 12pt; margin: 1em 0 .3em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #000; padding: 2px 6px; vertical-align: top; }
th { background: #eee; text-align: left; }
table.seats, table.days { width: 100%; }
td.n, td.c { text-align: center; }
p.winner { font-weight: bold; }
p.sign { margin-top: 2em; }
span.line { display: inline-block; width: 16em; border-bottom: 1px solid #000; }
@page { size: A4; margin: 1cm; }
@media print { body { margin: 0; } th { background: none; } }
";

fn fouls_text(r: &SeatRow) -> String {
    let mut s = r.fouls.to_string();
    if !r.sanctions.is_empty() {
        let _ = write!(s, " ({})", r.sanctions.join(", "));
    }
    s
}

/// Escapes text for an HTML element or attribute.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for a Markdown table cell: a nickname must not end the
/// cell, start a link or turn into markup.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The UTC calendar date of a time in ms since the epoch (Hinnant's
/// civil-from-days), to avoid a date crate for one field.
fn date_of(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mafia_rules::sim::{random_command, simulate, Temper};
    use mafia_rules::{Command, Expect, RuleSetId};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn header_of(game: &Game) -> Header {
        let mut h = Header::for_setup(game.setup(), &"cup.main.r2.t3.g4".parse().unwrap());
        h.tournament = "Cup".into();
        h.stage = String::new();
        h.judge = "Ivan".into();
        h
    }

    #[test]
    fn an_undone_nomination_is_not_in_the_protocol() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let sim = simulate(RuleSetId::Classic, &mut rng, 0);
        let (mut game, mut events) = Game::new(sim.setup.clone(), 0);
        let temper = Temper::draw(&mut rng);
        // Play until a speaker may nominate, nominate, then take it back.
        loop {
            if let Expect::Speech {
                seat,
                may_nominate: true,
                ..
            } = game.expected().expect
            {
                let target = seat.next();
                events.extend(
                    game.apply(&Command::Nominate { by: seat, target }, 1)
                        .unwrap(),
                );
                let p = Protocol::new(&header_of(&game), &game, &events);
                assert!(p.days[0].nominations.iter().any(|n| n.by == seat));
                events.extend(game.apply(&Command::Undo, 2).unwrap());
                let p = Protocol::new(&header_of(&game), &game, &events);
                assert!(p.days[0].nominations.iter().all(|n| n.by != seat));
                assert_eq!(p.result, GameResult::Unfinished);
                assert!(p.to_markdown().contains("Not finished / Игра не окончена"));
                return;
            }
            let cmd = random_command(&game, &temper, &mut rng).unwrap();
            if matches!(cmd, Command::Undo) {
                continue;
            }
            events.extend(game.apply(&cmd, 0).unwrap());
        }
    }

    /// Plays `rules` until a round of voting has counted some hands or
    /// ballots, then disqualifies a voter (not a candidate where there is one).
    fn disqualify_during_a_vote(rules: RuleSetId, seed: u64) -> Option<Protocol> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sim = simulate(rules, &mut rng, 0);
        let (mut game, mut events) = Game::new(sim.setup.clone(), 0);
        let temper = Temper::draw(&mut rng);
        for _ in 0..2_000 {
            let voting = |g: &Game| {
                matches!(
                    g.expected().expect,
                    Expect::Vote { .. } | Expect::Ballot { .. }
                )
            };
            let was_voting = voting(&game);
            let cmd = random_command(&game, &temper, &mut rng)?;
            if matches!(cmd, Command::Undo) {
                continue;
            }
            events.extend(game.apply(&cmd, 0).unwrap());
            if was_voting && voting(&game) {
                // club ballots name any living player: all are candidates.
                let candidates = game.core().candidates;
                let living = game.core().living();
                let seat = living
                    .iter()
                    .find(|s| !candidates.contains(*s))
                    .or_else(|| living.iter().last())?;
                events.extend(game.apply(&Command::Disqualify { seat }, 0).unwrap());
                return Some(Protocol::new(&header_of(&game), &game, &events));
            }
        }
        None
    }

    #[test]
    fn a_vote_stopped_by_a_removal_is_printed_as_stopped_with_its_reason() {
        for rules in RuleSetId::ALL {
            let p = (0..50)
                .find_map(|seed| disqualify_during_a_vote(rules, seed))
                .unwrap_or_else(|| panic!("{rules:?}: no game reached a vote"));
            let votes: Vec<&String> = p.days.iter().flat_map(|d| &d.votes).collect();
            let stopped = votes
                .iter()
                .filter(|v| v.ends_with("stopped by a removal / остановлено удалением"))
                .count();
            assert_eq!(stopped, 1, "{rules:?}: {votes:?}");
            let cancels = mafia_rules::params::Params::preset(rules)
                .removal
                .before_result_cancels_vote;
            let cancelled = votes
                .iter()
                .any(|v| *v == "vote cancelled by a removal / голосование отменено удалением");
            // Where a removal does not cancel the vote the round starts over.
            assert!(cancelled || !cancels, "{rules:?}: {votes:?}");
            assert!(p.to_markdown().contains("остановлено удалением"));
        }
    }

    #[test]
    fn a_vote_with_a_result_is_not_printed_as_stopped() {
        let mut checked = 0;
        for rules in RuleSetId::ALL {
            for seed in 0..20 {
                let sim = simulate(rules, &mut ChaCha8Rng::seed_from_u64(seed), 0);
                let removed = sim
                    .events
                    .iter()
                    .any(|e| matches!(e.event, Event::Left { cause, .. } if cause.is_removal()));
                if removed {
                    continue;
                }
                checked += 1;
                let p = Protocol::new(&header_of(&sim.game), &sim.game, &sim.events);
                let votes: Vec<&String> = p.days.iter().flat_map(|d| &d.votes).collect();
                assert!(
                    votes.iter().all(|v| !v.ends_with(STOPPED)),
                    "{rules:?} seed {seed}: {votes:?}"
                );
            }
        }
        assert!(checked > 20, "only {checked} games without a removal");
    }

    #[test]
    fn ua_4_20_a_round_decided_before_a_removal_is_printed_as_decided() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/records/scenarios/",
            "ua_4_20_a_vote_with_a_critical_number_of_votes_is_held_despite_a_removal-3.jsonl"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let record = crate::Record::parse(&text).unwrap();
        assert_eq!(record.header().rules.id, RuleSetId::Ua);
        let replayed = record.replay();
        assert!(replayed.violation.is_none());
        let p = Protocol::new(record.header(), &replayed.game, &replayed.events);
        let day1 = &p.days[0];
        assert_eq!(day1.votes.len(), 1, "{:?}", day1.votes);
        assert!(day1.votes[0].ends_with(DECIDED), "{:?}", day1.votes);
        assert!(
            day1.left.iter().any(|l| l.contains("vote / голосование")),
            "{:?}",
            day1.left
        );
        // The removal cancels the next day's vote: said once.
        assert_eq!(
            p.days[1].votes,
            vec!["vote cancelled by a removal / голосование отменено удалением".to_string()]
        );
    }

    #[test]
    fn a_finished_game_shows_roles_votes_and_winner() {
        for rules in RuleSetId::ALL {
            let sim = simulate(rules, &mut ChaCha8Rng::seed_from_u64(8), 1_767_225_600_000);
            let p = Protocol::new(&header_of(&sim.game), &sim.game, &sim.events);
            assert_eq!(p.date.as_deref(), Some("2026-01-01"));
            assert_eq!(p.seats.iter().filter(|s| s.role == "Д").count(), 1);
            assert_eq!(p.seats.iter().filter(|s| s.role == "Ш").count(), 1);
            assert_ne!(p.result, GameResult::Unfinished);
            let departures = sim.game.summary().departures.len();
            assert_eq!(
                p.seats.iter().filter(|s| s.out.is_some()).count(),
                departures
            );
            let html = p.to_html();
            assert!(html.contains("<td>Ivan</td>"));
            assert!(html.contains("Winning team / Победившая команда"));
        }
    }

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(1_767_225_600_000), "2026-01-01");
        assert_eq!(date_of(951_782_400_000), "2000-02-29");
        assert_eq!(date_of(-1), "1969-12-31");
    }

    #[test]
    fn html_escaping_covers_markup_and_quotes() {
        assert_eq!(
            html(r#"<b a="x">'&'</b>"#),
            "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;"
        );
    }

    #[test]
    fn markdown_escaping_keeps_a_nickname_in_its_cell() {
        assert_eq!(md("a|b*c\nd"), r"a\|b\*c d");
    }
}
