//! A form's theme: the owner's brand on its page (accent, background, font, corners,
//! appearance, logo), and the one place its rules are checked. Colours must keep the
//! page readable: WCAG AA's 4.5:1 for the page's text on the background, in every
//! appearance the theme allows, and for the buttons' white text on the accent. A colour
//! that fails is refused with a colour that passes, so the owner is not left guessing.
//!
//! The page's own colours below are those the hosted page's style sheet uses
//! (edge/hosted/assets/page.css, and edge/hosted/theme.rs for the dark appearance):
//! they are what the background is checked against.

use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

/// The light appearance's text: body text, hints, errors (page.css `--ink`, `--muted`,
/// `--bad`).
const LIGHT_TEXT: [(Rgb, &str); 3] = [
    (Rgb(0x1d, 0x24, 0x30), "text"),
    (Rgb(0x4a, 0x55, 0x68), "hints"),
    (Rgb(0xb3, 0x26, 0x1e), "error messages"),
];
/// The dark appearance's text (theme.rs's dark variables).
const DARK_TEXT: [(Rgb, &str); 3] = [
    (Rgb(0xe6, 0xe9, 0xef), "text"),
    (Rgb(0xb4, 0xbc, 0xc8), "hints"),
    (Rgb(0xff, 0x9a, 0x8f), "error messages"),
];
/// The text of buttons and of a checked scale step, on the accent.
const BUTTON_TEXT: Rgb = Rgb(0xff, 0xff, 0xff);
/// WCAG AA for normal text.
const MIN_CONTRAST: f64 = 4.5;
/// Most corner radius, in CSS pixels.
pub(crate) const MAX_RADIUS: i32 = 24;
/// The typefaces offered: system stacks only (edge/hosted/theme.rs), no web fonts.
pub(crate) const FONTS: &[&str] = &["system", "humanist", "serif", "rounded", "mono"];
/// The appearances: light, dark, or the visitor's device's choice.
pub(crate) const APPEARANCES: &[&str] = &["light", "dark", "auto"];
/// Largest logo, in bytes.
pub(crate) const MAX_LOGO_BYTES: usize = 512 * 1024;

/// The logo a theme shows: which upload (its row in `form_logos`), of what type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LogoRef {
    pub id: Uuid,
    pub content_type: String,
    pub size: i64,
}

/// A form's theme as stored (`forms.theme`); a property not set keeps the service's
/// own look.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Theme {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appearance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<LogoRef>,
}

/// `#rrggbb` (either case) as a colour.
pub(crate) fn parse_hex(text: &str) -> Option<Rgb> {
    let hex = text.strip_prefix('#')?;
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some(Rgb(byte(0)?, byte(2)?, byte(4)?))
}

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// WCAG 2's relative luminance.
    fn luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(self.0) + 0.7152 * channel(self.1) + 0.0722 * channel(self.2)
    }

    /// This colour moved `t` (0 to 1) of the way towards `to`.
    fn towards(self, to: Rgb, t: f64) -> Rgb {
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        Rgb(mix(self.0, to.0), mix(self.1, to.1), mix(self.2, to.2))
    }
}

/// WCAG 2's contrast ratio of two colours (1 to 21).
pub(crate) fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The nearest colour to `from`, moving towards `to` (black or white), that contrasts
/// enough with every one of `with`.
fn nearest_passing(from: Rgb, to: Rgb, with: &[Rgb]) -> Rgb {
    (0..=100)
        .map(|step| from.towards(to, f64::from(step) / 100.0))
        .find(|c| with.iter().all(|w| contrast(*c, *w) >= MIN_CONTRAST))
        .unwrap_or(to)
}

/// A ratio as people read it: one decimal, never rounded up to a pass (4.46 is 4.4).
fn ratio(r: f64) -> String {
    format!("{:.1}:1", (r * 10.0).floor() / 10.0)
}

fn colour(what: &str, text: &str) -> Result<Rgb, CoreError> {
    parse_hex(text).ok_or_else(|| {
        CoreError::Validation(format!(
            "theme.{what}: {text:?} is not a colour; write it as #rrggbb, e.g. #2f6fed"
        ))
    })
}

/// The accent must carry the buttons' white text.
fn check_accent(text: &str) -> Result<(), CoreError> {
    let accent = colour("accent", text)?;
    let r = contrast(accent, BUTTON_TEXT);
    if r >= MIN_CONTRAST {
        return Ok(());
    }
    let better = nearest_passing(accent, Rgb(0, 0, 0), &[BUTTON_TEXT]);
    Err(CoreError::Validation(format!(
        "theme.accent: the accent {} is too light for white button text ({}, needs 4.5:1): \
         try {} or darker",
        accent.hex(),
        ratio(r),
        better.hex()
    )))
}

/// The background must carry the page's text in the appearance it colours: dark text
/// on a light background, light text on a dark one.
fn check_background(text: &str, dark: bool) -> Result<(), CoreError> {
    let background = colour("background", text)?;
    let inks = if dark { &DARK_TEXT } else { &LIGHT_TEXT };
    let Some((worst, name, r)) = inks
        .iter()
        .map(|(ink, name)| (*ink, *name, contrast(background, *ink)))
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .filter(|(_, _, r)| *r < MIN_CONTRAST)
    else {
        return Ok(());
    };
    let colours: Vec<Rgb> = inks.iter().map(|(ink, _)| *ink).collect();
    let (direction, towards, appearance) = if dark {
        ("light", Rgb(0, 0, 0), "dark")
    } else {
        ("dark", Rgb(255, 255, 255), "light")
    };
    let better = nearest_passing(background, towards, &colours);
    let choose = if dark { "darker" } else { "lighter" };
    Err(CoreError::Validation(format!(
        "theme.background: the background {} is too {direction} for the page's {name} \
         ({} in the {appearance} appearance, {}, needs 4.5:1): try {} or {choose}",
        background.hex(),
        worst.hex(),
        ratio(r),
        better.hex()
    )))
}

impl Theme {
    /// Checks every property, in the order the builder shows them, and writes colours
    /// in lower case.
    pub(crate) fn check(&mut self) -> Result<(), CoreError> {
        if let Some(accent) = &self.accent {
            check_accent(accent)?;
        }
        let appearance = self.appearance.as_deref().unwrap_or("light");
        if !APPEARANCES.contains(&appearance) {
            return Err(CoreError::Validation(format!(
                "theme.appearance: must be one of {}",
                APPEARANCES.join(", ")
            )));
        }
        if let Some(background) = &self.background {
            // `auto`: the background colours the light appearance; the dark one is ours.
            check_background(background, appearance == "dark")?;
        }
        if let Some(font) = &self.font
            && !FONTS.contains(&font.as_str())
        {
            return Err(CoreError::Validation(format!(
                "theme.font: must be one of {}",
                FONTS.join(", ")
            )));
        }
        if let Some(radius) = self.radius
            && !(0..=MAX_RADIUS).contains(&radius)
        {
            return Err(CoreError::Validation(format!(
                "theme.radius: must be a whole number of pixels from 0 to {MAX_RADIUS}"
            )));
        }
        for c in [&mut self.accent, &mut self.background]
            .into_iter()
            .flatten()
        {
            c.make_ascii_lowercase();
        }
        Ok(())
    }
}

/// The type of a logo's bytes, by their content (never by a name or a declared type):
/// PNG, JPEG, WebP, or SVG (which the edge serves under a policy that runs nothing).
pub(crate) fn logo_type(bytes: &[u8]) -> Result<&'static str, CoreError> {
    if bytes.is_empty() {
        return Err(CoreError::validation(
            "logo: no image was sent; send a PNG, JPEG, WebP or SVG image as the body",
        ));
    }
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(CoreError::Validation(format!(
            "logo: the image is {} KB; a logo may be at most 512 KB",
            bytes.len().div_ceil(1024)
        )));
    }
    if let Some(t @ ("image/png" | "image/jpeg" | "image/webp")) =
        infer::get(bytes).map(|t| t.mime_type())
    {
        return Ok(t);
    }
    // (Its content signature may say XML or HTML: the document's first element decides.)
    if is_svg(bytes) {
        return Ok("image/svg+xml");
    }
    Err(CoreError::validation(
        "logo: the file is not an image we take; upload a PNG, JPEG, WebP or SVG image",
    ))
}

/// Whether the bytes read as an SVG document: UTF-8 text whose first element is `svg`
/// (after an XML declaration, comments or a doctype).
fn is_svg(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("<?") {
            rest = after.split_once("?>").map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.split_once("-->").map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("<!") {
            rest = after.split_once('>').map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    rest.strip_prefix("<svg")
        .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '>'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(theme: Theme) -> String {
        let mut theme = theme;
        match theme.check() {
            Err(CoreError::Validation(message)) => message,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn contrast_matches_wcag() {
        let white = Rgb(255, 255, 255);
        assert!((contrast(Rgb(0, 0, 0), white) - 21.0).abs() < 1e-9);
        assert!((contrast(white, white) - 1.0).abs() < 1e-9);
        // #767676 on white is the classic 4.54:1.
        assert!((contrast(Rgb(0x76, 0x76, 0x76), white) - 4.54).abs() < 0.01);
    }

    #[test]
    fn a_light_accent_is_refused_with_a_darker_one_that_passes() {
        let message = refused(Theme {
            accent: Some("#FFD400".into()),
            ..Theme::default()
        });
        assert!(
            message.starts_with(
                "theme.accent: the accent #ffd400 is too light for white button text (1.4:1"
            ),
            "{message}"
        );
        let hint = message.rsplit("try ").next().unwrap_or("");
        let hint = parse_hex(&hint[..7]).expect("a colour");
        assert!(contrast(hint, BUTTON_TEXT) >= MIN_CONTRAST);
        // ...and no darker than it needs to be.
        assert!(contrast(hint, BUTTON_TEXT) < 5.0, "{message}");
    }

    #[test]
    fn the_background_is_checked_in_each_appearance() {
        let mut ok = Theme {
            accent: Some("#2F6FED".into()),
            background: Some("#FFF8E7".into()),
            ..Theme::default()
        };
        assert!(ok.check().is_ok());
        assert_eq!(ok.accent.as_deref(), Some("#2f6fed"));
        let message = refused(Theme {
            background: Some("#777777".into()),
            ..Theme::default()
        });
        assert!(message.contains("too dark for the page's"), "{message}");
        assert!(message.ends_with("or lighter"), "{message}");
        // The same light background under a dark appearance: light text on it fails.
        let message = refused(Theme {
            background: Some("#fff8e7".into()),
            appearance: Some("dark".into()),
            ..Theme::default()
        });
        assert!(message.contains("too light for the page's"), "{message}");
        let mut dark = Theme {
            background: Some("#14213d".into()),
            appearance: Some("dark".into()),
            ..Theme::default()
        };
        assert!(dark.check().is_ok());
    }

    #[test]
    fn other_properties_are_bounded() {
        for theme in [
            Theme {
                accent: Some("blue".into()),
                ..Theme::default()
            },
            Theme {
                font: Some("Comic Sans".into()),
                ..Theme::default()
            },
            Theme {
                radius: Some(25),
                ..Theme::default()
            },
            Theme {
                appearance: Some("sepia".into()),
                ..Theme::default()
            },
        ] {
            refused(theme);
        }
    }

    #[test]
    fn logos_are_known_by_their_bytes() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(logo_type(png).ok(), Some("image/png"));
        let svg = b"<?xml version=\"1.0\"?>\n<!-- a logo -->\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
        assert_eq!(logo_type(svg).ok(), Some("image/svg+xml"));
        assert!(logo_type(b"<html><svg></svg></html>").is_err());
        assert!(logo_type(b"%PDF-1.7").is_err());
        assert!(logo_type(&vec![0x89; MAX_LOGO_BYTES + 1]).is_err());
    }
}
