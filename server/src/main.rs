//! `krypto-server`: parses flags and environment, sets up logging, binds the
//! port and hands over to [`krypto_server::run`].

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;

use anyhow::Context;
use clap::Parser;
use krypto_server::{Config, LogFormat};
use tokio::net::TcpListener;
use tracing_appender::non_blocking::NonBlocking;

/// The krypto game server.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Instead of serving, run a maintenance command.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address and port to listen on (HTTP and WebSocket at /ws).
    #[arg(long, env = "KRYPTO_LISTEN", default_value = "0.0.0.0:7878")]
    listen: SocketAddr,
    /// Every other setting: its flags are declared on it.
    #[command(flatten)]
    config: Config,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Copies every player, match, rating and leaderboard row from one
    /// database into an empty PostgreSQL database (ids and tokens kept),
    /// then exits. Stop the server first.
    MigrateDb {
        /// The database to copy from (sqlite://… or postgres://…).
        #[arg(long)]
        from: String,
        /// The empty PostgreSQL database to copy into (postgres://…).
        #[arg(long)]
        to: String,
    },
    /// Reviews the players the fair-play signals flagged (docs/design.md,
    /// "Fair play: what a flag does"), on the database of --database.
    Review {
        #[command(subcommand)]
        action: ReviewAction,
    },
}

#[derive(Debug, clap::Subcommand)]
enum ReviewAction {
    /// Flagged and banned players with their evidence.
    List {
        /// As a JSON array of objects (`name`, `status`, `flagged_at`, `evidence`, …).
        #[arg(long)]
        json: bool,
    },
    /// One player's flag and evidence.
    Show {
        name: String,
        /// As a JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Puts a flagged player back on the boards; the same evidence does not
    /// flag them again.
    Clear { name: String },
    /// Off the boards for good and never rated again; every rating is
    /// recomputed without the player's matches, in one transaction.
    Ban { name: String },
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // Logs go to stdout through a queue and a thread of their own: a stdout
    // nobody reads costs lines, never the server's progress.
    let log = krypto_server::ops::logging::to_stdout(args.config.log_queue_lines);
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only when stdout is a terminal (in a file or a log
    // collector they are noise).
    let ansi = std::io::stdout().is_terminal();
    match args.config.log_format {
        LogFormat::Text => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(ansi)
            .with_writer(log.writer.clone())
            .init(),
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_ansi(false)
            .with_env_filter(filter)
            .with_writer(log.writer.clone())
            .init(),
    }
    let served = tokio::runtime::Runtime::new()
        .context("cannot start the async runtime")
        .and_then(|runtime| runtime.block_on(serve(args, log.writer, log.stats)));
    log.guard.close();
    served
}

/// Serves (or runs the maintenance command) until shut down; `out` takes the
/// banner, `log` is what the log's output took and lost.
async fn serve(
    args: Args,
    mut out: NonBlocking,
    log: krypto_server::ops::logging::LogStats,
) -> anyhow::Result<()> {
    if let Some(Command::MigrateDb { from, to }) = &args.command {
        let copied = krypto_server::db::copy::migrate(from, to).await?;
        for (table, rows) in copied.tables {
            println!("{table}: {rows} rows");
        }
        println!("copied into {to}");
        return Ok(());
    }
    if let Some(Command::Review { action }) = &args.command {
        use krypto_server::fair_play::review::{run, Review};
        let review = match action {
            ReviewAction::List { json } => Review::List { json: *json },
            ReviewAction::Show { name, json } => Review::Show {
                name: name.clone(),
                json: *json,
            },
            ReviewAction::Clear { name } => Review::Clear { name: name.clone() },
            ReviewAction::Ban { name } => Review::Ban { name: name.clone() },
        };
        let db = krypto_server::Db::open(&args.config.database_url).await?;
        let report = run(&db, &review).await;
        db.close().await;
        println!("{}", report?);
        return Ok(());
    }
    // Every connection is a file descriptor; the usual soft limit (1024) would
    // cap the server far below --max-connections.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => {
            tracing::info!(open_files = limit, "open-files limit");
            if (limit as usize) < args.config.max_connections + 64 {
                tracing::warn!(
                    open_files = limit,
                    max_connections = args.config.max_connections,
                    "the open-files limit is below --max-connections; raise `ulimit -n`"
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot raise the open-files limit"),
    }
    let config = Config { log, ..args.config };
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let bound = listener.local_addr()?;
    tracing::info!(address = %bound, "listening");
    // The banner goes the log's way: on a full or closed stdout, println!
    // would block or panic.
    let mut banner = format!(
        "krypto-server {} — friends can join at:\n",
        env!("CARGO_PKG_VERSION")
    );
    for line in krypto_server::banner_lines(bound) {
        banner.push_str(&line);
        banner.push('\n');
    }
    let _ = out.write_all(banner.as_bytes());
    krypto_server::run(listener, config, shutdown_signal()).await?;
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM (docker stop, systemd).
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = term => tracing::info!("SIGTERM received"),
    }
}
