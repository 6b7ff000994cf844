//! A QR code in the terminal: two modules to a character cell with the
//! half-block characters (`▀`, `▄`, `█`), dark on an explicit white
//! background so a phone can read it whatever the terminal's colours, with
//! a quiet zone around it as scanners need.

use qrcode::{Color as Module, EcLevel, QrCode};
use ratatui::style::{Color, Style};

/// Light modules around the code (scanners want a margin; the standard's
/// four would not fit 80×24, two read fine on a screen).
const QUIET: usize = 2;

/// How the code's cells are drawn: dark modules are the foreground.
pub const STYLE: Style = Style::new().fg(Color::Black).bg(Color::White);

/// The rows of `text`'s QR code, each as wide as the code (in cells), or
/// `None` when the text is too long for a QR code.
pub fn rows(text: &str) -> Option<Vec<String>> {
    // Low error correction keeps a room link at version 2 or 3 (25 or 29
    // modules): small enough for the room screen; a screen is not a crumpled
    // sticker.
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::L).ok()?;
    let width = code.width();
    let modules = code.to_colors();
    let dark = |x: usize, y: usize| -> bool {
        let inside = (QUIET..QUIET + width).contains(&x) && (QUIET..QUIET + width).contains(&y);
        inside && modules.get((y - QUIET) * width + (x - QUIET)) == Some(&Module::Dark)
    };
    let size = width + 2 * QUIET;
    let rows = (0..size)
        .step_by(2)
        .map(|y| {
            (0..size)
                .map(|x| match (dark(x, y), dark(x, y + 1)) {
                    (true, true) => '█',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (false, false) => ' ',
                })
                .collect()
        })
        .collect();
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_link_is_a_small_square_code() {
        let rows = rows("http://192.168.100.200:7878/r/KX7RB").unwrap_or_default();
        // Version 3: 29 modules and the quiet zone, two modules a row.
        let width = 29 + 2 * QUIET;
        assert_eq!(rows.len(), width.div_ceil(2));
        assert!(rows.iter().all(|r| r.chars().count() == width));
        // The quiet zone is light; the finder pattern's corner is dark.
        assert!(rows[0].chars().all(|c| c == ' '));
        assert_eq!(rows[1].chars().nth(QUIET), Some('█'));
    }
}
