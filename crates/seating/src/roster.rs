//! Players by index, and the pair policies as a matrix the optimiser can
//! read in O(1).

use crate::error::SeatingError;
use crate::model::{PairPolicy, Player, PolicyKind};
use std::collections::HashMap;

pub(crate) const AVOID: u8 = 1;
pub(crate) const SEPARATE: u8 = 2;

pub(crate) struct Roster<'a> {
    pub players: &'a [Player],
    pub by_id: HashMap<&'a str, usize>,
    /// `pairs[a * n + b]`: AVOID and/or SEPARATE bits.
    pub pairs: Vec<u8>,
    pub separate: Vec<(usize, usize)>,
    pub avoid: Vec<(usize, usize)>,
}

impl<'a> Roster<'a> {
    pub fn new(players: &'a [Player], policies: &[PairPolicy]) -> Result<Roster<'a>, SeatingError> {
        let mut by_id = HashMap::with_capacity(players.len());
        for (i, p) in players.iter().enumerate() {
            if p.id.is_empty() {
                return Err(SeatingError::EmptyPlayerId);
            }
            if by_id.insert(p.id.as_str(), i).is_some() {
                return Err(SeatingError::DuplicatePlayer(p.id.clone()));
            }
        }
        let n = players.len();
        let mut pairs = vec![0u8; n * n];
        for policy in policies {
            let index = |id: &str| {
                by_id
                    .get(id)
                    .copied()
                    .ok_or_else(|| SeatingError::UnknownPlayer {
                        id: id.to_string(),
                        context: match policy.kind {
                            PolicyKind::Separate => "a separate policy",
                            PolicyKind::Avoid => "an avoid policy",
                        }
                        .to_string(),
                    })
            };
            let (a, b) = (index(&policy.a)?, index(&policy.b)?);
            if a == b {
                return Err(SeatingError::PolicyWithSelf(policy.a.clone()));
            }
            let bit = match policy.kind {
                PolicyKind::Separate => SEPARATE,
                PolicyKind::Avoid => AVOID,
            };
            pairs[a * n + b] |= bit;
            pairs[b * n + a] |= bit;
        }
        let mut separate = Vec::new();
        let mut avoid = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let bits = pairs[a * n + b];
                // A pair both separate and avoid is simply separate.
                if bits & SEPARATE != 0 {
                    separate.push((a, b));
                } else if bits & AVOID != 0 {
                    avoid.push((a, b));
                }
            }
        }
        Ok(Roster {
            players,
            by_id,
            pairs,
            separate,
            avoid,
        })
    }

    pub fn n(&self) -> usize {
        self.players.len()
    }

    pub fn id(&self, i: usize) -> &'a str {
        &self.players[i].id
    }

    pub fn is_separate(&self, a: usize, b: usize) -> bool {
        self.pairs[a * self.n() + b] & SEPARATE != 0
    }
}
