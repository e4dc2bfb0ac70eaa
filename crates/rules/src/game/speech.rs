//! Speeches and nominations: who holds the floor, for how long, and who may
//! be nominated.

use super::*;

impl Tx<'_> {
    pub(super) fn start_speech(&mut self, seat: Seat) -> Check {
        let c = *self.c();
        self.need_speaker(seat)?;
        if c.speech_started_at.is_some() {
            return Err(self.wrong_phase(
                Topic::Speech,
                "starting the speech again",
                "повторный старт речи",
            ));
        }
        self.emit(Event::SpeechStarted { seat });
        Ok(())
    }

    pub(super) fn end_speech(&mut self, seat: Seat, timeout: bool) -> Check {
        let tie = self.need_speaker(seat)?;
        self.emit(Event::SpeechEnded { seat, timeout });
        if tie {
            self.next_tie_turn();
        } else {
            self.next_turn();
        }
        Ok(())
    }

    pub(super) fn next_step(&mut self) -> Check {
        match self.c().step {
            Step::Night0 { index, .. } => {
                self.night0_step(index as usize + 1);
                Ok(())
            }
            Step::FreeTalk { .. } => {
                self.speeches_done();
                Ok(())
            }
            _ => Err(self.wrong_phase(
                Topic::General,
                "moving to the next step",
                "переход к следующему этапу",
            )),
        }
    }

    pub(super) fn nominate(&mut self, by: Seat, target: Seat) -> Check {
        let c = *self.c();
        let open = nomination_open(&c, self.p, by);
        match open {
            Err(NoNomination::NotInRuleSet) => {
                return Err(self.not_in_rules(
                    Topic::Nomination,
                    "nominations",
                    "выставления кандидатур",
                ))
            }
            Err(NoNomination::NotYourTurn { speaker }) => {
                return Err(self.not_your_turn_on(Topic::Nomination, speaker, by))
            }
            Err(NoNomination::NoSpeech) => {
                return Err(self.wrong_phase(Topic::Nomination, "a nomination", "выставление"))
            }
            // Said after what is wrong with the target, as before.
            Err(NoNomination::Used { .. }) | Ok(()) => {}
        }
        self.need_alive(target)?;
        if by == target && !self.p.nominations.self_nomination {
            return Err(self.err(
                Code::SelfNomination,
                "a player may not nominate himself".into(),
                "игрок не может выставить себя".into(),
            ));
        }
        if let Err(NoNomination::Used { target: t }) = open {
            return Err(self.err(
                Code::NominationUsed,
                format!("player {by} has already nominated player {t} today"),
                format!("игрок {by} уже выставил игрока {t} сегодня"),
            ));
        }
        if c.nominees.contains(target) {
            return Err(self.err(
                Code::AlreadyNominated,
                format!("player {target} is already nominated; player {by} may name another"),
                format!("игрок {target} уже выставлен; игрок {by} может выставить другого"),
            ));
        }
        self.emit(Event::Nominated { by, target });
        Ok(())
    }

    pub(super) fn withdraw(&mut self, by: Seat) -> Check {
        let target = withdrawable(self.c(), self.p, by).map_err(|no| match no {
            NoWithdrawal::NotInRuleSet => self.err(
                Code::WithdrawalForbidden,
                "this rule set does not allow withdrawing a nomination".into(),
                "снятие кандидатуры запрещено".into(),
            ),
            NoWithdrawal::NoSpeech => self.wrong_phase(Topic::Speech, "a speech", "речь"),
            NoWithdrawal::NotYourTurn { speaker } => {
                self.not_your_turn_on(Topic::Nomination, speaker, by)
            }
            NoWithdrawal::TieSpeech => self.wrong_phase(
                Topic::Nomination,
                "withdrawing a nomination",
                "снятие кандидатуры",
            ),
            NoWithdrawal::NothingToWithdraw => self.err(
                Code::NothingToWithdraw,
                format!("player {by} has not nominated anyone today"),
                format!("игрок {by} сегодня никого не выставлял"),
            ),
        })?;
        self.emit(Event::Withdrawn { by, target });
        Ok(())
    }

    pub(super) fn start_speeches(&mut self) {
        let c = *self.c();
        if let Some(ft) = self.p.free_talk {
            if c.day >= ft.from_day && c.living().len() > ft.small_table as usize {
                self.emit(Event::StepStarted {
                    step: Step::FreeTalk { secs: ft.secs },
                });
                return;
            }
        }
        self.next_turn();
    }

    /// The next regular turn of the day, or the end of the speeches.
    pub(super) fn next_turn(&mut self) {
        loop {
            let c = *self.c();
            let opener = c.opener.unwrap_or(Seat::from_index(0));
            let next = (0..10)
                .scan(opener, |s, _| {
                    let cur = *s;
                    *s = s.next();
                    Some(cur)
                })
                .find(|s| c.alive(*s) && !c.spoken.contains(*s));
            let Some(seat) = next else {
                self.speeches_done();
                return;
            };
            if c.silenced == Some((seat, c.day)) {
                self.emit(Event::TurnSkipped { seat });
                continue;
            }
            let (secs, nominations_only) = self.allowance(seat);
            self.emit(Event::StepStarted {
                step: Step::Speech {
                    seat,
                    secs,
                    tie: false,
                    nominations_only,
                },
            });
            return;
        }
    }

    pub(super) fn allowance(&self, seat: Seat) -> (u16, bool) {
        let c = self.c();
        let f = self.p.fouls;
        match c.seats[seat.index()].mute {
            Some(m) if m.day == c.day => {
                if let Some(secs) = f.critical_secs {
                    if c.living().len() <= f.critical_players as usize
                        && (m.carried || !f.critical_only_carried)
                    {
                        return (secs, false);
                    }
                }
                match f.third_foul {
                    ThirdFoul::LoseSpeech if m.carried => (f.carried_over_secs, true),
                    ThirdFoul::LoseSpeech => (0, true),
                    ThirdFoul::ShortSpeech => (f.short_speech_secs, false),
                }
            }
            _ => (self.p.speech_secs, false),
        }
    }

    pub(super) fn speeches_done(&mut self) {
        let c = *self.c();
        if let Some(ft) = self.p.free_talk {
            if c.day >= ft.from_day && !c.free_talk_done {
                self.emit(Event::StepStarted {
                    step: Step::FreeTalk {
                        secs: ft.small_secs,
                    },
                });
                return;
            }
        }
        if c.vote_cancelled {
            return self.skip_vote(NoVote::Cancelled);
        }
        if self.p.vote_call {
            self.emit(Event::StepStarted {
                step: Step::VoteCall,
            });
            return;
        }
        let nominees = c.nominees.filtered(c.living());
        if nominees.is_empty() {
            return self.skip_vote(NoVote::NoNominees);
        }
        if c.day == 1 && nominees.len() == 1 && !self.p.day1_single_nominee_vote {
            return self.skip_vote(NoVote::SingleNomineeDay1);
        }
        self.start_round(nominees, 0);
    }

    pub(super) fn next_tie_turn(&mut self) {
        let c = *self.c();
        let next = c
            .candidates
            .iter()
            .find(|s| c.alive(*s) && !c.tie_spoken.contains(*s));
        let Some(seat) = next else {
            let cands = c.candidates.filtered(c.living());
            if c.vote_cancelled {
                return self.skip_vote(NoVote::Cancelled);
            }
            return self.start_round(cands, c.round + 1);
        };
        // The Beauty's pick stays silent, and so may a muted player.
        let muted = c.seats[seat.index()].mute.is_some_and(|m| m.day == c.day)
            && !self.p.fouls.tie_speech_when_muted;
        let silent = c.silenced == Some((seat, c.day)) || muted;
        self.emit(Event::StepStarted {
            step: Step::Speech {
                seat,
                secs: if silent { 0 } else { self.p.tie_speech_secs },
                tie: true,
                nominations_only: false,
            },
        });
    }
}

/// Why a player may not nominate anyone now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoNomination {
    NotInRuleSet,
    /// Not in a speech of the day's first round (a tie speech comes after
    /// the voting began).
    NoSpeech,
    NotYourTurn {
        speaker: Seat,
    },
    /// He nominated `target` today already.
    Used {
        target: Seat,
    },
}

/// Whether `by` may nominate now, whoever the target, or why not. The rule
/// is stated here once: `Tx::nominate` enforces it (and then checks the
/// target) and the judge's prompt offers `may_nominate` from it.
pub(crate) fn nomination_open(c: &Core, p: &Params, by: Seat) -> Result<(), NoNomination> {
    if p.vote_call {
        return Err(NoNomination::NotInRuleSet);
    }
    match c.step {
        Step::Speech {
            seat, tie: false, ..
        } if seat == by => {}
        Step::Speech {
            seat, tie: false, ..
        } => return Err(NoNomination::NotYourTurn { speaker: seat }),
        _ => return Err(NoNomination::NoSpeech),
    }
    match c.nomination_of[by.index()] {
        Some(target) => Err(NoNomination::Used { target }),
        None => Ok(()),
    }
}

/// Why a player may not withdraw his nomination now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoWithdrawal {
    NotInRuleSet,
    NoSpeech,
    NotYourTurn { speaker: Seat },
    TieSpeech,
    NothingToWithdraw,
}

/// The nomination `by` would withdraw now, or why he may not. The rule is
/// stated here once: `Tx::withdraw` enforces it and the judge's prompt
/// offers `may_withdraw` from it, so the two cannot disagree.
pub(crate) fn withdrawable(c: &Core, p: &Params, by: Seat) -> Result<Seat, NoWithdrawal> {
    if !p.nominations.withdrawal {
        return Err(NoWithdrawal::NotInRuleSet);
    }
    // A nomination is withdrawn in its maker's own minute (minsk2017
    // §4.4.2–4.4.3); a tie speech comes after the voting began.
    match c.step {
        Step::Speech { seat, tie, .. } if seat == by => {
            if tie {
                return Err(NoWithdrawal::TieSpeech);
            }
        }
        Step::Speech { seat, .. } => return Err(NoWithdrawal::NotYourTurn { speaker: seat }),
        _ => return Err(NoWithdrawal::NoSpeech),
    }
    c.nomination_of[by.index()].ok_or(NoWithdrawal::NothingToWithdraw)
}
