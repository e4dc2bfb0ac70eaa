//! `mafia tournament credential issue|revoke|list`: credentials issued at
//! runtime by the scoring service (`IssueCredential`, `RevokeCredential`,
//! `ListCredentials`), honoured by every service within seconds. The token
//! is printed once, at issue; the service keeps only its hash.

use anyhow::{Context, Result};
use clap::Subcommand;
use mafia_proto::v1::scoring_client::ScoringClient;
use mafia_proto::v1::{Credential, IssueCredentialRequest, RevokeCredentialRequest, TournamentRef};
use std::io::Write;
use tonic::transport::Channel;

#[derive(Subcommand)]
pub enum CredentialAction {
    /// Issue a credential (the organiser of the whole tournament); prints
    /// its id and, once, its token.
    Issue {
        /// table_judge, chief_judge or organiser.
        #[arg(long)]
        role: String,
        /// Who holds it: a table judge's judge id in the tournament.
        #[arg(long)]
        name: String,
        /// A game-id pattern it covers (repeatable), e.g. `cup.main.*.t3.*`;
        /// none: for a table judge the tables he is seated at, for the
        /// others the whole tournament.
        #[arg(long = "scope")]
        scopes: Vec<String>,
        /// Print the reply as JSON: {"credential":{…},"token":"…"}.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a credential by its id: refused everywhere from then on, its
    /// open streams and sockets closed.
    Revoke { id: String },
    /// The tournament's credentials, revoked ones included (the audit trail).
    List {
        /// As JSON lines, one credential a line.
        #[arg(long)]
        json: bool,
    },
}

fn request<T>(token: &str, msg: T) -> Result<tonic::Request<T>> {
    let mut r = tonic::Request::new(msg);
    if !token.is_empty() {
        r.metadata_mut().insert(
            "authorization",
            format!("Bearer {token}")
                .parse()
                .context("the token is not a valid header value")?,
        );
    }
    Ok(r)
}

fn refused(s: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("refused ({:?}): {}", s.code(), s.message())
}

pub async fn run(
    grpc: &mut ScoringClient<Channel>,
    token: &str,
    tournament: &str,
    action: &CredentialAction,
    out: &mut dyn Write,
) -> Result<()> {
    let tournament = tournament.to_owned();
    match action {
        CredentialAction::Issue {
            role,
            name,
            scopes,
            json,
        } => {
            let req = request(
                token,
                IssueCredentialRequest {
                    tournament,
                    role: role.clone(),
                    name: name.clone(),
                    scopes: scopes.clone(),
                },
            )?;
            let reply = grpc
                .issue_credential(req)
                .await
                .map_err(refused)?
                .into_inner();
            let c = reply.credential.unwrap_or_default();
            if *json {
                let v = serde_json::json!({"credential": as_json(&c), "token": reply.token});
                writeln!(out, "{v}")?;
            } else {
                writeln!(out, "{}", line(&c))?;
                writeln!(out, "token: {}", reply.token)?;
                writeln!(
                    out,
                    "(shown once: the service keeps only its hash; revoke and issue again if it is lost)"
                )?;
            }
        }
        CredentialAction::Revoke { id } => {
            let req = request(
                token,
                RevokeCredentialRequest {
                    tournament,
                    id: id.clone(),
                },
            )?;
            let list = grpc
                .revoke_credential(req)
                .await
                .map_err(refused)?
                .into_inner();
            if let Some(c) = list.credentials.iter().find(|c| &c.id == id) {
                writeln!(out, "{}", line(c))?;
            }
        }
        CredentialAction::List { json } => {
            let req = request(token, TournamentRef { tournament })?;
            let list = grpc
                .list_credentials(req)
                .await
                .map_err(refused)?
                .into_inner();
            for c in &list.credentials {
                if *json {
                    writeln!(out, "{}", as_json(c))?;
                } else {
                    writeln!(out, "{}", line(c))?;
                }
            }
        }
    }
    Ok(())
}

/// One credential as a line: id, role, holder, scopes, issue, revocation.
fn line(c: &Credential) -> String {
    let revoked = if c.revoked_at_ms == 0 {
        "valid".to_owned()
    } else {
        format!("revoked by {} at {}", c.revoked_by, c.revoked_at_ms)
    };
    format!(
        "{}  {}  {}  [{}]  issued by {} at {}  {revoked}",
        c.id,
        c.role,
        c.name,
        c.scopes.join(", "),
        c.issued_by,
        c.issued_at_ms
    )
}

fn as_json(c: &Credential) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "tournament": c.tournament,
        "role": c.role,
        "name": c.name,
        "scopes": c.scopes,
        "issued_by": c.issued_by,
        "issued_at_ms": c.issued_at_ms,
        "revoked_at_ms": c.revoked_at_ms,
        "revoked_by": c.revoked_by,
    })
}
