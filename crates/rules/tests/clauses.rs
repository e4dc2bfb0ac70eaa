//! The clause tables `crates/rules/clauses/<rule set>.tsv`: every clause
//! number (or, for the unnumbered `club` book, every section heading) of
//! each source in `shared/rules/sources/`, with its opening words. The
//! tables are committed so that the citation checks run without the
//! sources; `clause_tables_match_the_sources` keeps them true to the texts
//! when the sources are there. Rewrite them with `MAFIA_WRITE_CLAUSES=1`.

use mafia_rules::violation::Topic;
use mafia_rules::{Code, RuleSetId};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn table_path(rules: RuleSetId) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("clauses")
        .join(format!("{rules}.tsv"))
}

/// `shared/rules/sources` next to the workspace or above it
/// (`../shared/rules/sources`), or `MAFIA_RULES_SOURCES`.
fn sources_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MAFIA_RULES_SOURCES") {
        return Some(dir.into());
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .ok()?;
    workspace
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/rules/sources"))
        .find(|d| d.is_dir())
}

/// The opening words of a clause: enough for a judge to recognise it.
fn opening(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() && out.chars().count() + word.chars().count() > 60 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A line's leading clause number: "4.4.2" of "4.4.2. …", "4.4.2…" (rfm
/// glues the text on) or "4.4.12.1 …"; a single number only as "4. …".
fn leading_number(line: &str) -> Option<(String, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(line.len());
    let raw = &line[..end];
    let rest = &line[end..];
    let number = raw.trim_end_matches('.');
    if number.is_empty() || number.split('.').any(str::is_empty) {
        return None;
    }
    let section = raw.ends_with('.') && rest.starts_with(' ');
    if !(number.contains('.') || section) {
        return None;
    }
    let rest = rest.trim();
    (!rest.is_empty()).then(|| (number.to_string(), rest))
}

/// rfm, classic, minsk2017: dotted clause numbers at the start of a line.
/// A number given twice (classic repeats its section 6) keeps its first text.
fn numbered(text: &str) -> Vec<(String, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some((number, rest)) = leading_number(line.trim_end()) {
            if seen.insert(number.clone()) {
                out.push((format!("§{number}"), opening(rest)));
            }
        }
    }
    out
}

/// ua: "N. heading" opens section N when the next numbered line is item 1;
/// items restart at 1 in each section and are cited "§section.item".
fn sectioned(text: &str) -> Vec<(String, String)> {
    let lines: Vec<(u32, &str)> = text
        .lines()
        .filter_map(|l| {
            let (n, rest) = leading_number(l.trim_end())?;
            Some((n.parse().ok()?, rest))
        })
        .collect();
    let mut section = 0;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, (n, rest)) in lines.iter().enumerate() {
        let opens = *n == section + 1 && lines.get(i + 1).is_some_and(|(m, _)| *m == 1);
        let key = if opens {
            section = *n;
            format!("§{n}")
        } else {
            format!("§{section}.{n}")
        };
        if seen.insert(key.clone()) {
            out.push((key, opening(rest)));
        }
    }
    out
}

/// club: no numbers; a heading is a short line that is not a quoted phrase
/// of the host's and not a sentence: no final punctuation, or a colon
/// before a list, or one of the "Правила …" titles.
fn headings(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let short = !line.is_empty() && line.chars().count() <= 70;
        let quoted = line.starts_with('«') || line.ends_with('»') || line.starts_with('|');
        if !short || quoted || line.contains(',') {
            continue;
        }
        let next = lines.get(i + 1).copied().unwrap_or("");
        let last = line.chars().last().unwrap_or(' ');
        let heading = if last.is_alphabetic() || last == ')' {
            true
        } else if last == ':' {
            !next.starts_with('«')
        } else {
            last == '.' && line.starts_with("Правила ")
        };
        if heading {
            let name = line.trim_end_matches([':', '.']).to_string();
            if seen.insert(name.clone()) {
                out.push((format!("\"{name}\""), name));
            }
        }
    }
    out
}

fn parse(rules: RuleSetId, text: &str) -> Vec<(String, String)> {
    match rules {
        RuleSetId::Rfm | RuleSetId::Classic | RuleSetId::Minsk2017 => numbered(text),
        RuleSetId::Ua => sectioned(text),
        RuleSetId::Club => headings(text),
    }
}

fn to_tsv(rows: &[(String, String)]) -> String {
    rows.iter().map(|(k, h)| format!("{k}\t{h}\n")).collect()
}

/// The committed table: clause key ("§4.4.2", "\"НОЧЬ\"") → opening words.
fn table(rules: RuleSetId) -> BTreeMap<String, String> {
    let path = table_path(rules);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with MAFIA_WRITE_CLAUSES=1", path.display()));
    text.lines()
        .map(|l| {
            let (k, h) = l.split_once('\t').expect("key<TAB>heading");
            (k.to_string(), h.to_string())
        })
        .collect()
}

#[test]
fn clause_tables_match_the_sources() {
    let Some(dir) = sources_dir() else {
        println!(
            "shared/rules/sources not found: the clause tables are not checked against the sources"
        );
        return;
    };
    for rules in RuleSetId::ALL {
        let source = dir.join(rules.source_file());
        let text = std::fs::read_to_string(&source)
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        let tsv = to_tsv(&parse(rules, &text));
        let path = table_path(rules);
        if std::env::var_os("MAFIA_WRITE_CLAUSES").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &tsv).unwrap();
        } else {
            let stored = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(stored, tsv, "{} is stale", path.display());
        }
    }
}

#[test]
fn the_parsers_read_each_books_own_numbering() {
    assert_eq!(
        leading_number("4.4.2В течение"),
        Some(("4.4.2".into(), "В течение"))
    );
    assert_eq!(
        leading_number("3.4.12.1 Высказывание"),
        Some(("3.4.12.1".into(), "Высказывание"))
    );
    assert_eq!(leading_number("6. Фоли"), Some(("6".into(), "Фоли")));
    assert_eq!(leading_number("10 игроков"), None);
    let ua = sectioned("1. A\n1. a1\n2. a2\n3. a3\n2. B\n1. b1\n3. b3\n");
    let keys: Vec<_> = ua.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["§1", "§1.1", "§1.2", "§1.3", "§2", "§2.1", "§2.3"]);
}

/// Where a clause is cited: "003 §4.20" → ("003", "§4.20").
fn split(clause: &str) -> (&str, &str) {
    clause.split_once(' ').expect("prefix and clause")
}

/// Every situation the engine refuses in `rules`, as (code, topic): a topic
/// is a situation of its own where it changes the clause.
fn situations(rules: RuleSetId) -> Vec<(Code, Topic)> {
    let mut out = Vec::new();
    for code in Code::ALL {
        let general = code.clause_on(Topic::General, rules);
        out.push((code, Topic::General));
        for topic in Topic::ALL {
            if topic != Topic::General && code.clause_on(topic, rules) != general {
                out.push((code, topic));
            }
        }
    }
    out
}

#[test]
fn every_violation_cites_a_clause_of_its_own_rule_sets_source() {
    for rules in RuleSetId::ALL {
        let table = table(rules);
        for (code, topic) in situations(rules) {
            let clause = code.clause_on(topic, rules);
            let (prefix, key) = split(clause);
            assert_eq!(
                prefix,
                rules.source_prefix(),
                "{rules} {code} {topic:?}: {clause}"
            );
            assert!(
                table.contains_key(key),
                "{rules} {code} {topic:?} cites {clause}, which is not in {}",
                table_path(rules).display()
            );
        }
    }
}

/// Situations that share one clause because the source has no more
/// specific one for either: (rule set, clause, why).
const SHARED: &[(RuleSetId, &str, &str)] = &[
    // "a player stays at the table while he plays": one rule for a seat
    // that is out, whether named as a target or as a hand.
    (RuleSetId::Rfm, "000 §3.1", "player and voter out"),
    (RuleSetId::Classic, "001 §2.1", "player and voter out"),
    (RuleSetId::Minsk2017, "002 §3.1", "player and voter out"),
    (RuleSetId::Ua, "003 §2.12", "player and voter out"),
    (
        RuleSetId::Club,
        "004 \"Удаление из игры\"",
        "player and voter out",
    ),
    // The nomination clause is also where a nomination may be made: in
    // one's own minute, any player (self included), in the present tense.
    (RuleSetId::Rfm, "000 §4.4.2", "nomination"),
    (RuleSetId::Classic, "001 §3.4.2", "nomination"),
    (RuleSetId::Minsk2017, "002 §4.4.2", "nomination"),
    (
        RuleSetId::Ua,
        "003 §4.2",
        "nomination; ua's renaming and review",
    ),
    // "The player who left has a last word of one minute": the one clause
    // of last words, ended out of their step or for another seat.
    (RuleSetId::Rfm, "000 §4.4.14", "last words"),
    (RuleSetId::Classic, "001 §3.4.13", "last words"),
    (RuleSetId::Minsk2017, "002 §4.4.14", "last words"),
    (RuleSetId::Ua, "003 §4.19", "last words"),
    // "A player may withdraw his nomination": refused when there is none.
    (RuleSetId::Minsk2017, "002 §4.4.3", "withdrawal"),
    // "The result is fixed, but discipline holds until the judge ends the
    // game after the farewell minute": the end, and what is still given.
    (RuleSetId::Ua, "003 §1.9", "the end of the game"),
    // One clause gives the best move, when and what it names.
    (RuleSetId::Classic, "001 §3.5.9", "best move"),
    (RuleSetId::Minsk2017, "002 §8.3", "best move"),
    // The card set: no Beauty outside club.
    (RuleSetId::Rfm, "000 §1.1", "no Beauty"),
    (RuleSetId::Classic, "001 §1.1", "no Beauty"),
    (RuleSetId::Minsk2017, "002 §1.1", "no Beauty"),
    (RuleSetId::Ua, "003 §1.3", "no Beauty"),
    // club has one section per part of the game and no numbers.
    (
        RuleSetId::Club,
        "004 \"Правила дневного голосования\"",
        "club's voting",
    ),
    (
        RuleSetId::Club,
        "004 \"ПЕРВАЯ И ПОСЛЕДУЮЩИЕ НОЧИ\"",
        "club's nights",
    ),
    (RuleSetId::Club, "004 \"НОЧЬ\"", "club's meeting night"),
    (
        RuleSetId::Club,
        "004 \"ИСХОД ИГРЫ\"",
        "club's end of the game",
    ),
    (
        RuleSetId::Club,
        "004 \"Голосование\"",
        "club's vote result: last word, tie, lift",
    ),
];

#[test]
fn no_two_situations_share_a_clause_unless_the_source_has_no_more_specific_one() {
    let mut used = std::collections::HashSet::new();
    for rules in RuleSetId::ALL {
        let mut by_clause: BTreeMap<&str, Vec<(Code, Topic)>> = BTreeMap::new();
        for (code, topic) in situations(rules) {
            by_clause
                .entry(code.clause_on(topic, rules))
                .or_default()
                .push((code, topic));
        }
        for (clause, users) in by_clause {
            if users.len() > 1 {
                assert!(
                    SHARED.iter().any(|(r, c, _)| *r == rules && *c == clause),
                    "{rules}: {clause} is cited for {users:?}"
                );
                used.insert((rules, clause));
            }
        }
    }
    for (rules, clause, why) in SHARED {
        assert!(
            used.contains(&(*rules, *clause)),
            "{rules}: {clause} ({why}) is no longer shared; drop it from SHARED"
        );
    }
}

#[test]
fn club_cites_its_own_sections_a_refused_nomination_its_day_voting_rules() {
    assert_eq!(
        Code::NotInRuleSet.clause_on(Topic::Nomination, RuleSetId::Club),
        "004 \"Правила дневного голосования\""
    );
    for (code, topic) in situations(RuleSetId::Club) {
        assert!(code.clause_on(topic, RuleSetId::Club).starts_with("004 \""));
    }
}
