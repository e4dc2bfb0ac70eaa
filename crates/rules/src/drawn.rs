//! A deal drawn by the referee: the secret it deals from (a seed and a
//! salt), and the commitment to it published when the game opens. The
//! commitment is SHA-256 over the salt's 8 bytes and then the seed's 8
//! bytes, big-endian (FORMAT.md, "Checking a deal"); the salt keeps the
//! seed, and so the cards, from being found by trying seeds against it
//! (2^128 tries). Both are byte arrays, so the event that reveals them
//! (`Event::DealRevealed`) is no larger than the engine's largest event.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;

/// A drawn deal's salt: 8 random bytes, written as 16 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Salt(pub [u8; 8]);

/// SHA-256(salt ‖ seed as 8 bytes big-endian), written as 64 lowercase hex
/// digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment(pub [u8; 32]);

/// What a drawn deal deals from. Only the referee holds it until the game
/// ends; then it is revealed (`Event::DealRevealed`). Written as
/// `{"seed": <u64>, "salt": "<16 hex digits>"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sealed {
    /// The seed, big-endian: bytes, not a `u64`, so that the event holding
    /// it needs no 8-byte alignment.
    seed: [u8; 8],
    pub salt: Salt,
}

impl Sealed {
    pub fn new(seed: u64, salt: Salt) -> Sealed {
        Sealed {
            seed: seed.to_be_bytes(),
            salt,
        }
    }

    /// The secret made of 16 random bytes (the seed from the first 8,
    /// big-endian; the salt from the rest). The caller draws them: this
    /// crate uses no source of randomness of its own.
    pub fn from_random(bytes: [u8; 16]) -> Sealed {
        let (seed, salt) = bytes.split_at(8);
        Sealed {
            seed: seed.try_into().expect("8 bytes"),
            salt: Salt(salt.try_into().expect("8 bytes")),
        }
    }

    pub fn seed(&self) -> u64 {
        u64::from_be_bytes(self.seed)
    }

    pub fn commitment(&self) -> Commitment {
        Commitment::of(self.seed(), &self.salt)
    }
}

/// `Sealed` as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SealedForm {
    seed: u64,
    salt: Salt,
}

impl Serialize for Sealed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SealedForm {
            seed: self.seed(),
            salt: self.salt,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Sealed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = SealedForm::deserialize(d)?;
        Ok(Sealed::new(f.seed, f.salt))
    }
}

impl Commitment {
    pub fn of(seed: u64, salt: &Salt) -> Commitment {
        let mut h = Sha256::new();
        h.update(salt.0);
        h.update(seed.to_be_bytes());
        Commitment(h.finalize().into())
    }
}

fn write_hex<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(bytes))
}

fn read_hex<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<[u8; N], D::Error> {
    let text = String::deserialize(d)?;
    let mut out = [0u8; N];
    if text.len() != 2 * N || text.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(serde::de::Error::custom(format!(
            "expected {} lowercase hex digits",
            2 * N
        )));
    }
    hex::decode_to_slice(&text, &mut out).map_err(serde::de::Error::custom)?;
    Ok(out)
}

impl Serialize for Salt {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_hex(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Salt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_hex(d).map(Salt)
    }
}

impl Serialize for Commitment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_hex(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Commitment {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_hex(d).map(Commitment)
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

impl fmt::Display for Salt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Salt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Salt({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commitment_is_sha256_of_the_salt_then_the_big_endian_seed() {
        let sealed = Sealed::from_random(std::array::from_fn(|i| i as u8));
        assert_eq!(sealed.seed(), 0x0001_0203_0405_0607);
        let mut bytes = sealed.salt.0.to_vec();
        bytes.extend_from_slice(&sealed.seed().to_be_bytes());
        assert_eq!(
            sealed.commitment().0,
            <[u8; 32]>::from(Sha256::digest(&bytes))
        );
        // Pinned (FORMAT.md's example): a checker in any language must agree.
        assert_eq!(
            sealed.commitment().to_string(),
            "64610d406dfa90d7f11727cca7b712cdeaff5e0fd5f74a97583297f865671a6c"
        );
        let rfm = crate::RuleSet::preset(crate::RuleSetId::Rfm).params.cards;
        let cards = crate::setup::deal_from_seed(&rfm, sealed.seed());
        assert_eq!(
            cards
                .iter()
                .map(|r| r.protocol_letter())
                .collect::<String>(),
            "ЧЧКККККДШК"
        );
        let json = serde_json::to_string(&sealed).unwrap();
        assert_eq!(
            json,
            r#"{"seed":283686952306183,"salt":"08090a0b0c0d0e0f"}"#
        );
        assert_eq!(serde_json::from_str::<Sealed>(&json).unwrap(), sealed);
    }

    #[test]
    fn hex_that_is_short_uppercase_or_not_hex_is_refused() {
        for bad in ["\"abc\"", "\"08090A0B0C0D0E0F\"", "\"zz090a0b0c0d0e0f\""] {
            assert!(serde_json::from_str::<Salt>(bad).is_err(), "{bad}");
        }
    }
}
