//! The thin terminal shell around [`crate::screen::Screen`]: raw mode and
//! the alternate screen, crossterm keys in, commands to the referee out,
//! and the wall clock turned into ticks. All behaviour is in the model.

use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEventKind};

use crate::connect::Referee;
use crate::console::{ConsoleReport, Target};
use crate::screen::{Action, Connection, Input, Key, Screen};
use crate::session::JudgeSession;
use crate::ClientError;

fn io(e: std::io::Error) -> ClientError {
    ClientError::Protocol(format!("terminal: {e}"))
}

/// Judges one game on the full screen until it ends and the judge presses
/// Enter, or until Esc.
pub async fn run(
    mut referee: Referee,
    target: Target,
    now: &dyn Fn() -> i64,
) -> Result<ConsoleReport, ClientError> {
    let game_id = match target {
        Target::Game(id) => id,
        Target::Open(header) => referee.open_game(&header, now()).await?.game_id,
    };
    let mut session = JudgeSession::attach(referee, &game_id).await?;
    let mut terminal = ratatui::try_init().map_err(io)?;
    let result = drive(&mut session, &mut terminal, now).await;
    ratatui::restore();
    result
}

async fn drive(
    session: &mut JudgeSession,
    terminal: &mut ratatui::DefaultTerminal,
    now: &dyn Fn() -> i64,
) -> Result<ConsoleReport, ClientError> {
    let mut screen = Screen::new(session.game_id().to_string());
    let mut report = ConsoleReport {
        game_id: session.game_id().to_string(),
        ..ConsoleReport::default()
    };
    if let Some(s) = session.state() {
        screen.update(Input::State(Box::new(s.clone())));
    }
    let mut last = Instant::now();
    let mut reconnects = session.reconnects();
    let mut last_at = i64::MIN + 1;
    loop {
        terminal.draw(|f| screen.render(f)).map_err(io)?;
        let key = if event::poll(Duration::from_millis(200)).map_err(io)? {
            match event::read().map_err(io)? {
                Event::Key(k) if k.kind != KeyEventKind::Release => match k.code {
                    KeyCode::Char(c) => Some(Key::Char(c)),
                    KeyCode::Enter => Some(Key::Enter),
                    KeyCode::Backspace => Some(Key::Backspace),
                    KeyCode::Esc => Some(Key::Esc),
                    _ => None,
                },
                _ => None,
            }
        } else {
            None
        };
        let elapsed = last.elapsed();
        last = Instant::now();
        screen.update(Input::Tick(elapsed.as_millis() as u64));
        let Some(key) = key else { continue };
        match screen.update(Input::Key(key)) {
            Action::None => {}
            Action::Quit => break,
            Action::Send(commands) => {
                let mut accepted = false;
                for cmd in commands {
                    // Strictly increasing stamps: keys typed ahead can be
                    // sent within one millisecond.
                    last_at = now().max(last_at + 1);
                    match session.submit(last_at, &cmd).await? {
                        Ok(_) => {
                            report.accepted += 1;
                            accepted = true;
                        }
                        Err(r) => {
                            report.rejected += 1;
                            screen.update(Input::Rejected(r.refusal));
                            break;
                        }
                    }
                }
                if session.reconnects() != reconnects {
                    reconnects = session.reconnects();
                    screen.update(Input::Connection(Connection::Connected));
                }
                // A refusal changes nothing, so it stays on screen until
                // the next accepted command brings a new state.
                if let Some(s) = session.state().filter(|_| accepted) {
                    screen.update(Input::State(Box::new(s.clone())));
                }
            }
        }
    }
    report.over = screen.over();
    report.winner = screen.winner().unwrap_or_default().to_string();
    Ok(report)
}
