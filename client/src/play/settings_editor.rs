//! The host's settings editor: which setting is selected and the presses
//! not yet confirmed by the server. The settings, their order, presets and
//! display are krypto-core's ([`krypto_core::settings`]); what is the
//! client's own is the cursor and the accumulation of presses.
//!
//! Presses accumulate locally: three quick → on "rounds" go 10 → 15 → 20 →
//! 30 even before the server has answered the first, because each press
//! steps from the value the player last saw, not from the last one the
//! server confirmed. Once the server's settings have caught up (or every
//! request has been answered), the server's values are shown again.

use krypto_core::settings::{Field, RoomSettings, SettingsPatch, Step};

/// The editor's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsEditor {
    /// The selected line, an index into [`Field::ALL`].
    cursor: usize,
    /// The settings as the host's presses left them, until the server's
    /// settings catch up.
    local: Option<RoomSettings>,
    /// Changes sent and not yet answered (by a snapshot or a refusal).
    in_flight: u32,
}

impl SettingsEditor {
    /// The selected field.
    pub fn field(&self) -> Field {
        let last = Field::ALL.len().saturating_sub(1);
        Field::ALL
            .get(self.cursor.min(last))
            .copied()
            .unwrap_or(Field::Variant)
    }

    /// Moves the selection up or down.
    pub fn move_cursor(&mut self, down: bool) {
        self.cursor = if down {
            (self.cursor + 1).min(Field::ALL.len().saturating_sub(1))
        } else {
            self.cursor.saturating_sub(1)
        };
    }

    /// What the editor shows: the local presses, else the server's.
    pub fn shown<'a>(&'a self, server: &'a RoomSettings) -> &'a RoomSettings {
        self.local.as_ref().unwrap_or(server)
    }

    /// One press on the selected field: returns the change to send.
    pub fn press(&mut self, server: &RoomSettings, step: Step) -> SettingsPatch {
        let shown = self.shown(server);
        let patch = shown.step(self.field(), step);
        // A step from valid settings is valid (core's tests walk every
        // field past both ends); were it not, the server's refusal would
        // reset the editor, so the press is still sent.
        if let Ok(next) = shown.patched(&patch) {
            self.local = Some(next);
        }
        self.in_flight += 1;
        patch
    }

    /// The server's settings arrived (a snapshot after a change): once they
    /// match the local presses, or every change has been answered, the
    /// server's values are the truth again.
    pub fn reconcile(&mut self, server: &RoomSettings) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.local.as_ref() == Some(server) || self.in_flight == 0 {
            self.local = None;
            self.in_flight = 0;
        }
    }

    /// The server refused a change: what it shows now is the truth.
    pub fn refused(&mut self) {
        if self.in_flight > 0 {
            self.local = None;
            self.in_flight = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_walks_core_s_settings_in_order_and_stops_at_the_ends() {
        let mut editor = SettingsEditor::default();
        editor.move_cursor(false);
        let mut seen = vec![editor.field()];
        for _ in 0..Field::ALL.len() {
            editor.move_cursor(true);
            seen.push(editor.field());
        }
        seen.dedup();
        assert_eq!(seen, Field::ALL);
    }

    #[test]
    fn quick_presses_accumulate_before_the_server_answers() {
        let server = RoomSettings::default();
        let mut editor = SettingsEditor::default();
        editor.move_cursor(true);
        editor.move_cursor(true);
        assert_eq!(editor.field(), Field::Rounds);
        let sent: Vec<Option<u32>> = (0..3)
            .map(|_| editor.press(&server, Step::Forward).rounds)
            .collect();
        assert_eq!(sent, [Some(15), Some(20), Some(30)]);
        assert_eq!(editor.shown(&server).rounds, 30);
        // The server confirms the first two: the local value stays.
        let mut confirmed = server.clone();
        confirmed.rounds = 15;
        editor.reconcile(&confirmed);
        assert_eq!(editor.shown(&confirmed).rounds, 30);
        confirmed.rounds = 20;
        editor.reconcile(&confirmed);
        assert_eq!(editor.shown(&confirmed).rounds, 30);
        // The last one lands: the server's value is shown again.
        confirmed.rounds = 30;
        editor.reconcile(&confirmed);
        assert_eq!(editor.local, None);
        // A refusal gives up the local value at once.
        editor.press(&confirmed, Step::Forward);
        editor.refused();
        assert_eq!(editor.shown(&confirmed).rounds, 30);
    }
}
