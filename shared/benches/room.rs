//! What a crowd of spectators arriving costs a room: 100 spectators join a
//! room where four players are seated, and every message the room produces is
//! encoded as the server encodes it (once per message) and counted in bytes
//! per recipient (what goes down each member's socket).
//!
//! "Before" replays the fan-out the room used to produce — a full
//! `room_state`, personalised, to every connected member on every join — by
//! encoding exactly those snapshots beside the room's real effects.

use criterion::{criterion_group, criterion_main, Criterion};
use krypto_core::cards::Deal;
use krypto_core::protocol::{PlayerId, RoomSettings, ServerEnvelope, ServerMessage};
use krypto_core::room::{Effects, Joiner, Recipient, Room, RoomLimits, ScriptedDealer};

const SPECTATORS: i64 = 100;

fn room() -> Room {
    let deal = Deal {
        objective: 15,
        hand: vec![1, 2, 3, 4, 5],
    };
    let Ok((mut room, _)) = Room::new(
        "KXR7P",
        Joiner::new(PlayerId(1), "Host"),
        RoomSettings::default(),
        Box::new(ScriptedDealer::new(vec![deal])),
        RoomLimits::default(),
        0,
    ) else {
        panic!("the default settings are valid")
    };
    for id in 2..=4 {
        let _ = room.join(Joiner::new(PlayerId(id), format!("Player {id}")), false, 0);
    }
    room
}

/// Bytes delivered for `fx`, counting a broadcast once per recipient.
fn delivered(room: &Room, fx: &Effects) -> usize {
    let members = room.members();
    fx.messages
        .iter()
        .map(|o| {
            let bytes = json_len(&ServerEnvelope::new(o.message.clone()));
            let recipients = match o.to {
                Recipient::Player(_) => 1,
                Recipient::All => members.len(),
                Recipient::AllExcept(p) => members.iter().filter(|&&m| m != p).count(),
            };
            bytes * recipients
        })
        .sum()
}

/// The length of a message as sent; a message that cannot be written is a
/// broken bench.
fn json_len(envelope: &ServerEnvelope) -> usize {
    match envelope.to_json() {
        Ok(json) => json.len(),
        Err(e) => panic!("{envelope:?} not serialized: {e}"),
    }
}

/// The snapshots the old fan-out sent everyone on a join, in bytes.
fn old_fan_out(room: &Room) -> usize {
    room.members()
        .into_iter()
        .map(|m| {
            json_len(&ServerEnvelope::new(ServerMessage::RoomState(
                room.snapshot_for(m, 0),
            )))
        })
        .sum()
}

/// Joins the crowd; returns the bytes delivered (and, with `old`, the bytes
/// the old fan-out would have added).
fn crowd_joins(old: bool) -> (usize, usize) {
    let mut room = room();
    let (mut now_bytes, mut old_bytes) = (0, 0);
    for i in 0..SPECTATORS {
        let joiner = Joiner::new(PlayerId(100 + i), format!("Watcher {i}"));
        let Ok(fx) = room.join(joiner, true, 0) else {
            panic!("the cap is 100")
        };
        now_bytes += delivered(&room, &fx);
        if old {
            old_bytes += old_fan_out(&room);
        }
    }
    (now_bytes, old_bytes)
}

fn bench_crowd(c: &mut Criterion) {
    let (now_bytes, old_bytes) = crowd_joins(true);
    println!(
        "100 spectators join: {now_bytes} bytes delivered now; the old fan-out sent {old_bytes}"
    );
    let mut group = c.benchmark_group("100 spectators join");
    group.bench_function(
        "now (snapshot to the joiner, player_joined to the rest)",
        |b| b.iter(|| crowd_joins(false)),
    );
    group.bench_function("before (plus a snapshot to every member per join)", |b| {
        b.iter(|| crowd_joins(true))
    });
    group.finish();
}

criterion_group!(benches, bench_crowd);
criterion_main!(benches);
