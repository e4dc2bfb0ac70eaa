//! A small driver for scenario tests: a table with known roles, and helpers
//! that play through the routine parts of a game.
#![allow(dead_code)]

use mafia_rules::sim::default_players;
use mafia_rules::*;

pub fn s(n: u8) -> Seat {
    Seat::new(n).unwrap()
}

pub fn set(seats: &[u8]) -> SeatSet {
    seats.iter().map(|n| s(*n)).collect()
}

pub fn list(seats: &[u8]) -> SeatList {
    seats.iter().map(|n| s(*n)).collect()
}

pub struct Table {
    pub g: Game,
    pub at: i64,
    pub events: Vec<Envelope>,
    /// The accepted commands, saved as a record file when the test ends.
    pub record: mafia_record::Record,
}

/// Where scenario records live; one file per table a test plays.
fn scenario_path(test: &str, index: usize) -> std::path::PathBuf {
    let name = test.rsplit("::").next().unwrap_or(test);
    let file = if index == 0 {
        format!("{name}.jsonl")
    } else {
        format!("{name}-{index}.jsonl")
    };
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/records/scenarios")
        .join(file)
}

thread_local! {
    static TABLES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Each scenario is also a stored record (`tests/records/scenarios/`), which
/// `mafia replay` must summarise as its `.expected.json` says. Set
/// `MAFIA_WRITE_SCENARIOS=1` to rewrite them; otherwise they must match.
impl Drop for Table {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let Some(test) = std::thread::current().name().map(str::to_string) else {
            return;
        };
        let index = TABLES.with(|n| {
            let i = n.get();
            n.set(i + 1);
            i
        });
        let path = scenario_path(&test, index);
        let text = self.record.to_jsonl();
        if std::env::var_os("MAFIA_WRITE_SCENARIOS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        } else {
            let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!("{}: {e}; run with MAFIA_WRITE_SCENARIOS=1", path.display())
            });
            assert_eq!(stored, text, "{} is stale", path.display());
        }
    }
}

/// Roles by letter, seat 1 first: K civilian, S Sheriff, B Beauty, M mafia, D Don.
pub fn roles(spec: &str) -> Vec<Role> {
    spec.chars()
        .map(|c| match c {
            'K' => Role::Civilian,
            'S' => Role::Sheriff,
            'B' => Role::Beauty,
            'M' => Role::Mafia,
            'D' => Role::Don,
            _ => panic!("bad role letter {c}"),
        })
        .collect()
}

/// Seats 1–6 civilians, 7 Sheriff, 8–9 mafia, 10 Don (club: 6 is the Beauty).
pub fn table(rules: RuleSetId) -> Table {
    let spec = if rules == RuleSetId::Club {
        "KKKKKBSMMD"
    } else {
        "KKKKKKSMMD"
    };
    table_with(RuleSet::preset(rules), spec)
}

pub fn table_with(rules: RuleSet, spec: &str) -> Table {
    let setup = Setup::new(rules, default_players(), Deal::Cards(roles(spec))).unwrap();
    let id = "scenarios.main.r1.t1.g1".parse().unwrap();
    let mut header = mafia_record::Header::for_setup(&setup, &id);
    // The committed scenario records keep the header they were written with.
    header.tournament_id = None;
    header.stage = String::new();
    let record = mafia_record::Record::new(header).unwrap();
    let (g, events) = Game::new(setup, 0);
    Table {
        g,
        at: 0,
        events,
        record,
    }
}

impl Table {
    pub fn ok(&mut self, cmd: Command) -> Vec<Event> {
        self.at += 1000;
        let evs = self
            .g
            .apply(&cmd, self.at)
            .unwrap_or_else(|v| panic!("{cmd:?} refused: {v} at {:?}", self.g.step()));
        self.events.extend(evs.iter().copied());
        self.record.push(self.at, cmd);
        evs.into_iter().map(|e| e.event).collect()
    }

    pub fn err(&mut self, cmd: Command) -> Violation {
        let before = self.g.clone();
        let v = self
            .g
            .apply(&cmd, self.at)
            .expect_err(&format!("{cmd:?} was accepted"));
        assert_eq!(self.g, before, "a refused command changed the game");
        v
    }

    pub fn prompt(&self) -> Expect {
        self.g.expected().expect
    }

    pub fn secs(&self) -> Option<u16> {
        self.g.expected().secs
    }

    pub fn alive(&self, n: u8) -> bool {
        self.g.core().alive(s(n))
    }

    /// Plays night 0 to the first speech of day 1.
    pub fn play_night0(&mut self) {
        while let Expect::Night0 { .. } = self.prompt() {
            self.ok(Command::NextStep);
        }
    }

    /// Plays the day's speeches; `noms` are (by, target) nominations made in
    /// the speakers' turns. Stops at the first step that is not a regular speech.
    pub fn speeches(&mut self, noms: &[(u8, u8)]) {
        while let Expect::Speech {
            seat, tie: false, ..
        } = self.prompt()
        {
            for (by, target) in noms {
                if *by == seat.number() {
                    self.ok(Command::Nominate {
                        by: seat,
                        target: s(*target),
                    });
                }
            }
            self.ok(Command::EndSpeech {
                seat,
                timeout: false,
            });
        }
    }

    /// Plays regular speeches until it is `seat`'s turn.
    pub fn speeches_until(&mut self, seat: u8) {
        while let Expect::Speech {
            seat: cur,
            tie: false,
            ..
        } = self.prompt()
        {
            if cur == s(seat) {
                return;
            }
            self.ok(Command::EndSpeech {
                seat: cur,
                timeout: false,
            });
        }
        panic!("seat {seat} never got the floor");
    }

    /// Ends every tie speech.
    pub fn tie_speeches(&mut self) {
        while let Expect::Speech {
            seat, tie: true, ..
        } = self.prompt()
        {
            self.ok(Command::EndSpeech {
                seat,
                timeout: false,
            });
        }
    }

    pub fn vote(&mut self, nominee: u8, hands: &[u8]) -> Vec<Event> {
        self.ok(Command::Vote {
            nominee: s(nominee),
            hands: set(hands),
        })
    }

    /// Ends every pending last words and testament.
    pub fn words(&mut self) {
        while let Expect::LastWords { seat, .. } = self.prompt() {
            self.ok(Command::EndLastWords { seat });
        }
    }

    /// Plays a night in which every black player shoots `target`; checks
    /// and picks name nobody; a best move names `best_move`. Stops at the
    /// first step that is not a night action.
    pub fn night(&mut self, target: Option<u8>) {
        self.night_with(target, &[]);
    }

    pub fn night_with(&mut self, target: Option<u8>, best_move: &[u8]) {
        loop {
            match self.prompt() {
                Expect::BeautyPick { .. } => {
                    self.ok(Command::BeautyPick { target: None });
                }
                Expect::Shots { pending, .. } => {
                    for by in pending.iter() {
                        self.ok(Command::Shot {
                            by,
                            target: target.map(s),
                        });
                    }
                }
                Expect::DonCheck { .. } => {
                    self.ok(Command::DonCheck { target: None });
                }
                Expect::SheriffCheck { .. } => {
                    self.ok(Command::SheriffCheck { target: None });
                }
                Expect::BestMove { seat } => {
                    self.ok(Command::BestMove {
                        seat,
                        named: list(best_move),
                    });
                }
                _ => return,
            }
        }
    }

    /// A quiet day and night: no nominations, a miss.
    pub fn quiet_round(&mut self) {
        self.speeches(&[]);
        self.night(None);
    }

    pub fn saw(&self, pred: impl Fn(&Event) -> bool) -> bool {
        self.events.iter().any(|e| pred(&e.event))
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.g.result()
    }
}
