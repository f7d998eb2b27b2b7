//! The share panel of a published form: its link, an `<iframe>` snippet to embed it, and
//! a QR code of the link drawn as SVG on the server. The HTML of an owner's own form
//! (endpoint mode) is `snippet`'s.

use maud::{Markup, PreEscaped, html};
use qrcode::QrCode;
use qrcode::render::svg;

mod snippet;
pub(crate) use snippet::endpoint_snippet;

/// The `<iframe>` that embeds a form's hosted page on another site.
pub(crate) fn embed_snippet(url: &str, title: &str) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    format!(
        r#"<iframe src="{}" title="{}" width="100%" height="640" loading="lazy"></iframe>"#,
        escape(url),
        escape(title)
    )
}

/// A QR code of `text` as an inline SVG image with a text alternative; `None` when the
/// text is too long for a QR code.
pub(crate) fn qr_svg(text: &str, label: &str) -> Option<Markup> {
    let code = QrCode::new(text.as_bytes()).ok()?;
    let image = code
        .render::<svg::Color>()
        .min_dimensions(192, 192)
        .quiet_zone(true)
        .build();
    // An element of the page, not a document: without the XML declaration, and with
    // its role, name and class.
    let start = image.find("<svg")?;
    let body = image.get(start + "<svg".len()..)?;
    let label = maud::html! { (label) }.into_string();
    Some(html! {
        (PreEscaped(format!(
            r#"<svg class="qr" role="img" aria-label="{label}" focusable="false"{body}"#
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_qr_code_is_an_inline_svg_image_with_a_name() {
        let svg = qr_svg("https://forms.example.com/f/abc12345", "QR \"code\"")
            .expect("fits")
            .into_string();
        assert!(
            svg.starts_with(r#"<svg class="qr" role="img" aria-label="QR &quot;code&quot;""#),
            "{svg}"
        );
        assert!(!svg.contains("<?xml"));
        assert!(svg.ends_with("</svg>"));
        assert!(svg.contains("<path"));
    }

    #[test]
    fn the_snippet_escapes_the_title() {
        let snippet = embed_snippet("https://x.test/f/a", "A \"quoted\" <title>");
        assert!(
            snippet.contains(r#"title="A &quot;quoted&quot; &lt;title&gt;""#),
            "{snippet}"
        );
    }
}
