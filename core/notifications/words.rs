//! The words of the confirmation mail (and of a recalled answer: yes, no, a file), in
//! the languages the hosted page speaks, through Project Fluent: one file per
//! language, `locales/<tag>/mail.ftl`, compiled into the binary. English is the
//! reference; a message a language lacks falls back to it (a unit test keeps every
//! language complete).

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use std::sync::LazyLock;

const SOURCES: &[(&str, &str)] = &[
    ("en", include_str!("locales/en/mail.ftl")),
    ("de", include_str!("locales/de/mail.ftl")),
    ("fr", include_str!("locales/fr/mail.ftl")),
    ("es", include_str!("locales/es/mail.ftl")),
    ("it", include_str!("locales/it/mail.ftl")),
    ("pt", include_str!("locales/pt/mail.ftl")),
    ("nl", include_str!("locales/nl/mail.ftl")),
    ("pl", include_str!("locales/pl/mail.ftl")),
    ("ja", include_str!("locales/ja/mail.ftl")),
    ("ar", include_str!("locales/ar/mail.ftl")),
];

static BUNDLES: LazyLock<Vec<FluentBundle<FluentResource>>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|&(tag, source)| {
            let resource = FluentResource::try_new(source.to_owned()).unwrap_or_else(|(r, e)| {
                tracing::error!(tag, errors = ?e, "mail words do not parse");
                r
            });
            let mut bundle = FluentBundle::new_concurrent(vec![tag.parse().unwrap_or_default()]);
            bundle.set_use_isolating(false);
            if let Err(errors) = bundle.add_resource(resource) {
                tracing::error!(tag, errors = ?errors, "mail words repeat a message");
            }
            bundle
        })
        .collect()
});

/// The mail's words in one language.
#[derive(Debug, Clone, Copy)]
pub struct MailWords {
    index: usize,
}

impl MailWords {
    /// The words of `tag` (`de`, `de-CH`), English when the mail does not speak it.
    pub fn for_tag(tag: &str) -> Self {
        let primary = tag.split(['-', '_']).next().unwrap_or(tag);
        let index = SOURCES
            .iter()
            .position(|(t, _)| t.eq_ignore_ascii_case(primary))
            .unwrap_or(0);
        Self { index }
    }

    /// The message `id` with its arguments, falling back to English, then to its id.
    pub fn with(&self, id: &str, args: &[(&str, &str)]) -> String {
        format(self.index, id, args)
            .or_else(|| format(0, id, args))
            .unwrap_or_else(|| id.to_owned())
    }

    pub fn get(&self, id: &str) -> String {
        self.with(id, &[])
    }

    /// "Yes" and "No" in this language: how a checkbox's answer reads.
    pub fn yes_no(&self) -> (String, String) {
        (self.get("yes"), self.get("no"))
    }
}

fn format(index: usize, id: &str, args: &[(&str, &str)]) -> Option<String> {
    let bundle = BUNDLES.get(index)?;
    let pattern = bundle.get_message(id)?.value()?;
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(*name, *value);
    }
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
    errors.is_empty().then(|| text.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_parses_and_has_every_english_message() {
        let ids: Vec<String> = SOURCES[0]
            .1
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(id, _)| id.trim().to_owned()))
            .collect();
        assert!(ids.len() >= 6, "{ids:?}");
        for (i, (tag, source)) in SOURCES.iter().enumerate() {
            assert!(
                FluentResource::try_new((*source).to_owned()).is_ok(),
                "{tag}"
            );
            for id in &ids {
                assert!(
                    format(i, id, &[("form", "F"), ("name", "n")]).is_some(),
                    "{tag}: {id}"
                );
            }
        }
        assert_eq!(MailWords::for_tag("de-CH").get("yes"), "Ja");
        assert_eq!(MailWords::for_tag("xx").get("no"), "No");
    }
}
