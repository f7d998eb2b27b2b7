//! The cells of a CSV or XLSX row, typed: the leading columns of a response, one cell per
//! field in the form's order with the answer as people read it (an option's label,
//! "Other: …", a file's name), the status columns of partial responses and the language
//! last; and the header row, each column's label unique.

use super::*;

/// One cell of a CSV or XLSX row, typed: the CSV writes it as text ([`Cell::csv`]), the
/// XLSX as a cell of its type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell<'a> {
    Empty,
    /// Text as typed: the CSV neutralises one that a spreadsheet would run as a formula
    /// ([`text_cell`]); the XLSX writes every text as a string, never a formula.
    Text(Cow<'a, str>),
    Integer(i64),
    Number(&'a serde_json::Number),
    /// An instant: RFC 3339 in the CSV, a date-time (UTC) in the XLSX.
    Instant(DateTime<Utc>),
    /// A date answer as typed (YYYY-MM-DD) and read: a date in the XLSX.
    Date(&'a str, NaiveDate),
}

impl Cell<'_> {
    /// The cell's text in a CSV.
    pub(crate) fn csv(&self) -> Cow<'_, str> {
        match self {
            Cell::Empty => Cow::Borrowed(""),
            Cell::Text(text) => text_cell(text),
            Cell::Integer(n) => Cow::Owned(n.to_string()),
            // A number is never a formula, "-3" included: it stays a number in the sheet.
            Cell::Number(n) => Cow::Owned(n.to_string()),
            Cell::Instant(at) => Cow::Owned(rfc3339(*at)),
            Cell::Date(text, _) => text_cell(text),
        }
    }
}

pub(super) fn text(text: &str) -> Cell<'_> {
    Cell::Text(Cow::Borrowed(text))
}

pub(super) fn optional_text(text: Option<&str>) -> Cell<'_> {
    text.map_or(Cell::Empty, self::text)
}

/// The columns of a row before the form's fields.
pub(super) fn leading_cells(r: &ExportRow) -> [Cell<'_>; 8] {
    [
        Cell::Text(Cow::Owned(r.id.to_string())),
        Cell::Instant(r.submitted_at),
        Cell::Instant(r.started_at),
        r.completion_time_seconds.map_or(Cell::Empty, Cell::Integer),
        optional_text(r.device_type.as_deref()),
        optional_text(r.browser.as_deref()),
        optional_text(r.os.as_deref()),
        text(&r.metadata),
    ]
}

/// The cells of a CSV or XLSX row, in column order: the leading columns, one per field,
/// and the status and last page when `trailing` has them.
pub(super) fn cells<'a>(
    r: &'a ExportRow,
    fields: &[(String, Field)],
    answers: &'a Map<String, Value>,
    trailing: Option<(&'static str, i64)>,
) -> Vec<Cell<'a>> {
    let trailing = trailing.map(|(status, page)| [text(status), Cell::Integer(page)]);
    leading_cells(r)
        .into_iter()
        .chain(
            fields
                .iter()
                .map(|(id, field)| readable_cell(field, answers.get(id))),
        )
        .chain(trailing.into_iter().flatten())
        .chain([optional_text(r.language.as_deref())])
        .collect()
}

/// The header row: the leading columns, one per field, and with `statuses` the two
/// columns of partial responses.
pub(super) fn header_row(fields: &[Field], statuses: bool) -> Vec<String> {
    let mut header: Vec<String> = CSV_LEADING_COLUMNS
        .iter()
        .map(|c| (*c).to_owned())
        .chain(column_labels(fields))
        .collect();
    if statuses {
        header.extend(["Status".to_owned(), "Last page".to_owned()]);
    }
    header.push(LANGUAGE_COLUMN.to_owned());
    header
}

/// The header of each field's column: its label, made unique among all columns (people
/// and spreadsheet tools look columns up by header), e.g. "Email", "Email (2)".
pub(crate) fn column_labels(fields: &[Field]) -> Vec<String> {
    let mut used: HashSet<String> = CSV_LEADING_COLUMNS
        .iter()
        .chain(&[LANGUAGE_COLUMN])
        .map(|c| (*c).to_owned())
        .collect();
    fields
        .iter()
        .map(|field| {
            let base = field.label.trim();
            let mut label = base.to_owned();
            let mut n = 1;
            while !used.insert(label.clone()) {
                n += 1;
                label = format!("{base} ({n})");
            }
            label
        })
        .collect()
}

/// A text cell that a spreadsheet shows as text. Spreadsheets run a cell starting with
/// one of these characters as a formula (CSV injection: `=HYPERLINK(...)` and worse,
/// typed in by any respondent); a leading apostrophe makes it plain text.
pub(crate) fn text_cell(text: &str) -> Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The cell of one answer as a person reads it: a choice by its option's label (several
/// joined by "; ", free text as "Other: text"), a checkbox as yes/no; an option removed
/// from the form since shows its id; a date answer as a date. Other kinds as
/// [`answer_cell`].
pub(crate) fn readable_cell<'a>(field: &Field, answer: Option<&'a Value>) -> Cell<'a> {
    let choice = |v: &Value| match v {
        Value::String(id) => field.option_label(id).unwrap_or(id).to_owned(),
        Value::Object(o) => format!(
            "Other: {}",
            o.get("other").and_then(Value::as_str).unwrap_or_default()
        ),
        other => other.to_string(),
    };
    match (field.kind, answer) {
        (_, None | Some(Value::Null)) => Cell::Empty,
        (FieldKind::SingleChoice | FieldKind::Dropdown, Some(v)) => {
            Cell::Text(Cow::Owned(choice(v)))
        }
        (FieldKind::MultipleChoice, Some(Value::Array(items))) => {
            let joined: Vec<String> = items.iter().map(choice).collect();
            Cell::Text(Cow::Owned(joined.join("; ")))
        }
        (FieldKind::Checkbox, Some(Value::Bool(b))) => text(if *b { "yes" } else { "no" }),
        (FieldKind::Date, Some(Value::String(day))) => match crate::forms::parse_date(day) {
            Some(date) => Cell::Date(day, date),
            None => text(day),
        },
        (_, answer) => answer_cell(answer),
    }
}

/// The cell of one answer: text as is, numbers as numbers, booleans as true/false, an
/// uploaded file by its name, anything else as JSON; no answer is an empty cell.
pub(crate) fn answer_cell(answer: Option<&Value>) -> Cell<'_> {
    match answer {
        None | Some(Value::Null) => Cell::Empty,
        Some(Value::String(s)) => text(s),
        Some(Value::Number(n)) => Cell::Number(n),
        Some(Value::Bool(b)) => text(if *b { "true" } else { "false" }),
        Some(Value::Object(file)) if file.contains_key("file_id") => {
            optional_text(file.get("name").and_then(Value::as_str))
        }
        Some(other) => Cell::Text(Cow::Owned(other.to_string())),
    }
}
