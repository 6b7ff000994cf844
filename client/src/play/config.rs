//! Where the client keeps its settings and identities: `config.toml` (default
//! server and name) and `tokens.toml` (the secret token per server and name,
//! readable by the user only) in the platform's config directory.
//!
//! `KRYPTO_CONFIG_DIR` overrides the directory, so tests and several
//! identities on one machine do not share files.
//!
//! What a server sends is hostile until checked, and `welcome` writes
//! `tokens.toml`: a token is kept only in the form the server issues (32
//! lowercase hex digits), under a name that passes the server's name rule;
//! the file holds at most [`MAX_SERVERS`] servers of [`MAX_NAMES_PER_SERVER`]
//! names each (the oldest written go first), is rewritten only when a token
//! changes, and is never read past [`MAX_FILE_BYTES`].

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use krypto_core::names::{self, NameError};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use url::Url;

/// The server used when neither `--server` nor the config names one.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878/ws";

/// The server to use: the flag's, else the configured one, else the default.
pub fn chosen_server(flag: Option<&str>, configured: Option<String>) -> String {
    flag.map(str::to_owned)
        .or(configured)
        .unwrap_or_else(|| DEFAULT_SERVER.to_owned())
}

/// Most servers `tokens.toml` remembers; saving for another drops the one
/// written to longest ago.
pub const MAX_SERVERS: usize = 64;

/// Most names remembered per server (`krypto bots` plays up to 16 at a
/// time); saving another drops that server's name written to longest ago.
pub const MAX_NAMES_PER_SERVER: usize = 32;

/// Longest server address kept as a key (a normalised `ws://HOST:PORT/ws`
/// is far shorter).
pub const MAX_SERVER_LEN: usize = 256;

/// Hex digits of a token as the server issues it (128 bits).
pub const TOKEN_HEX_DIGITS: usize = 32;

/// Most bytes read from `tokens.toml` or `config.toml`: the caps above keep
/// a file written by this client under a quarter of this.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Environment variable that replaces the platform config directory.
pub const CONFIG_DIR_ENV: &str = "KRYPTO_CONFIG_DIR";

/// Why the config could not be read or written.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// Neither `KRYPTO_CONFIG_DIR` nor a home directory is known.
    #[error("no config directory: set {CONFIG_DIR_ENV}")]
    NoDir,
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file is not valid TOML of the expected shape.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A server address that is not a WebSocket URL.
    #[error("{0:?} is not a server address: use ws://HOST:PORT (or HOST:PORT)")]
    BadUrl(String),
    /// A file larger than any this client writes: not read.
    #[error("{path} is larger than {limit} bytes, which this client never writes: not reading it (remove it to start afresh)")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes read.
        limit: u64,
    },
    /// A token not in the form the server issues: not saved.
    #[error("the server sent a token that is not {TOKEN_HEX_DIGITS} hex digits: not saved")]
    BadToken,
    /// A server address too long to keep as a key.
    #[error("a server address longer than {MAX_SERVER_LEN} bytes: its token is not saved")]
    LongServer,
    /// A name the server would refuse.
    #[error("{name:?} cannot be a name: {reason}")]
    BadName {
        /// The name as given.
        name: String,
        /// The rule it breaks.
        reason: NameError,
    },
}

/// `config.toml`: what the user set once so they need not type it again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The server to use without `--server`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The name to play under without `--name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `tokens.toml`: one entry per server URL and lowercased name, oldest
/// written first. Keyed by name too, so bots and a second name on the same
/// server never rename the player.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
struct Tokens {
    /// Oldest written first.
    token: Vec<Saved>,
    /// The earlier shape (server → name → token), read and then written
    /// as entries.
    #[serde(skip_serializing)]
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

/// One remembered token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Saved {
    server: String,
    /// The name's key ([`name_key`]).
    name: String,
    token: String,
}

impl Tokens {
    /// The entries, the earlier shape's included (before the new ones: it
    /// is older), without any that break today's rules.
    fn entries(self) -> Vec<Saved> {
        let old = self.servers.into_iter().flat_map(|(server, names)| {
            names.into_iter().map(move |(name, token)| Saved {
                server: server.clone(),
                name,
                token,
            })
        });
        old.chain(self.token)
            .filter(|e| is_token(&e.token) && e.server.len() <= MAX_SERVER_LEN)
            .collect()
    }
}

/// Whether `token` is in the form the server issues: 32 lowercase hex
/// digits (`server/src/identity.rs`, `new_token`).
pub fn is_token(token: &str) -> bool {
    token.len() == TOKEN_HEX_DIGITS
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `entries` with `server`'s `name` set to `token` and moved last (newest),
/// within the caps: the oldest name of that server, then the server written
/// to longest ago, go first.
fn remember(mut entries: Vec<Saved>, server: &str, name: String, token: &str) -> Vec<Saved> {
    entries.retain(|e| !(e.server == server && e.name == name));
    entries.push(Saved {
        server: server.to_owned(),
        name,
        token: token.to_owned(),
    });
    while entries.iter().filter(|e| e.server == server).count() > MAX_NAMES_PER_SERVER {
        if let Some(oldest) = entries.iter().position(|e| e.server == server) {
            entries.remove(oldest);
        }
    }
    loop {
        // Servers by their newest entry: the first one listed is the
        // server written to longest ago.
        let mut newest: Vec<&str> = Vec::new();
        for e in entries.iter().rev() {
            if !newest.contains(&e.server.as_str()) {
                newest.push(&e.server);
            }
        }
        if newest.len() <= MAX_SERVERS {
            return entries;
        }
        let Some(stale) = newest.last().map(|s| (*s).to_owned()) else {
            return entries;
        };
        entries.retain(|e| e.server != stale);
    }
}

/// The config directory and the files in it.
#[derive(Debug, Clone)]
pub struct ConfigDir {
    /// The directory itself (created on the first write).
    pub dir: PathBuf,
}

impl ConfigDir {
    /// `KRYPTO_CONFIG_DIR`, or the platform's config dir for "krypto".
    pub fn locate() -> Result<ConfigDir, ConfigError> {
        if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
            return Ok(ConfigDir { dir: dir.into() });
        }
        let dirs = directories::ProjectDirs::from("", "", "krypto").ok_or(ConfigError::NoDir)?;
        Ok(ConfigDir {
            dir: dirs.config_dir().to_path_buf(),
        })
    }

    fn settings_path(&self) -> PathBuf {
        self.dir.join("config.toml")
    }

    fn tokens_path(&self) -> PathBuf {
        self.dir.join("tokens.toml")
    }

    /// The settings; defaults when the file does not exist.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        read_toml(&self.settings_path())
    }

    /// Writes the settings.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), ConfigError> {
        write_toml(&self.settings_path(), settings)
    }

    /// The token for `name` on `server`, if one was saved.
    pub fn token(&self, server: &str, name: &str) -> Result<Option<String>, ConfigError> {
        let tokens: Tokens = read_toml(&self.tokens_path())?;
        let key = name_key(name);
        Ok(tokens
            .entries()
            .into_iter()
            .rev()
            .find(|e| e.server == server && e.name == key)
            .map(|e| e.token))
    }

    /// Claims `name` for this process until the returned [`Claim`] is
    /// dropped (or the process ends): `None` when another process holds it.
    /// Two `krypto bots` runs from one config directory share `tokens.toml`;
    /// without a claim the second would log in as the first one's bots and
    /// the two would take the seat from each other in turn.
    pub fn claim(&self, name: &str) -> Result<Option<Claim>, ConfigError> {
        let dir = self.dir.join("claims");
        let path = dir.join(format!("{}.lock", name_key(name)));
        let io = |source| ConfigError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(&dir).map_err(io)?;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Claim { _file: file })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(source)) => Err(io(source)),
        }
    }

    /// Saves the token for `name` on `server` (file mode 0600), both as
    /// a server sent them: refused unless the token is one the server could
    /// have issued and the name one it could have accepted. The file is
    /// written only when the token changes.
    pub fn save_token(&self, server: &str, name: &str, token: &str) -> Result<(), ConfigError> {
        if !is_token(token) {
            return Err(ConfigError::BadToken);
        }
        if server.len() > MAX_SERVER_LEN {
            return Err(ConfigError::LongServer);
        }
        let key = names::validate(name)
            .map_err(|reason| ConfigError::BadName {
                name: krypto_client::redirect::shown(name),
                reason,
            })?
            .key;
        let tokens: Tokens = read_toml(&self.tokens_path())?;
        let rewritten = !tokens.servers.is_empty();
        let entries = tokens.entries();
        let same = entries
            .iter()
            .any(|e| e.server == server && e.name == key && e.token == token);
        if same && !rewritten {
            return Ok(());
        }
        let tokens = Tokens {
            token: remember(entries, server, key, token),
            servers: BTreeMap::new(),
        };
        write_toml(&self.tokens_path(), &tokens)
    }
}

/// A name this process plays under; the operating system lets it go when
/// the claim is dropped or the process ends, however it ends.
#[derive(Debug)]
pub struct Claim {
    /// Holds an exclusive lock on the name's file in `claims/`.
    _file: fs::File,
}

/// The key a name is unique by, as on the server.
fn name_key(name: &str) -> String {
    names::validate(name).map_or_else(|_| name.trim().to_lowercase(), |n| n.key)
}

/// Reads `path` as TOML, never more than [`MAX_FILE_BYTES`] of it.
fn read_toml<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> Result<T, ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_owned(),
        source,
    };
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => return Err(io(source)),
    };
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(ConfigError::TooLarge {
            path: path.to_owned(),
            limit: MAX_FILE_BYTES,
        });
    }
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Writes through a temporary file in the same directory, persisted over
/// `path` by a rename, so a crash never leaves a half-written file. The file
/// is readable by the user only (tempfile creates it with mode 0600): the
/// tokens are secrets, and nothing else needs to read the settings.
fn write_toml<T: Serialize>(path: &Path, value: &T) -> Result<(), ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_owned(),
        source,
    };
    let text = toml::to_string(value).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(io)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Normalises a server address: `HOST:PORT`, `ws://HOST:PORT` and
/// `ws://HOST:PORT/ws` all become `ws://HOST:PORT/ws` (likewise `wss://`;
/// `http://` and `https://` are taken for them), so one server has one key
/// in the token file.
pub fn normalize_server(raw: &str) -> Result<String, ConfigError> {
    let raw = raw.trim();
    let bad = || ConfigError::BadUrl(raw.to_owned());
    if raw.is_empty() || raw.contains(char::is_whitespace) {
        return Err(bad());
    }
    let full = if raw.contains("://") {
        raw.to_owned()
    } else {
        format!("ws://{raw}")
    };
    let mut url = Url::parse(&full).map_err(|_| bad())?;
    let scheme = match url.scheme() {
        "ws" | "http" => "ws",
        "wss" | "https" => "wss",
        _ => return Err(bad()),
    };
    url.set_scheme(scheme).map_err(|()| bad())?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad());
    }
    if url.path().is_empty() || url.path() == "/" {
        url.set_path("/ws");
    }
    Ok(url.to_string())
}

/// The HTTP base (`http://HOST:PORT`) of the server at WebSocket `url`.
pub fn http_base(url: &str) -> Result<String, ConfigError> {
    let mut u =
        Url::parse(&normalize_server(url)?).map_err(|_| ConfigError::BadUrl(url.to_owned()))?;
    let scheme = if u.scheme() == "wss" { "https" } else { "http" };
    u.set_scheme(scheme)
        .map_err(|()| ConfigError::BadUrl(url.to_owned()))?;
    Ok(u.origin().ascii_serialization())
}

/// The URL of an HTTP API path on the server at WebSocket `url`: each of
/// `segments` percent-encoded (a name may hold spaces), with `query` pairs.
pub fn api_url(url: &str, segments: &[&str], query: &[(&str, &str)]) -> Result<Url, ConfigError> {
    let bad = || ConfigError::BadUrl(url.to_owned());
    let mut u = Url::parse(&http_base(url)?).map_err(|_| bad())?;
    u.path_segments_mut()
        .map_err(|()| bad())?
        .clear()
        .extend(segments);
    if !query.is_empty() {
        u.query_pairs_mut().extend_pairs(query);
    }
    Ok(u)
}

/// What a friend types to play on the server whose HTTP base is `base`
/// (`http://192.168.1.20:7878` → `ws://192.168.1.20:7878`): the form
/// `krypto play -s` takes, short enough to read aloud.
pub fn play_address(base: &str) -> Option<String> {
    let mut u = Url::parse(base).ok()?;
    let scheme = match u.scheme() {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        _ => return None,
    };
    u.set_scheme(scheme).ok()?;
    let text = u.to_string();
    Some(
        text.trim_end_matches('/')
            .trim_end_matches("/ws")
            .to_owned(),
    )
}

/// A name to play under when none was given: the login name, cleaned to the
/// server's rules ([`names::validate`]), else "Player".
pub fn fallback_name() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let clean: String = user
        .chars()
        .filter(|c| c.is_alphabetic() || c.is_ascii_digit() || matches!(c, ' ' | '-' | '_'))
        .take(names::MAX_NAME_CHARS)
        .collect();
    names::validate(&clean).map_or_else(|_| "Player".to_owned(), |n| n.display)
}

/// Checks a name given on the command line or in the config by the
/// server's own rule, so a bad one is refused before connecting.
pub fn check_name(raw: &str) -> Result<String, ConfigError> {
    names::validate(raw)
        .map(|n| n.display)
        .map_err(|e| ConfigError::BadName {
            name: raw.to_owned(),
            reason: e,
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn server_addresses_are_normalised() {
        let n = |s| normalize_server(s).unwrap();
        assert_eq!(n("localhost:7878"), "ws://localhost:7878/ws");
        assert_eq!(n("ws://10.0.0.2:7878"), "ws://10.0.0.2:7878/ws");
        assert_eq!(n("ws://10.0.0.2:7878/"), "ws://10.0.0.2:7878/ws");
        assert_eq!(n("wss://k.example/ws"), "wss://k.example/ws");
        assert!(normalize_server("ftp://x").is_err());
        assert!(normalize_server("").is_err());
        assert_eq!(n("http://Example.org:7878"), "ws://example.org:7878/ws");
        assert!(normalize_server("ws://").is_err());
        assert!(normalize_server("a b:7878").is_err());
        assert_eq!(http_base("ws://h:1/ws").unwrap(), "http://h:1");
        assert_eq!(http_base("wss://h/ws").unwrap(), "https://h");
        assert_eq!(
            api_url("ws://h:1/ws", &["api", "players", "Ann B/é?"], &[])
                .unwrap()
                .as_str(),
            "http://h:1/api/players/Ann%20B%2F%C3%A9%3F"
        );
        assert_eq!(
            api_url(
                "h:1",
                &["api", "leaderboard"],
                &[("metric", "wins"), ("around", "Ann B")]
            )
            .unwrap()
            .as_str(),
            "http://h:1/api/leaderboard?metric=wins&around=Ann+B"
        );
        assert_eq!(
            play_address("http://192.168.1.20:7878").as_deref(),
            Some("ws://192.168.1.20:7878")
        );
        assert_eq!(
            play_address("https://k.example").as_deref(),
            Some("wss://k.example")
        );
    }

    #[test]
    fn names_follow_the_servers_rule() {
        assert_eq!(check_name("  Ann   B ").unwrap(), "Ann B");
        assert!(check_name("").is_err());
        assert!(check_name("a".repeat(21).as_str()).is_err());
        assert!(check_name("Ann!").is_err());
        assert!(names::validate(&fallback_name()).is_ok());
    }

    #[test]
    fn a_name_is_claimed_by_one_holder_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ConfigDir {
            dir: tmp.path().join("krypto"),
        };
        let first = dir.claim("Ada-bot").unwrap();
        assert!(first.is_some());
        // Another holder (an open file of its own, as another process has).
        assert!(dir.claim("ada-BOT").unwrap().is_none());
        assert!(dir.claim("Alan-bot").unwrap().is_some());
        drop(first);
        assert!(dir.claim("Ada-bot").unwrap().is_some());
    }

    #[test]
    fn tokens_are_kept_per_server_and_name_with_mode_0600() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ConfigDir {
            dir: tmp.path().join("krypto"),
        };
        assert_eq!(dir.token("ws://a/ws", "Ann").unwrap(), None);
        let (t1, t2, t3) = ("1".repeat(32), "2".repeat(32), "3".repeat(32));
        dir.save_token("ws://a/ws", "Ann", &t1).unwrap();
        dir.save_token("ws://a/ws", "Ada-bot", &t2).unwrap();
        dir.save_token("ws://b/ws", "Ann", &t3).unwrap();
        assert_eq!(dir.token("ws://a/ws", "ann").unwrap(), Some(t1));
        assert_eq!(dir.token("ws://a/ws", "ada-BOT").unwrap(), Some(t2));
        assert_eq!(dir.token("ws://b/ws", "Ann").unwrap(), Some(t3));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.dir.join("tokens.toml"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let s = Settings {
            server: Some("ws://a/ws".into()),
            name: Some("Ann".into()),
        };
        dir.save_settings(&s).unwrap();
        assert_eq!(dir.settings().unwrap(), s);
    }
}

#[cfg(test)]
mod bounds {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn scratch() -> (tempfile::TempDir, ConfigDir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ConfigDir {
            dir: tmp.path().join("krypto"),
        };
        (tmp, dir)
    }

    fn token(i: usize) -> String {
        format!("{i:032x}")
    }

    #[test]
    fn only_a_token_of_the_servers_form_under_a_valid_name_is_saved() {
        let (_tmp, dir) = scratch();
        for bad in [
            "",
            "00ff",
            &"a".repeat(4096),
            &"A".repeat(32),
            &"g".repeat(32),
        ] {
            assert!(matches!(
                dir.save_token("ws://a/ws", "Ann", bad),
                Err(ConfigError::BadToken)
            ));
        }
        assert!(matches!(
            dir.save_token("ws://a/ws", &"n".repeat(4096), &token(1)),
            Err(ConfigError::BadName { .. })
        ));
        let long = format!("ws://{}/ws", "h".repeat(MAX_SERVER_LEN));
        assert!(matches!(
            dir.save_token(&long, "Ann", &token(1)),
            Err(ConfigError::LongServer)
        ));
        assert!(!dir.dir.join("tokens.toml").exists());
    }

    #[test]
    fn the_oldest_names_and_servers_go_first() {
        let (_tmp, dir) = scratch();
        for i in 0..MAX_NAMES_PER_SERVER + 3 {
            dir.save_token("ws://a/ws", &format!("Ann{i}"), &token(i))
                .unwrap();
        }
        assert_eq!(dir.token("ws://a/ws", "Ann0").unwrap(), None);
        assert_eq!(dir.token("ws://a/ws", "Ann2").unwrap(), None);
        assert_eq!(dir.token("ws://a/ws", "Ann3").unwrap(), Some(token(3)));
        for i in 0..MAX_SERVERS {
            dir.save_token(&format!("ws://s{i}/ws"), "Ann", &token(i))
                .unwrap();
        }
        // Server a was written to longest ago.
        assert_eq!(dir.token("ws://a/ws", "Ann40").unwrap(), None);
        assert_eq!(dir.token("ws://s0/ws", "Ann").unwrap(), Some(token(0)));
        let text = fs::read_to_string(dir.dir.join("tokens.toml")).unwrap();
        assert_eq!(text.matches("[[token]]").count(), MAX_SERVERS);
    }

    #[test]
    fn the_earlier_shape_is_read_and_a_file_too_large_is_not() {
        let (_tmp, dir) = scratch();
        fs::create_dir_all(&dir.dir).unwrap();
        let path = dir.dir.join("tokens.toml");
        let text = format!(
            "[servers.\"ws://a/ws\"]\nann = \"{}\"\nbad = \"00ff\"\n",
            token(7)
        );
        fs::write(&path, text).unwrap();
        assert_eq!(dir.token("ws://a/ws", "Ann").unwrap(), Some(token(7)));
        assert_eq!(dir.token("ws://a/ws", "bad").unwrap(), None);
        let mut big = fs::File::create(&path).unwrap();
        big.write_all(&vec![b'#'; MAX_FILE_BYTES as usize + 1])
            .unwrap();
        assert!(matches!(
            dir.token("ws://a/ws", "Ann"),
            Err(ConfigError::TooLarge { .. })
        ));
    }
}
