//! `krypto play`: the live client.
//!
//! - [`app`]: the state (pure): events in, actions out; its changes are in
//!   `reducer` (server messages, worded for the feed in `describe`),
//!   `commands` (typed lines), `keys` (the key map) and `settings_editor`.
//! - [`ui`]: drawing the state with ratatui (read-only).
//! - [`net`]: the WebSocket task with reconnect and back-off, moving to
//!   another node when the state follows a `redirect` (and home again when
//!   that node is gone); `untrusted` cleans what it receives before
//!   anything shows it.
//! - [`config`]: the config directory, default server and name, tokens.
//!
//! This file is the run loop: tokio mpsc queues bring terminal keys
//! (crossterm's `EventStream`) or standard-input lines, clock ticks and
//! network events; each event goes through [`app::App::handle`], then the
//! actions are carried out and the screen redrawn (or, in line mode, the new
//! feed lines printed). The terminal UI reads keys and the network from
//! queues of their own and takes a bounded number of network events per
//! turn, so keys always win; SIGTERM, SIGHUP, errors and panics all leave
//! the terminal as it was found.

pub mod app;
#[cfg(test)]
mod app_tests;
mod catch_up;
mod commands;
pub mod config;
mod describe;
#[cfg(test)]
mod devices_tests;
mod help;
mod keys;
pub mod net;
#[cfg(test)]
mod night_tests;
#[cfg(test)]
mod redirect_tests;
mod reducer;
pub mod settings_editor;
#[cfg(test)]
mod testkit;
pub mod ui;
pub mod untrusted;
pub mod wording;

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::StreamExt;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use crate::cli::PlayArgs;
use app::{Action, App, Conn, Event};
use config::ConfigDir;
use net::{Identity, NetEvent, NetHandle};

/// How often the clock ticks (countdowns redraw at this rate).
const TICK: Duration = Duration::from_millis(100);

/// Where to connect and as whom, after flags, config and defaults.
#[derive(Debug, Clone)]
pub struct Target {
    /// The config directory (for saving tokens).
    pub dir: ConfigDir,
    /// The server's normalised WebSocket URL.
    pub server: String,
    /// The name to say hello as.
    pub name: String,
    /// The saved token for that name on that server.
    pub token: Option<String>,
    /// Whether a program (a bot) plays under this name.
    pub bot: bool,
}

/// Resolves the server and name: flag, then config, then the default.
pub fn target(server: Option<&str>, name: Option<&str>) -> anyhow::Result<Target> {
    let dir = ConfigDir::locate()?;
    let settings = dir.settings()?;
    let raw = config::chosen_server(server, settings.server);
    let server = config::normalize_server(&raw)?;
    let name = match name.map(str::to_owned).or(settings.name) {
        Some(n) => config::check_name(&n)?,
        None => config::fallback_name(),
    };
    let token = dir.token(&server, &name)?;
    Ok(Target {
        dir,
        server,
        name,
        token,
        bot: false,
    })
}

impl Target {
    /// Saves the token `welcome` brought for the `name` the server chose,
    /// and remembers server and name as defaults the first time: our own
    /// name, the one we said `hello` as (checked here before connecting),
    /// never the server's, so no server can leave a default name that a
    /// later `krypto play` refuses.
    pub fn save(&self, name: &str, token: &str) -> anyhow::Result<()> {
        self.dir.save_token(&self.server, name, token)?;
        let mut settings = self.dir.settings()?;
        if settings.name.is_none() || settings.server.is_none() {
            settings.name.get_or_insert_with(|| self.name.clone());
            settings.server.get_or_insert_with(|| self.server.clone());
            self.dir.save_settings(&settings)?;
        }
        Ok(())
    }

    /// Starts the connection task, its events going into `tx`.
    pub fn connect<E>(&self, tx: mpsc::Sender<E>) -> NetHandle
    where
        E: From<NetEvent> + Send + 'static,
    {
        net::spawn(
            self.server.clone(),
            Identity {
                name: self.name.clone(),
                token: self.token.clone(),
                bot: self.bot,
            },
            tx,
        )
    }
}

/// Runs `krypto play`; returns the process's success.
pub fn run(args: &PlayArgs) -> anyhow::Result<bool> {
    let target = target(args.server.as_deref(), args.name.as_deref())?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let result = runtime.block_on(async {
        if args.plain || args.json {
            run_lines(target, args.json).await
        } else {
            run_tui(target).await
        }
    });
    // Line mode's reader of standard input may be blocked in a read that
    // never ends (a terminal waits for the next line): dropping the runtime
    // would wait for it, so `/quit` would need one more Enter.
    runtime.shutdown_background();
    result
}

/// Restores the terminal when dropped: on return, on error and on unwind.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        // `restore` leaves raw mode and the alternate screen; the cursor
        // ratatui hid is shown again too, whatever state drawing left.
        ratatui::restore();
        let _ = crossterm::execute!(std::io::stdout(), crossterm::cursor::Show);
    }
}

/// The most network events handled between two looks at the keyboard:
/// a server (hostile, or just busy) that sends faster than the screen can
/// follow never keeps `q` or Ctrl-C waiting behind its backlog.
pub const NET_EVENTS_PER_TURN: usize = 256;

async fn run_tui(target: Target) -> anyhow::Result<bool> {
    // Set up before the terminal is taken, so a failure leaves it alone.
    let mut hangups = Hangups::new().context("listening for SIGTERM and SIGHUP")?;
    // `try_init` also installs a panic hook that restores the terminal
    // before the panic message is printed.
    let guard = TerminalGuard;
    let mut terminal = ratatui::try_init().context("setting up the terminal")?;
    // Keys and ticks in one queue, the network in another: each turn takes
    // every key waiting and at most `NET_EVENTS_PER_TURN` messages, so keys
    // never queue behind a flood.
    let (tx, mut input) = mpsc::channel::<Event>(net::QUEUE);
    let (net_tx, mut network) = mpsc::channel::<NetEvent>(net::QUEUE);
    let net = target.connect(net_tx);
    spawn_ticks(tx.clone(), TICK, Event::Tick);
    let keys = tx.clone();
    tokio::spawn(async move {
        let mut stream = crossterm::event::EventStream::new();
        while let Some(Ok(ev)) = stream.next().await {
            let event = match ev {
                crossterm::event::Event::Key(k) => Event::Key(k),
                crossterm::event::Event::Resize(..) => Event::Resize,
                _ => continue,
            };
            if keys.send(event).await.is_err() {
                break;
            }
        }
    });
    let mut app = App::new(&target.server, &target.name);
    // The connection task ends when the server refuses us for good.
    let mut net_open = true;
    let outcome = 'run: loop {
        terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))
            .context("drawing")?;
        let first = tokio::select! {
            biased;
            () = hangups.recv() => break 'run false,
            event = input.recv() => match event {
                Some(event) => event,
                None => break 'run true,
            },
            event = network.recv(), if net_open => match event {
                Some(event) => Event::Net(event),
                None => {
                    net_open = false;
                    continue;
                }
            },
        };
        let mut batch = vec![first];
        while let Ok(event) = input.try_recv() {
            batch.push(event);
        }
        while batch.len() <= NET_EVENTS_PER_TURN {
            match network.try_recv() {
                Ok(event) => batch.push(Event::Net(event)),
                Err(_) => break,
            }
        }
        for event in batch {
            for action in app.handle(event) {
                if !perform(&target, &net, &mut app, action) {
                    break 'run !matches!(app.conn, Conn::Refused(_));
                }
            }
        }
    };
    drop(terminal);
    drop(guard);
    if let Some(msg) = &app.exit_message {
        eprintln!("{msg}");
    }
    Ok(outcome)
}

/// SIGTERM and SIGHUP (the terminal closed, `kill`, a service manager),
/// which would otherwise end the process with the terminal still raw and on
/// the alternate screen: the loop ends and the guard restores it.
#[cfg(unix)]
struct Hangups {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Hangups {
    fn new() -> std::io::Result<Hangups> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Hangups {
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Resolves when either signal arrives.
    async fn recv(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.hup.recv() => {}
        }
    }
}

/// Elsewhere the console's own close events end the process; Ctrl-C
/// arrives as a key in raw mode.
#[cfg(not(unix))]
struct Hangups;

#[cfg(not(unix))]
impl Hangups {
    fn new() -> std::io::Result<Hangups> {
        Ok(Hangups)
    }

    async fn recv(&mut self) {
        std::future::pending::<()>().await;
    }
}

/// Carries out one action; false means quit.
fn perform(target: &Target, net: &NetHandle, app: &mut App, action: Action) -> bool {
    match action {
        Action::Send(m) => {
            if app.conn == Conn::Online {
                net.send(m);
            } else {
                app.note_error("not connected: try again when the connection is back");
            }
            true
        }
        Action::SaveIdentity { name, token } => {
            if let Err(e) = target.save(&name, &token) {
                app.note_error(format!("could not save the token: {e:#}"));
            }
            true
        }
        Action::Follow(url) => {
            net.follow(url);
            true
        }
        Action::Quit => false,
    }
}

/// Sends `tick(time since now)` every `every` until the receiver is gone;
/// a tick missed while the queue was full is skipped.
pub(crate) fn spawn_ticks<E: Send + 'static>(
    tx: mpsc::Sender<E>,
    every: Duration,
    tick: fn(Duration) -> E,
) {
    let start = Instant::now();
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            interval.tick().await;
            if tx.send(tick(start.elapsed())).await.is_err() {
                break;
            }
        }
    });
}

/// Sends `line(text)` for every line of standard input, then `closed` once
/// it ends, until the receiver is gone.
pub(crate) fn spawn_lines<E: Send + 'static>(
    tx: mpsc::Sender<E>,
    line: fn(String) -> E,
    closed: E,
) {
    tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(text)) = stdin.next_line().await {
            if tx.send(line(text)).await.is_err() {
                return;
            }
        }
        let _ = tx.send(closed).await;
    });
}

/// How long line mode keeps printing after standard input ends, so the
/// replies to the last commands are seen.
const LINGER: Duration = Duration::from_secs(1);

/// A server message as `--json` prints it: the `welcome`'s secret token is
/// kept out of a stream that is piped into logs and shown on screens (it is
/// saved in `tokens.toml`, which is where it belongs).
fn without_secrets(raw: &str) -> std::borrow::Cow<'_, str> {
    let Ok(serde_json::Value::Object(mut message)) = serde_json::from_str(raw) else {
        return raw.into();
    };
    if message.get("type").and_then(|t| t.as_str()) != Some("welcome")
        || message.remove("token").is_none()
    {
        return raw.into();
    }
    serde_json::Value::Object(message).to_string().into()
}

/// `--plain` and `--json`: commands and formulas from standard input,
/// readable lines (or the server's JSON) on standard output.
async fn run_lines(target: Target, json: bool) -> anyhow::Result<bool> {
    let (tx, mut rx) = mpsc::channel::<Event>(net::QUEUE);
    let net = target.connect(tx.clone());
    spawn_ticks(tx.clone(), TICK, Event::Tick);
    spawn_lines(tx.clone(), Event::Line, Event::InputClosed);
    let mut app = App::new(&target.server, &target.name);
    let mut printed = 0usize;
    // Lines typed before the server welcomed us wait for it.
    let mut waiting: Vec<Event> = Vec::new();
    let mut quit_at: Option<Duration> = None;
    let mut out = std::io::stdout();
    let mut ok = true;
    while let Some(event) = rx.recv().await {
        if let Event::Net(NetEvent::Message { raw, .. }) = &event {
            if json {
                writeln!(out, "{}", without_secrets(raw))?;
            }
        }
        let mut events = vec![event];
        let online = app.conn == Conn::Online;
        if !online {
            let (now, later): (Vec<_>, Vec<_>) = events
                .into_iter()
                .partition(|e| !matches!(e, Event::Line(_) | Event::InputClosed));
            waiting.extend(later);
            events = now;
        }
        let mut quit = false;
        while !events.is_empty() {
            for event in std::mem::take(&mut events) {
                if let Event::Tick(now) = event {
                    if quit_at.is_some_and(|t| now >= t) {
                        quit = true;
                    }
                }
                let closed = event == Event::InputClosed;
                for action in app.handle(event) {
                    match action {
                        Action::Quit if closed => {
                            quit_at = Some(app.now + LINGER);
                        }
                        other => {
                            if !perform(&target, &net, &mut app, other) {
                                quit = true;
                            }
                        }
                    }
                }
            }
            if app.conn == Conn::Online && !online && !waiting.is_empty() {
                events = std::mem::take(&mut waiting);
            }
        }
        for line in app.feed_since(printed) {
            if json {
                // Server events went out raw; only our own notes remain.
                if line.kind == app::FeedKind::Error {
                    eprintln!("{}", line.text);
                }
            } else {
                writeln!(out, "{}", line.text)?;
            }
        }
        out.flush()?;
        printed = app.feed_total;
        if let Conn::Refused(_) = app.conn {
            ok = false;
        }
        if quit {
            break;
        }
    }
    Ok(ok)
}
