//! Players from a CSV file as Excel and Google Sheets save it in English
//! and Russian locales: UTF-8 with or without a byte-order mark, or
//! Windows-1251; `,` or `;` between fields (read off the first line); a
//! header row naming the columns (`id`, `nickname`/`никнейм`, `club`/`клуб`,
//! `photo`/`фото`, see [`COLUMNS`]) or none (`id,nickname[,club[,photo]]`,
//! or a nickname alone). Every line is read; a broken one is named by
//! number, with what to do, in English and Russian. At most
//! [`MAX_PLAYERS`] players a file: registering is all or nothing, under the
//! tournament's lock, so one call must stay short (a 200,000-line file once
//! held the service for minutes).

use encoding_rs::WINDOWS_1251;

/// The most players one CSV registers; more is refused before anything is
/// checked against the tournament (send a larger roster in several files).
pub const MAX_PLAYERS: usize = 5_000;

/// A file that cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("players CSV line {line}: {why}")]
pub struct CsvError {
    pub line: usize,
    pub why: String,
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Id,
    Nickname,
    Club,
    Photo,
}

/// The header names each column may have (compared in lower case).
pub const COLUMNS: &[(Column, &[&str])] = &[
    (Column::Id, &["id", "player_id", "ид", "идентификатор"]),
    (
        Column::Nickname,
        &[
            "nickname",
            "nick",
            "name",
            "player",
            "никнейм",
            "ник",
            "имя",
            "игрок",
        ],
    ),
    (Column::Club, &["club", "клуб", "команда"]),
    (
        Column::Photo,
        &["photo", "photo_url", "photo url", "фото", "фотография"],
    ),
];

const KNOWN: &str = "id, nickname/никнейм, club/клуб, photo/фото";

fn column(name: &str) -> Option<Column> {
    let name = name.trim().to_lowercase();
    COLUMNS
        .iter()
        .find(|(_, names)| names.contains(&name.as_str()))
        .map(|(c, _)| *c)
}

/// Why a line is refused; each in English and Russian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    FieldCount {
        found: usize,
        /// Whether the file has a header row.
        header: bool,
        /// The other separator, seen in the line: the likely cause.
        other: Option<char>,
    },
    QuoteNotClosed,
    EmptyNickname,
    UnknownColumn(String),
    ColumnTwice(String),
    NoNicknameColumn,
    IdTwice {
        id: String,
        first: usize,
    },
    NicknameTwice {
        nickname: String,
        first: usize,
    },
    IdRegistered(String),
    NicknameRegistered {
        nickname: String,
        id: String,
    },
    /// The tournament's own refusal (`TournamentError`'s text).
    Refused(String),
}

impl Problem {
    pub fn en(&self) -> String {
        self.texts().0
    }

    pub fn ru(&self) -> String {
        self.texts().1
    }

    /// English and Russian.
    fn texts(&self) -> (String, String) {
        match self {
            Problem::FieldCount {
                found,
                header,
                other,
            } => {
                let (hint, hint_ru) = match other {
                    Some(c) => (
                        format!(": is the file `{c}`-separated?"),
                        format!(": может быть, поля разделены знаком «{c}»?"),
                    ),
                    None => Default::default(),
                };
                let (expected, expected_ru) = if *header {
                    (
                        "as many as the header's columns",
                        "столько, сколько столбцов в заголовке",
                    )
                } else {
                    (
                        "id,nickname[,club[,photo]], a nickname alone, or a header row first",
                        "id,никнейм[,клуб[,фото]], один никнейм или сначала строка заголовка",
                    )
                };
                (
                    format!("found {found} field(s), expected {expected}{hint}"),
                    format!("полей: {found}, ожидалось {expected_ru}{hint_ru}"),
                )
            }
            Problem::QuoteNotClosed => (
                "a quoted field runs past the end of its line (a quote not closed?)".into(),
                "поле в кавычках не кончается в своей строке (кавычка не закрыта?)".into(),
            ),
            Problem::EmptyNickname => ("the nickname is empty".into(), "пустой никнейм".into()),
            Problem::UnknownColumn(c) => (
                format!("unknown column {c:?} in the header (known: {KNOWN}): rename or delete it"),
                format!("неизвестный столбец «{c}» в заголовке (известны: {KNOWN}): переименуйте или удалите его"),
            ),
            Problem::ColumnTwice(c) => (
                format!("column {c:?} is in the header twice"),
                format!("столбец «{c}» дважды в заголовке"),
            ),
            Problem::NoNicknameColumn => (
                format!("the header names no nickname column (known: {KNOWN})"),
                format!("в заголовке нет столбца никнейма (известны: {KNOWN})"),
            ),
            Problem::IdTwice { id, first } => (
                format!("id {id} is on line {first} too"),
                format!("id {id} уже есть в строке {first}"),
            ),
            Problem::NicknameTwice { nickname, first } => (
                format!("nickname {nickname:?} is on line {first} too"),
                format!("никнейм «{nickname}» уже есть в строке {first}"),
            ),
            Problem::IdRegistered(id) => (
                format!("player {id} is already registered"),
                format!("игрок {id} уже зарегистрирован"),
            ),
            Problem::NicknameRegistered { nickname, id } => (
                format!("nickname {nickname:?} is already registered (player {id})"),
                format!("никнейм «{nickname}» уже зарегистрирован (игрок {id})"),
            ),
            Problem::Refused(e) => (e.clone(), format!("турнир отклоняет строку: {e}")),
        }
    }
}

/// One line of the file: a player, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based, counting every line of the file.
    pub line: usize,
    /// As the file gives it; `None` when it gives none (made from the
    /// nickname when registered, `roster.rs`).
    pub id: Option<String>,
    pub nickname: String,
    pub club: Option<String>,
    pub photo_url: Option<String>,
    pub problem: Option<Problem>,
}

/// A file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    /// "utf-8", "utf-8 with BOM" or "windows-1251".
    pub encoding: &'static str,
    pub separator: char,
    /// The header's line when it is refused (an unknown column...), then
    /// every data line in file order.
    pub rows: Vec<Row>,
}

impl Sheet {
    pub fn first_problem(&self) -> Option<(&Row, &Problem)> {
        self.rows
            .iter()
            .find_map(|r| r.problem.as_ref().map(|p| (r, p)))
    }
}

/// The text of a file as saved: UTF-8 (a byte-order mark dropped), else
/// Windows-1251, which decodes any bytes. UTF-16 (Excel's "Unicode text")
/// is refused with what to save instead.
pub fn decode(bytes: &[u8]) -> Result<(String, &'static str), CsvError> {
    if let Some((enc, _)) = encoding_rs::Encoding::for_bom(bytes) {
        if enc != encoding_rs::UTF_8 {
            return Err(CsvError {
                line: 1,
                why: format!(
                    "the file is {} (Excel's \"Unicode text\"): save it as \"CSV UTF-8\" or \"CSV\" / файл в кодировке {}: сохраните его как «CSV UTF-8» или «CSV»",
                    enc.name(),
                    enc.name()
                ),
            });
        }
        return Ok((
            String::from_utf8_lossy(&bytes[3..]).into_owned(),
            "utf-8 with BOM",
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok((s.to_owned(), "utf-8")),
        Err(_) => {
            let (text, _) = WINDOWS_1251.decode_without_bom_handling(bytes);
            Ok((text.into_owned(), "windows-1251"))
        }
    }
}

/// `;` when the first non-blank line has more of them than of `,`
/// outside quotes (Excel in a Russian locale), else `,`.
fn separator(text: &str) -> char {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let (mut quoted, mut commas, mut semis) = (false, 0, 0);
    for c in first.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => commas += 1,
            ';' if !quoted => semis += 1,
            _ => {}
        }
    }
    if semis > commas {
        ';'
    } else {
        ','
    }
}

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

/// Where each column is: a header's, or the positional one.
enum Layout {
    Header(Vec<Option<Column>>),
    Positional,
}

/// Reads a file as saved (`bytes`), or text already decoded.
pub fn read_bytes(bytes: &[u8]) -> Result<Sheet, CsvError> {
    let (text, encoding) = decode(bytes)?;
    let mut sheet = read_text(&text)?;
    sheet.encoding = encoding;
    Ok(sheet)
}

/// Reads CSV text (a leading byte-order mark is dropped).
pub fn read_text(text: &str) -> Result<Sheet, CsvError> {
    let (text, encoding) = match text.strip_prefix('\u{feff}') {
        Some(t) => (t, "utf-8 with BOM"),
        None => (text, "utf-8"),
    };
    let sep = separator(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep as u8)
        .from_reader(text.as_bytes());
    // The reader's own line count skips blank lines: count every line,
    // from the record's first character.
    let mut lines = Lines {
        text: text.as_bytes(),
        byte: 0,
        line: 1,
    };
    let mut layout = None;
    let mut rows: Vec<Row> = Vec::new();
    let mut players = 0;
    for record in reader.records() {
        let record = record.map_err(|e| CsvError {
            line: e.position().map_or(0, |p| lines.at(p.byte())),
            why: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| lines.at(p.byte()));
        let fields: Vec<&str> = record.iter().map(str::trim).collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        let layout = match &mut layout {
            Some(l) => l,
            None => {
                let (l, problem) = header(&fields);
                if let Some(problem) = problem {
                    rows.push(Row::refused(line, problem));
                }
                let is_header = matches!(l, Layout::Header(_));
                let l = layout.insert(l);
                if is_header {
                    continue;
                }
                l
            }
        };
        if players == MAX_PLAYERS {
            return Err(CsvError {
                line,
                why: format!(
                    "more than {MAX_PLAYERS} players: one CSV registers at most {MAX_PLAYERS} (send the rest in another)"
                ),
            });
        }
        let mut row = match layout {
            Layout::Header(cols) => by_header(line, cols, &fields, sep),
            Layout::Positional => positional(line, &fields, sep),
        };
        if record.iter().any(|f| f.contains(['\n', '\r'])) {
            row.problem = Some(Problem::QuoteNotClosed);
        }
        rows.push(row);
        players += 1;
    }
    mark_repeats(&mut rows);
    Ok(Sheet {
        encoding,
        separator: sep,
        rows,
    })
}

impl Row {
    fn refused(line: usize, problem: Problem) -> Row {
        Row {
            line,
            id: None,
            nickname: String::new(),
            club: None,
            photo_url: None,
            problem: Some(problem),
        }
    }
}

/// The first non-blank line as a header when a field names a column; else
/// the positional layout and this line is data.
fn header(fields: &[&str]) -> (Layout, Option<Problem>) {
    let cols: Vec<Option<Column>> = fields.iter().map(|f| column(f)).collect();
    if cols.iter().all(Option::is_none) {
        return (Layout::Positional, None);
    }
    let mut problem = None;
    for (i, (c, name)) in cols.iter().zip(fields).enumerate() {
        match c {
            None if !name.is_empty() => {
                problem.get_or_insert(Problem::UnknownColumn(name.to_string()));
            }
            Some(c) if cols[..i].contains(&Some(*c)) => {
                problem.get_or_insert(Problem::ColumnTwice(name.to_string()));
            }
            _ => {}
        }
    }
    if !cols.contains(&Some(Column::Nickname)) {
        problem.get_or_insert(Problem::NoNicknameColumn);
    }
    (Layout::Header(cols), problem)
}

fn cell(fields: &[&str], i: usize) -> Option<String> {
    fields
        .get(i)
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
}

fn by_header(line: usize, cols: &[Option<Column>], fields: &[&str], sep: char) -> Row {
    let at = |want: Column| {
        cols.iter()
            .position(|c| *c == Some(want))
            .and_then(|i| cell(fields, i))
    };
    let mut row = Row {
        line,
        id: at(Column::Id),
        nickname: at(Column::Nickname).unwrap_or_default(),
        club: at(Column::Club),
        photo_url: at(Column::Photo),
        problem: None,
    };
    let other = other_separator(sep);
    if fields.len() > cols.len()
        || (fields.len() == 1 && cols.len() > 1 && fields[0].contains(other))
    {
        row.problem = Some(Problem::FieldCount {
            found: fields.len(),
            header: true,
            other: (fields.len() == 1).then_some(other),
        });
    } else if row.nickname.is_empty() {
        row.problem = Some(Problem::EmptyNickname);
    }
    row
}

/// No header: `id,nickname[,club[,photo]]`, or a nickname alone.
fn other_separator(sep: char) -> char {
    if sep == ';' {
        ','
    } else {
        ';'
    }
}

fn positional(line: usize, fields: &[&str], sep: char) -> Row {
    let other = other_separator(sep);
    let mut row = Row::refused(line, Problem::EmptyNickname);
    match fields.len() {
        1 if fields[0].contains(other) => {
            row.problem = Some(Problem::FieldCount {
                found: 1,
                header: false,
                other: Some(other),
            })
        }
        1 => {
            row.nickname = fields[0].to_string();
            row.problem = None;
        }
        2..=4 => {
            row.id = cell(fields, 0);
            row.nickname = fields[1].to_string();
            row.club = cell(fields, 2);
            row.photo_url = cell(fields, 3);
            row.problem = row.nickname.is_empty().then_some(Problem::EmptyNickname);
        }
        n => {
            row.problem = Some(Problem::FieldCount {
                found: n,
                header: false,
                other: None,
            })
        }
    }
    row
}

/// An id or a nickname (in any case) on two lines: the later is refused,
/// naming the first.
fn mark_repeats(rows: &mut [Row]) {
    let mut ids = std::collections::HashMap::new();
    let mut nicks = std::collections::HashMap::new();
    for r in rows.iter_mut().filter(|r| r.problem.is_none()) {
        if let Some(id) = &r.id {
            if let Some(first) = ids.insert(id.clone(), r.line) {
                ids.insert(id.clone(), first);
                r.problem = Some(Problem::IdTwice {
                    id: id.clone(),
                    first,
                });
                continue;
            }
        }
        let key = r.nickname.to_lowercase();
        if let Some(first) = nicks.insert(key.clone(), r.line) {
            nicks.insert(key, first);
            r.problem = Some(Problem::NicknameTwice {
                nickname: r.nickname.clone(),
                first,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(sheet: &Sheet) -> (usize, String) {
        let (r, p) = sheet.first_problem().expect("a problem");
        (r.line, p.en())
    }

    #[test]
    fn a_broken_line_is_named_by_its_number() {
        let s = read_text("id,nickname\np1,Ann\n\np2,\n").unwrap();
        assert_eq!(problem(&s), (4, "the nickname is empty".into()));
    }

    #[test]
    fn a_header_and_optional_fields_are_read() {
        let s = read_text("id,nickname,club\np1,Ann,Red\np2,Bob\n").unwrap();
        assert_eq!(s.rows.len(), 2);
        assert_eq!(s.rows[0].club.as_deref(), Some("Red"));
        assert_eq!(s.rows[1].line, 3);
    }

    #[test]
    fn a_quoted_field_may_hold_a_comma_and_quotes() {
        let s = read_text("p1,\"Ann, the \"\"Fox\"\"\",\"Red, Square\"\n").unwrap();
        assert_eq!(s.rows[0].nickname, "Ann, the \"Fox\"");
        assert_eq!(s.rows[0].club.as_deref(), Some("Red, Square"));
    }

    #[test]
    fn more_players_than_the_cap_are_refused_at_the_first_line_over_it() {
        let csv: String = (1..=MAX_PLAYERS + 1)
            .map(|n| format!("p{n},N{n}\n"))
            .collect();
        let e = read_text(&csv).unwrap_err();
        assert_eq!(e.line, MAX_PLAYERS + 1);
        assert!(e.to_string().contains(&MAX_PLAYERS.to_string()), "{e}");
        let at_cap: String = csv
            .lines()
            .take(MAX_PLAYERS)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(read_text(&at_cap).unwrap().rows.len(), MAX_PLAYERS);
    }

    #[test]
    fn an_unclosed_quote_is_an_error_not_a_player() {
        let s = read_text("p1,Ann\np2,\"Bob\n").unwrap();
        assert_eq!(s.first_problem().unwrap().1, &Problem::QuoteNotClosed);
    }

    #[test]
    fn russian_excel_semicolons_in_windows_1251_with_a_russian_header() {
        let text =
            "Никнейм;Клуб;Фото\r\nАлександра-Константинопольская;Красный, Дом;\r\nБорис;;\r\n";
        let (bytes, _, bad) = WINDOWS_1251.encode(text);
        assert!(!bad);
        let s = read_bytes(&bytes).unwrap();
        assert_eq!((s.encoding, s.separator), ("windows-1251", ';'));
        assert_eq!(s.rows.len(), 2);
        assert_eq!(s.rows[0].nickname, "Александра-Константинопольская");
        assert_eq!(s.rows[0].club.as_deref(), Some("Красный, Дом"));
        assert_eq!((s.rows[1].line, s.rows[1].id.as_ref()), (3, None));
    }

    #[test]
    fn utf8_with_a_bom_and_an_id_column_anywhere() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("nickname,id\nAnn,a1\n".as_bytes());
        let s = read_bytes(&bytes).unwrap();
        assert_eq!(s.encoding, "utf-8 with BOM");
        assert_eq!(
            (s.rows[0].id.as_deref(), s.rows[0].nickname.as_str()),
            (Some("a1"), "Ann")
        );
    }

    #[test]
    fn a_line_of_the_other_separator_gets_a_hint() {
        let s = read_text("p1,Ann\np2;Bob\n").unwrap();
        let (line, en) = problem(&s);
        assert_eq!(line, 2);
        assert!(
            en.contains("found 1 field(s)") && en.contains("`;`-separated?"),
            "{en}"
        );
        assert!(s.first_problem().unwrap().1.ru().contains("«;»"));
    }

    #[test]
    fn an_unknown_column_and_repeats_are_named() {
        let s = read_text("№;nickname\n1;Ann\n").unwrap();
        assert_eq!(problem(&s), (1, Problem::UnknownColumn("№".into()).en()));
        let s = read_text("nickname\nAnn\nann\n").unwrap();
        let (line, en) = problem(&s);
        assert_eq!(line, 3);
        assert!(en.contains("line 2"), "{en}");
    }

    #[test]
    fn utf16_is_refused_with_what_to_save_instead() {
        let e = read_bytes(&[0xFF, 0xFE, b'a', 0]).unwrap_err();
        assert!(e.why.contains("CSV UTF-8"), "{e}");
    }
}
