//! What is drawn over a screen: the help, the room's QR code, and the
//! question before leaving or quitting a match. Each closes with Esc.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use super::{centered, panel, qr, room, ACCENT, DIM};
use crate::play::app::{App, Confirm};
use crate::play::help;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    if app.help {
        render_help(area, buf);
    } else if app.show_qr {
        render_qr(app, area, buf);
    }
    if let Some(what) = app.confirm {
        render_confirm(app, what, area, buf);
    }
}

fn render_help(area: Rect, buf: &mut Buffer) {
    let mut lines: Vec<Line> = help::lines()
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if i < help::rules().len() {
                Line::styled(l, Style::new().bold())
            } else {
                Line::raw(l)
            }
        })
        .collect();
    lines.push(Line::styled(
        "Esc or any key closes",
        Style::new().fg(ACCENT),
    ));
    let width = help::HELP_WIDTH as u16 + 2;
    let box_area = centered(area, width, lines.len() as u16 + 2);
    Clear.render(box_area, buf);
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_type(BorderType::Double)
                .border_style(Style::new().fg(ACCENT))
                .title(" Help "),
        )
        .render(box_area, buf);
}

fn render_qr(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(r) = &app.room else { return };
    let link = room::browser_link(app);
    let Some(code) = qr::rows(&link) else { return };
    let width = code.first().map_or(0, |r| r.chars().count()) as u16;
    let mut lines: Vec<Line> = code
        .into_iter()
        .map(|r| Line::styled(r, qr::STYLE).centered())
        .collect();
    lines.push(Line::styled(link.clone(), Style::new().bold()).centered());
    let box_area = centered(
        area,
        (width.max(link.chars().count() as u16) + 4).min(area.width),
        lines.len() as u16 + 2,
    );
    Clear.render(box_area, buf);
    Paragraph::new(lines)
        .block(
            panel(format!(" Scan to join {} ", r.snapshot.code))
                .title_bottom(Line::styled(" any key closes ", DIM).centered()),
        )
        .render(box_area, buf);
}

fn render_confirm(app: &App, what: Confirm, area: Rect, buf: &mut Buffer) {
    let question = match what {
        Confirm::Leave => "Leave the match? You give up your seat.",
        Confirm::Quit if app.playing_a_match() => "Quit in the middle of the match?",
        Confirm::Quit => "Quit? You host this room: it passes to another player.",
    };
    let lines = vec![
        Line::styled(question, Style::new().bold()),
        Line::raw(""),
        Line::from("y yes · n, Esc or any other key: stay").centered(),
    ];
    let width = (question.chars().count() as u16 + 4).max(42);
    let box_area = centered(area, width, 5);
    Clear.render(box_area, buf);
    Paragraph::new(lines)
        .centered()
        .block(
            Block::bordered()
                .border_type(BorderType::Double)
                .border_style(Style::new().fg(Color::Red))
                .title(" Are you sure? ".bold()),
        )
        .render(box_area, buf);
}
