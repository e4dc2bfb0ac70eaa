//! A validated game setup: the rule set, the ten players and the deal.

use crate::drawn::{Commitment, Salt, Sealed};
use crate::params::{Cards, RuleSet};
use crate::role::Role;
use crate::seat::SEATS;
use serde::{Deserialize, Serialize};

/// A player in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub player_id: String,
    pub nickname: String,
}

/// How the cards were dealt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Deal {
    /// Drawn from the physical tray and entered by the judge, seat 1 first.
    Cards(Vec<Role>),
    /// Drawn by the engine from this seed (digital dealing); see [`deal_from_seed`].
    Seed(u64),
    /// Dealt by the engine from a seed the referee drew from the operating
    /// system's random source: public from the game's opening is only the
    /// commitment to it; the seed and its salt are revealed when the game
    /// ends (FORMAT.md, "Checking a deal").
    Drawn(Drawn),
}

/// A drawn deal as a header gives it: sealed (the commitment alone, while
/// the game runs), revealed (with its seed and salt, once it has ended), or
/// asked for (nothing: an `OpenGame` asking the referee to draw).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drawn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<Commitment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<Salt>,
}

impl Drawn {
    /// The deal a game opened with `sealed` publishes.
    pub fn sealed(sealed: &Sealed) -> Drawn {
        Drawn {
            commitment: Some(sealed.commitment()),
            seed: None,
            salt: None,
        }
    }

    /// The same deal with its secret revealed.
    pub fn revealed(sealed: &Sealed) -> Drawn {
        Drawn {
            commitment: Some(sealed.commitment()),
            seed: Some(sealed.seed()),
            salt: Some(sealed.salt),
        }
    }

    /// The secret, once revealed.
    pub fn secret(&self) -> Option<Sealed> {
        Some(Sealed::new(self.seed?, self.salt?))
    }
}

impl Deal {
    /// Whether the cards cannot be known from the deal itself: a drawn deal
    /// not yet revealed. Its game's cards come with its `dealt` event.
    pub fn is_sealed(&self) -> bool {
        matches!(self, Deal::Drawn(d) if d.secret().is_none())
    }
}

/// The roles of the ten seats, seat 1 first.
pub type Roles = [Role; SEATS];

/// A setup that has passed validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub rules: RuleSet,
    pub players: Vec<Player>,
    pub deal: Deal,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("a table has exactly 10 players, got {0}")]
    PlayerCount(usize),
    #[error("player {0} sits at two seats")]
    DuplicatePlayer(String),
    #[error("the deal has {0} cards, a table needs 10")]
    CardCount(usize),
    #[error("the deal does not match the tray: expected {expected}, got {got}")]
    CardsMismatch { expected: String, got: String },
    #[error("the rule set's tray is not playable: {0}")]
    BadTray(String),
    #[error("a drawn deal has a commitment, and its seed and salt come together")]
    DrawnIncomplete,
    #[error("the seed and salt do not match the deal's commitment")]
    CommitmentMismatch,
    #[error("the deal was not drawn by the referee")]
    NotDrawn,
}

impl Setup {
    /// Checks the players and the deal against the rule set's tray.
    pub fn new(rules: RuleSet, players: Vec<Player>, deal: Deal) -> Result<Setup, SetupError> {
        check_tray(&rules.params.cards)?;
        if players.len() != SEATS {
            return Err(SetupError::PlayerCount(players.len()));
        }
        for (i, p) in players.iter().enumerate() {
            if players[..i].iter().any(|q| q.player_id == p.player_id) {
                return Err(SetupError::DuplicatePlayer(p.player_id.clone()));
            }
        }
        if let Deal::Drawn(d) = &deal {
            check_drawn(d)?;
        }
        if let Deal::Cards(cards) = &deal {
            if cards.len() != SEATS {
                return Err(SetupError::CardCount(cards.len()));
            }
            let got = count(cards);
            if got != rules.params.cards {
                return Err(SetupError::CardsMismatch {
                    expected: describe(&rules.params.cards),
                    got: describe(&got),
                });
            }
        }
        Ok(Setup {
            rules,
            players,
            deal,
        })
    }

    /// The roles, seat 1 first. A sealed deal ([`Deal::is_sealed`]) has
    /// none to give: the tray in its fixed order stands in for them until
    /// its game's `dealt` event, and a game is dealt with
    /// [`Setup::roles_drawn_with`]'s roles instead.
    pub fn roles(&self) -> Roles {
        match &self.deal {
            Deal::Cards(c) => {
                let mut r = [Role::Civilian; SEATS];
                r.copy_from_slice(c);
                r
            }
            Deal::Seed(seed) => deal_from_seed(&self.rules.params.cards, *seed),
            Deal::Drawn(d) => match d.secret() {
                Some(s) => deal_from_seed(&self.rules.params.cards, s.seed()),
                None => tray(&self.rules.params.cards),
            },
        }
    }

    /// The roles a drawn deal deals from `sealed`, once it is checked
    /// against the deal's commitment.
    pub fn roles_drawn_with(&self, sealed: &Sealed) -> Result<Roles, SetupError> {
        let Deal::Drawn(d) = &self.deal else {
            return Err(SetupError::NotDrawn);
        };
        if d.commitment != Some(sealed.commitment()) {
            return Err(SetupError::CommitmentMismatch);
        }
        Ok(deal_from_seed(&self.rules.params.cards, sealed.seed()))
    }
}

/// A stored or revealed drawn deal has its commitment; a revealed one's
/// seed and salt match it. One with nothing is an `OpenGame` asking the
/// referee to draw.
fn check_drawn(d: &Drawn) -> Result<(), SetupError> {
    match (d.commitment, d.seed, d.salt) {
        (_, None, None) => Ok(()),
        (Some(c), Some(seed), Some(salt)) if c == Commitment::of(seed, &salt) => Ok(()),
        (Some(_), Some(_), Some(_)) => Err(SetupError::CommitmentMismatch),
        _ => Err(SetupError::DrawnIncomplete),
    }
}

fn check_tray(c: &Cards) -> Result<(), SetupError> {
    let total = c.civilians as usize
        + c.sheriffs as usize
        + c.beauties as usize
        + c.mafiosi as usize
        + c.dons as usize;
    if total != SEATS {
        return Err(SetupError::BadTray(format!("{total} cards, not 10")));
    }
    if c.dons != 1 || c.sheriffs != 1 {
        return Err(SetupError::BadTray(
            "exactly one Don and one Sheriff".into(),
        ));
    }
    if c.beauties > 1 {
        return Err(SetupError::BadTray("at most one Beauty".into()));
    }
    let black = c.mafiosi + c.dons;
    if black * 2 >= SEATS as u8 {
        return Err(SetupError::BadTray("black must start outnumbered".into()));
    }
    Ok(())
}

fn count(cards: &[Role]) -> Cards {
    let n = |r: Role| cards.iter().filter(|&&c| c == r).count() as u8;
    Cards {
        civilians: n(Role::Civilian),
        sheriffs: n(Role::Sheriff),
        beauties: n(Role::Beauty),
        mafiosi: n(Role::Mafia),
        dons: n(Role::Don),
    }
}

fn describe(c: &Cards) -> String {
    format!(
        "{} civilians, {} Sheriff, {} Beauty, {} mafiosi, {} Don",
        c.civilians, c.sheriffs, c.beauties, c.mafiosi, c.dons
    )
}

/// Digital dealing: the tray in a fixed order (civilians, Sheriff, Beauty,
/// mafiosi, Don), shuffled by Fisher–Yates driven by SplitMix64 from `seed`.
/// Both are fixed here rather than taken from a crate, so a seed in a record
/// deals the same cards forever (FORMAT.md).
pub fn deal_from_seed(cards: &Cards, seed: u64) -> Roles {
    let mut tray = tray(cards);
    let mut state = seed;
    for i in (1..SEATS).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        tray.swap(i, j);
    }
    tray
}

/// The tray in its fixed order: civilians, Sheriff, Beauty, mafiosi, Don.
fn tray(cards: &Cards) -> Roles {
    let mut tray = [Role::Civilian; SEATS];
    let mut i = 0;
    for (role, n) in [
        (Role::Civilian, cards.civilians),
        (Role::Sheriff, cards.sheriffs),
        (Role::Beauty, cards.beauties),
        (Role::Mafia, cards.mafiosi),
        (Role::Don, cards.dons),
    ] {
        for _ in 0..n {
            tray[i] = role;
            i += 1;
        }
    }
    tray
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{RuleSet, RuleSetId};

    fn players() -> Vec<Player> {
        (1..=10)
            .map(|i| Player {
                player_id: format!("p{i}"),
                nickname: format!("Player {i}"),
            })
            .collect()
    }

    #[test]
    fn seeded_deal_is_stable_and_matches_the_tray() {
        let cards = RuleSet::preset(RuleSetId::Rfm).params.cards;
        let a = deal_from_seed(&cards, 42);
        assert_eq!(a, deal_from_seed(&cards, 42));
        assert_eq!(count(&a), cards);
        // Pinned: records carry seeds, so this must never change.
        assert_eq!(
            a.iter().map(|r| r.protocol_letter()).collect::<String>(),
            "КДКЧШКЧККК"
        );
    }

    #[test]
    fn a_drawn_deal_deals_only_from_the_secret_its_commitment_names() {
        let rules = RuleSet::preset(RuleSetId::Rfm);
        let sealed = Sealed::from_random([7; 16]);
        let setup = Setup::new(
            rules.clone(),
            players(),
            Deal::Drawn(Drawn::sealed(&sealed)),
        )
        .unwrap();
        assert!(setup.deal.is_sealed());
        // Before its deal not even the judge is shown cards: the tray's
        // order stands in for them.
        let before = crate::Game::replay(setup.clone(), std::iter::empty()).unwrap();
        let view = before.view(crate::Audience::Judge);
        assert!(view.seats.iter().all(|s| s.role.is_none()));
        assert_eq!(
            setup.roles_drawn_with(&sealed).unwrap(),
            deal_from_seed(&rules.params.cards, sealed.seed())
        );
        let other = Sealed::new(sealed.seed() ^ 1, sealed.salt);
        assert_eq!(
            setup.roles_drawn_with(&other),
            Err(SetupError::CommitmentMismatch)
        );
        // Revealed: the header checks the secret against the commitment.
        let revealed = Setup::new(
            rules.clone(),
            players(),
            Deal::Drawn(Drawn::revealed(&sealed)),
        );
        assert_eq!(
            revealed.unwrap().roles(),
            setup.roles_drawn_with(&sealed).unwrap()
        );
        let mut tampered = Drawn::revealed(&sealed);
        tampered.seed = Some(sealed.seed() + 1);
        assert_eq!(
            Setup::new(rules.clone(), players(), Deal::Drawn(tampered)).unwrap_err(),
            SetupError::CommitmentMismatch
        );
        let half = Drawn {
            salt: None,
            ..Drawn::revealed(&sealed)
        };
        assert_eq!(
            Setup::new(rules, players(), Deal::Drawn(half)).unwrap_err(),
            SetupError::DrawnIncomplete
        );
    }

    #[test]
    fn two_don_cards_are_rejected() {
        let mut cards = vec![Role::Civilian; 6];
        cards.extend([Role::Sheriff, Role::Mafia, Role::Don, Role::Don]);
        let err = Setup::new(
            RuleSet::preset(RuleSetId::Classic),
            players(),
            Deal::Cards(cards),
        )
        .unwrap_err();
        assert!(matches!(err, SetupError::CardsMismatch { .. }), "{err}");
    }

    #[test]
    fn a_table_needs_ten_distinct_players() {
        let rules = RuleSet::preset(RuleSetId::Ua);
        let mut p = players();
        p.pop();
        assert_eq!(
            Setup::new(rules.clone(), p, Deal::Seed(1)).unwrap_err(),
            SetupError::PlayerCount(9)
        );
        let mut p = players();
        p[3].player_id = "p1".into();
        assert!(matches!(
            Setup::new(rules, p, Deal::Seed(1)).unwrap_err(),
            SetupError::DuplicatePlayer(_)
        ));
    }
}
