//! Where the client keeps its settings and identities: `config.toml` (default
//! server and name) and `tokens.toml` (the secret token per server and name,
//! readable by the user only) in the platform's config directory.
//!
//! `KRYPTO_CONFIG_DIR` overrides the directory, so tests and several
//! identities on one machine do not share files.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
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

/// `tokens.toml`: server URL → lowercased name → token. Keyed by name too,
/// so bots and a second name on the same server never rename the player.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
struct Tokens {
    servers: BTreeMap<String, BTreeMap<String, String>>,
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
        Ok(tokens
            .servers
            .get(server)
            .and_then(|names| names.get(&name_key(name)))
            .cloned())
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

    /// Saves the token for `name` on `server` (file mode 0600).
    pub fn save_token(&self, server: &str, name: &str, token: &str) -> Result<(), ConfigError> {
        let mut tokens: Tokens = read_toml(&self.tokens_path())?;
        let slot = tokens
            .servers
            .entry(server.to_owned())
            .or_default()
            .entry(name_key(name))
            .or_default();
        if slot == token {
            return Ok(());
        }
        token.clone_into(slot);
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

fn read_toml<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> Result<T, ConfigError> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
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
        dir.save_token("ws://a/ws", "Ann", "t1").unwrap();
        dir.save_token("ws://a/ws", "Ada-bot", "t2").unwrap();
        dir.save_token("ws://b/ws", "Ann", "t3").unwrap();
        assert_eq!(
            dir.token("ws://a/ws", "ann").unwrap().as_deref(),
            Some("t1")
        );
        assert_eq!(
            dir.token("ws://a/ws", "ada-BOT").unwrap().as_deref(),
            Some("t2")
        );
        assert_eq!(
            dir.token("ws://b/ws", "Ann").unwrap().as_deref(),
            Some("t3")
        );
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
