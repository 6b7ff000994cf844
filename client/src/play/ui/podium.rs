//! The end of a match (the podium and the final standings) and the
//! leaderboard.

use krypto_core::protocol::{Metric, Standing};
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget};

use super::{panel, render_input_line, ACCENT, DIM};
use crate::play::app::App;
use crate::play::wording::{
    metric_value, on_podium, rating_change, tiebreak_time, PROVISIONAL_NOTE, PROVISIONAL_WHY,
    UNRATED_WHY,
};

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(room) = &app.room else { return };
    let Some(standings) = &room.podium else {
        return;
    };
    let [stage, table_area, input_area] = Layout::vertical([
        Constraint::Length(10),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);
    // Only real places stand on it: a player without a point gets no step.
    let placed: Vec<Standing> = standings.iter().filter(|s| on_podium(s)).cloned().collect();
    let steps = steps(&placed);
    if steps.is_empty() {
        let line = Line::styled("Nobody scored a point: no podium this time.", DIM);
        let middle = Rect {
            y: stage.y + stage.height / 2,
            height: 1.min(stage.height),
            ..stage
        };
        Paragraph::new(line)
            .alignment(Alignment::Center)
            .render(middle, buf);
    }
    // Second, first, third from left to right, as on a real podium.
    let order = [1usize, 0, 2];
    let heights = [6u16, 8, 4];
    let cols = Layout::horizontal([Constraint::Length(22); 3])
        .flex(Flex::Center)
        .spacing(1)
        .split(stage);
    for (slot, (&i, &h)) in order.iter().zip(heights.iter()).enumerate() {
        let Some(step) = steps.get(i) else { continue };
        let col = cols[slot];
        let block_area = Rect {
            y: col.y + col.height.saturating_sub(h),
            height: h.min(col.height),
            ..col
        };
        let score_area = Rect {
            y: block_area.y.saturating_sub(1),
            height: 1,
            ..col
        };
        let score = step.first().map_or(0, |s| s.score);
        let points = if score.abs() == 1 { "point" } else { "points" };
        // Equal points ranked apart: the time that decided it.
        let time = step
            .first()
            .and_then(|s| tiebreak_time(standings, s))
            .map_or(String::new(), |t| format!(" · {t}"));
        Paragraph::new(Line::raw(format!("{score} {points}{time}")))
            .alignment(Alignment::Center)
            .render(score_area, buf);
        let color = match i {
            0 => Color::Yellow,
            1 => Color::Gray,
            _ => Color::Rgb(205, 127, 50),
        };
        // Everyone tied on this step stands on it; when they outnumber its
        // lines, the last says how many more (the table below names all).
        let room_for = usize::from(h.saturating_sub(1)).max(1);
        let mut lines = vec![Line::styled(
            format!("{}", step.first().map_or(0, |s| s.rank)),
            Style::new().bold(),
        )];
        let shown = if step.len() > room_for {
            room_for - 1
        } else {
            step.len()
        };
        for s in &step[..shown] {
            lines.push(Line::raw(name_with_mark(app, s)));
        }
        if shown < step.len() {
            lines.push(Line::raw(format!("+{} more", step.len() - shown)));
        }
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .style(Style::new().bg(color).black())
            .render(block_area, buf);
    }
    render_standings(app, standings, room.recap.as_deref(), table_area, buf);
    render_input_line(app, input_area, buf);
}

/// The standings grouped by rank: who stands on each step (ties share one).
fn steps(standings: &[Standing]) -> Vec<Vec<&Standing>> {
    let mut steps: Vec<Vec<&Standing>> = Vec::new();
    for s in standings {
        match steps.last_mut() {
            Some(step) if step.first().is_some_and(|f| f.rank == s.rank) => step.push(s),
            _ => steps.push(vec![s]),
        }
    }
    steps
}

/// A player's name, marked when the roster says they are a bot.
fn name_with_mark(app: &App, s: &Standing) -> String {
    if app.is_bot(s.player) && App::bot_mark_needed(&s.name) {
        format!("{} (bot)", s.name)
    } else {
        s.name.clone()
    }
}

fn render_standings(
    app: &App,
    standings: &[Standing],
    recap: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
) {
    // A column for the tiebreak only when it decided something.
    let timed = standings
        .iter()
        .any(|s| tiebreak_time(standings, s).is_some());
    let rows = standings.iter().map(|s| {
        let rating = match (s.rating_before, s.rating_after) {
            (Some(b), Some(a)) => {
                let color = if a >= b { Color::Green } else { Color::Red };
                Line::styled(
                    rating_change(b, a, s.rating_provisional),
                    Style::new().fg(color),
                )
            }
            _ => Line::styled("unrated", DIM),
        };
        let mut cells = vec![
            Cell::from(format!("{}.", s.rank)),
            Cell::from(name_with_mark(app, s)),
            Cell::from(Line::from(s.score.to_string()).right_aligned()),
        ];
        if timed {
            let time = tiebreak_time(standings, s).unwrap_or_default();
            cells.push(Cell::from(Line::from(time).right_aligned()));
        }
        cells.push(Cell::from(rating));
        Row::new(cells)
    });
    let mut widths = vec![
        Constraint::Length(4),
        Constraint::Length(26),
        Constraint::Length(5),
    ];
    let mut header = vec![
        Cell::from(""),
        Cell::from("Player"),
        Cell::from(Line::from("Score").right_aligned()),
    ];
    if timed {
        widths.push(Constraint::Length(8));
        header.push(Cell::from(Line::from("Time").right_aligned()));
    }
    widths.push(Constraint::Min(10));
    header.push(Cell::from("Rating"));
    Table::new(rows, widths)
        // Room between the score and the rating so the numbers never touch.
        .column_spacing(3)
        .header(Row::new(header).style(DIM))
        .block(match recap {
            // Where to read the match again, round by round.
            Some(id) => {
                panel(" Final standings ").title_bottom(format!(" recap: krypto match {id} "))
            }
            None => panel(" Final standings "),
        })
        .render(area, buf);
    // Say what "unrated" and a provisional "?" mean where they show, on
    // the panel's last lines.
    let notes = [
        standings
            .iter()
            .any(|s| s.rating_after.is_some() && s.rating_provisional)
            .then_some(PROVISIONAL_WHY),
        standings
            .iter()
            .any(|s| s.rating_after.is_none())
            .then_some(UNRATED_WHY),
    ];
    for (below, why) in (0u16..).zip(notes.into_iter().flatten().rev()) {
        if area.height <= 3 + below + usize_to_u16(standings.len()) {
            break;
        }
        last_line_note(area, below, why, buf);
    }
}

fn usize_to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A dim note on a panel's last line inside its border (`up` lines above it).
fn last_line_note(area: Rect, up: u16, text: &str, buf: &mut Buffer) {
    let line = Rect {
        x: area.x + 2,
        y: area.y + area.height.saturating_sub(2 + up),
        width: area.width.saturating_sub(4),
        height: 1,
    };
    Paragraph::new(Line::styled(text, DIM)).render(line, buf);
}

pub(super) fn render_leaderboard(app: &App, area: Rect, buf: &mut Buffer) {
    let title = match &app.board {
        Some(b) => format!(" Leaderboard · {} · {} ", b.metric, b.period),
        None => " Leaderboard ".to_owned(),
    };
    let block = panel(title);
    let rows = app.board.as_ref().map(|b| &b.rows);
    match (rows, &app.board) {
        (Some(rows), Some(b)) if !rows.is_empty() => {
            let table_rows = rows.iter().map(|r| {
                let style = if r.name.eq_ignore_ascii_case(&app.name) {
                    Style::new().fg(ACCENT).bold()
                } else {
                    Style::new()
                };
                Row::new(vec![
                    Cell::from(format!("{}.", r.rank)),
                    Cell::from(r.name.clone()),
                    Cell::from(Line::from(metric_value(b.metric, r.value)).right_aligned()),
                    Cell::from(Line::from(r.matches.to_string()).right_aligned()),
                ])
                .style(style)
            });
            Table::new(
                table_rows,
                [
                    Constraint::Length(5),
                    Constraint::Length(22),
                    Constraint::Length(10),
                    Constraint::Length(9),
                ],
            )
            .column_spacing(2)
            .header(Row::new(["Rank", "Player", "     Value", "  Matches"]).style(DIM))
            .block(block)
            .render(area, buf);
            // Say who is not on the rating board, on the panel's last line.
            if b.metric == Metric::Rating && area.height > usize_to_u16(rows.len()) + 4 {
                last_line_note(area, 0, PROVISIONAL_NOTE, buf);
            }
        }
        _ => {
            Paragraph::new(vec![
                Line::raw(""),
                Line::raw("No rows yet."),
                Line::styled(
                    "Boards count rated matches: two or more people who answered",
                    DIM,
                ),
                Line::styled("(a match against bots only is not rated).", DIM),
            ])
            .alignment(Alignment::Center)
            .block(block)
            .render(area, buf);
        }
    }
}
