//! A real server (in its own thread and runtime, on 127.0.0.1) with a
//! temporary SQLite file and scripted hands, and real `krypto` processes
//! driven through their standard input and output or, for the full-screen
//! interface, a pseudo-terminal ([`terminal`]).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod fake;
pub mod hand_line;
pub mod terminal;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use krypto_core::cards::Deal;
use krypto_core::room::ScriptedDealer;
use krypto_server::config::DealerFactory;
use krypto_server::Config;

/// A safety net so a broken test fails instead of hanging; no assertion
/// depends on it.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Room clocks run this much faster than the wall clock: the 3 s countdown
/// passes in 0.3 s, a 600 s round lasts a minute.
pub const TIME_SCALE: u32 = 10;

pub struct TestServer {
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on `addr` (port 0 for any) with the database `db`,
    /// dealing 1 2 3 4 5 → 15 every round.
    pub fn start(addr: &str, db: &Path) -> TestServer {
        Self::with_config(
            addr,
            Config {
                dealer: DealerFactory(Arc::new(|| {
                    Box::new(ScriptedDealer::new(vec![Deal {
                        objective: 15,
                        hand: vec![1, 2, 3, 4, 5],
                    }]))
                })),
                ..Self::config(db)
            },
        )
    }

    /// The tests' configuration: database `db`, fast room clocks, short
    /// shutdown waits, the server's usual (random) dealer.
    pub fn config(db: &Path) -> Config {
        Config {
            database_url: format!("sqlite://{}", db.display()),
            close_drain: Duration::from_millis(50),
            shutdown_timeout: Duration::from_secs(5),
            room_time_scale: TIME_SCALE,
            // Every test client comes from 127.0.0.1: the per-address caps
            // would stop the soak test's 200 players.
            max_connections_per_ip: 0,
            max_new_accounts: 0,
            // …and so would the budgets for opening sockets and for HTTP, and
            // the rooms one address may hold (the lobby test opens 60).
            ws_open_burst: 0,
            http_burst: 0,
            max_rooms_per_address: 0,
            ..Config::default()
        }
    }

    /// Starts a server on `addr` with `config`, in its own thread and runtime.
    pub fn with_config(addr: &str, config: Config) -> TestServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(addr))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime
                .block_on(krypto_server::run(listener, config, async move {
                    let _ = rx.await;
                }))
                .unwrap();
        });
        TestServer {
            addr,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// A graceful restart: stops this server, then starts another on its
    /// address with the database `db`.
    pub fn restart(self, db: &Path) -> TestServer {
        let addr = self.addr.to_string();
        self.stop();
        TestServer::start(&addr, db)
    }

    /// Shuts the server down gracefully and waits until it has stopped.
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// A temporary directory holding a database and config directories.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("krypto.db")
    }

    /// A server on any free port with this scratch's database.
    pub fn server(&self) -> TestServer {
        TestServer::start("127.0.0.1:0", &self.db())
    }

    /// A config directory of its own for one client.
    pub fn config(&self, who: &str) -> PathBuf {
        self.dir.path().join(format!("config-{who}"))
    }

    /// `krypto ARGS --server SERVER --name NAME` as `name`, with the config
    /// directory of their name in lower case (`config("ann")` for Ann).
    pub fn as_player(&self, name: &str, server: &str, args: &[&str]) -> Proc {
        Proc::named(name, server, &self.config(&name.to_lowercase()), args)
    }

    /// `krypto play --plain` as `name` on `server` ([`Scratch::as_player`]),
    /// once the server has welcomed them.
    pub fn plain_player(&self, name: &str, server: &str) -> Proc {
        let mut player = self.as_player(name, server, &["play", "--plain"]);
        player.expect_contains(&format!("as {name}"));
        player
    }
}

/// A fresh server with Ann in the plain client, welcomed and hosting a
/// room with `settings` (the words of a `/set`) where given: the scratch
/// directory, the server, its URL, Ann and the room's code.
pub fn ann_hosts(settings: Option<&str>) -> (Scratch, TestServer, String, Proc, String) {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let mut ann = scratch.plain_player("Ann", &url);
    ann.send("/create");
    let code = room_code(&ann.expect_prefix("room "));
    if let Some(settings) = settings {
        ann.send(&format!("/set {settings}"));
    }
    (scratch, server, url, ann, code)
}

/// A running `krypto` process whose output lines are collected.
pub struct Proc {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line seen so far (printed when an expectation fails).
    pub seen: Vec<String>,
    name: String,
}

impl Proc {
    /// Runs `krypto ARGS` with `KRYPTO_CONFIG_DIR=config`; stderr lines are
    /// collected too, prefixed with "stderr: ".
    pub fn spawn(name: &str, args: &[&str], config: &Path) -> Proc {
        let mut command = Command::new(env!("CARGO_BIN_EXE_krypto"));
        command.args(args);
        Proc::start(name, command, config)
    }

    /// Runs `krypto ARGS` like [`Proc::spawn`], unable to write more than
    /// `bytes` to any file — a full disk or an exhausted quota as the
    /// program sees it (`EFBIG`), for any user, root too: `sh` sets the
    /// limit (`ulimit -f`, in 512-byte blocks) and ignores the signal the
    /// kernel would otherwise kill the program with, then runs it.
    #[cfg(unix)]
    pub fn spawn_with_file_limit(name: &str, args: &[&str], config: &Path, blocks: u32) -> Proc {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""
            ))
            .arg(env!("CARGO_BIN_EXE_krypto"))
            .args(args);
        Proc::start(name, command, config)
    }

    fn start(name: &str, mut command: Command, config: &Path) -> Proc {
        let mut child = command
            .env("KRYPTO_CONFIG_DIR", config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        let tx2 = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx2.send(line).is_err() {
                    break;
                }
            }
        });
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                if tx.send(format!("stderr: {line}")).is_err() {
                    break;
                }
            }
        });
        Proc {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            seen: Vec::new(),
            name: name.to_owned(),
        }
    }

    /// `krypto ARGS --server SERVER --name NAME` with
    /// `KRYPTO_CONFIG_DIR=config`.
    pub fn named(name: &str, server: &str, config: &Path, args: &[&str]) -> Proc {
        let mut all = args.to_vec();
        all.extend(["--server", server, "--name", name]);
        Proc::spawn(name, &all, config)
    }

    /// `krypto play --plain` (or `--json`) as `name`.
    pub fn player(name: &str, server: &str, config: &Path, mode: &str) -> Proc {
        Proc::named(name, server, config, &["play", mode])
    }

    /// `krypto bots --server URL --room CODE EXTRA`, keeping the bots'
    /// tokens in the config directory `scratch.config("bots")`.
    pub fn bots(scratch: &Scratch, url: &str, code: &str, extra: &[&str]) -> Proc {
        let mut args = vec!["bots", "--server", url, "--room", code];
        args.extend(extra);
        Proc::spawn("bots", &args, &scratch.config("bots"))
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for the next line (after those already taken) matching `pred`.
    pub fn expect(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if pred(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "{}: no line {what} in time; saw:\n{}",
                    self.name,
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits for a line starting with `prefix`.
    pub fn expect_prefix(&mut self, prefix: &str) -> String {
        self.expect(&format!("starting {prefix:?}"), |l| l.starts_with(prefix))
    }

    /// Waits for a line containing `text`.
    pub fn expect_contains(&mut self, text: &str) -> String {
        self.expect(&format!("containing {text:?}"), |l| l.contains(text))
    }

    /// How many of the lines seen so far match `pred`.
    pub fn count_seen(&self, pred: impl Fn(&str) -> bool) -> usize {
        self.seen.iter().filter(|l| pred(l)).count()
    }

    /// Types `/quit` and asserts that the client exits cleanly.
    pub fn quit(mut self) {
        self.send("/quit");
        assert!(self.finish().success());
    }

    /// Closes standard input and waits for the process to exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        self.stdin.take();
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "{} did not exit", self.name);
            // Drain output so the child never blocks on a full pipe.
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(50)) {
                self.seen.push(line);
            }
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The room code in a line-mode "room CODE: ..." line.
pub fn room_code(line: &str) -> String {
    line.trim_start_matches("room ")
        .split(':')
        .next()
        .unwrap()
        .to_owned()
}
