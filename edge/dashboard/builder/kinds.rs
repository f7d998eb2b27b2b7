//! The kinds of question the builder offers, in one table: how each is named, marked in
//! the list, edited, drawn in the preview and compared in a condition.
//!
//! The core's list of kinds is `pb::FieldKind`; this table says how the builder shows
//! each (a unit test holds it to `FieldKind::ALL`, one row each), so adding a kind to the
//! core means adding a row here, and nothing else of the builder names kinds. The operators a kind offers mirror
//! the core's rule (`Op::applies_to`), which still decides when the form is saved: the
//! editor only avoids offering what would be refused.

use forms::pb::{self, FieldKind};

/// How a kind of field is drawn in the preview.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Draw {
    /// A one-line input of this HTML type.
    Line(&'static str),
    /// A multi-line text box.
    Area,
    /// A file picker.
    File,
    /// One input of this HTML type (radio or checkbox) per option, in a fieldset.
    Choice(&'static str),
    /// A select of the options.
    Select,
    /// Radio buttons over the field's range (rating, scale).
    Range,
    /// One consent checkbox.
    Tick,
    /// Not shown to visitors.
    Hidden,
    /// Not a question: starts a page, titled by its label.
    Page,
}

/// Which bounds (`min`/`max`) a kind takes, and how the builder asks for them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Bounds {
    None,
    /// Numbers, both optional.
    Number,
    /// Dates (`YYYY-MM-DD`), both optional.
    Date,
    /// The number of stars only (`max`, 1 to 10).
    Stars,
    /// Whole numbers with end labels (0 to 10 by default).
    Scale,
}

/// What a condition on answers of a kind may test (see `conditions`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Compare {
    /// Text: is, is not, is any of, contains.
    Text,
    /// One option: is, is not, is any of.
    Option,
    /// Ticked options: has ticked, has any of ticked.
    Options,
    /// A number or a date: is, is not, more/after, less/before.
    Ordered,
    /// Stars or a scale's point: as ordered, and "is any of".
    Points,
    /// A consent box: ticked or not.
    Tick,
    /// Only whether it was answered (a file).
    Presence,
    /// Not a question (a page break).
    Nothing,
}

/// A kind of field the core knows (`FormField.type`).
pub(super) struct Kind {
    /// The core's kind.
    pub kind: FieldKind,
    /// What an owner reads in the palette and the list.
    pub label: &'static str,
    /// A one- or two-character mark for the list and the palette (decorative).
    pub icon: &'static str,
    /// A few words on what it is for, under its name in the palette.
    pub hint: &'static str,
    pub draw: Draw,
    pub bounds: Bounds,
    pub compare: Compare,
}

impl Kind {
    /// The core's name of the kind (`FormField.type`).
    pub(super) fn name(&self) -> &'static str {
        self.kind.as_str()
    }
    /// Whether it takes the file options (allowed_types, max_size_mb).
    pub(super) fn file(&self) -> bool {
        self.draw == Draw::File
    }
    /// Whether it takes options (and "other").
    pub(super) fn options(&self) -> bool {
        matches!(self.draw, Draw::Choice(_) | Draw::Select)
    }
    /// Whether it takes min/max_selected.
    pub(super) fn multiple(&self) -> bool {
        self.draw == Draw::Choice("checkbox")
    }
    /// Whether it offers "Other" (the core's rule: a dropdown does not).
    pub(super) fn takes_other(&self) -> bool {
        matches!(self.draw, Draw::Choice(_))
    }
    /// Whether it shows a hint in an empty box (a placeholder): typed answers only.
    pub(super) fn placeholder(&self) -> bool {
        matches!(self.draw, Draw::Line(_) | Draw::Area)
    }
    /// Whether it is a question at all (a page break is not).
    pub(super) fn question(&self) -> bool {
        self.draw != Draw::Page
    }
}

const fn kind(
    kind: FieldKind,
    label: &'static str,
    icon: &'static str,
    hint: &'static str,
    draw: Draw,
    bounds: Bounds,
    compare: Compare,
) -> Kind {
    Kind {
        kind,
        label,
        icon,
        hint,
        draw,
        bounds,
        compare,
    }
}

use Bounds as B;
use Compare as C;
use Draw as D;
use FieldKind as K;

/// Every kind of field the core knows today, in the order the palette offers them.
#[rustfmt::skip]
pub(super) const KINDS: &[Kind] = &[
    kind(K::ShortText, "Short text", "Aa", "A name, a word", D::Line("text"), B::None, C::Text),
    kind(K::LongText, "Long text", "¶", "A few sentences", D::Area, B::None, C::Text),
    kind(K::Textarea, "Text area", "¶", "Free text, several lines", D::Area, B::None, C::Text),
    kind(K::Email, "Email address", "@", "Checked as an address", D::Line("email"), B::None, C::Text),
    kind(K::Number, "Number", "#", "With optional bounds", D::Line("number"), B::Number, C::Ordered),
    kind(K::SingleChoice, "Single choice", "◉", "One of a few options", D::Choice("radio"), B::None, C::Option),
    kind(K::MultipleChoice, "Multiple choice", "☑", "Tick any options", D::Choice("checkbox"), B::None, C::Options),
    kind(K::Dropdown, "Dropdown", "▾", "One of many options", D::Select, B::None, C::Option),
    kind(K::Rating, "Rating", "★", "1 to 5 stars", D::Range, B::Stars, C::Points),
    kind(K::Scale, "Scale", "0‥", "Opinion or NPS, 0 to 10", D::Range, B::Scale, C::Points),
    kind(K::Date, "Date", "▦", "A day of the calendar", D::Line("date"), B::Date, C::Ordered),
    kind(K::Url, "Web address", "↗", "A link to a page", D::Line("url"), B::None, C::Text),
    kind(K::Phone, "Phone number", "☏", "Digits, spaces, +", D::Line("tel"), B::None, C::Text),
    kind(K::FileUpload, "File upload", "⇪", "A document or a picture", D::File, B::None, C::Presence),
    kind(K::Checkbox, "Consent box", "✓", "One box to tick", D::Tick, B::None, C::Tick),
    kind(K::Hidden, "Hidden value", "⌁", "Filled from the link's query", D::Hidden, B::None, C::Text),
    kind(K::PageBreak, "Page break", "⤓", "Starts a new page", D::Page, B::None, C::Nothing),
];

/// The row of the kind named `name` (`FormField.type`).
pub(super) fn kind_of(name: &str) -> Option<&'static Kind> {
    let kind: FieldKind = name.parse().ok()?;
    KINDS.iter().find(|k| k.kind == kind)
}

/// The owner's name of a kind (its core name if this edge does not know it).
pub(super) fn kind_label(name: &str) -> &str {
    kind_of(name).map_or(name, |k| k.label)
}

/// The page of each field (1-based), as the core counts them: a break starts the next
/// page, except as the first field, where it titles page 1.
pub(super) fn pages(fields: &[pb::FormField]) -> Vec<usize> {
    let mut page = 1;
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.is(FieldKind::PageBreak) && i > 0 {
                page += 1;
            }
            page
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_offered_once() {
        // One row for each of the core's kinds, none for anything else.
        for kind in FieldKind::ALL {
            let rows = KINDS.iter().filter(|k| k.kind == kind).count();
            assert_eq!(rows, 1, "{}", kind.as_str());
        }
        assert_eq!(KINDS.len(), FieldKind::ALL.len());
        assert!(kind_of("file_upload").is_some_and(Kind::file));
        assert!(kind_of("dropdown").is_some_and(|k| k.options() && !k.takes_other()));
        assert!(kind_of("multiple_choice").is_some_and(Kind::multiple));
        assert_eq!(kind_label("colour"), "colour");
    }

    #[test]
    fn pages_count_as_the_core_counts_them() {
        let field = |kind: &str| pb::FormField {
            r#type: kind.into(),
            ..Default::default()
        };
        let form = [
            field("page_break"),
            field("short_text"),
            field("page_break"),
            field("email"),
        ];
        assert_eq!(pages(&form), [1, 1, 2, 2]);
        assert_eq!(pages(&form[1..]), [1, 2, 2]);
    }
}
