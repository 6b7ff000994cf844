//! Drawing: every screen of the live client as a ratatui widget over a
//! read-only [`App`]. Laid out for 80×24 and up; smaller terminals get the
//! same layout clipped, never a panic.

use std::time::Duration;

use krypto_core::formula::analyze;
use krypto_core::protocol::{RoomPhase, Standing};
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, BorderType, Borders, Cell, Clear, Gauge, Paragraph, Row, Table, Widget, Wrap,
};
use tui_big_text::{BigText, PixelSize};

use super::app::{
    metric_name, metric_value, period_name, phase_name, secs, setting_value, App, Conn, FeedKind,
    InputMode, RoomView, Screen, COMMAND_HELP, SETTING_FIELDS,
};

const ACCENT: Color = Color::Yellow;
const DIM: Style = Style::new().fg(Color::DarkGray);

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [header, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        render_header(self, header, buf);
        match self.screen() {
            Screen::Connecting => render_connecting(self, body, buf),
            Screen::Lobby => render_lobby(self, body, buf),
            Screen::Room => render_room(self, body, buf),
            Screen::Game => render_game(self, body, buf),
            Screen::Podium => render_podium(self, body, buf),
            Screen::Leaderboard => render_leaderboard(self, body, buf),
        }
        render_footer(self, footer, buf);
        if self.help {
            render_help(area, buf);
        }
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

fn render_footer(app: &App, area: Rect, buf: &mut Buffer) {
    let hints: &str = match (app.mode, app.screen()) {
        (InputMode::Code { .. }, _) => "type the room code · Enter join · Esc cancel",
        (InputMode::Chat, Screen::Game) if app.live_round().is_some() => {
            "Enter send · Tab back to the formula · Esc cancel"
        }
        (InputMode::Chat, _) => "Enter send · Esc cancel · /command works too",
        (InputMode::Command, _) => "Enter run · Esc cancel · /help lists commands",
        (InputMode::Formula, _) => {
            "Enter submit · Tab chat · Esc clear · x is × · /nosolution · F1 help · ^C quit"
        }
        (InputMode::Off, Screen::Connecting) => "q quit",
        (InputMode::Off, Screen::Lobby) => {
            "↑↓ Enter join · s watch · c/p create · j code · r refresh · l board · ? · q quit"
        }
        (InputMode::Off, Screen::Room) if app.is_host() => {
            "s start · ↑↓←→ settings · o lock · c chat · x leave · l board · ? help · q quit"
        }
        (InputMode::Off, Screen::Room) => "c chat · x leave · l leaderboard · ? help · q quit",
        (InputMode::Off, Screen::Game) => "c chat · x leave · l leaderboard · ? help · q quit",
        (InputMode::Off, Screen::Podium) => {
            "Enter back to the room · s rematch (host) · c chat · l leaderboard · q quit"
        }
        (InputMode::Off, Screen::Leaderboard) => "m metric · p period · r refresh · Esc back",
    };
    Paragraph::new(Line::styled(hints, DIM)).render(area, buf);
}

fn render_connecting(app: &App, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::raw(""),
        Line::from(vec![
            Span::raw("Server "),
            Span::styled(app.server.clone(), Style::new().bold()),
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
        .block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(" krypto "),
        )
        .render(box_area, buf);
}

fn render_lobby(app: &App, area: Rect, buf: &mut Buffer) {
    let [rooms_area, feed_area, input_area] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(7),
        Constraint::Length(1),
    ])
    .areas(area);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(" Public rooms ");
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
        let rows = app.rooms.iter().enumerate().map(|(i, r)| {
            let style = if i == app.room_cursor {
                Style::new().black().on_yellow()
            } else {
                Style::new()
            };
            Row::new(vec![
                Cell::from(r.code.clone()),
                Cell::from(r.host.clone()),
                Cell::from(format!("{}/{}", r.players, r.max_players)),
                Cell::from(phase_name(r.state)),
                Cell::from(r.settings.rules.name()),
                Cell::from(format!("{} rounds", r.settings.rounds)),
            ])
            .style(style)
        });
        Table::new(
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
        .block(block)
        .render(rooms_area, buf);
    }
    render_feed(app, feed_area, buf, " Messages ");
    render_input_line(app, input_area, buf);
}

fn render_room(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(room) = &app.room else { return };
    let [top, body, input_area] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(13),
        Constraint::Length(1),
    ])
    .areas(area);
    let [code_area, feed_area] =
        Layout::horizontal([Constraint::Length(44), Constraint::Min(20)]).areas(top);
    render_code(app, room, code_area, buf);
    render_feed(app, feed_area, buf, " Chat ");
    let [roster_area, settings_area] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
    render_roster(app, room, roster_area, buf);
    render_settings(app, room, settings_area, buf);
    render_input_line(app, input_area, buf);
}

fn render_code(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
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
    let [big, _, how] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    BigText::builder()
        .pixel_size(PixelSize::HalfHeight)
        .style(Style::new().fg(ACCENT).bold())
        .lines(vec![room.snapshot.code.clone().into()])
        .centered()
        .build()
        .render(big, buf);
    Paragraph::new(Line::styled(
        format!(
            "join: krypto play -s {}",
            app.server.trim_end_matches("/ws")
        ),
        DIM,
    ))
    .alignment(Alignment::Center)
    .render(how, buf);
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
            let mut spans = vec![Span::styled(
                if p.id == room.snapshot.host {
                    "★ "
                } else {
                    "  "
                },
                Style::new().fg(ACCENT),
            )];
            let mut style = Style::new();
            if Some(p.id) == app.me {
                style = style.bold();
            }
            if !p.connected {
                style = style.fg(Color::DarkGray);
            }
            spans.push(Span::styled(p.name.clone(), style));
            if p.spectator {
                spans.push(Span::styled(" (watching)", DIM));
            }
            if !p.connected {
                spans.push(Span::styled(" (away)", DIM));
            }
            Line::from(spans)
        })
        .collect();
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(title),
        )
        .render(area, buf);
}

fn render_settings(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let host = app.is_host();
    let title = if host {
        " Settings (←→ change) "
    } else {
        " Settings "
    };
    let lines: Vec<Line> = SETTING_FIELDS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let value = setting_value(&room.snapshot.settings, i);
            let selected = host && i == app.settings_cursor && app.mode == InputMode::Off;
            let value = if selected {
                Span::styled(format!("‹ {value} ›"), Style::new().black().on_yellow())
            } else {
                Span::styled(format!("  {value}"), Style::new().bold())
            };
            Line::from(vec![Span::styled(format!("{name:<16}"), DIM), value])
        })
        .collect();
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(title),
        )
        .render(area, buf);
}

fn render_game(app: &App, area: Rect, buf: &mut Buffer) {
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
    render_formula(app, room, input_area, buf);
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
            room.snapshot.settings.rules.name()
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

fn render_formula(app: &App, room: &RoomView, area: Rect, buf: &mut Buffer) {
    let chatting = app.mode == InputMode::Chat || app.mode == InputMode::Command;
    let title = match app.mode {
        InputMode::Chat => " Chat ",
        InputMode::Command => " Command ",
        _ if app.is_spectator() => " Watching ",
        _ => " Your formula ",
    };
    let mut block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(title);
    if let (false, Some(round)) = (chatting, &room.round) {
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
    let text = if active {
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
        Row::new(vec![
            Cell::from(p.name.clone()),
            Cell::from(Line::from(p.score.to_string()).right_aligned()),
        ])
        .style(style)
    });
    Table::new(rows, [Constraint::Min(10), Constraint::Length(5)])
        .block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .title(" Scores "),
        )
        .render(area, buf);
}

fn render_feed(app: &App, area: Rect, buf: &mut Buffer, title: &str) {
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(title.to_owned());
    let inner = block.inner(area);
    block.render(area, buf);
    let lines: Vec<Line> = app
        .feed
        .iter()
        .filter(|l| l.kind != FeedKind::State)
        .map(|l| {
            let style = match l.kind {
                FeedKind::Chat => Style::new().fg(Color::Cyan),
                FeedKind::Error => Style::new().fg(Color::Red),
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

fn render_input_line(app: &App, area: Rect, buf: &mut Buffer) {
    let label = match app.mode {
        InputMode::Off => return,
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

fn render_podium(app: &App, area: Rect, buf: &mut Buffer) {
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
    // Second, first, third from left to right, as on a real podium.
    let order = [1usize, 0, 2];
    let heights = [5u16, 7, 3];
    let cols = Layout::horizontal([Constraint::Length(20); 3])
        .flex(Flex::Center)
        .spacing(1)
        .split(stage);
    for (slot, (&i, &h)) in order.iter().zip(heights.iter()).enumerate() {
        let Some(s) = standings.get(i) else { continue };
        let col = cols[slot];
        let step = Rect {
            y: col.y + col.height.saturating_sub(h),
            height: h.min(col.height),
            ..col
        };
        let name_area = Rect {
            y: step.y.saturating_sub(2),
            height: 2,
            ..col
        };
        Paragraph::new(vec![
            Line::styled(s.name.clone(), Style::new().bold()),
            Line::raw(format!("{} pt", s.score)),
        ])
        .alignment(Alignment::Center)
        .render(name_area, buf);
        let color = match s.rank {
            1 => Color::Yellow,
            2 => Color::Gray,
            _ => Color::Rgb(205, 127, 50),
        };
        Paragraph::new(Line::styled(
            format!("{}", s.rank),
            Style::new().bold().black(),
        ))
        .alignment(Alignment::Center)
        .block(Block::new().borders(Borders::NONE))
        .style(Style::new().bg(color))
        .render(step, buf);
    }
    render_standings(standings, table_area, buf);
    render_input_line(app, input_area, buf);
}

fn render_standings(standings: &[Standing], area: Rect, buf: &mut Buffer) {
    let rows = standings.iter().map(|s| {
        let rating = match (s.rating_before, s.rating_after) {
            (Some(b), Some(a)) => {
                let d = a - b;
                let color = if d >= 0.0 { Color::Green } else { Color::Red };
                Line::from(vec![
                    Span::raw(format!("{b:.1} → {a:.1} ")),
                    Span::styled(format!("({d:+.1})"), Style::new().fg(color)),
                ])
            }
            _ => Line::styled("unrated", DIM),
        };
        Row::new(vec![
            Cell::from(format!("{}.", s.rank)),
            Cell::from(s.name.clone()),
            Cell::from(Line::from(s.score.to_string()).right_aligned()),
            Cell::from(rating),
        ])
    });
    Table::new(
        rows,
        [
            Constraint::Length(4),
            Constraint::Length(21),
            Constraint::Length(6),
            Constraint::Min(10),
        ],
    )
    .header(Row::new(["", "Player", "Score", "  Rating"]).style(DIM))
    .block(
        Block::bordered()
            .border_type(BorderType::Rounded)
            .title(" Final standings "),
    )
    .render(area, buf);
}

fn render_leaderboard(app: &App, area: Rect, buf: &mut Buffer) {
    let title = match &app.board {
        Some(b) => format!(
            " Leaderboard · {} · {} ",
            metric_name(b.metric),
            period_name(b.period)
        ),
        None => " Leaderboard ".to_owned(),
    };
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .title(title);
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
            .header(Row::new(["Rank", "Player", "     Value", "  Matches"]).style(DIM))
            .block(block)
            .render(area, buf);
        }
        _ => {
            Paragraph::new(vec![
                Line::raw(""),
                Line::raw("No rows yet."),
                Line::styled("Players appear after their first rated matches.", DIM),
            ])
            .alignment(Alignment::Center)
            .block(block)
            .render(area, buf);
        }
    }
}

fn render_help(area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::styled(
            "Make the goal card from all five cards, each once,",
            Style::new().bold(),
        ),
        Line::styled(
            "with + - × ÷ and parentheses. First right answer wins.",
            Style::new().bold(),
        ),
        Line::raw(""),
        Line::raw("In a round: type a formula (x for ×, / for ÷) and press Enter."),
        Line::raw("The value shows as you type; used cards are dimmed."),
        Line::raw("A wrong answer locks you out for a few seconds."),
        Line::raw("Tab switches to chat · Esc clears · F1 or ? (empty input) help"),
        Line::raw(""),
    ];
    lines.extend(
        COMMAND_HELP
            .lines()
            .map(|l| Line::styled(l.to_owned(), DIM)),
    );
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "press any key to close",
        Style::new().fg(ACCENT),
    ));
    let box_area = centered(area, 78, 18);
    Clear.render(box_area, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .border_type(BorderType::Double)
                .border_style(Style::new().fg(ACCENT))
                .title(" Help "),
        )
        .render(box_area, buf);
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
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

    use crossterm::event::KeyCode;
    use krypto_core::protocol::{
        LeaderboardRow, Metric, Period, RoomPhase, RoomSummary, ServerMessage, VerdictError,
        VerdictKind,
    };
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::super::app::{App, Event};
    use super::super::net::NetEvent;
    use super::super::testkit::*;

    fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
        terminal
    }

    fn screen(app: &App) -> String {
        draw(app, 80, 24).backend().to_string()
    }

    #[test]
    fn connecting_to_an_unreachable_server() {
        let mut app = App::new("ws://127.0.0.1:7878/ws", "Ann");
        app.handle(Event::Net(NetEvent::Disconnected {
            reason: "cannot reach ws://127.0.0.1:7878/ws: Connection refused (os error 111)".into(),
            retry_in: Duration::from_secs(2),
        }));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn lobby_with_public_rooms() {
        let mut app = lobby();
        let summary = |code: &str, host: &str, players, state| RoomSummary {
            code: code.into(),
            host: host.into(),
            players,
            max_players: 8,
            state,
            settings: Default::default(),
        };
        app.handle(msg(ServerMessage::Rooms {
            rooms: vec![
                summary("QW3RT", "Ben", 3, RoomPhase::Lobby),
                summary("ZX9CV", "Cat", 8, RoomPhase::Playing),
            ],
        }));
        app.handle(key(KeyCode::Down));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn lobby_typing_a_code() {
        let mut app = lobby();
        app.handle(ch('j'));
        typed(&mut app, "kx7");
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn room_before_a_match_as_host() {
        let mut app = room();
        app.handle(key(KeyCode::Down));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn game_while_typing_a_formula() {
        let mut app = game();
        typed(&mut app, "(1+2)x3+4");
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn game_locked_out_after_a_wrong_answer() {
        let mut app = game();
        typed(&mut app, "1+2+3+4-5");
        app.handle(key(KeyCode::Enter));
        app.handle(msg(ServerMessage::Verdict {
            round: 3,
            accepted: false,
            value: Some("5".into()),
            error: Some(VerdictError {
                kind: VerdictKind::WrongValue,
                message: "comes to 5, not 15".into(),
                column: None,
            }),
            locked_out_ms: Some(5000),
        }));
        app.handle(Event::Tick(Duration::from_millis(21_500)));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn game_between_rounds() {
        let mut app = game();
        app.handle(msg(ServerMessage::RoundTimedOut {
            round: 3,
            solution: Some("1 + 2 + 3 + 4 + 5".into()),
            solutions: 12,
        }));
        app.handle(msg(ServerMessage::Chat {
            from: BEN,
            name: "Ben".into(),
            text: "too slow!".into(),
        }));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn podium_with_rating_changes() {
        let mut app = game();
        app.handle(msg(ServerMessage::MatchOver {
            standings: standings(),
        }));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn leaderboard() {
        let mut app = lobby();
        app.handle(ch('l'));
        let row = |rank, name: &str, value, matches| LeaderboardRow {
            rank,
            player: BEN,
            name: name.into(),
            value,
            matches,
        };
        app.handle(msg(ServerMessage::Leaderboard {
            metric: Metric::Rating,
            period: Period::All,
            rows: vec![
                row(1, "Ben", 24.75, 12),
                row(2, "Ann", 22.5, 9),
                row(3, "Bot Ada", 10.0, 30),
            ],
        }));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn help_overlay() {
        let mut app = game();
        app.handle(key(KeyCode::F(1)));
        insta::assert_snapshot!(screen(&app));
    }

    #[test]
    fn cards_used_in_the_formula_are_dimmed() {
        let mut app = game();
        typed(&mut app, "(1+2)x3");
        let terminal = draw(&app, 80, 24);
        let buf = terminal.backend().buffer();
        // The card values sit on row 4; find each digit's cell there.
        let style_of = |digit: &str| {
            (0..80)
                .map(|x| &buf[(x, 4)])
                .filter(|c| c.symbol() == digit)
                .map(|c| c.fg)
                .next_back()
                .unwrap()
        };
        for used in ["1", "2", "3"] {
            assert_eq!(style_of(used), ratatui::style::Color::DarkGray, "{used}");
        }
        for unused in ["4", "5"] {
            assert_ne!(
                style_of(unused),
                ratatui::style::Color::DarkGray,
                "{unused}"
            );
        }
    }

    #[test]
    fn every_screen_draws_at_tiny_and_huge_sizes_without_panicking() {
        let mut apps = vec![App::new("ws://h/ws", "Ann"), lobby(), room(), game()];
        let mut podium = game();
        podium.handle(msg(ServerMessage::MatchOver {
            standings: standings(),
        }));
        apps.push(podium);
        let mut help = game();
        help.handle(key(KeyCode::F(1)));
        apps.push(help);
        for app in &apps {
            for (w, h) in [(1, 1), (10, 5), (40, 12), (79, 23), (200, 60)] {
                draw(app, w, h);
            }
        }
    }
}
