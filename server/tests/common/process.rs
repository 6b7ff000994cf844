//! The real `krypto-server` binary in a child process, on a free loopback
//! port: for crash tests (`kill -9`) and for clusters of nodes.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{http_get, Client, PATIENCE};

/// The real `krypto-server`, killed with SIGKILL when dropped.
pub struct Process {
    child: Child,
    pub addr: SocketAddr,
    /// Where its `/metrics` is served (a free port unless the test chose).
    pub metrics_addr: SocketAddr,
    /// Every line it printed so far (its log at `RUST_LOG`, warn unless
    /// `KRYPTO_TEST_SERVER_LOG` says otherwise).
    printed: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// A free port on 127.0.0.1 (free when asked; the server binds it next).
pub fn free_addr() -> SocketAddr {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}").parse().unwrap()
}

impl Process {
    /// Starts the binary on the database at `url` and a free port, and
    /// waits until it says it is listening.
    pub fn start(url: &str) -> Process {
        Self::start_at(free_addr(), url, &[])
    }

    /// The binary's command line on `addr` with extra arguments, and the
    /// address of its `/metrics` (never the default port: tests run side
    /// by side).
    fn command(addr: SocketAddr, url: &str, args: &[&str]) -> (Command, SocketAddr) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_krypto-server"));
        let chosen = args
            .iter()
            .position(|a| *a == "--metrics-listen")
            .and_then(|i| args.get(i + 1))
            .map(|a| a.parse().unwrap());
        let metrics_addr = chosen.unwrap_or_else(free_addr);
        if chosen.is_none() {
            command
                .arg("--metrics-listen")
                .arg(metrics_addr.to_string());
        }
        // Tests open rooms from one address as fast as they can.
        if !args.contains(&"--max-rooms-per-address") {
            command.args(["--max-rooms-per-address", "0"]);
        }
        command
            .arg("--listen")
            .arg(addr.to_string())
            .arg("--database")
            .arg(url)
            .args(args)
            .env("KRYPTO_ROOM_TIME_SCALE", "100")
            .env(
                "RUST_LOG",
                std::env::var("KRYPTO_TEST_SERVER_LOG").unwrap_or("warn".into()),
            );
        (command, metrics_addr)
    }

    /// Starts the binary with extra arguments, logging at `log` to pipes
    /// handed back unread (the caller reads them, holds them full, or drops
    /// them), and waits until it answers `/healthz`.
    pub async fn start_unread(
        url: &str,
        args: &[&str],
        log: &str,
    ) -> (Process, ChildStdout, ChildStderr) {
        let addr = free_addr();
        let (mut command, metrics_addr) = Self::command(addr, url, args);
        let mut child = command
            .env("RUST_LOG", log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let process = Process {
            child,
            addr,
            metrics_addr,
            printed: Default::default(),
        };
        // A busy machine may take a while to start a debug build (it
        // compresses the web assets first): a generous bound.
        let healthy = async {
            loop {
                if let Ok(mut s) = tokio::net::TcpStream::connect(addr).await {
                    let req = "GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
                    let mut answer = String::new();
                    if s.write_all(req.as_bytes()).await.is_ok()
                        && s.read_to_string(&mut answer).await.is_ok()
                        && answer.starts_with("HTTP/1.1 200")
                    {
                        return;
                    }
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(6 * PATIENCE, healthy)
            .await
            .expect("the server did not start");
        (process, stdout, stderr)
    }

    /// Starts the binary on `addr` with extra arguments.
    pub fn start_at(addr: SocketAddr, url: &str, args: &[&str]) -> Process {
        let (mut command, metrics_addr) = Self::command(addr, url, args);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The join addresses are printed once the port is bound; keep
        // draining stdout afterwards so the server never blocks on it.
        let stdout = child.stdout.take().unwrap();
        let (ready_tx, ready) = mpsc::channel();
        // KRYPTO_TEST_SERVER_LOG=info shows the servers' logs.
        let show = std::env::var_os("KRYPTO_TEST_SERVER_LOG").is_some();
        let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = printed.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if show {
                    eprintln!("[{addr}] {line}");
                }
                if line.contains("friends can join") {
                    let _ = ready_tx.send(());
                }
                keep.lock().unwrap().push(line);
            }
        });
        let process = Process {
            child,
            addr,
            metrics_addr,
            printed,
        };
        ready
            .recv_timeout(PATIENCE)
            .expect("the server did not start");
        process
    }

    /// Its WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub async fn connect(&self) -> Client {
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(self.url()))
            .await
            .unwrap()
            .unwrap();
        Client { ws }
    }

    pub async fn player(&self, hello: Value) -> (Client, Value) {
        self.connect().await.welcomed(hello).await
    }

    pub async fn healthz(&self) -> String {
        http_get(self.addr, "/healthz").await.0
    }

    /// `/readyz`: the status code and the JSON body.
    pub async fn readyz(&self) -> (u16, Value) {
        let (status, body) = http_get(self.addr, "/readyz").await;
        let code = status.split(' ').nth(1).unwrap().parse().unwrap();
        (code, serde_json::from_str(&body).unwrap())
    }

    /// Asks `/readyz` until it answers 200 (the database is back and the
    /// journal replayed), for at most 20 s (the promise); returns the body.
    pub async fn ready_again(&self) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let (code, body) = self.readyz().await;
            if code == 200 {
                return body;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still not ready 20 s after the database came back: {body}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// The two `names` in a started match of `rounds` rounds of
    /// `round_seconds`, the first hosting.
    pub async fn a_match(
        &self,
        names: [&str; 2],
        rounds: u32,
        round_seconds: u32,
    ) -> (Client, Client) {
        let (mut host, _) = self.player(super::hello(names[0])).await;
        let (mut guest, _) = self.player(super::hello(names[1])).await;
        host.host_match(
            serde_json::json!({"rounds": rounds, "round_seconds": round_seconds}),
            &mut [&mut guest],
        )
        .await;
        (host, guest)
    }

    /// Whether it printed a line containing `text` so far.
    pub fn printed(&self, text: &str) -> bool {
        self.printed
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains(text))
    }

    /// SIGTERM: a graceful stop (not waited for).
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits until the process has exited; true if it exited with 0.
    pub async fn exited_cleanly(&mut self) -> bool {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not stop"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// SIGKILL: no shutdown, no flush, no goodbye.
    pub fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
