//! The devices a player controls, as `devices` and `device_added` show
//! them, and the rule that turns the label a `hello` sends into one the
//! server keeps.

use serde::{Deserialize, Serialize};

/// Longest device label kept, in characters; a longer one is cut.
pub const MAX_DEVICE_LABEL_CHARS: usize = 40;

/// The label of a device whose hello gave none (or only hidden characters).
pub const UNNAMED_DEVICE: &str = "unnamed device";

/// One device that can sign in as the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The device's id, for `revoke_device` (16 hex digits).
    pub id: String,
    /// What the device called itself ("Firefox on Android").
    pub label: String,
    /// When it was added, Unix milliseconds.
    pub created_ms: i64,
    /// When it last signed in, Unix milliseconds (to the minute).
    pub last_used_ms: i64,
    /// Whether it is the device asking.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub this_device: bool,
}

/// The label kept for what a hello sent: hidden characters dropped, spaces
/// squeezed, at most [`MAX_DEVICE_LABEL_CHARS`] characters; empty or absent
/// is [`UNNAMED_DEVICE`]. Bounded whatever a client sends.
pub fn device_label(sent: Option<&str>) -> String {
    let Some(sent) = sent else {
        return UNNAMED_DEVICE.to_owned();
    };
    // Only a bounded prefix is looked at: a megabyte of spaces costs nothing.
    let head: String = sent.chars().take(4 * MAX_DEVICE_LABEL_CHARS).collect();
    let shown = crate::text::for_display(&head);
    let label: String = shown
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_DEVICE_LABEL_CHARS)
        .collect();
    let label = label.trim_end().to_owned();
    if label.is_empty() {
        UNNAMED_DEVICE.to_owned()
    } else {
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_cleaned_and_bounded() {
        assert_eq!(
            device_label(Some("Firefox on Android")),
            "Firefox on Android"
        );
        assert_eq!(device_label(Some("  a\u{202e}b \n c ")), "ab c");
        assert_eq!(device_label(None), UNNAMED_DEVICE);
        assert_eq!(device_label(Some(" \u{200b} ")), UNNAMED_DEVICE);
        let long = "x".repeat(1000);
        assert_eq!(
            device_label(Some(&long)).chars().count(),
            MAX_DEVICE_LABEL_CHARS
        );
    }
}
