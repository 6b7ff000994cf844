//! The game screen: the round's status and clock, the cards (dimmed as the
//! formula uses them), the formula with its live value, the last verdict,
//! the scores and the events.

use std::time::Duration;

use krypto_core::formula::analyze;
use krypto_core::protocol::RoomPhase;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Cell, Gauge, Paragraph, Row, Table, Widget};

use super::{clock, panel, render_feed, ACCENT, DIM};
use crate::play::app::{App, InputMode, RoomView, SITTING_OUT};
use crate::play::wording::secs;

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(room) = &app.room else { return };
    let [status_area, cards_area, input_area, verdict_area, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(5),
        Constraint::Length(3),
        Constraint::Length(1),
        Constraint::Min(3),
    ])
    .areas(area);
    render_round_status(app, room, status_area, buf);
    render_cards(app, room, cards_area, buf);
    render_formula(app, input_area, buf);
    render_verdict(app, room, verdict_area, buf);
    let [scores_area, feed_area] =
        Layout::horizontal([Constraint::Length(28), Constraint::Min(20)]).areas(bottom);
    render_scores(app, room, scores_area, buf);
    render_feed(app, feed_area, buf, " Events ");
}

fn render_round_status(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let [text_area, gauge_area] =
        Layout::horizontal([Constraint::Min(30), Constraint::Length(30)]).areas(area);
    let number = room.round.as_ref().map_or(0, |r| r.number);
    let text = match room.snapshot.state {
        RoomPhase::Countdown => format!(
            " Get ready: the first hand in {}",
            secs(room.next_at.map_or(0, |t| app.left(t).as_millis()))
        ),
        RoomPhase::BetweenRounds => match room.next_at {
            Some(t) => format!(
                " Round {number}/{} over · next hand in {}",
                room.snapshot.rounds_total,
                secs(app.left(t).as_millis())
            ),
            None => format!(
                " Round {number}/{} over · the next hand comes shortly",
                room.snapshot.rounds_total
            ),
        },
        _ => format!(
            " Round {number}/{} · rules {}",
            room.snapshot.rounds_total,
            room.snapshot.settings.rules.as_str()
        ),
    };
    Paragraph::new(Line::styled(text, Style::new().bold())).render(text_area, buf);
    if let Some(r) = app.live_round() {
        let left = app.left(r.ends_at);
        let ratio = if r.duration_ms == 0 {
            0.0
        } else {
            (left.as_millis() as f64 / r.duration_ms as f64).clamp(0.0, 1.0)
        };
        let color = if left < Duration::from_secs(10) {
            Color::Red
        } else {
            Color::Green
        };
        Gauge::default()
            .gauge_style(Style::new().fg(color).bg(Color::Black))
            .ratio(ratio)
            .label(format!("time {}", clock(left)))
            .render(gauge_area, buf);
    }
}

fn render_cards(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let Some(round) = &room.round else {
        Paragraph::new("\nThe cards will be dealt in a moment…")
            .alignment(Alignment::Center)
            .render(area, buf);
        return;
    };
    let analysis = analyze(&app.input, &round.cards, app.rules());
    let mut constraints = vec![Constraint::Length(10), Constraint::Length(4)];
    constraints.extend(round.cards.iter().map(|_| Constraint::Length(9)));
    let areas = Layout::horizontal(constraints)
        .flex(Flex::Center)
        .split(area);
    card(
        &round.objective.to_string(),
        "goal",
        Style::new().fg(ACCENT).bold(),
        BorderType::Double,
        areas[0],
        buf,
    );
    Paragraph::new(vec![Line::raw(""), Line::raw(""), Line::raw(" =").bold()])
        .render(areas[1], buf);
    for (i, value) in round.cards.iter().enumerate() {
        let used = analysis.used.get(i).copied().unwrap_or(false);
        let style = if used {
            Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM)
        } else {
            Style::new().bold()
        };
        card(
            &value.to_string(),
            "",
            style,
            BorderType::Rounded,
            areas[i + 2],
            buf,
        );
    }
}

/// One card: a box with its value in the middle.
fn card(value: &str, label: &str, style: Style, border: BorderType, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .border_type(border)
        .border_style(style)
        .title_bottom(Line::from(label).centered());
    Paragraph::new(vec![Line::raw(""), Line::styled(value.to_owned(), style)])
        .alignment(Alignment::Center)
        .block(block)
        .render(area, buf);
}

fn render_formula(app: &App, area: Rect, buf: &mut Buffer) {
    let chatting = app.mode == InputMode::Chat || app.mode == InputMode::Command;
    let title = match app.mode {
        InputMode::Chat => " Chat ",
        InputMode::Command => " Command ",
        _ if app.is_spectator() => " Watching ",
        _ => " Your formula ",
    };
    let mut block = panel(title);
    // The live value only while a hand is being raced: between rounds the
    // last hand's cards would judge a formula meant for the next one.
    if let (false, Some(round)) = (chatting, app.live_round()) {
        if !app.input.is_empty() {
            let a = analyze(&app.input, &round.cards, app.rules());
            let preview = match (&a.value, &a.error) {
                (Some(v), None) if *v == krypto_core::Rational::from_int(round.objective) => {
                    Span::styled(format!(" = {v} ✓ "), Style::new().fg(Color::Green).bold())
                }
                (Some(v), None) => Span::styled(format!(" = {v} "), Style::new().bold()),
                (Some(v), Some(e)) => Span::styled(format!(" = {v} · {} ", short(&e.message)), DIM),
                (None, Some(e)) => Span::styled(format!(" {} ", short(&e.message)), DIM),
                (None, None) => Span::raw(""),
            };
            block = block.title(Line::from(preview).right_aligned());
        }
    }
    let active = app.mode != InputMode::Off;
    let waiting = app.mode == InputMode::Formula && app.live_round().is_none();
    let text = if app.sitting_out() && app.input.is_empty() && !chatting {
        Line::from(vec![
            Span::styled("> ", Style::new().fg(ACCENT)),
            Span::styled("█", Style::new().fg(ACCENT)),
            Span::styled(format!(" {SITTING_OUT}"), DIM),
        ])
    } else if waiting && app.input.is_empty() {
        // Between rounds the field still takes keys: they are carried into
        // the next round.
        Line::from(vec![
            Span::styled("> ", Style::new().fg(ACCENT)),
            Span::styled("█", Style::new().fg(ACCENT)),
            Span::styled(" the next hand is coming…", DIM),
        ])
    } else if active {
        Line::from(vec![
            Span::styled("> ", Style::new().fg(ACCENT)),
            Span::raw(app.input.clone()),
            Span::styled("█", Style::new().fg(ACCENT)),
        ])
    } else if app.is_spectator() {
        Line::styled("You are watching this match.", DIM)
    } else {
        Line::styled("Wait for the next hand…", DIM)
    };
    Paragraph::new(text).block(block).render(area, buf);
}

fn short(message: &str) -> String {
    let mut s: String = message.chars().take(40).collect();
    if message.chars().count() > 40 {
        s.push('…');
    }
    s
}

fn render_verdict(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let round = room.round.as_ref();
    let locked = round
        .and_then(|r| r.locked_until)
        .filter(|t| *t > app.now && app.live_round().is_some());
    let line = if let Some(result) = round.and_then(|r| r.result.as_ref()) {
        Line::styled(format!(" {result}"), Style::new().fg(ACCENT).bold())
    } else if let Some(until) = locked {
        // The verdict without its "locked out for" tail: the live countdown
        // replaces it.
        let why = room.verdict.as_ref().map_or(String::new(), |v| {
            v.text
                .split("; locked out")
                .next()
                .unwrap_or_default()
                .to_owned()
        });
        Line::from(vec![
            Span::styled(
                format!(" LOCKED OUT {} ", secs(app.left(until).as_millis())),
                Style::new().white().on_red().bold(),
            ),
            Span::styled(format!(" {why}"), Style::new().fg(Color::Red)),
        ])
    } else if let Some(v) = &room.verdict {
        let color = if v.accepted { Color::Green } else { Color::Red };
        Line::styled(format!(" {}", v.text), Style::new().fg(color))
    } else {
        Line::raw("")
    };
    Paragraph::new(line).render(area, buf);
}

fn render_scores(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let mut players: Vec<_> = room
        .snapshot
        .players
        .iter()
        .filter(|p| !p.spectator)
        .collect();
    players.sort_by(|a, b| b.score.cmp(&a.score).then(a.name.cmp(&b.name)));
    let rows = players.into_iter().map(|p| {
        let mut style = Style::new();
        if Some(p.id) == app.me {
            style = style.bold().fg(ACCENT);
        }
        if !p.connected {
            style = style.fg(Color::DarkGray);
        }
        let mut name = vec![Span::raw(p.name.clone())];
        if p.bot && App::bot_mark_needed(&p.name) {
            name.push(Span::styled(" bot", DIM));
        }
        Row::new(vec![
            Cell::from(Line::from(name)),
            Cell::from(Line::from(p.score.to_string()).right_aligned()),
        ])
        .style(style)
    });
    Table::new(rows, [Constraint::Min(10), Constraint::Length(5)])
        .block(panel(" Scores "))
        .render(area, buf);
}
