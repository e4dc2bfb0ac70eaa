//! Votes: rounds, ties and re-votes, the lift, and last words of those who leave.

use super::*;

impl Tx<'_> {
    pub(super) fn vote_call(&mut self, yes: SeatSet) -> Check {
        let c = *self.c();
        if c.step != Step::VoteCall {
            return Err(self.wrong_phase(
                Topic::Vote,
                "asking whether to vote",
                "опрос о голосовании",
            ));
        }
        self.need_voters(yes)?;
        let held = yes.len() * 2 >= c.living().len();
        self.emit(Event::VoteCalled { yes, held });
        if held {
            self.start_rollcall(c.living().iter().collect(), 0);
        } else {
            self.emit(Event::VoteSkipped {
                reason: NoVote::NotWanted,
            });
            self.start_night();
        }
        Ok(())
    }

    pub(super) fn lift(&mut self, hands: SeatSet) -> Check {
        let c = *self.c();
        if c.step != Step::Lift {
            return Err(self.wrong_phase(Topic::Lift, "the lift vote", "голосование за подъём"));
        }
        self.need_voters(hands)?;
        let passed = hands.len() * 2 > c.living().len();
        self.emit(Event::LiftVoted { hands, passed });
        if passed {
            let seats = c.candidates.filtered(c.living());
            self.leave(seats, Cause::Lift);
        } else {
            self.start_night();
        }
        Ok(())
    }

    pub(super) fn end_last_words(&mut self, seat: Seat) -> Check {
        let c = *self.c();
        let Step::LastWords {
            seat: s, testament, ..
        } = c.step
        else {
            return Err(self.wrong_phase(
                Topic::LastWords,
                "ending last words",
                "завершение последней речи",
            ));
        };
        if s != seat {
            return Err(self.not_your_turn_on(Topic::LastWords, s, seat));
        }
        if !testament && self.p.testament_secs > 0 && c.result.is_none() {
            self.emit(Event::StepStarted {
                step: Step::LastWords {
                    seat,
                    secs: self.p.testament_secs,
                    testament: true,
                },
            });
        } else {
            self.next_words();
        }
        Ok(())
    }

    pub(super) fn vote(&mut self, nominee: Seat, hands: SeatSet) -> Check {
        let c = *self.c();
        if !matches!(c.step, Step::Voting { .. }) {
            return Err(self.wrong_phase(Topic::Vote, "a vote", "голосование"));
        }
        let expected = c
            .candidates
            .get(c.vote_pos as usize)
            .expect("voting has a nominee");
        if nominee != expected {
            if c.candidates.last() == Some(nominee) {
                return Err(self.err(
                    Code::LastNomineeAutomatic,
                    format!("the votes for the last nominee, player {nominee}, are counted automatically"),
                    format!("голоса за последнего кандидата, игрока {nominee}, считаются автоматически"),
                ));
            }
            return Err(self.err(
                Code::WrongNominee,
                format!("the vote now is on player {expected}, not player {nominee}"),
                format!("сейчас голосуем за игрока {expected}, а не за игрока {nominee}"),
            ));
        }
        self.need_voters(hands)?;
        if let Some(s) = hands.intersection(c.voted).first() {
            return Err(self.err(
                Code::AlreadyVoted,
                format!("player {s} has already voted in this round"),
                format!("игрок {s} уже проголосовал в этом круге"),
            ));
        }
        self.emit(Event::VotesCast {
            nominee,
            hands,
            automatic: false,
        });
        if c.vote_pos as usize + 2 == c.candidates.len() {
            self.auto_last_votes();
        }
        Ok(())
    }

    pub(super) fn auto_last_votes(&mut self) {
        let c = *self.c();
        let Some(last) = c.candidates.last() else {
            return self.start_night();
        };
        self.emit(Event::VotesCast {
            nominee: last,
            hands: c.living().difference(c.voted),
            automatic: true,
        });
        self.resolve_vote();
    }

    pub(super) fn ballot(&mut self, voter: Seat, target: Option<Seat>) -> Check {
        let c = *self.c();
        let Step::RollCall { first, .. } = c.step else {
            return Err(self.wrong_phase(Topic::Vote, "a roll-call vote", "поимённое голосование"));
        };
        let Some(expected) = self.next_voter(first) else {
            return Err(self.wrong_phase(Topic::Vote, "a roll-call vote", "поимённое голосование"));
        };
        if voter != expected {
            return Err(self.not_your_turn_on(Topic::Vote, expected, voter));
        }
        if let Some(t) = target {
            if !c.candidates.contains(t) {
                return Err(self.err(
                    Code::WrongNominee,
                    format!("player {t} is not a candidate in this vote"),
                    format!("игрок {t} не кандидат в этом голосовании"),
                ));
            }
        }
        self.emit(Event::BallotCast { voter, target });
        if self.next_voter(first).is_none() {
            self.resolve_vote();
        }
        Ok(())
    }

    pub(super) fn next_voter(&self, first: Seat) -> Option<Seat> {
        let c = self.c();
        let mut s = first;
        for _ in 0..10 {
            if c.alive(s) && !c.voted.contains(s) {
                return Some(s);
            }
            s = s.next();
        }
        None
    }

    pub(super) fn skip_vote(&mut self, reason: NoVote) {
        self.emit(Event::VoteSkipped { reason });
        self.start_night();
    }

    pub(super) fn start_round(&mut self, candidates: SeatList, round: u8) {
        if self.p.vote_call {
            self.start_rollcall(candidates, round);
            return;
        }
        if candidates.is_empty() {
            return self.start_night();
        }
        self.emit(Event::Candidates { seats: candidates });
        self.emit(Event::StepStarted {
            step: Step::Voting { round },
        });
        if candidates.len() == 1 {
            self.auto_last_votes();
        }
    }

    pub(super) fn start_rollcall(&mut self, candidates: SeatList, round: u8) {
        let first = self.next_living(self.c().rollcall_start);
        self.emit(Event::Candidates { seats: candidates });
        self.emit(Event::StepStarted {
            step: Step::RollCall { round, first },
        });
    }

    pub(super) fn resolve_vote(&mut self) {
        let c = *self.c();
        let cands = c.candidates.filtered(c.living());
        let max = cands.iter().map(|s| c.tally[s.index()]).max().unwrap_or(0);
        if max == 0 {
            // Only a roll call where everyone abstained.
            self.emit(Event::VoteSkipped {
                reason: NoVote::NotWanted,
            });
            return self.start_night();
        }
        let top: SeatList = cands.iter().filter(|s| c.tally[s.index()] == max).collect();
        if top.len() == 1 {
            self.leave(top, Cause::Vote);
        } else if c.round > 0 && top.to_set() == cands.to_set() {
            self.lift_question(top);
        } else {
            self.emit(Event::Tie { seats: top });
            self.next_tie_turn();
        }
    }

    pub(super) fn lift_denial(&self, tied: SeatList) -> Option<LiftDenial> {
        let c = self.c();
        let l = &self.p.lift;
        let living = c.living().len();
        let n = tied.len();
        if !l.enabled {
            Some(LiftDenial::Disabled)
        } else if l.no_lift_at.is_some_and(|k| living <= k as usize) {
            Some(LiftDenial::TooFewPlayers)
        } else if n == living && !l.all_players_draw {
            Some(LiftDenial::AllPlayers)
        } else if l.at_most_half && n * 2 > living {
            Some(LiftDenial::MoreThanHalf)
        } else if c.day == 1 && l.day1_max.is_some_and(|m| n > m as usize) {
            Some(LiftDenial::Day1Limit)
        } else if l.bans.iter().any(|b| {
            b.tied as usize == n
                && b.living as usize == living
                && b.before_day.is_none_or(|d| c.day < d)
        }) {
            Some(LiftDenial::Banned)
        } else {
            None
        }
    }

    pub(super) fn lift_question(&mut self, tied: SeatList) {
        match self.lift_denial(tied) {
            Some(reason) => {
                self.emit(Event::LiftDenied {
                    seats: tied,
                    reason,
                });
                self.start_night();
            }
            None => self.emit(Event::StepStarted { step: Step::Lift }),
        }
    }

    /// Players leave by vote or lift: the result is fixed now, last words follow.
    pub(super) fn leave(&mut self, seats: SeatList, cause: Cause) {
        for seat in seats.iter() {
            self.emit(Event::Left { seat, cause });
        }
        if let Some(outcome) = self.outcome() {
            self.end(outcome);
        }
        self.next_words();
    }

    pub(super) fn words_secs(&self, seat: Seat) -> u16 {
        match self.c().seats[seat.index()].out {
            Some(d) if d.cause == Cause::Lift => self.p.several_out_last_words_secs,
            _ => self.p.last_words_secs,
        }
    }

    pub(super) fn next_words(&mut self) {
        let c = *self.c();
        if let Some(seat) = c.words_due.get(0) {
            let secs = self.words_secs(seat);
            self.emit(Event::StepStarted {
                step: Step::LastWords {
                    seat,
                    secs,
                    testament: false,
                },
            });
            return;
        }
        let after = if c.result.is_some() {
            After::End
        } else if c.vote_done {
            After::Night
        } else {
            After::Speeches
        };
        match after {
            After::End => self.emit(Event::StepStarted { step: Step::Ended }),
            After::Night => self.start_night(),
            After::Speeches => self.start_speeches(),
        }
    }
}
