//! The lobby: public rooms and the messages feed.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, StatefulWidget, Table, TableState, Widget};

use super::{panel, render_feed, render_input_line, DIM};
use crate::play::app::App;
use crate::play::wording::phase_name;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let [rooms_area, feed_area, input_area] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(7),
        Constraint::Length(1),
    ])
    .areas(area);
    let title = match (app.rooms_page, &app.rooms_next) {
        (1, None) => " Public rooms ".to_owned(),
        (page, None) => format!(" Public rooms · page {page} · r first page "),
        (page, Some(_)) => format!(" Public rooms · page {page} · n more "),
    };
    let block = panel(title.as_str());
    if app.rooms.is_empty() {
        Paragraph::new(vec![
            Line::raw(""),
            Line::raw("No public rooms right now."),
            Line::raw("Press c to create a room, p for a public one, j to join one by its code."),
        ])
        .alignment(Alignment::Center)
        .block(block)
        .render(rooms_area, buf);
    } else {
        let rows = app.rooms.iter().map(|r| {
            Row::new(vec![
                Cell::from(r.code.clone()),
                Cell::from(r.host.clone()),
                Cell::from(format!("{}/{}", r.players, r.max_players)),
                Cell::from(phase_name(r.state)),
                Cell::from(r.settings.rules.as_str()),
                Cell::from(format!("{} rounds", r.settings.rounds)),
            ])
        });
        // Scrolled so that the picked room is in view (a page has up to 50).
        let mut state = TableState::default().with_selected(Some(app.room_cursor));
        let table = Table::new(
            rows,
            [
                Constraint::Length(7),
                Constraint::Length(20),
                Constraint::Length(6),
                Constraint::Length(15),
                Constraint::Length(14),
                Constraint::Min(9),
            ],
        )
        .header(Row::new(["Code", "Host", "Seats", "State", "Rules", "Length"]).style(DIM))
        .row_highlight_style(Style::new().black().on_yellow())
        .block(block);
        StatefulWidget::render(table, rooms_area, buf, &mut state);
    }
    render_feed(app, feed_area, buf, " Messages ");
    render_input_line(app, input_area, buf);
}
