//! Players from CSV: `id,nickname[,club[,photo_url]]`, one a line, an
//! optional header line starting with `id`. A broken line is named by number.

use mafia_tournament::{Player, PlayerId};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("players CSV line {line}: {why}")]
pub struct CsvError {
    pub line: usize,
    pub why: String,
}

/// The players, each with its 1-based line number.
pub fn parse_players(text: &str) -> Result<Vec<(usize, Player)>, CsvError> {
    let mut out = Vec::new();
    let mut seen_row = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let fields: Vec<&str> = raw.split(',').map(str::trim).collect();
        if !seen_row && fields[0].eq_ignore_ascii_case("id") {
            seen_row = true;
            continue;
        }
        seen_row = true;
        let err = |why: String| CsvError { line, why };
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
}
