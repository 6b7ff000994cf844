//! `/devices`, `/revoke N` and the `device_added` line, in line mode and
//! the terminal UI's command line alike (both go through `App::command`).

#![allow(clippy::unwrap_used)]

use crossterm::event::KeyCode;
use krypto_core::protocol::{ClientMessage, DeviceInfo, ServerMessage};

use super::testkit::*;

fn device(id: &str, label: &str, this_device: bool) -> DeviceInfo {
    DeviceInfo {
        id: id.into(),
        label: label.into(),
        // 2025-11-28 and 2025-12-01, UTC.
        created_ms: 1_764_288_000_000,
        last_used_ms: 1_764_547_200_000,
        this_device,
    }
}

#[test]
fn devices_are_listed_numbered_and_revoked_by_number() {
    let mut app = lobby();
    assert!(line(&mut app, "/revoke 1").is_empty());
    assert!(
        feed(&app).last().unwrap().contains("/devices first"),
        "{:?}",
        feed(&app)
    );
    assert_eq!(line(&mut app, "/devices"), [ClientMessage::Devices]);
    app.handle(msg(ServerMessage::Devices {
        devices: vec![
            device("aaaaaaaaaaaaaaaa", "Firefox on Android", false),
            device("bbbbbbbbbbbbbbbb", "krypto terminal on linux", true),
        ],
    }));
    let lines = feed(&app);
    let n = lines.len();
    assert_eq!(lines[n - 4], "your devices:");
    assert_eq!(
        lines[n - 3],
        "  1. Firefox on Android  added 2025-11-28  last used 2025-12-01"
    );
    assert!(lines[n - 2].ends_with("(this one)"), "{}", lines[n - 2]);
    assert_eq!(
        line(&mut app, "/revoke 1"),
        [ClientMessage::RevokeDevice {
            device: "aaaaaaaaaaaaaaaa".into()
        }]
    );
    for wrong in ["/revoke 3", "/revoke 0", "/revoke Firefox"] {
        refused(&mut app, wrong, "from 1 to 2");
    }
}

#[test]
fn a_new_device_is_announced_with_what_to_do_and_the_command_line_takes_the_commands() {
    let mut app = game();
    app.handle(msg(ServerMessage::DeviceAdded {
        device: device("cccccccccccccccc", "Safari on iPhone", false),
    }));
    assert_eq!(
        feed(&app).last().unwrap(),
        "a new device signed in as you: Safari on iPhone. Not you? /devices, then /revoke N"
    );
    // In the terminal UI, from the command line during a round.
    typed(&mut app, "/devices");
    assert_eq!(
        sends(&app.handle(key(KeyCode::Enter))),
        [ClientMessage::Devices]
    );
}
