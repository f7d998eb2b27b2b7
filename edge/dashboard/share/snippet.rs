//! The copy-paste HTML of a form in endpoint mode (the owner's own `<form>` on their
//! own site, posting to the form's address), shown in the share panel.

// The "Other" choice is posted as the hosted page posts it (its text in `<name>:other`).
use crate::hosted::{ENDPOINT_HONEYPOT_FIELD, ENDPOINT_POW_FIELD, OTHER};
use forms::pb::FieldKind;

/// The copy-paste HTML of a form in endpoint mode: the owner's own `<form>` posting
/// to `action` (the form's `/f/{short_id}`), one input per field named as the endpoint
/// reads it (the label's slug, or the field id where two labels share a slug; the
/// hosted page's suffixes for the kinds whose answer is not the text typed), and the
/// hidden honeypot input, left empty by people.
///
/// The page it is pasted into shows every question: the form's conditions are applied
/// by the service (an answer to a question the other answers hide is dropped), so only
/// questions asked whatever the answers are marked `required` for the browser.
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
    let files = form.fields.iter().any(|f| f.is(FieldKind::FileUpload));
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
    // Whether the page being walked is shown only on a condition.
    let mut page_conditional = false;
    for (at, field) in form.fields.iter().enumerate() {
        if field.is(FieldKind::PageBreak) {
            page_conditional = !field.show_if.is_empty();
            continue;
        }
        let name = escape(&name_of(at));
        let label = escape(&field.label);
        // A question asked only on a condition may be hidden: the browser must not
        // insist on it.
        let asked_always = field.show_if.is_empty() && !page_conditional;
        let required = if field.required && asked_always {
            " required"
        } else {
            ""
        };
        // Every option, then "Other" with its text box where the field takes one. A
        // radio group is required by `required` on its radios; no attribute makes a
        // browser insist on one ticked box of a group.
        let options = |kind: &str, suffix: &str| {
            let each = if kind == "radio" { required } else { "" };
            let mut out = field
                .options
                .iter()
                .map(|o| {
                    format!(
                        "    <label><input type=\"{kind}\" name=\"{name}{suffix}\" value=\"{}\"{each}> {}</label>\n",
                        escape(&o.id),
                        escape(&o.label)
                    )
                })
                .collect::<String>();
            if field.allow_other {
                out.push_str(&format!(
                    "    <label><input type=\"{kind}\" name=\"{name}{suffix}\" value=\"{OTHER}\"{each}> Other</label>\n    \
                     <label>Other (please specify) <input type=\"text\" name=\"{name}:other\"></label>\n"
                ));
            }
            out
        };
        let input = |kind: &str| {
            format!(
                "  <label>{label}\n    <input type=\"{kind}\" name=\"{name}\"{required}>\n  </label>\n"
            )
        };
        html.push_str(&match field.kind() {
            Some(FieldKind::LongText | FieldKind::Textarea) => format!(
                "  <label>{label}\n    <textarea name=\"{name}\"{required}></textarea>\n  </label>\n"
            ),
            Some(FieldKind::Email) => input("email"),
            Some(FieldKind::Number) => input("number"),
            Some(FieldKind::Date) => input("date"),
            Some(FieldKind::Url) => input("url"),
            Some(FieldKind::Phone) => input("tel"),
            Some(FieldKind::FileUpload) => input("file"),
            Some(FieldKind::Hidden) => format!("  <input type=\"hidden\" name=\"{name}\" value=\"\">\n"),
            Some(FieldKind::SingleChoice) => format!(
                "  <fieldset><legend>{label}</legend>\n{}  </fieldset>\n",
                options("radio", ":one")
            ),
            Some(FieldKind::MultipleChoice) => format!(
                "  <fieldset><legend>{label}</legend>\n{}  </fieldset>\n",
                options("checkbox", ":many")
            ),
            Some(FieldKind::Dropdown) => format!(
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
            Some(FieldKind::Rating | FieldKind::Scale) => {
                let (min, max) = crate::hosted::range_of(field);
                format!(
                    "  <label>{label}\n    <input type=\"number\" name=\"{name}:int\" min=\"{min}\" max=\"{max}\" step=\"1\"{required}>\n  </label>\n"
                )
            }
            Some(FieldKind::Checkbox) => format!(
                "  <label><input type=\"checkbox\" name=\"{name}:bool\" value=\"true\"{required}> {label}</label>\n"
            ),
            _ => input("text"),
        });
    }
    html.push_str(&format!(
        "  <!-- Left empty by people; robots fill it in, and their posts are dropped. -->\n  \
         <input type=\"text\" name=\"{ENDPOINT_HONEYPOT_FIELD}\" style=\"display:none\" tabindex=\"-1\" autocomplete=\"off\">\n"
    ));
    if pow {
        html.push_str(&format!(
            "  <input type=\"hidden\" name=\"{ENDPOINT_POW_FIELD}\">\n  <p id=\"pow-status\" role=\"status\"></p>\n"
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn field(id: &str, kind: &str, label: &str, required: bool) -> forms::pb::FormField {
        forms::pb::FormField {
            id: id.to_owned(),
            r#type: kind.to_owned(),
            label: label.to_owned(),
            required,
            ..Default::default()
        }
    }

    fn option(id: &str, label: &str) -> forms::pb::FieldOption {
        forms::pb::FieldOption {
            id: id.to_owned(),
            label: label.to_owned(),
        }
    }

    fn snippet(fields: Vec<forms::pb::FormField>) -> String {
        let form = forms::pb::Form {
            fields,
            ..Default::default()
        };
        endpoint_snippet("https://forms.test/f/abc", &form)
    }

    #[test]
    fn only_questions_asked_whatever_the_answers_are_required() {
        let condition = forms::pb::Condition {
            field: "car".to_owned(),
            ..Default::default()
        };
        let mut model = field("m", "short_text", "Model", true);
        model.show_if = vec![condition.clone()];
        let mut page = field("p", "page_break", "Your car", false);
        page.show_if = vec![condition];
        let html = snippet(vec![
            field("n", "short_text", "Name", true),
            model,
            page,
            field("c", "short_text", "Colour", true),
            field("l", "page_break", "Last", false),
            field("e", "email", "Email", true),
        ]);
        assert!(html.contains(r#"name="name" required>"#), "{html}");
        assert!(html.contains(r#"name="model">"#), "{html}");
        assert!(html.contains(r#"name="colour">"#), "{html}");
        assert!(html.contains(r#"name="email" required>"#), "{html}");
    }

    #[test]
    fn required_radio_groups_are_required_and_other_has_its_text_box() {
        let mut car = field("car", "single_choice", "Car", true);
        car.options = vec![option("y", "Yes"), option("n", "No")];
        car.allow_other = true;
        let mut pets = field("pets", "multiple_choice", "Pets", false);
        pets.options = vec![option("c", "Cat")];
        let html = snippet(vec![car, pets]);
        for value in ["y", "n", "_other"] {
            assert!(
                html.contains(&format!(r#"name="car:one" value="{value}" required>"#)),
                "{html}"
            );
        }
        assert!(html.contains(r#"name="car:other""#), "{html}");
        assert!(html.contains("> Other</label>"), "{html}");
        assert!(
            html.contains(r#"name="pets:many" value="c"> Cat"#),
            "{html}"
        );
        assert!(!html.contains("pets:other"), "{html}");
    }

    #[test]
    fn ratings_and_scales_carry_their_bounds() {
        let mut stars = field("r", "rating", "Stars", false);
        stars.max = Some(prost_types::Value {
            kind: Some(prost_types::value::Kind::NumberValue(7.0)),
        });
        let html = snippet(vec![stars, field("s", "scale", "Score", false)]);
        assert!(
            html.contains(r#"name="stars:int" min="1" max="7" step="1">"#),
            "{html}"
        );
        assert!(
            html.contains(r#"name="score:int" min="0" max="10" step="1">"#),
            "{html}"
        );
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
}
