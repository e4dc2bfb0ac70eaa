//! The demo tournament: named players registered by CSV, each round seated
//! by the seating generator and opened on the referee through the scoring
//! service, its games played by the judge client's simulator, scored by the
//! scoring service as they end, the standings printed as they change. It
//! talks to the services only over gRPC, so it drives them in this process
//! (`make run`) or as separate processes (`mafia-arena --drive`,
//! deploy/run.sh with REDIS_URL) alike.

use anyhow::Context;
use mafia_judge_client::{ClientConfig, Referee};
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{
    CommandRequest, CreateTournamentRequest, OpenRoundRequest, RegisterPlayersCsvRequest,
    SeatRoundRequest, TournamentRef,
};
use mafia_record::{GameId, StageId, TournamentId};
use mafia_rules::{Audience, RuleSet, RuleSetId};
use mafia_tournament::{
    Coefficient, Judge, JudgeId, Scheme, Stage, Standings, TournamentCommand, TournamentSpec,
};
use std::time::Duration;
use tonic::transport::Channel;

pub const STAGE: &str = "main";

const NICKNAMES: &[&str] = &[
    "Ace", "Bishop", "Cobra", "Dove", "Echo", "Falcon", "Ghost", "Hawk", "Iris", "Jade", "Kite",
    "Lynx", "Mistral", "Nomad", "Onyx", "Pike", "Quill", "Raven", "Sable", "Tango", "Umbra",
    "Vega", "Wren", "Xenon", "Yarrow", "Zephyr", "Amber", "Blaze", "Cipher", "Dune", "Ember",
    "Frost", "Gale", "Harbor", "Indigo", "Jester", "Karma", "Lotus", "Marble", "Nova",
];
const CLUBS: &[&str] = &["Red Square", "White Nights", "Black Sea", "Golden Gate"];
const JUDGES: &[&str] = &["Anna", "Boris", "Clara", "Dmitri", "Elena", "Fyodor"];

pub struct Demo {
    pub scoring: String,
    pub referee: String,
    pub tournament: TournamentId,
    pub tables: u32,
    pub rounds: u32,
    pub speed: f64,
    pub seed: u64,
    pub organiser: String,
    pub chief: String,
}

fn nickname(n: usize) -> String {
    let name = NICKNAMES[n % NICKNAMES.len()];
    match n / NICKNAMES.len() {
        0 => name.to_string(),
        k => format!("{name} {}", k + 1),
    }
}

fn authed<T>(token: &str, msg: T) -> anyhow::Result<tonic::Request<T>> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse()?);
    Ok(r)
}

impl Demo {
    async fn command(
        &self,
        c: &mut ScoringClient<Channel>,
        cmd: &TournamentCommand,
    ) -> anyhow::Result<()> {
        let req = CommandRequest {
            tournament: self.tournament.to_string(),
            command_json: serde_json::to_string(cmd)?,
        };
        c.command(authed(&self.organiser, req)?).await?;
        Ok(())
    }

    /// The demo's tables play `speed` times faster than people, so its
    /// public night is as much shorter: at rfm's 50 s the public's clock
    /// would fall minutes behind the tables.
    fn rule_overrides(&self) -> serde_json::Value {
        let public_night = RuleSet::preset(RuleSetId::Rfm).params.public_night_secs;
        let secs = (f64::from(public_night) / self.speed.max(1.0))
            .ceil()
            .max(1.0) as u16;
        serde_json::json!({ "public_night_secs": secs })
    }

    async fn create(&self, c: &mut ScoringClient<Channel>) -> anyhow::Result<()> {
        let spec = TournamentSpec {
            id: self.tournament.clone(),
            name: "Arena Demo Cup".into(),
            rules: RuleSetId::Rfm,
            rule_overrides: self.rule_overrides(),
            scheme: Scheme::rfm(),
        };
        let req = CreateTournamentRequest {
            spec_json: serde_json::to_string(&spec)?,
        };
        c.create_tournament(authed(&self.organiser, req)?).await?;
        for j in 0..self.tables as usize {
            let judge = Judge {
                id: JudgeId::new(format!("j{}", j + 1)),
                name: match j / JUDGES.len() {
                    0 => JUDGES[j].to_string(),
                    k => format!("{} {}", JUDGES[j % JUDGES.len()], k + 1),
                },
            };
            self.command(c, &TournamentCommand::AddJudge { judge })
                .await?;
        }
        let stage = Stage {
            id: StageId::new(STAGE)?,
            name: "Qualifying".into(),
            rounds: self.rounds,
            tables: self.tables,
            coefficient: Coefficient::ONE,
        };
        self.command(c, &TournamentCommand::AddStage { stage })
            .await?;
        let mut csv = String::from("id,nickname,club\n");
        for n in 0..self.tables as usize * 10 {
            csv.push_str(&format!(
                "p{:03},{},{}\n",
                n + 1,
                nickname(n),
                CLUBS[n % CLUBS.len()]
            ));
        }
        let req = RegisterPlayersCsvRequest {
            tournament: self.tournament.to_string(),
            csv,
            csv_bytes: Vec::new(),
        };
        c.register_players_csv(authed(&self.organiser, req)?)
            .await?;
        Ok(())
    }

    async fn seat_and_open(
        &self,
        c: &mut ScoringClient<Channel>,
        round: u32,
    ) -> anyhow::Result<Vec<GameId>> {
        let seat = SeatRoundRequest {
            tournament: self.tournament.to_string(),
            stage: STAGE.into(),
            round,
            seed: self.seed,
            policies_json: String::new(),
        };
        c.seat_round(authed(&self.organiser, seat)?).await?;
        let open = OpenRoundRequest {
            tournament: self.tournament.to_string(),
            stage: STAGE.into(),
            round,
            // Every game's seed is the referee's to draw.
            deal_seed: 0,
        };
        let opened = c.open_round(authed(&self.organiser, open)?).await?;
        Ok(opened
            .into_inner()
            .game_ids
            .iter()
            .map(|g| g.parse())
            .collect::<Result<_, _>>()?)
    }

    fn tref(&self) -> TournamentRef {
        TournamentRef {
            tournament: self.tournament.to_string(),
        }
    }

    /// The top of the standings, one line.
    async fn print_standings(&self, c: &mut ScoringClient<Channel>, after: &GameId) {
        let Ok(reply) = c.get_standings(self.tref()).await else {
            return;
        };
        let Ok(s) = serde_json::from_str::<Standings>(&reply.get_ref().standings_json) else {
            return;
        };
        let top: Vec<String> = s
            .rows
            .iter()
            .take(5)
            .map(|r| format!("{}. {} {}", r.rank, r.nickname, r.points.total))
            .collect();
        println!("  {after} scored ({} games): {}", s.games, top.join(" · "));
    }

    /// Waits (briefly) until the scoring service has scored `n` games.
    async fn scored(&self, c: &mut ScoringClient<Channel>, n: u32) {
        for _ in 0..100 {
            if let Ok(t) = c.get_tournament(self.tref()).await {
                if t.get_ref().scored_games >= n {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn run(self) -> anyhow::Result<()> {
        let mut c = ScoringClient::connect(self.scoring.clone())
            .await
            .context("connecting to the scoring service")?;
        self.create(&mut c).await?;
        let referee = Referee::new(ClientConfig::new(
            vec![self.referee.clone()],
            self.chief.clone(),
        ))?;
        let mut ended = 0;
        for round in 1..=self.rounds {
            let games = self.seat_and_open(&mut c, round).await?;
            println!("  round {round} seated and opened: {} tables", games.len());
            let mut set = tokio::task::JoinSet::new();
            for game in games {
                let header = referee
                    .clone()
                    .game(&game, Audience::Judge)
                    .await
                    .with_context(|| format!("reading the opened game {game}"))?
                    .header;
                let referee = referee.clone();
                let seed = self.seed ^ (u64::from(round) << 16) ^ u64::from(game.table);
                let speed = Some(self.speed);
                set.spawn(async move {
                    let r = mafia_judge_client::simulate_game(referee, &header, seed, speed).await;
                    (game, r)
                });
            }
            while let Some(done) = set.join_next().await {
                let (game, r) = done?;
                r.with_context(|| format!("playing {game}"))?;
                ended += 1;
                self.scored(&mut c, ended).await;
                self.print_standings(&mut c, &game).await;
            }
        }
        println!("  the tournament is over; the services keep running (Ctrl-C stops them)");
        Ok(())
    }
}
