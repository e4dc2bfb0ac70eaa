//! Nights: night 0's steps, the Beauty, the shooting, the checks, the best move.

use super::*;

impl Tx<'_> {
    pub(super) fn don_check(&mut self, target: Option<Seat>) -> Check {
        let c = *self.c();
        self.need_night_action(NightAction::DonCheck)?;
        let sheriff = target.is_some_and(|t| c.role(t) == Role::Sheriff);
        self.emit(Event::DonChecked { target, sheriff });
        self.next_night_action(Some(NightAction::DonCheck));
        Ok(())
    }

    pub(super) fn sheriff_check(&mut self, target: Option<Seat>) -> Check {
        let c = *self.c();
        if let Step::Night0 { .. } = c.step {
            return Err(self.err(
                Code::NoSheriffCheckOnNight0,
                "the Sheriff does not check on night 0".into(),
                "в нулевую ночь Шериф не проверяет".into(),
            ));
        }
        self.need_night_action(NightAction::SheriffCheck)?;
        let black = target.is_some_and(|t| c.role(t).team() == Team::Black);
        self.emit(Event::SheriffChecked { target, black });
        self.next_night_action(Some(NightAction::SheriffCheck));
        Ok(())
    }

    pub(super) fn beauty_pick(&mut self, target: Option<Seat>) -> Check {
        self.need_night_action(NightAction::BeautyPick)?;
        if let Some(t) = target {
            self.need_alive(t)?;
        }
        self.emit(Event::BeautyPicked { target });
        self.next_night_action(Some(NightAction::BeautyPick));
        Ok(())
    }

    /// "Mafia, shoot": from here a violation is one "during the shooting"
    /// (ua §5.6, rfm §5.17).
    pub(super) fn start_shooting(&mut self) -> Check {
        self.need_night_action(NightAction::Shooting)?;
        if self.c().shooting_started {
            return Err(self.wrong_phase(
                Topic::Shooting,
                "starting the shooting again",
                "повторное начало стрельбы",
            ));
        }
        self.emit(Event::ShootingStarted);
        Ok(())
    }

    pub(super) fn shoot(&mut self, by: Seat, target: Option<Seat>) -> Check {
        let c = *self.c();
        let first = c.shot_target[by.index()];
        let second_seat = self.p.several_shots_miss
            && c.shot.contains(by)
            && first.is_some()
            && target.is_some()
            && first != target;
        // Only a second seat is still taken once the count is over.
        let late = second_seat && self.count_just_over();
        if !late {
            self.need_night_action(NightAction::Shooting)?;
        }
        if !c.alive(by) || c.role(by).team() != Team::Black {
            return Err(self.err(
                Code::NotAShooter,
                format!("player {by} is not a black player in the game"),
                format!("игрок {by} не является чёрным игроком в игре"),
            ));
        }
        if c.picked == Some(by) {
            return Err(self.err(
                Code::CannotAct,
                format!("player {by} was picked by the Beauty and cannot shoot tonight"),
                format!("игрок {by} выбран Красоткой и не стреляет этой ночью"),
            ));
        }
        if c.shot.contains(by) && !second_seat {
            return Err(self.err(
                Code::AlreadyShot,
                format!("player {by} has already shot tonight"),
                format!("игрок {by} уже стрелял этой ночью"),
            ));
        }
        self.emit(Event::ShotFired { by, target });
        if late {
            // The kill entered at the end of the count is a miss after all.
            if c.kill.is_some() {
                self.emit(Event::NightResult { killed: None });
            }
        } else if self.shooters().difference(self.c().shot).is_empty() {
            self.resolve_shooting();
        }
        Ok(())
    }

    /// The count is over and nothing of the next night action is entered
    /// yet: a black hand raised late in the count can still be taken.
    fn count_just_over(&self) -> bool {
        let c = self.c();
        let Step::Night { action, .. } = c.step else {
            return false;
        };
        if !self.p.several_shots_miss || c.result.is_some() || c.shot.is_empty() {
            return false;
        }
        let order = &self.p.night_order;
        let Some(i) = order.iter().position(|a| *a == NightAction::Shooting) else {
            return false;
        };
        order[i + 1..]
            .iter()
            .find(|a| self.actor(**a).is_some())
            .is_some_and(|next| *next == action)
    }

    pub(super) fn best_move(&mut self, seat: Seat, named: SeatList) -> Check {
        let c = *self.c();
        let ok_step = match c.step {
            Step::BestMove { seat: s, .. } => s == seat,
            Step::LastWords {
                seat: s,
                testament: false,
                ..
            } => s == seat && self.p.best_move.at == BestMoveAt::LastWords && self.entitled(seat),
            _ => false,
        };
        if !ok_step {
            return Err(self.wrong_phase(Topic::BestMove, "a best move", "лучший ход"));
        }
        if named.len() > 3 || named.contains(seat) {
            return Err(self.err(
                Code::BadBestMove,
                "a best move names at most three seats other than his own".into(),
                "лучший ход — не более трёх номеров, кроме своего".into(),
            ));
        }
        let hits = named
            .iter()
            .filter(|s| c.role(*s).team() == Team::Black)
            .count() as u8;
        let at_night = c.is_night();
        self.emit(Event::BestMoveMade {
            seat,
            named,
            hits,
            at_night,
        });
        if matches!(c.step, Step::BestMove { .. }) {
            self.start_day();
        }
        Ok(())
    }

    pub(super) fn night0_step(&mut self, index: usize) {
        match self.p.night0.get(index) {
            Some(t) => self.emit(Event::StepStarted {
                step: Step::Night0 {
                    index: index as u8,
                    step: t.step,
                    secs: t.secs,
                },
            }),
            None => self.start_day(),
        }
    }

    pub(super) fn start_night(&mut self) {
        let c = *self.c();
        let quiet = self.streak(false);
        self.emit(Event::NightStarted {
            night: c.day,
            quiet,
        });
        if self.quiet_end() {
            return;
        }
        self.next_night_action(None);
    }

    /// The living black players who shoot tonight.
    pub(super) fn shooters(&self) -> SeatSet {
        let c = self.c();
        Seat::all()
            .filter(|s| c.alive(*s) && c.role(*s).team() == Team::Black && c.picked != Some(*s))
            .collect()
    }

    /// Who performs a night action tonight, if anyone can.
    pub(super) fn actor(&self, action: NightAction) -> Option<Seat> {
        let c = self.c();
        let role = match action {
            NightAction::BeautyPick => Role::Beauty,
            NightAction::DonCheck => Role::Don,
            NightAction::SheriffCheck => Role::Sheriff,
            NightAction::Shooting => return self.shooters().first(),
        };
        let seat = c.seat_of(role)?;
        // Shot tonight, he is still at the table until the morning.
        let killed_tonight = c.kill == Some(seat);
        (c.alive(seat)
            && (!killed_tonight || self.p.killed_player_checks)
            && c.picked != Some(seat))
        .then_some(seat)
    }

    pub(super) fn next_night_action(&mut self, after: Option<NightAction>) {
        let order = &self.p.night_order;
        let start = match after {
            None => 0,
            Some(a) => order
                .iter()
                .position(|x| *x == a)
                .map_or(order.len(), |i| i + 1),
        };
        for &action in &order[start..] {
            if self.actor(action).is_none() {
                if action == NightAction::Shooting {
                    // Nobody can shoot (the Beauty picked the last black): a miss.
                    self.emit(Event::NightResult { killed: None });
                }
                continue;
            }
            let secs = match action {
                NightAction::BeautyPick => self.p.beauty_pick_secs,
                NightAction::Shooting => 0,
                NightAction::DonCheck => self.p.don_check_secs,
                NightAction::SheriffCheck => self.p.sheriff_check_secs,
            };
            self.emit(Event::StepStarted {
                step: Step::Night { action, secs },
            });
            return;
        }
        self.night_done();
    }

    pub(super) fn resolve_shooting(&mut self) {
        let c = *self.c();
        let mut target = None;
        let mut agreed = c.shot_twice.is_empty();
        for s in self.shooters().iter() {
            match (c.shot_target[s.index()], target) {
                (None, _) => agreed = false,
                (Some(t), None) => target = Some(t),
                (Some(t), Some(u)) if t != u => agreed = false,
                _ => {}
            }
        }
        // ua §5.6: removed before the shooting began, the shot is a miss;
        // removed once it began, he is "killed and removed".
        let removed_and_shot = |t: &Seat| {
            c.removed_tonight.contains(*t)
                && (self.p.removal.removed_then_shot_is_kill
                    || !c.removed_before_shooting.contains(*t))
        };
        let killed = target
            .filter(|t| agreed && (c.alive(*t) || removed_and_shot(t)) && c.picked != Some(*t));
        self.emit(Event::NightResult { killed });
        // The victim leaves at dawn (rfm §4.5.4, classic §3.5.4, minsk2017
        // §4.5.4, ua §5.4): until then he is at the table, and a foul or a
        // disqualification still reaches him. Only a kill that decides the
        // game ends the night at once: the result is fixed by it.
        if killed.is_some_and(|t| c.alive(t)) {
            if let Some(outcome) = self.outcome() {
                self.dawn();
                self.end(outcome);
                self.next_words();
                return;
            }
        }
        self.next_night_action(Some(NightAction::Shooting));
    }

    /// The night's victim, shot and still at the table until the morning.
    pub(super) fn pending_kill(&self) -> Option<Seat> {
        let c = self.c();
        c.kill
            .filter(|k| c.is_night() && c.night > 0 && c.alive(*k))
    }

    /// The morning: the night's victim leaves the table. A victim removed
    /// during the night after the shot has left already ("killed and
    /// removed"); he has no last words.
    pub(super) fn dawn(&mut self) {
        if let Some(seat) = self.pending_kill() {
            self.emit(Event::Left {
                seat,
                cause: Cause::Shot,
            });
        }
    }

    pub(super) fn entitled(&self, seat: Seat) -> bool {
        let c = self.c();
        let bm = self.p.best_move;
        let denied = match bm.denial {
            BestMoveDenial::Never => false,
            BestMoveDenial::Day1Votes => c.day1_vote_outs >= bm.denied_at,
            BestMoveDenial::VotesAndRemovalsBeforeKill => c.early_outs >= bm.denied_at,
        };
        // Killed and removed the same night, he leaves silently: no best move.
        let removed = c.seats[seat.index()]
            .out
            .is_some_and(|d| d.cause.is_removal());
        bm.at != BestMoveAt::Never
            && !removed
            && c.first_killed == Some(seat)
            && c.best_move.is_none()
            && !denied
    }

    pub(super) fn night_done(&mut self) {
        let c = *self.c();
        if let Some(k) = c.kill {
            if c.night == 1 && self.p.best_move.at == BestMoveAt::Night && self.entitled(k) {
                self.emit(Event::StepStarted {
                    step: Step::BestMove {
                        seat: k,
                        secs: self.p.best_move.secs,
                    },
                });
                return;
            }
        }
        self.start_day();
    }
}
