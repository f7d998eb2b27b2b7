//! The search text of a response: what `q` and text conditions look in.
//!
//! The rule, one for Rust and for SQL (`forms_fold` and `forms_search_text` in
//! migration 0016, for partial responses and rows stored before it): text is *folded*
//! by lower-casing it, decomposing it (NFD), dropping the combining accents
//! (U+0300–U+036F) and writing ø ł đ ħ ı ŧ as o l d h i t; a response's search text is
//! every string and number of its answers, at any depth, folded, each between newlines,
//! so that a whole answer is found as `\nanswer\n`. It is computed here when a response
//! is stored (PostgreSQL only indexes it: the insert costs it nothing more), and a
//! test holds both implementations to the same result. A choice is stored by its
//! option's id: a search also looks for the options whose label it finds
//! (`options_found`).

use crate::forms::Field;
use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

/// `text` folded: lower case, accents dropped.
pub fn fold(text: &str) -> String {
    let lower: String = text.chars().flat_map(char::to_lowercase).collect();
    lower
        .nfd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .map(|c| match c {
            'ø' => 'o',
            'ł' => 'l',
            'đ' => 'd',
            'ħ' => 'h',
            'ı' => 'i',
            'ŧ' => 't',
            other => other,
        })
        .collect()
}

/// The search text of `answers`.
pub fn text_of(answers: &Map<String, Value>) -> String {
    let mut out = String::from("\n");
    for value in answers.values() {
        push_values(&mut out, value);
    }
    out
}

fn push_values(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => {
            out.push_str(&fold(s));
            out.push('\n');
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| push_values(out, v)),
        Value::Object(map) => map.values().for_each(|v| push_values(out, v)),
        Value::Null | Value::Bool(_) => {}
    }
}

/// The ids of the options, of every choice field, whose label `text` finds: is a part
/// of (or, `whole`, is) the label, ignoring case and accents. An answer stores an
/// option's id, so a search looks for these too; read from the form's labels at each
/// search, a label renamed since is found by its new name in every response.
pub fn options_found(text: &str, whole: bool, fields: &[Field]) -> Vec<String> {
    let text = fold(text);
    fields
        .iter()
        .flat_map(|f| &f.options)
        .filter(|o| {
            let label = fold(&o.label);
            if whole {
                label == text
            } else {
                label.contains(&text)
            }
        })
        .map(|o| o.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folding_drops_case_and_accents() {
        assert_eq!(fold("José Ærø ŁÓDŹ Ünïcode"), "jose æro lodz unicode");
        assert_eq!(fold("Straße 50%_off"), "straße 50%_off");
    }

    #[test]
    fn every_string_and_number_is_on_its_own_line() {
        let answers = json!({"a": "Ada Lovelace", "b": ["red", "blue"], "c": 4.5,
                             "d": {"other": "Éclair"}, "e": true, "f": null});
        assert_eq!(
            text_of(answers.as_object().unwrap_or(&Map::new())),
            "\nada lovelace\nred\nblue\n4.5\neclair\n"
        );
        assert_eq!(text_of(&Map::new()), "\n");
    }
}
