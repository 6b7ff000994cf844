//! A TCP proxy between a server and its PostgreSQL that can black-hole the
//! link: bytes are held (read from neither side, so they wait in the
//! kernel's buffers) while every socket stays open, as when a firewall or a
//! failing switch silently drops packets — nothing fails, nothing answers.
//! Healed, the held bytes flow again. It can also hold only the database's
//! answers, so a statement lands while its answer is lost.

use std::path::PathBuf;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What the link lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// Everything, both ways.
    Open,
    /// Nothing, either way.
    Held,
    /// What the server sends reaches the database; the answers are held.
    AnswersHeld,
}

/// Where the database listens.
#[derive(Debug, Clone)]
enum Upstream {
    Unix(PathBuf),
    Tcp(String),
}

/// The proxy; it stops serving when dropped.
pub struct BlackHole {
    /// The URL the server is given: the database's, through the proxy.
    pub url: String,
    link: watch::Sender<Link>,
    task: JoinHandle<()>,
}

impl BlackHole {
    /// A proxy in front of the PostgreSQL database at `url` (a unix socket
    /// directory in `?host=`, or a TCP host and port).
    pub async fn new(url: &str) -> BlackHole {
        let (upstream, database) = upstream(url);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (user, _) = url
            .strip_prefix("postgres://")
            .and_then(|rest| rest.split_once('@'))
            .unwrap_or(("postgres", ""));
        let url = format!("postgres://{user}@127.0.0.1:{port}/{database}?sslmode=disable");
        let (link, _) = watch::channel(Link::Open);
        let links = link.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let links = links.clone();
                tokio::spawn(async move {
                    let _ = client.set_nodelay(true);
                    match upstream {
                        Upstream::Unix(path) => match UnixStream::connect(path).await {
                            Ok(db) => splice(client, db, &links).await,
                            Err(e) => eprintln!("black hole: the database is not there: {e}"),
                        },
                        Upstream::Tcp(addr) => match TcpStream::connect(addr).await {
                            Ok(db) => splice(client, db, &links).await,
                            Err(e) => eprintln!("black hole: the database is not there: {e}"),
                        },
                    }
                });
            }
        });
        BlackHole { url, link, task }
    }

    /// Lets through what `link` says, from now on.
    pub fn set(&self, link: Link) {
        self.link.send_replace(link);
    }
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The database's address and the database's name in `url`.
fn upstream(url: &str) -> (Upstream, String) {
    let rest = url.strip_prefix("postgres://").unwrap();
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, database) = rest.split_once('/').unwrap();
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host_dir = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("host="))
        .filter(|h| h.starts_with('/'));
    let port = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("port="))
        .or_else(|| hostport.split_once(':').map(|(_, p)| p))
        .unwrap_or("5432");
    let upstream = match host_dir {
        Some(dir) => Upstream::Unix(PathBuf::from(format!("{dir}/.s.PGSQL.{port}"))),
        None => {
            let host = hostport.split(':').next().unwrap_or("localhost");
            Upstream::Tcp(format!("{host}:{port}"))
        }
    };
    (upstream, database.to_owned())
}

/// Copies both ways between the server's socket and the database's until
/// either closes, each way only while the link lets it through.
async fn splice(
    client: TcpStream,
    db: impl AsyncRead + AsyncWrite + Send + 'static,
    links: &watch::Sender<Link>,
) {
    let (client_read, client_write) = client.into_split();
    let (db_read, db_write) = tokio::io::split(db);
    let up = pump(client_read, db_write, links.subscribe(), |l| {
        l == Link::Open || l == Link::AnswersHeld
    });
    let down = pump(db_read, client_write, links.subscribe(), |l| {
        l == Link::Open
    });
    tokio::select! {
        () = up => {}
        () = down => {}
    }
}

/// Copies from `from` to `to`, reading only while `open` says the link
/// lets this way through (held bytes wait in the kernel's buffers).
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut link: watch::Receiver<Link>,
    open: fn(Link) -> bool,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if link.wait_for(|l| open(*l)).await.is_err() {
            return;
        }
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            // Held while waiting to read: stop reading at once.
            _ = link.wait_for(|l| !open(*l)) => continue,
        };
        // Bytes read just as the link was cut wait for it to heal.
        if link.wait_for(|l| open(*l)).await.is_err() {
            return;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
