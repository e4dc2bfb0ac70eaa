//! Roles and what each may do with a game.
//!
//! | role        | open a game | judge it | sees          |
//! |-------------|-------------|----------|---------------|
//! | organiser   | in scope    | no       | broadcast view (delayed) |
//! | chief judge | in scope    | in scope | everything, live |
//! | table judge | in scope    | in scope | everything of its games, live |
//! | broadcast   | no          | no       | broadcast view (delayed) |
//! | public      | no          | no       | public view |
//!
//! A table judge asking for a game outside its scope is refused rather than
//! shown the public view, so a judge's screen never mixes audiences.
//!
//! Ruling (chief judge) and organising (organiser or chief judge) are
//! checked against a [`Scope`], the exact games an action touches: one of
//! the grant's patterns must cover all of them, so a grant of table 9
//! never rules on table 1 nor on the whole tournament.

use crate::{AuthError, GamePattern, Scope};
use mafia_record::{GameId, TournamentId};
use mafia_rules::Audience;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Organiser,
    ChiefJudge,
    TableJudge,
    Broadcast,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Organiser => "organiser",
            Role::ChiefJudge => "chief_judge",
            Role::TableJudge => "table_judge",
            Role::Broadcast => "broadcast",
        }
    }
}

/// What one token grants: a role over the games its patterns cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub role: Role,
    pub games: Vec<GamePattern>,
    /// The token entry's `name`: who holds the token. The scoring service
    /// reads a table judge's name as his judge id in the tournament.
    pub name: Option<String>,
    /// The public id of a credential issued at runtime (`None`: a token
    /// file's token, which is never revoked).
    pub credential: Option<String>,
}

impl Grant {
    pub fn covers(&self, id: &GameId) -> bool {
        self.games.iter().any(|p| p.covers(id))
    }
}

/// Who is asking: nobody in particular, or the holder of a known token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Public,
    Known(Arc<Grant>),
}

impl Caller {
    pub fn role(&self) -> Option<Role> {
        match self {
            Caller::Public => None,
            Caller::Known(g) => Some(g.role),
        }
    }

    /// For logs and metrics.
    pub fn name(&self) -> &'static str {
        self.role().map_or("public", Role::name)
    }

    /// The holder's name from the token file, if it gave one.
    pub fn holder(&self) -> Option<&str> {
        match self {
            Caller::Public => None,
            Caller::Known(g) => g.name.as_deref(),
        }
    }

    /// The public id of the caller's credential, if it was issued at
    /// runtime.
    pub fn credential(&self) -> Option<&str> {
        match self {
            Caller::Public => None,
            Caller::Known(g) => g.credential.as_deref(),
        }
    }

    /// Who this is, for an audit trail: the holder's name (or the role's)
    /// and, for an issued credential, its id.
    pub fn who(&self) -> String {
        let name = self.holder().unwrap_or(self.name());
        match self.credential() {
            Some(id) => format!("{name} ({id})"),
            None => name.to_owned(),
        }
    }

    fn in_scope(&self, id: &GameId) -> bool {
        match self {
            Caller::Public => true,
            Caller::Known(g) => g.covers(id),
        }
    }

    fn deny(action: &'static str, id: &GameId) -> AuthError {
        AuthError::Denied {
            action,
            what: format!("game {id}"),
        }
    }

    /// Open (create) this game on the referee.
    pub fn may_open(&self, id: &GameId) -> Result<(), AuthError> {
        match self.role() {
            Some(Role::Organiser | Role::ChiefJudge | Role::TableJudge) if self.in_scope(id) => {
                Ok(())
            }
            _ => Err(Caller::deny("open", id)),
        }
    }

    /// Open this game, given whether its tournament is one the scoring
    /// service holds (`tournament_held`): [`Caller::may_open`], and a table
    /// judge acts only in a tournament his token names, or else in one
    /// that is held. A token that names no tournament (`*.*.*.t1.*`, the
    /// judge of table 1 everywhere) would otherwise open games in any
    /// tournament id anyone makes up, without bound.
    pub fn may_open_in(&self, id: &GameId, tournament_held: bool) -> Result<(), AuthError> {
        self.may_open(id)?;
        match self {
            Caller::Known(g) if g.role == Role::TableJudge && !tournament_held => {
                let named = g.games.iter().any(|p| p.covers(id) && p.names_tournament());
                if named {
                    Ok(())
                } else {
                    Err(Caller::deny(
                        "open (its tournament is not held by the scoring service, and the token does not name it)",
                        id,
                    ))
                }
            }
            _ => Ok(()),
        }
    }

    /// Send commands for this game, or read it in the judge's view.
    pub fn may_judge(&self, id: &GameId) -> Result<(), AuthError> {
        match self.role() {
            Some(Role::ChiefJudge | Role::TableJudge) if self.in_scope(id) => Ok(()),
            _ => Err(Caller::deny("judge", id)),
        }
    }

    /// Rule (approve, decide appeals, swap seats, draw lots) on every game
    /// `scope` touches: a chief judge whose grant covers all of them.
    pub fn may_rule(&self, scope: &Scope) -> Result<(), AuthError> {
        self.may_act(&[Role::ChiefJudge], "rule on", scope)
    }

    /// Manage (players, stages, seating, assigning and opening games) every
    /// game `scope` touches: an organiser or a chief judge whose grant
    /// covers all of them.
    pub fn may_organise(&self, scope: &Scope) -> Result<(), AuthError> {
        self.may_act(&[Role::Organiser, Role::ChiefJudge], "organise", scope)
    }

    /// Whether this caller rules on some game of `t`: a chief judge's
    /// dashboard of `t`, which then lists only the games
    /// [`Caller::may_rule`] allows.
    pub fn rules_in(&self, t: &TournamentId) -> bool {
        matches!(self, Caller::Known(g) if g.role == Role::ChiefJudge && g.games.iter().any(|p| p.touches(t)))
    }

    fn may_act(
        &self,
        roles: &[Role],
        action: &'static str,
        scope: &Scope,
    ) -> Result<(), AuthError> {
        let wanted = scope.pattern();
        match self {
            Caller::Known(g)
                if roles.contains(&g.role) && g.games.iter().any(|p| p.contains(&wanted)) =>
            {
                Ok(())
            }
            _ => Err(AuthError::Denied {
                action,
                what: scope.to_string(),
            }),
        }
    }

    /// The audience this caller watches `id` in.
    pub fn audience_for(&self, id: &GameId) -> Result<Audience, AuthError> {
        if !self.in_scope(id) {
            return Err(Caller::deny("watch", id));
        }
        Ok(self.audience())
    }

    /// The audience of this caller's views of many games (a hall screen,
    /// a list of tables): games outside [`Caller::sees`] are left out.
    pub fn audience(&self) -> Audience {
        match self.role() {
            None => Audience::Public,
            Some(Role::Broadcast | Role::Organiser) => Audience::Broadcast,
            Some(Role::ChiefJudge | Role::TableJudge) => Audience::Judge,
        }
    }

    /// Whether `id` belongs in this caller's views of many games.
    pub fn sees(&self, id: &GameId) -> bool {
        self.in_scope(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> GameId {
        s.parse().unwrap()
    }

    fn caller(role: Role, games: &[&str]) -> Caller {
        Caller::Known(Arc::new(Grant {
            role,
            games: games.iter().map(|g| g.parse().unwrap()).collect(),
            name: None,
            credential: None,
        }))
    }

    #[test]
    fn a_table_judge_judges_only_its_games_and_is_refused_the_others() {
        let j = caller(Role::TableJudge, &["cup.*.*.t3.*"]);
        assert!(j.may_judge(&id("cup.main.r2.t3.g1")).is_ok());
        assert!(j.may_open(&id("cup.main.r2.t3.g1")).is_ok());
        assert!(j.may_judge(&id("cup.main.r2.t4.g1")).is_err());
        assert!(j.audience_for(&id("cup.main.r2.t4.g1")).is_err());
        assert_eq!(
            j.audience_for(&id("cup.main.r2.t3.g1")),
            Ok(Audience::Judge)
        );
    }

    #[test]
    fn a_table_judge_opens_only_in_a_tournament_his_token_names_or_one_that_is_held() {
        let anywhere = caller(Role::TableJudge, &["*.*.*.t1.*"]);
        let game = id("made-up-7.main.r1.t1.g1");
        assert!(anywhere.may_open(&game).is_ok(), "in scope");
        let err = anywhere.may_open_in(&game, false).unwrap_err();
        assert!(err.to_string().contains("not held"), "{err}");
        assert!(anywhere.may_open_in(&game, true).is_ok());
        let named = caller(Role::TableJudge, &["cup.*.*.t3.*"]);
        assert!(named.may_open_in(&id("cup.main.r1.t3.g1"), false).is_ok());
        assert!(named.may_open_in(&id("cup.main.r1.t4.g1"), true).is_err());
        for role in [Role::Organiser, Role::ChiefJudge] {
            assert!(caller(role, &["*"]).may_open_in(&game, false).is_ok());
        }
    }

    #[test]
    fn broadcast_and_organiser_see_the_delayed_view_and_never_judge() {
        for role in [Role::Broadcast, Role::Organiser] {
            let c = caller(role, &["*"]);
            assert_eq!(
                c.audience_for(&id("a.main.r1.t1.g1")),
                Ok(Audience::Broadcast)
            );
            assert!(c.may_judge(&id("a.main.r1.t1.g1")).is_err());
        }
        assert!(caller(Role::Organiser, &["*"])
            .may_open(&id("a.main.r1.t1.g1"))
            .is_ok());
        assert!(caller(Role::Broadcast, &["*"])
            .may_open(&id("a.main.r1.t1.g1"))
            .is_err());
    }

    #[test]
    fn the_public_watches_every_game_in_the_public_view_and_does_nothing_else() {
        let p = Caller::Public;
        assert_eq!(p.audience_for(&id("a.main.r1.t1.g1")), Ok(Audience::Public));
        assert!(p.may_open(&id("a.main.r1.t1.g1")).is_err());
        assert!(p.may_judge(&id("a.main.r1.t1.g1")).is_err());
        assert!(p
            .may_rule(&Scope::Tournament("a".parse().unwrap()))
            .is_err());
    }

    fn whole(t: &str) -> Scope {
        Scope::Tournament(t.parse().unwrap())
    }

    #[test]
    fn only_a_chief_judge_of_the_tournament_rules_on_it() {
        let chief = caller(Role::ChiefJudge, &["cup.*.*.*.*"]);
        assert!(chief.may_rule(&whole("cup")).is_ok());
        assert!(chief.may_rule(&whole("other")).is_err());
        assert!(caller(Role::Organiser, &["*"])
            .may_rule(&whole("cup"))
            .is_err());
        assert!(caller(Role::Organiser, &["*"])
            .may_organise(&whole("cup"))
            .is_ok());
    }

    /// A grant of table 9 is checked against the exact games an action
    /// touches: table 9's game and round table, never table 1 nor the
    /// whole tournament.
    #[test]
    fn a_grant_of_one_table_acts_on_that_table_only() {
        for (role, check) in [
            (
                Role::ChiefJudge,
                Caller::may_rule as fn(&Caller, &Scope) -> Result<(), AuthError>,
            ),
            (Role::Organiser, Caller::may_organise),
        ] {
            let c = caller(role, &["cup.*.*.t9.*"]);
            assert!(check(&c, &Scope::Game(id("cup.main.r1.t9.g1"))).is_ok());
            let table = |t| Scope::Table {
                tournament: "cup".parse().unwrap(),
                stage: "main".parse().unwrap(),
                round: 1,
                table: t,
            };
            assert!(check(&c, &table(9)).is_ok());
            assert!(check(&c, &table(1)).is_err());
            assert!(check(&c, &Scope::Game(id("cup.main.r1.t1.g1"))).is_err());
            let e = check(&c, &whole("cup")).unwrap_err();
            assert!(e.to_string().contains("whole tournament cup"), "{e}");
            assert!(check(&c, &whole("other")).is_err());
        }
        let chief = caller(Role::ChiefJudge, &["cup.*.*.t9.*"]);
        assert!(chief.rules_in(&"cup".parse().unwrap()));
        assert!(!chief.rules_in(&"other".parse().unwrap()));
    }
}
