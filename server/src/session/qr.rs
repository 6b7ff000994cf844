//! QR codes of the links players share: a room's page (drawn by the web
//! pages' routes) and a device code's page (sent to the player who asked).

use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};

/// A QR code of `text`, as SVG, black on white with its quiet zone.
pub(crate) fn qr_svg(text: &str) -> Option<String> {
    let qr = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M).ok()?;
    Some(
        qr.render::<svg::Color<'_>>()
            .min_dimensions(256, 256)
            .quiet_zone(true)
            .dark_color(svg::Color("#000000"))
            .light_color(svg::Color("#ffffff"))
            .build(),
    )
}

/// The QR code of a device code's page, `BASE/link#CODE` (the code in the
/// fragment, which no browser sends to a server). `None` when `base` is not
/// a plain `http(s)://host[:port][/prefix]` address. Only the player who
/// asked sees it, so any such base is drawn.
pub(crate) fn link_qr(base: &str, code: &str) -> Option<String> {
    let base = base.trim_end_matches('/');
    let rest = base
        .strip_prefix("http://")
        .or_else(|| base.strip_prefix("https://"))?;
    let plain = |c: char| c.is_ascii_alphanumeric() || "-._:[]/".contains(c);
    if base.len() > 200 || rest.is_empty() || rest.starts_with('/') || !rest.chars().all(plain) {
        return None;
    }
    qr_svg(&format!("{base}/link#{code}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn device_links_are_drawn_only_for_plain_addresses() {
        let svg = link_qr("http://192.168.1.20:7878/", "K7QX-M2PD").unwrap();
        assert!(svg.starts_with("<?xml") || svg.contains("<svg"));
        assert!(link_qr("https://[fd00::5]:9000/node-b", "K7QX-M2PD").is_some());
        for bad in [
            "javascript:alert(1)",
            "http://",
            "http://a@b",
            "ftp://x",
            "http://x/?a=b",
            "http:///x",
        ] {
            assert!(link_qr(bad, "K7QX-M2PD").is_none(), "{bad}");
        }
    }
}
