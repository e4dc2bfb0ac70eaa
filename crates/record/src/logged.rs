//! The payload of one stored event in the referee's log and on the bus.

use mafia_rules::{Command, Envelope};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::ops::Range;

/// One event as the referee stores and publishes it: the engine's envelope
/// and the judge client's sequence number of the command that produced it
/// (so a re-sent command is recognised and acknowledged again, never
/// applied twice). Serialized as one JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_seq: Option<u64>,
    #[serde(flatten)]
    pub envelope: Envelope,
}

/// A [`LoggedEvent`] as stored, and where its event's own JSON sits in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The stored JSON object (the same bytes `serde_json::to_vec` writes).
    pub json: Vec<u8>,
    /// The byte range of the `event` field's value within `json`.
    pub event: Range<usize>,
}

impl Encoded {
    /// The event's own JSON (as `serde_json::to_string(&envelope.event)`).
    pub fn event_json(&self) -> &str {
        // Both ends are at JSON token boundaries of text serde wrote.
        std::str::from_utf8(&self.json[self.event.clone()]).unwrap_or_default()
    }
}

/// The referee's clock when it accepted the command of a stored event, the
/// stored JSON's optional `accepted_at` (ms since the Unix epoch; logs
/// written before it have none). It lives in the stored bytes only, not in
/// [`LoggedEvent`]: the referee holds every event of its games in memory,
/// and only a reader of the log needs it.
pub fn accepted_at(payload: &[u8]) -> Option<i64> {
    #[derive(Deserialize)]
    struct Stamp {
        accepted_at: Option<i64>,
    }
    serde_json::from_slice::<Stamp>(payload).ok()?.accepted_at
}

/// A digest of a judge's command as sent (its `at` as given, 0 included,
/// and the command): the stored JSON's optional `sent` (16 hex digits) on
/// each event the command produced, so that a resend under the same
/// client_seq is told from a different command (a conflict). The first 8
/// bytes of SHA-256 over `at` (8 bytes big-endian) and the command's JSON.
pub fn command_digest(at: i64, cmd: &Command) -> u64 {
    let mut h = Sha256::new();
    h.update(at.to_be_bytes());
    h.update(serde_json::to_vec(cmd).expect("commands serialize"));
    let d = h.finalize();
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// The stored JSON's `sent` digest ([`command_digest`]); logs written
/// before it have none.
pub fn sent_digest(payload: &[u8]) -> Option<u64> {
    #[derive(Deserialize)]
    struct Sent {
        sent: Option<String>,
    }
    let sent = serde_json::from_slice::<Sent>(payload).ok()?.sent?;
    u64::from_str_radix(&sent, 16).ok()
}

/// When a stored event can be known to have happened: the later of the
/// judge's `at` and the referee's `accepted_at`, whichever clock is behind
/// (a broadcast delay counted from the judge's alone would release hidden
/// facts early when his laptop runs behind).
pub fn happened_at(payload: &[u8], at: i64) -> i64 {
    accepted_at(payload).map_or(at, |a| a.max(at))
}

impl LoggedEvent {
    /// Encodes the stored form once, so the referee can store it and reply
    /// with the event's JSON without serializing the event twice. The
    /// envelope's numbers are written by hand: serde's `flatten` would
    /// buffer them through a map.
    pub fn encode(&self) -> Encoded {
        self.encode_accepted(None)
    }

    /// [`encode`](Self::encode), stamped with the referee's `accepted_at`
    /// (see [`accepted_at`]).
    pub fn encode_accepted(&self, accepted_at: Option<i64>) -> Encoded {
        self.encode_stamped(accepted_at, None)
    }

    /// [`encode_accepted`](Self::encode_accepted), with the digest of the
    /// command that produced it (see [`command_digest`]).
    pub fn encode_stamped(&self, accepted_at: Option<i64>, sent: Option<u64>) -> Encoded {
        // Integers through serde_json (its itoa), not `write!`'s formatter.
        fn int<T: Serialize>(json: &mut Vec<u8>, key: &[u8], n: T) {
            json.extend_from_slice(key);
            serde_json::to_writer(&mut *json, &n).expect("integers serialize");
        }
        let mut json = Vec::with_capacity(160);
        json.push(b'{');
        let e = &self.envelope;
        if let Some(k) = self.client_seq {
            int(&mut json, b"\"client_seq\":", k);
            int(&mut json, b",\"seq\":", e.seq);
        } else {
            int(&mut json, b"\"seq\":", e.seq);
        }
        int(&mut json, b",\"cmd\":", e.cmd);
        int(&mut json, b",\"at\":", e.at);
        json.extend_from_slice(b",\"event\":");
        let start = json.len();
        serde_json::to_writer(&mut json, &e.event).expect("events serialize");
        let end = json.len();
        if let Some(a) = accepted_at {
            int(&mut json, b",\"accepted_at\":", a);
        }
        if let Some(d) = sent {
            json.extend_from_slice(format!(",\"sent\":\"{d:016x}\"").as_bytes());
        }
        json.push(b'}');
        Encoded {
            json,
            event: start..end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mafia_rules::sim::{random_command, Temper};
    use mafia_rules::{Deal, Game, RuleSet, RuleSetId, Setup};
    use rand::SeedableRng;

    #[test]
    fn a_stamped_event_reads_back_the_same_with_its_referee_clock() {
        for e in simulated(RuleSetId::Ua, 3) {
            let enc = e.encode_accepted(Some(1_767_225_600_123));
            let back: LoggedEvent = serde_json::from_slice(&enc.json).unwrap();
            assert_eq!(back, e);
            assert_eq!(
                enc.event_json(),
                serde_json::to_string(&e.envelope.event).unwrap()
            );
            assert_eq!(accepted_at(&enc.json), Some(1_767_225_600_123));
            assert_eq!(accepted_at(&e.encode().json), None, "an older log");
        }
    }

    #[test]
    fn a_stored_event_keeps_the_digest_of_the_command_as_sent() {
        let e = simulated(RuleSetId::Rfm, 2)[3];
        let nominate = Command::Nominate {
            by: mafia_rules::Seat::new(3).unwrap(),
            target: mafia_rules::Seat::new(7).unwrap(),
        };
        let d = command_digest(1_000, &nominate);
        assert_ne!(d, command_digest(1_001, &nominate), "another time");
        assert_ne!(
            d,
            command_digest(1_000, &Command::NextStep),
            "another command"
        );
        let enc = e.encode_stamped(Some(5), Some(d));
        assert_eq!(sent_digest(&enc.json), Some(d));
        assert_eq!(accepted_at(&enc.json), Some(5));
        assert_eq!(serde_json::from_slice::<LoggedEvent>(&enc.json).unwrap(), e);
        assert_eq!(sent_digest(&e.encode().json), None, "an older log");
    }

    #[test]
    fn an_event_happened_no_earlier_than_either_clock_says() {
        let e = simulated(RuleSetId::Classic, 1)[0];
        let stored = |referee: Option<i64>| e.encode_accepted(referee).json;
        assert_eq!(happened_at(&stored(None), 5_000), 5_000, "an older log");
        assert_eq!(
            happened_at(&stored(Some(9_000)), 5_000),
            9_000,
            "judge behind"
        );
        assert_eq!(
            happened_at(&stored(Some(5_000)), 9_000),
            9_000,
            "referee behind"
        );
    }

    #[test]
    fn the_encoded_form_is_what_serde_writes_under_every_rule_set() {
        let mut kinds = std::collections::BTreeSet::new();
        for rules in RuleSetId::ALL {
            for seed in 0..20 {
                for e in simulated(rules, seed) {
                    let enc = e.encode();
                    assert_eq!(enc.json, serde_json::to_vec(&e).unwrap());
                    assert_eq!(
                        enc.event_json(),
                        serde_json::to_string(&e.envelope.event).unwrap()
                    );
                    let back: LoggedEvent = serde_json::from_slice(&enc.json).unwrap();
                    assert_eq!(back, e);
                    let v: serde_json::Value = serde_json::from_str(enc.event_json()).unwrap();
                    kinds.insert(v["type"].as_str().unwrap().to_owned());
                }
            }
        }
        // Enough kinds of event that the comparison means something.
        assert!(kinds.len() >= 25, "{kinds:?}");
    }

    /// Every event of one random game, as the referee logs them.
    fn simulated(rules: RuleSetId, seed: u64) -> Vec<LoggedEvent> {
        let setup = Setup::new(
            RuleSet::preset(rules),
            mafia_rules::sim::default_players(),
            Deal::Seed(seed),
        )
        .unwrap();
        let (mut game, opening) = Game::new(setup, 1);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let temper = Temper::draw(&mut rng);
        let mut all: Vec<LoggedEvent> = opening
            .into_iter()
            .map(|envelope| LoggedEvent {
                client_seq: None,
                envelope,
            })
            .collect();
        let mut k = 0;
        while let Some(cmd) = random_command(&game, &temper, &mut rng) {
            k += 1;
            for envelope in game.apply(&cmd, 1 + k as i64 * 1000).unwrap() {
                all.push(LoggedEvent {
                    client_seq: Some(k),
                    envelope,
                });
            }
        }
        all
    }
}
