//! The room between matches: how to join (code, command, browser link and
//! its QR code), the roster, the settings and the chat.

use krypto_core::settings::Field;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};
use tui_big_text::{BigText, PixelSize};

use super::{panel, qr, render_feed, render_input_line, ACCENT, DIM};
use crate::play::app::{App, InputMode, RoomView};
use crate::play::config;
use crate::play::wording::setting_label;

/// Width of the join panel: the longest join line fits.
const JOIN_WIDTH: u16 = 54;
/// The chat beside it is never narrower than this.
const MIN_CHAT: u16 = 20;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(room) = &app.room else { return };
    let [top, body, input_area] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(13),
        Constraint::Length(1),
    ])
    .areas(area);
    let code = qr::rows(&browser_link(app)).unwrap_or_default();
    let qr_width = code.first().map_or(0, |r| r.chars().count()) as u16 + 2;
    let qr_height = code.len() as u16 + 2;
    // The QR code sits beside the join panel when the terminal has room for
    // it; at 80×24 it is one key (g) away.
    let inline = !code.is_empty()
        && top.height >= qr_height
        && top.width >= JOIN_WIDTH + qr_width + MIN_CHAT;
    if inline {
        let [join_area, qr_area, feed_area] = Layout::horizontal([
            Constraint::Length(JOIN_WIDTH),
            Constraint::Length(qr_width),
            Constraint::Min(MIN_CHAT),
        ])
        .areas(top);
        render_join(app, room, false, join_area, buf);
        render_qr(&code, qr_area, buf);
        render_feed(app, feed_area, buf, " Chat ");
    } else {
        let [join_area, feed_area] =
            Layout::horizontal([Constraint::Length(JOIN_WIDTH), Constraint::Min(MIN_CHAT)])
                .areas(top);
        render_join(app, room, true, join_area, buf);
        render_feed(app, feed_area, buf, " Chat ");
    }
    let [roster_area, settings_area] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
    render_roster(app, room, roster_area, buf);
    render_settings(app, room, settings_area, buf);
    render_input_line(app, input_area, buf);
}

/// The HTTP base a friend can reach.
fn base(app: &App) -> String {
    app.friends_base()
}

/// The room's page in a browser: `http://192.168.1.20:7878/r/CODE`.
pub fn browser_link(app: &App) -> String {
    let code = app.room.as_ref().map_or("", |r| r.snapshot.code.as_str());
    format!("{}/r/{code}", base(app).trim_end_matches('/'))
}

/// How a friend joins from a terminal, in one line to read aloud.
pub fn join_line(app: &App) -> String {
    let code = app.room.as_ref().map_or("", |r| r.snapshot.code.as_str());
    let addr = config::play_address(&base(app)).unwrap_or_else(|| app.server.clone());
    format!("krypto play -s {addr} · code {code}")
}

fn render_join(app: &App, room: &RoomView, qr_key: bool, area: Rect, buf: &mut Buffer) {
    let code = &room.snapshot.code;
    let title = if room.snapshot.locked {
        " Room code (locked) "
    } else {
        " Room code "
    };
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .border_style(Style::new().fg(ACCENT))
        .title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let browser = if qr_key {
        format!("{} · g QR code", browser_link(app))
    } else {
        browser_link(app)
    };
    let how = vec![
        Line::styled(join_line(app), DIM),
        Line::styled(browser, DIM),
    ];
    // The big code when there is room for it, else a plain bold one.
    let big_rows = if inner.height >= 6 { 4 } else { 0 };
    let [big, _, how_area] = Layout::vertical([
        Constraint::Length(big_rows),
        Constraint::Min(0),
        Constraint::Length(if big_rows == 0 { 3 } else { 2 }),
    ])
    .areas(inner);
    if big_rows > 0 {
        BigText::builder()
            .pixel_size(PixelSize::HalfHeight)
            .style(Style::new().fg(ACCENT).bold())
            .lines(vec![code.clone().into()])
            .centered()
            .build()
            .render(big, buf);
        Paragraph::new(how)
            .alignment(Alignment::Center)
            .render(how_area, buf);
    } else {
        let mut lines = vec![Line::styled(code.clone(), Style::new().fg(ACCENT).bold())];
        lines.extend(how);
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true })
            .render(how_area, buf);
    }
}

/// The QR code in a box of its own.
pub(super) fn render_qr(code: &[String], area: Rect, buf: &mut Buffer) {
    let block = panel(" Scan to join ");
    let inner = block.inner(area);
    block.render(area, buf);
    let lines: Vec<Line> = code
        .iter()
        .map(|r| Line::styled(r.clone(), qr::STYLE))
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

fn render_roster(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let seated = room
        .snapshot
        .players
        .iter()
        .filter(|p| !p.spectator)
        .count();
    let title = format!(" Players {seated}/{} ", room.snapshot.settings.max_players);
    let lines: Vec<Line> = room
        .snapshot
        .players
        .iter()
        .map(|p| {
            let host = if p.id == room.snapshot.host {
                "★ "
            } else {
                "  "
            };
            let mut spans = vec![Span::styled(host, Style::new().fg(ACCENT))];
            let mut style = Style::new();
            if Some(p.id) == app.me {
                style = style.bold();
            }
            if !p.connected {
                style = style.fg(Color::DarkGray);
            }
            spans.push(Span::styled(p.name.clone(), style));
            if p.bot && App::bot_mark_needed(&p.name) {
                spans.push(Span::styled(" (bot)", DIM));
            }
            if p.spectator {
                spans.push(Span::styled(" (watching)", DIM));
            }
            if !p.connected {
                spans.push(Span::styled(" (away)", DIM));
            }
            if room
                .ready_check
                .as_ref()
                .is_some_and(|c| c.ready.contains(&p.id))
            {
                spans.push(Span::styled(" ✓ ready", Style::new().fg(Color::Green)));
            }
            Line::from(spans)
        })
        .collect();
    Paragraph::new(lines).block(panel(title)).render(area, buf);
}

fn render_settings(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let host = app.is_host();
    let title = if host {
        " Settings (←→ change) "
    } else {
        " Settings "
    };
    let shown = app.editor.shown(&room.snapshot.settings);
    let lines: Vec<Line> = Field::ALL
        .iter()
        .map(|&field| {
            let value = shown.show(field);
            let selected = host && field == app.editor.field() && app.mode == InputMode::Off;
            let value = if selected {
                Span::styled(format!("‹ {value} ›"), Style::new().black().on_yellow())
            } else {
                Span::styled(format!("  {value}"), Style::new().bold())
            };
            Line::from(vec![
                Span::styled(format!("{:<14}", setting_label(field)), DIM),
                value,
            ])
        })
        .collect();
    // More settings than lines: scrolled so the one being changed shows.
    let inside = usize::from(area.height.saturating_sub(2)).max(1);
    let at = Field::ALL
        .iter()
        .position(|&f| f == app.editor.field())
        .unwrap_or(0);
    let top = (at + 1)
        .saturating_sub(inside)
        .min(lines.len().saturating_sub(inside));
    let top = u16::try_from(top).unwrap_or(0);
    Paragraph::new(lines)
        .scroll((top, 0))
        .block(panel(title))
        .render(area, buf);
}
