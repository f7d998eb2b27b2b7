//! What a form's owner reads of its responses: the inbox of finished and unfinished
//! responses (`inbox`, its filter in `filter`), one response (`detail`), downloads and
//! what is done to a selection of rows (`export`), every answer written as a person
//! reads it (`answer`).

mod answer;
mod detail;
mod export;
mod filter;
mod inbox;

pub(crate) use detail::{delete, file, show};
pub(crate) use export::{export_csv, export_ndjson, export_xlsx, selection};
pub(crate) use inbox::inbox;

/// What a path segment escapes: all but the unreserved characters of RFC 3986.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A path segment from an id, escaped (ids come from the address or the core).
pub(crate) fn segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}
