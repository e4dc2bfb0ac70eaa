//! `mafia export`: a tournament's standings, per-game points or a round's
//! seating sheet from its stored log (a JSON-lines file of
//! `mafia_tournament::stored`: the `created` event, then one event a line);
//! with `--to`, game records in another format (`crate::interchange`).

use anyhow::{bail, Context, Result};
use mafia_record::StageId;
use mafia_tournament::{export, standings, stored};
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum What {
    /// The standings, every player by rank with the points split.
    Standings,
    /// Every scored game's points, one line per seat.
    Games,
    /// A round's printable seating sheet (`--format html`, `--round N`).
    Seating,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Json,
    Html,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// `standings`, `games` or `seating` (with `--tournament-log`); with
    /// `--to`, the game records to write in that format.
    #[arg(required = true, value_name = "WHAT|FILE")]
    pub targets: Vec<String>,
    /// The tournament's log: JSON lines, the `created` event first.
    #[arg(long, conflicts_with = "to")]
    pub tournament_log: Option<PathBuf>,
    /// Write the game records given as another site's JSON instead.
    #[arg(long, value_enum, requires = "out")]
    pub to: Option<crate::interchange::To>,
    /// With `--to`: the directory for `<record name>.json`.
    #[arg(long, requires = "to")]
    pub out: Option<PathBuf>,
    /// csv or json for standings and games; html for seating.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// The round of the seating sheet.
    #[arg(long)]
    pub round: Option<u32>,
    /// The stage of `--round`; by default the first stage that has it seated.
    #[arg(long)]
    pub stage: Option<String>,
    /// As the public sees it: no extras that wait for the chief judge.
    #[arg(long)]
    pub public: bool,
}

pub fn export(args: &ExportArgs, out: &mut impl Write) -> Result<bool> {
    if let (Some(to), Some(dir)) = (args.to, &args.out) {
        let files: Vec<PathBuf> = args.targets.iter().map(PathBuf::from).collect();
        return crate::interchange::export_games(to, &files, dir, out);
    }
    let [name] = args.targets.as_slice() else {
        bail!("export one of standings, games or seating (or game records with --to)");
    };
    let what = <What as clap::ValueEnum>::from_str(name, true)
        .map_err(|_| anyhow::anyhow!("{name}: export standings, games or seating"))?;
    let Some(path) = &args.tournament_log else {
        bail!("export {name} needs --tournament-log FILE");
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let t = stored::fold_lines(&text).with_context(|| format!("{}", path.display()))?;
    let text = match (what, args.format) {
        (What::Standings, f) => {
            let mut s = standings(&t);
            if args.public {
                s = export::public_standings(s);
            }
            match f.unwrap_or(Format::Csv) {
                Format::Csv => export::standings_csv(&s),
                Format::Json => export::standings_json(&s),
                Format::Html => bail!("standings export as csv or json, not html"),
            }
        }
        (What::Games, f) => {
            let mut g = export::game_points(&t);
            if args.public {
                g = export::public_game_points(g);
            }
            match f.unwrap_or(Format::Csv) {
                Format::Csv => export::games_csv(&g),
                Format::Json => export::games_json(&g),
                Format::Html => bail!("games export as csv or json, not html"),
            }
        }
        (What::Seating, None | Some(Format::Html)) => {
            let Some(round) = args.round else {
                bail!("the seating sheet needs --round N");
            };
            let stage = match &args.stage {
                Some(s) => Some(StageId::new(s).map_err(|e| anyhow::anyhow!("--stage {s}: {e}"))?),
                None => None,
            };
            export::seating_html(&t, stage.as_ref(), round)?
        }
        (What::Seating, Some(_)) => bail!("the seating sheet exports as html only"),
    };
    out.write_all(text.as_bytes())?;
    Ok(true)
}
