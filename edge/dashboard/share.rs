//! The share panel of a published form: its link, an `<iframe>` snippet to embed it, and
//! a QR code of the link drawn as SVG on the server.

use maud::{Markup, PreEscaped, html};
use qrcode::QrCode;
use qrcode::render::svg;

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

/// The copy-paste HTML of a form in endpoint mode: the owner's own `<form>` posting
/// to `action` (the form's `/f/{short_id}`), one input per field named as the endpoint
/// reads it (the label's slug, or the field id where two labels share a slug; the
/// hosted page's suffixes for the kinds whose answer is not the text typed), and the
/// hidden honeypot input, left empty by people.
pub(crate) fn endpoint_snippet(action: &str, form: &forms::pb::Form) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let slugs: Vec<String> = form
        .fields
        .iter()
        .map(|f| forms::pb::convert::slug(&f.label))
        .collect();
    let name_of = |at: usize| {
        let slug = &slugs[at];
        if slug.is_empty() || slugs.iter().filter(|s| *s == slug).count() > 1 {
            form.fields[at].id.clone()
        } else {
            slug.clone()
        }
    };
    let files = form.fields.iter().any(|f| f.r#type == "file_upload");
    // A form that asks for a proof of work: the service's script fetches its challenge
    // and fills `_pow` before the visitor can send.
    let pow = form
        .settings
        .as_ref()
        .and_then(|s| s.fields.get("proof_of_work"))
        .is_some_and(|v| matches!(v.kind, Some(prost_types::value::Kind::BoolValue(true))));
    let mut html = format!(
        "<form action=\"{}\" method=\"POST\"{}{}>\n",
        escape(action),
        if files {
            " enctype=\"multipart/form-data\""
        } else {
            ""
        },
        if pow {
            format!(" data-pow-challenge-url=\"{}/challenge\"", escape(action))
        } else {
            String::new()
        }
    );
    for (at, field) in form.fields.iter().enumerate() {
        if field.r#type == "page_break" {
            continue;
        }
        let name = escape(&name_of(at));
        let label = escape(&field.label);
        let required = if field.required { " required" } else { "" };
        let options = |kind: &str, suffix: &str| {
            field
                .options
                .iter()
                .map(|o| {
                    format!(
                        "    <label><input type=\"{kind}\" name=\"{name}{suffix}\" value=\"{}\"> {}</label>\n",
                        escape(&o.id),
                        escape(&o.label)
                    )
                })
                .collect::<String>()
        };
        let input = |kind: &str| {
            format!(
                "  <label>{label}\n    <input type=\"{kind}\" name=\"{name}\"{required}>\n  </label>\n"
            )
        };
        html.push_str(&match field.r#type.as_str() {
            "long_text" | "textarea" => format!(
                "  <label>{label}\n    <textarea name=\"{name}\"{required}></textarea>\n  </label>\n"
            ),
            "email" => input("email"),
            "number" => input("number"),
            "date" => input("date"),
            "url" => input("url"),
            "phone" => input("tel"),
            "file_upload" => input("file"),
            "hidden" => format!("  <input type=\"hidden\" name=\"{name}\" value=\"\">\n"),
            "single_choice" => format!(
                "  <fieldset><legend>{label}</legend>\n{}  </fieldset>\n",
                options("radio", ":one")
            ),
            "multiple_choice" => format!(
                "  <fieldset><legend>{label}</legend>\n{}  </fieldset>\n",
                options("checkbox", ":many")
            ),
            "dropdown" => format!(
                "  <label>{label}\n    <select name=\"{name}:one\"{required}>\n      <option value=\"\"></option>\n{}    </select>\n  </label>\n",
                field
                    .options
                    .iter()
                    .map(|o| format!(
                        "      <option value=\"{}\">{}</option>\n",
                        escape(&o.id),
                        escape(&o.label)
                    ))
                    .collect::<String>()
            ),
            "rating" | "scale" => format!(
                "  <label>{label}\n    <input type=\"number\" name=\"{name}:int\" step=\"1\"{required}>\n  </label>\n"
            ),
            "checkbox" => format!(
                "  <label><input type=\"checkbox\" name=\"{name}:bool\" value=\"true\"{required}> {label}</label>\n"
            ),
            _ => input("text"),
        });
    }
    html.push_str(&format!(
        "  <!-- Left empty by people; robots fill it in, and their posts are dropped. -->\n  \
         <input type=\"text\" name=\"{}\" style=\"display:none\" tabindex=\"-1\" autocomplete=\"off\">\n",
        "_gotcha"
    ));
    if pow {
        html.push_str(
            "  <input type=\"hidden\" name=\"_pow\">\n  <p id=\"pow-status\" role=\"status\"></p>\n",
        );
    }
    html.push_str("  <button type=\"submit\">Send</button>\n</form>");
    if pow && let Some((origin, _)) = action.rsplit_once("/f/") {
        html.push_str(&format!(
            "\n<script type=\"module\" src=\"{}/f/assets/pow.js\"></script>",
            escape(origin)
        ));
    }
    html
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
    fn the_endpoint_snippet_names_inputs_as_the_endpoint_reads_them() {
        let field = |id: &str, kind: &str, label: &str| forms::pb::FormField {
            id: id.to_owned(),
            r#type: kind.to_owned(),
            label: label.to_owned(),
            required: kind == "email",
            ..Default::default()
        };
        let form = forms::pb::Form {
            fields: vec![
                field("f1", "email", "Email address"),
                field("f2", "short_text", "Note"),
                field("f3", "long_text", "note!"),
                field("f4", "checkbox", "I agree \"fully\""),
                field("f5", "file_upload", "CV"),
            ],
            ..Default::default()
        };
        let html = endpoint_snippet("https://forms.test/f/abc", &form);
        assert!(html.starts_with(
            r#"<form action="https://forms.test/f/abc" method="POST" enctype="multipart/form-data">"#
        ), "{html}");
        assert!(
            html.contains(r#"<input type="email" name="email_address" required>"#),
            "{html}"
        );
        // Two labels of one slug: each by its id.
        assert!(
            html.contains(r#"name="f2""#) && html.contains(r#"name="f3""#),
            "{html}"
        );
        assert!(
            html.contains(r#"name="i_agree_fully:bool" value="true"> I agree &quot;fully&quot;"#),
            "{html}"
        );
        assert!(html.contains(r#"<input type="file" name="cv">"#), "{html}");
        assert!(
            html.contains(r#"name="_gotcha" style="display:none""#),
            "{html}"
        );
    }

    #[test]
    fn the_snippet_of_a_form_with_proof_of_work_loads_the_services_script() {
        let settings = serde_json::json!({"proof_of_work": true});
        let mut form = forms::pb::Form {
            fields: vec![forms::pb::FormField {
                id: "p".to_owned(),
                r#type: "page_break".to_owned(),
                label: "Second page".to_owned(),
                ..Default::default()
            }],
            settings: Some(forms::pb::convert::object_to_struct(
                settings.as_object().expect("object"),
            )),
            ..Default::default()
        };
        let html = endpoint_snippet("https://forms.test/f/abc", &form);
        assert!(
            html.contains(r#"data-pow-challenge-url="https://forms.test/f/abc/challenge""#),
            "{html}"
        );
        assert!(
            html.contains(r#"<input type="hidden" name="_pow">"#),
            "{html}"
        );
        assert!(
            html.ends_with(
                r#"<script type="module" src="https://forms.test/f/assets/pow.js"></script>"#
            ),
            "{html}"
        );
        assert!(
            !html.contains("Second page"),
            "a page break is no input: {html}"
        );
        form.settings = None;
        let html = endpoint_snippet("https://forms.test/f/abc", &form);
        assert!(!html.contains("pow"), "{html}");
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
