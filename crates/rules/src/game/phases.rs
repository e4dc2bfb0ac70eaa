//! Where days and nights begin: the morning, draws and wins.

use super::*;

impl Tx<'_> {
    /// The result the table has reached, counting tonight's victim, who
    /// leaves at dawn, as gone.
    pub(super) fn outcome(&self) -> Option<Outcome> {
        let (mut red, mut black) = self.c().counts();
        if let Some(k) = self.pending_kill() {
            match self.c().role(k).team() {
                Team::Red => red -= 1,
                Team::Black => black -= 1,
            }
        }
        let (winner, reason) = if red == 0 && black == 0 {
            (None, EndReason::AllOut)
        } else if black == 0 {
            (Some(Team::Red), EndReason::AllBlackOut)
        } else if black >= red {
            (Some(Team::Black), EndReason::BlackParity)
        } else {
            return None;
        };
        Some(Outcome { winner, reason })
    }

    pub(super) fn end(&mut self, outcome: Outcome) {
        self.emit(Event::GameEnded { outcome });
        let roles = self.c().roles;
        self.emit(Event::RolesRevealed { roles });
    }

    /// The quiet streak after the phase that is ending.
    pub(super) fn streak(&self, ending_night: bool) -> u8 {
        let c = self.c();
        if c.departed || (c.night == 0 && ending_night) {
            0
        } else if c.quiet > 0 || ending_night {
            c.quiet + 1
        } else {
            0
        }
    }

    /// Ends the game as a draw (or club's red win) when a streak says so.
    pub(super) fn quiet_end(&mut self) -> bool {
        let c = *self.c();
        let d = self.p.draw;
        if d.quiet_phases > 0 && c.quiet >= d.quiet_phases {
            self.end(Outcome {
                winner: None,
                reason: EndReason::NoDepartures,
            });
        } else if d
            .red_wins_at_players
            .is_some_and(|n| c.living().len() <= n as usize)
            && c.nights_without_kill >= d.red_wins_quiet_nights
        {
            self.end(Outcome {
                winner: Some(Team::Red),
                reason: EndReason::NightsWithoutKill,
            });
        } else {
            return false;
        }
        self.emit(Event::StepStarted { step: Step::Ended });
        true
    }

    pub(super) fn start_day(&mut self) {
        self.dawn();
        self.settle_night_removals();
        let c = *self.c();
        let day = c.day + 1;
        let quiet = self.streak(true);
        let opener = match c.opener {
            None => self.next_living(Seat::from_index(0)),
            Some(prev) => self.next_living(prev.next()),
        };
        let best_move = c
            .best_move
            .filter(|b| c.best_move_night && c.night > 0 && c.first_killed == Some(b.seat))
            .filter(|_| c.night == 1)
            .map(|b| b.named);
        self.emit(Event::DayStarted {
            day,
            opener,
            killed: if c.night > 0 { c.kill } else { None },
            best_move,
            quiet,
        });
        if self.quiet_end() {
            return;
        }
        let c = *self.c();
        if c.cancel_next > 0 {
            self.emit(Event::VotesCancelled {
                today: true,
                next_days: c.cancel_next - 1,
            });
        }
        if c.words_due.is_empty() {
            self.start_speeches();
        } else {
            self.next_words();
        }
    }

    pub(super) fn next_living(&self, from: Seat) -> Seat {
        let mut s = from;
        for _ in 0..10 {
            if self.c().alive(s) {
                return s;
            }
            s = s.next();
        }
        from
    }
}
