//! The judge's full-screen console (issue 9), as a pure model: a
//! [`Screen`] changed only by [`Screen::update`] with a key, a reply from
//! the referee, a clock tick or a connection change, and drawn by
//! [`Screen::render`]. Time is an input (ticks), so the speech timer is
//! testable; the terminal shell around it only forwards events and sends
//! the commands the model asks for.

use mafia_record::{GameState, Refusal};
use mafia_rules::view::GameView;
use mafia_rules::{Command, Prompt, RuleSetId};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use crate::console::describe;
use crate::keys::{parse_line, LEGEND};

/// A key the judge pressed, already decoded by the shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Backspace,
    Esc,
}

/// The link to the referee, as the shell sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connected,
    Reconnecting(String),
}

/// What changes the screen.
#[derive(Debug, Clone)]
pub enum Input {
    Key(Key),
    /// The referee's new state after an accepted command (or on attach).
    State(Box<GameState>),
    /// The referee refused a command: shown, nothing else changes.
    Rejected(Refusal),
    /// `ms` milliseconds have passed.
    Tick(u64),
    Connection(Connection),
}

/// What the shell must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    None,
    Send(Vec<Command>),
    Quit,
}

/// The screen's whole state.
#[derive(Debug, Clone)]
pub struct Screen {
    pub game_id: String,
    state: Option<GameState>,
    view: Option<GameView>,
    prompt: Option<Prompt>,
    pub input: String,
    pub refusal: Option<Refusal>,
    /// A line that did not parse (nothing was sent).
    pub note: Option<String>,
    pub connection: Connection,
    /// `u` was typed: the next `y` undoes, anything else cancels.
    pub confirm_undo: bool,
    /// Milliseconds since the current prompt appeared.
    elapsed_ms: u64,
}

impl Screen {
    pub fn new(game_id: impl Into<String>) -> Screen {
        Screen {
            game_id: game_id.into(),
            state: None,
            view: None,
            prompt: None,
            input: String::new(),
            refusal: None,
            note: None,
            connection: Connection::Connected,
            confirm_undo: false,
            elapsed_ms: 0,
        }
    }

    pub fn over(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.over)
    }

    pub fn winner(&self) -> Option<&str> {
        self.state
            .as_ref()
            .filter(|s| s.over)
            .map(GameState::winner_name)
    }

    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// Seconds left on the current step's allowance, when it has one.
    pub fn remaining_secs(&self) -> Option<i64> {
        let secs = self.prompt.as_ref()?.secs? as i64;
        Some(secs - (self.elapsed_ms / 1000) as i64)
    }

    pub fn update(&mut self, input: Input) -> Action {
        match input {
            Input::Tick(ms) => {
                self.elapsed_ms += ms;
                Action::None
            }
            Input::Connection(c) => {
                self.connection = c;
                Action::None
            }
            Input::Rejected(v) => {
                self.refusal = Some(v);
                Action::None
            }
            Input::State(state) => {
                let prompt = state.prompt();
                if prompt != self.prompt {
                    self.elapsed_ms = 0;
                }
                self.prompt = prompt;
                self.view = Some(state.view.clone());
                self.state = Some(*state);
                self.refusal = None;
                Action::None
            }
            Input::Key(key) => self.key(key),
        }
    }

    fn key(&mut self, key: Key) -> Action {
        if self.confirm_undo {
            self.confirm_undo = false;
            return match key {
                Key::Char('y') | Key::Char('Y') => Action::Send(vec![Command::Undo]),
                _ => {
                    self.note = Some("undo cancelled".into());
                    Action::None
                }
            };
        }
        match key {
            Key::Esc => Action::Quit,
            Key::Backspace => {
                self.input.pop();
                Action::None
            }
            Key::Char(c) => {
                self.input.push(c);
                Action::None
            }
            Key::Enter => {
                let line = std::mem::take(&mut self.input);
                self.note = None;
                if self.over() {
                    return Action::Quit;
                }
                let trimmed = line.trim();
                if trimmed == "u" || trimmed == "undo" {
                    self.confirm_undo = true;
                    return Action::None;
                }
                match parse_line(&line, self.prompt.as_ref().map(|p| &p.expect)) {
                    Ok(commands) => Action::Send(commands),
                    Err(e) => {
                        self.note = Some(e.to_string());
                        Action::None
                    }
                }
            }
        }
    }

    pub fn render(&self, frame: &mut Frame) {
        let [seats, next, status, input, legend] = Layout::vertical([
            Constraint::Length(8),
            Constraint::Length(4),
            Constraint::Length(4),
            Constraint::Length(3),
            Constraint::Min(3),
        ])
        .areas(frame.area());
        self.render_seats(frame, seats);

        let mut next_lines = vec![];
        if let Some(w) = self.winner() {
            next_lines.push(Line::styled(
                format!("GAME OVER — winner: {w}"),
                Style::new().add_modifier(Modifier::BOLD),
            ));
        } else if let Some(p) = &self.prompt {
            let timer = match self.remaining_secs() {
                Some(s) if s >= 0 => format!("   ⏱ {}:{:02}", s / 60, s % 60),
                Some(s) => format!("   ⏱ over by {} s", -s),
                None => String::new(),
            };
            next_lines.push(Line::raw(format!("{}{timer}", describe(&p.expect))));
        }
        if let Some(v) = &self.view {
            if !v.nominees.is_empty() {
                let n: Vec<String> = v.nominees.iter().map(|s| s.number().to_string()).collect();
                next_lines.push(Line::raw(format!("nominees: {}", n.join(", "))));
            }
        }
        frame.render_widget(
            Paragraph::new(next_lines).block(Block::new().borders(Borders::ALL).title(" next ")),
            next,
        );

        let conn = match &self.connection {
            Connection::Connected => "connected".to_string(),
            Connection::Reconnecting(why) => format!("reconnecting: {why}"),
        };
        let mut lines = vec![Line::raw(format!("game {} — {conn}", self.game_id))];
        if let Some(v) = &self.refusal {
            lines.push(Line::styled(
                format!(
                    "✗ refused {} ({}): {}",
                    v.code(),
                    RuleSetId::named_clause(v.clause()),
                    v.message()
                ),
                Style::new().fg(Color::Red),
            ));
        }
        frame.render_widget(
            Paragraph::new(lines).block(Block::new().borders(Borders::ALL).title(" status ")),
            status,
        );

        let prompt_text = if self.confirm_undo {
            "undo the last command? y / any other key cancels".to_string()
        } else if let Some(n) = &self.note {
            format!("> {}   ({n})", self.input)
        } else {
            format!("> {}", self.input)
        };
        frame.render_widget(
            Paragraph::new(prompt_text).block(Block::new().borders(Borders::ALL).title(" input ")),
            input,
        );

        let legend_lines: Vec<Line> = LEGEND
            .iter()
            .map(|(k, what)| Line::raw(format!("{k:<18} {what}")))
            .chain(std::iter::once(Line::raw("Esc                quit")))
            .collect();
        frame.render_widget(
            Paragraph::new(legend_lines).block(Block::new().borders(Borders::ALL).title(" keys ")),
            legend,
        );
    }

    fn render_seats(&self, frame: &mut Frame, area: Rect) {
        let rows = Layout::vertical([Constraint::Length(4), Constraint::Length(4)]).split(area);
        for (r, row) in rows.iter().enumerate() {
            let cells = Layout::horizontal([Constraint::Ratio(1, 5); 5]).split(*row);
            for (c, cell) in cells.iter().enumerate() {
                let n = r * 5 + c + 1;
                let seat = self.view.as_ref().and_then(|v| v.seats.get(n - 1));
                let (title, body, style) = match seat {
                    None => (format!(" {n} "), vec![], Style::new()),
                    Some(s) => {
                        let title = if s.nickname.is_empty() {
                            format!(" {n} ")
                        } else {
                            format!(" {n} {} ", s.nickname)
                        };
                        let consequence = match s.fouls {
                            3 => " (loses speech)",
                            f if f >= 4 => " (removed)",
                            _ => "",
                        };
                        let fouls = format!("fouls {}{consequence}", s.fouls);
                        let life = match &s.departure {
                            None if s.alive => "alive".to_string(),
                            None => "out".to_string(),
                            Some(d) => format!("out: {:?}", d.cause),
                        };
                        let style = if s.alive {
                            Style::new()
                        } else {
                            Style::new().fg(Color::DarkGray)
                        };
                        (title, vec![Line::raw(life), Line::raw(fouls)], style)
                    }
                };
                frame.render_widget(
                    Paragraph::new(body)
                        .style(style)
                        .block(Block::new().borders(Borders::ALL).title(title)),
                    *cell,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    fn typed(screen: &mut Screen, text: &str) -> Action {
        for c in text.chars() {
            screen.update(Input::Key(Key::Char(c)));
        }
        screen.update(Input::Key(Key::Enter))
    }

    fn drawn(screen: &Screen) -> String {
        let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
        t.draw(|f| screen.render(f)).unwrap();
        let buf = t.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    #[test]
    fn a_typed_shorthand_line_becomes_its_commands() {
        let mut s = Screen::new("g1");
        let want = parse_line("n 3 5", None).unwrap();
        assert_eq!(typed(&mut s, "n 3 5"), Action::Send(want));
        assert!(s.input.is_empty());
    }

    #[test]
    fn undo_asks_for_confirmation_first() {
        let mut s = Screen::new("g1");
        assert_eq!(typed(&mut s, "u"), Action::None);
        assert!(s.confirm_undo);
        assert!(drawn(&s).contains("undo the last command?"));
        assert_eq!(
            s.update(Input::Key(Key::Char('y'))),
            Action::Send(vec![Command::Undo])
        );
        assert_eq!(typed(&mut s, "u"), Action::None);
        assert_eq!(s.update(Input::Key(Key::Char('n'))), Action::None);
        assert!(!s.confirm_undo);
    }

    #[test]
    fn a_bad_line_is_noted_and_sends_nothing() {
        let mut s = Screen::new("g1");
        assert_eq!(typed(&mut s, "zz 4"), Action::None);
        assert!(s.note.as_deref().unwrap().contains("unknown shorthand"));
    }

    #[test]
    fn a_refusal_shows_code_clause_and_message() {
        let mut s = Screen::new("g1");
        s.update(Input::Rejected(Refusal::Rule(mafia_rules::Violation {
            code: mafia_rules::Code::NotYourTurn,
            clause: "000 §4.4.2".into(),
            source: String::new(),
            message: "seat 4 is not speaking".into(),
            message_ru: String::new(),
        })));
        let screen = drawn(&s);
        assert!(screen.contains("not_your_turn"), "{screen}");
        assert!(
            screen.contains("rfm §4.4.2"),
            "named by its rulebook: {screen}"
        );
        assert!(screen.contains("seat 4 is not speaking"));
    }

    #[test]
    fn the_connection_state_is_shown() {
        let mut s = Screen::new("g1");
        assert!(drawn(&s).contains("connected"));
        s.update(Input::Connection(Connection::Reconnecting(
            "refused".into(),
        )));
        assert!(drawn(&s).contains("reconnecting: refused"));
    }

    #[test]
    fn ten_seats_are_drawn_and_the_legend() {
        let s = Screen::new("g1");
        let screen = drawn(&s);
        for n in 1..=10 {
            assert!(screen.contains(&format!(" {n} ")), "seat {n}\n{screen}");
        }
        assert!(screen.contains("nominate T"));
    }

    #[test]
    fn the_speech_timer_counts_down_with_ticks_and_restarts_on_a_new_prompt() {
        let mut s = Screen::new("g1");
        let game_id: mafia_record::GameId = "t.main.r1.t1.g1".parse().unwrap();
        let header = mafia_record::Header::simulated(mafia_rules::RuleSetId::Rfm, &game_id, 1);
        let (game, _) = mafia_rules::Game::new(header.setup().unwrap(), 1);
        let state = |expect| {
            let mut view = game.view(mafia_rules::Audience::Judge);
            view.prompt = Some(Prompt {
                expect,
                secs: Some(60),
            });
            Box::new(GameState {
                game_id: game_id.clone(),
                seq: 1,
                last_client_seq: 0,
                over: false,
                view,
            })
        };
        s.update(Input::State(state(mafia_rules::Expect::FreeTalk)));
        assert_eq!(s.remaining_secs(), Some(60));
        s.update(Input::Tick(1500));
        s.update(Input::Tick(500));
        assert_eq!(s.remaining_secs(), Some(58));
        assert!(drawn(&s).contains("0:58"));
        s.update(Input::State(state(mafia_rules::Expect::GameOver)));
        assert_eq!(s.remaining_secs(), Some(60));
    }

    #[test]
    fn esc_quits() {
        let mut s = Screen::new("g1");
        assert_eq!(s.update(Input::Key(Key::Esc)), Action::Quit);
    }
}
