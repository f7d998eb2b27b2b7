//! The hosted pages' own words (Next, Submit, the error pages, the problems of an
//! answer…) in every language the page speaks, through Project Fluent: one file a
//! translator edits per language, `locales/<tag>/page.ftl`, compiled into the binary.
//! English is the reference; a message a language lacks falls back to it (a unit test
//! keeps every language complete). The form's own texts are the owner's, not these.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::sync::LazyLock;

/// Each language of the page, one for each language a form may be in (the core's
/// `pb::FORM_LANGUAGES`, in its order; a unit test holds the two together): its tag, its
/// name in English (for the dashboard), its name in itself (for the switcher), whether
/// it is written right to left, and its Fluent source.
const SOURCES: &[(&str, &str, &str, bool, &str)] = &[
    (
        "en",
        "English",
        "English",
        false,
        include_str!("locales/en/page.ftl"),
    ),
    (
        "de",
        "German",
        "Deutsch",
        false,
        include_str!("locales/de/page.ftl"),
    ),
    (
        "fr",
        "French",
        "Français",
        false,
        include_str!("locales/fr/page.ftl"),
    ),
    (
        "es",
        "Spanish",
        "Español",
        false,
        include_str!("locales/es/page.ftl"),
    ),
    (
        "it",
        "Italian",
        "Italiano",
        false,
        include_str!("locales/it/page.ftl"),
    ),
    (
        "pt",
        "Portuguese",
        "Português",
        false,
        include_str!("locales/pt/page.ftl"),
    ),
    (
        "nl",
        "Dutch",
        "Nederlands",
        false,
        include_str!("locales/nl/page.ftl"),
    ),
    (
        "pl",
        "Polish",
        "Polski",
        false,
        include_str!("locales/pl/page.ftl"),
    ),
    (
        "ja",
        "Japanese",
        "日本語",
        false,
        include_str!("locales/ja/page.ftl"),
    ),
    (
        "ar",
        "Arabic",
        "العربية",
        true,
        include_str!("locales/ar/page.ftl"),
    ),
];

/// One language's words, ready to format.
struct Language {
    tag: &'static str,
    name: &'static str,
    rtl: bool,
    bundle: FluentBundle<FluentResource>,
}

/// Every language, parsed once. A file with a mistake keeps the messages that parsed
/// (the rest fall back to English) and is logged; the unit tests refuse it before then.
static LANGUAGES: LazyLock<Vec<Language>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|&(tag, _, name, rtl, source)| {
            let resource = FluentResource::try_new(source.to_owned()).unwrap_or_else(|(r, e)| {
                tracing::error!(tag, errors = ?e, "page words do not parse");
                r
            });
            let id = tag.parse().unwrap_or_default();
            let mut bundle = FluentBundle::new_concurrent(vec![id]);
            // No bidi isolation marks around values: the page's HTML isolates what it
            // needs, and the marks would stand inside every number and label.
            bundle.set_use_isolating(false);
            if let Err(errors) = bundle.add_resource(resource) {
                tracing::error!(tag, errors = ?errors, "page words repeat a message");
            }
            Language {
                tag,
                name,
                rtl,
                bundle,
            }
        })
        .collect()
});

/// The tags of the languages the page's words are in.
pub(crate) fn tags() -> impl Iterator<Item = &'static str> {
    SOURCES.iter().map(|(tag, ..)| *tag)
}

/// A language's name in English ("German"), for the dashboard, if the page speaks it.
pub(crate) fn english_name_of(tag: &str) -> Option<&'static str> {
    Words::of(tag).map(|w| SOURCES[w.index].1)
}

/// A language's name in itself ("Deutsch"), if the page speaks it.
pub(crate) fn name_of(tag: &str) -> Option<&'static str> {
    Words::of(tag).map(|w| w.language().name)
}

/// The page's words in one language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Words {
    /// Index into `LANGUAGES` (and `SOURCES`).
    index: usize,
}

impl Default for Words {
    fn default() -> Self {
        Self::english()
    }
}

impl Words {
    pub(crate) fn english() -> Self {
        Self { index: 0 }
    }

    /// The words of the language `tag` (`de`, `de-CH`: a region falls back to its
    /// language), if the page speaks it.
    pub(crate) fn of(tag: &str) -> Option<Self> {
        let primary = tag.split(['-', '_']).next().unwrap_or(tag);
        let find = |t: &str| SOURCES.iter().position(|(s, ..)| s.eq_ignore_ascii_case(t));
        find(tag)
            .or_else(|| find(primary))
            .map(|index| Self { index })
    }

    /// The words for the language a page is shown in, English when the page does not
    /// speak it (the form's texts are then in that language, the page's own in English).
    pub(crate) fn for_tag(tag: &str) -> Self {
        Self::of(tag).unwrap_or_default()
    }

    fn language(&self) -> &'static Language {
        &LANGUAGES[self.index.min(LANGUAGES.len() - 1)]
    }

    pub(crate) fn tag(&self) -> &'static str {
        self.language().tag
    }

    pub(crate) fn is_english(&self) -> bool {
        self.index == 0
    }

    /// The text direction of the language, for `<html dir>`.
    pub(crate) fn dir(&self) -> &'static str {
        if self.language().rtl { "rtl" } else { "ltr" }
    }

    /// A message without arguments.
    pub(crate) fn get(&self, id: &str) -> String {
        self.with(id, &[])
    }

    /// A message with its arguments (a value that reads as a number is one, so that
    /// plural forms choose by it).
    pub(crate) fn with(&self, id: &str, args: &[(&str, &str)]) -> String {
        self.format(id, args)
            .or_else(|| Self::english().format(id, args))
            .unwrap_or_else(|| id.to_owned())
    }

    /// The message `id` formatted, if this language has it.
    fn format(&self, id: &str, args: &[(&str, &str)]) -> Option<String> {
        let bundle = &self.language().bundle;
        let pattern = bundle.get_message(id)?.value()?;
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            let value = match value.parse::<f64>() {
                Ok(n) if n.is_finite() && !value.starts_with('+') => FluentValue::from(n),
                _ => FluentValue::from(*value),
            };
            fluent_args.set(*name, value);
        }
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
        errors.is_empty().then(|| text.into_owned())
    }

    /// Whether this language has its own words for the message `id`.
    pub(crate) fn has(&self, id: &str) -> bool {
        self.language().bundle.has_message(id)
    }
}

/// The language a page's query asks for: `?lang=de`.
pub(crate) fn asked(query: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
    pairs
        .into_iter()
        .find(|(k, v)| k == "lang" && !v.trim().is_empty())
        .map(|(_, v)| v.trim().chars().take(35).collect())
}

/// The languages a form is offered in, its default first; without a form (an error
/// page), every language the page speaks, English first.
pub(crate) fn offered(form: Option<&forms::pb::Form>) -> Vec<String> {
    match form {
        Some(form) => super::translate::languages(form),
        None => tags().map(str::to_owned).collect(),
    }
}

/// The language to show among `offered` (the form's languages, its default first):
/// the one `asked` (`?lang=`) if offered, else the best of the visitor's
/// `Accept-Language` that is offered, else the default.
pub(crate) fn choose<'a>(
    asked: Option<&str>,
    accept_language: Option<&str>,
    offered: &[&'a str],
) -> Option<&'a str> {
    let matching = |tag: &str| -> Option<&'a str> {
        let tag = tag.trim();
        if tag.is_empty() || tag == "*" {
            return None;
        }
        let primary = tag.split('-').next().unwrap_or(tag);
        offered
            .iter()
            .find(|o| o.eq_ignore_ascii_case(tag))
            .or_else(|| {
                offered.iter().find(|o| {
                    o.eq_ignore_ascii_case(primary)
                        || o.split('-')
                            .next()
                            .is_some_and(|p| p.eq_ignore_ascii_case(primary))
                })
            })
            .copied()
    };
    if let Some(found) = asked.and_then(matching) {
        return Some(found);
    }
    if let Some(header) = accept_language {
        // `de-CH, de;q=0.9, en;q=0.5`: by quality, then by order.
        let mut ranges: Vec<(f32, usize, &str)> = header
            .split(',')
            .enumerate()
            .filter_map(|(i, part)| {
                let mut pieces = part.split(';');
                let tag = pieces.next()?.trim();
                let q = pieces
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
                (q > 0.0).then_some((q, i, tag))
            })
            .take(32)
            .collect();
        ranges.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        if let Some(found) = ranges.iter().find_map(|(_, _, tag)| matching(tag)) {
            return Some(found);
        }
    }
    offered.first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message names of a Fluent file (`name = …` at the start of a line).
    fn names(source: &str) -> Vec<&str> {
        source
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
            .filter_map(|l| l.split_once(" =").map(|(name, _)| name.trim()))
            .collect()
    }

    /// Values for every argument a message may take.
    const ARGS: &[(&str, &str)] = &[
        ("n", "3"),
        ("position", "2"),
        ("pages", "3"),
        ("title", "Survey"),
        ("id", "abc"),
        ("label", "Name"),
        ("max", "10"),
        ("min", "1"),
        ("date", "2026-01-01"),
        ("mb", "5"),
        ("types", "pdf, png"),
        ("claimed", "pdf"),
        ("score", "2"),
        ("max", "3"),
        ("name", "cv.png"),
        ("size", "12 KB"),
    ];

    #[test]
    fn every_language_has_every_english_message_and_formats_it() {
        let english = names(SOURCES[0].4);
        assert!(english.len() > 50, "{english:?}");
        for (i, (tag, .., source)) in SOURCES.iter().enumerate() {
            assert!(
                FluentResource::try_new((*source).to_owned()).is_ok(),
                "{tag}: page.ftl does not parse"
            );
            let words = Words { index: i };
            let own = names(source);
            for name in &english {
                assert!(words.has(name), "{tag} lacks {name}");
                let text = words
                    .format(name, ARGS)
                    .unwrap_or_else(|| panic!("{tag}: {name} does not format"));
                assert!(!text.trim().is_empty(), "{tag}: {name} is empty");
                assert!(
                    !text.contains('{'),
                    "{tag}: {name} left a placeable: {text}"
                );
            }
            for name in &own {
                assert!(english.contains(name), "{tag} has {name}, which en has not");
            }
        }
    }

    #[test]
    fn words_by_tag_with_plurals_and_fallback() {
        let de = Words::for_tag("de-AT");
        assert_eq!(de.tag(), "de");
        assert_eq!(de.get("next"), "Weiter");
        assert_eq!(
            de.with("steps", &[("position", "1"), ("pages", "3")]),
            "Seite 1 von 3"
        );
        assert_eq!(de.with("stars", &[("n", "1")]), "1 Stern");
        assert_eq!(Words::english().with("stars", &[("n", "2")]), "2 stars");
        assert_eq!(Words::for_tag("ar").dir(), "rtl");
        assert_eq!(Words::for_tag("sw").tag(), "en");
        assert_eq!(Words::english().get("no-such-message"), "no-such-message");
        assert_eq!(name_of("ja"), Some("日本語"));
        assert_eq!(tags().count(), 10);
    }

    #[test]
    fn the_page_speaks_every_language_a_form_may_be_in() {
        // The core decides the languages; the page needs its words in each, in the
        // core's order (the switcher and the builder list them so).
        assert_eq!(tags().collect::<Vec<_>>(), forms::pb::FORM_LANGUAGES);
        assert_eq!(english_name_of("de"), Some("German"));
        assert_eq!(english_name_of("xx"), None);
    }

    #[test]
    fn the_language_shown_is_asked_then_accepted_then_default() {
        let offered = ["en", "de", "ar"];
        assert_eq!(choose(Some("ar"), Some("de"), &offered), Some("ar"));
        assert_eq!(choose(Some("xx"), Some("de-CH"), &offered), Some("de"));
        assert_eq!(
            choose(None, Some("fr;q=0.9, ar;q=0.8, de;q=0.7"), &offered),
            Some("ar")
        );
        assert_eq!(choose(None, Some("de;q=0, fr"), &offered), Some("en"));
        assert_eq!(choose(None, None, &offered), Some("en"));
        assert_eq!(choose(None, Some("pt-BR"), &["pt-BR", "en"]), Some("pt-BR"));
        assert_eq!(choose(None, Some("pt"), &["en", "pt-BR"]), Some("pt-BR"));
    }
}
