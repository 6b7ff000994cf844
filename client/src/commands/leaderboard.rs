//! `krypto leaderboard`: one WebSocket request, printed as a table.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use futures_util::{SinkExt, StreamExt};
use krypto_core::protocol::{
    parse_server_message, ClientEnvelope, ClientMessage, ServerMessage, PROTOCOL_VERSION,
};
use tokio_tungstenite::tungstenite::Message;

use super::Outcome;
use crate::cli::LeaderboardArgs;
use crate::play::app::{metric_name, metric_value, period_name};
use crate::play::target;

/// Longest wait for the server at each step.
const PATIENCE: Duration = Duration::from_secs(10);

/// Says hello, asks for the leaderboard and prints the reply.
pub fn run(args: &LeaderboardArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let target = target(args.server.as_deref(), args.name.as_deref())?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let (raw, reply) = runtime.block_on(async {
        let url = target.server.as_str();
        let (mut ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| anyhow::anyhow!("cannot reach the server at {url}: timed out"))?
            .with_context(|| format!("cannot reach the server at {url} (is it running?)"))?;
        let hello = ClientEnvelope::new(ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: Some(target.name.clone()),
            token: target.token.clone(),
            bot: false,
        });
        let ask = ClientEnvelope {
            id: Some("board".to_owned()),
            message: ClientMessage::Leaderboard {
                metric: Some(args.metric),
                period: Some(args.period),
                limit: Some(args.limit),
                around: args.around.clone(),
            },
        };
        ws.send(Message::text(hello.to_json())).await?;
        loop {
            let next = tokio::time::timeout(PATIENCE, ws.next())
                .await
                .map_err(|_| anyhow::anyhow!("the server did not answer in time"))?;
            let text = match next {
                Some(Ok(Message::Text(t))) => t.as_str().to_owned(),
                Some(Ok(Message::Close(_))) | None => bail!("the server closed the connection"),
                Some(Ok(_)) => continue,
                Some(Err(e)) => bail!("connection lost: {e}"),
            };
            let Ok(env) = parse_server_message(&text) else {
                continue;
            };
            match env.message {
                ServerMessage::Welcome { name, token, .. } => {
                    // Keep the identity hello may just have created.
                    let _ = target.save(&name, &token);
                    ws.send(Message::text(ask.to_json())).await?;
                }
                ServerMessage::Error { code, message } => {
                    bail!("the server refused: {message} ({code:?})")
                }
                ServerMessage::Leaderboard { .. } => {
                    let _ = ws.close(None).await;
                    return Ok::<_, anyhow::Error>((text, env.message));
                }
                _ => {}
            }
        }
    })?;
    if args.json {
        writeln!(out, "{raw}")?;
        return Ok(Outcome::Yes);
    }
    let ServerMessage::Leaderboard {
        metric,
        period,
        rows,
    } = reply
    else {
        bail!("unexpected reply");
    };
    writeln!(
        out,
        "Leaderboard: {}, {} ({})",
        metric_name(metric),
        period_name(period),
        target.server
    )?;
    if rows.is_empty() {
        writeln!(
            out,
            "No rows yet: players appear after their first rated matches."
        )?;
        return Ok(Outcome::Yes);
    }
    writeln!(
        out,
        "{:>5}  {:<20}  {:>10}  {:>7}",
        "Rank", "Player", "Value", "Matches"
    )?;
    for r in &rows {
        let mark = if r.name.eq_ignore_ascii_case(&target.name)
            || args
                .around
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(&r.name))
        {
            "›"
        } else {
            " "
        };
        writeln!(
            out,
            "{mark}{:>4}.  {:<20}  {:>10}  {:>7}",
            r.rank,
            r.name,
            metric_value(metric, r.value),
            r.matches
        )?;
    }
    Ok(Outcome::Yes)
}
