//! The judge console's typed shorthand: one short line per action, seat
//! numbers as digits, the prompt filling in whoever is obviously meant (the
//! speaker, the nominee on the vote, the players yet to shoot). Pure: the
//! terminal console and its tests share it, and a line that does not parse
//! changes nothing.

use mafia_rules::{Command, Expect, PenaltyKind, Seat, SeatList, SeatSet};

/// The legend shown on screen; one entry per shorthand.
pub const LEGEND: &[(&str, &str)] = &[
    (
        "Enter | .",
        "next: end the speech / last words / night-0 step / free talk",
    ),
    ("s", "start the speaker's timer"),
    ("n T | n B T", "nominate T (by the speaker, or by B)"),
    ("w [B]", "withdraw B's nomination"),
    ("v H H…", "hands against the nominee on the vote (none: v)"),
    ("vc S S…", "who wants a vote today"),
    ("b T | b V T | b -", "the voter's ballot (roll call)"),
    ("l H H…", "hands to lift all nominees"),
    ("ms", "\"mafia, shoot\": the shooting count begins"),
    (
        "k T | k B T | k -",
        "shoot T (every black player yet to shoot, or B); - misses",
    ),
    (
        "d T | c T | bp T",
        "Don's check, Sheriff's check, Beauty's pick (- for none)",
    ),
    ("bm A B C", "best move: the first victim names A, B, C"),
    ("f S | tf S | y S", "foul, technical foul, yellow card"),
    ("p S small|big", "penalty"),
    ("dq S | otv S", "disqualify; opposite-team victory"),
    ("u | undo", "undo the last command of this phase"),
    ("{…}", "any command as FORMAT.md JSON"),
];

/// Why a line is not a command; nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("unknown shorthand {0:?}; see the legend")]
    Unknown(String),
    #[error("not a seat: {0:?} (1–10)")]
    Seat(String),
    #[error("{0}")]
    Usage(&'static str),
    #[error("not a command: {0}")]
    Json(String),
}

/// The commands one line stands for, given what the referee expects now.
/// Most lines are one command; `k T` with two black players yet to shoot
/// is one shot each.
pub fn parse_line(line: &str, expect: Option<&Expect>) -> Result<Vec<Command>, KeyError> {
    let line = line.trim();
    if line.starts_with('{') {
        return serde_json::from_str(line)
            .map(|c| vec![c])
            .map_err(|e| KeyError::Json(e.to_string()));
    }
    let mut words = line.split_whitespace();
    let Some(head) = words.next() else {
        return next(expect).map(|c| vec![c]);
    };
    let rest: Vec<&str> = words.collect();
    let one = |c: Command| Ok(vec![c]);
    match head.to_ascii_lowercase().as_str() {
        "." => next(expect).map(|c| vec![c]),
        "u" | "undo" => one(Command::Undo),
        "ms" => one(Command::StartShooting),
        "s" => one(Command::StartSpeech {
            seat: speaker(expect).ok_or(KeyError::Usage("nobody is speaking"))?,
        }),
        "n" => match rest.as_slice() {
            [t] => one(Command::Nominate {
                by: speaker(expect).ok_or(KeyError::Usage("n B T: nobody is speaking"))?,
                target: seat(t)?,
            }),
            [b, t] => one(Command::Nominate {
                by: seat(b)?,
                target: seat(t)?,
            }),
            _ => Err(KeyError::Usage("n T, or n B T")),
        },
        "w" => match rest.as_slice() {
            [] => one(Command::Withdraw {
                by: speaker(expect).ok_or(KeyError::Usage("w B: nobody is speaking"))?,
            }),
            [b] => one(Command::Withdraw { by: seat(b)? }),
            _ => Err(KeyError::Usage("w, or w B")),
        },
        "v" => match expect {
            Some(Expect::Vote { nominee, .. }) => one(Command::Vote {
                nominee: *nominee,
                hands: seat_set(&rest)?,
            }),
            _ => Err(KeyError::Usage("no vote is under way")),
        },
        "vc" => one(Command::VoteCall {
            yes: seat_set(&rest)?,
        }),
        "b" => match (expect, rest.as_slice()) {
            (Some(Expect::Ballot { voter, .. }), [t]) => one(Command::Ballot {
                voter: *voter,
                target: maybe_seat(t)?,
            }),
            (_, [v, t]) => one(Command::Ballot {
                voter: seat(v)?,
                target: maybe_seat(t)?,
            }),
            _ => Err(KeyError::Usage("b T (the voter on the prompt), or b V T")),
        },
        "l" => one(Command::Lift {
            hands: seat_set(&rest)?,
        }),
        "k" => match rest.as_slice() {
            [t] => {
                let target = maybe_seat(t)?;
                let Some(Expect::Shots { pending, .. }) = expect else {
                    return Err(KeyError::Usage("k B T: nobody is to shoot now"));
                };
                Ok(pending
                    .iter()
                    .map(|by| Command::Shot { by, target })
                    .collect())
            }
            [b, t] => one(Command::Shot {
                by: seat(b)?,
                target: maybe_seat(t)?,
            }),
            _ => Err(KeyError::Usage("k T, k B T, or k -")),
        },
        "d" => one(Command::DonCheck {
            target: only_maybe_seat(&rest, "d T, or d -")?,
        }),
        "c" => one(Command::SheriffCheck {
            target: only_maybe_seat(&rest, "c T, or c -")?,
        }),
        "bp" => one(Command::BeautyPick {
            target: only_maybe_seat(&rest, "bp T, or bp -")?,
        }),
        "bm" => {
            let seat_of_move = match expect {
                // Its own step, or (minsk2017 §8.3) said in the first
                // victim's last words.
                Some(
                    Expect::BestMove { seat }
                    | Expect::LastWords {
                        seat,
                        testament: false,
                    },
                ) => *seat,
                _ => return Err(KeyError::Usage("no best move is due")),
            };
            let named: SeatList = rest.iter().map(|w| seat(w)).collect::<Result<_, _>>()?;
            one(Command::BestMove {
                seat: seat_of_move,
                named,
            })
        }
        "f" => one(Command::Foul {
            seat: only_seat(&rest, "f S")?,
        }),
        "tf" => one(Command::TechnicalFoul {
            seat: only_seat(&rest, "tf S")?,
        }),
        "y" => one(Command::YellowCard {
            seat: only_seat(&rest, "y S")?,
        }),
        "dq" => one(Command::Disqualify {
            seat: only_seat(&rest, "dq S")?,
        }),
        "otv" => one(Command::OppositeTeamVictory {
            seat: only_seat(&rest, "otv S")?,
        }),
        "p" => match rest.as_slice() {
            [s, k] => one(Command::Penalty {
                seat: seat(s)?,
                kind: match k.to_ascii_lowercase().as_str() {
                    "small" | "s" => PenaltyKind::Small,
                    "big" | "b" => PenaltyKind::Big,
                    _ => return Err(KeyError::Usage("p S small, or p S big")),
                },
            }),
            _ => Err(KeyError::Usage("p S small, or p S big")),
        },
        other => Err(KeyError::Unknown(other.to_owned())),
    }
}

/// The shortest line that stands for `cmd` when the referee expects
/// `expect`: what a judge would type, and what the console's tests type.
/// Falls back to the command's JSON, which every prompt accepts.
pub fn shorthand(cmd: &Command, expect: Option<&Expect>) -> String {
    let seats = |it: &mut dyn Iterator<Item = Seat>| seat_numbers(it, " ");
    let target = |t: &Option<Seat>| t.map_or_else(|| "-".to_owned(), |s| s.number().to_string());
    let line = match cmd {
        Command::EndSpeech {
            seat,
            timeout: false,
        } if speaker(expect) == Some(*seat) => Some(String::new()),
        Command::EndLastWords { seat } if speaker(expect) == Some(*seat) => Some(String::new()),
        Command::NextStep if matches!(expect, Some(Expect::Night0 { .. } | Expect::FreeTalk)) => {
            Some(String::new())
        }
        Command::StartSpeech { seat } if speaker(expect) == Some(*seat) => Some("s".into()),
        Command::Nominate { by, target } => Some(format!("n {} {}", by.number(), target.number())),
        Command::Withdraw { by } => Some(format!("w {}", by.number())),
        Command::Vote { nominee, hands } if matches!(expect, Some(Expect::Vote { nominee: n, .. }) if n == nominee) => {
            Some(
                format!("v {}", seats(&mut hands.iter()))
                    .trim_end()
                    .to_owned(),
            )
        }
        Command::VoteCall { yes } => Some(
            format!("vc {}", seats(&mut yes.iter()))
                .trim_end()
                .to_owned(),
        ),
        Command::Ballot { voter, target: t } => Some(format!("b {} {}", voter.number(), target(t))),
        Command::Lift { hands } => Some(
            format!("l {}", seats(&mut hands.iter()))
                .trim_end()
                .to_owned(),
        ),
        Command::StartShooting => Some("ms".into()),
        Command::Shot { by, target: t } => Some(format!("k {} {}", by.number(), target(t))),
        Command::DonCheck { target: t } => Some(format!("d {}", target(t))),
        Command::SheriffCheck { target: t } => Some(format!("c {}", target(t))),
        Command::BeautyPick { target: t } => Some(format!("bp {}", target(t))),
        Command::BestMove { seat, named } if matches!(expect, Some(Expect::BestMove { seat: s } | Expect::LastWords { seat: s, testament: false }) if s == seat) => {
            Some(
                format!("bm {}", seats(&mut named.iter()))
                    .trim_end()
                    .to_owned(),
            )
        }
        Command::Foul { seat } => Some(format!("f {}", seat.number())),
        Command::TechnicalFoul { seat } => Some(format!("tf {}", seat.number())),
        Command::YellowCard { seat } => Some(format!("y {}", seat.number())),
        Command::Disqualify { seat } => Some(format!("dq {}", seat.number())),
        Command::OppositeTeamVictory { seat } => Some(format!("otv {}", seat.number())),
        Command::Penalty { seat, kind } => Some(format!(
            "p {} {}",
            seat.number(),
            match kind {
                PenaltyKind::Small => "small",
                PenaltyKind::Big => "big",
            }
        )),
        Command::Undo => Some("u".into()),
        _ => None,
    };
    line.unwrap_or_else(|| serde_json::to_string(cmd).expect("commands serialize"))
}

/// Seat numbers as the judge reads and types them: "3 7 10".
pub fn seat_numbers(seats: impl Iterator<Item = Seat>, sep: &str) -> String {
    seats
        .map(|s| s.number().to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// What a bare Enter means for the prompt.
fn next(expect: Option<&Expect>) -> Result<Command, KeyError> {
    match expect {
        Some(Expect::Speech { seat, .. }) => Ok(Command::EndSpeech {
            seat: *seat,
            timeout: false,
        }),
        Some(Expect::LastWords { seat, .. }) => Ok(Command::EndLastWords { seat: *seat }),
        Some(Expect::Night0 { .. } | Expect::FreeTalk) => Ok(Command::NextStep),
        _ => Err(KeyError::Usage(
            "Enter moves on only in speeches, last words, night 0 and free talk",
        )),
    }
}

fn speaker(expect: Option<&Expect>) -> Option<Seat> {
    match expect {
        Some(Expect::Speech { seat, .. } | Expect::LastWords { seat, .. }) => Some(*seat),
        _ => None,
    }
}

fn seat(word: &str) -> Result<Seat, KeyError> {
    word.parse::<u8>()
        .ok()
        .and_then(Seat::new)
        .ok_or_else(|| KeyError::Seat(word.to_owned()))
}

fn maybe_seat(word: &str) -> Result<Option<Seat>, KeyError> {
    if word == "-" || word == "0" {
        Ok(None)
    } else {
        seat(word).map(Some)
    }
}

fn only_seat(words: &[&str], usage: &'static str) -> Result<Seat, KeyError> {
    match words {
        [w] => seat(w),
        _ => Err(KeyError::Usage(usage)),
    }
}

fn only_maybe_seat(words: &[&str], usage: &'static str) -> Result<Option<Seat>, KeyError> {
    match words {
        [w] => maybe_seat(w),
        _ => Err(KeyError::Usage(usage)),
    }
}

fn seat_set(words: &[&str]) -> Result<SeatSet, KeyError> {
    words.iter().map(|w| seat(w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u8) -> Seat {
        Seat::new(n).unwrap()
    }

    fn speech(n: u8) -> Expect {
        Expect::Speech {
            seat: s(n),
            tie: false,
            nominations_only: false,
            started: true,
            may_nominate: true,
            may_withdraw: false,
        }
    }

    #[test]
    fn enter_ends_the_speakers_speech_and_n_nominates_on_his_behalf() {
        let e = speech(3);
        assert_eq!(
            parse_line("", Some(&e)).unwrap(),
            vec![Command::EndSpeech {
                seat: s(3),
                timeout: false
            }]
        );
        assert_eq!(
            parse_line("n 7", Some(&e)).unwrap(),
            vec![Command::Nominate {
                by: s(3),
                target: s(7)
            }]
        );
        assert_eq!(
            parse_line("n 2 10", None).unwrap(),
            vec![Command::Nominate {
                by: s(2),
                target: s(10)
            }]
        );
    }

    #[test]
    fn one_shot_line_is_a_shot_for_every_black_player_yet_to_shoot() {
        let e = Expect::Shots {
            pending: [s(2), s(9)].into_iter().collect(),
            started: true,
        };
        let got = parse_line("k 5", Some(&e)).unwrap();
        assert_eq!(
            got,
            vec![
                Command::Shot {
                    by: s(2),
                    target: Some(s(5))
                },
                Command::Shot {
                    by: s(9),
                    target: Some(s(5))
                }
            ]
        );
        assert_eq!(
            parse_line("k 9 -", Some(&e)).unwrap(),
            vec![Command::Shot {
                by: s(9),
                target: None
            }]
        );
    }

    #[test]
    fn the_vote_line_counts_hands_against_the_nominee_on_the_prompt() {
        let e = Expect::Vote {
            nominee: s(4),
            round: 1,
            not_yet_voted: SeatSet::default(),
        };
        assert_eq!(
            parse_line("v 1 2 3", Some(&e)).unwrap(),
            vec![Command::Vote {
                nominee: s(4),
                hands: [s(1), s(2), s(3)].into_iter().collect()
            }]
        );
        assert!(matches!(parse_line("v 1", None), Err(KeyError::Usage(_))));
    }

    #[test]
    fn bm_in_the_first_victims_last_words_is_his_best_move() {
        let words = Expect::LastWords {
            seat: s(6),
            testament: false,
        };
        let bm = Command::BestMove {
            seat: s(6),
            named: [s(1), s(2), s(9)].into_iter().collect(),
        };
        assert_eq!(
            parse_line("bm 1 2 9", Some(&words)).unwrap(),
            vec![bm.clone()]
        );
        assert_eq!(shorthand(&bm, Some(&words)), "bm 1 2 9");
        let testament = Expect::LastWords {
            seat: s(6),
            testament: true,
        };
        assert!(matches!(
            parse_line("bm 1 2 9", Some(&testament)),
            Err(KeyError::Usage(_))
        ));
    }

    /// `?` lists every shorthand the console takes.
    #[test]
    fn the_legend_names_every_shorthand() {
        let heads = [
            ".", "u", "undo", "ms", "s", "n", "w", "v", "vc", "b", "l", "k", "d", "c", "bp", "bm",
            "f", "tf", "y", "dq", "otv", "p",
        ];
        let keys: Vec<&str> = LEGEND
            .iter()
            .flat_map(|(k, _)| k.split([' ', '|']))
            .collect();
        for head in heads {
            assert!(
                !matches!(parse_line(head, None), Err(KeyError::Unknown(_))),
                "{head}"
            );
            assert!(keys.contains(&head), "`{head}` is not in the legend");
        }
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert_eq!(parse_line("f 11", None), Err(KeyError::Seat("11".into())));
        assert_eq!(parse_line("zz", None), Err(KeyError::Unknown("zz".into())));
        assert!(matches!(
            parse_line("{\"type\":\"no\"}", None),
            Err(KeyError::Json(_))
        ));
        assert_eq!(
            parse_line("{\"type\":\"foul\",\"seat\":4}", None).unwrap(),
            vec![Command::Foul { seat: s(4) }]
        );
    }
}

#[cfg(test)]
mod round_trip {
    use super::*;
    use mafia_rules::sim::simulate;
    use mafia_rules::{Game, RuleSetId};
    use rand::SeedableRng;

    /// Every command of simulated games of every rule set, typed as its
    /// shorthand at the prompt it was entered at, parses back to itself.
    #[test]
    fn every_simulated_command_survives_its_shorthand() {
        for rules in RuleSetId::ALL {
            for seed in 0..20u64 {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let sim = simulate(rules, &mut rng, 0);
                let (mut game, _) = Game::new(sim.setup.clone(), 0);
                for (at, cmd) in &sim.commands {
                    let expect = game.expected().expect;
                    let line = shorthand(cmd, Some(&expect));
                    let parsed = parse_line(&line, Some(&expect))
                        .unwrap_or_else(|e| panic!("{rules:?} {cmd:?} as {line:?}: {e}"));
                    assert_eq!(parsed, vec![cmd.clone()], "{rules:?} typed {line:?}");
                    game.apply(cmd, *at).unwrap();
                }
            }
        }
    }
}
