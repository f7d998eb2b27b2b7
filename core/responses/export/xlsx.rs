//! The XLSX export: the CSV's header and rows as typed cells of a workbook, through
//! rust_xlsxwriter in its constant-memory mode.
//!
//! An XLSX is a zip whose sheet is compressed whole and whose directory comes last: it
//! cannot be sent as its rows arrive. So each row goes to the worksheet's temporary
//! file as it comes (one row is in memory at a time), and once the rows end the
//! workbook is zipped into a second temporary file, which the pump then sends in
//! chunks. Memory stays constant; the disk holds the sheet's XML and the file while the
//! export runs. Both are unnamed temporary files (in `$TMPDIR`), gone when closed,
//! also when the process dies.

use super::{Cell, internal};
use crate::error::CoreError;
use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, Worksheet, XlsxError};
use std::borrow::Cow;
use std::io::{BufWriter, Seek, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Rows of a sheet, its header row included: Excel's limit.
const SHEET_ROWS: u32 = 1_048_576;
/// Length of a cell's text in UTF-16 units: Excel's limit.
const CELL_UNITS: usize = 32_767;
/// The sheets' name; the second is "Responses (2)", and so on.
const SHEET_NAME: &str = "Responses";

/// An XLSX being written, row by row.
pub(crate) struct Sheet {
    workbook: Workbook,
    header: Vec<String>,
    /// Sheets started; rows go to the last one.
    sheets: u16,
    /// The next row of the last sheet.
    next: u32,
    /// Rows a sheet holds, its header row included (fewer in tests).
    rows_per_sheet: u32,
    formats: Formats,
}

struct Formats {
    header: Format,
    /// The header's, with the quote prefix.
    quoted_header: Format,
    /// Excel's quote prefix: the text stays text even when a person edits the cell.
    quoted: Format,
    instant: Format,
    date: Format,
}

fn xlsx_error(error: XlsxError) -> CoreError {
    internal(error)
}

/// rust_xlsxwriter panics when its temporary file cannot be written (a full disk): a
/// panic while writing is a failed export, not a lost task.
fn guarded<T>(work: impl FnOnce() -> Result<T, CoreError>) -> Result<T, CoreError> {
    catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|_| Err(internal("the workbook could not be written")))
}

impl Sheet {
    /// A workbook whose first sheet starts with `header`.
    pub(crate) fn new(header: Vec<String>) -> Result<Self, CoreError> {
        Self::with_rows_per_sheet(header, SHEET_ROWS)
    }

    fn with_rows_per_sheet(header: Vec<String>, rows_per_sheet: u32) -> Result<Self, CoreError> {
        let mut sheet = Sheet {
            workbook: Workbook::new(),
            header,
            sheets: 0,
            next: 0,
            rows_per_sheet,
            formats: Formats {
                header: Format::new().set_bold(),
                quoted_header: Format::new().set_bold().set_quote_prefix(),
                quoted: Format::new().set_quote_prefix(),
                instant: Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000"),
                date: Format::new().set_num_format("yyyy-mm-dd"),
            },
        };
        sheet.start_sheet()?;
        Ok(sheet)
    }

    /// Starts the next sheet with the header row, frozen, in bold; the id and time
    /// columns wide enough to show their values (a date-time in a narrower column
    /// shows as ####).
    fn start_sheet(&mut self) -> Result<(), CoreError> {
        guarded(|| {
            self.sheets += 1;
            let name = match self.sheets {
                1 => SHEET_NAME.to_owned(),
                n => format!("{SHEET_NAME} ({n})"),
            };
            let sheet = self
                .workbook
                .add_worksheet_with_constant_memory()
                .map_err(xlsx_error)?;
            sheet.set_name(name).map_err(xlsx_error)?;
            sheet.set_freeze_panes(1, 0).map_err(xlsx_error)?;
            for (col, width) in [(0, 37.0), (1, 24.0), (2, 24.0)] {
                sheet.set_column_width(col, width).map_err(xlsx_error)?;
            }
            for (col, label) in self.header.iter().enumerate() {
                let text = cell_text(label);
                let format = match formula_like(&text) {
                    true => &self.formats.quoted_header,
                    false => &self.formats.header,
                };
                sheet
                    .write_string_with_format(0, column(col)?, text.as_ref(), format)
                    .map_err(xlsx_error)?;
            }
            self.next = 1;
            Ok(())
        })
    }

    /// Appends one row; past the sheet's last row, on a new sheet.
    pub(crate) fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), CoreError> {
        if self.next >= self.rows_per_sheet {
            self.start_sheet()?;
        }
        guarded(|| {
            let index = usize::from(self.sheets) - 1;
            let sheet = self
                .workbook
                .worksheet_from_index(index)
                .map_err(xlsx_error)?;
            let (row, f) = (self.next, &self.formats);
            for (col, cell) in cells.iter().enumerate() {
                let col = column(col)?;
                let text = |sheet: &mut Worksheet, text: &str| {
                    write_text(sheet, (row, col), text, &f.quoted)
                };
                match cell {
                    Cell::Empty => Ok(()),
                    Cell::Text(t) => text(sheet, t),
                    Cell::Integer(n) => sheet.write_number(row, col, *n as f64).map(|_| ()),
                    Cell::Number(n) => match n.as_f64() {
                        Some(n) => sheet.write_number(row, col, n).map(|_| ()),
                        None => text(sheet, &n.to_string()),
                    },
                    Cell::Instant(at) => match excel_instant(*at) {
                        Some(at) => sheet
                            .write_datetime_with_format(row, col, at, &f.instant)
                            .map(|_| ()),
                        None => text(sheet, &cell.csv()),
                    },
                    Cell::Date(typed, date) => match excel_date(*date) {
                        Some(date) => sheet
                            .write_datetime_with_format(row, col, date, &f.date)
                            .map(|_| ()),
                        None => text(sheet, typed),
                    },
                }
                .map_err(xlsx_error)?;
            }
            self.next += 1;
            Ok(())
        })
    }

    /// Zips the workbook into a temporary file, and gives it back at its start. Each
    /// sheet's header row gets an autofilter over its rows. Blocking work.
    pub(crate) fn finish(mut self) -> Result<std::fs::File, CoreError> {
        guarded(|| {
            let last_col = column(self.header.len().max(1) - 1)?;
            for index in 0..usize::from(self.sheets) {
                let last_row = if index + 1 == usize::from(self.sheets) {
                    self.next - 1
                } else {
                    self.rows_per_sheet - 1
                };
                self.workbook
                    .worksheet_from_index(index)
                    .and_then(|sheet| sheet.autofilter(0, 0, last_row, last_col))
                    .map_err(xlsx_error)?;
            }
            let mut file = tempfile::tempfile().map_err(internal)?;
            let mut writer = BufWriter::with_capacity(super::CHUNK_BYTES, &mut file);
            self.workbook
                .save_to_writer(&mut writer)
                .map_err(xlsx_error)?;
            writer.flush().map_err(internal)?;
            drop(writer);
            file.rewind().map_err(internal)?;
            Ok(file)
        })
    }
}

/// A text as a string cell: never a formula, whatever it starts with; one that a person
/// editing it would turn into a formula gets the quote prefix.
fn write_text(
    sheet: &mut Worksheet,
    (row, col): (u32, u16),
    text: &str,
    quoted: &Format,
) -> Result<(), XlsxError> {
    let text = cell_text(text);
    match formula_like(&text) {
        true => sheet.write_string_with_format(row, col, text.as_ref(), quoted),
        false => sheet.write_string(row, col, text.as_ref()),
    }
    .map(|_| ())
}

fn column(index: usize) -> Result<u16, CoreError> {
    u16::try_from(index).map_err(internal)
}

/// Whether a spreadsheet would run `text` as a formula if a person typed it (the
/// characters the CSV neutralises).
fn formula_like(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// `text` within Excel's limit of a cell: a longer one is cut, and ends with "…".
fn cell_text(text: &str) -> Cow<'_, str> {
    if text.len() <= CELL_UNITS {
        // UTF-16 never takes more units than UTF-8 takes bytes.
        return Cow::Borrowed(text);
    }
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > CELL_UNITS - 1 {
            return Cow::Owned(format!("{}…", &text[..at]));
        }
    }
    Cow::Borrowed(text)
}

/// An instant as Excel's date-time (UTC, to the millisecond); None outside the dates
/// of [`excel_date`].
fn excel_instant(at: DateTime<Utc>) -> Option<ExcelDateTime> {
    let milli = u16::try_from(at.timestamp_subsec_millis()).ok()?;
    excel_date(at.date_naive())?
        .and_hms_milli(
            u16::try_from(at.hour()).ok()?,
            u8::try_from(at.minute()).ok()?,
            u8::try_from(at.second()).ok()?,
            milli,
        )
        .ok()
}

/// A date as Excel's; None before 1900-03-01 or after 9999: Excel's days start at
/// 1900-01-01 and count a 1900-02-29 that never was, which other spreadsheets read as
/// other days, so earlier dates are text, unambiguous everywhere.
fn excel_date(date: NaiveDate) -> Option<ExcelDateTime> {
    if date < NaiveDate::from_ymd_opt(1900, 3, 1)? {
        return None;
    }
    ExcelDateTime::from_ymd(
        u16::try_from(date.year()).ok()?,
        u8::try_from(date.month()).ok()?,
        u8::try_from(date.day()).ok()?,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{Data, Reader, Xlsx};
    use std::io::Read;

    fn read(mut file: std::fs::File) -> Xlsx<std::io::Cursor<Vec<u8>>> {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).expect("reading the file");
        Xlsx::new(std::io::Cursor::new(bytes)).expect("an XLSX")
    }

    fn header() -> Vec<String> {
        vec!["A".to_owned(), "=B".to_owned()]
    }

    #[test]
    fn rows_past_a_sheets_last_go_on_in_the_next_under_the_same_header() {
        let mut sheet = Sheet::with_rows_per_sheet(header(), 3).expect("sheet");
        for n in 0..5 {
            sheet
                .row(&[Cell::Integer(n), Cell::Text(Cow::Owned(format!("row {n}")))])
                .expect("row");
        }
        let mut book = read(sheet.finish().expect("finished"));
        assert_eq!(
            book.sheet_names(),
            ["Responses", "Responses (2)", "Responses (3)"]
        );
        let mut seen = Vec::new();
        for name in book.sheet_names() {
            let range = book.worksheet_range(&name).expect("sheet");
            let rows: Vec<_> = range.rows().collect();
            assert_eq!(
                rows[0],
                [Data::String("A".into()), Data::String("=B".into())],
                "{name}"
            );
            for row in &rows[1..] {
                seen.push(row[0].clone());
            }
        }
        assert_eq!(
            seen,
            (0..5).map(|n| Data::Float(n as f64)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_text_past_excels_limit_is_cut_with_an_ellipsis() {
        assert_eq!(cell_text("short"), "short");
        let long = "é".repeat(CELL_UNITS + 10);
        let cut = cell_text(&long);
        assert_eq!(cut.encode_utf16().count(), CELL_UNITS);
        assert!(cut.ends_with("é…"));
        // A character of two UTF-16 units is never split.
        let wide = "😀".repeat(CELL_UNITS);
        let cut = cell_text(&wide);
        assert!(cut.encode_utf16().count() <= CELL_UNITS);
        assert!(cut.ends_with("😀…"));
        let exact = "x".repeat(CELL_UNITS);
        assert_eq!(cell_text(&exact), exact, "at the limit: whole");
    }

    #[test]
    fn times_and_dates_outside_excels_calendar_are_text() {
        for (y, m, d) in [(1899, 12, 31), (1900, 1, 1), (1900, 2, 28)] {
            let old = NaiveDate::from_ymd_opt(y, m, d).expect("date");
            assert!(excel_date(old).is_none(), "{old}");
        }
        let first = NaiveDate::from_ymd_opt(1900, 3, 1).expect("date");
        assert_eq!(excel_date(first).map(|d| d.to_excel()), Some(61.0));
        let last = NaiveDate::from_ymd_opt(9999, 12, 31).expect("date");
        assert_eq!(excel_date(last).map(|d| d.to_excel()), Some(2_958_465.0));
        let past = NaiveDate::from_ymd_opt(10_000, 1, 1).expect("date");
        assert!(excel_date(past).is_none());
        let at = DateTime::from_timestamp_micros(1_790_000_000_123_456).expect("valid");
        let serial = excel_instant(at).expect("in range").to_excel();
        // Days since 1899-12-30 (Excel's day 0, past its 1900 leap year), UTC.
        let expected = 25_569.0 + 1_790_000_000.123 / 86_400.0;
        assert!((serial - expected).abs() < 1e-9, "{serial} {expected}");
    }
}
