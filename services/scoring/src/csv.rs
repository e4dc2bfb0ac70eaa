//! Players from CSV: `id,nickname[,club[,photo_url]]`, one a line, an
//! optional header line starting with `id`; fields as CSV quotes them. A
//! broken line is named by number. At most [`MAX_PLAYERS`] players a CSV:
//! registering is all or nothing, under the tournament's lock, so one call
//! must stay short (a 200,000-line file once held the service for minutes).

use mafia_tournament::{Player, PlayerId};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("players CSV line {line}: {why}")]
pub struct CsvError {
    pub line: usize,
    pub why: String,
}

/// The most players one CSV registers; more is refused before anything is
/// checked against the tournament (send a larger roster in several files).
pub const MAX_PLAYERS: usize = 5_000;

/// Line numbers of byte offsets, counted forward from the last one asked
/// (records come in order), so numbering every record reads the text once.
struct Lines<'a> {
    text: &'a [u8],
    byte: usize,
    line: usize,
}

impl Lines<'_> {
    /// The line a record starting at `byte` is on: a record after a blank
    /// line starts at that line's end, so leading line ends are skipped.
    fn at(&mut self, byte: u64) -> usize {
        let mut at = byte as usize;
        while self
            .text
            .get(at)
            .is_some_and(|b| matches!(b, b'\n' | b'\r'))
        {
            at += 1;
        }
        let at = at.min(self.text.len());
        if at < self.byte {
            (self.byte, self.line) = (0, 1);
        }
        self.line += self.text[self.byte..at]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        self.byte = at;
        self.line
    }
}

/// The players, each with its 1-based line number. Fields are CSV's
/// (RFC 4180): a nickname or a club with a comma is quoted.
pub fn parse_players(text: &str) -> Result<Vec<(usize, Player)>, CsvError> {
    let mut out = Vec::new();
    let mut seen_row = false;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    // The reader's own line count skips blank lines: count every line,
    // from the record's first character.
    let mut lines = Lines {
        text: text.as_bytes(),
        byte: 0,
        line: 1,
    };
    for record in reader.records() {
        let record = record.map_err(|e| CsvError {
            line: e.position().map_or(0, |p| lines.at(p.byte())),
            why: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| lines.at(p.byte()));
        if record.iter().any(|f| f.contains(['\n', '\r'])) {
            return Err(CsvError {
                line,
                why: "a quoted field runs past the end of its line (a quote not closed?)".into(),
            });
        }
        let fields: Vec<&str> = record.iter().map(str::trim).collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        if !seen_row && fields[0].eq_ignore_ascii_case("id") {
            seen_row = true;
            continue;
        }
        seen_row = true;
        let err = |why: String| CsvError { line, why };
        if out.len() == MAX_PLAYERS {
            return Err(err(format!(
                "more than {MAX_PLAYERS} players: one CSV registers at most {MAX_PLAYERS} (send the rest in another)"
            )));
        }
        if fields.len() < 2 || fields.len() > 4 {
            return Err(err(format!(
                "expected id,nickname[,club[,photo_url]], found {} field(s)",
                fields.len()
            )));
        }
        if fields[0].is_empty() || fields[1].is_empty() {
            return Err(err("a player's id and nickname may not be empty".into()));
        }
        let opt = |k: usize| {
            fields
                .get(k)
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string())
        };
        out.push((
            line,
            Player {
                id: PlayerId::new(fields[0]),
                nickname: fields[1].to_string(),
                club: opt(2),
                photo_url: opt(3),
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_line_is_named_by_its_number() {
        let e = parse_players("id,nickname\np1,Ann\n\np2\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.to_string().starts_with("players CSV line 4:"), "{e}");
    }

    #[test]
    fn a_header_and_optional_fields_are_read() {
        let p = parse_players("id,nickname,club\np1,Ann,Red\np2,Bob\n").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].1.club.as_deref(), Some("Red"));
        assert_eq!(p[1].0, 3);
    }

    #[test]
    fn a_quoted_field_may_hold_a_comma_and_quotes() {
        let p = parse_players("p1,\"Ann, the \"\"Fox\"\"\",\"Red, Square\"\n").unwrap();
        assert_eq!(p[0].1.nickname, "Ann, the \"Fox\"");
        assert_eq!(p[0].1.club.as_deref(), Some("Red, Square"));
    }

    #[test]
    fn more_players_than_the_cap_are_refused_at_the_first_line_over_it() {
        let csv: String = (1..=MAX_PLAYERS + 1)
            .map(|n| format!("p{n},N{n}\n"))
            .collect();
        let e = parse_players(&csv).unwrap_err();
        assert_eq!(e.line, MAX_PLAYERS + 1);
        assert!(e.to_string().contains(&MAX_PLAYERS.to_string()), "{e}");
        let at_cap: String = csv
            .lines()
            .take(MAX_PLAYERS)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(parse_players(&at_cap).unwrap().len(), MAX_PLAYERS);
    }

    #[test]
    fn an_unclosed_quote_is_an_error_not_a_player() {
        let e = parse_players("p1,Ann\np2,\"Bob\n").unwrap_err();
        assert!(e.to_string().starts_with("players CSV line"), "{e}");
    }
}
