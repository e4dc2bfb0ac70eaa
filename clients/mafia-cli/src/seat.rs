//! `mafia seat`: a tournament's seating from a players CSV, with its quality
//! metrics beside those of a random seating, and the chief judge's swaps.

use anyhow::{bail, Context, Result};
use mafia_seating::{
    random_seating, seat as generate, swap, Metrics, PairPolicy, Player, PolicyKind, Seating,
    SeatingInput, SEATS,
};
use serde::Serialize;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct SeatArgs {
    /// CSV with the header `id,nickname,club` (club optional).
    #[arg(long)]
    pub players: PathBuf,
    #[arg(long)]
    pub rounds: usize,
    /// Tables of 10; by default as many as the players fill.
    #[arg(long)]
    pub tables: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// CSV with the header `kind,a,b`: kind is separate or avoid, a and b
    /// are player ids.
    #[arg(long)]
    pub policies: Option<PathBuf>,
    /// Table judges, comma-separated, rotated across the tables.
    #[arg(long, value_delimiter = ',')]
    pub judges: Vec<String>,
    /// The chief judge's swap, `ROUND:TABLE.SEAT,TABLE.SEAT` (e.g.
    /// `2:1.3,2.7`), applied after generation; may be repeated.
    #[arg(long = "swap", value_name = "R:T.S,T.S")]
    pub swaps: Vec<String>,
    /// The seating and the metrics as one JSON document.
    #[arg(long)]
    pub json: bool,
}

/// One `--swap`: round, and two (table, seat), all 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
struct SwapSpec {
    round: usize,
    a: (usize, usize),
    b: (usize, usize),
}

fn parse_swap(s: &str) -> Result<SwapSpec> {
    let bad =
        || anyhow::anyhow!("--swap `{s}`: expected ROUND:TABLE.SEAT,TABLE.SEAT, e.g. 2:1.3,2.7");
    let (round, seats) = s.split_once(':').ok_or_else(bad)?;
    let (a, b) = seats.split_once(',').ok_or_else(bad)?;
    let place = |p: &str| -> Result<(usize, usize)> {
        let (t, k) = p.split_once('.').ok_or_else(bad)?;
        Ok((
            t.trim().parse().map_err(|_| bad())?,
            k.trim().parse().map_err(|_| bad())?,
        ))
    };
    Ok(SwapSpec {
        round: round.trim().parse().map_err(|_| bad())?,
        a: place(a)?,
        b: place(b)?,
    })
}

fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

fn csv_error(path: &Path, e: &csv::Error) -> anyhow::Error {
    match e.position() {
        Some(pos) => anyhow::anyhow!("{}: line {}: {e}", path.display(), pos.line()),
        None => anyhow::anyhow!("{}: {e}", path.display()),
    }
}

/// The rows of a CSV file with a header naming `required` (and maybe
/// `optional`) columns, each as (line number, values in that order; an
/// absent optional column or a short row reads as empty).
fn read_rows(path: &Path, required: &[&str], optional: &[&str]) -> Result<Vec<(u64, Vec<String>)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rdr = reader(&text);
    let header = rdr.headers().map_err(|e| csv_error(path, &e))?.clone();
    let column = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
    let mut columns = Vec::new();
    for name in required {
        columns.push(Some(column(name).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: line 1: the header must name the columns {} (it has {})",
                path.display(),
                required
                    .iter()
                    .chain(optional)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(","),
                header.iter().collect::<Vec<_>>().join(",")
            )
        })?));
    }
    columns.extend(optional.iter().map(|name| column(name)));
    let mut rows = Vec::new();
    for record in rdr.records() {
        let record = record.map_err(|e| csv_error(path, &e))?;
        let line = record.position().map_or(0, |p| p.line());
        if record.len() > header.len() {
            bail!(
                "{}: line {line}: {} fields, but the header has {}",
                path.display(),
                record.len(),
                header.len()
            );
        }
        let values: Vec<String> = columns
            .iter()
            .map(|c| c.and_then(|c| record.get(c)).unwrap_or("").to_string())
            .collect();
        for (name, value) in required.iter().zip(&values) {
            if value.is_empty() {
                bail!("{}: line {line}: no {name}", path.display());
            }
        }
        rows.push((line, values));
    }
    Ok(rows)
}

fn read_players(path: &Path) -> Result<Vec<Player>> {
    let mut first_seen: HashMap<String, u64> = HashMap::new();
    let mut players = Vec::new();
    for (line, mut v) in read_rows(path, &["id", "nickname"], &["club"])? {
        let club = v.pop().filter(|c| !c.is_empty());
        let nickname = v.pop().unwrap_or_default();
        let id = v.pop().unwrap_or_default();
        if let Some(first) = first_seen.insert(id.clone(), line) {
            bail!(
                "{}: line {line}: player `{id}` is listed twice (first on line {first})",
                path.display()
            );
        }
        players.push(Player { id, nickname, club });
    }
    Ok(players)
}

fn read_policies(path: &Path, players: &[Player]) -> Result<Vec<PairPolicy>> {
    let mut policies = Vec::new();
    for (line, v) in read_rows(path, &["kind", "a", "b"], &[])? {
        let kind: PolicyKind = v[0]
            .parse()
            .map_err(|e| anyhow::anyhow!("{}: line {line}: {e}", path.display()))?;
        for id in &v[1..] {
            if !players.iter().any(|p| &p.id == id) {
                bail!(
                    "{}: line {line}: `{id}` is not among the players",
                    path.display()
                );
            }
        }
        if v[1] == v[2] {
            bail!(
                "{}: line {line}: a pair policy names `{}` twice",
                path.display(),
                v[1]
            );
        }
        policies.push(PairPolicy {
            kind,
            a: v[1].clone(),
            b: v[2].clone(),
        });
    }
    Ok(policies)
}

#[derive(Serialize)]
struct Report<'a> {
    seed: u64,
    tables: usize,
    rounds: usize,
    players: &'a [Player],
    seating: &'a Seating,
    metrics: &'a Metrics,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    swaps: Vec<SwapSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics_before_swaps: Option<&'a Metrics>,
    random_metrics: &'a Metrics,
}

pub fn seat(args: &SeatArgs, out: &mut impl Write) -> Result<bool> {
    let swaps = args
        .swaps
        .iter()
        .map(|s| parse_swap(s))
        .collect::<Result<Vec<_>>>()?;
    let players = read_players(&args.players)?;
    let policies = match &args.policies {
        Some(path) => read_policies(path, &players)?,
        None => Vec::new(),
    };
    let tables = args.tables.unwrap_or((players.len() / SEATS).max(1));
    let input = SeatingInput {
        players,
        tables,
        rounds: args.rounds,
        judges: args.judges.clone(),
        policies,
    };
    let mut seating = generate(&input, args.seed)?;
    let generated = Metrics::compute(&input, &seating)?;
    let mut metrics = generated.clone();
    for s in &swaps {
        metrics = swap(&input, &mut seating, s.round, s.a, s.b).with_context(|| {
            format!("--swap {}:{}.{},{}.{}", s.round, s.a.0, s.a.1, s.b.0, s.b.1)
        })?;
    }
    let random = Metrics::compute(&input, &random_seating(&input, args.seed)?)?;
    let before = (!swaps.is_empty()).then_some(&generated);
    if args.json {
        let report = Report {
            seed: args.seed,
            tables,
            rounds: args.rounds,
            players: &input.players,
            seating: &seating,
            metrics: &metrics,
            swaps,
            metrics_before_swaps: before,
            random_metrics: &random,
        };
        // Through a String, so that a closed pipe is an io::Error `main`
        // recognises.
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        print_seating(&input, &seating, args.seed, out)?;
        for s in &swaps {
            writeln!(
                out,
                "swapped in round {}: table {} seat {} <-> table {} seat {}",
                s.round, s.a.0, s.a.1, s.b.0, s.b.1
            )?;
        }
        if !swaps.is_empty() {
            writeln!(out)?;
        }
        print_metrics(&metrics, before, &random, out)?;
    }
    Ok(true)
}

fn print_seating(
    input: &SeatingInput,
    seating: &Seating,
    seed: u64,
    out: &mut impl Write,
) -> Result<()> {
    let nick: HashMap<&str, &str> = input
        .players
        .iter()
        .map(|p| (p.id.as_str(), p.nickname.as_str()))
        .collect();
    let name = |id: &str| nick.get(id).copied().unwrap_or(id).to_string();
    let judge_width = input
        .judges
        .iter()
        .map(|j| j.chars().count())
        .max()
        .unwrap_or(0)
        .max("judge".len());
    let width = input
        .players
        .iter()
        .map(|p| p.nickname.chars().count())
        .max()
        .unwrap_or(0)
        .max(2);
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "{}, {}, {}, seed {seed}",
        plural(input.players.len(), "player"),
        plural(input.tables, "table"),
        plural(input.rounds, "round")
    )?;
    for (r, round) in seating.rounds.iter().enumerate() {
        writeln!(out, "\nRound {}", r + 1)?;
        let mut head = format!("{:<5}", "table");
        if !input.judges.is_empty() {
            head += &format!("  {:<judge_width$}", "judge");
        }
        for seat in 1..=SEATS {
            head += &format!("  {seat:<width$}");
        }
        writeln!(out, "{}", head.trim_end())?;
        for (t, table) in round.tables.iter().enumerate() {
            let mut row = format!("{:<5}", t + 1);
            if !input.judges.is_empty() {
                row += &format!("  {:<judge_width$}", table.judge.as_deref().unwrap_or("-"));
            }
            for id in &table.seats {
                row += &format!("  {:<width$}", name(id));
            }
            writeln!(out, "{}", row.trim_end())?;
        }
        if !round.resting.is_empty() {
            let resting: Vec<String> = round.resting.iter().map(|id| name(id)).collect();
            writeln!(out, "resting: {}", resting.join(", "))?;
        }
    }
    writeln!(out)?;
    Ok(())
}

fn print_metrics(
    ours: &Metrics,
    before: Option<&Metrics>,
    random: &Metrics,
    out: &mut impl Write,
) -> Result<()> {
    let mut columns = vec![("ours", ours.figures())];
    if let Some(b) = before {
        columns.push(("before swaps", b.figures()));
    }
    columns.push(("random", random.figures()));
    let width = ours
        .figures()
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0);
    let mut head = format!("{:<width$}", "metric");
    for (label, _) in &columns {
        head += &format!("  {label:>12}");
    }
    writeln!(out, "{head}")?;
    for (i, (name, _)) in ours.figures().iter().enumerate() {
        let mut row = format!("{name:<width$}");
        for (_, figures) in &columns {
            row += &format!("  {:>12}", figures[i].1);
        }
        writeln!(out, "{row}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_argument_reads_round_and_two_seats() {
        assert_eq!(
            parse_swap("2:1.3,2.7").unwrap(),
            SwapSpec {
                round: 2,
                a: (1, 3),
                b: (2, 7)
            }
        );
        for bad in ["2:1.3", "1.3,2.7", "x:1.3,2.7", "2:1,2"] {
            assert!(parse_swap(bad).is_err(), "{bad}");
        }
    }
}
