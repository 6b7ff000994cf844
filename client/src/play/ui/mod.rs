//! Drawing: every screen of the live client as a ratatui widget over a
//! read-only [`App`]. Laid out for 80×24 and up; smaller terminals get the
//! same layout clipped, never a panic.
//!
//! - this file: the frame (header, footer), the feed and the input line;
//! - [`lobby`], [`room`] (with [`qr`]), [`game`], [`podium`] (and the
//!   leaderboard): one file per screen;
//! - [`overlays`]: help, the QR code and "are you sure?".

mod game;
mod lobby;
mod overlays;
mod podium;
pub mod qr;
mod room;

#[cfg(test)]
pub(super) use room::{browser_link as room_browser_link, join_line as room_join_line};

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use super::app::{App, Conn, FeedKind, InputMode, Screen};
use super::wording::secs;

const ACCENT: Color = Color::Yellow;
const DIM: Style = Style::new().fg(Color::DarkGray);

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [header, body, footer] = ratatui::layout::Layout::vertical([
            ratatui::layout::Constraint::Length(1),
            ratatui::layout::Constraint::Min(0),
            ratatui::layout::Constraint::Length(1),
        ])
        .areas(area);
        render_header(self, header, buf);
        match self.screen() {
            Screen::Connecting => render_connecting(self, body, buf),
            Screen::Lobby => lobby::render(self, body, buf),
            Screen::Room => room::render(self, body, buf),
            Screen::Game => game::render(self, body, buf),
            Screen::Podium => podium::render(self, body, buf),
            Screen::Leaderboard => podium::render_leaderboard(self, body, buf),
        }
        render_footer(self, footer, buf);
        overlays::render(self, area, buf);
    }
}

fn render_header(app: &App, area: Rect, buf: &mut Buffer) {
    let mut left = vec![Span::styled(
        " krypto ",
        Style::new().black().on_yellow().bold(),
    )];
    left.push(Span::raw(format!(" {} ", app.name)));
    if let Some(r) = &app.room {
        left.push(Span::styled("· room ", DIM));
        left.push(Span::styled(r.snapshot.code.clone(), Style::new().bold()));
        if app.is_host() {
            left.push(Span::styled(" (host)", DIM));
        } else if app.is_spectator() {
            left.push(Span::styled(" (watching)", DIM));
        }
    }
    Paragraph::new(Line::from(left)).render(area, buf);
    let status = match &app.conn {
        Conn::Connecting => Span::styled("connecting… ", Style::new().fg(ACCENT)),
        Conn::Online => Span::styled("● online ", Style::new().fg(Color::Green)),
        Conn::Down { retry_at, .. } => Span::styled(
            format!(
                "○ reconnecting in {} ",
                secs(app.left(*retry_at).as_millis())
            ),
            Style::new().fg(Color::Red),
        ),
        Conn::Refused(_) => Span::styled("refused ", Style::new().fg(Color::Red)),
    };
    Paragraph::new(Line::from(status))
        .alignment(Alignment::Right)
        .render(area, buf);
}

/// The keys that matter now, in one line.
fn footer_hint(app: &App) -> String {
    let hint = match (app.mode, app.screen()) {
        _ if app.confirm.is_some() => "y yes · any other key no",
        _ if app.help => "any key closes the help",
        _ if app.show_qr => "any key closes the QR code",
        (InputMode::Code { .. }, _) => "type the room code · Enter join · Esc cancel",
        (InputMode::Chat, Screen::Game) if app.playing_a_match() => {
            "Enter send · Tab back to the formula · Esc cancel"
        }
        (InputMode::Chat, _) => "Enter send · Esc cancel · /command works too",
        (InputMode::Command, _) => "Enter run · Esc cancel · /help lists commands",
        (InputMode::Formula, _) if app.no_solution_possible() => {
            "Enter submit · Tab chat · x is × · /nosolution · F1 help · F2 board"
        }
        (InputMode::Formula, _) => {
            "Enter submit · Tab chat · Esc clear · x is × · F1 help · F2 board"
        }
        (InputMode::Off, Screen::Connecting) => "q quit",
        (InputMode::Off, Screen::Lobby) if app.rooms_next.is_some() => {
            "↑↓ Enter join · s watch · c/p create · j code · n more · l board · ? · q quit"
        }
        (InputMode::Off, Screen::Lobby) => {
            "↑↓ Enter join · s watch · c/p create · j code · r refresh · l board · ? · q quit"
        }
        (InputMode::Off, Screen::Room | Screen::Podium) if app.ready_asked() => {
            "r ready · c chat · Alt-1…6 react · l leaderboard · ? help · q quit"
        }
        (InputMode::Off, Screen::Room) if app.is_host() => {
            "s start · ↑↓←→ settings · o lock · g QR · c chat · x leave · ? help · q quit"
        }
        (InputMode::Off, Screen::Room) => {
            "c chat · g QR code · x leave · l leaderboard · ? help · q quit"
        }
        (InputMode::Off, Screen::Game) => "c chat · x leave · l leaderboard · ? help · q quit",
        (InputMode::Off, Screen::Podium) => {
            "Enter back to the room · s rematch (host) · c chat · l leaderboard · q quit"
        }
        (InputMode::Off, Screen::Leaderboard) => "m metric · p period · r refresh · Esc back",
    };
    hint.to_owned()
}

fn render_footer(app: &App, area: Rect, buf: &mut Buffer) {
    Paragraph::new(Line::styled(footer_hint(app), DIM)).render(area, buf);
}

fn render_connecting(app: &App, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::raw(""),
        Line::from(vec![
            Span::raw("Server "),
            Span::styled(app.current_server().to_owned(), Style::new().bold()),
        ]),
        Line::from(vec![
            Span::raw("Name   "),
            Span::styled(app.name.clone(), Style::new().bold()),
        ]),
        Line::raw(""),
    ];
    match &app.conn {
        Conn::Down { reason, retry_at } => {
            lines.push(Line::styled(reason.clone(), Style::new().fg(Color::Red)));
            lines.push(Line::raw(format!(
                "Retrying in {} (is the server running? is the address right?)",
                secs(app.left(*retry_at).as_millis())
            )));
        }
        Conn::Refused(text) => lines.push(Line::styled(text.clone(), Style::new().fg(Color::Red))),
        _ => lines.push(Line::raw("Connecting…")),
    }
    let box_area = centered(area, 70, 10);
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .alignment(Alignment::Center)
        .block(panel(" krypto "))
        .render(box_area, buf);
}

/// A panel's frame: a rounded box with a title.
pub(super) fn panel<'a>(title: impl Into<Line<'a>>) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .title(title)
}

/// The feed's newest lines that fit `area`, in a titled box.
fn render_feed(app: &App, area: Rect, buf: &mut Buffer, title: &str) {
    let block = panel(title.to_owned());
    let inner = block.inner(area);
    block.render(area, buf);
    let lines: Vec<Line> = app
        .feed
        .iter()
        .filter(|l| l.kind != FeedKind::State)
        .map(|l| {
            let style = match l.kind {
                FeedKind::Chat => Style::new().fg(Color::Cyan),
                FeedKind::Error | FeedKind::Refusal => Style::new().fg(Color::Red),
                FeedKind::Event | FeedKind::State => Style::new(),
            };
            Line::styled(l.text.clone(), style)
        })
        .collect();
    // Show the newest lines that fit (wrapping can only make them taller,
    // so count rows, not lines).
    let width = usize::from(inner.width.max(1));
    let mut rows = 0usize;
    let mut first = lines.len();
    while first > 0 {
        let need = lines[first - 1].width().max(1).div_ceil(width);
        if rows + need > usize::from(inner.height) {
            break;
        }
        rows += need;
        first -= 1;
    }
    Paragraph::new(lines[first..].to_vec())
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

/// The one-line input of the lobby, room and podium screens.
fn render_input_line(app: &App, area: Rect, buf: &mut Buffer) {
    let label = match app.mode {
        InputMode::Off => {
            render_ready_prompt(app, area, buf);
            return;
        }
        InputMode::Code { spectate: false } => "Join room: ",
        InputMode::Code { spectate: true } => "Watch room: ",
        InputMode::Chat => "Say: ",
        InputMode::Command | InputMode::Formula => "",
    };
    Paragraph::new(Line::from(vec![
        Span::styled(label, Style::new().fg(ACCENT).bold()),
        Span::raw(app.input.clone()),
        Span::styled("█", Style::new().fg(ACCENT)),
    ]))
    .render(area, buf);
}

/// The rematch's "Ready?" while the room waits for us, with its countdown
/// and how many are ready.
fn render_ready_prompt(app: &App, area: Rect, buf: &mut Buffer) {
    let Some((room, check)) = app
        .room
        .as_ref()
        .and_then(|r| r.ready_check.as_ref().map(|c| (r, c)))
    else {
        return;
    };
    let seated = room
        .snapshot
        .players
        .iter()
        .filter(|p| !p.spectator && p.connected)
        .count();
    let left = clock(app.left(check.ends_at));
    let mut count = format!("{}/{seated} ready · starts in {left}", check.ready.len());
    if app.is_host() {
        count.push_str(" · s starts it now");
    }
    let line = if app.ready_asked() {
        Line::from(vec![
            Span::styled("Ready? press r", Style::new().fg(ACCENT).bold()),
            Span::styled(format!(" · {count}"), DIM),
        ])
    } else {
        Line::styled(format!("Rematch: {count}"), DIM)
    };
    Paragraph::new(line).render(area, buf);
}

/// A `width`×`height` rectangle in the middle of `area` (clipped to it).
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A duration as m:ss.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests;
