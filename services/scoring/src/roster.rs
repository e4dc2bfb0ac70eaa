//! A players file's rows against the tournament: ids made from nicknames
//! where the file gives none (transliterated, unique within the
//! tournament, the same for the same nickname), players already registered
//! refused, and each player checked as `RegisterPlayer` would be. The
//! preview shows exactly this; registering stores it only when no row is
//! refused.

use crate::csv::{Problem, Row, Sheet};
use mafia_tournament::{Actor, Player, PlayerId, Tournament, TournamentCommand};
use std::collections::HashSet;

/// A row as it would be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub row: Row,
    /// The id registered: the file's, or made (`id_made`).
    pub id: String,
    pub id_made: bool,
}

impl Resolved {
    pub fn player(&self) -> Player {
        Player {
            id: PlayerId::new(&self.id),
            nickname: self.row.nickname.clone(),
            club: self.row.club.clone(),
            photo_url: self.row.photo_url.clone(),
        }
    }
}

/// Every row of `sheet` against `t`, as `actor` would register them one
/// after the other; a row already refused by the file keeps its problem.
pub fn resolve(t: &Tournament, sheet: &Sheet, actor: &Actor) -> Vec<Resolved> {
    // Ids the file gives are its own: a made id never takes one.
    let mut taken: HashSet<String> = sheet.rows.iter().filter_map(|r| r.id.clone()).collect();
    let mut t = t.clone();
    let mut out = Vec::with_capacity(sheet.rows.len());
    for row in &sheet.rows {
        let (id, id_made) = match &row.id {
            Some(id) => (id.clone(), false),
            None => (made_id(&row.nickname, &t, &taken), true),
        };
        taken.insert(id.clone());
        let mut r = Resolved {
            row: row.clone(),
            id,
            id_made,
        };
        if r.row.problem.is_none() {
            r.row.problem = check(&mut t, &r, actor).err();
        }
        out.push(r);
    }
    out
}

/// The row against the tournament, registered into it when fine so the
/// next rows are checked against it too.
fn check(t: &mut Tournament, r: &Resolved, actor: &Actor) -> Result<(), Problem> {
    if t.players.contains_key(&PlayerId::new(&r.id)) {
        return Err(Problem::IdRegistered(r.id.clone()));
    }
    let nick = r.row.nickname.to_lowercase();
    if let Some(p) = t
        .players
        .values()
        .find(|p| p.player.nickname.to_lowercase() == nick)
    {
        return Err(Problem::NicknameRegistered {
            nickname: r.row.nickname.clone(),
            id: p.player.id.to_string(),
        });
    }
    let cmd = TournamentCommand::RegisterPlayer { player: r.player() };
    let events = t
        .command(&cmd, actor, t.created_at)
        .map_err(|e| Problem::Refused(e.to_string()))?;
    for e in &events {
        t.apply(e);
    }
    Ok(())
}

/// The nickname in Latin letters, digits and `-`; then `-2`, `-3`… past
/// the ids taken in the tournament and the file.
fn made_id(nickname: &str, t: &Tournament, taken: &HashSet<String>) -> String {
    let base = slug(nickname);
    let free = |id: &str| !taken.contains(id) && !t.players.contains_key(&PlayerId::new(id));
    if free(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| free(id))
        .expect("some suffix is free")
}

/// A made id is at most this long (before a `-n` suffix).
const SLUG_MAX: usize = 40;

pub fn slug(nickname: &str) -> String {
    let mut out = String::new();
    for c in nickname.to_lowercase().chars() {
        match translit(c) {
            Some(latin) => out.push_str(latin),
            None if c.is_ascii_alphanumeric() => out.push(c),
            None => {
                if !out.is_empty() && !out.ends_with('-') {
                    out.push('-');
                }
            }
        }
        if out.len() >= SLUG_MAX {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "player".to_owned()
    } else {
        out.to_owned()
    }
}

/// Russian and Ukrainian letters in Latin (the passport table, ГОСТ Р
/// 52535.1-2006, simplified).
fn translit(c: char) -> Option<&'static str> {
    Some(match c {
        'а' => "a",
        'б' => "b",
        'в' => "v",
        'г' | 'ґ' => "g",
        'д' => "d",
        'е' | 'ё' | 'э' => "e",
        'є' => "ye",
        'ж' => "zh",
        'з' => "z",
        'и' | 'і' => "i",
        'ї' => "yi",
        'й' | 'ы' => "y",
        'к' => "k",
        'л' => "l",
        'м' => "m",
        'н' => "n",
        'о' => "o",
        'п' => "p",
        'р' => "r",
        'с' => "s",
        'т' => "t",
        'у' => "u",
        'ф' => "f",
        'х' => "kh",
        'ц' => "ts",
        'ч' => "ch",
        'ш' => "sh",
        'щ' => "shch",
        'ъ' | 'ь' => "",
        'ю' => "yu",
        'я' => "ya",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nickname_becomes_a_latin_id() {
        assert_eq!(
            slug("Александра-Константинопольская"),
            "aleksandra-konstantinopolskaya"
        );
        assert_eq!(slug("  Dr. Who?! "), "dr-who");
        assert_eq!(slug("Щука 7"), "shchuka-7");
        assert_eq!(slug("★★"), "player");
    }
}
