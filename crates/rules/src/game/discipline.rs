//! Fouls and removals, and what a removal does to the votes.

use super::*;

impl Tx<'_> {
    pub(super) fn technical_foul(&mut self, seat: Seat) -> Check {
        let c = *self.c();
        let Some(limit) = self.p.fouls.technical_remove_at else {
            return Err(self.not_in_rules(Topic::General, "technical fouls", "технических фолов"));
        };
        self.need_alive_or_speaking(seat)?;
        let count = c.seats[seat.index()].technical_fouls + 1;
        self.emit(Event::TechnicalFouled { seat, count });
        if count >= limit {
            if c.alive(seat) {
                self.remove(seat, Cause::TechnicalFouls);
            } else {
                // In his own last words: he loses the rest of them.
                self.next_words();
            }
        }
        Ok(())
    }

    pub(super) fn penalty(&mut self, seat: Seat, kind: crate::command::PenaltyKind) -> Check {
        if !self.p.fouls.penalties {
            return Err(self.not_in_rules(Topic::General, "penalty points", "штрафных баллов"));
        }
        self.need_alive_or_speaking(seat)?;
        self.emit(Event::Penalized { seat, kind });
        Ok(())
    }

    pub(super) fn yellow_card(&mut self, seat: Seat) -> Check {
        self.need_alive_or_speaking(seat)?;
        self.emit(Event::YellowCarded { seat });
        Ok(())
    }

    pub(super) fn opposite_team_victory(&mut self, seat: Seat) -> Check {
        let c = *self.c();
        let loser = c.role(seat).team();
        self.emit(Event::OppositeTeamVictory { seat });
        self.end(Outcome {
            winner: Some(loser.opposite()),
            reason: EndReason::OppositeTeamVictory,
        });
        self.emit(Event::StepStarted { step: Step::Ended });
        Ok(())
    }

    pub(super) fn foul(&mut self, seat: Seat) -> Check {
        self.need_alive_or_speaking(seat)?;
        let c = *self.c();
        let fouls = c.seats[seat.index()].fouls.saturating_add(1);
        self.emit(Event::Fouled { seat, fouls });
        let f = self.p.fouls;
        if !c.alive(seat) {
            // A leaving player fouled out of his last words loses the rest.
            if fouls >= f.remove_at {
                self.next_words();
            }
            return Ok(());
        }
        if fouls >= f.remove_at {
            self.remove(seat, Cause::Fouls);
        } else if fouls == f.mute_at && c.result.is_none() {
            self.mute(seat);
        }
        Ok(())
    }

    pub(super) fn mute(&mut self, seat: Seat) {
        let c = *self.c();
        let own_speech = matches!(c.step, Step::Speech { seat: s, tie: false, .. } if s == seat);
        let speeches_ahead = !c.is_night()
            && c.day > 0
            && !c.vote_done
            && !matches!(
                c.step,
                Step::Voting { .. } | Step::RollCall { .. } | Step::Lift | Step::VoteCall
            )
            && !matches!(c.step, Step::Speech { tie: true, .. });
        if own_speech {
            match self.p.fouls.during_speech {
                FoulDuringSpeech::EndsThisSpeech => {
                    self.emit(Event::Muted {
                        seat,
                        day: c.day,
                        carried: false,
                    });
                    self.emit(Event::SpeechEnded {
                        seat,
                        timeout: false,
                    });
                    self.next_turn();
                }
                FoulDuringSpeech::NextDay => self.emit(Event::Muted {
                    seat,
                    day: c.day + 1,
                    carried: true,
                }),
            }
        } else if speeches_ahead && !c.spoken.contains(seat) {
            self.emit(Event::Muted {
                seat,
                day: c.day,
                carried: false,
            });
        } else {
            // His speech of the day is past (by day, or at night after it);
            // on the meeting night he has had none.
            self.emit(Event::Muted {
                seat,
                day: c.day + 1,
                carried: c.day > 0,
            });
        }
    }

    /// A removal: the 4th foul, the 2nd technical foul, a disqualification.
    pub(super) fn remove(&mut self, seat: Seat, cause: Cause) {
        let before = *self.c();
        self.emit(Event::Left { seat, cause });
        if before.result.is_some() {
            // The result stands (classic §6.9, rfm §5.15, ua §1.9): the
            // removal counts in scoring only.
            return;
        }
        let r = self.p.removal;
        let bump = |n: u8| {
            if r.cancellations_accumulate {
                n.saturating_add(1)
            } else {
                n.max(1)
            }
        };
        let (today, next) = (before.vote_cancelled, before.cancel_next);
        // ua §4.20: a nominee with a critical number of votes leaves by this
        // vote; unless he is the one removed, the removal came after the result.
        let decided = self.decided_nominee(&before).filter(|n| *n != seat);
        if before.is_night() || before.day == 0 {
            // Settled in the morning: a shot may yet make it "removed and killed".
        } else if !before.vote_done && decided.is_none() {
            if r.before_result_cancels_vote && !self.closing_nominee_stands(&before) {
                if !today {
                    self.emit(Event::VotesCancelled {
                        today: true,
                        next_days: next,
                    });
                } else if r.second_removal_cancels_next {
                    // ua §4.21: the removals of one round reach the current
                    // and the next day's vote, no further.
                    self.emit(Event::VotesCancelled {
                        today: true,
                        next_days: next.max(1),
                    });
                }
            }
        } else if r.after_result_cancels_next {
            self.emit(Event::VotesCancelled {
                today,
                next_days: bump(next),
            });
        }
        if let Some(outcome) = self.outcome() {
            // At night the result counts tonight's victim as gone: the night
            // ends here, and he leaves with his last words.
            let victim = self.pending_kill().is_some();
            self.dawn();
            self.end(outcome);
            if victim {
                self.next_words();
            } else {
                self.emit(Event::StepStarted { step: Step::Ended });
            }
            return;
        }
        if let Some(nominee) = decided {
            self.leave(std::iter::once(nominee).collect(), Cause::Vote);
            return;
        }
        let c = *self.c();
        match before.step {
            Step::Speech { seat: s, tie, .. } if s == seat => {
                if tie {
                    self.next_tie_turn()
                } else {
                    self.next_turn()
                }
            }
            Step::Voting { .. } | Step::RollCall { .. } | Step::Lift | Step::VoteCall => {
                if c.vote_cancelled {
                    self.start_night();
                } else {
                    // The vote goes on without him: the round starts over.
                    let cands = c.candidates.filtered(c.living());
                    self.start_round(cands, c.round);
                }
            }
            Step::Night {
                action: NightAction::Shooting,
                ..
            } if self.shooters().difference(c.shot).is_empty() => self.resolve_shooting(),
            Step::Night { action, .. } if self.actor(action) == Some(seat) => {
                self.next_night_action(Some(action))
            }
            // Removed during his best move: the rest of it is lost.
            Step::BestMove { seat: s, .. } if s == seat => self.start_day(),
            _ => {}
        }
    }

    /// A disqualification: of a player at the table, or of one in his own
    /// last words, who keeps his departure and loses the rest of his words.
    pub(super) fn disqualify(&mut self, seat: Seat) -> Check {
        let c = *self.c();
        if matches!(c.step, Step::LastWords { seat: s, .. } if s == seat) && !c.alive(seat) {
            self.emit(Event::Disqualified { seat });
            self.next_words();
            return Ok(());
        }
        self.need_alive(seat)?;
        self.remove(seat, Cause::Disqualified);
        Ok(())
    }

    /// ua §4.20: the nominee a round of hands has already decided, if the
    /// rule set counts such a vote as held: his votes exceed any other
    /// nominee's plus every hand not yet counted.
    pub(super) fn decided_nominee(&self, c: &Core) -> Option<Seat> {
        if !self.p.removal.decided_vote_stands || c.vote_done {
            return None;
        }
        let Step::Voting { .. } = c.step else {
            return None;
        };
        let uncounted = c.living().difference(c.voted).len();
        let mut best: Option<(usize, Seat)> = None;
        let mut second = 0;
        for s in c.candidates.filtered(c.living()).iter() {
            let votes = c.tally[s.index()] as usize;
            match best {
                Some((b, _)) if votes <= b => second = second.max(votes),
                _ => {
                    second = second.max(best.map_or(0, |(b, _)| b));
                    best = Some((votes, s));
                }
            }
        }
        best.filter(|(votes, _)| *votes > second + uncounted)
            .map(|(_, s)| s)
    }

    /// rfm §4.4.16 exc. 2: the round's closing speaker named the day's only
    /// nominee, nobody having been nominated before him.
    pub(super) fn closing_nominee_stands(&self, c: &Core) -> bool {
        if !self.p.removal.closing_sole_nominee_stands || c.day < 2 || c.nominees.len() != 1 {
            return false;
        }
        let Some(opener) = c.opener else {
            return false;
        };
        let closer = (0..10)
            .scan(opener, |s, _| {
                let cur = *s;
                *s = s.next();
                Some(cur)
            })
            .filter(|s| c.alive(*s))
            .last();
        closer.is_some_and(|s| c.nomination_of[s.index()] == c.nominees.get(0))
    }

    /// Night removals cancel the next vote unless the player was shot too.
    pub(super) fn settle_night_removals(&mut self) {
        let c = *self.c();
        let r = self.p.removal;
        if !r.at_night_cancels_next {
            return;
        }
        let mut next = c.cancel_next;
        for seat in c.removed_tonight.iter() {
            // Killed too ("removed and killed"): the vote is held.
            if c.kill == Some(seat) {
                continue;
            }
            next = if r.cancellations_accumulate {
                next.saturating_add(1)
            } else {
                next.max(1)
            };
        }
        if next != c.cancel_next {
            self.emit(Event::VotesCancelled {
                today: c.vote_cancelled,
                next_days: next,
            });
        }
    }
}
