//! `mafia tournament`: the organiser's and the chief judge's side of the
//! scoring service (`proto/mafia/v1/tournament.proto`): create a tournament,
//! register players, add judges and stages, seat and open rounds, give any
//! tournament command, read the standings and export the results; and
//! everything the browser office does (`office.rs`). Every decision is the
//! service's; a refusal is printed with the rule it names.

mod office;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandReply, CommandRequest, CreateTournamentRequest, ExportKind, ExportRequest,
    OpenRoundRequest, PlayerHistoryRequest, RegisterPlayersCsvRequest, SeatRoundRequest,
    TournamentRef,
};
use mafia_record::{StageId, TournamentId};
use mafia_rules::RuleSetId;
use mafia_tournament::{
    Dates, Judge, JudgeId, NewTournament, PlayerId, Scheme, Stage, Standings, TournamentCommand,
    TournamentEvent, TournamentSpec,
};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use tonic::transport::Channel;

#[derive(Args)]
pub struct TournamentArgs {
    /// The scoring service's gRPC URL.
    #[arg(
        long,
        global = true,
        env = "MAFIA_SCORING_URL",
        default_value = "http://127.0.0.1:50053"
    )]
    scoring: String,
    /// Bearer token: the organiser's, or the chief judge's (none: read as
    /// the public).
    #[arg(
        long,
        global = true,
        env = "MAFIA_TOKEN",
        hide_env_values = true,
        default_value = ""
    )]
    token: String,
    /// The tournament's id, e.g. `cup-2026` (every action but `list`).
    #[arg(long, short = 't', env = "MAFIA_TOURNAMENT")]
    tournament: Option<TournamentId>,
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Create the tournament (organiser).
    Create {
        /// Its name, as screens show it.
        #[arg(long)]
        name: String,
        /// Rule set: rfm, classic, minsk2017, ua or club.
        #[arg(long)]
        rules: RuleSetId,
        /// A built-in scoring scheme (rfm, minsk2017, classic, ua, club);
        /// the rule set's own by default.
        #[arg(long, conflicts_with = "scheme_file")]
        scheme: Option<String>,
        /// A scheme of the tournament's own, as JSON (`mafia_tournament::Scheme`).
        #[arg(long)]
        scheme_file: Option<PathBuf>,
        /// The rule set's parameters this tournament changes, as JSON.
        #[arg(long)]
        overrides: Option<String>,
        /// Its first day, e.g. 2026-05-01.
        #[arg(long)]
        starts_on: Option<String>,
        /// Its last day.
        #[arg(long)]
        ends_on: Option<String>,
    },
    /// Every tournament the service holds, newest first (any token).
    List {
        /// Archived ones too.
        #[arg(long)]
        archived: bool,
    },
    /// Archive the tournament: kept, out of the default list (organiser).
    Archive,
    /// Bring an archived tournament back to the list (organiser).
    Unarchive,
    /// Remove a tournament none of whose games was opened (organiser): it
    /// leaves every read; its log stays.
    Remove,
    /// Set the tournament's dates (organiser); a date left out is cleared.
    Dates {
        #[arg(long)]
        starts_on: Option<String>,
        #[arg(long)]
        ends_on: Option<String>,
    },
    /// Register players from a CSV file as Excel or Google Sheets saves it
    /// (`,` or `;`, UTF-8 or Windows-1251; a header naming id, nickname,
    /// club, photo, or none: `id,nickname[,club[,photo]]`; ids made from
    /// nicknames when absent; `-`: standard input); all or nothing.
    Players { csv: PathBuf },
    /// Read a players file as `players` would, line by line, and store
    /// nothing; fails when any line is refused.
    PreviewPlayers { csv: PathBuf },
    /// Add, edit or withdraw one player (organiser).
    #[command(subcommand)]
    Player(office::PlayerAction),
    /// Replace the pair rules: `--separate A,B` never at one table,
    /// `--avoid C,D` as rarely as the seating allows.
    PairRules {
        #[arg(long)]
        separate: Vec<String>,
        #[arg(long)]
        avoid: Vec<String>,
    },
    /// Add a judge: his id (a table judge token's `name`) and name.
    Judge { id: String, name: String },
    /// Add a stage: its id, rounds and tables.
    Stage {
        id: StageId,
        #[arg(long)]
        rounds: u32,
        #[arg(long)]
        tables: u32,
        /// Its name (the id by default).
        #[arg(long)]
        name: Option<String>,
        /// Points coefficient, e.g. 1.3 for an rfm final (§6.4.9).
        #[arg(long, default_value = "1")]
        coefficient: String,
    },
    /// Seat a round with the seating generator; prints its tables and the
    /// stage's seating quality. Give every round of a stage the same seed.
    Seat {
        #[arg(long, default_value = "main")]
        stage: StageId,
        #[arg(long)]
        round: u32,
        #[arg(long)]
        seed: u64,
        /// Pair policies as JSON: [{"kind":"separate"|"avoid","a":ID,"b":ID}, …].
        #[arg(long)]
        policies: Option<String>,
    },
    /// A round's seating plan, stored nowhere: generated as `seat` would
    /// (or `--tables`, your own, checked), its metrics beside a random
    /// seating's, and every rule it breaks (then it fails).
    PlanSeating {
        #[arg(long, default_value = "main")]
        stage: StageId,
        #[arg(long)]
        round: u32,
        #[arg(long, default_value = "0")]
        seed: u64,
        /// The tables as JSON (`[{"table":1,"seats":[…10 ids],"judge":ID}, …]`),
        /// or a file holding them.
        #[arg(long)]
        tables: Option<String>,
        /// Print only the tables' JSON, as `publish-seating` takes it.
        #[arg(long)]
        json: bool,
    },
    /// Publish a round's seating: the `seat_round` command with these
    /// tables (JSON or a file, e.g. `plan-seating --json`'s).
    PublishSeating {
        #[arg(long, default_value = "main")]
        stage: StageId,
        #[arg(long)]
        round: u32,
        tables: String,
    },
    /// Swap two seats of a seated round before its games open (chief
    /// judge): TABLE:SEAT TABLE:SEAT.
    Swap {
        #[arg(long, default_value = "main")]
        stage: StageId,
        #[arg(long)]
        round: u32,
        a: String,
        b: String,
    },
    /// Open a seated round's games on the referee; prints their ids.
    Open {
        #[arg(long, default_value = "main")]
        stage: StageId,
        #[arg(long)]
        round: u32,
    },
    /// Give any tournament command as JSON (`-`: standard input), e.g.
    /// `{"type":"approve","game":…,"item":…}` or `{"type":"decide_appeal",…}`;
    /// prints the events it stored.
    Command { json: String },
    /// Approve a pending item (chief judge): `extra:SEAT:POINTS`,
    /// `sum:POINTS`, `rewarded:COUNT` or the item's JSON.
    Approve { game: String, item: String },
    /// Refuse a pending item, with the reason (chief judge).
    Refuse {
        game: String,
        item: String,
        #[arg(long)]
        reason: String,
    },
    /// Confirm a finished game's result (chief judge, rfm §7.4).
    Confirm { game: String },
    /// File an appeal against a finished game.
    Appeal {
        game: String,
        #[arg(long)]
        text: String,
        #[arg(long)]
        player: Option<String>,
        /// The game event appealed against, by its sequence number.
        #[arg(long)]
        event_seq: Option<u32>,
    },
    /// Decide an appeal (chief judge): `rejected`, `replay`,
    /// `result:red|black|draw`, `points:PLAYER=POINTS[,…]` or its JSON.
    Decide {
        appeal: u32,
        decision: String,
        #[arg(long)]
        reason: String,
    },
    /// Record the chief judge's lot among tied players, best first.
    Lot { players: Vec<String> },
    /// The chief judge's rulings and the tournament's changes: who, when,
    /// what and why.
    Audit,
    /// Credentials issued at runtime: issue, revoke, list.
    Credential {
        #[command(subcommand)]
        action: crate::credentials::CredentialAction,
    },
    /// The tournament's summary.
    Show,
    /// The standings, best first.
    Standings {
        /// Only the first N rows.
        #[arg(long)]
        top: Option<usize>,
        /// The service's `Standings` JSON as it is.
        #[arg(long)]
        json: bool,
    },
    /// One player's games and points, as JSON.
    History { player: String },
    /// Results as a file: standings or games (CSV, JSON), a round's seating
    /// sheet (HTML).
    Export {
        what: ExportWhat,
        #[arg(long, value_enum)]
        format: Option<ExportFormat>,
        /// The seating sheet's round.
        #[arg(long)]
        round: Option<u32>,
        /// The seating sheet's stage (default: the first with that round).
        #[arg(long)]
        stage: Option<String>,
        /// Write here instead of standard output.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportWhat {
    Standings,
    Games,
    Seating,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Csv,
    Json,
    Html,
}

pub fn tournament(args: &TournamentArgs, out: &mut dyn Write) -> Result<bool> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(run(args, out))?;
    Ok(true)
}

struct Client {
    grpc: ScoringClient<Channel>,
    token: String,
    tournament: String,
}

impl Client {
    fn req<T>(&self, msg: T) -> Result<tonic::Request<T>> {
        let mut r = tonic::Request::new(msg);
        if !self.token.is_empty() {
            r.metadata_mut().insert(
                "authorization",
                format!("Bearer {}", self.token)
                    .parse()
                    .context("the token is not a valid header value")?,
            );
        }
        Ok(r)
    }

    async fn command(&mut self, cmd: &TournamentCommand) -> Result<CommandReply> {
        let req = self.req(CommandRequest {
            tournament: self.tournament.clone(),
            command_json: serde_json::to_string(cmd)?,
        })?;
        Ok(self.grpc.command(req).await.map_err(refused)?.into_inner())
    }

    /// Player id → nickname, from the standings every caller may read.
    async fn nicknames(&mut self) -> Result<HashMap<PlayerId, String>> {
        let req = self.tref()?;
        let r = self.grpc.get_standings(req).await.map_err(refused)?;
        let s: Standings = serde_json::from_str(&r.get_ref().standings_json)?;
        Ok(s.rows.into_iter().map(|r| (r.player, r.nickname)).collect())
    }

    async fn summary(&mut self) -> Result<mafia_proto::v1::TournamentSummary> {
        let req = self.tref()?;
        let r = self.grpc.get_tournament(req).await.map_err(refused)?;
        Ok(r.into_inner())
    }

    fn tref(&self) -> Result<tonic::Request<TournamentRef>> {
        self.req(TournamentRef {
            tournament: self.tournament.clone(),
        })
    }
}

/// A refusal as the service gave it: its code and the rule it names.
fn refused(s: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("refused ({:?}): {}", s.code(), s.message())
}

async fn run(args: &TournamentArgs, out: &mut dyn Write) -> Result<()> {
    let channel = Channel::from_shared(args.scoring.clone())
        .with_context(|| format!("bad scoring URL {}", args.scoring))?
        .connect()
        .await
        .with_context(|| format!("cannot reach the scoring service at {}", args.scoring))?;
    let id = match (&args.tournament, &args.action) {
        (Some(id), _) => id.clone(),
        (None, Action::List { archived }) => {
            let mut c = Client {
                grpc: ScoringClient::new(channel),
                token: args.token.clone(),
                tournament: String::new(),
            };
            return office::list(&mut c, *archived, out).await;
        }
        (None, _) => bail!("which tournament? give --tournament (or MAFIA_TOURNAMENT)"),
    };
    let mut c = Client {
        grpc: ScoringClient::new(channel),
        token: args.token.clone(),
        tournament: id.to_string(),
    };
    if let Some(cmd) = command_of(&args.action)? {
        let r = c.command(&cmd).await?;
        for e in &r.events_json {
            writeln!(out, "{e}")?;
        }
        writeln!(out, "version {}", r.version)?;
        return Ok(());
    }
    match &args.action {
        Action::List { archived } => office::list(&mut c, *archived, out).await?,
        Action::Remove => office::remove(&mut c, out).await?,
        Action::PreviewPlayers { csv } => office::preview(&mut c, csv, out).await?,
        Action::PlanSeating {
            stage,
            round,
            seed,
            tables,
            json,
        } => {
            let a = office::PlanArgs {
                stage,
                round: *round,
                seed: *seed,
                tables: tables.as_deref(),
                json: *json,
            };
            office::plan(&mut c, a, out).await?
        }
        Action::Audit => office::audit(&mut c, out).await?,
        Action::Create {
            name,
            rules,
            scheme,
            scheme_file,
            overrides,
            starts_on,
            ends_on,
        } => {
            let scheme = match (scheme, scheme_file) {
                (_, Some(file)) => serde_json::from_str(&read_arg(&file.to_string_lossy())?)
                    .with_context(|| format!("{} is not a scheme", file.display()))?,
                (Some(id), None) => Scheme::preset(id)?,
                (None, None) => Scheme::preset(rules.as_str())?,
            };
            let rule_overrides = match overrides {
                Some(json) => serde_json::from_str(json).context("--overrides is not JSON")?,
                None => serde_json::Value::Null,
            };
            let spec = NewTournament {
                spec: TournamentSpec {
                    id: id.clone(),
                    name: name.clone(),
                    rules: *rules,
                    rule_overrides,
                    scheme,
                },
                dates: Dates {
                    starts_on: starts_on.clone(),
                    ends_on: ends_on.clone(),
                },
            };
            let req = c.req(CreateTournamentRequest {
                spec_json: serde_json::to_string(&spec)?,
            })?;
            let r = c.grpc.create_tournament(req).await.map_err(refused)?;
            writeln!(out, "created {} (version {})", id, r.get_ref().version)?;
        }
        Action::Players { csv } => {
            let req = c.req(RegisterPlayersCsvRequest {
                tournament: c.tournament.clone(),
                csv: String::new(),
                csv_bytes: office::read_bytes(csv)?,
            })?;
            let r = c
                .grpc
                .register_players_csv(req)
                .await
                .map_err(refused)?
                .into_inner();
            writeln!(
                out,
                "{} players registered (version {})",
                r.events_json.len(),
                r.version
            )?;
        }
        Action::Judge { id, name } => {
            let judge = Judge {
                id: JudgeId::new(id.clone()),
                name: name.clone(),
            };
            let r = c.command(&TournamentCommand::AddJudge { judge }).await?;
            writeln!(out, "judge {id} added (version {})", r.version)?;
        }
        Action::Stage {
            id,
            rounds,
            tables,
            name,
            coefficient,
        } => {
            let stage = Stage {
                id: id.clone(),
                name: name.clone().unwrap_or_else(|| id.to_string()),
                rounds: *rounds,
                tables: *tables,
                coefficient: coefficient.parse().map_err(anyhow::Error::msg)?,
            };
            let r = c.command(&TournamentCommand::AddStage { stage }).await?;
            writeln!(out, "stage {id} added (version {})", r.version)?;
        }
        Action::Seat {
            stage,
            round,
            seed,
            policies,
        } => {
            let req = c.req(SeatRoundRequest {
                tournament: c.tournament.clone(),
                stage: stage.to_string(),
                round: *round,
                seed: *seed,
                policies_json: policies.clone().unwrap_or_default(),
            })?;
            let r = c.grpc.seat_round(req).await.map_err(refused)?.into_inner();
            let names = c.nicknames().await?;
            let name = |p: &PlayerId| names.get(p).map_or("", String::as_str).to_owned();
            for e in &r.events_json {
                if let TournamentEvent::RoundSeated { tables, .. } = serde_json::from_str(e)? {
                    for t in tables {
                        let judge = t.judge.as_ref().map_or("-", |j| j.as_str());
                        let seats: Vec<String> = t
                            .seats
                            .iter()
                            .enumerate()
                            .map(|(i, p)| format!("{:>2}:{} {}", i + 1, p.as_str(), name(p)))
                            .collect();
                        writeln!(out, "table {} (judge {judge}):", t.table)?;
                        for seat in seats {
                            writeln!(out, "  {seat}")?;
                        }
                    }
                }
            }
            writeln!(out, "{}", metrics_line(&r.metrics_json))?;
            writeln!(
                out,
                "round {round} of {stage} seated (version {})",
                r.version
            )?;
        }
        Action::Open { stage, round } => {
            // Each game's seed is the referee's to draw (deal_seed stays 0).
            let req = c.req(OpenRoundRequest {
                tournament: c.tournament.clone(),
                stage: stage.to_string(),
                round: *round,
                deal_seed: 0,
            })?;
            let r = c.grpc.open_round(req).await.map_err(refused)?.into_inner();
            for g in &r.game_ids {
                writeln!(out, "{g}")?;
            }
        }
        Action::Command { json } => {
            let text = read_arg(json)?;
            let cmd: TournamentCommand = serde_json::from_str(&text)
                .context("not a tournament command (crates/tournament TournamentCommand)")?;
            let r = c.command(&cmd).await?;
            for e in &r.events_json {
                writeln!(out, "{e}")?;
            }
            writeln!(out, "version {}", r.version)?;
        }
        Action::Credential { action } => {
            crate::credentials::run(&mut c.grpc, &c.token, &c.tournament, action, out).await?;
        }
        Action::Show => writeln!(out, "{}", office::summary_line(&c.summary().await?))?,
        Action::Standings { top, json } => {
            let req = c.tref()?;
            let r = c
                .grpc
                .get_standings(req)
                .await
                .map_err(refused)?
                .into_inner();
            if *json {
                writeln!(out, "{}", r.standings_json)?;
                return Ok(());
            }
            let s: Standings = serde_json::from_str(&r.standings_json)?;
            writeln!(
                out,
                "{} · {} games · version {}",
                s.tournament, s.games, r.version
            )?;
            for row in s.rows.iter().take(top.unwrap_or(usize::MAX)) {
                writeln!(
                    out,
                    "{:>3}. {:<24} {:>8} ({} games, {} wins){}",
                    row.rank,
                    row.nickname,
                    row.points.total.to_string(),
                    row.games,
                    row.wins,
                    if row.withdrawn { " withdrawn" } else { "" }
                )?;
            }
            for group in &s.awaiting_lot {
                let ids: Vec<&str> = group.iter().map(|p| p.as_str()).collect();
                writeln!(out, "tied, awaiting a lot: {}", ids.join(", "))?;
            }
        }
        Action::History { player } => {
            let req = c.req(PlayerHistoryRequest {
                tournament: c.tournament.clone(),
                player: player.clone(),
            })?;
            let r = c.grpc.player_history(req).await.map_err(refused)?;
            writeln!(out, "{}", r.get_ref().history_json)?;
        }
        Action::Export {
            what,
            format,
            round,
            stage,
            out: file,
        } => {
            let kind = export_kind(*what, *format)?;
            let req = c.req(ExportRequest {
                tournament: c.tournament.clone(),
                kind: kind as i32,
                round: round.unwrap_or(0),
                stage: stage.clone().unwrap_or_default(),
            })?;
            let r = c.grpc.export(req).await.map_err(refused)?.into_inner();
            match file {
                Some(path) => {
                    std::fs::write(path, &r.content)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    writeln!(out, "{} ({} bytes)", path.display(), r.content.len())?;
                }
                None => out.write_all(&r.content)?,
            }
        }
        _ => unreachable!("command_of gave it as a command, run above"),
    }
    Ok(())
}

/// The tournament command an action is, for the actions that are one.
fn command_of(action: &Action) -> Result<Option<TournamentCommand>> {
    use TournamentCommand as C;
    Ok(Some(match action {
        Action::Archive => C::Archive,
        Action::Unarchive => C::Unarchive,
        Action::Dates { starts_on, ends_on } => C::SetDates {
            starts_on: starts_on.clone(),
            ends_on: ends_on.clone(),
        },
        Action::Player(p) => office::player_command(p),
        Action::PairRules { separate, avoid } => office::pair_rules(separate, avoid)?,
        Action::PublishSeating {
            stage,
            round,
            tables,
        } => C::SeatRound {
            stage: stage.clone(),
            round: *round,
            tables: serde_json::from_str(&read_arg(tables)?)
                .context("the tables are JSON: [{\"table\":1,\"seats\":[…],\"judge\":ID}, …]")?,
        },
        Action::Swap { stage, round, a, b } => C::SwapSeats {
            stage: stage.clone(),
            round: *round,
            a: office::place(a)?,
            b: office::place(b)?,
        },
        Action::Approve { game, item } => C::Approve {
            game: office::game(game)?,
            item: office::item(item)?,
        },
        Action::Refuse { game, item, reason } => C::Refuse {
            game: office::game(game)?,
            item: office::item(item)?,
            reason: reason.clone(),
        },
        Action::Confirm { game } => C::ConfirmResult {
            game: office::game(game)?,
        },
        Action::Appeal {
            game,
            text,
            player,
            event_seq,
        } => C::FileAppeal {
            game: office::game(game)?,
            player: player.as_deref().map(PlayerId::new),
            event_seq: *event_seq,
            text: text.clone(),
        },
        Action::Decide {
            appeal,
            decision,
            reason,
        } => C::DecideAppeal {
            appeal: *appeal,
            decision: office::decision(decision)?,
            reason: reason.clone(),
        },
        Action::Lot { players } => C::DrawLot {
            players: players.iter().map(PlayerId::new).collect(),
        },
        _ => return Ok(None),
    }))
}

/// The stage's seating quality in one line (the service's
/// `mafia_seating::Metrics`), as `mafia seat` reports it.
fn metrics_line(json: &str) -> String {
    let Ok(m) = serde_json::from_str::<serde_json::Value>(json) else {
        return format!("metrics: {json}");
    };
    format!(
        "stage quality: pair meetings {}–{} (ideal {:.2}), games per player {}–{}, back-to-back rests {}",
        m["pair_meetings_min"],
        m["pair_meetings_max"],
        m["pair_meetings_ideal"].as_f64().unwrap_or(0.0),
        m["games_min"],
        m["games_max"],
        m["rests_back_to_back"],
    )
}

fn export_kind(what: ExportWhat, format: Option<ExportFormat>) -> Result<ExportKind> {
    Ok(match (what, format) {
        (ExportWhat::Standings, None | Some(ExportFormat::Csv)) => ExportKind::StandingsCsv,
        (ExportWhat::Standings, Some(ExportFormat::Json)) => ExportKind::StandingsJson,
        (ExportWhat::Games, None | Some(ExportFormat::Csv)) => ExportKind::GamesCsv,
        (ExportWhat::Games, Some(ExportFormat::Json)) => ExportKind::GamesJson,
        (ExportWhat::Seating, None | Some(ExportFormat::Html)) => ExportKind::SeatingHtml,
        (ExportWhat::Seating, _) => bail!("the seating sheet is HTML only"),
        (_, Some(ExportFormat::Html)) => bail!("standings and games are CSV or JSON"),
    })
}

/// The argument itself, a file's text, or standard input for `-`. JSON
/// given inline starts with `{` or `[`.
fn read_arg(arg: &str) -> Result<String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        return Ok(s);
    }
    if arg.trim_start().starts_with(['{', '[']) {
        return Ok(arg.to_owned());
    }
    std::fs::read_to_string(arg).with_context(|| format!("cannot read {arg}"))
}
